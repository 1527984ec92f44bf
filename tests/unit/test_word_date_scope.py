"""Dates in words, three silent or wrong readings (h-time11):

1. Two times in one write, one read and the other dropped with no note: "I flew to Lisbon on May 3 and
   came back yesterday" was placed yesterday; May 3 was said nowhere. Now none is read and the note
   names both, as for two relative expressions or two dates in words ("Moved to Denver in 2019 and to
   Austin in 2022" already was).
2. A negation or a life event anywhere in the words kept a date in words from being read: "I moved to
   Denver in October, not Boulder" was noted, not dated. Now only one that bears on the date's clause
   does (``word_dates._scoped``).
3. A given occurred_at silently won over a year the words name: "In 2019 I ran a marathon" with
   occurred_at 2026-11-02 said nothing. The given time is kept and the note names both.

Each through the domain and through the admission use case (``Remember``: the write's answer; the
worker's ``with_inferred_time`` places the queued draft)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.unread_time import unread_time_note
from hindsight.usecases.remember import Remember
from tests.unit.fakes import FixedClock, ListQueue

SAID = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)  # a Monday
ALICE = Principal(tenant_id="acme", key_id="k1")


def _draft(text: str, layer: str = "episodic", **fields: object) -> MemoryDraft:
    return MemoryDraft.model_validate({"content": text, "layer": layer, **fields})


def _placed(text: str, layer: str = "episodic", **fields: object) -> tuple[datetime | None, str | None]:
    draft = with_inferred_time(_draft(text, layer, **fields), SAID)
    return draft.occurred_at, draft.occurred_precision


def _note(text: str, layer: str = "episodic", **fields: object) -> str | None:
    return unread_time_note(_draft(text, layer, **fields), SAID)


@pytest.mark.parametrize(
    ("text", "layer", "words"),
    [
        ("I flew to Lisbon on May 3 and came back yesterday", "episodic", ("'May 3'", "'yesterday'")),
        ("I flew to Lisbon yesterday and came back on May 10", "episodic", ("'yesterday'", "'May 10'")),
        ("Last week I moved to Austin, in 2019 to Denver", "episodic", ("'Last week'", "'in 2019'")),
        (
            "I flew to Lisbon on 2026-05-03 and came back on May 10",
            "episodic",
            ("'2026-05-03'", "'May 10'"),
        ),
        ("I will fly to Lisbon tomorrow and come back on May 10", "episodic", ("'tomorrow'", "'May 10'")),
        ("Yesterday I told Sam about Rome in 2019", "semantic", ("'Yesterday'", "'in 2019'")),
    ],
)
def test_a_time_in_calendar_words_beside_one_read_is_named_with_it_and_neither_is_read(
    text: str, layer: str, words: tuple[str, str]
) -> None:
    """Which of two times is the memory's — a trip's start or its end — the words do not say: none is
    read, and the note names both, in text order."""
    assert _placed(text, layer) == (None, None), text
    note = str(_note(text, layer))
    assert words[0] in note, note
    assert words[1] in note, note
    assert note.index(words[0]) < note.index(words[1]), note


def test_two_times_in_calendar_words_are_named_not_read() -> None:
    """A guard (passes before the change too): two forms naming different times."""
    for text, words in (
        ("I flew to Lisbon on May 3 and came back on May 10", ("'May 3'", "'May 10'")),
        ("Moved to Denver in 2019 and to Austin in 2022", ("'in 2019'", "'in 2022'")),
    ):
        assert _placed(text) == (None, None), text
        assert all(w in str(_note(text)) for w in words), _note(text)


def test_a_recurring_day_beside_a_time_read_does_not_stop_it() -> None:
    """Guards: a weekday in the plural, or a day of the year a fact says recurs, names no second time."""
    moved = "Yesterday we moved the team standup to Mondays"
    assert _placed(moved) == (datetime(2026, 12, 6, tzinfo=UTC), "day")
    fact = "As of today, the rent is due on the 1st of every month"
    assert _placed(fact, "semantic") == (datetime(2026, 12, 7, tzinfo=UTC), "day")
    assert _note(fact, "semantic") is None


@pytest.mark.parametrize(
    ("text", "start", "precision"),
    [
        ("I moved to Denver in October, not Boulder", datetime(2026, 10, 1), "month"),
        ("I moved to Denver in October and didn't like it", datetime(2026, 10, 1), "month"),
        ("I moved to Denver in October but never unpacked", datetime(2026, 10, 1), "month"),
        ("I never went to Rome, but in 2024 I flew to Paris", datetime(2024, 1, 1), "year"),
        ("I didn't go to Rome but flew to Paris in 2024", datetime(2024, 1, 1), "year"),
        ("I didn't like Boulder. I moved to Denver in October.", datetime(2026, 10, 1), "month"),
        ("Moved to Denver in October, two years after we got married", datetime(2026, 10, 1), "month"),
        ("I moved to Denver in October, after my daughter was born", datetime(2026, 10, 1), "month"),
    ],
)
def test_a_negation_or_life_event_in_another_clause_does_not_stop_the_date(
    text: str, start: datetime, precision: str
) -> None:
    assert _placed(text) == (start.replace(tzinfo=UTC), precision), text
    assert _note(text) is None


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("I never sold the Civic in October", "'in October'"),
        ("I didn't go to Rome and Paris in 2024", "'in 2024'"),  # "and" carries the negation on
        ("I hadn't, in fact, moved in October", "'in October'"),  # a comma does too
        ("In 2024, I never went to Rome", "'In 2024'"),  # the date's part has no verb of its own
        ("I did not, in October, sell the Civic", "'in October'"),
        ("Neither Sam nor I went to Rome in 2024", "'in 2024'"),
        ("In October, my son was born", "'In October'"),
        ("We got married, and in October we moved to Denver", "'in October'"),
        ("I didn't like Boulder, so I moved to Denver in October", "'in October'"),  # the safe error
    ],
)
def test_a_negation_or_life_event_that_may_bear_on_the_date_still_stops_it(text: str, words: str) -> None:
    """Guards (pass before the change too: a negation anywhere stopped the date): where a part ends is
    read narrowly, so what is left is a note too many, never the date of what did not happen."""
    assert _placed(text) == (None, None), text
    assert words in str(_note(text)), text


@pytest.mark.parametrize(
    ("text", "given", "words", "label"),
    [
        ("In 2019 I ran a marathon", "2026-11-02", "'In 2019'", "2019"),
        ("I ran a marathon on 2019-05-03", "2026-11-02", "'2019-05-03'", "2019-05-03"),
        ("Visited Rome in May 2024", "2026-11-02", "'in May 2024'", "2024-05"),
        ("In 2019 I ran a marathon", "2020-03", "'In 2019'", "2019"),
    ],
)
def test_a_given_occurred_at_outside_the_year_the_words_name_is_kept_and_both_are_named(
    text: str, given: str, words: str, label: str
) -> None:
    draft = with_inferred_time(_draft(text, occurred_at=given), SAID)
    assert draft.occurred_at is not None
    assert draft.occurred_at.date().isoformat().startswith(given[:7])
    note = str(_note(text, occurred_at=given))
    assert words in note, note
    assert label in note, note
    assert given in note, note
    assert "placed at occurred_at as given" in note, note


@pytest.mark.parametrize(
    ("text", "given"),
    [
        ("In 2019 I ran a marathon", "2019-06-01"),
        ("In 2019 I ran a marathon", "2019"),
        ("In 2019 I ran a marathon", "2019-12-31T23:00:00-05:00"),  # 2020 in UTC, 2019 where it was said
        ("Yesterday I ran a marathon", "2026-11-02"),  # counted from when it was said: maybe that day
        ("I ran a marathon in October", "2026-11-02"),  # which October depends on when it was said
        ("Sold the car I bought in 2019", "2026-11-02"),  # the purchase's year, not the sale's
        ("I ran a marathon", "2026-11-02"),
    ],
)
def test_a_given_occurred_at_the_words_do_not_contradict_says_nothing(text: str, given: str) -> None:
    """Guards (pass before the change too)."""
    assert _note(text, occurred_at=given) is None


@pytest.mark.anyio
async def test_the_admission_use_case_answers_each_note_and_the_worker_places_the_draft() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(SAID))
    writes = [
        _draft("I flew to Lisbon on May 3 and came back yesterday"),
        _draft("I moved to Denver in October, not Boulder"),
        _draft("In 2019 I ran a marathon", occurred_at="2026-11-02"),
    ]
    acks = [await remember(ALICE, None, draft) for draft in writes]
    placed = [with_inferred_time(job.draft, job.submitted_at) for job in queue.jobs]
    assert "'May 3', 'yesterday'" in str(acks[0].time_not_read), acks[0]
    assert acks[1].time_not_read is None, acks[1]
    assert "'In 2019'" in str(acks[2].time_not_read)
    assert "2026-11-02" in str(acks[2].time_not_read)
    assert [(d.occurred_at, d.occurred_precision) for d in placed] == [
        (None, None),
        (datetime(2026, 10, 1, tzinfo=UTC), "month"),
        (datetime(2026, 11, 2, tzinfo=UTC), "day"),
    ]
