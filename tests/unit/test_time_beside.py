"""A calendar word beside a relative time (trial15, a regression of h-time11's b409a9c): any month name,
holiday, weekday or "weekend" anywhere in the words stopped a relative expression that was read before
("Yesterday I paid the October invoice", "Yesterday I met Dana, who was born in March"): the memory was
placed at the write time with a note, and a date-filtered search missed it. Now only a name written as
the event's time counts as a second time (``time_beside``); "I flew to Lisbon on May 3 and came back
yesterday" still reads neither and names both. And a sentence that takes its date back ("We had planned
to move in October, but never did") is noted, not dated (trial15 M2); a name that says the relative time
again ("Last year, in 2025, …") is read with it, and a given occurred_at outside that year is named
(trial15 L3).

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
YESTERDAY = (datetime(2026, 12, 6, tzinfo=UTC), "day")

READ = [  # each was read so before b409a9c (the same occurred_at and precision)
    ("Last weekend I bought Christmas presents for the kids", (datetime(2026, 11, 30, tzinfo=UTC), "week")),
    ("Yesterday I finished my Christmas shopping", YESTERDAY),
    ("Yesterday I celebrated Mother's Day early", YESTERDAY),
    ("Yesterday I paid the October invoice", YESTERDAY),
    ("Two weeks ago I paid the invoice from October", (datetime(2026, 11, 23, tzinfo=UTC), "week")),
    ("Yesterday I spoke to April about the budget", YESTERDAY),
    ("Yesterday Dr. June Park called", YESTERDAY),
    ("Yesterday I went to the May Day parade", YESTERDAY),
    ("Yesterday I bought March Madness tickets", YESTERDAY),
    ("Yesterday I read the May issue of the magazine", YESTERDAY),
    ("Yesterday I wore my Sunday best", YESTERDAY),
    ("Yesterday I ran 5k, a personal best since June", YESTERDAY),
    ("Yesterday I met Dana, who was born in March", YESTERDAY),
    ("Yesterday I finished the report that was due on May 3", YESTERDAY),
    ("Yesterday I returned the shoes I bought in October", YESTERDAY),
    ("This morning I renewed my passport, which expires in June", (datetime(2026, 12, 7, tzinfo=UTC), "day")),
    ("Yesterday I got a flu shot, as I do every October", YESTERDAY),
    ("Yesterday I planted tulips; they bloom in April", YESTERDAY),
    (
        "Last Tuesday I went to the dentist; next appointment is in June",
        (datetime(2026, 12, 1, tzinfo=UTC), "day"),
    ),
]
NOTED = [  # b409a9c's: two times of the event, which is the memory's the words do not say
    ("I flew to Lisbon on May 3 and came back yesterday", ("'May 3'", "'yesterday'")),
    ("I flew to Lisbon yesterday and came back on May 10", ("'yesterday'", "'May 10'")),
    ("I flew to Lisbon on 2026-05-03 and came back on May 10", ("'2026-05-03'", "'May 10'")),
    ("I will fly to Lisbon tomorrow and come back on May 10", ("'tomorrow'", "'May 10'")),
    ("I came back yesterday. I flew out on May 3", ("'yesterday'", "'May 3'")),
    ("I was in Rome over Christmas and flew back yesterday", ("'over Christmas'", "'yesterday'")),
]
UNDONE = [
    ("We had planned to move in October, but never did", "'in October'"),
    ("I was supposed to fly to Paris in 2024, but didn't", "'in 2024'"),
    ("In 2024 I wanted to run a marathon, but I couldn't", "'In 2024'"),
]


def _draft(text: str, layer: str = "episodic") -> MemoryDraft:
    return MemoryDraft.model_validate({"content": text, "layer": layer})


def _placed(text: str) -> tuple[datetime | None, str | None]:
    draft = with_inferred_time(_draft(text), SAID)
    return draft.occurred_at, draft.occurred_precision


@pytest.mark.parametrize(("text", "placed"), READ)
def test_a_calendar_word_that_is_no_time_of_the_event_leaves_the_relative_time_read(
    text: str, placed: tuple[datetime, str]
) -> None:
    """A name, a modifier, a holiday's noun, a time after "since"/"from"/"every", a relative clause's
    time, a habit in another sentence: none is a second time of what the words tell."""
    assert _placed(text) == placed, text
    assert unread_time_note(_draft(text), SAID) is None, text


@pytest.mark.parametrize(("text", "words"), NOTED)
def test_a_calendar_time_of_the_event_beside_a_relative_one_is_still_named_and_neither_read(
    text: str, words: tuple[str, str]
) -> None:
    """Guards (pass on b409a9c too, which added them): the rule narrowed, not removed."""
    assert _placed(text) == (None, None), text
    note = str(unread_time_note(_draft(text), SAID))
    assert note.index(words[0]) < note.index(words[1]), note


@pytest.mark.parametrize(("text", "words"), UNDONE)
def test_a_sentence_that_takes_its_date_back_is_noted_not_dated(text: str, words: str) -> None:
    assert _placed(text) == (None, None), text
    assert words in str(unread_time_note(_draft(text), SAID)), text


def test_a_but_that_goes_on_does_not_take_the_date_back() -> None:
    """A guard: "but never unpacked" tells another thing that did not happen, not this one."""
    assert _placed("I moved to Denver in October but never unpacked") == (
        datetime(2026, 10, 1, tzinfo=UTC),
        "month",
    )


@pytest.mark.anyio
async def test_the_admission_use_case_answers_each_and_the_worker_places_the_draft() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(SAID))
    texts = [text for text, _ in READ] + [text for text, _ in NOTED] + [text for text, _ in UNDONE]
    acks = [await remember(ALICE, None, _draft(text)) for text in texts]
    placed = [with_inferred_time(job.draft, job.submitted_at) for job in queue.jobs]
    expected = [p for _, p in READ] + [(None, None)] * (len(NOTED) + len(UNDONE))
    assert [(d.occurred_at, d.occurred_precision) for d in placed] == expected
    assert [a.time_not_read is None for a in acks] == [True] * len(READ) + [False] * (
        len(NOTED) + len(UNDONE)
    )
    for ack, (_, words) in zip(acks[len(READ) :], NOTED + [(t, (w,)) for t, w in UNDONE], strict=True):
        assert all(w in str(ack.time_not_read) for w in words), ack


@pytest.mark.parametrize(
    ("text", "placed"),
    [
        ("Last year, in 2025, I ran a marathon", (datetime(2025, 1, 1, tzinfo=UTC), "year")),
        ("Last month, in November, I moved to Denver", (datetime(2026, 11, 1, tzinfo=UTC), "month")),
        ("Yesterday, on December 6, I ran a marathon", YESTERDAY),
    ],
)
def test_a_calendar_name_that_says_the_relative_time_again_is_no_second_time(
    text: str, placed: tuple[datetime, str]
) -> None:
    assert _placed(text) == placed, text
    assert unread_time_note(_draft(text), SAID) is None, text


def test_a_calendar_name_beside_a_relative_time_that_spans_more_is_still_a_second_time() -> None:
    """A guard: "last week" runs into December, so "in November" is not the same time said again."""
    assert _placed("Last week, in November, I moved to Denver") == (None, None)


def test_a_given_occurred_at_outside_a_year_said_again_beside_a_relative_time_is_named() -> None:
    """trial15 L3: the year is written ("in 2025"), so a given 2026-11-02 contradicts the words."""
    draft = MemoryDraft.model_validate(
        {"content": "Last year, in 2025, I ran a marathon", "layer": "episodic", "occurred_at": "2026-11-02"}
    )
    assert with_inferred_time(draft, SAID).occurred_at == datetime(2026, 11, 2, tzinfo=UTC)
    note = str(unread_time_note(draft, SAID))
    assert "2025" in note, note
    assert "2026-11-02" in note, note
    plain = draft.model_copy(update={"content": "Last year I ran a marathon"})
    assert unread_time_note(plain, SAID) is None  # a relative time alone may count from the given time
