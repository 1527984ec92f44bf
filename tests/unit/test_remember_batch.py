"""memory_write_batch's use case over in-memory fakes: per-item outcomes, one queue request per call, the
item budget charged once for the valid items, whole-call errors."""

from __future__ import annotations

import anyio.lowlevel
import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import Forbidden, InvalidInput, RateLimited, Unavailable
from hindsight.domain.limits import MAX_BATCH_ITEMS
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.usecases.remember import (
    RECORD_CONCURRENCY,
    BatchItem,
    ItemOutcome,
    Remember,
    RememberBatch,
    job_id,
)
from tests.unit.fakes import FixedClock, ListQueue

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")


def _items(*contents: str) -> list[BatchItem | ItemOutcome]:
    return [
        BatchItem(draft=MemoryDraft(content=c, idempotency_key=f"turn-{i}")) for i, c in enumerate(contents)
    ]


async def test_each_item_is_queued_with_its_own_id_in_one_request() -> None:
    queue = ListQueue()
    charged: list[int] = []

    async def charge(principal: Principal, count: int) -> None:
        charged.append(count)

    outcomes = await RememberBatch(Remember(queue, FixedClock()), charge)(
        ALICE, "importer", _items("a", "b", "c")
    )
    assert [o.error for o in outcomes] == [None] * 3
    ids = [o.ack.id for o in outcomes if o.ack is not None]
    assert ids == [job_id("acme", "importer", f"turn-{i}") for i in range(3)]  # idempotent per item
    assert [(j.id, j.agent_id, j.draft.content) for j in queue.jobs] == list(
        zip(ids, ["importer"] * 3, ["a", "b", "c"], strict=True)
    )
    assert queue.requests == 1
    assert charged == [3]


async def test_a_bad_item_is_its_own_error_and_the_others_are_queued() -> None:
    # Given a batch whose middle item the caller could not parse
    queue = ListQueue()
    charged: list[int] = []

    async def charge(principal: Principal, count: int) -> None:
        charged.append(count)

    parse_error = ItemOutcome(error=InvalidInput("content", "missing"))
    items = [*_items("first"), parse_error, *_items("third")]
    outcomes = await RememberBatch(Remember(queue, FixedClock()), charge)(ALICE, None, items)
    # Then the unparsable item passes through as its error, the others are queued, only they are charged
    assert outcomes[1] is parse_error
    assert outcomes[0].ack is not None
    assert outcomes[2].ack is not None
    assert [j.draft.content for j in queue.jobs] == ["first", "third"]
    assert charged == [2]


async def test_items_the_queue_refuses_get_a_retryable_error_never_dropped() -> None:
    queue = ListQueue(refuse=frozenset({1}))
    outcomes = await RememberBatch(Remember(queue, FixedClock()))(ALICE, None, _items("a", "b", "c"))
    assert outcomes[0].ack is not None
    assert outcomes[2].ack is not None
    assert isinstance(outcomes[1].error, Unavailable)
    assert [j.draft.content for j in queue.jobs] == ["a", "c"]


async def test_whole_call_errors_queue_nothing() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock())
    reader = Principal(tenant_id="acme", key_id="k2", read_only=True)
    with pytest.raises(Forbidden):
        await RememberBatch(remember)(reader, None, _items("a"))
    with pytest.raises(InvalidInput) as too_many:
        await RememberBatch(remember)(ALICE, None, _items(*["x"] * (MAX_BATCH_ITEMS + 1)))
    assert (too_many.value.field, too_many.value.limit) == ("items", {"max_items": MAX_BATCH_ITEMS})

    async def over_budget(principal: Principal, count: int) -> None:
        raise RateLimited(budget="write_items", limit=1200, window_s=600, retry_after_s=30)

    with pytest.raises(RateLimited):
        await RememberBatch(remember, over_budget)(ALICE, None, _items("a", "b"))
    assert queue.jobs == []


def test_a_batch_item_result_carries_every_field_of_memory_writes_answer() -> None:
    from hindsight.api.tools_memory import BatchItemResult
    from hindsight.usecases.remember import WriteAck

    assert set(WriteAck.model_fields) - {"status"} <= set(BatchItemResult.model_fields)


