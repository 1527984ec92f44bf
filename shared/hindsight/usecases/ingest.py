"""Bulk ingestion (``hindsight ingest``): many memory writes from a file, through the queue or directly.

``queue`` (the default) sends each item through ``Remember`` — redaction, idempotency, status tracking,
then the embedding worker batches, deduplicates and supersedes, exactly as for an agent's write.
``direct`` skips the queue: the items are redacted, embedded in large batches and stored by
``StoreMemories`` in this process (the same dedup/supersede rules), which is several times faster for
a bulk load but needs the embedding model here and bypasses the workers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.interchange import IngestItem
from hindsight.domain.memory import WriteJob
from hindsight.domain.redaction import DRAFT_TEXT_FIELDS, Redactor, redact_model
from hindsight.ports import Clock
from hindsight.usecases.remember import Remember, job_id
from hindsight.usecases.store_memories import StoreMemories

Mode = Literal["queue", "direct"]


class IngestReport(BaseModel):
    """Counts per outcome; ``ids`` are the memory (job) ids in file order."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    items: int
    queued: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    ids: list[UUID] = Field(default_factory=list)


class Ingest:
    """Writes ``IngestItem``s for one tenant (``default_agent`` for items that name none)."""

    def __init__(
        self,
        remember: Remember | None,
        store: StoreMemories,
        clock: Clock,
        redactor: Redactor | None = None,
    ) -> None:
        self._remember = remember
        self._store = store
        self._clock = clock
        self._redactor = redactor or Redactor()

    async def __call__(
        self,
        items: Iterable[IngestItem],
        *,
        tenant_id: str,
        default_agent: str,
        mode: Mode = "queue",
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> IngestReport:
        """Raises RuntimeError (queue mode without a queue), Unavailable (queue or database down)."""
        # the operator's import: importances are kept as the file gives them (domain.trust)
        principal = Principal(tenant_id=tenant_id, key_id="cli-ingest", trusted=True)
        advance = progress or (lambda _: None)
        ids: list[UUID] = []
        outcomes: dict[str, int] = {}
        if mode == "queue":
            if self._remember is None:
                raise RuntimeError("no write queue configured: set HINDSIGHT_WRITE_QUEUE_URL or use --direct")
            for item in items:
                ack = await self._remember(principal, item.agent_id or default_agent, item.draft)
                ids.append(ack.id)
                advance(1)
            return IngestReport(mode=mode, items=len(ids), queued=len(ids), ids=ids)
        batch: list[WriteJob] = []
        for item in items:
            batch.append(self._job(tenant_id, item.agent_id or default_agent, item))
            if len(batch) >= batch_size:
                await self._store_batch(batch, ids, outcomes, advance)
                batch = []
        if batch:
            await self._store_batch(batch, ids, outcomes, advance)
        return IngestReport(mode=mode, items=len(ids), outcomes=outcomes, ids=ids)

    def _job(self, tenant_id: str, agent_id: str, item: IngestItem) -> WriteJob:
        draft = redact_model(self._redactor, item.draft, DRAFT_TEXT_FIELDS)
        return WriteJob(
            id=job_id(tenant_id, agent_id, draft.idempotency_key),
            tenant_id=tenant_id,
            agent_id=agent_id,
            submitted_at=self._clock.now(),
            draft=draft,
        )

    async def _store_batch(
        self, batch: list[WriteJob], ids: list[UUID], outcomes: dict[str, int], advance: Callable[[int], None]
    ) -> None:
        for result in await self._store(batch):
            outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
            ids.append(result.job_id)
        advance(len(batch))
