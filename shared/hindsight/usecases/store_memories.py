"""Store memories (the embedding worker): embed a batch in one model call, then store or merge each."""

from __future__ import annotations

from collections.abc import Sequence

from hindsight.domain.memory import StoreResult, WriteJob
from hindsight.domain.text import passage_text
from hindsight.ports import Embedder, MemoryWriter


class StoreMemories:
    """Turns queued write jobs into stored (or merged) memories; idempotent per job id."""

    def __init__(self, store: MemoryWriter, embedder: Embedder, dedup_cosine: float) -> None:
        self._store = store
        self._embedder = embedder
        self._dedup_cosine = dedup_cosine

    async def __call__(self, jobs: Sequence[WriteJob]) -> list[StoreResult]:
        """One result per job, in order. Raises if the embedder fails (the whole batch is retried)."""
        if not jobs:
            return []
        embeddings = await self._embedder.embed_passages([passage_text(j.draft) for j in jobs])
        return await self._store.store(jobs, embeddings, self._dedup_cosine)
