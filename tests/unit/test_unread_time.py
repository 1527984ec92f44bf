"""``domain.unread_time``: a write's answer names the times its words give that were not read (trial6 B, C)
— a note only, nothing dated, and a day/month in digits is never guessed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.memory import MemoryDraft
from hindsight.domain.planned_words import points_ahead
from hindsight.domain.relative_time import redated, with_inferred_time
from hindsight.domain.unread_time import unread_time_note
from tests.unit.fakes import memory

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
        ("The user's daughter was born last May", "'last May'"),
        # trial20: "May" after a word that introduces a month is the month, whatever follows; a capital
        # after an ordinal day starts the clause
        ("Last May we adopted a beagle", "'Last May'"),
        ("This May we adopted a beagle", "'This May'"),
        ("On the 2nd I flew to Denver", "'On the 2nd'"),
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
        "May we adopt a beagle?",
        "May I bring my dog to the office",
        "The user moved in on the 2nd floor",
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


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Sold the bike I bought two years ago", "two years ago"),
        ("Returned the shoes I bought last month", "last month"),
        ("Finally watched the movie my sister recommended last year", "last year"),
        ("Cancelled the dentist appointment I made last week", "last week"),
        ("Paid the parking ticket I got last Tuesday", "last Tuesday"),
        ("Finally replied to the email Dana sent last week", "last week"),
        ("Returned the library books that were due yesterday", "yesterday"),
        ("Got the results from yesterday's blood test", "yesterday"),
        ("Paid the invoice from last week", "last week"),
        ("I renewed my passport, the one that expired last month", "last month"),
        ("Finished the report that my boss asked for yesterday", "yesterday"),
        ("Threw out the package that arrived yesterday because it was damaged", "yesterday"),
        ("Picked up the photos from the party last week", "last week"),
        ("Fixed yesterday's outage", "yesterday"),
    ],
)
def test_a_relative_time_in_a_clause_that_dates_something_else_is_not_the_episodes(
    text: str, words: str
) -> None:
    """trial8 H1: the purchase, the recommendation, the due day, the blood test, the invoice's week became
    the time of the sale, the viewing, the return, the results, the payment (9 of 9 dated wrongly, no
    note)."""
    draft = MemoryDraft(content=text, layer="episodic")
    assert with_inferred_time(draft, SAID).occurred_at is None
    assert f"({words!r})" in str(unread_time_note(draft, SAID))


@pytest.mark.parametrize(
    ("text", "day", "precision"),
    [
        ("Yesterday I paid the bill", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("I bought a bike two years ago", datetime(2024, 1, 1, tzinfo=UTC), "year"),
        ("Last Tuesday I got a parking ticket", datetime(2026, 12, 1, tzinfo=UTC), "day"),
        ("Paid the bill yesterday", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("Went to the ER last Sunday night", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("Three days ago our basement flooded", datetime(2026, 12, 4, tzinfo=UTC), "day"),
        ("Moved offices at the end of last month", datetime(2026, 11, 1, tzinfo=UTC), "month"),
        ("Went to the store we like yesterday", datetime(2026, 12, 6, tzinfo=UTC), "day"),  # a present verb
        ("My sister and I moved last week", datetime(2026, 11, 30, tzinfo=UTC), "week"),
        ("Gave the keys to Dana and Sam last week", datetime(2026, 11, 30, tzinfo=UTC), "week"),
        ("Sam, who is my brother, had surgery yesterday", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("After the party we left yesterday", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("The dog I adopted arrived yesterday", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("Yesterday's storm knocked out the power", datetime(2026, 12, 6, tzinfo=UTC), "day"),
        ("Did that the day before yesterday", datetime(2026, 12, 5, tzinfo=UTC), "day"),
    ],
)
def test_a_relative_time_of_the_sentences_own_clause_is_still_read(
    text: str, day: datetime, precision: str
) -> None:
    draft = with_inferred_time(MemoryDraft(content=text, layer="episodic"), SAID)
    assert (draft.occurred_at, draft.occurred_precision) == (day, precision)
    assert unread_time_note(MemoryDraft(content=text, layer="episodic"), SAID) is None


def test_an_edit_into_words_that_date_another_clause_drops_the_inferred_time() -> None:
    """trial8 H1: memory_update content "I renewed my passport, the one that expired last month" re-dated
    the renewal to November."""
    written = with_inferred_time(
        MemoryDraft(content="Two weeks ago I renewed my passport", layer="episodic"), SAID
    )
    stored = memory(written.content).model_copy(
        update={"layer": "episodic", "occurred_at": written.occurred_at, "metadata": written.metadata}
    )
    assert stored.occurred_at == datetime(2026, 11, 23, tzinfo=UTC)  # the ISO week two weeks before
    again = redated(stored, "I renewed my passport, the one that expired last month", None)
    assert again is not None
    assert (again.span, again.metadata) == (None, {})


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("A couple of days ago I sprained my ankle", "A couple of days ago"),
        ("Renewed the car registration earlier this week", "earlier this week"),
        ("Started physical therapy 3 weeks back", "3 weeks back"),
        ("A few days ago I lost my keys", "A few days ago"),
        ("The other day I ran into Sam", "The other day"),
        ("Recently I started journaling", "Recently"),
        ("Earlier this week the fridge broke", "Earlier this week"),
        ("We met a week or two ago", "a week or two ago"),
        ("I saw him a while back", "a while back"),
        ("前几天见过他", "前几天"),
        ("几天前买了手机", "几天前"),
    ],
)
def test_a_vague_time_is_not_read_and_is_named(text: str, words: str) -> None:
    """trial8 M1: placed at the write time with no note, though the docs promise one for "a few days
    ago", "the other day"."""
    draft = MemoryDraft(content=text, layer="episodic")
    assert with_inferred_time(draft, SAID).occurred_at is None
    assert f"({words!r})" in str(unread_time_note(draft, SAID))


