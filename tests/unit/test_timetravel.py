"""Point-in-time views of a memory (domain.timetravel): half-open validity, rewinding through history."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest

from hindsight.domain.errors import InvalidInput, VersionConflict
from hindsight.domain.memory import HistoryEntry, MemoryChanges, StoredMemory, check_validity_period
from hindsight.domain.timetravel import (
    NOW,
    PointInTime,
    archived_facts_only,
    at_point,
    is_upcoming,
    readable_by,
    rewound,
    search_statuses,
    takes_key,
    valid_at,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = datetime(2026, 3, 1, tzinfo=UTC)


def _memory(**fields: object) -> StoredMemory:
    base: dict[str, object] = {
        "id": uuid4(),
        "tenant_id": "t",
        "agent_id": "default",
        "layer": "semantic",
        "key": None,
        "query": None,
        "content": "today's text",
        "importance": 0.5,
        "access_count": 0,
        "last_accessed_at": None,
        "created_at": T0,
        "occurred_at": None,
        "metadata": {},
        "status": "active",
    }
    return StoredMemory.model_validate(base | fields)


def _change(at: datetime, **changes: tuple[object, object]) -> HistoryEntry:
    return HistoryEntry(
        action="updated",
        reason=None,
        changes={k: {"from": a, "to": b} for k, (a, b) in changes.items()},  # type: ignore[misc]
        actor=None,
        at=at,
    )


def test_validity_is_half_open() -> None:
    old = _memory(valid_from=T0, valid_to=T1, status="superseded")
    assert valid_at(old, T0)
    assert valid_at(old, T1 - timedelta(microseconds=1))
    assert not valid_at(old, T1)  # ended exactly then
    assert valid_at(_memory(valid_from=T1), T1)  # its successor starts exactly then
    assert not valid_at(_memory(occurred_at=T1), T0)  # without valid_from: when it happened


def test_rewinding_takes_the_from_of_each_fields_first_later_change() -> None:
    memory = _memory(content="v3", status="archived")
    later = [
        _change(T1 + timedelta(days=2), content=("v2", "v3")),
        _change(T1, content=("v1", "v2")),
        _change(T1 + timedelta(days=1), status=("active", "archived")),
    ]
    then = rewound(memory, later)
    assert (then.content, then.status, then.status_now) == ("v1", "active", "archived")
    assert rewound(memory, []) is memory


def test_a_point_sees_what_it_should() -> None:
    successor = uuid4()
    old = _memory(valid_from=T0, valid_to=T1, status="superseded")
    seen = at_point(old, PointInTime(valid_at=T0), superseded_by=successor)
    assert seen is not None
    assert (seen.status, seen.status_now, seen.superseded_by) == ("active", "superseded", successor)
    assert at_point(old, PointInTime(valid_at=T1)) is None
    assert at_point(_memory(created_at=T1), PointInTime(known_at=T0)) is None  # stored later
    assert at_point(_memory(status="forgotten"), NOW) is None  # never recalled, at any time
    # archived facts too: archiving is no retraction (trial F6); archived_facts_only keeps episodes out
    assert search_statuses(PointInTime(valid_at=T0), ("active",)) == ("active", "superseded", "archived")
    assert archived_facts_only(PointInTime(valid_at=T0), ("active",))
    assert not archived_facts_only(PointInTime(valid_at=T0), ("active", "archived"))
    assert not archived_facts_only(PointInTime(known_at=T0), ("active",))
    assert search_statuses(PointInTime(known_at=T0), ("active",)) == ("active",)


def test_a_supersede_recorded_with_its_new_end_rewinds_to_the_open_end_held_before() -> None:
    """The worker records ``valid_to: {from: None, to: T1}`` with a supersede (conflicts.supersede): a read
    at an earlier known_at sees the fact open-ended, so it is valid at a time after T1 as held then."""
    memory = _memory(status="superseded", valid_to=T1)
    supersede = HistoryEntry(
        action="superseded",
        at=T1,
        reason=None,
        actor="worker",
        changes={
            "status": {"from": "active", "to": "superseded"},
            "valid_to": {"from": None, "to": T1.isoformat()},
        },
    )
    later = T1 + timedelta(days=90)
    then = at_point(memory, PointInTime(known_at=T1 - timedelta(days=1), valid_at=later), [supersede])
    assert then is not None
    assert (then.valid_to, then.status, then.status_now) == (None, "active", "superseded")
    assert at_point(memory, PointInTime(valid_at=later), [supersede]) is None  # today it has ended


def test_another_agent_reads_a_version_only_while_it_was_shared_with_it_and_not_forgotten() -> None:
    shared_later = _change(T1, content=("the code is 4711", "ask in person"), shared_with=([], ["coder"]))
    today = _memory(agent_id="planner", content="ask in person", shared_with=["coder"])
    then = rewound(today, [shared_later])
    assert then.content == "the code is 4711"
    assert readable_by(today, "coder")
    assert not readable_by(then, "coder")  # private then: text removed before sharing stays the owner's
    assert readable_by(then, "planner")
    assert readable_by(then.model_copy(update={"shared_with": ["*"]}), "coder")
    assert not readable_by(today, "tester")
    forgotten = today.model_copy(update={"status": "forgotten"})
    assert not readable_by(forgotten, "coder")  # only its owner sees a forgotten memory, to restore it
    assert readable_by(forgotten, "planner")


def test_rewinding_through_a_merge_takes_out_what_it_added() -> None:
    today = _memory(
        agent_id="planner",
        content="ask in person",
        tags=["vault", "ops"],
        entities={"place": "vault", "person": "Ana"},
        metadata={"doc": "a", "source": "b"},
        shared_with=["coder", "*"],
    )
    edit = _change(T0 + timedelta(days=1), content=("the code is 4711", "ask in person"))
    merge = HistoryEntry(
        action="merged",
        reason=None,
        actor="worker",
        at=T1,
        changes={
            "similarity": 1.0,
            "added": {
                "shared_with": ["coder", "*"],
                "tags": ["ops"],
                "entities": {"person": "Ana"},
                "metadata": {"source": "b"},
            },
        },
    )
    then = rewound(today, [merge, edit])
    assert (then.content, then.shared_with, then.tags) == ("the code is 4711", [], ["vault"])
    assert (then.entities, then.metadata) == ({"place": "vault"}, {"doc": "a"})
    assert not readable_by(then, "coder")  # shared by a merge since: not readable before it
    between = rewound(today, [merge])
    assert (between.content, between.shared_with) == ("ask in person", [])
    assert rewound(today, [edit]).shared_with == ["coder", "*"]


def test_check_validity_period_refuses_one_end_moved_past_the_stored_other() -> None:
    check_validity_period(MemoryChanges(valid_to=T1), T0, None)  # after the stored start: fine
    check_validity_period(MemoryChanges(valid_from=T0), None, T1)
    check_validity_period(MemoryChanges(tags=["x"]), None, None)
    with pytest.raises(InvalidInput, match="empty") as to:
        check_validity_period(MemoryChanges(valid_to=T0), T0, None)
    assert to.value.field == "valid_to"
    with pytest.raises(InvalidInput, match="empty") as start:
        check_validity_period(MemoryChanges(valid_from=T1), None, T1)
    assert start.value.field == "valid_from"
    # valid_to: null (clear_valid_to) reopens the period: nothing to be empty against any more
    check_validity_period(MemoryChanges(clear_valid_to=True), T1, T1 + timedelta(days=1))
    check_validity_period(MemoryChanges(valid_from=T1 + timedelta(days=2), clear_valid_to=True), T0, T1)
    with pytest.raises(InvalidInput, match="empty"):
        check_validity_period(MemoryChanges(valid_from=T1 + timedelta(days=2)), T0, T1)


def test_an_episodes_valid_to_is_checked_against_where_it_holds_from_without_valid_from() -> None:
    """Trial MED-3: an episode without valid_from holds from occurred_at (else created_at); a valid_to at
    or before that is refused naming valid_to and the start, as the start a valid_from would give."""
    happened = ("occurred_at", T1)
    with pytest.raises(InvalidInput) as caught:
        check_validity_period(MemoryChanges(valid_to=T0), None, None, happened)
    assert (caught.value.field, caught.value.limit) == ("valid_to", T1.isoformat())
    assert f"must be after its start {T1.isoformat()}" in str(caught.value)
    assert "an event holds from occurred_at" in str(caught.value)
    with pytest.raises(InvalidInput, match="holds from created_at"):
        check_validity_period(MemoryChanges(valid_to=T1), None, None, ("created_at", T1))
    check_validity_period(MemoryChanges(valid_to=T1 + timedelta(days=1)), None, None, happened)
    # a valid_from given with it is the start, whatever occurred_at says
    check_validity_period(MemoryChanges(valid_from=T0 - timedelta(days=1), valid_to=T0), None, None, happened)
    # a change that moves neither end is not refused for a period stored empty (a value that never held)
    check_validity_period(MemoryChanges(tags=["x"]), T1, T1, happened)
    check_validity_period(MemoryChanges(verified=True), None, T0, happened)


def test_a_version_never_held_is_named_as_such_not_as_a_change_since_read() -> None:
    assert "changed since you read it" in str(VersionConflict("memory m", 2, 3, {}))
    never = str(VersionConflict("memory m", 99, 1, {}))
    assert "never been at version 99" in never
    assert "changed since" not in never


def test_expected_version_0_on_an_existing_object_and_1_on_a_missing_one_say_what_they_mean() -> None:
    exists = str(VersionConflict("working-memory item 'plan'", 0, 4, {"content": "x"}))
    assert "exists, at version 4" in exists
    assert "expected_version=0 means 'only if it does not exist'" in exists
    assert "changed since you read it" not in exists
    missing = str(VersionConflict("working-memory item 'plan'", 1, 0, {}))
    assert "does not exist" in missing
    assert "retry with expected_version=0" in missing
    assert "merge" not in missing
    assert "changed since you read it" not in missing


def test_a_key_is_taken_by_the_later_start_and_a_tie_goes_to_the_new_write() -> None:
    june, january = datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)
    assert takes_key(june, january)
    assert not takes_key(january, june)  # a past value of the holder
    assert takes_key(june, june)  # a correction of the same moment


def test_only_an_active_fact_starting_after_now_is_upcoming() -> None:
    now = datetime(2026, 12, 6, tzinfo=UTC)
    later = now + timedelta(days=1)
    assert is_upcoming(_memory(layer="semantic", valid_from=later), now)
    assert not is_upcoming(_memory(layer="semantic", valid_from=now), now)
    assert not is_upcoming(_memory(layer="semantic", valid_from=later, status="superseded"), now)
    assert not is_upcoming(_memory(layer="episodic", valid_from=later), now)
