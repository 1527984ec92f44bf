"""A task's outcome dated in the future is refused when the write is made (trial7 M4: memory_write
``outcome: "failure"`` with ``occurred_at: "2030-01-01"`` was stored and summarized as "Failed before";
task_reflect accepted 2031): how a task ended is known only once it has ended. The limit is the server's
now plus ``CLOCK_SKEW``; a plan (no outcome) in the future is still accepted."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import CLOCK_SKEW, MemoryDraft, check_draft_outcome_time, check_outcome_time
from hindsight.domain.redaction import Redactor
from hindsight.domain.reflection import TaskReport
from hindsight.usecases.reflect import SubmitReflection
from hindsight.usecases.remember import BatchItem, ItemOutcome, Remember, RememberBatch
from tests.unit.fakes import FixedClock, ListQueue

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
ALICE = Principal(tenant_id="acme", key_id="k1")


def _failure(occurred_at: object) -> MemoryDraft:
    return MemoryDraft.model_validate(
        {"content": "Deploy failed", "layer": "episodic", "outcome": "failure", "occurred_at": occurred_at}
    )


def test_an_outcome_after_now_and_the_skew_names_the_field_and_the_limit() -> None:
    with pytest.raises(InvalidInput) as caught:
        check_draft_outcome_time(_failure("2030-01-01"), NOW)
    assert caught.value.field == "occurred_at"
    assert caught.value.limit == (NOW + CLOCK_SKEW).isoformat()
    assert "can only be known once the task has ended" in str(caught.value)
    assert "2030" not in str(caught.value)  # a rejected value is never echoed
    with pytest.raises(InvalidInput):
        check_draft_outcome_time(_failure(NOW + CLOCK_SKEW + timedelta(seconds=1)), NOW)


def test_an_outcome_up_to_the_skew_today_or_without_a_time_and_a_plan_are_accepted() -> None:
    check_draft_outcome_time(_failure(NOW + CLOCK_SKEW), NOW)  # a caller's clock running fast
    check_draft_outcome_time(_failure("2026-12-07"), NOW)  # today: the day's span starts before now
    check_draft_outcome_time(_failure("2026"), NOW)
    check_draft_outcome_time(_failure(None), NOW)
    plan = MemoryDraft(content="Offsite in Porto", layer="episodic", occurred_at="2030-01-01")
    check_draft_outcome_time(plan, NOW)
    check_outcome_time(None, datetime(2030, 1, 1, tzinfo=UTC), NOW, "occurred_at")


def test_a_turn_with_an_outcome_is_checked_against_its_sessions_start() -> None:
    turn = MemoryDraft.model_validate(
        {
            "content": "Deploy failed",
            "layer": "episodic",
            "outcome": "failure",
            "conversation_id": "c-1",
            "session_at": "2030-01-01T00:00:00Z",
        }
    )
    with pytest.raises(InvalidInput) as caught:
        check_draft_outcome_time(turn, NOW)
    assert caught.value.field == "session_at"


@pytest.mark.anyio
async def test_memory_write_each_batch_item_and_task_reflect_are_refused_and_nothing_is_queued() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(NOW))
    with pytest.raises(InvalidInput, match="occurred_at"):
        await remember(ALICE, None, _failure("2030-01-01"))
    assert queue.jobs == []

    async def charge(principal: Principal, count: int) -> None:
        return None

    items: list[BatchItem | ItemOutcome] = [
        BatchItem(draft=_failure("2030-01-01")),
        BatchItem(draft=_failure(None)),
    ]
    outcomes = await RememberBatch(remember, charge)(ALICE, None, items)
    assert [o.ack is not None for o in outcomes] == [False, True]
    assert isinstance(outcomes[0].error, InvalidInput)
    assert outcomes[0].error.field == "occurred_at"
    assert len(queue.jobs) == 1

    reflections = ListQueue()
    submit = SubmitReflection(reflections, FixedClock(NOW), Redactor())
    report = TaskReport.model_validate(
        {
            "task_id": "t-1",
            "goal": "Cut the release",
            "outcome": "success",
            "occurred_at": "2031-01-01T00:00:00Z",
        }
    )
    with pytest.raises(InvalidInput, match="occurred_at"):
        await submit(ALICE, None, report)
    assert reflections.jobs == []
