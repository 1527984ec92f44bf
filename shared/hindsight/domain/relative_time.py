"""When something happened, from an explicit relative expression in what was written ("Yesterday I renewed
my passport", "上周二开了会"), resolved against the moment the words were written.

Deterministic rules, no model. A memory written without ``occurred_at`` gets the span (``isotime.TimeSpan``:
start and precision) of the one relative expression its text contains, measured from the *anchor*: the
write's acknowledgement time, or the session's start for a conversation turn (``session_at``: the words
were said then). Days are UTC days, weeks ISO weeks (Monday to Sunday).

==================================================  ==========  ===========================================
expression                                          precision   span
==================================================  ==========  ===========================================
today, this morning/afternoon/evening, tonight;     day         the anchor's day
今天, 今日, 今早, 今晚
yesterday, last night; 昨天, 昨日, 昨晚             day         the day before
the day before yesterday; 前天                       day         two days before
大前天                                              day         three days before
last Monday … last Sunday                           day         the latest such weekday before the anchor's
                                                                day (1 to 7 days before)
上周一 … 上周日 (上周X, 上星期X, 上礼拜X)            day         that weekday of the previous ISO week
N days ago; N天前                                   day         N days before
last week; 上周, 上星期, 上礼拜                      week        the previous ISO week
N weeks ago; N周前, N个星期前, N个礼拜前             week        the ISO week N weeks before
last month; 上个月, 上月                             month       the previous calendar month
N months ago; N个月前                               month       the calendar month N months before
last year; 去年                                     year        the previous year
N years ago; N年前; 前年 (2)                        year        the year N years before
==================================================  ==========  ===========================================

N is digits, an English number word (a/an/one … twelve) or a Chinese numeral (一 … 九十九, 两).

Never a guess: nothing is inferred when the text holds two expressions naming different times, or any
expression pointing elsewhere in time that is not resolved (tomorrow, next …, 明天, 后天, 下周, 下个月, 明年).
Not resolved at all: a weekday alone ("on Tuesday" — this week's or last?), vague phrases ("recently",
"the other day", "a few days ago", 最近, 前几天), month names ("last March"), and the *mood* of a sentence:
"if yesterday…" or reported speech ("she said yesterday…") are read like plain statements.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from pydantic import ValidationError

from hindsight.domain.isotime import TimeRefused, TimeSpan
from hindsight.domain.memory import MemoryDraft

_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WORDS_EN = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}  # fmt: skip
_DIGITS_ZH = dict(zip("零一二三四五六七八九", range(10), strict=True)) | {"两": 2}
_NUM_EN = r"(\d{1,3}|" + "|".join(_WORDS_EN) + r")"
_NUM_ZH = r"(\d{1,3}|[零一二两三四五六七八九十]{1,3})"


@dataclass(frozen=True)
class InferredTime:
    """The span a text's relative expression names, and the expression as written."""

    span: TimeSpan
    expression: str


def _day(d: date) -> TimeSpan:
    return TimeSpan(datetime.combine(d, time.min, UTC), "day")


def _week(d: date) -> TimeSpan:
    return TimeSpan(datetime.combine(d - timedelta(days=d.weekday()), time.min, UTC), "week")


def _month(d: date, back: int) -> TimeSpan:
    index = d.year * 12 + d.month - 1 - back
    return TimeSpan(datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC), "month")


def _year(d: date, back: int) -> TimeSpan:
    return TimeSpan(datetime(d.year - back, 1, 1, tzinfo=UTC), "year")


def _number(text: str) -> int:
    """Digits, an English number word or a Chinese numeral below 100 (``十二``, ``二十``, ``两``)."""
    if text.isdigit():
        return int(text)
    if text in _WORDS_EN:
        return _WORDS_EN[text]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_DIGITS_ZH[tens] if tens else 1) * 10 + (_DIGITS_ZH[ones] if ones else 0)
    if len(text) != 1:
        raise ValueError(text)
    return _DIGITS_ZH[text]


def _ago(unit: str, count: int, d: date) -> TimeSpan:
    if unit == "day":
        return _day(d - timedelta(days=count))
    if unit == "week":
        return _week(d - timedelta(weeks=count))
    if unit == "month":
        return _month(d, count)
    return _year(d, count)


def _last_weekday(name: str, d: date) -> TimeSpan:
    back = (d.weekday() - _WEEKDAYS_EN.index(name)) % 7 or 7
    return _day(d - timedelta(days=back))


def _zh_last_week(day: str, d: date) -> TimeSpan:
    monday = d - timedelta(days=d.weekday() + 7)
    return _week(monday) if not day else _day(monday + timedelta(days=_WEEKDAYS_ZH[day]))


