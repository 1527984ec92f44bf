"""Point-in-time views of a memory (domain.timetravel): half-open validity, rewinding through history."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

from hindsight.domain.memory import HistoryEntry, StoredMemory
from hindsight.domain.timetravel import NOW, PointInTime, at_point, rewound, search_statuses, valid_at

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
    assert search_statuses(PointInTime(valid_at=T0), ("active",)) == ("active", "superseded")
    assert search_statuses(PointInTime(known_at=T0), ("active",)) == ("active",)
