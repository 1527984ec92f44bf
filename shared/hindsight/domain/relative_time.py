"""When something happened, from an explicit relative expression in what was written ("Yesterday I renewed
my passport", "上周二开了会"), resolved against the moment the words were written.

Deterministic rules, no model. A memory written without ``occurred_at`` gets the span (``isotime.TimeSpan``:
start and precision) of the one relative expression its text contains, measured from the *anchor*: the
write's acknowledgement time, or the session's start for a conversation turn (``session_at``: the words
were said then). Days are the anchor's local days when it carries a UTC offset (``isotime.LocalTimestamp``:
a ``session_at`` given as ``…T21:00:00-05:00``: the speaker's yesterday), else UTC days; weeks ISO weeks
(Monday to Sunday). The span is that calendar date's, written as UTC dates.

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
N days/weeks before (prior to, earlier than)        day         N days (weeks) before that day ("2 days
yesterday, today, the day before yesterday                      before yesterday": three days before)
last week; 上周, 上星期, 上礼拜                      week        the previous ISO week
last weekend                                        week        the previous ISO week, which holds it
                                                                whatever the day it is said (a draft has
                                                                a start and a precision: none names 2 days)
N week(s) ago <weekday> ("a week ago Sunday")       day         that weekday N weeks before the latest such
                                                                weekday before the anchor's day; not read
                                                                on that weekday itself (from today or from
                                                                last Sunday? trial21 H1)
the week/weekend before last                        week        the ISO week two weeks before
the month/year before last                          month/year  the calendar month/year two before
N weeks ago; N周前, N个星期前, N个礼拜前             week        the ISO week N weeks before
last month; 上个月, 上月                             month       the previous calendar month
N months ago; N个月前                               month       the calendar month N months before
last year; 去年                                     year        the previous year
N years ago; N年前; 前年 (2)                        year        the year N years before
N units and M units ago ("two weeks and three       the finest  each part taken off the day in turn, a
days ago", "1 year, 2 days ago"; ",", "and",        unit        month or year back keeping the day of the
", and", "plus", "&")                                           month; the finest unit's span of that day
==================================================  ==========  ===========================================

A compound is not read after "for", "over", "during", "in", "within", "spent" or "after": "I smoked
for 10 years, and 2 days ago I quit" is a while and a day, and "2 days ago" is read
(``named_dates.COMPOUND_AGO``).

N is digits, an English number word (a/an/one … thirty-one, "twenty-one", "twenty- one" or "twenty one":
``calendar_ago.NUMBER_WORDS``) or a Chinese numeral (一 … 九十九, 两). Not the last word of a count in
words beyond those ("forty one days ago" is not "one days ago": ``named_dates`` names it). "the week
before last" is not read before a word that makes "last …" a time of its own ("the week before last
Christmas"): the week before that time.

An episode without an outcome (``ahead``) also reads "tomorrow" (the day after the anchor's) and "the day
after tomorrow" (two days after), precision day, when no verb of its words is in the past tense
(``word_dates.past_tense``): "I will see the doctor tomorrow" is upcoming, not placed at the write time
(or a turn's session start) as if it had happened (trial11). Not read: "I booked the flight for tomorrow",
"I told Sam I'd call him tomorrow" (the booking and the telling are today's), a fact's ("I have an exam
tomorrow" holds from when it is said), an outcome's (how a task ended is never ahead), a while counted
from it ("two weeks from tomorrow").

When the text names no relative expression and no ISO date, a past event's year, month or day in
calendar words is read (``words``; ``word_dates``, table there): "In 2025 I ran my first marathon" (2025,
year), "Sold the Honda Civic in October" (the latest October, month), "I met Dana on December 1st" (day) —
not a keyed fact's, whose year the worker reads to place the key's value (``inferred_order``).
With ``words``, a time named in calendar words beside a relative expression or an ISO date that is
read ("I flew to Lisbon on May 3 and came back yesterday", "Flew out on 2026-05-03, back in June") is a second
time, so nothing is read and the write's note names both: which of the two is the memory's, the start
or the end of a trip, the words do not say (a weekday in the plural, or a day of the year a fact says
recurs, does not count: "Yesterday we moved standup to Mondays").

A full ISO date written in the words ("Sam had surgery on 2026-10-03") is read as that day (precision
day), by the same rule: only when it is the one time the text names (``content_date``: standalone, not
quoted, right after "on"; any ``YYYY-MM-DD`` form not read counts as a time named). A date after the
anchor's day is read only when the words point ahead (``ahead_words``: "will", "is scheduled" …; trial2
M1: "had surgery on 2027-03-01" is not stored as upcoming), and never for a fact (``fact``: a fact's
time is when it holds from, and "passport expires on 2030-01-01" holds now; trial2 H3) — nor, for a
fact, a day its words say something ends on, past or not ("the lease ends on 2026-10-03": its end, not
its start; trial 3, LOW).

Never a guess: nothing is inferred when the text holds two expressions naming different times, or any
expression pointing elsewhere in time that is not resolved (tomorrow but as above, next …, in N days, a
while counted from a day: "a month from today", "two weeks from yesterday", "a week from Monday" —
trial7 H2; 明天, 后天, 下周, 下个月, 明年), or an expression in a clause that dates something else
(``content_date.relative_dates_another_clause``; trial8 H1): "Sold the bike I bought two years ago",
"Finally replied to the email Dana sent last week", "Returned the library books that were due
yesterday", "Got the results from yesterday's blood test", "Paid the invoice from last week" — the sale,
the reply, the return are not then. Such an expression is a time named and not read (it still has its
span for copied text: "the bike I bought two years ago (2024)").
Not resolved at all: a weekday alone ("on Tuesday" — this week's or last?), a time counted from one the
table names ("the week before last Monday", "two days after last week": ``named_dates.COUNTED_FROM_LAST``;
nor is the "last Monday" inside it read alone), a relative time whose part the table reads but not the
whole (``named_dates.UNREAD_RELATIVE``, trial23 H2: "half a year ago", "a year and a half ago", "2.5 years
ago", "two weeks and a few days ago", "one and twenty days ago", "1,000 days ago", "12 hours ago", "a month
before yesterday", "two days after today", "yesterday week", "last Friday week", "Yesterday marks three
years since …"; no part of it is read alone), vague phrases ("recently",
"the other day", "a few days ago", "earlier this week", "3 weeks back", 最近, 前几天; the write's answer
names them, ``unread_time``), month names but as ``word_dates`` reads them ("last March": this year's or
the year before?), and the *mood* of a sentence: "if yesterday…" or reported speech ("she said
yesterday…") are read like plain statements.

Not matched (only a standalone phrase is a time; when in doubt, no match)
    - part of a name or identifier: joined to a letter or digit by "-", "_", "/", "." or "@"
      ("the yesterday-report job", "today.log");
    - inside quotation marks: "…", “…”, «…», 「…」, 『…』, 《…》, or a pair of single quotes (an
      apostrophe opens nothing: "yesterday's" still matches) — a title ("the song 'Yesterday'") or
      someone's words, said at a time the text does not give;
    - capitalised inside a sentence (its first letter upper case and not after a sentence's end, a
      line break or a spaced list mark): "USA Today", "the Today show", a title-case heading;
    - "last week/month/year/night/<weekday>" followed by "of" ("the last week of the sprint": the
      final one of something) or after "the", "this", "its", "his", "their", "our", "my", "your",
      "every", "each" or a possessive noun ("over the last year": a stretch up to now, not the previous
      calendar year; "our last year in Lisbon", "Bob's last week at the company"; "it's last week" is "it
      is"). "her" and "that" do not count: "I called her last week", "she said that
      last month …" are the previous week and month.
One scan (``_scan``) serves the write path's inference and the annotation of copied text, so neither
reads these as times. Expressions pointing elsewhere (tomorrow, next …) are looked for without these
exceptions: any of them still stops the inference.

Edited words (``redated``)
    A content edit (``memory_update``) of a memory whose occurred_at was inferred resolves the new
    words from the anchor the inference recorded — the edit corrects what was written then — and
    stores the span they name, or none (its session's start for a conversation turn) when they name
    no time; the record under ``INFERRED_KEY`` follows. A caller-given occurred_at is never touched by
    a content edit.

Copied text (``annotate_relative_time``)
    The content keeps the relative words: right while the memory carries its own time and anchor, wrong
    once the words are copied into text read at another time — a consolidation summary quoting members
    written on different days, an inferred pattern, a ``memory_summarize`` hint. There each expression
    the table resolves is followed by its span from the words' own anchor: "Yesterday (2026-11-04) I
    deployed"; a week is written "2026-W45", a month "2026-11", a year "2026". The note follows the
    expression when the expression ends a word; else (Chinese runs without spaces) it follows the word
    run holding the expression and names it — "我昨天部署了服务（昨天 = 2026-11-04）" — because a note
    inside a run would split the words search and ``text.information_words`` see. Expressions the table
    does not resolve stay as they are. The anchor is used only when it is certain (``words_anchor``):
    the inference recorded at the write still reproduces the stored occurred_at, or the words are a
    conversation turn (said at ``session_at``). Otherwise — a caller-given occurred_at may be the
    event's time or the words', an edited content is not the one the inference read — nothing is
    annotated.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from pydantic import JsonValue, ValidationError

from hindsight.domain.ahead_words import ahead_words
from hindsight.domain.calendar_ago import (
    BEFORE_LAST_ALT,
    NUMBER_WORD_PATTERN,
    NUMBER_WORDS,
    ago,
    before_last,
    day_back,
    day_span,
    month_span,
    week_span,
    year_span,
)
from hindsight.domain.calendar_words import MONTH_ALT, SEASON_ALT, UNIT_ALT, WEEKDAY_ALT, WEEKDAYS
from hindsight.domain.content_date import iso_date_forms, relative_dates_another_clause, stated_dates
from hindsight.domain.isotime import TimeRefused, TimeSpan, local_day
from hindsight.domain.memory import MemoryDraft, StoredMemory
from hindsight.domain.named_dates import (
    BEFORE_NAMED_DAY,
    COMPOUND_AGO,
    COMPOUND_OR_WHILE,
    COUNTED_FROM_LAST,
    DAY_OF_YEAR,
    RECURRING,
    UNREAD_RELATIVE,
    calendar_names,
)
from hindsight.domain.time_beside import names_a_second_time
from hindsight.domain.word_dates import named_span, past_tense, read_word_date

_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WORDS_EN = NUMBER_WORDS  # one table for writes and searches (``calendar_ago``)
_DIGITS_ZH = dict(zip("零一二三四五六七八九", range(10), strict=True)) | {"两": 2}
_NUM_EN = (
    r"(\d{1,3}|" + "|".join(word.replace(" ", r"\s+").replace("-", r"\s*-\s*") for word in _WORDS_EN) + r")"
)
"""N of "N units ago": digits or a number word, a compound's two words apart by any white space ("twenty
one", "twenty  one": h-lows; the table is written with one space), a hyphen's with space beside it
("twenty- one": trial23). Not the last word of a count the table
does not read (``_part_of_count``)."""
_BEFORE_COUNT = re.compile(
    r"(?:\b(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-]+|\b(?:hundred|thousand)\s+(?:and\s+)?)$"
)
"""What makes the count after it the last word of a longer one: a tens word ("forty one days ago" is not
"one days ago", nor "forty-one days ago", "forty  one days ago") or "hundred"/"thousand" ("one hundred
twenty one days ago", "a hundred and two days ago"); ``named_dates`` names such a count."""


def _part_of_count(match: re.Match[str]) -> bool:
    """Whether the count that opens ``match`` (an "N units ago" rule's N, a compound's first) ends a
    longer count in words (``_BEFORE_COUNT``). A check after the match, not a look-behind: a look-behind
    has one width, and the words may be apart by any white space (h-lows: "twenty  one days ago" was read
    as one day ago)."""
    start = match.start()
    return _BEFORE_COUNT.search(match.string, max(0, start - 32), start) is not None


_NUM_ZH = r"(\d{1,3}|[零一二两三四五六七八九十]{1,3})"


@dataclass(frozen=True)
class InferredTime:
    """The span a text's relative expression names, and the expression as written."""

    span: TimeSpan
    expression: str


def _number(text: str) -> int:
    """Digits, an English number word or a Chinese numeral below 100 (``十二``, ``二十``, ``两``)."""
    if text.isdigit():
        return int(text)
    text = re.sub(
        r"\s*-\s*", "-", " ".join(text.split())
    )  # "twenty  one", "twenty- one" as the table writes them
    if text in _WORDS_EN:
        return _WORDS_EN[text]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_DIGITS_ZH[tens] if tens else 1) * 10 + (_DIGITS_ZH[ones] if ones else 0)
    if len(text) != 1:
        raise ValueError(text)
    return _DIGITS_ZH[text]