def test_what_only_looks_vague_is_read_or_not_named() -> None:
    earlier = with_inferred_time(
        MemoryDraft(content="Earlier today I fixed the leak", layer="episodic"), SAID
    )
    assert earlier.occurred_at == datetime(2026, 12, 7, tzinfo=UTC)
    assert (
        unread_time_note(MemoryDraft(content="最近的医院在哪里", layer="episodic"), SAID) is None
    )  # nearest


@pytest.mark.parametrize(
    ("text", "other", "read"),
    [
        # keys15: a keyed fact read at one time that names another: the other was dropped with no word said
        ("I lived in Austin in 2019 and moved to Denver last month", "'in 2019'", "('last month': 2026-11)"),
        ("Yesterday I moved to Denver; I lived in Austin in 2019", "'in 2019'", "('yesterday': 2026-12-06)"),
        ("I moved to Denver last month; I had lived in Austin since 2019", "'since 2019'", "('last month'"),
        ("I moved to Denver 3 months ago after living in Austin from 2019", "'from 2019'", "('3 months ago'"),
    ],
)
def test_a_keyed_fact_read_at_one_time_names_the_other_time_it_gives(
    text: str, other: str, read: str
) -> None:
    draft = MemoryDraft(content=text, key="user.home")
    assert with_inferred_time(draft, SAID).occurred_at is not None  # one time is read: the key's start
    note = unread_time_note(draft, SAID)
    assert note is not None
    assert f"not read ({other}) beside the one read {read}" in note, note
    assert "holds its key from then" in note, note
    assert "own occurred_at" in note, note


@pytest.mark.parametrize(
    "text",
    [
        # guards: one time only, a year that is the read time's own, a day that comes back
        "I moved to Denver last month",
        "Last year, in 2025, I moved to Denver",
        "Today is my birthday, March 3",
    ],
)
def test_a_keyed_fact_read_at_its_only_time_has_no_note(text: str) -> None:
    assert unread_time_note(MemoryDraft(content=text, key="user.home"), SAID) is None
