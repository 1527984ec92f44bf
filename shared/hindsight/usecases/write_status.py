"""Write status (``memory_status``) and the stuck-work sweep."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import timedelta
from functools import cache
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob
from hindsight.ports import JobQueue, MemoryWriter, OperationLog

log = logging.getLogger(__name__)
StatusName = Literal["queued", "stored", "merged", "skipped", "failed", "deleted", "unknown"]
MAX_SWEEP_ATTEMPTS = 5
"""After this many deliveries a job is left to the dead-letter queue and the operators."""
SWEEP_PAGE = 500
"""Entries of the operation log the sweep reads at a time."""


class WriteStatus(BaseModel):
    """One job's state. ``queued``: accepted, not processed yet. ``merged``: a near-duplicate that
        updated ``memory_id``. ``skipped``: the write filter judged it not worth remembering. ``deleted``: it
    was stored (or merged into ``memory_id``) and that memory was deleted since (a hard forget). ``unknown``:
        not seen (never written by this agent of this tenant, expired, or the status log was unavailable);
        ``reason`` then says so, and to pass the agent_id the write was made with."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: StatusName
    memory_id: UUID | None = None
    reason: str | None = None


class GetWriteStatus:
    """``memory_status``: Postgres' record of processed jobs first, then the queued log."""

    def __init__(self, writer: MemoryWriter, operations: OperationLog | None = None) -> None:
        self._writer = writer
        self._operations = operations

    async def __call__(
        self,
        principal: Principal,
        ids: Sequence[UUID],
        agent_id: str | None = None,
        *,
        any_agent: bool = False,
    ) -> list[WriteStatus]:
        """The state of each id written by the scope's agent (``principal.scope(agent_id)``); an id of
        another tenant or another agent is "unknown", like an id never written. ``any_agent``: every
        agent of the tenant (operators: the CLI's ingest). Raises Forbidden (agent not allowed)."""
        scope = principal.scope(agent_id)
        only = None if any_agent else scope.agent_id
        unique = list(dict.fromkeys(ids))
        recorded = await self._writer.write_results(scope.tenant_id, unique, only)
        queued: set[UUID] = set()
        missing = [i for i in unique if i not in recorded]
        if missing and self._operations is not None:
            try:
                queued = await self._operations.queued(scope.tenant_id, missing, only)
            except Unavailable as exc:
                log.warning("%s", exc)
        out = []
        for job_id in ids:
            result = recorded.get(job_id)
            if result is not None:
                out.append(
                    WriteStatus(
                        id=job_id,
                        status="deleted" if result.memory_deleted else result.outcome,
                        memory_id=result.memory_id,
                        reason=result.reason,
                    )
                )
            else:
                status: StatusName = "queued" if job_id in queued else "unknown"
                reason = _unknown_reason(only) if status == "unknown" else None
                out.append(WriteStatus(id=job_id, status=status, reason=reason))
        return out


def _unknown_reason(agent_id: str | None) -> str:
    """Why an id is "unknown", and what to try: the same words whether it was never written or written
    by another agent or tenant (which must not be revealed). ``agent_id`` None: every agent was asked."""
    if agent_id is None:
        return "no write with this id is known in this tenant (never written, or no longer recorded)"
    return (
        f"no write with this id is known for agent '{agent_id}' of this key (never written by it, or no "
        "longer recorded); if it was written with agent_id, pass the same agent_id"
    )


@cache
def _job() -> TypeAdapter[WriteJob | ReflectJob]:
    """The validator of a queued job's body, built on first use (the sweep's): nothing at import time."""
    return TypeAdapter(WriteJob | ReflectJob)


class SweepStuckWork:
    """Re-enqueue jobs still queued past a deadline and not processed (a lost message, a crashed local
    poller, an emulator restart). Safe because every worker is idempotent per job id."""

    def __init__(self, operations: OperationLog, writer: MemoryWriter, queue: JobQueue) -> None:
        self._operations = operations
        self._writer = writer
        self._queue = queue

    async def sweep(self, older_than: timedelta) -> int:
        """Returns how many jobs were re-enqueued.

        Reads the log page by page until it has seen every job queued before ``older_than``: entries that
        stay (a job given up after ``MAX_SWEEP_ATTEMPTS``) are stepped over, so however many of them pile
        up, a job lost after them is still found (one page once held only finished or given-up entries,
        and the sweep answered 0 while lost work waited behind them)."""
        requeued = 0
        seen: set[tuple[str, UUID]] = set()
        offset = 0  # entries before this position stay in the log (given up, or re-enqueued by this sweep)
        while page := await self._operations.older_than(older_than.total_seconds(), SWEEP_PAGE, offset):
            for tenant_id, job_id, body, attempts in page:
                if (tenant_id, job_id) in seen:  # re-enqueued by this sweep: its entry moved to the end
                    offset += 1
                    continue
                seen.add((tenant_id, job_id))
                if (await self._writer.write_results(tenant_id, [job_id])).get(job_id) is not None:
                    await self._operations.done(tenant_id, [job_id])
                    continue
                if attempts >= MAX_SWEEP_ATTEMPTS:
                    log.error(
                        "job %s (tenant %s) still not processed after %d deliveries",
                        job_id,
                        tenant_id,
                        attempts,
                    )
                    offset += 1
                    continue
                try:
                    job = _job().validate_json(body)
                except ValidationError:
                    log.error("queued job %s has an unreadable body; dropping its status entry", job_id)
                    await self._operations.done(tenant_id, [job_id])
                    continue
                await self._queue.enqueue(job)
                await self._operations.requeued(tenant_id, job_id)
                requeued += 1
        return requeued
