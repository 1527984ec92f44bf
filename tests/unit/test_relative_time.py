"""Relative dates inside content resolved against the write's anchor (issue 12, item 2):
``domain.relative_time``."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from hindsight.domain.isotime import LocalAsOfTime, LocalTimestamp, TimeSpan
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import (
    INFERRED_KEY,
    annotate_relative_time,
    infer_event_time,
    redated,
    relative_mentions,
    with_inferred_time,
    words_anchor,
)
from hindsight.domain.text import information_words
from hindsight.domain.timeparse import parse_time_range
from tests.unit.fakes import memory

# Wednesday 2 December 2026, 09:30 UTC
ANCHOR = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)


def day(d: date) -> TimeSpan:
    return TimeSpan(datetime.combine(d, time.min, UTC), "day")


def week(monday: date) -> TimeSpan:
    return TimeSpan(datetime.combine(monday, time.min, UTC), "week")


@pytest.mark.parametrize(
    ("text", "span", "expression"),
    [
        ("Yesterday I renewed my passport", day(date(2026, 12, 1)), "yesterday"),
        ("Renewed my passport yesterday.", day(date(2026, 12, 1)), "yesterday"),
        ("Today the new office opened", day(date(2026, 12, 2)), "today"),
        ("Had sushi last night", day(date(2026, 12, 1)), "last night"),
        ("The day before yesterday the boiler broke", day(date(2026, 11, 30)), "the day before yesterday"),
        ("Met Priya last Tuesday", day(date(2026, 12, 1)), "last tuesday"),
        ("Met Priya last Wednesday", day(date(2026, 11, 25)), "last wednesday"),  # never the same day
        ("Met Priya last Monday", day(date(2026, 11, 30)), "last monday"),
        ("Met Priya last Thursday", day(date(2026, 11, 26)), "last thursday"),
        ("The server crashed 3 days ago", day(date(2026, 11, 29)), "3 days ago"),
        ("We moved house two weeks ago", week(date(2026, 11, 16)), "two weeks ago"),
        (
            "Started the course a month ago",
            TimeSpan(datetime(2026, 11, 1, tzinfo=UTC), "month"),
            "a month ago",
        ),
        ("Sold the car last week", week(date(2026, 11, 23)), "last week"),
        ("Paid the invoice last month", TimeSpan(datetime(2026, 11, 1, tzinfo=UTC), "month"), "last month"),
        ("Visited Kyoto last year", TimeSpan(datetime(2025, 1, 1, tzinfo=UTC), "year"), "last year"),
        ("Graduated 5 years ago", TimeSpan(datetime(2021, 1, 1, tzinfo=UTC), "year"), "5 years ago"),
        ("我昨天更新了护照", day(date(2026, 12, 1)), "昨天"),
        ("前天下了大雨", day(date(2026, 11, 30)), "前天"),
        ("大前天去了医院", day(date(2026, 11, 29)), "大前天"),
        ("今天开始新项目", day(date(2026, 12, 2)), "今天"),
        ("上周二开了预算会", day(date(2026, 11, 24)), "上周二"),
        ("上星期日去爬山", day(date(2026, 11, 29)), "上星期日"),
        ("上周交付了版本", week(date(2026, 11, 23)), "上周"),
        ("两周前换了工作", week(date(2026, 11, 16)), "两周前"),
        ("三天前订了机票", day(date(2026, 11, 29)), "三天前"),
        ("十二天前提交了申请", day(date(2026, 11, 20)), "十二天前"),
        ("3个月前搬家", TimeSpan(datetime(2026, 9, 1, tzinfo=UTC), "month"), "3个月前"),
        ("上个月加薪了", TimeSpan(datetime(2026, 11, 1, tzinfo=UTC), "month"), "上个月"),
        ("去年去了日本", TimeSpan(datetime(2025, 1, 1, tzinfo=UTC), "year"), "去年"),
        ("前年买了房", TimeSpan(datetime(2024, 1, 1, tzinfo=UTC), "year"), "前年"),
        ("Yesterday, yes yesterday, the build broke", day(date(2026, 12, 1)), "yesterday"),  # same time twice
    ],
)
def test_explicit_relative_expressions_resolve_to_their_span(
    text: str, span: TimeSpan, expression: str
) -> None:
    inferred = infer_event_time(text, ANCHOR)
    assert inferred is not None
    assert (inferred.span, inferred.expression) == (span, expression)


@pytest.mark.parametrize(
    "text",
    [
        "Alex is allergic to peanuts",  # no time at all
        "The meeting is on Tuesday",  # a weekday alone: this week's or last?
        "Yesterday I booked the flight for tomorrow",  # two times
        "Yesterday I planned what to do next week",
        "Last week was busy but today is calm",  # two different times
        "I'll see Priya next Tuesday; we last met last Tuesday",
        "Recently I started running",  # vague
        "A few days ago the printer broke",
        "the other day we spoke",
        "我昨天买了明天的票",  # 昨天 and 明天
        "前几天见过他",  # vague
        "下周二开会",  # the future is not an event that happened
        "Saw it 5000 years ago in a dream",  # outside the supported range
    ],
)
def test_no_guess_when_there_is_no_single_explicit_expression(text: str) -> None:
    assert infer_event_time(text, ANCHOR) is None


@given(
    anchor=st.datetimes(
        min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
    ),
    days=st.integers(min_value=1, max_value=400),
)
def test_n_days_ago_is_always_the_day_n_days_before_the_anchors_day(anchor: datetime, days: int) -> None:
    for text in (f"It happened {days} days ago", f"{days}天前发生的"):
        inferred = infer_event_time(text, anchor)
        assert inferred is not None
        assert inferred.span == day(anchor.date() - timedelta(days=days))


@given(
    anchor=st.datetimes(
        min_value=datetime(1950, 1, 1), max_value=datetime(2090, 12, 31), timezones=st.just(UTC)
    )
)
def test_every_span_ends_on_or_before_the_anchors_day_and_last_weekdays_are_within_a_week(
    anchor: datetime,
) -> None:
    end_of_anchor_day = datetime.combine(anchor.date() + timedelta(days=1), time.min, UTC)
    for text in ("yesterday", "last week", "last month", "last year", "上周三", "上个月", "去年", "today"):
        inferred = infer_event_time(text, anchor)
        assert inferred is not None
        assert inferred.span.end <= end_of_anchor_day
    for name in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"):
        inferred = infer_event_time(f"last {name}", anchor)
        assert inferred is not None
        assert 1 <= (anchor.date() - inferred.span.start.date()).days <= 7
        assert inferred.span.start.strftime("%A").lower() == name


def test_a_draft_without_occurred_at_gets_it_with_a_note_and_keeps_its_content() -> None:
    draft = MemoryDraft(content="Yesterday I renewed my passport", metadata={"source": "chat"})
    inferred = with_inferred_time(draft, ANCHOR)
    assert inferred.content == draft.content
    assert (inferred.occurred_at, inferred.occurred_precision) == (datetime(2026, 12, 1, tzinfo=UTC), "day")
    assert inferred.metadata == {
        "source": "chat",
        INFERRED_KEY: {"expression": "yesterday", "anchor": "2026-12-02T09:30:00+00:00"},
    }


def test_a_given_occurred_at_wins_and_a_turn_is_anchored_at_its_session() -> None:
    given_at = MemoryDraft(content="Yesterday I renewed my passport", occurred_at="2026-11-01")
    assert with_inferred_time(given_at, ANCHOR) == given_at
    turn = MemoryDraft(
        content="Yesterday I renewed my passport", conversation_id="c1", session_at="2023-05-08T13:56:00Z"
    )
    inferred = with_inferred_time(turn, ANCHOR)
    assert inferred.occurred_at == datetime(2023, 5, 7, tzinfo=UTC)
    assert inferred.metadata[INFERRED_KEY] == {
        "expression": "yesterday",
        "anchor": "2023-05-08T13:56:00+00:00",
    }
    plain = MemoryDraft(content="Alex is allergic to peanuts")
    assert with_inferred_time(plain, ANCHOR) == plain


@pytest.mark.anyio
async def test_the_worker_anchors_at_the_acknowledgement_not_when_it_runs() -> None:
    from uuid import uuid4

    from hindsight.adapters.embedders.hash_embedder import HashEmbedder
    from hindsight.domain.memory import WriteJob
    from hindsight.usecases.store_memories import StoreMemories
    from tests.unit.fakes import ScriptedStore

    # acknowledged on 2 December, processed whenever the queue gets to it
    job = WriteJob(
        id=uuid4(),
        tenant_id="acme",
        agent_id="default",
        submitted_at=ANCHOR,
        draft=MemoryDraft(content="Yesterday I renewed my passport"),
    )
    (prepared,) = await StoreMemories(ScriptedStore(), HashEmbedder(16), 0.95).prepare([job])
    assert prepared.job.draft.event_span == day(date(2026, 12, 1))
    assert prepared.job.draft.content == "Yesterday I renewed my passport"


# --- copied text: each resolved expression dated from its own anchor ------------------------------------


@pytest.mark.parametrize(
    ("text", "annotated"),
    [
        ("Yesterday I renewed my passport", "Yesterday (2026-12-01) I renewed my passport"),
        ("Renewed my passport yesterday.", "Renewed my passport yesterday (2026-12-01)."),
        ("Sold the car last week", "Sold the car last week (2026-W48)"),
        ("Paid the invoice last month", "Paid the invoice last month (2026-11)"),
        ("Visited Kyoto last year", "Visited Kyoto last year (2025)"),
        ("The server crashed 3 days ago", "The server crashed 3 days ago (2026-11-29)"),
        ("TODAY the office opened", "TODAY (2026-12-02) the office opened"),
        ("Fixed yesterday's outage", "Fixed yesterday's (2026-12-01) outage"),
        # two times (no event time is inferred) are still each dated: the anchor is known
        (
            "Last week was busy but today is calm",
            "Last week (2026-W48) was busy but today (2026-12-02) is calm",
        ),
        # an expression not resolved stays as written, never guessed
        (
            "Yesterday I booked the flight for tomorrow",
            "Yesterday (2026-12-01) I booked the flight for tomorrow",
        ),
        ("The meeting is on Tuesday, recently moved", "The meeting is on Tuesday, recently moved"),
        # Chinese runs without spaces: the note follows the run and names the expression
        ("我昨天更新了护照", "我昨天更新了护照（昨天 = 2026-12-01）"),
        ("上周二开了预算会，很顺利", "上周二开了预算会（上周二 = 2026-11-24），很顺利"),
        ("昨天", "昨天（2026-12-01）"),
        ("去年去了日本。上个月加薪了", "去年去了日本（去年 = 2025）。上个月加薪了（上个月 = 2026-11）"),
        ("前天和大前天都下雨", "前天和大前天都下雨（前天 = 2026-11-30; 大前天 = 2026-11-29）"),
        ("ｙｅｓｔｅｒｄａｙ I ran", "ｙｅｓｔｅｒｄａｙ（2026-12-01） I ran"),  # full-width, NFKC-matched
    ],
)
def test_copied_text_dates_each_resolved_expression(text: str, annotated: str) -> None:
    assert annotate_relative_time(text, ANCHOR) == annotated
    assert information_words(text) <= information_words(annotated)


# --- only standalone temporal phrases: names, identifiers, quotations and "the last … of" are not times ---


@pytest.mark.parametrize(
    "text",
    [
        "The USA Today reporter called about the outage",  # a name: capitalised inside a sentence
        "We watched the Today show",
        "Deployed The Fix Yesterday",  # title case: a heading or a name, not certainly a time
        "The yesterday-report job failed again",  # part of an identifier
        "Rotated today.log and the pre-yesterday snapshot",
        "We played the Beatles song 'Yesterday' at the party",  # a quoted title
        'The ticket "Fix what broke yesterday" is still open',
        "他唱了《昨天》",
        "In the last month of the project we cut scope",  # the final month of something
        "The last week of the sprint was hectic",
        "Over the last year we doubled revenue",  # a stretch up to now, not the previous calendar year
        "On the last night of the trip it rained",
        "Our last year in Lisbon was the best",
        # a possessive noun: a re-trial's "Bob's last week at the company" was dated the previous ISO week
        "Bob's last week at the company was in March",
        "Anna\u2019s last year in Lisbon was the best",
        "The twins' last month at school went well",
    ],
)
def test_a_relative_word_inside_a_name_identifier_quotation_or_series_is_not_a_time(text: str) -> None:
    assert infer_event_time(text, ANCHOR) is None
    assert relative_mentions(text, ANCHOR) == []
    assert annotate_relative_time(text, ANCHOR) == text


@pytest.mark.parametrize(
    ("text", "expression"),
    [
        ("Yesterday's outage took the site down", "yesterday"),  # an apostrophe's suffix is no quotation
        ("She said 'ship it' yesterday", "yesterday"),  # the quotation is elsewhere
        ("Notes:\n- Yesterday the boys' team won", "yesterday"),  # a list item starts a sentence
        ("Done. Yesterday we shipped", "yesterday"),
        ("(Yesterday we shipped)", "yesterday"),
        ("I called her last week", "last week"),  # "her" is an object here, not a possessive
        ("It's been busy since last week", "last week"),  # "it's" is "it is", not a possessive
        ("She said that last month the rent went up", "last month"),
        ("Last year's conference was in Lisbon", "last year"),
        ("Paid the invoice last month - finally", "last month"),
    ],
)
def test_standalone_phrases_next_to_such_signs_still_resolve(text: str, expression: str) -> None:
    inferred = infer_event_time(text, ANCHOR)
    assert inferred is not None
    assert inferred.expression == expression


def test_without_an_anchor_nothing_is_annotated() -> None:
    assert (
        annotate_relative_time("Yesterday I renewed my passport", None) == "Yesterday I renewed my passport"
    )
    assert relative_mentions("Alex is allergic to peanuts", ANCHOR) == []


def test_mentions_are_the_inference_rules_spans_placed_in_the_text_as_given() -> None:
    text = "ΟΔΟΣ: ﬁled it yesterday, 大前天 too"  # final sigma and a ligature change the normal form
    mentions = relative_mentions(text, ANCHOR)
    assert [text[m.start : m.end] for m in mentions] == ["yesterday", "大前天"]
    assert [m.span for m in mentions] == [day(date(2026, 12, 1)), day(date(2026, 11, 29))]
    assert infer_event_time("Yesterday I renewed my passport", ANCHOR) == infer_event_time(
        "yesterday", ANCHOR
    )


_PIECES = st.sampled_from(
    [
        "yesterday", "Yesterday", "last week", "3 days ago", "last Monday", "tomorrow", "on Tuesday",
        "I", "deployed", "RQ-51", "v2", "_", "-", ".", ", ", " ", "\n", "昨天", "上周二", "两周前", "去年",
        "我", "部署了", "服务", "，", "。", "ﬁ", "Σ", "ｙｅｓｔｅｒｄａｙ", "(", ")", "e\u0301", "'s",
    ]
)  # fmt: skip


@given(pieces=st.lists(_PIECES, max_size=14))
@example(pieces=["昨天", "e\u0301"])  # a note between a letter and its accent split "é" (hypothesis found it)
def test_annotation_only_adds_notes_and_never_splits_a_word(pieces: list[str]) -> None:
    text = "".join(pieces)
    annotated = annotate_relative_time(text, ANCHOR)
    assert information_words(text) <= information_words(annotated)
    # every character of the text is kept, in order: removing the notes gives it back (the pieces hold
    # no four-digit number, so every one in the result is a note's)
    stripped = re.sub(r" \([^()]*\d{4}[^()]*\)|（[^（）]*\d{4}[^（）]*）", "", annotated)
    assert stripped == text
    assert len(re.findall(r"\d{4}", annotated)) - len(re.findall(r"\d{4}", text)) == len(
        relative_mentions(text, ANCHOR)
    )


def test_the_anchor_is_the_write_paths_own_when_it_can_be_checked() -> None:
    written = with_inferred_time(MemoryDraft(content="Yesterday I renewed my passport"), ANCHOR)
    record = written.metadata[INFERRED_KEY]
    assert words_anchor(written.content, record, written.occurred_at, None) == ANCHOR
    # edited since (memory_update), or a superseding copy of the metadata: the record is not this text's
    assert words_anchor("Last week I renewed my passport", record, written.occurred_at, None) is None
    assert words_anchor(written.content, record, datetime(2026, 11, 1, tzinfo=UTC), None) is None
    # a caller-given occurred_at may be the event's time or the words': unknown
    assert words_anchor(written.content, None, datetime(2026, 11, 1, tzinfo=UTC), None) is None
    assert words_anchor(written.content, {"anchor": "soon"}, written.occurred_at, None) is None
    # a conversation turn's words were said at its session's start
    session = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert words_anchor(written.content, None, session, session) == session


def test_an_edit_of_the_words_that_dated_a_memory_dates_it_again_from_the_same_anchor() -> None:
    """New-user trial F15: "Yesterday" edited to "Two weeks ago" kept the day before the write."""
    written = with_inferred_time(MemoryDraft(content="Yesterday I renewed my passport"), ANCHOR)
    stored = memory(written.content).model_copy(
        update={"occurred_at": written.occurred_at, "metadata": {**written.metadata, "via": "chat"}}
    )
    again = redated(stored, "Two weeks ago I renewed my passport", None)
    assert again is not None
    assert again.span == TimeSpan(datetime(2026, 11, 16, tzinfo=UTC), "week")  # two ISO weeks before
    assert again.metadata == {
        "via": "chat",
        INFERRED_KEY: {"expression": "two weeks ago", "anchor": ANCHOR.isoformat()},
    }
    gone = redated(stored, "I renewed my passport", {"via": "form"})
    assert gone is not None
    assert (gone.span, gone.metadata) == (None, {"via": "form"})
    session = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a turn: as its write stores it, its session's start
    turn = redated(stored.model_copy(update={"session_at": session}), "I renewed my passport", None)
    assert turn is not None
    assert turn.span == TimeSpan(session)
    # not the inference's: a caller's occurred_at, or the content unchanged
    given = stored.model_copy(update={"occurred_at": datetime(2026, 3, 2, tzinfo=UTC)})
    assert redated(given, "Two weeks ago I renewed my passport", None) is None
    assert redated(stored, written.content, None) is None


def test_relative_words_count_from_the_local_day_of_the_offset_given() -> None:
    """New-user trial 5: "Yesterday …" said at 21:00 on 10 February at UTC−5 (02:00 UTC on the 11th) is
    the 9th; a search asked then for "yesterday" looks at the 9th too."""
    said = TypeAdapter(LocalTimestamp).validate_python("2026-02-10T21:00:00-05:00")
    assert said == datetime(2026, 2, 11, 2, tzinfo=UTC)  # the same instant, in the speaker's offset
    assert said.utcoffset() == timedelta(hours=-5)
    inferred = infer_event_time("Yesterday I renewed my passport.", said)
    assert inferred is not None
    assert inferred.span.start == datetime(2026, 2, 9, tzinfo=UTC)
    asked = TypeAdapter(LocalAsOfTime).validate_python("2026-02-10T21:00:00-05:00")
    window = parse_time_range("yesterday", asked)
    assert (window.start, window.end) == (datetime(2026, 2, 9, tzinfo=UTC), datetime(2026, 2, 10, tzinfo=UTC))
    # no offset, Z, or a partial date: UTC as before
    for text in ("2026-02-11T02:00:00Z", "2026-02-11T02:00:00"):
        utc = TypeAdapter(LocalTimestamp).validate_python(text)
        assert utc.utcoffset() == timedelta(0)
        again = infer_event_time("Yesterday I renewed it", utc)
        assert again is not None
        assert again.span.start == datetime(2026, 2, 10, tzinfo=UTC)
    assert TypeAdapter(LocalAsOfTime).validate_python("2026-02-10").utcoffset() == timedelta(0)
    east = datetime(2026, 2, 11, 7, tzinfo=timezone(timedelta(hours=9)))  # 22:00 UTC on the 10th
    today = infer_event_time("today I renewed it", east)
    assert today is not None
    assert today.span.start == datetime(2026, 2, 11, tzinfo=UTC)
    turn = MemoryDraft(
        content="Yesterday I renewed it", conversation_id="c", session_at="2026-02-10T21:00:00-05:00"
    )
    record = with_inferred_time(turn, datetime(2026, 3, 1, tzinfo=UTC))
    anchor = {"expression": "yesterday", "anchor": "2026-02-10T21:00:00-05:00"}
    assert record.metadata[INFERRED_KEY] == anchor
    assert record.occurred_at == datetime(2026, 2, 9, tzinfo=UTC)
