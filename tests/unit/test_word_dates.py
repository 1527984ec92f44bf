"""trial11 LOW (several trials in a row): writes whose words date them in calendar words came back with
``time_not_read`` and were placed at the write time — "In 2025 I ran my first marathon", "Sold the Honda
Civic in October", "I met Dana on December 1st", "Last weekend I went hiking", and "I will see the doctor
tomorrow" (a plan, stored as today). A past event's year, month or day in words is read
(``domain.word_dates``), "last weekend" is the ISO week holding it, an episode's "tomorrow" is read when
nothing in its words happened already, and a date a fact names in the present tense ("Bob's birthday is
March 3") is what the fact says, not a time to warn about."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.experience import extract_hint
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import INFERRED_KEY, redated, with_inferred_time
from hindsight.domain.unread_time import unread_time_note
from tests.unit.fakes import memory

SAID = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)  # a Monday


def _read(text: str, layer: str = "episodic", **fields: object) -> MemoryDraft:
    return with_inferred_time(MemoryDraft.model_validate({"content": text, "layer": layer, **fields}), SAID)


def _note(text: str, layer: str = "episodic", **fields: object) -> str | None:
    return unread_time_note(MemoryDraft.model_validate({"content": text, "layer": layer, **fields}), SAID)


@pytest.mark.parametrize(
    ("text", "layer", "start", "precision", "expression"),
    [
        ("In 2025 I ran my first marathon", "episodic", datetime(2025, 1, 1), "year", "In 2025"),
        ("In 2025 I ran my first marathon", "semantic", datetime(2025, 1, 1), "year", "In 2025"),
        ("Back in 2019 I broke my leg", "episodic", datetime(2019, 1, 1), "year", "Back in 2019"),
        ("Sold the Honda Civic in October", "episodic", datetime(2026, 10, 1), "month", "in October"),
        ("We moved into the flat in December", "episodic", datetime(2026, 12, 1), "month", "in December"),
        ("In May I visited Rome", "episodic", datetime(2026, 5, 1), "month", "In May"),
        ("In May we moved to a bigger flat", "episodic", datetime(2026, 5, 1), "month", "In May"),
        ("Visited Rome in May 2024", "episodic", datetime(2024, 5, 1), "month", "in May 2024"),
        (
            "The user's daughter was born in May 2020",
            "semantic",
            datetime(2020, 5, 1),
            "month",
            "in May 2020",
        ),
        ("I met Dana on December 1st", "episodic", datetime(2026, 12, 1), "day", "on December 1st"),
        ("I met Dana on December 8th", "episodic", datetime(2025, 12, 8), "day", "on December 8th"),
        ("Flew home on the 3rd of June", "episodic", datetime(2026, 6, 3), "day", "on the 3rd of June"),
        ("I was born on July 4th, 1990", "episodic", datetime(1990, 7, 4), "day", "on July 4th, 1990"),
        ("Flew home on 1 December 2025", "episodic", datetime(2025, 12, 1), "day", "on 1 December 2025"),
        ("Last weekend I went hiking", "episodic", datetime(2026, 11, 30), "week", "last weekend"),
    ],
)
def test_a_past_events_date_in_words_is_read(
    text: str, layer: str, start: datetime, precision: str, expression: str
) -> None:
    """The latest such month or day up to the anchor's day (past tense: it happened by then); a year or a
    month as its span, never a made-up day; "last weekend" is inside the previous ISO week whatever the
    day it is said (no precision names two days)."""
    draft = _read(text, layer)
    assert (draft.occurred_at, draft.occurred_precision) == (start.replace(tzinfo=UTC), precision)
    assert draft.metadata[INFERRED_KEY] == {"expression": expression, "anchor": SAID.isoformat()}
    assert _note(text, layer) is None


@pytest.mark.parametrize(
    ("text", "layer", "words"),
    [
        ("Sold the car I bought in October", "episodic", "in October"),  # the purchase's month
        ("I bought tickets for the concert in October", "episodic", "in October"),  # the concert's
        ("We moved in March and started school in April", "episodic", "in March"),  # two times
        ("Sold the Honda in October on a Tuesday", "episodic", "Tuesday"),  # a time not read beside
        ("Went to Rome last March", "episodic", "last March"),  # this year's March or the year before?
        ("I met Dana on 1/12", "episodic", "on 1/12"),  # day/month or month/day
        ("I met Dana on Dec 1", "episodic", "Dec 1"),
        ("I was going to sell the car in October", "episodic", "in October"),  # a plan
        ("We used to ski in February", "episodic", "in February"),  # a habit
        ("The conference is in October", "episodic", "in October"),  # no past verb: it may be ahead
        ("Sam met Dana on February 30th", "episodic", "February 30th"),  # no such day
        ("In 2027 I ran a marathon", "episodic", "In 2027"),  # after the write
        ("In 2025 I ran in room 2024", "episodic", "In 2025"),  # another four-digit number
        ("The warranty expired in October", "semantic", "in October"),  # a fact's end, not its start
    ],
)
def test_a_date_in_words_that_is_not_surely_the_events_is_named_not_read(
    text: str, layer: str, words: str
) -> None:
    draft = _read(text, layer)
    assert draft.occurred_at is None, text
    assert f"{words!r}" in str(_note(text, layer)), text
    # while the same words alone date the sale
    assert _read("Sold the Honda in October").occurred_precision == "month"


def test_a_keyed_facts_date_in_words_is_left_to_the_key_rules() -> None:
    """On a key the worker reads a past state's year to place the value (``inferred_order``); a month
    is not read there, so a key's value never starts on a date taken from a month name."""
    moved = _read("The user moved to Berlin in March", "semantic", key="user.city")
    assert moved.occurred_at is None
    assert "'in March'" in str(_note("The user moved to Berlin in March", "semantic", key="user.city"))
    assert _note("The user lived in Paris in 2019", "semantic", key="user.city") is None
    # off a key, the same words are dated
    assert _read("The user moved to Berlin in March", "semantic").occurred_at == datetime(
        2026, 3, 1, tzinfo=UTC
    )