def _not_read(match: re.Match[str], d: date) -> TimeSpan:
    """A time the table names and does not read (``named_dates.COUNTED_FROM_LAST``): raises ValueError,
    so the match is a time named with no span — nothing is inferred from the text, and the expression
    inside it ("last Monday") is not read alone."""
    raise ValueError(match.group(0))


_UNITS_FINE_FIRST = ("day", "week", "month", "year")
_PART = re.compile(r"\b" + _NUM_EN + r"\s+(" + UNIT_ALT + r")s?")


def _compound_ago(match: re.Match[str], d: date) -> TimeSpan:
    """A compound duration counted back from ``d`` (``named_dates.COMPOUND_AGO``: "two weeks and three days
    ago"): each part taken off in turn, the span of the finest unit named — "1 year and 2 days ago" is the
    day a year and two days back, "1 year and 2 weeks ago" the ISO week holding the day a year and two
    weeks back (as "2 weeks ago" is an ISO week)."""
    parts = [(part.group(2), _number(part.group(1))) for part in _PART.finditer(match.group(0))]
    for unit, count in parts:
        d = day_back(d, unit, count)
    finest = min((unit for unit, _ in parts), key=_UNITS_FINE_FIRST.index)
    return ago(finest, 0, d)


_DAYS_BACK = {"the day before yesterday": 2, "yesterday": 1, "last night": 1}


