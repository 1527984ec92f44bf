"""ISO 8601 times as callers give them — a full instant or a partial date — and the span each names.

One parser for every time field of every entry point: the MCP tools (``occurred_at``, ``valid_from``,
``valid_to``, ``as_of``, the search filters), import files, the CLI. Extended format only:

==============================  =========  ==========================================================
``2026``                        year       the whole year
``2026-11``                     month      the whole month
``2026-W47``                    week       the ISO week (Monday to Sunday)
``2026-11-24``, ``2026-W47-2``  day        the whole day
``2026-11-24T10``               hour       ``T`` or a space before the time; an offset may follow
``2026-11-24T10:30``            minute     any time: ``Z``, ``+02:00``, ``+0200``, ``-05``
``2026-11-24T10:30:15[.123]``   instant    a point in time
==============================  =========  ==========================================================

A time without an offset is UTC; a date alone is a UTC day. A partial value names the whole span
``[start, end)``: "2026" means *somewhere in* 2026, not 1 January (``TimeSpan``); an instant's span is
the instant itself. Which end a field keeps is the field's business (``StartTime``, ``EndTime``,
``AsOfTime`` below); an event keeps the span (start and precision).

Refused, with an error naming the field: numbers and numeric strings other than a 4-digit year
(``0``, ``"-5"``, ``1700000000``, ``"20261124"``) — a number is never read as Unix seconds, and the ISO
basic format is not accepted because ``202611`` could be a month or a 2-digit-year date —, impossible
dates (``2026-02-30``), and anything outside [1900-01-01, 2101-01-01) UTC (``domain.limits``) — but an
exclusive end (``EndTime``) may be 2101-01-01T00:00Z itself, the end of 2100.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator, PlainSerializer, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import MAX_TIMESTAMP, MIN_TIMESTAMP, TIMESTAMP_LIMIT

Precision = Literal["year", "month", "week", "day", "hour", "minute", "instant"]
"""How precisely a time was given, coarsest first; every precision but ``instant`` names a span."""
PRECISIONS: tuple[Precision, ...] = get_args(Precision)

ACCEPTED = "'2026-11-24T10:30:00Z', '2026-11-24T10:30+02:00', '2026-11-24', '2026-W47', '2026-11' or '2026'"
TIME_PATTERN = (
    r"^\s*\d{4}(-[Ww]\d{2}(-[1-7])?|-\d{2}(-\d{2}([Tt ]\d{2}(:\d{2}(:\d{2}([.,]\d{1,9})?)?)?"
    r"([Zz]|[+-]\d{2}(:?\d{2})?)?)?)?)?\s*$"
)
"""The accepted forms as one regular expression (valid in Python and ECMAScript, for the JSON schema).
Matching it is necessary, not sufficient: the date must exist and be in range."""

TIME_FORMAT = (
    "ISO 8601 date-time such as 2026-03-01T09:00:00Z, or a partial date such as 2026-03-01, 2026-W09, "
    "2026-03 or 2026"
)
"""The expected form, for a person: the ``limit.format`` of a time field's format error (the regex above
is for JSON schemas and tells a model nothing). Every tool's time field says the same."""
INSTANT_FORMAT = "ISO 8601 date-time such as 2026-03-01T09:00:00Z"
"""The expected form of a field that needs a full instant (``Timestamp``)."""

_ISO = re.compile(
    r"(?P<year>\d{4})"
    r"(?:-W(?P<week>\d{2})(?:-(?P<weekday>[1-7]))?"
    r"|-(?P<month>\d{2})(?:-(?P<day>\d{2})"
    r"(?:[T ](?P<hour>\d{2})(?::(?P<minute>\d{2})(?::(?P<second>\d{2})(?:[.,](?P<fraction>\d{1,9}))?)?)?"
    r"(?P<offset>Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?",
    re.IGNORECASE | re.ASCII,  # \d is 0-9 only: "２０２６-12-01" (fullwidth digits) is refused, not read
)
_FIXED_UNITS = {
    "week": timedelta(weeks=1),
    "day": timedelta(days=1),
    "hour": timedelta(hours=1),
    "minute": timedelta(minutes=1),
}
_NUMERIC = re.compile(r"[+-]?\d+(?:[.,]\d*)?(?:e[+-]?\d+)?", re.IGNORECASE | re.ASCII)