@pytest.mark.parametrize(
    "text",
    [
        "Bob's birthday is March 3",
        "The rent is due on the 1st of every month",
        "Team standup is on Mondays",
        "We spend Christmas with my parents every year",
        "The user's anniversary is Dec 12",
    ],
)
def test_a_recurring_day_a_fact_names_is_not_warned_about(text: str) -> None:
    """A birthday, a monthly due day, a weekly meeting: what the fact says, which comes back, not when it
    began; the fact holds from the write, which is right, so a note telling the agent to place it is
    noise."""
    assert _note(text, "semantic") is None
    assert _note(text, "semantic", key="user.date") is None
    # an episode's, a one-off day of a fact (trial6 B), or a fact's past event, is still named
    assert _note(text, "episodic") is not None
    assert "'Dec 1'" in str(_note("The user's dentist appointment is on Dec 1", "semantic"))
    assert "'last March'" in str(_note("We celebrated our anniversary last March", "semantic"))


def test_last_weekend_is_not_read_as_a_stretch_or_the_last_of_something() -> None:
    for text in ("Our last weekend in Lisbon was rainy", "The last weekend of the festival was packed"):
        assert _read(text).occurred_at is None, text
    assert _read("Went hiking last weekend").occurred_precision == "week"


def test_an_episodes_tomorrow_is_dated_and_summarized_as_upcoming() -> None:
    """ "I will see the doctor tomorrow" was placed at the write time, and a turn at its session's start:
    dated as if it had happened. Read as the day after, it is "Upcoming" until then."""
    plan = _read("I will see the doctor tomorrow")
    assert (plan.occurred_at, plan.occurred_precision) == (datetime(2026, 12, 8, tzinfo=UTC), "day")
    assert _note("I will see the doctor tomorrow") is None
    after = _read("Sam has a dentist appointment the day after tomorrow")
    assert after.occurred_at == datetime(2026, 12, 9, tzinfo=UTC)
    turn = _read(
        "I will see the doctor tomorrow",
        conversation_id="c1",
        session_at="2026-11-02T18:00:00-05:00",
    )
    assert turn.occurred_at == datetime(2026, 11, 3, tzinfo=UTC)  # the speaker's tomorrow
    stored = memory(plan.content).model_copy(
        update={"layer": "episodic", "occurred_at": plan.occurred_at, "metadata": plan.metadata}
    )
    hint = extract_hint([stored], now=SAID)
    assert hint.hint.startswith("- Upcoming: I will see the doctor tomorrow"), hint.hint


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        ("I booked the flight for tomorrow", {}),  # the booking is today's
        ("I told Sam I'd call him tomorrow", {}),
        ("The deploy finishes tomorrow", {"outcome": "success"}),  # an outcome is never ahead
        ("Yesterday I booked the flight for tomorrow", {}),  # two times
        ('Sam said "see you tomorrow"', {}),  # quoted words
        ("Dinner with Priya two weeks from tomorrow", {}),  # a while counted from tomorrow
    ],
)
def test_a_tomorrow_that_does_not_date_the_episode_is_named_not_read(
    text: str, fields: dict[str, str]
) -> None:
    assert _read(text, **fields).occurred_at is None, text
    assert _note(text, **fields) is not None
    # a fact holds from when it is said
    assert _read("I have an exam tomorrow", "semantic").occurred_at is None
    assert _read("I have an exam tomorrow").occurred_at == datetime(2026, 12, 8, tzinfo=UTC)