def _before_named_day(match: re.Match[str], d: date) -> TimeSpan:
    """Days or weeks before a day a word names (``named_dates.BEFORE_NAMED_DAY``: "2 days before
    yesterday" is three days before ``d``, "a week prior to today" seven), precision day."""
    day = d - timedelta(days=_DAYS_BACK.get(" ".join(match.group(3).split()), 0))
    return day_span(day_back(day, match.group(2), _number(match.group(1))))


def _last_weekday(name: str, d: date) -> TimeSpan:
    back = (d.weekday() - WEEKDAYS.index(name)) % 7 or 7
    return day_span(d - timedelta(days=back))


def _weekday_weeks_ago(name: str, weeks: int, d: date) -> TimeSpan:
    """ "``weeks`` week(s) ago <weekday>" ("a week ago Sunday"): that weekday ``weeks`` weeks before the
    latest one before ``d`` ("last Sunday"). Raises ValueError when ``d`` is that weekday: "a week ago
    Sunday" said on a Sunday may be today's week ago or last Sunday's, which is not guessed (trial21 H1)."""
    if d.weekday() == WEEKDAYS.index(name):
        raise ValueError(name)
    return day_span(_last_weekday(name, d).start.date() - timedelta(weeks=weeks))


def _zh_last_week(day: str, d: date) -> TimeSpan:
    monday = d - timedelta(days=d.weekday() + 7)
    return week_span(monday) if not day else day_span(monday + timedelta(days=_WEEKDAYS_ZH[day]))


