"""The stuck-work sweep finds lost work however many given-up entries sit before it in the log."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID, uuid4

from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.usecases.write_status import MAX_SWEEP_ATTEMPTS, SWEEP_PAGE, SweepStuckWork


class _Log:
    """An operation log in memory: entries ordered by the time they were queued (oldest first)."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, UUID, str, int]] = []

    async def older_than(
        self, seconds: float, limit: int = 500, offset: int = 0
    ) -> list[tuple[str, UUID, str, int]]:
        return list(self.entries[offset : offset + limit])

    async def requeued(self, tenant_id: str, job_id: UUID) -> None:
        entry = next(e for e in self.entries if e[1] == job_id)
        self.entries.remove(entry)
        self.entries.append((entry[0], entry[1], entry[2], entry[3] + 1))  # queued again: now the newest

    async def done(self, tenant_id: str, job_ids: Sequence[UUID]) -> None:
        self.entries = [e for e in self.entries if e[1] not in job_ids]


class _Writer:
    def __init__(self, stored: set[UUID]) -> None:
        self.stored = stored

    async def write_results(
        self, tenant_id: str, job_ids: Sequence[UUID], agent_id: str | None = None
    ) -> dict[UUID, Any]:
        return {job_id: "stored" for job_id in job_ids if job_id in self.stored}


class _Queue:
    def __init__(self) -> None:
        self.sent: list[UUID] = []

    async def enqueue(self, job: WriteJob) -> None:
        self.sent.append(job.id)


def _job(tenant: str = "t") -> WriteJob:
    return WriteJob(
        id=uuid4(),
        tenant_id=tenant,
        agent_id="default",
        submitted_at=datetime(2026, 1, 1, tzinfo=UTC),
        draft=MemoryDraft(content="The office wifi password changed in May"),
    )


def test_a_job_lost_behind_more_than_a_page_of_given_up_and_finished_entries_is_re_enqueued() -> None:
    log, stored, queue = _Log(), set[UUID](), _Queue()
    for n in range(SWEEP_PAGE + 200):  # given up (left to the DLQ) and finished-but-not-marked entries
        job = _job()
        if n % 2:
            stored.add(job.id)
        log.entries.append(("t", job.id, job.model_dump_json(), MAX_SWEEP_ATTEMPTS if n % 2 == 0 else 1))
    lost = _job()
    log.entries.append(("t", lost.id, lost.model_dump_json(), 1))

    requeued = asyncio.run(SweepStuckWork(log, _Writer(stored), queue).sweep(timedelta(0)))  # type: ignore[arg-type]

    assert requeued == 1
    assert queue.sent == [lost.id]
    assert not any(e[1] in stored for e in log.entries)  # finished entries are marked done
    assert sum(e[3] == MAX_SWEEP_ATTEMPTS for e in log.entries) == (SWEEP_PAGE + 200) // 2  # given up: kept


def test_a_sweep_re_enqueues_each_job_once_even_when_its_new_entry_is_old_enough_again() -> None:
    log, queue = _Log(), _Queue()
    jobs = [_job() for _ in range(3)]
    log.entries = [("t", j.id, j.model_dump_json(), 1) for j in jobs]

    requeued = asyncio.run(SweepStuckWork(log, _Writer(set()), queue).sweep(timedelta(0)))  # type: ignore[arg-type]

    assert requeued == 3
    assert queue.sent == [j.id for j in jobs]
    assert [e[3] for e in log.entries] == [2, 2, 2]