class TimeRefused(ValueError):
    """Why a value is not a time we accept: ``message`` (never echoing the value) and the ``limit``
    broken, if any (the supported range)."""

    def __init__(self, message: str, limit: dict[str, str] | None = None) -> None:
        self.message = message
        self.limit = limit
        super().__init__(message)


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _to_utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass(frozen=True)
class TimeSpan:
    """A time as given: ``start`` (UTC) and ``precision``. A partial time covers ``[start, end)``; an
    instant (precision ``instant``) is the point ``start == end``."""

    start: datetime
    precision: Precision = "instant"
    stop: datetime | None = None
    """An exclusive end no precision names (a consolidation summary covers its first member's start to its
    last member's end, ``domain.maintenance.consolidation``): then ``end`` is it, whatever ``precision``
    says. None: the precision's end."""

    @property
    def end(self) -> datetime:
        """The exclusive end of the span (the instant itself for ``instant``)."""
        if self.stop is not None:
            return self.stop
        start, unit = self.start, self.precision
        if unit == "year":
            return start.replace(year=start.year + 1)
        if unit == "month":
            following = _add_months(start.date(), 1)
            return start.replace(year=following.year, month=following.month)
        return start + _FIXED_UNITS.get(unit, timedelta(0))

    @property
    def last(self) -> datetime:
        """The last instant inside the span (one microsecond before ``end``; the instant itself)."""
        if self.precision == "instant" and self.stop is None:
            return self.start
        return self.end - timedelta(microseconds=1)

    @property
    def middle(self) -> datetime:
        """The span's midpoint: the best single guess of when something "in 2026" happened."""
        return self.start + (self.end - self.start) / 2

    @classmethod
    def of(cls, start: datetime, precision: Precision) -> TimeSpan:
        """A span from a stored (start, precision) pair. Raises TimeRefused when ``start`` is not where
        such a span starts (a month span must start on the 1st at 00:00 UTC, a week span on a Monday)."""
        if precision not in PRECISIONS:
            raise TimeRefused(f"precision must be one of {', '.join(PRECISIONS)}")
        start = _check_range(_to_utc(start))
        aligned = {
            "year": start.month == 1 and start.day == 1,
            "month": start.day == 1,
            "week": start.weekday() == 0,
        }.get(precision, True)
        midnight = start.time() == datetime.min.time()
        if precision in ("year", "month", "week", "day"):
            aligned = aligned and midnight
        elif precision in ("hour", "minute"):
            # offsets are whole quarter hours, so an hour given at +05:30 starts at :30 UTC
            aligned = start.second == 0 and start.microsecond == 0
            aligned = aligned and (precision == "minute" or start.minute % 15 == 0)
        if not aligned:
            raise TimeRefused(f"a {precision} span must start at the beginning of a {precision}")
        return cls(start, precision)


def _check_range(moment: datetime) -> datetime:
    if not MIN_TIMESTAMP <= moment < MAX_TIMESTAMP:
        raise TimeRefused(
            f"must be on or after {TIMESTAMP_LIMIT['ge']} and before {TIMESTAMP_LIMIT['lt']}",
            dict(TIMESTAMP_LIMIT),
        )
    return moment


def _offset(text: str | None) -> timezone:
    if text is None or text.upper() == "Z":
        return UTC
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:] or 0)
    if hours > 23 or minutes > 59:
        raise TimeRefused("the UTC offset is not a valid offset (at most ±23:59)")
    delta = timedelta(hours=hours, minutes=minutes)
    return timezone(-delta if text[0] == "-" else delta)


def _from_text(text: str) -> TimeSpan:
    match = _ISO.fullmatch(text.strip())
    if match is None:
        if _NUMERIC.fullmatch(text.strip()):
            raise TimeRefused(
                "a number is never read as a Unix timestamp or a compact date; write a year as 2026, a date "
                f"as 2026-11-24, a time as 2026-11-24T10:30:00Z (accepted: {ACCEPTED})"
            )
        raise TimeRefused(f"not an ISO 8601 date or time (accepted: {ACCEPTED})")
    g = match.groupdict()
    year = int(g["year"])
    if not MIN_TIMESTAMP.year <= year < MAX_TIMESTAMP.year:
        raise _check_range_error()
    try:
        if g["week"] is not None:
            monday = date.fromisocalendar(year, int(g["week"]), 1)
            if g["weekday"] is None:
                return TimeSpan(_check_range(datetime.combine(monday, datetime.min.time(), UTC)), "week")
            day = monday + timedelta(days=int(g["weekday"]) - 1)
            return TimeSpan(_check_range(datetime.combine(day, datetime.min.time(), UTC)), "day")
        if g["month"] is None:
            return TimeSpan(_check_range(datetime(year, 1, 1, tzinfo=UTC)), "year")
        if g["day"] is None:
            return TimeSpan(_check_range(datetime(year, int(g["month"]), 1, tzinfo=UTC)), "month")
        if g["hour"] is None:
            return TimeSpan(_check_range(datetime(year, int(g["month"]), int(g["day"]), tzinfo=UTC)), "day")
        fraction = (g["fraction"] or "").ljust(6, "0")[:6]
        local = datetime(
            year,
            int(g["month"]),
            int(g["day"]),
            int(g["hour"]),
            int(g["minute"] or 0),
            int(g["second"] or 0),
            int(fraction or 0),
            tzinfo=_offset(g["offset"]),
        )
    except ValueError as exc:  # 2026-02-30, hour 24, week 54, … (TimeRefused is a ValueError too)
        if isinstance(exc, TimeRefused):
            raise
        raise TimeRefused(f"not a valid date or time ({exc})") from None
    try:
        moment = local.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 pushed off the calendar by the offset
        moment = MIN_TIMESTAMP - timedelta(days=1)
    precision: Precision = "instant" if g["second"] else "minute" if g["minute"] else "hour"
    return TimeSpan(_check_range(moment), precision)