_NOT_LAST_OF = (
    r"(?! (?:week|weekend|month|year|night|time|one|"
    + WEEKDAY_ALT
    + "|"
    + MONTH_ALT
    + "|"
    + SEASON_ALT
    + r"|"
    r"christmas|easter|thanksgiving|halloween|new year)\b)"
)
"""After "the week before last": not a word that makes "last …" a time of its own ("the week before last
Christmas", "the weekend before last summer"): then the week is before that time, not two weeks back."""
_ZH_UNITS = {"天": "day", "周": "week", "星期": "week", "礼拜": "week", "月": "month", "年": "year"}
Rule = tuple[re.Pattern[str], Callable[[re.Match[str], date], TimeSpan]]
_COMPOUND_AGO = re.compile(COMPOUND_AGO)
_BEFORE_NAMED_DAY = re.compile(BEFORE_NAMED_DAY)
_RULES: tuple[Rule, ...] = (
    # first, so that no part of them is read alone (trial23 H2: "two weeks and three days ago" was read as
    # "three days ago", "half a year ago" as "a year ago", "2 days before yesterday" as "yesterday")
    (COMPOUND_OR_WHILE, _not_read),  # before the compound is read as one time (named_dates)
    (_COMPOUND_AGO, _compound_ago),
    (_BEFORE_NAMED_DAY, _before_named_day),
    *((pattern, _not_read) for pattern, _ in UNREAD_RELATIVE),
    (re.compile(r"\bthe day before yesterday\b"), lambda m, d: day_span(d - timedelta(days=2))),
    (re.compile(r"\b(?:yesterday|last night)\b"), lambda m, d: day_span(d - timedelta(days=1))),
    (re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b"), lambda m, d: day_span(d)),
    (
        re.compile(r"\b" + _NUM_EN + r"\s+weeks?\s+ago\s+(" + WEEKDAY_ALT + r")\b"),
        lambda m, d: _weekday_weeks_ago(m.group(2), _number(m.group(1)), d),
    ),
    (COUNTED_FROM_LAST, _not_read),  # before "last Monday" is read alone (h-lows)
    (
        re.compile(r"\b(?:the )?(" + BEFORE_LAST_ALT + r") before last\b" + _NOT_LAST_OF),
        lambda m, d: before_last(m.group(1), d),
    ),
    (re.compile(r"\blast (" + WEEKDAY_ALT + r")\b"), lambda m, d: _last_weekday(m.group(1), d)),
    (re.compile(r"\blast week\b"), lambda m, d: week_span(d - timedelta(weeks=1))),
    (re.compile(r"\blast weekend\b"), lambda m, d: week_span(d - timedelta(weeks=1))),
    (re.compile(r"\blast month\b"), lambda m, d: month_span(d, 1)),
    (re.compile(r"\blast year\b"), lambda m, d: year_span(d, 1)),
    (
        re.compile(r"\b" + _NUM_EN + rf"\s+({UNIT_ALT})s?\s+ago\b"),
        lambda m, d: ago(m.group(2), _number(m.group(1)), d),
    ),
    (re.compile(r"大前天"), lambda m, d: day_span(d - timedelta(days=3))),
    (re.compile(r"前天"), lambda m, d: day_span(d - timedelta(days=2))),
    (re.compile(r"昨[天日晚]"), lambda m, d: day_span(d - timedelta(days=1))),
    (re.compile(r"今[天日早晚]"), lambda m, d: day_span(d)),
    (re.compile(r"上(?:周|星期|礼拜)([一二三四五六日天]?)"), lambda m, d: _zh_last_week(m.group(1), d)),
    (re.compile(r"上个?月"), lambda m, d: month_span(d, 1)),
    (re.compile(r"去年"), lambda m, d: year_span(d, 1)),
    (re.compile(r"前年"), lambda m, d: year_span(d, 2)),
    (
        re.compile(_NUM_ZH + r"\s*(?:个)?\s*(天|周|星期|礼拜|月|年)(?:之|以)?前"),
        lambda m, d: ago(_ZH_UNITS[m.group(2)], _number(m.group(1)), d),
    ),
)
_GATES: dict[re.Pattern[str], tuple[tuple[str, ...], ...]] = {
    COMPOUND_OR_WHILE: (("ago",),),
    _COMPOUND_AGO: (("ago",),),
    _BEFORE_NAMED_DAY: (("before", "prior", "earlier"), ("yesterday", "night", "today", "tonight", "this")),
    **dict(UNREAD_RELATIVE),
}
"""Words (lower case) a text must hold for the rule to match, one of each tuple: each of these rules' scan
of a text costs ~5-110 µs, on every write, and most texts hold none of the words."""
_COUNTS = frozenset(
    [_COMPOUND_AGO, _BEFORE_NAMED_DAY]
    + [pattern for pattern, _ in _RULES if pattern.pattern.startswith(r"\b" + _NUM_EN)]
)
"""The rules whose match opens with an English count (``_NUM_EN``): not read when the count ends a longer
one (``_part_of_count``)."""
_SCANNED = tuple((pattern, resolve, _GATES.get(pattern), pattern in _COUNTS) for pattern, resolve in _RULES)
"""``_RULES`` with each rule's gate (``_GATES``) and whether it opens with a count (``_COUNTS``), looked up
once: a pattern's hash is its source's, hashed again at each look-up (~1 µs a rule, per text)."""
_COUNTED_FROM = (
    r"(?:(?:\d{1,3}|" + NUMBER_WORD_PATTERN + r"|(?:a )?(?:few|couple(?: of)?)|several)\s+)?"
    rf"(?:{UNIT_ALT}|fortnight)s?\s+"
    r"(?:from\s+(?:today|tonight|now|tomorrow|yesterday|" + WEEKDAY_ALT + r")"
    r"|after\s+(?:today|tonight|now|tomorrow))"
)
"""A while counted from a day the table names ("a month from today", "two weeks from yesterday", "10 days
from now", "a week from Monday", "two weeks after today"; trial7 H2): a time ahead, not the day named —
"today" in "a month from today" is where the count starts."""
_ELSEWHERE = re.compile(
    r"\b(?:" + _COUNTED_FROM + r"|tomorrow|the day after|next (?:week|month|year|" + WEEKDAY_ALT + r")|"
    rf"in \w+ (?:{UNIT_ALT})s?)\b|明天|明日|后天|下(?:个)?(?:周|星期|礼拜|月)|明年|后年"
)
"""Expressions naming another time that are not resolved: with one of them the text has two times."""


def elsewhere_expressions(text: str) -> list[str]:
    """The expressions of ``text`` naming another time that the table does not resolve ("tomorrow",
    "next week", "in 3 weeks", "the day after", "明天"), lower-cased, in text order: any of them stops the
    inference (``infer_event_time``)."""
    return [m.group(0) for m in _ELSEWHERE.finditer(_lowered(unicodedata.normalize("NFKC", text)))]


_JOINERS = "-‐‑_/.@"
"""Characters that join words into one name or identifier ("yesterday-report", "today.log")."""
_QUOTED = re.compile(
    r'"[^"\n]*"|“[^”]*”|„[^“”]*[“”]|«[^»]*»|‹[^›]*›|「[^」]*」|『[^』]*』|《[^》]*》|〈[^〉]*〉'
    r"|(?<![^\W_])['‘](?=\S)[^'‘’\n]*?(?<=\S)['’](?![^\W_])"
)
"""A quoted passage: double quotes, guillemets, CJK corner and title brackets; single quotes only as a
pair that opens after a non-word character and closes before one (an apostrophe — "don't",
"yesterday's", "the boys' game" — opens nothing)."""
_SENTENCE_ENDS = ".!?…:;。！？：；"
_OPENERS = "\"'“‘«([{「『《"
_LIST_MARKS = "-–—•*>#"
_DETERMINERS = re.compile(
    r"(?:\b(?:the|this|its|his|their|our|my|your|every|each)"
    # a possessive noun ("Bob's last week", "the twins' last year"), not a contraction of "is" ("it's")
    r"|\b(?!(?:it|that|what|there|here|he|she|who|where|when|how)['\u2019]s\b)\w+['\u2019]s|\b\w+s['\u2019])\s+$"
)
"""Words that make "last …" a position in a series ("the last week", "our last year") rather than the
previous week; possessives only ("her" and "that" are also a pronoun and a conjunction: "I called her
last week", "she said that last week …")."""
_OF_AFTER = re.compile(r"\s+of\b")


def _joined(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is part of a longer name or identifier: a joiner ("-", "_", "/", ".",
    "@") between it and a letter or digit."""
    before = start >= 2 and text[start - 1] in _JOINERS and text[start - 2].isalnum()
    after = end + 1 < len(text) and text[end] in _JOINERS and text[end + 1].isalnum()
    return before or after


def _sentence_start(text: str, start: int) -> bool:
    """Whether ``start`` begins a sentence, a line or a list item: only spaces and opening quotes or
    brackets stand between it and the text's start, a line break, a sentence's end (". ", ": "), or a
    spaced list mark ("- ")."""
    at = start
    spaced = False
    while at > 0 and (text[at - 1].isspace() or text[at - 1] in _OPENERS):
        if text[at - 1] == "\n":
            return True
        spaced = spaced or text[at - 1].isspace()
        at -= 1
    return at == 0 or text[at - 1] in _SENTENCE_ENDS or (spaced and text[at - 1] in _LIST_MARKS)


def _standalone(cased: str, lowered: str, start: int, end: int, quoted: list[tuple[int, int]]) -> bool:
    """Whether the match ``[start, end)`` is a temporal phrase on its own (module docstring, "Not
    matched"): not joined into an identifier, not quoted, not capitalised inside a sentence (a name:
    "USA Today"), and a "last …" not the last one *of* something nor after a determiner ("the last
    month" is a stretch up to now or the final month of something, not the previous calendar month)."""
    if _joined(cased, start, end) or any(q < start and end < q_end for q, q_end in quoted):
        return False
    if cased[start].isupper() and not _sentence_start(cased, start):
        return False
    if not lowered.startswith("last", start):
        return True
    return not (_DETERMINERS.search(lowered, 0, start) or _OF_AFTER.match(lowered, end))


def _lowered(cased: str) -> str:
    """``cased`` lower-cased character by character, keeping its length (a character whose lower case
    is longer — "İ" — is kept as it is), so that offsets into one are offsets into the other. ASCII text
    is lower-cased whole: each of its characters has a one-character lower case that does not depend on
    its neighbours (unlike "Σ"), so the two agree (a write's content is read by three scans on the
    acknowledgement's path: the per-character loop was ~40 % of their time, bench/write_ack_trace.py)."""
    if cased.isascii():
        return cased.lower()
    return "".join(low if len(low := char.lower()) == 1 else char for char in cased)


def _scan(cased: str, day: date) -> list[tuple[int, int, str, TimeSpan | None]]:
    """Every standalone expression of the table in ``cased`` (NFKC): (start, end, expression lower-cased,
    span from ``day``, None when it falls outside the supported range), in order of position. A match
    inside a longer one already found ("前天" in "大前天") is not counted, nor one ``_standalone``
    refuses."""
    lowered = _lowered(cased)
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(cased)]
    found: list[tuple[int, int, str, TimeSpan | None]] = []
    for pattern, resolve, gate, counts in _SCANNED:
        if gate is not None and not all(any(word in lowered for word in words) for words in gate):
            continue  # it cannot match here
        for match in pattern.finditer(lowered):
            if any(start < match.end() and match.start() < end for start, end, _, _ in found):
                continue
            if counts and _part_of_count(match):
                continue
            if not _standalone(cased, lowered, match.start(), match.end(), quoted):
                continue
            span: TimeSpan | None
            try:
                span = resolve(match, day)
                TimeSpan.of(span.start, span.precision)  # inside the supported range
            except (TimeRefused, ValueError, KeyError):
                span = None
            found.append((match.start(), match.end(), match.group(0), span))
    return sorted(found, key=lambda f: f[0])


def infer_event_time(
    text: str, anchor: datetime, *, fact: bool = False, words: bool = False, ahead: bool = False
) -> InferredTime | None:
    """The span of the one explicit relative expression in ``text`` (module table), measured from
    ``anchor``'s local day (``isotime.local_day``); None when there is none, when there are several
    naming different times, when the text also points elsewhere in time, when an expression dates
    another clause (``content_date.relative_dates_another_clause``: "Returned the shoes I bought last
    month"), or when the span would fall outside the supported range. ``fact``: ``text`` is a semantic
    memory's words (an ISO date after the anchor's day is then never read; module docstring). ``words``:
    when the text names no relative expression or ISO date, a past event's year, month or day in
    calendar words is read (``word_dates``: "In 2025 I ran …", "Sold the car in October"; not for a
    keyed fact, whose year the worker reads to place the key's value). ``ahead``: the text is an
    episode's without an outcome, whose "tomorrow" or "the day after tomorrow" is read when no verb is in
    the past tense (``_tomorrow_found``: "I will see the doctor tomorrow"; a fact holds from when it is
    said, and an outcome is never in the future)."""
    cased = unicodedata.normalize("NFKC", text)
    lowered = _lowered(cased)
    today = local_day(anchor)
    tomorrow = _tomorrow_found(cased, lowered, today) if ahead else []
    for m in _ELSEWHERE.finditer(lowered):
        if not any(start <= m.start() and m.end() <= end for start, end, _, _ in tomorrow):
            return None  # "next week", "two weeks from tomorrow", "the day after the party"
    found = [
        (start, end, expression, None if relative_dates_another_clause(cased, start, end) else span)
        for start, end, expression, span in [*_scan(cased, today), *tomorrow]
    ]  # "the shoes I bought last month": a time named, not the memory's (trial8 H1)
    found += _iso_found(cased, today, fact)
    if not found and words:
        quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(cased)]
        read = read_word_date(cased, today, quoted, fact=fact)
        return None if read is None else InferredTime(read.span, read.expression)
    if any(span is None for _, _, _, span in found):
        return None  # a named time not read (outside the range, an ISO form not read as a day)
    if found and words and _calendar_name_beside(cased, found, today, fact=fact):
        return None  # "I flew to Lisbon on May 3 and came back yesterday": which is the memory's?
    spans = {span for _, _, _, span in found}
    _, _, expression, span = min(found, key=lambda f: f[0]) if len(spans) == 1 else (0, 0, "", None)
    return None if span is None else InferredTime(span, expression)


_WEEKDAYS_PLURAL = re.compile(r"(?:" + WEEKDAY_ALT + r")s$", re.IGNORECASE)
"""A weekday in the plural ("moved standup to Mondays"): days that recur, not one time."""


def _calendar_name_beside(
    cased: str, found: list[tuple[int, int, str, TimeSpan | None]], today: date, *, fact: bool
) -> bool:
    """Whether ``cased`` names a time in calendar words (``named_dates.calendar_names``) outside the
    expressions ``found``: two times, so none is read and the write's note names both, as for two
    relative expressions ("I flew to Lisbon on May 3 and came back yesterday" was placed yesterday, and
    May 3 dropped with no note). Only a name written as an event's time (``time_beside``: not "the
    October invoice", "Dana, who was born in March", "since June"), and not one that says a time read
    again ("Last year, in 2025, …": ``_says_again``). Not a weekday in the plural
    ("Yesterday we moved standup to Mondays"), nor a day of the year a fact says recurs ("As of today,
    rent is due on the 1st of every month": ``named_dates.RECURRING``, no verb in the past tense), which
    the note does not name either (``unread_time.recurring_date``)."""
    recurring = fact and RECURRING.search(cased) is not None and not past_tense(cased)
    spans = [(start, end) for start, end, _, _ in found]
    for start, words, kind in calendar_names(cased):
        if not words or (recurring and kind in DAY_OF_YEAR) or _WEEKDAYS_PLURAL.search(words):
            continue
        end = start + len(words)
        if any((s <= start and end <= e) or (start <= s and e <= end) for s, e in spans):
            continue
        if _says_again(words, found, today) or not names_a_second_time(cased, start, words, kind, spans):
            continue
        return True
    return False


def _says_again(words: str, found: list[tuple[int, int, str, TimeSpan | None]], today: date) -> bool:
    """Whether the calendar name ``words`` names a span that holds every time ``found`` ("Last year, in
    2025, I ran a marathon", "Yesterday, on December 6, …"): the same time said again, not a second."""
    span = named_span(words, today)
    return span is not None and all(
        t is not None and span.start <= t.start and t.end <= span.end for _, _, _, t in found
    )


_TOMORROW = re.compile(r"\b(?:the day after tomorrow|tomorrow)\b")


def _tomorrow_found(cased: str, lowered: str, today: date) -> list[tuple[int, int, str, TimeSpan | None]]:
    """The standalone "tomorrow" and "the day after tomorrow" of ``cased`` (``_standalone``), as ``_scan``
    finds expressions: the day after ``today`` (two days after), or a span of None — a time named and not
    read — when a verb is in the past tense ("I booked the flight for tomorrow", "I told Sam I'd call him
    tomorrow": what the episode tells happened today) or the day is outside the supported range."""
    matches = list(_TOMORROW.finditer(lowered))
    if not matches:
        return []
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(cased)]
    past = past_tense(cased)
    found: list[tuple[int, int, str, TimeSpan | None]] = []
    for m in matches:
        if not _standalone(cased, lowered, m.start(), m.end(), quoted):
            continue  # a name ("the Tomorrow app"), quoted words: still a time pointing elsewhere
        span: TimeSpan | None = None
        if not past:
            try:
                span = day_span(today + timedelta(days=1 if m.group(0) == "tomorrow" else 2))
                TimeSpan.of(span.start, "day")  # inside the supported range
            except (TimeRefused, ValueError, OverflowError):
                span = None
        found.append((m.start(), m.end(), m.group(0), span))
    return found