async def test_a_large_batch_takes_the_bulk_lane_and_a_small_one_does_not() -> None:
    queue = ListQueue()
    batch = RememberBatch(Remember(queue, FixedClock()), bulk_items=3)
    await batch(ALICE, "agent", _items("a", "b"))
    assert [j.lane for j in queue.jobs] == ["interactive"] * 2
    # Then at the threshold, counting valid items only, the batch is bulk work
    queue.jobs.clear()
    items = _items("c", "d", "e")
    await batch(ALICE, "agent", items)
    assert [j.lane for j in queue.jobs] == ["bulk"] * 3
    queue.jobs.clear()
    await batch(ALICE, "agent", [*_items("f", "g"), ItemOutcome(error=InvalidInput("items.2", "bad"))])
    assert [j.lane for j in queue.jobs] == ["interactive"] * 2
    # And an import forces the lane whatever its size
    queue.jobs.clear()
    await batch(ALICE, "importer", _items("h"), lane="bulk")
    assert [j.lane for j in queue.jobs] == ["bulk"]


async def test_a_long_write_takes_the_bulk_lane_by_its_utf8_bytes() -> None:
    # Given writes bulk from 8 UTF-8 bytes
    queue = ListQueue()
    remember = Remember(queue, FixedClock(), bulk_bytes=8)
    for content in ("x" * 7, "x" * 8, "\N{GRINNING FACE}" * 2, "\N{GRINNING FACE}" + "xxx"):
        await remember(ALICE, "agent", MemoryDraft(content=content))
    # Then a write's lane follows its bytes, not its characters (an emoji is 4 bytes and ~1 model token)
    assert [j.lane for j in queue.jobs] == ["interactive", "bulk", "bulk", "interactive"]
    # And in a small batch, each long item is bulk work on its own
    queue.jobs.clear()
    await RememberBatch(remember, bulk_items=3)(ALICE, "agent", _items("short", "long enough"))
    assert [j.lane for j in queue.jobs] == ["interactive", "bulk"]
    # And without the setting no write is bulk by its size
    queue.jobs.clear()
    await Remember(queue, FixedClock())(ALICE, "agent", MemoryDraft(content="x" * 32_000))
    assert [j.lane for j in queue.jobs] == ["interactive"]


class CountingOperations:
    """An operation log that notes how many records are in flight at once."""

    def __init__(self) -> None:
        self.recorded: list[WriteJob] = []
        self.in_flight = 0
        self.most = 0

    async def record_queued(self, job: WriteJob) -> None:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await anyio.lowlevel.checkpoint()
        self.recorded.append(job)
        self.in_flight -= 1


async def test_a_full_batch_records_its_jobs_a_few_at_a_time() -> None:
    # Given a batch of the maximum size
    operations = CountingOperations()
    remember = Remember(ListQueue(), FixedClock(), operations=operations)  # type: ignore[arg-type]
    await RememberBatch(remember)(ALICE, "importer", _items(*(f"note {i}" for i in range(MAX_BATCH_ITEMS))))
    # Then every job is recorded, never more than RECORD_CONCURRENCY at once (not one Redis
    # connection per item of the batch)
    assert len(operations.recorded) == MAX_BATCH_ITEMS
    assert 1 < operations.most <= RECORD_CONCURRENCY


async def test_with_processed_a_write_the_worker_already_processed_is_answered_not_queued_again() -> None:
    # Given a re-ingest: the first item's job has a result already (``hindsight ingest`` asks the store)
    queue = ListQueue()
    done_id = job_id("acme", "importer", "turn-0")
    asked: list[list[object]] = []

    async def processed(tenant_id: str, ids: list[object]) -> set[object]:
        asked.append(ids)
        return {done_id} if tenant_id == "acme" else set()

    outcomes = await RememberBatch(Remember(queue, FixedClock()), processed=processed)(  # type: ignore[arg-type]
        ALICE, "importer", _items("a", "b")
    )
    # Then it is acknowledged with its id and not sent to the queue; the other one is queued
    assert [(o.ack.id if o.ack else None, o.processed_before) for o in outcomes] == [
        (done_id, True),
        (job_id("acme", "importer", "turn-1"), False),
    ]
    assert [j.draft.content for j in queue.jobs] == ["b"]
    assert len(asked) == 1
