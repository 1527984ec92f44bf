"""Relative time phrases ("last week", "past 3 days", "yesterday") resolved against the query time.

Ranges are half-open ``[start, end)`` in UTC. Calendar phrases count from the query time's local day
(``isotime.local_day``: the offset an ``as_of`` was given, else UTC; the span is that calendar date's,
written as UTC dates, as a write's relative words are stored) and use ISO weeks (Monday first) and
calendar months; "past/last N units" is a rolling window ending at the query time. "last weekend" and "the
week/weekend/month/year before last" are the spans a write's words are stored as (``relative_time``;
trial21 M5: "last weekend" was refused).

Every instant is bounded like the rest of the API (``domain.limits.MIN_TIMESTAMP``/``MAX_TIMESTAMP``,
1900 to 2100): an explicit date outside is refused, a relative window reaching past a bound is cut at it
(no memory can be outside), and one wholly outside is refused — never an overflow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from hindsight.domain.calendar_ago import (
    BEFORE_LAST_ALT,
    NUMBER_WORD_PATTERN,
    NUMBER_WORDS,
    NUMBER_WORDS_SAID,
    ago,
    before_last,
    count_of,
)
from hindsight.domain.calendar_words import MONTH_ALT, MONTHS, UNIT_ALT
from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import TIME_FORMAT, TimeRefused, local_day, span_of
from hindsight.domain.limits import MAX_TIMESTAMP, MIN_TIMESTAMP, TIMESTAMP_LIMIT

_UNITS = {
    "minute": timedelta(minutes=1),
    "hour": timedelta(hours=1),
    "day": timedelta(days=1),
    "week": timedelta(weeks=1),
    "month": timedelta(days=30),
    "year": timedelta(days=365),
}
MAX_RELATIVE_COUNT = 9_999
"""The N of "last N days" and "N days ago" (any unit): at most this (four digits; a look back past
1900-01-01 is cut there)."""
# ASCII digits only, as in ISO dates (isotime): "last ٣ days" or "past ３ days" is refused, not read
# N may be a number word as in a write's words ("three months ago": ``calendar_ago.NUMBER_WORDS``)
_ROLLING_UNIT = rf"minute|hour|{UNIT_ALT}"
"""The units a rolling window ("last 3 hours") counts in: the calendar units and the clock's."""
_ROLLING = re.compile(
    rf"^(?:last|past|previous)\s+(\d+|{NUMBER_WORD_PATTERN})\s+({_ROLLING_UNIT})s?$", re.ASCII
)
_AGO = re.compile(rf"^(\d+|{NUMBER_WORD_PATTERN})\s+({UNIT_ALT})s?\s+ago$", re.ASCII)
_ROLLING_ANY = re.compile(rf"^(?:last|past|previous)\s+(.+?)\s+(?:{_ROLLING_UNIT})s?$")
_AGO_ANY = re.compile(rf"^(.+?)\s+(?:{_ROLLING_UNIT})s?\s+ago$")
"""A rolling or "ago" phrase whatever its N: one whose N is not read (``_ROLLING``/``_AGO``) is refused
naming what N may be ("past twenty-one days", "zero days ago", "past ３ days"), never read as a date."""
_SINCE = re.compile(r"^since\s+(.+)$")
_BEFORE_LAST = re.compile(rf"^(?:the\s+)?({BEFORE_LAST_ALT})\s+before\s+last$")
_RANGE = re.compile(r"^(.+?)\s*(?:\.\.|/| to )\s*(.+)$")
SUPPORTED = (
    "today",
    "yesterday",
    "this week",
    "last week",
    "last weekend",
    "the week/weekend/month/year before last",
    "this month",
    "last month",
    "this year",
    "last year",
    "last N days/weeks/months/hours",
    f"N days ago (N in digits or a word: {NUMBER_WORDS_SAID})",
    "since <date>",
    "<date>",
    "<date>..<date>",
)


@dataclass(frozen=True)
class TimeRange:
    """``[start, end)``; either bound may be open (None)."""

    start: datetime | None
    end: datetime | None


def _day_start(d: date) -> datetime:
    return datetime.combine(d, time.min, tzinfo=UTC)


def _month_start(d: date) -> date:
    return d.replace(day=1)


def _add_months(d: date, months: int) -> date:
    index = d.year * 12 + d.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _parse_instant(text: str, field: str) -> tuple[datetime, datetime]:
    """An ISO 8601 time (``domain.isotime``: the one parser of every time field) as [start, end): a
    partial date is its whole span, a full time the instant (start == end)."""
    try:
        span = span_of(text)
    except TimeRefused as exc:
        if exc.limit is not None:
            raise _out_of_range(field, text) from None
        raise InvalidInput(
            field,
            f"{exc.message}; or a supported phrase ({', '.join(SUPPORTED)})",
            {"format": TIME_FORMAT, "phrases": list(SUPPORTED)},
        ) from None
    return span.start, span.end