def _iso_found(cased: str, today: date, fact: bool) -> list[tuple[int, int, str, TimeSpan | None]]:
    """The ISO dates ``cased`` names (``content_date``), as ``_scan`` finds expressions: the day of each
    date read, and a span of None standing for every ``YYYY-MM-DD`` form that is not read (joined to a
    token, quoted, not right after "on", no such day, outside the supported range, after ``today`` in a
    fact or in words not pointing ahead) — a time named but not read, which stops the inference."""
    quoted = [(m.start(), m.end()) for m in _QUOTED.finditer(cased)]
    found: list[tuple[int, int, str, TimeSpan | None]] = []
    for stated in stated_dates(cased, quoted):
        span: TimeSpan | None = day_span(stated.day)
        if stated.day > today and (fact or not ahead_words(cased)):
            span = None  # a later day: never a fact's start, nor an event's unless the words point ahead
        if fact and stated.ends:
            span = None  # "the lease ends on …": the end of what the fact tells, not when it holds from
        try:
            TimeSpan.of(day_span(stated.day).start, "day")  # inside the supported range
        except (TimeRefused, ValueError):
            span = None
        found.append((stated.start, stated.end, cased[stated.start : stated.end], span))
    unread = iso_date_forms(cased) - len(found)
    return found + [(len(cased), len(cased), "", None)] * unread


