"""Relative time phrases resolve against the query time."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import MAX_TIMESTAMP, MIN_TIMESTAMP, TIMESTAMP_LIMIT
from hindsight.domain.relative_time import infer_event_time
from hindsight.domain.timeparse import detect_time_intent, parse_time_range, resolve_bound

NOW = datetime(2026, 11, 30, 15, 30, tzinfo=UTC)  # a Monday


def day(d: int, m: int = 11) -> datetime:
    return datetime(2026, m, d, tzinfo=UTC)


@pytest.mark.parametrize(
    ("phrase", "start", "end"),
    [
        ("today", day(30), day(1, 12)),
        ("Yesterday", day(29), day(30)),
        ("this week", day(30), day(7, 12)),
        ("last week", day(23), day(30)),
        ("last month", day(1, 10), day(1, 11)),
        ("this month", day(1, 11), day(1, 12)),
        ("last year", datetime(2025, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)),
        ("past 3 days", NOW - timedelta(days=3), NOW),
        ("last 2 weeks", NOW - timedelta(weeks=2), NOW),
        ("3 days ago", day(27), day(28)),
        # calendar units, as a write's "N … ago" is stored (calendar_ago; trial 6): not 30·N / 365·N days
        ("2 weeks ago", day(16), day(23)),
        ("2 months ago", day(1, 9), day(1, 10)),
        ("1 year ago", datetime(2025, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-11-02", day(2), day(3)),
        ("2026-11-01..2026-11-15", day(1), day(16)),
    ],
)
def test_phrases(phrase: str, start: datetime, end: datetime) -> None:
    span = parse_time_range(phrase, NOW)
    assert (span.start, span.end) == (start, end)


@pytest.mark.parametrize(
    "phrase", ["1 day ago", "3 weeks ago", "2 months ago", "11 months ago", "4 years ago"]
)
@pytest.mark.parametrize(
    "moment", [NOW, datetime(2026, 3, 1, 12, tzinfo=UTC), datetime(2024, 12, 31, 23, tzinfo=UTC)]
)
def test_a_search_for_n_units_ago_names_the_span_a_write_of_it_is_stored_with(
    phrase: str, moment: datetime
) -> None:
    stored = infer_event_time(f"I renewed my passport {phrase}", moment)
    assert stored is not None
    window = parse_time_range(phrase, moment)
    assert (window.start, window.end) == (stored.span.start, stored.span.end)


def test_since_is_open_ended_and_bounds_pick_the_right_edge() -> None:
    assert parse_time_range("since 2026-11-20", NOW).end is None
    assert resolve_bound("last week", NOW, "since", upper=False) == day(23)
    assert resolve_bound("last week", NOW, "until", upper=True) == day(30)
    until = resolve_bound("2026-11-03T10:00:00Z", NOW, "until", upper=True)
    assert until == datetime(2026, 11, 3, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    "phrase",
    [
        "the other day",
        "last fortnight",
        "2026-13-01",
        "",
        "last \u0663 days",
        "past \uff13 days",
        "\u0663 days ago",
    ],
)
def test_unknown_phrases_name_the_field(phrase: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_time_range(phrase, NOW, field="since")
    assert caught.value.field == "since"


@pytest.mark.parametrize(
    ("query", "kind", "start"),
    [
        ("what did we discuss last week?", "window", day(23)),
        ("what happened in May 2023?", "window", datetime(2023, 5, 1, tzinfo=UTC)),
        ("anything from 2026-11-02?", "window", day(2)),
        ("what did I do 3 days ago", "window", day(27)),
        ("what's the latest on the deploy?", "recent", None),
        ("is the user still vegetarian?", "recent", None),
    ],
)
def test_time_intent_in_query_text(query: str, kind: str, start: datetime | None) -> None:
    intent = detect_time_intent(query, NOW)
    assert intent is not None
    assert (intent.kind, intent.start) == (kind, start)


@pytest.mark.parametrize("query", ["When did Caroline go to the support group?", "May I ask about my order?"])
def test_no_time_cue_means_no_intent(query: str) -> None:
    assert detect_time_intent(query, NOW) is None


# --- Trust: no phrase, date or query time makes time parsing fail other than with InvalidInput -------

AS_OF = st.datetimes(datetime(1900, 1, 1), datetime(2100, 12, 31), timezones=st.just(UTC))
PHRASES = st.one_of(
    st.text(max_size=64),
    st.from_regex(r"(last|past|previous) \d{1,4} (minute|hour|day|week|month|year)s?", fullmatch=True),
    st.from_regex(r"\d{1,4} (day|week|month|year)s? ago", fullmatch=True),
    st.from_regex(r"(since )?\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2}|Z)?)?", fullmatch=True),
    st.from_regex(r"\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}", fullmatch=True),
    st.sampled_from(["today", "yesterday", "this week", "last week", "this year", "last year"]),
)


@settings(max_examples=150, deadline=None, database=None)
@given(phrase=PHRASES, now=AS_OF)
def test_any_phrase_resolves_inside_the_bounds_or_is_invalid_input(phrase: str, now: datetime) -> None:
    try:
        span = parse_time_range(phrase, now)
    except InvalidInput as exc:
        refused = exc
    else:
        for bound in (span.start, span.end):
            assert bound is None or MIN_TIMESTAMP <= bound <= MAX_TIMESTAMP
        return
    assert refused.field == "time_range"


@settings(max_examples=150, deadline=None, database=None)
@given(text=st.one_of(st.text(max_size=80), PHRASES.map(lambda p: f"what happened {p}?")), now=AS_OF)
def test_time_intent_detection_never_raises(text: str, now: datetime) -> None:
    intent = detect_time_intent(text, now)
    # no cue, a wish for recency, or a window in the allowed range whose start is not after its end
    assert intent is None or intent.kind in ("window", "recent")
    if intent is not None and intent.kind == "window":
        bounds = [b for b in (intent.start, intent.end) if b is not None]
        assert bounds, intent
        assert all(MIN_TIMESTAMP <= b <= MAX_TIMESTAMP for b in bounds), intent
        if intent.start is not None and intent.end is not None:
            assert intent.start <= intent.end, intent


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("past 9999 years", None),  # computed past year 1: cut at 1900, not an overflow
        ("9999-12-31", "InvalidInput"),
        ("0001-01-01..9999-12-31", "InvalidInput"),
        ("9999 years ago", "InvalidInput"),
    ],
)
def test_far_times_are_cut_or_refused_never_overflow(phrase: str, expected: str | None) -> None:
    if expected is None:
        assert parse_time_range(phrase, NOW).start == MIN_TIMESTAMP
    else:
        with pytest.raises(InvalidInput) as caught:
            parse_time_range(phrase, NOW)
        assert caught.value.limit == TIMESTAMP_LIMIT


@pytest.mark.parametrize(
    ("phrase", "count"),
    [
        ("past forty-two days", "forty-two"),
        ("zero days ago", "zero"),
        ("last zero weeks", "zero"),
        ("past \uff13 days", "\uff13"),
        ("\uff13 days ago", "\uff13"),
        ("last one hundred days", "one hundred"),
    ],
)
def test_a_count_that_is_not_read_is_refused_naming_it(phrase: str, count: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        parse_time_range(phrase, datetime(2026, 12, 6, 12, tzinfo=UTC))
    assert caught.value.field == "time_range"
    assert f"is not read from {count!r}" in str(caught.value)
    assert "ASCII digits" in str(caught.value)