def _earlier(now: datetime, delta: timedelta) -> datetime:
    """``now - delta``; a day before MIN_TIMESTAMP when that is further back (the bounds then cut or
    refuse it) — "past 9999 years" must not overflow the calendar."""
    return now - delta if now - MIN_TIMESTAMP >= delta else MIN_TIMESTAMP - timedelta(days=1)


def _count(match: re.Match[str], text: str, field: str) -> int:
    """The N of a relative phrase (digits or a number word, ``calendar_ago.count_of``). Raises InvalidInput
    naming the limit when it is over it."""
    if not match.group(1).isdigit():
        return count_of(match.group(1))
    digits = match.group(1).lstrip("0") or "0"
    if len(digits) > len(str(MAX_RELATIVE_COUNT)) or int(digits) > MAX_RELATIVE_COUNT:
        raise InvalidInput(
            field,
            f"'{text[:64]}' counts more {match.group(2)}s than the limit, {MAX_RELATIVE_COUNT} (use a larger "
            "unit, or 'since <date>')",
            {"le": MAX_RELATIVE_COUNT},
        )
    return int(digits)


def _out_of_range(field: str, text: str) -> InvalidInput:
    return InvalidInput(
        field,
        f"'{text[:64]}' is outside the supported time range "
        f"({TIMESTAMP_LIMIT['ge']} to before {TIMESTAMP_LIMIT['lt']})",
        dict(TIMESTAMP_LIMIT),
    )


def _bounded(span: TimeRange, field: str, text: str) -> TimeRange:
    """``span`` cut to [MIN_TIMESTAMP, MAX_TIMESTAMP); InvalidInput when nothing of it is inside."""
    if (span.start is not None and span.start >= MAX_TIMESTAMP) or (
        span.end is not None and span.end <= MIN_TIMESTAMP
    ):
        raise _out_of_range(field, text)
    start = max(span.start, MIN_TIMESTAMP) if span.start is not None else None
    end = min(span.end, MAX_TIMESTAMP) if span.end is not None else None
    return TimeRange(start, end)


def parse_time_range(text: str, now: datetime, field: str = "time_range") -> TimeRange:
    """Resolve a phrase against ``now`` (the query time), within the supported range (module doc).

    Raises:
        InvalidInput: the phrase is not understood (the message lists what is), or it names a time
            outside the supported range (the limit says which).
    """
    try:
        span = _parse_time_range(text, now, field)
    except (OverflowError, ValueError):  # calendar arithmetic past year 1 or 9999
        raise _out_of_range(field, text) from None
    return _bounded(span, field, text)


def _parse_time_range(text: str, now: datetime, field: str) -> TimeRange:
    phrase = " ".join(text.lower().split())
    today = local_day(now)
    week_start = today - timedelta(days=today.weekday())
    fixed = {
        "today": (_day_start(today), _day_start(today + timedelta(days=1))),
        "yesterday": (_day_start(today - timedelta(days=1)), _day_start(today)),
        "this week": (_day_start(week_start), _day_start(week_start + timedelta(weeks=1))),
        "last week": (_day_start(week_start - timedelta(weeks=1)), _day_start(week_start)),
        # the span a write's "last weekend" is stored as: the previous ISO week, which holds it (trial21 M5)
        "last weekend": (_day_start(week_start - timedelta(weeks=1)), _day_start(week_start)),
        "this month": (_day_start(_month_start(today)), _day_start(_add_months(today, 1))),
        "last month": (_day_start(_add_months(today, -1)), _day_start(_month_start(today))),
        "this year": (_day_start(date(today.year, 1, 1)), _day_start(date(today.year + 1, 1, 1))),
        "last year": (_day_start(date(today.year - 1, 1, 1)), _day_start(date(today.year, 1, 1))),
    }
    if phrase in fixed:
        return TimeRange(*fixed[phrase])
    if m := _BEFORE_LAST.match(phrase):  # as a write's words are read (``calendar_ago.before_last``)
        span = before_last(m.group(1), today)
        return TimeRange(span.start, span.end)
    if m := _ROLLING.match(phrase):
        if (count := _count(m, text, field)) == 0:  # [now, now): a window that holds no instant
            raise InvalidInput(
                field,
                f"'{text[:64]}' holds no time: the N of 'past N {m.group(2)}s' must be at least 1",
                {"ge": 1},
            )
        return TimeRange(_earlier(now, count * _UNITS[m.group(2)]), now)
    if m := _AGO.match(phrase):  # the span a write's "N units ago" is stored as (``calendar_ago``)
        span = ago(m.group(2), _count(m, text, field), today)
        return TimeRange(span.start, span.end)
    if m := _ROLLING_ANY.match(phrase) or _AGO_ANY.match(phrase):
        raise InvalidInput(
            field,
            f"'{text[:64]}': the N of 'past N days' or 'N days ago' is not read from '{m.group(1)[:32]}': "
            f"give ASCII digits (1 to {MAX_RELATIVE_COUNT}; 'past' needs at least 1) or a number word "
            f"({NUMBER_WORDS_SAID})",
            {"words": list(NUMBER_WORDS), "le": MAX_RELATIVE_COUNT},
        )
    if m := _SINCE.match(phrase):
        return TimeRange(_parse_instant(m.group(1), field)[0], None)
    if m := _RANGE.match(phrase):  # ISO dates and times contain none of the separators
        start, _ = _parse_instant(m.group(1), field)
        end_start, end_end = _parse_instant(m.group(2), field)
        end = end_end if end_end > end_start else end_start
        # reversed: said as such, not as an empty window between two instants the caller never wrote
        if end < start:
            first, last = (_RANGE.match(" ".join(text.split())) or m).groups()
            raise InvalidInput(
                field,
                f"'{text[:64]}' ends before it starts: its start ({first[:32]}, before the separator) is "
                f"after its end ({last[:32]}, after it); give the earlier time first",
            )
        return TimeRange(start, end)
    start, end = _parse_instant(phrase, field)
    return TimeRange(start, end if end > start else None)