@dataclass(frozen=True)
class RelativeMention:
    """One expression of the module table in a text: where it stands in the text as given
    (``text[start:end]``), and the span it names from the anchor."""

    start: int
    end: int
    span: TimeSpan


def _normal_form(text: str) -> tuple[str, list[int]]:
    """``text`` with each character NFKC-normalised on its own, and for each offset of
    that form that falls between two of ``text``'s characters, the offset in ``text`` (-1 inside the
    form of one character, e.g. "ﬁ" → "fi"). Character by character, unlike ``infer_event_time``'s
    whole-text form, so that every match has a place in ``text``; the two differ only where a combining
    mark composes with the letter before it. ASCII text is its own normal form, offset for offset."""
    if text.isascii():
        return text, list(range(len(text) + 1))
    pieces = [unicodedata.normalize("NFKC", char) or char for char in text]
    offsets = [0]
    for index, piece in enumerate(pieces):
        offsets += [-1] * (len(piece) - 1) + [index + 1]
    return "".join(pieces), offsets


def relative_mentions(text: str, anchor: datetime) -> list[RelativeMention]:
    """Each expression of the module table in ``text`` with the span it names from ``anchor``'s local day,
    in text order, each on its own (unlike ``infer_event_time``, which wants the one event time: a text
    naming two times still has two mentions, and one pointing elsewhere keeps its resolved ones). Left
    out: a span outside the supported range, and a match that starts or ends inside one character's
    normal form."""
    normal, offsets = _normal_form(text)
    mentions = []
    for start, end, _, span in _scan(normal, local_day(anchor)):
        if span is not None and offsets[start] >= 0 and offsets[end] >= 0:
            mentions.append(RelativeMention(offsets[start], offsets[end], span))
    return mentions


