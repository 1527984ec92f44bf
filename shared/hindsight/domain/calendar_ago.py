"""What "N days/weeks/months/years ago" means, in one place for the words of a write
(``relative_time``: the span its occurred_at is read as) and for a search's time phrases (``timeparse``:
the window ``time_range``/``since``/``until`` and a query's own words name), so that what a write stores
as "2 months ago" a search for "2 months ago" asked at the same moment finds (new-user trial 6).

Calendar units, counted from a day: N days ago is that day; N weeks ago the ISO week (Monday to Sunday)
N weeks before the day's; N months ago the calendar month N months before the day's; N years ago that
calendar year. The same day gives the same span on both paths."""

from __future__ import annotations

from calendar import monthrange
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

from hindsight.domain.isotime import TimeSpan

CalendarUnit = Literal["day", "week", "month", "year"]

_ONES = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
}  # fmt: skip
_TEENS = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
NUMBER_WORDS: dict[str, int] = {
    **{f"twenty{joint}{word}": 20 + n for word, n in _ONES.items() for joint in ("-", " ")},
    "thirty-one": 31, "thirty one": 31,
    "a": 1, "an": 1, **_ONES, **_TEENS, "twenty": 20, "thirty": 30,
}  # fmt: skip
"""The English number words the N of "N units ago" may be written as, on both paths: a write's "Three
months ago …" and a search's ``time_range`` "three months ago" (new-user trial 2 LOW 8): a, an, one to
thirty-one, a compound with a hyphen or a space ("twenty-one", "twenty one"; trial21 H2: "Thirteen days
ago" was placed at the write time, and "twenty one days ago" read as "one days ago"). Compounds first, so
that an alternation built from these tries "twenty one" before "twenty". Beyond thirty-one a count in words
is not read (``named_dates`` names it)."""
NUMBER_WORD_PATTERN = "|".join(NUMBER_WORDS)
"""``NUMBER_WORDS`` as a regular-expression alternation (lower case; a space in a compound is one space:
the texts matched have their runs of white space made one, or the pattern allows it)."""
NUMBER_WORDS_SAID = "a, an, one to thirty-one (twenty-one or twenty one)"
"""``NUMBER_WORDS`` as an error message or a list of what is read says it."""


def count_of(text: str) -> int:
    """The N of "N units ago": ASCII digits or a ``NUMBER_WORDS`` word (lower case). Raises KeyError for
    anything else."""
    return int(text) if text.isascii() and text.isdigit() else NUMBER_WORDS[text]


def day_span(d: date) -> TimeSpan:
    """The day ``d`` (UTC midnight to midnight)."""
    return TimeSpan(datetime.combine(d, time.min, UTC), "day")


def week_span(d: date) -> TimeSpan:
    """The ISO week holding ``d``."""
    return TimeSpan(datetime.combine(d - timedelta(days=d.weekday()), time.min, UTC), "week")


def _months_back(d: date, back: int) -> tuple[int, int]:
    """The year and month (1-12) ``back`` months before ``d``'s."""
    year, month = divmod(d.year * 12 + d.month - 1 - back, 12)
    return year, month + 1


def month_span(d: date, back: int) -> TimeSpan:
    """The calendar month ``back`` months before ``d``'s. Raises ValueError before year 1."""
    year, month = _months_back(d, back)
    return TimeSpan(datetime(year, month, 1, tzinfo=UTC), "month")


def day_back(d: date, unit: CalendarUnit | str, count: int) -> date:
    """The day ``count`` ``unit``s before ``d`` on the calendar (a month or year back keeps the day of the
    month, the month's last when it has none: 2024-03-31 less a month is 2024-02-29). Raises ValueError
    before year 1."""
    try:
        if unit in ("day", "week"):
            return d - timedelta(days=count * (7 if unit == "week" else 1))
    except OverflowError as error:
        raise ValueError(unit) from error
    year, month = _months_back(d, count * (12 if unit == "year" else 1))
    if year < 1:
        raise ValueError(unit)
    return date(year, month, min(d.day, monthrange(year, month)[1]))


def year_span(d: date, back: int) -> TimeSpan:
    """The calendar year ``back`` years before ``d``'s. Raises ValueError before year 1."""
    return TimeSpan(datetime(d.year - back, 1, 1, tzinfo=UTC), "year")


def ago(unit: CalendarUnit | str, count: int, d: date) -> TimeSpan:
    """The span "``count`` ``unit``s ago" names from the day ``d`` (module docstring). Raises ValueError
    or OverflowError when it falls off the calendar (before year 1)."""
    if unit == "day":
        return day_span(d - timedelta(days=count))
    if unit == "week":
        return week_span(d - timedelta(weeks=count))
    if unit == "month":
        return month_span(d, count)
    return year_span(d, count)


BEFORE_LAST_ALT = "weekend|week|month|year"
"""The units of "the <unit> before last" (``before_last``), as a regex alternation: "weekend" before
"week"."""


def before_last(unit: str, d: date) -> TimeSpan:
    """The span "the ``unit`` before last" names from the day ``d``: the one before "last ``unit``" — the
    ISO week two weeks before ``d``'s ("weekend": the weekend of that week, held by it, as "last weekend"
    is stored as the previous ISO week), the calendar month or year two before. Raises ValueError before
    year 1."""
    if unit in ("week", "weekend"):
        return week_span(d - timedelta(weeks=2))
    return month_span(d, 2) if unit == "month" else year_span(d, 2)