def span_of(value: object) -> TimeSpan:
    """The span a value names: an ISO 8601 string (the forms in the module doc), a ``datetime`` (an
    instant; naive is UTC), a ``TimeSpan`` or its JSON (``{"start": <instant>, "precision": …}``).
    Raises TimeRefused for anything else — numbers and booleans included — or for a time outside the
    supported range."""
    if isinstance(value, TimeSpan):
        return value
    if isinstance(value, datetime):
        try:
            return TimeSpan(_check_range(_to_utc(value)))
        except OverflowError:
            raise _check_range_error() from None
    if isinstance(value, date):
        return TimeSpan(_check_range(datetime.combine(value, datetime.min.time(), UTC)), "day")
    if isinstance(value, str):
        return _from_text(value)
    if isinstance(value, dict) and set(value) == {"start", "precision"}:  # a TimeSpan's own JSON
        start = span_of(value["start"])
        if start.precision != "instant":
            raise TimeRefused("a span's start must be a full date and time")
        return TimeSpan.of(start.start, value["precision"])
    if isinstance(value, bool | int | float):
        raise TimeRefused(
            f"must be an ISO 8601 time as a string ({ACCEPTED}); a number is never read as a Unix timestamp"
        )
    raise TimeRefused(f"must be an ISO 8601 time as a string ({ACCEPTED})")


def _check_range_error() -> TimeRefused:
    return TimeRefused(
        f"must be on or after {TIMESTAMP_LIMIT['ge']} and before {TIMESTAMP_LIMIT['lt']}",
        dict(TIMESTAMP_LIMIT),
    )


def parse_time(value: object, field: str) -> TimeSpan:
    """``span_of`` for one named field. Raises InvalidInput(field, why, limit): the range broken, or
    ``{"format": TIME_FORMAT}``."""
    try:
        return span_of(value)
    except TimeRefused as exc:
        raise InvalidInput(field, exc.message, exc.limit or {"format": TIME_FORMAT}) from None


def _validated(value: object, expected: str = TIME_FORMAT) -> TimeSpan:
    """``span_of`` as a pydantic validator: errors carry their type and limit (``api.errors`` maps them):
    the range broken, or ``format``, the ``expected`` form in words."""
    try:
        return span_of(value)
    except TimeRefused as exc:
        if exc.limit is not None:
            raise PydanticCustomError(
                "datetime_out_of_range", "must be on or after {ge} and before {lt}", exc.limit
            ) from None
        raise PydanticCustomError("time_format", exc.message, {"format": expected}) from None


def _instant(value: object) -> datetime:
    span = _validated(value, INSTANT_FORMAT)
    if span.precision != "instant":
        raise PydanticCustomError(
            "time_not_instant",
            "needs a full date and time (e.g. 2026-11-24T10:30:00Z), not a {precision}",
            {"precision": span.precision, "format": INSTANT_FORMAT},
        )
    return span.start


def _schema(description: str) -> dict[str, Any]:
    return {
        "type": "string",
        "pattern": TIME_PATTERN,
        "description": description,
        "examples": ["2026-11-24T10:30:00Z", "2026-11-24", "2026-11", "2026"],
    }


_FORMS = "ISO 8601 time or partial date"
TimeInput = Annotated[
    TimeSpan,
    PlainValidator(_validated),
    PlainSerializer(lambda s: {"start": s.start.isoformat(), "precision": s.precision}),
    WithJsonSchema(_schema(_FORMS + ".")),
]
"""Any accepted time, as the span it names — the type for a new time parameter (e.g. ``valid_at``):
take ``.start``, ``.end``, ``.last`` or keep the span, as the field means."""
StartTime = Annotated[
    datetime,
    BeforeValidator(lambda v: _validated(v).start),
    WithJsonSchema(_schema(_FORMS + "; a partial date means its start.")),
]
"""A lower bound: the start of the span (``valid_from: "2026-03"`` → 2026-03-01T00:00Z)."""