def span_label(span: TimeSpan) -> str:
    """A day, week, month or year span as ISO 8601 writes it: ``2026-11-04``, ``2026-W45`` (the ISO week),
    ``2026-11``, ``2026``; any other span as its start's date."""
    start = span.start.date()
    if span.precision == "week":
        year, week, _ = start.isocalendar()
        return f"{year}-W{week:02d}"
    if span.precision == "month":
        return f"{start.year:04d}-{start.month:02d}"
    if span.precision == "year":
        return f"{start.year:04d}"
    return start.isoformat()


_WORD_TAIL = re.compile(r"(?:['’]?[^\W_])*")
"""The rest of the word an expression ends in: letters and digits as ``text.information_words`` splits
words (CJK included), and an apostrophe's suffix ("yesterday's")."""


def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


def _word_end(text: str, at: int) -> int:
    """Where the word run that reaches ``at`` ends (``_WORD_TAIL``), combining marks (Unicode category
    M*) counted in it: a note placed between a letter and its accent would split a character ("e" +
    U+0301 is "é", one letter once in NFC), and the word may go on after the accent ("cafe\u0301s")."""
    while True:
        tail = _WORD_TAIL.match(text, at)
        end = tail.end() if tail else at
        while end < len(text) and unicodedata.category(text[end]).startswith("M"):
            end += 1
        if end == at:
            return at
        at = end


