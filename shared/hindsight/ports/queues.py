"""Ports of the work queues: sending jobs, and the best-effort log of which accepted jobs are still queued."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from uuid import UUID

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob


class JobQueue(Protocol):
    """The work queues (SQS in AWS, the emulator locally): write jobs and reflection jobs each go to
    their own queue, consumed by their own worker."""

    async def enqueue(self, job: WriteJob | ReflectJob) -> None:
        """Send one job. Raises Unavailable when the queue cannot take it."""
        ...

    async def enqueue_many(self, jobs: Sequence[WriteJob]) -> list[Unavailable | None]:
        """Send write jobs in as few requests as the queue allows (SQS: ``SendMessageBatch``, 10 a
        request). One entry per job, in order: None when queued, else why not (a job the queue refused,
        or every job of a request that failed) — never raises for a refused job, never drops one."""
        ...


class OperationLog(Protocol):
    """Which accepted jobs are still queued (best-effort; the queue itself is the source of truth)."""

    async def record_queued(self, job: WriteJob | ReflectJob) -> None:
        """Never raises: a job already on the queue must not be refused for bookkeeping."""
        ...

    async def queued(self, tenant_id: str, ids: Sequence[UUID], agent_id: str | None = None) -> set[UUID]:
        """The ids among ``ids`` queued for the tenant (and, when given, written by ``agent_id``).
        Raises Unavailable when the log cannot be read."""
        ...

    async def older_than(
        self, seconds: float, limit: int = 500, offset: int = 0
    ) -> list[tuple[str, UUID, str, int]]:
        """(tenant, id, job JSON, attempts) queued more than ``seconds`` ago, oldest first: at most ``limit``
        of them, after skipping the first ``offset``."""
        ...

    async def requeued(self, tenant_id: str, job_id: UUID) -> None: ...

    async def done(self, tenant_id: str, job_ids: Sequence[UUID]) -> None: ...


@dataclass(frozen=True)
class IdempotencyRecord:
    """What an idempotency key is bound to: the fingerprint of the first write's arguments
    (``domain.memory.write_fingerprint``), when that write was acknowledged, and whether the API key that
    made it was trusted (``Principal.trusted``: what its importance cap was decided by, so a replay from
    another key answers, and queues, what the first call was given; None in a record made before it was
    kept)."""

    fingerprint: str
    submitted_at: datetime
    trusted: bool | None = None


class IdempotencyRecords(Protocol):
    """Idempotency keys bound to the write that first used them, for a bounded window (Redis)."""

    async def claim(
        self, tenant_id: str, job_id: UUID, record: IdempotencyRecord
    ) -> IdempotencyRecord | None:
        """Bind ``job_id`` (a key's write id) to ``record`` unless it is bound already: None when this call
        bound it, else the record bound first. Raises Unavailable when the records cannot be read."""
        ...

    async def release(self, tenant_id: str, job_id: UUID) -> None:
        """Unbind ``job_id`` (its write was not accepted after all). Never raises."""
        ...


class SessionSequence(Protocol):
    """Numbers for the writes of a session, in the order they are acknowledged (Redis: one counter per
    tenant, agent and session). Numbers only increase: a session's next number is greater than every
    number it was given before, also after its counter expired or the store lost it."""

    async def next(self, tenant_id: str, agent_id: str, session_id: str) -> int:
        """The session's next number. Raises Unavailable when the counter store is down."""
        ...