def _exclusive_end(value: object) -> datetime:
    """The end of the span ``value`` names. An exclusive end may be the range's own end: "2100" or
    "2100-12-31" ends at 2101-01-01T00:00Z, outside the range of instants but the whole of 2100 inside
    it — so that instant itself is accepted here (given as such, or read back from a stored value)."""
    if _is_range_end(value):
        return MAX_TIMESTAMP
    try:
        return span_of(value).end
    except TimeRefused as exc:
        if exc.limit is None:
            raise PydanticCustomError("time_format", exc.message, {"format": TIME_FORMAT}) from None
        # the instants' range would say "before 2101-01-01", yet an end may be that instant itself
        raise PydanticCustomError("datetime_out_of_range", END_RANGE_MESSAGE, dict(END_LIMIT)) from None


END_LIMIT = {"ge": TIMESTAMP_LIMIT["ge"], "le": TIMESTAMP_LIMIT["lt"]}
"""The range of an exclusive end: it may be the instants' own end (the end of 2100), not past it."""
END_RANGE_MESSAGE = (
    "an end must be on or after {ge} and at most {le} (the end of 2100); a partial date ends where its "
    "whole span ends, so '2100' or '2100-12-31' is the latest ('2101' would end in 2102)"
)


def _is_range_end(value: object) -> bool:
    """Whether ``value`` is the instant MAX_TIMESTAMP (a datetime, or an ISO 8601 string with a time)."""
    if isinstance(value, str):
        match = _ISO.fullmatch(value.strip())
        if match is None or match["hour"] is None:
            return False
        try:
            value = datetime.fromisoformat(value.strip().upper().replace("T", " ", 1))
        except ValueError:
            return False
    try:
        return isinstance(value, datetime) and _to_utc(value) == MAX_TIMESTAMP
    except OverflowError:  # year 1 or 9999 pushed off the calendar by its offset: refused by _validated
        return False


EndTime = Annotated[
    datetime,
    BeforeValidator(_exclusive_end),
    WithJsonSchema(_schema(_FORMS + "; a partial date includes its whole span.")),
]
"""An exclusive upper bound: the end of the span (``valid_to: "2026-03"`` → 2026-04-01T00:00Z, so the
whole of March is included), the instant itself for a full time. Unlike an instant, it may be the range's
end itself (``"2100"`` → 2101-01-01T00:00Z)."""
AsOfTime = Annotated[
    datetime,
    BeforeValidator(lambda v: _validated(v).last),
    WithJsonSchema(_schema(_FORMS + "; a partial date means its end.")),
]
"""A point of view: the last instant of the span (``as_of: "2026-11-24"`` is the end of that day, so
"yesterday" is the 23rd and everything on the 24th is in the past)."""


def _keep_offset(value: object, moment: datetime) -> datetime:
    """``moment`` (UTC, validated from ``value``) in the UTC offset ``value`` gave, when it gave one other
    than UTC (an ISO string with ``±hh:mm``, or an aware datetime): the same instant, whose ``date()`` is
    the local day of whoever wrote it. UTC otherwise."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return moment.astimezone(value.tzinfo)
    match = _ISO.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is not None and match["offset"] and match["offset"].upper() != "Z":
        return moment.astimezone(_offset(match["offset"]))
    return moment


def local_day(moment: datetime) -> date:
    """The calendar day of ``moment`` in the offset it carries (``LocalTimestamp``, ``LocalAsOfTime``);
    the UTC day for a UTC or naive one."""
    return moment.date() if moment.tzinfo is not None else moment.replace(tzinfo=UTC).date()


LocalTimestamp = Annotated[
    datetime,
    BeforeValidator(lambda v: _keep_offset(v, _instant(v))),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "description": "ISO 8601 date and time; its UTC offset, when given, is the speaker's local time.",
        }
    ),
]
"""A full instant that keeps the UTC offset it was given (``_keep_offset``): a conversation's
``session_at``, whose local day relative words ("yesterday") are counted from (``relative_time``)."""
LocalAsOfTime = Annotated[
    datetime,
    BeforeValidator(lambda v: _keep_offset(v, _validated(v).last)),
    WithJsonSchema(
        _schema(_FORMS + "; a partial date means its end; a UTC offset is the asker's local time.")
    ),
]
"""``AsOfTime`` that keeps the UTC offset a full time was given: search's ``as_of``, whose local day the
relative phrases ("yesterday", "last week") are counted from (``timeparse``)."""
Timestamp = Annotated[
    datetime,
    BeforeValidator(_instant),
    WithJsonSchema({"type": "string", "format": "date-time", "description": "ISO 8601 date and time."}),
]
"""A full instant (our own records: a job's submitted_at, working-memory times). Numbers refused."""
