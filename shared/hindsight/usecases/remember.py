"""Remember: accept a memory, give it an id, queue it, answer at once (the worker stores it)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Literal
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.errors import IdempotencyKeyReused, Unavailable
from hindsight.domain.ids import uuid7
from hindsight.domain.limits import ensure_job_fits
from hindsight.domain.memory import MemoryDraft, WriteJob, write_fingerprint
from hindsight.domain.redaction import DRAFT_TEXT_FIELDS, Redactor, redact_model
from hindsight.domain.trust import admit_draft
from hindsight.ports import Clock, IdempotencyRecord, IdempotencyRecords, JobQueue, Metrics, OperationLog

log = logging.getLogger(__name__)


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
    redacted: list[str] | None = Field(
        default=None,
        description="What redaction replaced before anything was stored (e.g. ['email']): the stored text "
        "reads [REDACTED:<kind>] there.",
    )
    replayed: bool | None = Field(
        default=None,
        description="True when the idempotency_key was already used with the same arguments: this is the "
        "first call's answer, and the write is stored once.",
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
        idempotency: IdempotencyRecords | None = None,
    ) -> None:
        self._metrics = metrics
        self._operations = operations
        self._queue = queue
        self._clock = clock
        self._redactor = redactor or Redactor()
        self._idempotency = idempotency

    async def __call__(
        self, principal: Principal, agent_id: str | None, draft: MemoryDraft, *, filter: bool = False
    ) -> WriteAck:
        """Redact, cap what an untrusted write may claim as importance (``domain.trust``), assign an id,
        enqueue. With an ``idempotency_key``, the key is bound to the fingerprint of the arguments
        (``write_fingerprint``) at its first use: a retry with the same arguments gets the first answer
        (same id and ``submitted_at``, ``replayed``), one with different arguments is refused. Raises
        Forbidden (read-only key, agent not allowed), IdempotencyKeyReused, ValidationError (text grew past
        a limit by redaction), InvalidInput (the job would be over MAX_JOB_BYTES) or Unavailable (queue
        down)."""
        principal.require_write()
        scope = principal.scope(agent_id)
        fingerprint = write_fingerprint(draft, filter)  # the caller's arguments, before we change them
        redacted: set[str] = set()
        draft = redact_model(self._redactor, draft, DRAFT_TEXT_FIELDS, redacted)  # before the text leaves us
        draft, asked = admit_draft(draft, principal.trusted)
        now = self._clock.now()
        write_id = job_id(scope.tenant_id, scope.agent_id, draft.idempotency_key)
        first = await self._claim(scope.tenant_id, write_id, draft, fingerprint, now)
        job = WriteJob(
            id=write_id,
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            submitted_at=first.submitted_at if first else now,
            draft=draft,
            filter=filter,
        )
        try:
            ensure_job_fits(job.model_dump_json(), draft.model_dump(mode="json", exclude_none=True))
            await self._queue.enqueue(job)  # a replay too: the first may be lost; the worker stores once
        except Exception:
            if first is None and draft.idempotency_key is not None and self._idempotency is not None:
                await self._idempotency.release(scope.tenant_id, write_id)
            raise
        if self._operations is not None:
            await self._operations.record_queued(job)
        if self._metrics is not None:
            self._metrics.count("WritesQueued")
        return WriteAck(
            id=job.id,
            submitted_at=job.submitted_at,
            importance_capped_from=asked,
            redacted=sorted(redacted) or None,
            replayed=True if first else None,
        )

    async def _claim(
        self, tenant_id: str, write_id: UUID, draft: MemoryDraft, fingerprint: str, now: datetime
    ) -> IdempotencyRecord | None:
        """The record an idempotency key was bound to first, or None (no key, first use, no records).
        Raises IdempotencyKeyReused when it was bound to other arguments. Records that cannot be read
        do not stop the write: the worker still stores a key's write once (the first stored wins)."""
        if draft.idempotency_key is None or self._idempotency is None:
            return None
        try:
            first = await self._idempotency.claim(tenant_id, write_id, IdempotencyRecord(fingerprint, now))
        except Unavailable as exc:
            log.warning("%s; write %s accepted without its idempotency check", exc, write_id)
            return None
        if first is not None and first.fingerprint != fingerprint:
            raise IdempotencyKeyReused(str(write_id))
        return first
