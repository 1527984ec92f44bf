"""A valid_to the table's CHECK ``memories_valid_period`` (valid_to >= valid_from) would refuse is refused
when the write is made, never acknowledged and then lost in the worker (trial H4: a line with valid_to
and no valid_from, its period starting at the write time, after that valid_to). The start a semantic fact
is stored with when valid_from is not given: occurred_at, else its session's date, else the write time
(``WriteJob.valid_since``); an episode holds from the same instant without storing it (trial MED-3: its
valid_to was checked against nothing, so an event could be stored ending before it happened)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput
from hindsight.domain.interchange import InvalidFile, read_items
from hindsight.domain.memory import MemoryDraft, check_period_end
from hindsight.usecases.remember import BatchItem, ItemOutcome, Remember, RememberBatch
from tests.unit.fakes import FixedClock, ListQueue

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
ALICE = Principal(tenant_id="acme", key_id="k1")


def test_a_valid_to_alone_before_the_write_time_names_the_field_and_the_start() -> None:
    draft = MemoryDraft(content="Kim drives a Saab", key="kim.car", valid_to="2026-05-01T00:00:00Z")
    with pytest.raises(InvalidInput) as caught:
        check_period_end(draft, NOW)
    assert caught.value.field == "valid_to"
    assert caught.value.limit == NOW.isoformat()
    message = str(caught.value)
    assert "must be after its start 2026-11-30T12:00:00+00:00" in message, message
    assert "the write time" in message
    check_period_end(draft, datetime(2026, 4, 1, tzinfo=UTC))  # written before it ended: a period


def test_the_start_without_valid_from_is_occurred_at_then_the_session_date() -> None:
    early = datetime(2026, 3, 1, tzinfo=UTC)
    event = MemoryDraft(content="Kim sold the Saab", occurred_at="2026-06-01", valid_to=early)
    with pytest.raises(InvalidInput, match="holds from occurred_at"):
        check_period_end(event, NOW)
    turn = MemoryDraft(content="Kim drives a Saab", conversation_id="c1", session_at=NOW, valid_to=early)
    with pytest.raises(InvalidInput, match="holds from session_at"):
        check_period_end(turn, datetime(2026, 1, 1, tzinfo=UTC))
    # the end at the start is an empty period, as when both ends are given
    with pytest.raises(InvalidInput):
        check_period_end(MemoryDraft(content="x", occurred_at=early, valid_to=early), NOW)
    # an episode holds from the same start, stored or not
    check_period_end(
        MemoryDraft(content="x", layer="episodic", valid_to=early), datetime(2026, 2, 1, tzinfo=UTC)
    )
    # valid_from given: the draft itself checks the two ends
    check_period_end(MemoryDraft(content="x", valid_from="2026-01-01", valid_to=early), NOW)


def test_an_episodes_valid_to_before_it_happened_or_was_written_is_refused() -> None:
    """Trial MED-3: only valid_from bounded an episode's valid_to; an episode without one holds from
    occurred_at (else the write time), as ``valid_at`` reads take it, so an earlier end was an empty
    period stored without a word."""
    event = MemoryDraft(
        content="Deploy of billing v3 started", layer="episodic", occurred_at="2026-06-01", valid_to="2026-03"
    )
    with pytest.raises(InvalidInput) as caught:
        check_period_end(event, NOW)
    assert caught.value.field == "valid_to"
    assert caught.value.limit == "2026-06-01T00:00:00+00:00"
    message = str(caught.value)
    assert "valid_to 2026-04-01T00:00:00+00:00 must be after its start 2026-06-01T00:00:00+00:00" in message
    assert "an event holds from occurred_at" in message, message
    with pytest.raises(InvalidInput, match="an event holds from the write time"):
        check_period_end(MemoryDraft(content="Deploy started", layer="episodic", valid_to="2026-05"), NOW)
    check_period_end(event.model_copy(update={"valid_to": datetime(2026, 7, 1, tzinfo=UTC)}), NOW)


@pytest.mark.anyio
async def test_memory_write_and_each_batch_item_are_refused_and_nothing_is_queued() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(NOW))
    past = MemoryDraft(content="Kim drives a Saab", key="kim.car", valid_to="2026-05-01T00:00:00Z")
    with pytest.raises(InvalidInput) as caught:
        await remember(ALICE, None, past)
    assert caught.value.field == "valid_to"
    assert queue.jobs == []

    async def charge(principal: Principal, count: int) -> None:
        return None

    items: list[BatchItem | ItemOutcome] = [
        BatchItem(draft=MemoryDraft(content="Kim drives a Kia", key="kim.car")),
        BatchItem(draft=past),
        BatchItem(draft=MemoryDraft(content="Kim rents a van", valid_to=NOW + timedelta(days=3))),
    ]
    outcomes = await RememberBatch(remember, charge)(ALICE, None, items)
    assert [o.ack is not None for o in outcomes] == [True, False, True]
    assert isinstance(outcomes[1].error, InvalidInput)
    assert outcomes[1].error.field == "valid_to"
    assert [j.draft.content for j in queue.jobs] == ["Kim drives a Kia", "Kim rents a van"]


def test_the_ingest_file_check_names_the_line_the_field_and_the_start() -> None:
    text = "\n".join(
        [
            '{"agent_id":"e1","content":"Kim drives a Saab","key":"k","valid_to":"2026-05-01T00:00:00Z"}',
            '{"agent_id":"e1","content":"Kim drives a Kia","key":"k","valid_from":"2026-03-01T00:00:00"}',
            '{"content":"Kim sold the Saab","occurred_at":"2026-06","valid_to":"2026-05-01"}',
            '{"content":"Kim rents a van","valid_to":"2027-01-01"}',
        ]
    )
    with pytest.raises(InvalidFile) as caught:
        read_items(text, "jsonl", now=NOW)
    problems = [(p.where, p.message) for p in caught.value.problems]
    assert [where for where, _ in problems] == ["line 1: valid_to", "line 3: valid_to"]
    assert "must be after its start 2026-11-30T12:00:00+00:00" in problems[0][1]
    assert "must be after its start 2026-06-01T00:00:00+00:00" in problems[1][1]
    # without the write time only the stated starts are known
    with pytest.raises(InvalidFile) as without_now:
        read_items(text, "jsonl")
    assert [p.where for p in without_now.value.problems] == ["line 3: valid_to"]
