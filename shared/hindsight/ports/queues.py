"""Ports of the work queues: sending jobs, and the best-effort log of which accepted jobs are still queued."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol
from uuid import UUID

from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob


class JobQueue(Protocol):
    """The work queues (SQS in AWS, the emulator locally): write jobs and reflection jobs each go to
    their own queue, consumed by their own worker."""

    async def enqueue(self, job: WriteJob | ReflectJob) -> None:
        """Send one job. Raises Unavailable when the queue cannot take it."""
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

    async def older_than(self, seconds: float, limit: int = 500) -> list[tuple[str, UUID, str, int]]:
        """(tenant, id, job JSON, attempts) queued more than ``seconds`` ago."""
        ...

    async def requeued(self, tenant_id: str, job_id: UUID) -> None: ...

    async def done(self, tenant_id: str, job_ids: Sequence[UUID]) -> None: ...
