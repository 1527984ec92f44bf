"""An Embedder decorator that reports embedding latency and volume to the Metrics port."""

from __future__ import annotations

import time
from collections.abc import Sequence

from hindsight.domain.chunking import TokenWindow
from hindsight.ports import Embedder, Metrics, Vector


class TimedEmbedder:
    """Wraps an embedder: ``EmbeddingLatency`` (ms per model call), ``EmbeddedTexts`` (texts per call)."""

    def __init__(self, inner: Embedder, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    @property
    def inner(self) -> Embedder:
        """The wrapped embedder."""
        return self._inner

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        started = time.perf_counter()
        vectors = await self._inner.embed_passages(texts)
        self._metrics.timing("EmbeddingLatency", (time.perf_counter() - started) * 1000)
        self._metrics.count("EmbeddedTexts", len(texts))
        return vectors

    async def embed_query(self, text: str) -> Vector:
        started = time.perf_counter()
        vector = await self._inner.embed_query(text)
        self._metrics.timing("QueryEmbeddingLatency", (time.perf_counter() - started) * 1000)
        return vector

    def passage_window(self) -> TokenWindow | None:
        return self._inner.passage_window()