_ZH_UNITS = {"天": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], TimeSpan]]
_RULES: tuple[Rule, ...] = (
    (re.compile(r"\bthe day before yesterday\b"), lambda m, d: _day(d - timedelta(days=2))),
    (re.compile(r"\b(?:yesterday|last night)\b"), lambda m, d: _day(d - timedelta(days=1))),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b"), lambda m, d: _day(d)),
    (re.compile(r"\blast (" + "|".join(_WEEKDAYS_EN) + r")\b"), lambda m, d: _last_weekday(m.group(1), d)),
    (re.compile(r"\blast week\b"), lambda m, d: _week(d - timedelta(weeks=1))),
    (re.compile(r"\blast month\b"), lambda m, d: _month(d, 1)),
    (re.compile(r"\blast year\b"), lambda m, d: _year(d, 1)),
    (
        re.compile(r"\b" + _NUM_EN + r" (day|week|month|year)s? ago\b"),
        lambda m, d: _ago(m.group(2), _number(m.group(1)), d),
    ),
    (re.compile(r"大前天"), lambda m, d: _day(d - timedelta(days=3))),
    (re.compile(r"前天"), lambda m, d: _day(d - timedelta(days=2))),
    (re.compile(r"昨[天日晚]"), lambda m, d: _day(d - timedelta(days=1))),
    (re.compile(r"今[天日早晚]"), lambda m, d: _day(d)),
    (re.compile(r"上(?:周|星期|礼拜)([一二三四五六日天]?)"), lambda m, d: _zh_last_week(m.group(1), d)),
    (re.compile(r"上个?月"), lambda m, d: _month(d, 1)),
    (re.compile(r"去年"), lambda m, d: _year(d, 1)),
    (re.compile(r"前年"), lambda m, d: _year(d, 2)),
    (
        re.compile(_NUM_ZH + r"\s*(?:个)?\s*(天|周|星期|礼拜|月|年)(?:之|以)?前"),
        lambda m, d: _ago(_ZH_UNITS[m.group(2)], _number(m.group(1)), d),
    ),
)
_ELSEWHERE = re.compile(
    r"\b(?:tomorrow|the day after|next (?:week|month|year|" + "|".join(_WEEKDAYS_EN) + r")|"
    r"in \w+ (?:days?|weeks?|months?|years?))\b|明天|明日|后天|下(?:个)?(?:周|星期|礼拜|月)|明年|后年"
)
"""Expressions naming another time that are not resolved: with one of them the text has two times."""


def infer_event_time(text: str, anchor: datetime) -> InferredTime | None:
    """The span of the one explicit relative expression in ``text`` (module table), measured from
    ``anchor``'s UTC day; None when there is none, when there are several naming different times, when
    the text also points elsewhere in time, or when the span would fall outside the supported range."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    if _ELSEWHERE.search(lowered):
        return None
    day = anchor.astimezone(UTC).date()
    found: list[tuple[int, int, InferredTime]] = []
    for pattern, resolve in _RULES:
        for match in pattern.finditer(lowered):
            if any(start < match.end() and match.start() < end for start, end, _ in found):
                continue  # inside a longer expression already found ("前天" in "大前天")
            try:
                span = resolve(match, day)
                TimeSpan.of(span.start, span.precision)  # inside the supported range
            except (TimeRefused, ValueError, KeyError):
                return None
            found.append((match.start(), match.end(), InferredTime(span, match.group(0))))
    spans = {inferred.span for _, _, inferred in found}
    if len(spans) != 1:
        return None
    return min(found, key=lambda f: f[0])[2]


INFERRED_KEY = "occurred_at_inferred"
"""The metadata key that says occurred_at was inferred: ``{"expression": …, "anchor": ISO instant}``."""


def with_inferred_time(draft: MemoryDraft, submitted_at: datetime) -> MemoryDraft:
    """``draft`` with occurred_at (and its precision) inferred from its content when it has none:
    anchored at its session's start if it is a conversation turn, else at ``submitted_at`` (the write's
    acknowledgement, not when a worker gets to it). The content is kept as written; metadata records
    the inference under ``INFERRED_KEY``. Unchanged when nothing is inferred, or when the metadata would
    then break its limits."""
    if draft.occurred_at is not None:
        return draft
    anchor = draft.session_at or submitted_at
    inferred = infer_event_time(draft.content, anchor)
    if inferred is None:
        return draft
    note = {"expression": inferred.expression, "anchor": anchor.astimezone(UTC).isoformat()}
    data = draft.model_dump() | {
        "occurred_at": inferred.span.start,
        "occurred_precision": inferred.span.precision,
        "metadata": {**draft.metadata, INFERRED_KEY: note},
    }
    try:
        return MemoryDraft.model_validate(data)
    except ValidationError:
        return draft