def test_an_edit_of_words_dated_in_calendar_words_is_read_from_the_same_anchor() -> None:
    written = _read("Sold the Honda Civic in October")
    stored = memory(written.content).model_copy(
        update={"layer": "episodic", "occurred_at": written.occurred_at, "metadata": written.metadata}
    )
    again = redated(stored, "Sold the Honda Civic in September", None)
    assert again is not None
    assert again.span is not None
    assert (again.span.start, again.span.precision) == (datetime(2026, 9, 1, tzinfo=UTC), "month")
    assert again.metadata[INFERRED_KEY] == {"expression": "in September", "anchor": SAID.isoformat()}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I was born on July 4th", "July 4th"),
        ("My son was born on March 3rd", "March 3rd"),
        ("We got married on June 12th", "June 12th"),
        ("We got married on the 3rd of June", "June"),
        ("We got engaged in June", "in June"),
        ("Grandpa passed away in March", "in March"),
        ("We celebrated our anniversary on May 5th", "May 5th"),
        ("She graduated in May", "in May"),
    ],
)
def test_a_life_events_day_without_a_year_is_named_not_read(text: str, words: str) -> None:
    """trial13 H1: "I was born on July 4th" was dated 4 July of this year: a birth, a wedding, a death
    comes back every year and the past tense does not bound its year (born decades ago)."""
    assert _read(text).occurred_at is None, text
    assert f"{words!r}" in str(_note(text)), text
    # with its year, the day is read
    assert _read("My son was born on March 3rd, 2019").occurred_at == datetime(2019, 3, 3, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I never sold the Civic in October", "in October"),
        ("I never went to Rome in 2024", "in 2024"),
        ("Sam wasn't invited in May", "in May"),
        ("We did not meet Dana on December 1st", "December 1st"),
        ("I no longer visited Sam in March", "in March"),
    ],
)
def test_a_negated_events_date_in_words_is_named_not_read(text: str, words: str) -> None:
    """trial13 H2: "I never sold the Civic in October" was dated October: the time of what did not
    happen is not the memory's."""
    assert _read(text).occurred_at is None, text
    assert f"{words!r}" in str(_note(text)), text
    assert _read("I sold the Civic in October").occurred_at == datetime(2026, 10, 1, tzinfo=UTC)
