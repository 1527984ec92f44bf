"""A deterministic bag-of-words hashing embedder for tests of the plumbing (never for real data)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from hindsight.domain.chunking import TokenWindow
from hindsight.domain.text import keyword_terms
from hindsight.ports import Vector


class HashEmbedder:
    """Feature hashing of lower-cased words into ``dim`` buckets, L2-normalised.

    Texts sharing words get similar vectors, identical texts identical vectors: enough to test
    storage, dedup and fusion without loading a model.
    """

    def __init__(self, dim: int = 384) -> None:
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return f"hash/{self._dim}"

    def _vector(self, text: str) -> Vector:
        vec = [0.0] * self._dim
        for term in keyword_terms(text) or ["<empty>"]:
            digest = hashlib.blake2b(term.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "big") % self._dim
            sign = 1.0 if digest[4] & 1 else -1.0
            vec[bucket] += sign
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        return [self._vector(t) for t in texts]

    async def embed_query(self, text: str) -> Vector:
        return self._vector(text)

    def passage_window(self) -> TokenWindow | None:
        """None: bag-of-words hashing reads any length."""
        return None
