"""Relative dates that are part of a larger phrase (trial23 H2, "today" Monday 2026-12-07): a compound
duration, a count of days before "yesterday", a fraction, a count with a thousands separator, "yesterday
week", "… marks three years since", hours — read whole, or named as not read, never read from a part."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import INFERRED_KEY, annotate_relative_time, with_inferred_time
from hindsight.domain.unread_time import unread_time_note

MONDAY = datetime(2026, 12, 7, 15, 0, tzinfo=UTC)


def _episode(text: str) -> tuple[date | None, str | None, str | None, str]:
    """How an episode's words are placed, said on ``MONDAY``: the day (None: not placed), its precision,
    the expression read, and the write's ``time_not_read`` ("" when none)."""
    draft = MemoryDraft(content=text, layer="episodic")
    placed = with_inferred_time(draft, MONDAY)
    inferred = placed.metadata.get(INFERRED_KEY)
    expression = inferred.get("expression") if isinstance(inferred, dict) else None
    day = placed.occurred_at.date() if placed.occurred_at else None
    return day, placed.occurred_precision, expression, unread_time_note(draft, MONDAY) or ""


@pytest.mark.parametrize(
    ("text", "day", "precision", "expression"),
    [
        (
            "Two weeks and three days ago I visited Rome",
            date(2026, 11, 20),
            "day",
            "two weeks and three days ago",
        ),
        ("1 year and 2 days ago I visited Rome", date(2025, 12, 5), "day", "1 year and 2 days ago"),
        ("3 weeks, 2 days ago I visited Rome", date(2026, 11, 14), "day", "3 weeks, 2 days ago"),
        ("I visited Rome a month plus ten days ago", date(2026, 10, 28), "day", "a month plus ten days ago"),
        ("1 year and 2 weeks ago I visited Rome", date(2025, 11, 17), "week", "1 year and 2 weeks ago"),
        (
            "Twenty  one weeks and 3 days ago I moved",
            date(2026, 7, 10),
            "day",
            "twenty  one weeks and 3 days ago",
        ),
    ],
)
def test_a_compound_duration_is_read_as_the_sum_of_its_parts(
    text: str, day: date, precision: str, expression: str
) -> None:
    # "Two weeks and three days ago" was stored on 12-04, read as "three days ago"
    assert _episode(text) == (day, precision, expression, "")


def test_a_while_something_lasted_is_not_a_part_of_the_time_counted_back() -> None:
    # "for 10 years" is how long, not when: "2 days ago" is the time (and a compound is read)
    assert _episode("I smoked for 10 years, and 2 days ago I quit")[:3] == (
        date(2026, 12, 5),
        "day",
        "2 days ago",
    )
    assert _episode("Two weeks and three days ago I visited Rome")[0] == date(2026, 11, 20)


@pytest.mark.parametrize(
    ("text", "day", "expression"),
    [
        ("I visited Rome 2 days before yesterday", date(2026, 12, 4), "2 days before yesterday"),
        ("Two weeks before yesterday I visited Rome", date(2026, 11, 22), "two weeks before yesterday"),
        ("A day before yesterday I visited Rome", date(2026, 12, 5), "a day before yesterday"),
        ("3 days prior to yesterday I visited Rome", date(2026, 12, 3), "3 days prior to yesterday"),
        ("Two days before the day before yesterday I visited Rome", date(2026, 12, 3), None),
    ],
)
def test_days_before_yesterday_are_counted_from_yesterday(
    text: str, day: date, expression: str | None
) -> None:
    # "2 days before yesterday" was stored yesterday (12-06)
    assert _episode(text)[:3] == (day, "day", expression or text.lower().removesuffix(" i visited rome"))
    assert _episode(text)[3] == ""
    assert _episode("The day before yesterday I visited Rome")[:2] == (date(2026, 12, 5), "day")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Half a year ago I visited Rome", "Half a year ago"),
        ("A year and a half ago I visited Rome", "A year and a half ago"),
        ("I visited Rome 2.5 years ago", "2.5 years ago"),
        ("Yesterday marks three years since I visited Rome", "Yesterday marks three years since"),
        ("I visited Rome yesterday week", "yesterday week"),
        ("Last Friday week I visited Rome", "Last Friday week"),
        ("1,000 days ago I visited Rome", "1,000 days ago"),
        ("1000 days ago I visited Rome", "1000 days ago"),
        ("One and twenty days ago I visited Rome", "One and twenty days ago"),
        ("Two weeks and a few days ago I visited Rome", "Two weeks and a few days ago"),
        ("A month before yesterday I visited Rome", "A month before yesterday"),
        ("Two days after yesterday I visited Rome", "Two days after yesterday"),
        ("12 hours ago I visited Rome", "12 hours ago"),
        ("An hour ago I visited Rome", "An hour ago"),
    ],
)
def test_a_relative_time_not_read_whole_is_named_and_no_part_of_it_read(text: str, named: str) -> None:
    # each was stored at a time its last part names ("half a year ago": a year ago; "1,000 days ago":
    # today), or (hours) at the write time with no word said
    day, _, _, note = _episode(text)
    assert day is None
    assert f"'{named}'" in note, note


