"""The calendar word lists (``domain.calendar_words``) are what the rules read: every part of the day or of
the week is a time both the qualifier rule (``both_hold``) and the schedule-move rule (``schedule_moves``)
read, and every calendar unit is counted by the query time filter (``timeparse``), the write's relative
time (``relative_time``) and the unread-time note (``unread_time``) — so a word is added in one place."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.both_hold import QUALIFIER_TIMES
from hindsight.domain.calendar_words import DAY_GROUPS, DAY_PARTS, UNITS, WEEK_PARTS
from hindsight.domain.relative_time import infer_event_time
from hindsight.domain.schedule_moves import moved_to_time, time_kind
from hindsight.domain.timeparse import parse_time_range
from hindsight.domain.unread_time import named_times

NOW = datetime(2026, 5, 15, 12, tzinfo=UTC)


def test_the_day_groups_are_parts_of_the_week() -> None:
    assert set(DAY_GROUPS) <= set(WEEK_PARTS)


@pytest.mark.parametrize(
    ("part", "kind"), [*((p, "day_part") for p in DAY_PARTS), *((p, "week") for p in WEEK_PARTS)]
)
def test_every_part_of_the_day_or_week_is_a_qualifier_and_a_schedule_time(part: str, kind: str) -> None:
    assert part in QUALIFIER_TIMES
    assert time_kind(part) == kind
    assert moved_to_time(f"The standup moved to Thursday {part}s") == ("The standup", f"Thursday {part}s")


@pytest.mark.parametrize("unit", UNITS)
def test_every_calendar_unit_is_counted(unit: str) -> None:
    assert parse_time_range(f"last 3 {unit}s", NOW).end == NOW
    assert parse_time_range(f"2 {unit}s ago", NOW).end < NOW
    inferred = infer_event_time(f"I sold my car 3 {unit}s ago", NOW)
    assert inferred is not None
    assert inferred.expression == f"3 {unit}s ago"
    assert named_times(f"I sold my car a few {unit}s ago", NOW) == [f"a few {unit}s ago"]
