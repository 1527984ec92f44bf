"""``domain.unread_time``: a write's answer names the times its words give that were not read (trial6 B, C)
— a note only, nothing dated, and a day/month in digits is never guessed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.memory import MemoryDraft
from hindsight.domain.planned_words import points_ahead
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.unread_time import unread_time_note

SAID = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("The dentist appointment is on Dec 1", "'Dec 1'"),
        ("The user flew to Oslo on 3 Sept 2024", "'3 Sept 2024'"),
        ("The user's dentist appointment is on 1/12", "'on 1/12'"),
        ("Sam's MRI was 25/11/2026", "'25/11/2026'"),
        ("The rent is due on the 3rd", "'on the 3rd'"),
        ("The user went to Greece in summer 2023", "'in summer 2023'"),
        ("The user started running last summer", "'last summer'"),
        ("The user's daughter was born in May 2020", "'in May 2020'"),
    ],
)
def test_a_date_the_rules_do_not_read_is_named(text: str, words: str) -> None:
    note = unread_time_note(MemoryDraft(content=text, layer="episodic"), SAID)
    assert note is not None
    assert words in note, note
    assert "give occurred_at" in note


def test_a_day_and_month_in_digits_that_read_both_ways_is_said_to_be_unguessed() -> None:
    note = unread_time_note(MemoryDraft(content="The dentist appointment is on 1/12"), SAID)
    assert note is not None
    assert "'1/12' may be day/month or month/day, not guessed" in note
    day_first = unread_time_note(MemoryDraft(content="The dentist appointment is on 25/12"), SAID)
    assert day_first is not None
    assert "not guessed" not in day_first


@pytest.mark.parametrize(
    "text",
    [
        "The user lives on the 3rd floor",
        "Emma uses 3/4 of a cup of flour",
        "The user takes 2.5 mg on 1.5 days",
        "The user skis in winter",
        "Jan likes espresso",
        "The score was 14/15 on the test",
    ],
)
def test_what_is_no_date_is_not_named(text: str) -> None:
    assert unread_time_note(MemoryDraft(content=text, layer="episodic"), SAID) is None


def test_a_year_on_a_keyed_fact_is_named_unless_the_worker_may_read_it() -> None:
    since = unread_time_note(
        MemoryDraft(content="The user has lived in Lisbon since 2019", key="user.city"), SAID
    )
    assert since is not None
    assert "'since 2019'" in since
    assert "holds its key from then" in since
    born = MemoryDraft(content="The user's daughter was born in 2020", key="user.daughter.birthday")
    assert "'in 2020'" in str(unread_time_note(born, SAID))
    # a past state in one year, or a period: the worker places the key's value by it (no note)
    for text in ("The user lived in Paris in 2019", "The user lived in Lyon from 2015 to 2019"):
        assert unread_time_note(MemoryDraft(content=text, key="user.city"), SAID) is None, text


@pytest.mark.parametrize(
    ("text", "layer", "words"),
    [
        ("Moving to Berlin a month from today", "episodic", "a month from today"),
        ("My sister's wedding is two weeks from today", "episodic", "two weeks from today"),
        ("Starting a new job at Globex three days from today", "episodic", "three days from today"),
        ("Dinner with the Garcias a week from today", "episodic", "a week from today"),
        ("We fly to Lisbon 10 days from today", "episodic", "10 days from today"),
        ("The kitchen renovation starts two weeks from yesterday", "episodic", "two weeks from yesterday"),
        ("Dinner with Priya a week from Monday", "episodic", "a week from Monday"),
        ("The audit starts two weeks after today", "episodic", "two weeks after today"),
        ("We move a couple of weeks from now", "episodic", "a couple of weeks from now"),
        ("My lease ends a month from today", "semantic", "a month from today"),
        ("My new job starts a week from today", "semantic", "a week from today"),
    ],
)
def test_a_while_counted_from_today_dates_nothing_today_and_is_named(
    text: str, layer: str, words: str
) -> None:
    """trial7 H2: "a month from today" was dated today (its "today" read) and summarized as having
    happened; the words point a while past the day they name."""
    draft = MemoryDraft.model_validate({"content": text, "layer": layer})
    assert with_inferred_time(draft, SAID).occurred_at is None
    note = unread_time_note(draft, SAID)
    assert note is not None
    assert f"({words!r})" in note, note  # the phrase, not "today" inside it
    assert points_ahead(text)
    # the day the words name on their own is still read
    today = with_inferred_time(MemoryDraft(content="Today I booked the movers", layer="episodic"), SAID)
    assert today.occurred_at == datetime(2026, 12, 7, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("Paid the electricity bill that was due on 2026-11-30", "2026-11-30"),
        ("Got the results of the blood test I took on 2026-11-20", "2026-11-20"),
        ("Renewed my passport, which expired on 2026-10-01", "2026-10-01"),
        ("Picked up the photos from the party on 2026-11-28", "2026-11-28"),
        ("Told the doctor I fell on 2026-11-20", "2026-11-20"),
    ],
)
def test_a_date_in_a_clause_that_dates_something_else_is_not_the_episodes(text: str, date: str) -> None:
    """trial7 H3: the date of the bill's due day, the test, the passport's expiry, the party became the
    day of the payment, the results, the renewal, the pick-up (a search since the 1st missed today's
    payment)."""
    draft = MemoryDraft(content=text, layer="episodic")
    assert with_inferred_time(draft, SAID).occurred_at is None
    assert f"({date!r})" in str(unread_time_note(draft, SAID))


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Paid the bill on 2026-11-30", datetime(2026, 11, 30, tzinfo=UTC)),
        ("Paid that bill on 2026-11-30", datetime(2026, 11, 30, tzinfo=UTC)),
        ("Sam, who is my brother, had surgery on 2026-10-03", datetime(2026, 10, 3, tzinfo=UTC)),
        ("After the party we left on 2026-11-28", datetime(2026, 11, 28, tzinfo=UTC)),
        ("The dog I adopted arrived on 2026-11-20", datetime(2026, 11, 20, tzinfo=UTC)),
        ("Heard back from the bank on 2026-11-20", datetime(2026, 11, 20, tzinfo=UTC)),
        ("The invoice was paid. Sam had surgery on 2026-10-03", datetime(2026, 10, 3, tzinfo=UTC)),
    ],
)
def test_a_date_of_the_sentences_own_clause_is_still_read(text: str, day: datetime) -> None:
    draft = with_inferred_time(MemoryDraft(content=text, layer="episodic"), SAID)
    assert (draft.occurred_at, draft.occurred_precision) == (day, "day")
    assert unread_time_note(MemoryDraft(content=text, layer="episodic"), SAID) is None