def test_a_count_with_a_hyphen_and_a_space_is_read() -> None:
    # "twenty- one days ago" was neither read nor named
    assert _episode("I quit smoking twenty- one days ago")[:3] == (
        date(2026, 11, 16),
        "day",
        "twenty- one days ago",
    )


def test_copied_text_notes_the_whole_compound() -> None:
    assert (
        annotate_relative_time("Two weeks and three days ago I visited Rome", MONDAY)
        == "Two weeks and three days ago (2026-11-20) I visited Rome"
    )


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("We have been married 3 years and 2 days ago we celebrated", "3 years and 2 days ago"),
        ("We have been married 3 years and 2 days ago, we celebrated", "3 years and 2 days ago"),
        ("We've been together 3 years and 2 days ago the baby was born", "3 years and 2 days ago"),
        ("It took 2 weeks and 3 days ago it finally arrived", "2 weeks and 3 days ago"),
        ("The project lasted about 2 years, and 3 days ago it ended", "2 years, and 3 days ago"),
        ("We lived there two years and three days ago we left", "two years and three days ago"),
    ],
)
def test_a_compound_that_may_be_a_while_and_a_time_is_named_not_read(text: str, named: str) -> None:
    # 70edbad read the first as one time three years and two days back (2023-12-05): "married 3 years"
    # may be how long, and "2 days ago we celebrated" when; the words do not say which
    day, precision, expression, note = _episode(text)
    assert (day, precision, expression) == (None, None, None)
    assert f"('{named}')" in note


@pytest.mark.parametrize(
    "text",
    [
        "I visited Rome two weeks and three days ago",  # it ends the sentence
        "I visited Rome two weeks and three days ago.",
        "I left (two weeks and three days ago)",
        "Two weeks and three days ago, I visited Rome",  # it opens the sentence
        "She said that 2 weeks and 3 days ago she moved",  # "that" opens the clause
        "I came home and 2 weeks and 3 days ago I left",
    ],
)
def test_a_compound_that_opens_its_clause_or_ends_its_sentence_is_read(text: str) -> None:
    assert _episode(text)[:2] == (date(2026, 11, 20), "day")


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Yesterday week two of my training started", date(2026, 12, 6)),
        ("Today week one of the diet ends", date(2026, 12, 7)),
        ("Last Friday week three of the season kicked off", date(2026, 12, 4)),
    ],
)
def test_a_week_counted_in_words_after_a_day_is_not_a_week_from_that_day(text: str, day: date) -> None:
    # 70edbad named these whole ("yesterday week"); the week is counted, the day is read, as with digits
    assert _episode(text)[:2] == (day, "day")


@pytest.mark.parametrize(
    ("start", "unit", "count", "day"),
    [
        (date(2024, 3, 31), "month", 1, date(2024, 2, 29)),  # the month's last day when it has no 31st
        (date(2024, 2, 29), "year", 1, date(2023, 2, 28)),
        (date(2026, 1, 15), "month", 13, date(2024, 12, 15)),
        (date(2026, 12, 7), "week", 2, date(2026, 11, 23)),
    ],
)
def test_a_part_of_a_compound_is_taken_off_on_the_calendar(
    start: date, unit: str, count: int, day: date
) -> None:
    from hindsight.domain.calendar_ago import day_back

    assert day_back(start, unit, count) == day


def test_a_part_taken_off_before_year_one_is_refused() -> None:
    from hindsight.domain.calendar_ago import day_back

    with pytest.raises(ValueError, match="year"):
        day_back(date(3, 1, 1), "year", 5)