def annotate_relative_time(text: str, anchor: datetime | None) -> str:
    """``text`` with each relative expression resolved from ``anchor`` followed by its span (module
    docstring, "Copied text"): "Yesterday (2026-11-04) I deployed", "我昨天部署了服务（昨天 = 2026-11-04）".
    Every character of ``text`` is kept, in order, and no word run is split. Unchanged when ``anchor``
    is None or nothing resolves."""
    if anchor is None:
        return text
    notes: dict[int, list[tuple[RelativeMention, str]]] = {}
    for mention in relative_mentions(text, anchor):
        at = _word_end(text, mention.end)
        notes.setdefault(at, []).append((mention, span_label(mention.span)))
    if not notes:
        return text
    parts: list[str] = []
    done = 0
    for at in sorted(notes):
        here = notes[at]
        gap = text[here[0][0].end : at]
        if len(here) == 1 and (not gap or gap[0] in "'’"):  # the expression is the word ("yesterday's")
            note = here[0][1]
        else:
            note = "; ".join(f"{text[m.start : m.end]} = {label}" for m, label in here)
        wide = at > 0 and _wide(text[at - 1])
        parts.append(text[done:at] + (f"（{note}）" if wide else f" ({note})"))
        done = at
    return "".join(parts) + text[done:]


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
    fact = draft.layer == "semantic"
    keyed = fact and draft.key is not None
    inferred = infer_event_time(
        draft.content,
        anchor,
        fact=fact,
        words=not keyed,
        ahead=draft.layer == "episodic" and draft.outcome is None,
    )
    if inferred is None:
        return draft
    note = {"expression": inferred.expression, "anchor": anchor.isoformat()}
    data = draft.model_dump() | {
        "occurred_at": inferred.span.start,
        "occurred_precision": inferred.span.precision,
        "metadata": {**draft.metadata, INFERRED_KEY: note},
    }
    try:
        return MemoryDraft.model_validate(data)
    except ValidationError:
        return draft


def recorded_anchor(content: str, inferred: object, occurred_at: datetime | None) -> datetime | None:
    """The anchor recorded under ``INFERRED_KEY`` (``inferred``: that metadata value) when resolving
    ``content`` from it again gives the recorded expression and the stored ``occurred_at``: the stored
    time is then the inference's, not a caller's. None otherwise (no record, a malformed one, a content
    edited since without the time following it, a superseding copy of the metadata)."""
    if isinstance(inferred, dict) and isinstance(inferred.get("anchor"), str) and occurred_at is not None:
        try:
            anchor = datetime.fromisoformat(inferred["anchor"])
        except ValueError:
            return None
        if anchor.tzinfo is not None:
            for words, ahead in ((False, False), (True, False), (True, True)):  # as a write may read them
                again = infer_event_time(content, anchor, words=words, ahead=ahead)
                if (
                    again
                    and again.expression == inferred.get("expression")
                    and again.span.start == occurred_at
                ):
                    return anchor
    return None


def words_anchor(
    content: str, inferred: object, occurred_at: datetime | None, session_at: datetime | None
) -> datetime | None:
    """When a stored memory's words were written, as far as that is certain: the inference's anchor
    (``recorded_anchor``); else ``session_at`` (a conversation turn: its words were said then); else None
    (a caller-given occurred_at may be the event's time or the words')."""
    return recorded_anchor(content, inferred, occurred_at) or session_at


@dataclass(frozen=True)
class Redated:
    """When an edited memory happened, its stored time having been inferred from its old words: ``span``
    (None: the new words name no time, or several) and its metadata with the record of the inference
    made again (or without it)."""

    span: TimeSpan | None
    metadata: dict[str, JsonValue]


def redated(memory: StoredMemory, content: str, metadata: Mapping[str, JsonValue] | None) -> Redated | None:
    """The event time of ``memory`` once its content is ``content``, when its stored occurred_at was
    inferred from its current words (``recorded_anchor``): ``content`` resolved from the *same* anchor
    (the words are a correction of what was written then, not new words of today), so "Two weeks ago"
    replacing "Yesterday" names two weeks before that write. None when the stored time is not the
    inference's (given by a caller: a content edit never touches it) or the content is unchanged.
    ``metadata``: the metadata the edit gives (None: the stored one), to carry the new record."""
    inferred = memory.metadata.get(INFERRED_KEY)
    anchor = recorded_anchor(memory.content, inferred, memory.occurred_at)
    if anchor is None or content == memory.content:
        return None
    base = {k: v for k, v in (memory.metadata if metadata is None else metadata).items() if k != INFERRED_KEY}
    fact = memory.layer == "semantic"
    again = infer_event_time(
        content,
        anchor,
        fact=fact,
        words=not (fact and memory.key is not None),
        ahead=memory.layer == "episodic" and memory.outcome is None,
    )
    if again is None:  # as a write of these words would store it: its session's start, else no time
        return Redated(TimeSpan(memory.session_at) if memory.session_at else None, base)
    note: dict[str, JsonValue] = {
        "expression": again.expression,
        "anchor": anchor.isoformat(),
    }
    return Redated(again.span, base | {INFERRED_KEY: note})


def memory_anchor(memory: StoredMemory) -> datetime | None:
    """``words_anchor`` of a stored memory: when its words were written, when that is certain."""
    return words_anchor(
        memory.content, memory.metadata.get(INFERRED_KEY), memory.occurred_at, memory.session_at
    )
