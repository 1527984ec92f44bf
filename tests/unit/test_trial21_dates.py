"""Dates a new user found misread or unnamed (trial21): "a week ago Sunday" is that Sunday, number words
past twelve are read, and an apostrophe year, a dotted day.month, an ordinal day before a pronoun, "Friday
the 4th" are named whole; a search's "last weekend" is the span a write's is stored as."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import annotate_relative_time, infer_event_time, with_inferred_time
from hindsight.domain.timeparse import parse_time_range
from hindsight.domain.unread_time import unread_time_note

MONDAY = datetime(2026, 12, 7, 15, 0, tzinfo=UTC)
"""When the trial's words were written: Monday 2026-12-07."""


def _day(text: str, at: datetime = MONDAY) -> tuple[date, str, str] | None:
    inferred = infer_event_time(text, at, words=True)
    if inferred is None:
        return None
    return inferred.span.start.date(), inferred.span.precision, inferred.expression


def _note(text: str) -> str:
    """The write's ``time_not_read`` of ``text`` as an episode said on ``MONDAY`` ("" when none)."""
    return unread_time_note(MemoryDraft(content=text, layer="episodic"), MONDAY) or ""


@pytest.mark.parametrize(
    ("text", "day", "expression"),
    [
        ("A week ago Sunday I ran a half marathon", date(2026, 11, 29), "a week ago sunday"),
        ("A week ago Friday I ran a half marathon", date(2026, 11, 27), "a week ago friday"),
        ("Two weeks ago Sunday I ran a half marathon", date(2026, 11, 22), "two weeks ago sunday"),
        ("I ran a half marathon one week ago Saturday", date(2026, 11, 28), "one week ago saturday"),
    ],
)
def test_a_week_ago_weekday_is_that_weekday_of_the_week_before(text: str, day: date, expression: str) -> None:
    # H1: "A week ago Sunday" was stored at the week of 2026-11-30 and "Sunday" dropped
    assert _day(text) == (day, "day", expression)
    draft = with_inferred_time(MemoryDraft(content=text, layer="episodic"), MONDAY)
    assert draft.occurred_at == datetime.combine(day, datetime.min.time(), UTC)
    assert draft.occurred_precision == "day"
    assert _note(text) == ""
    assert f"({day.isoformat()})" in annotate_relative_time(text, MONDAY)


def test_a_week_ago_weekday_said_on_that_weekday_is_named_not_read() -> None:
    # said on a Monday, "a week ago Monday" may count from today or from last Monday: not guessed
    text = "A week ago Monday I ran a half marathon"
    assert _day(text) is None
    note = _note(text)
    assert "('A week ago Monday')" in note, note


@pytest.mark.parametrize(
    ("text", "days", "expression"),
    [
        ("Thirteen days ago I got a flu shot", 13, "thirteen days ago"),
        ("Twenty-one days ago I got a flu shot", 21, "twenty-one days ago"),
        ("twenty one days ago I got a flu shot", 21, "twenty one days ago"),
        ("I got a flu shot thirty-one days ago", 31, "thirty-one days ago"),
        ("I got a flu shot nineteen days ago", 19, "nineteen days ago"),
    ],
)
def test_number_words_to_thirty_one_are_read(text: str, days: int, expression: str) -> None:
    # H2: "Thirteen days ago" was placed at the write time silently; "twenty one days ago" read "one days ago"
    assert _day(text) == (MONDAY.date() - timedelta(days=days), "day", expression)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Forty one days ago I got a flu shot", "'Forty one days ago'"),
        ("Thirty-two days ago I got a flu shot", "'Thirty-two days ago'"),
        ("A hundred years ago my family moved here", "'A hundred years ago'"),
        # an apostrophe year: which century is not guessed
        ("Back in '19 I lived in Boston", '"Back in \'19"'),
        ("In the summer of \u201908 I lived in Boston", "'of \u201908'"),
        # a dotted day.month after "on", like "on 1/12"
        ("I quit my job at Google on 01.12.", "'on 01.12'"),
        ("I quit my job at Google on 01.12 and left", "'on 01.12'"),
        # an ordinal day before a pronoun or determiner starts the clause; a weekday before it is its own
        ("On the 26th we had Thanksgiving dinner", "'On the 26th'"),
        ("On the 5th my sister flew in", "'On the 5th'"),
        ("I flew back from Denver on Friday the 4th", "'on Friday the 4th'"),
    ],
)
def test_a_time_not_read_is_named_whole(text: str, words: str) -> None:
    assert _day(text) is None
    note = _note(text)
    assert words in note, note


def test_a_dotted_day_month_says_its_order_is_not_guessed() -> None:
    note = _note("I quit my job at Google on 01.12.")
    assert "'01.12' may be day/month or month/day, not guessed" in note, note


@pytest.mark.parametrize(
    ("dated", "other"),
    [
        ("I was put on the new medication on 02.05", "I was put on 2.5 mg of the new medication"),
        ("I upgraded the server on 03.12.", "I upgraded the server, it is on 3.12."),
        ("On the 3rd we had a party", "On the 3rd floor we had a party"),
        ("Back in the '90s I had a playlist", "Sam's 90s playlist was on"),
    ],
)
def test_a_date_is_named_and_what_is_not_a_date_is_not(dated: str, other: str) -> None:
    # the forms now named (a dotted day.month, an ordinal day before a pronoun, an apostrophe year) are
    # told from a measure, a thing's ordinal, a plain plural
    assert _note(dated) != ""
    assert _note(other) == ""


@pytest.mark.parametrize(
    ("text", "start", "precision"),
    [
        ("The weekend before last I went hiking", date(2026, 11, 23), "week"),
        ("Weekend before last I went hiking", date(2026, 11, 23), "week"),
        ("The week before last I was in Rome", date(2026, 11, 23), "week"),
        ("The month before last I moved to Denver", date(2026, 10, 1), "month"),
        ("The year before last I moved to Denver", date(2024, 1, 1), "year"),
    ],
)
def test_the_unit_before_last_is_two_back(text: str, start: date, precision: str) -> None:
    # H2: "The weekend before last …" named only 'weekend'
    read = _day(text)
    assert read is not None
    assert read[:2] == (start, precision)
    assert _note(text) == ""


def test_the_week_before_a_named_time_is_not_two_weeks_back() -> None:
    read = _day("The week before last I flew to Rome")
    assert read is not None
    assert read[0] == date(2026, 11, 23)
    text = "The week before last Christmas I flew to Rome"
    assert _day(text) is None
    note = _note(text)
    assert "Christmas" in note, note


@pytest.mark.parametrize(
    "phrase",
    [
        "last weekend",
        "the weekend before last",
        "weekend before last",
        "the week before last",
        "the month before last",
        "the year before last",
        "thirteen days ago",
        "twenty one days ago",
    ],
)
def test_a_search_reads_what_a_write_reads_as_the_same_span(phrase: str) -> None:
    # M5: memory_search {"time_range": "last weekend"} was refused though writes read "last weekend"
    inferred = infer_event_time(f"{phrase} I went hiking", MONDAY)
    assert inferred is not None
    window = parse_time_range(phrase, MONDAY)
    assert (window.start, window.end) == (inferred.span.start, inferred.span.end)
    assert parse_time_range(f" {phrase.title()} ".replace(" ", "  "), MONDAY) == window


def test_a_search_count_past_thirty_one_words_is_refused_saying_what_is_read() -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_time_range("forty-two days ago", MONDAY)
    assert "one to thirty-one" in str(caught.value), caught.value
