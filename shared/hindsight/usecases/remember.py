"""Remember: accept a memory, give it an id, queue it, answer at once (the worker stores it)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.ids import uuid7
from hindsight.domain.limits import ensure_job_fits
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.domain.redaction import DRAFT_TEXT_FIELDS, Redactor, redact_model
from hindsight.domain.trust import admit_draft
from hindsight.ports import Clock, JobQueue, Metrics, OperationLog


class WriteAck(BaseModel):
    """The answer to a write: the memory's id and that it is queued, not yet searchable."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: Literal["queued"] = "queued"
    submitted_at: datetime
    importance_capped_from: float | None = Field(
        default=None,
        description="The importance asked for, when it was lowered to 0.5: an agent_inferred write, or text "
        "that reads like a prompt injection, from a key that is not trusted.",
    )


IDEMPOTENCY_NAMESPACE = UUID("5f0c2a6e-3b7d-4c1e-9a8f-68696e647369")


def job_id(tenant_id: str, agent_id: str, idempotency_key: str | None) -> UUID:
    """A new time-ordered id, or — with an idempotency key — the same id for every retry of that write
    (UUIDv5 of tenant, agent and key), so the worker stores it once."""
    if idempotency_key is None:
        return uuid7()
    return uuid5(IDEMPOTENCY_NAMESPACE, f"{tenant_id}\x1f{agent_id}\x1f{idempotency_key}")


class Remember:
    """``memory_write``: validate (already done by the draft model), assign an id, enqueue."""

    def __init__(
        self,
        queue: JobQueue,
        clock: Clock,
        redactor: Redactor | None = None,
        operations: OperationLog | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._metrics = metrics
        self._operations = operations
        self._queue = queue
        self._clock = clock
        self._redactor = redactor or Redactor()

    async def __call__(
        self, principal: Principal, agent_id: str | None, draft: MemoryDraft, *, filter: bool = False
    ) -> WriteAck:
        """Redact, cap what an untrusted write may claim as importance (``domain.trust``), assign an id,
        enqueue. Raises Forbidden (read-only key, agent not allowed),
        ValidationError (text grew past a limit by redaction), InvalidInput (the job would be over
        MAX_JOB_BYTES) or Unavailable (queue down)."""
        principal.require_write()
        scope = principal.scope(agent_id)
        draft = redact_model(self._redactor, draft, DRAFT_TEXT_FIELDS)  # before the text leaves us
        draft, asked = admit_draft(draft, principal.trusted)
        now = self._clock.now()
        job = WriteJob(
            id=job_id(scope.tenant_id, scope.agent_id, draft.idempotency_key),
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            submitted_at=now,
            draft=draft,
            filter=filter,
        )
        ensure_job_fits(job.model_dump_json(), draft.model_dump(mode="json", exclude_none=True))
        await self._queue.enqueue(job)
        if self._operations is not None:
            await self._operations.record_queued(job)
        if self._metrics is not None:
            self._metrics.count("WritesQueued")
        return WriteAck(id=job.id, submitted_at=now, importance_capped_from=asked)
