"""The Embedder port and the ``Vector`` it produces."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from hindsight.domain.chunking import TokenWindow

Vector = list[float]


class Embedder(Protocol):
    """Turns text into unit-length vectors of ``dim`` floats.

    Retrieval models embed queries and passages differently (e5 uses "query: "/"passage: " prefixes),
    so the two are separate calls.
    """

    @property
    def dim(self) -> int: ...

    @property
    def model_name(self) -> str: ...

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, in order; one model call for the whole batch."""
        ...

    async def embed_query(self, text: str) -> Vector: ...

    def passage_window(self) -> TokenWindow | None:
        """The model's token window for passages (its tokenizer's count and the tokens one pass reads),
        which chunking keeps every chunk within; None when the model has none to keep (chunks are then
        cut by characters only)."""
        ...
