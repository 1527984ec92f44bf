"""The by-id tools given the id a write's acknowledgement returned, for a write that ended in no memory of
that id (trial15 LOW: "memory X not found" for a write merged into another memory — a model cannot guess
that memory_status knows the memory to use): the NotFound names the write's outcome and the memory."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import NotFound, Unavailable
from hindsight.domain.memory import MemoryChanges, Scope, StoreResult
from hindsight.usecases.manage_memory import ManageMemory
from tests.unit.fakes import FixedClock

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")
WRITE, MEMORY = uuid.uuid4(), uuid.uuid4()


class _Nothing:
    """A reader and editor that find no memory."""

    async def get(self, scope: Scope, memory_id: UUID) -> None:
        return None

    async def get_many_with_relations(self, *args: Any) -> tuple[list[Any], list[Any]]:
        return [], []

    async def forget(self, *args: Any) -> None:
        return None

    async def set_status(self, *args: Any) -> None:
        return None


class _Writes:
    def __init__(self, results: dict[UUID, StoreResult] | Exception) -> None:
        self.results = results
        self.asked: list[tuple[str, list[UUID], str | None]] = []

    async def write_results(
        self, tenant_id: str, job_ids: Sequence[UUID], agent_id: str | None = None
    ) -> dict[UUID, StoreResult]:
        self.asked.append((tenant_id, list(job_ids), agent_id))
        if isinstance(self.results, Exception):
            raise self.results
        return self.results


def _manage(writes: _Writes | None) -> ManageMemory:
    nothing: Any = _Nothing()
    clock = FixedClock(datetime(2026, 12, 7, tzinfo=UTC))
    return ManageMemory(nothing, nothing, None, None, None, clock, writes)  # type: ignore[arg-type]


async def _refusals(manage: ManageMemory, memory_id: UUID) -> list[NotFound]:
    """The NotFound of memory_get, memory_forget and memory_update (update and supersede) of the id."""
    calls = [
        manage.get(ALICE, None, memory_id),
        manage.forget(ALICE, None, memory_id, hard=False, reason=None),
        manage.update(ALICE, None, memory_id, "update", MemoryChanges(importance=0.9), None),
        manage.update(ALICE, None, memory_id, "archive", MemoryChanges(), None),
    ]
    refused = []
    for call in calls:
        with pytest.raises(NotFound) as caught:
            await call
        refused.append(caught.value)
    return refused


async def test_a_merged_writes_id_names_the_memory_it_was_merged_into() -> None:
    writes = _Writes({WRITE: StoreResult(job_id=WRITE, outcome="merged", memory_id=MEMORY)})
    for refused in await _refusals(_manage(writes), WRITE):
        assert refused.field == "id"
        assert str(refused) == (
            f"id: memory {WRITE} not found: {WRITE} is the id of a write that was merged into memory "
            f"{MEMORY} (a near-duplicate): use {MEMORY}"
        )
    assert writes.asked[0] == ("acme", [WRITE], "default")  # the scope's agent only


@pytest.mark.parametrize(
    ("result", "words"),
    [
        (
            StoreResult(job_id=WRITE, outcome="skipped", reason="small talk"),
            "a write that was skipped (small talk): no memory",
        ),
        (
            StoreResult(job_id=WRITE, outcome="failed", refused=True),
            "a write that failed: no memory was stored",
        ),
        (
            StoreResult(job_id=WRITE, outcome="merged", memory_id=MEMORY, memory_deleted=True),
            f"merged into memory {MEMORY}, deleted since",
        ),
    ],
)
async def test_a_write_that_left_no_memory_says_why(result: StoreResult, words: str) -> None:
    for refused in await _refusals(_manage(_Writes({WRITE: result})), WRITE):
        assert words in str(refused), str(refused)


@pytest.mark.parametrize("writes", [None, _Writes({}), _Writes(Unavailable("database down"))])
async def test_an_id_of_no_write_is_not_found_as_before(writes: _Writes | None) -> None:
    """Guards: no write recorded, no port, or the record unreadable: "memory … not found" as before."""
    for refused in await _refusals(_manage(writes), WRITE):
        assert str(refused) == f"id: memory {WRITE} not found"