def resolve_bound(text: str, now: datetime, field: str, *, upper: bool) -> datetime:
    """One bound (``since``/``until``) given as ISO or as a phrase: a phrase's start for a lower bound,
    its end for an upper bound."""
    span = parse_time_range(text, now, field)
    bound = span.end if upper else span.start
    if bound is None:
        bound = span.start if upper else span.end
    if bound is None:
        raise InvalidInput(field, f"'{text}' does not give a {'end' if upper else 'start'} time")
    return bound


_RECENT = re.compile(
    r"\b(latest|most recent|recent(ly)?|current(ly)?|right now|nowadays|these days|"
    r"any ?more|still|last time|lately)\b"
)
_IN_PHRASE = re.compile(
    r"\b(today|yesterday|(?:this|last|past|previous) (?:week|month|year)|"
    rf"(?:last|past|previous) \d{{1,4}} (?:{_ROLLING_UNIT})s?|"
    rf"\d{{1,4}} (?:{UNIT_ALT})s? ago)\b"
)
_MONTH_YEAR = re.compile(r"\b(" + MONTH_ALT + r")(?:,? (\d{4}))?\b")
_ISO_DAY = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


@dataclass(frozen=True)
class TimeIntent:
    """What a query says about time: a window it refers to, or a wish for what is recent."""

    kind: str  # "window" | "recent"
    start: datetime | None = None
    end: datetime | None = None


def detect_time_intent(text: str, now: datetime) -> TimeIntent | None:
    """The time a query refers to, if any: an explicit phrase ("last week", "3 days ago", "in May 2023",
    "2026-11-02") becomes a window; words such as "latest", "currently", "still" ask for recency; no cue
    gives None (then time is neutral in ranking). Never raises: a cue that names an impossible time
    ("9999 years ago") is no cue."""
    try:
        return _detect_time_intent(text, now)
    except (InvalidInput, OverflowError, ValueError):
        return None


def _detect_time_intent(text: str, now: datetime) -> TimeIntent | None:
    lowered = " ".join(text.lower().split())
    if m := _IN_PHRASE.search(lowered):
        span = parse_time_range(m.group(1), now)
        return TimeIntent("window", span.start, span.end)
    if m := _ISO_DAY.search(lowered):
        try:
            span = parse_time_range(m.group(1), now)
            return TimeIntent("window", span.start, span.end)
        except InvalidInput:
            pass
    if m := _MONTH_YEAR.search(lowered):
        month = MONTHS.index(m.group(1)) + 1
        year = int(m.group(2)) if m.group(2) else (now.year if month <= now.month else now.year - 1)
        # "may" is also a verb: a bare month name counts only with a year or after "in"/"during"/"since".
        if m.group(2) or re.search(r"\b(in|during|since|of|early|late|mid) " + m.group(1) + r"\b", lowered):
            start = date(year, month, 1)
            return TimeIntent("window", _day_start(start), _day_start(_add_months(start, 1)))
    if _RECENT.search(lowered):
        return TimeIntent("recent")
    return None
