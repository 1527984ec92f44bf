"""A bounded in-process cache of query embeddings (queries repeat; the model call dominates search)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from hindsight.domain.chunking import TokenWindow
from hindsight.ports import Embedder, Vector


class CachedQueryEmbedder:
    """Wraps an Embedder; ``embed_query`` results are kept in an LRU of ``size`` entries.

    Safe without locks: the process serves requests on one event loop, and a lost race only
    computes a vector twice.
    """

    def __init__(self, inner: Embedder, size: int = 2048) -> None:
        self._inner = inner
        self._size = size
        self._cache: OrderedDict[str, Vector] = OrderedDict()

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        return await self._inner.embed_passages(texts)

    async def embed_query(self, text: str) -> Vector:
        hit = self._cache.get(text)
        if hit is not None:
            self._cache.move_to_end(text)
            return hit
        vector = await self._inner.embed_query(text)
        self._cache[text] = vector
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return vector

    def passage_window(self) -> TokenWindow | None:
        return self._inner.passage_window()
