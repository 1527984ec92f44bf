"""Re-embed the store under another embedding model or dimension while it keeps serving
(``hindsight reembed``; the storage side is ``EmbeddingMigrationStore``).

The order of a run: record the target and add the shadow vectors → fill them in batches (resumable:
Ctrl-C and run again) → build their index → switch, atomically, filling inside the switch whatever was
written or edited since. Searches are answered from the old vectors until the switch commits. Processes
still configured for the old model then refuse to start with the mismatch error; restart them with the
new ``HINDSIGHT_EMBEDDER`` / ``HINDSIGHT_EMBEDDING_DIM``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from hindsight.domain.chunking import TokenWindow
from hindsight.domain.embedding_text import first_passage
from hindsight.domain.errors import InvalidInput
from hindsight.ports import (
    Embedder,
    EmbeddingMigrationStore,
    EmbeddingState,
    EmbeddingSwitch,
    PendingEmbedding,
)

MAX_PASSES = 10
"""Fill passes before the switch; rows still changing after that are filled inside the switch."""
Phase = Literal["fill", "index", "switch", "done"]
Progress = Callable[[Phase, int, int], None]
"""``progress(phase, done, total)``: rows embedded so far out of the rows that had no new vector."""


class ReembedReport(BaseModel):
    """What a run did."""

    model_config = ConfigDict(frozen=True)

    from_model: str | None
    from_dim: int
    to_model: str
    to_dim: int
    embedded: int
    switched: bool
    remaining: int = 0
    nothing_to_do: bool = False


def text_of(row: PendingEmbedding, window: TokenWindow | None = None) -> str:
    """What a pending row's new vector is computed from: the write path's recipe (``window``: the
    target embedder's; the stored later chunks keep the cuts they were written with)."""
    if row.chunk_no == 0:
        return first_passage(row.content, query=row.query, context=row.context, window=window)
    return row.content


class Reembed:
    """One re-embedding run under ``target`` (an embedder built from the new settings)."""

    def __init__(self, store: EmbeddingMigrationStore, target: Embedder, batch_size: int = 64) -> None:
        self._store = store
        self._target = target
        self._batch = batch_size

    async def status(self) -> EmbeddingState:
        return await self._store.state()

    async def _embed(self, rows: Sequence[PendingEmbedding]) -> list[tuple[PendingEmbedding, list[float]]]:
        window = self._target.passage_window()
        vectors = await self._target.embed_passages([text_of(r, window) for r in rows])
        for vector in vectors[:1]:
            if len(vector) != self._target.dim:
                raise InvalidInput(
                    "dim", f"the embedder returned {len(vector)} dimensions, not {self._target.dim}"
                )
        return list(zip(rows, vectors, strict=True))

    async def run(self, *, switch: bool = True, progress: Progress | None = None) -> ReembedReport:
        """Fill, index and (unless ``switch`` is False) switch. Raises InvalidInput (another target in
        progress), Unavailable (the tables stayed locked by others past the lock timeout)."""
        model, dim = self._target.model_name, self._target.dim
        before = await self._store.state()
        if before.target_model is None and (before.model, before.dim) == (model, dim):
            return ReembedReport(
                from_model=before.model,
                from_dim=before.dim,
                to_model=model,
                to_dim=dim,
                embedded=0,
                switched=False,
                nothing_to_do=True,
            )
        await self._store.begin(model, dim)
        total = (await self._store.state()).remaining
        done = 0
        report = progress or (lambda *_: None)
        report("fill", 0, total)
        for _ in range(MAX_PASSES):  # rows written or changed meanwhile come round in the next pass
            after = None
            found = 0
            while rows := await self._store.pending(after, self._batch):
                found += len(rows)
                filled = await self._store.fill(await self._embed(rows))
                done += filled
                total = max(total, done)
                report("fill", done, total)
                after = (rows[-1].memory_id, rows[-1].chunk_no)
            if not found:
                break
        report("index", done, total)
        await self._store.build_index()
        if not switch:
            left = (await self._store.state()).remaining
            return ReembedReport(
                from_model=before.model,
                from_dim=before.dim,
                to_model=model,
                to_dim=dim,
                embedded=done,
                switched=False,
                remaining=left,
            )
        report("switch", done, total)
        async with self._store.switching() as tx:
            done += await self._fill_in_switch(tx)
            await tx.swap(model, dim)
        report("done", done, max(total, done))
        return ReembedReport(
            from_model=before.model,
            from_dim=before.dim,
            to_model=model,
            to_dim=dim,
            embedded=done,
            switched=True,
        )

    async def _fill_in_switch(self, tx: EmbeddingSwitch) -> int:
        filled = 0
        while rows := await tx.pending(self._batch):
            count = await tx.fill(await self._embed(rows))
            if count == 0:
                raise RuntimeError("rows stayed pending inside the switch transaction")
            filled += count
        return filled

    async def abort(self) -> bool:
        """Drop the shadow vectors; the store stays on its current model. False when none was running."""
        return await self._store.abort()
