"""A year, a month or a day written in calendar words, read as the memory's time when the words tell of a
past event (trial11 LOW): "In 2025 I ran my first marathon" (2025, precision ``year``), "Sold the Honda
Civic in October" (the latest October, ``month``), "I met Dana on December 1st" (the latest 1 December,
``day``). Such a write was placed at the write time with a ``time_not_read`` note.

A reading, not a guess: English puts a past event named by a month or a day without a year in the latest
such month or day up to when the words were said — as "last Monday" is the latest Monday before it — and
the past tense says which way to count. So only with a past-tense verb (``past_tense``: "sold", "met",
"was", "moved"; not after "is"/"am"/"are"/"get", "is booked", "I'm excited"), no word pointing ahead
(``ahead_words``: "will", "scheduled for"; ``_NOT_PAST``: "going to", "would", "'d", "might", "plan to"),
and only the unambiguous forms, a capitalised month name after its preposition:

======================================================  =========  ====================================
form                                                    precision  span
======================================================  =========  ====================================
in/during/back in 2025                                  year       that year
in/during October; in October 2025, in October of 2025  month      the latest October not after the
                                                                   anchor's day; that October
on December 1st, on December 1, on 1 December,          day        the latest 1 December not after the
on the 1st of December (", 2025": that year's)                     anchor's day; that day
======================================================  =========  ====================================

The anchor is the relative rules' (``relative_time``): the write's acknowledgement or its session's start,
its local day. Never read (the write's ``time_not_read`` names it):

- a time the text names that is not one of these forms, besides them (``named_dates.calendar_names``:
  "last March" — March of this year or the year before? —, "Dec 1", "on 1/12", "on the 3rd", a weekday, a
  season, a vague time, "since 2015"), or two of them naming different times, or another four-digit year;
- a day that does not exist (30 February), or, with its year, a month or day after the anchor's day;
- one inside quotation marks, or in a clause that dates something else ("the car I bought in October",
  ``content_date.relative_dates_another_clause``), or right after an event's noun ("bought tickets for the
  concert in October": the concert's month may be ahead; ``content_date`` ``_EVENTS``);
- a month or a day with no year in a life event's words (``_LIFE_EVENT``: "I was born on July 4th", "We
  got married on June 12th": a day of some year the words do not tell); any in words with a negation
  (``_NEGATION``: "I never sold the Civic in October": the time of what did not happen). Both only when
  the word bears on the date's clause (``_scoped``): "I moved to Denver in October, not Boulder", "Moved
  in October, two years after we got married" are read; "I didn't go to Rome and Paris in 2024", "In
  2024, I never went to Rome" are not; any in a sentence that ends by taking it back (``_UNDONE``: "We had
  planned to move in October, but never did");
- for a fact, one its words say something ends in ("the warranty expired in October": its end, not when
  the fact holds from);
- a keyed fact's: the worker reads its year ("lived in Paris in 2019") to place the key's value
  (``inferred_order``), and a value's start is not guessed from a month (the caller's ``words`` False).

A recurring date in a fact ("Bob's birthday is March 3") has no past verb and is not read, nor named
(``unread_time.recurring_date``): the fact holds from the write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime

from hindsight.domain.ahead_words import ahead_words
from hindsight.domain.calendar_ago import day_span
from hindsight.domain.calendar_words import MONTHS
from hindsight.domain.content_date import PAST_FORMS, relative_dates_another_clause
from hindsight.domain.isotime import TimeRefused, TimeSpan
from hindsight.domain.named_dates import calendar_names
from hindsight.domain.text import plain_apostrophes

_MONTH = "(?P<month>" + "|".join(month.capitalize() for month in MONTHS) + ")"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR_AFTER = r"(?:,?\s+(?:of\s+)?(?P<year>(?:19|20)\d{2}))?"
_END = r"\b(?![-/.:]\d)"
_FORMS = (
    re.compile(r"\b(?i:(?:back\s+)?(?:in|during))\s+(?P<year>(?:19|20)\d{2})" + _END),
    re.compile(r"\b(?i:in|during)\s+" + _MONTH + _YEAR_AFTER + _END + r"(?!\s+\d)"),
    re.compile(r"\b(?i:on)\s+" + _MONTH + r"\s+" + _DAY + _YEAR_AFTER + _END),
    re.compile(r"\b(?i:on)\s+(?i:the\s+)?" + _DAY + r"\s+(?i:of\s+)?" + _MONTH + _YEAR_AFTER + _END),
)
"""The forms read (module table): a year after "in"/"during"; a month after "in"/"during", a year may
follow; a day after "on", month name first or last, a year may follow."""
_MAY_HOLD = re.compile(r"(?:19|20)\d{2}|" + _MONTH)
"""What every form holds, a year or a capitalised month name: a text without one (most) is not scanned
further (the write's acknowledgement reads every content)."""

_UNREGULAR_PAST = PAST_FORMS - {"read", "set", "cut", "hit", "let", "put", "quit", "hurt", "shut"}
"""Past forms not ending in -ed (``content_date.PAST_FORMS``), without those that are also present forms
("Let's meet in October", "I read in May")."""
_NOT_VERBS = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "need bed red shed seed speed feed weed deed breed greed heed bleed hundred sacred naked wicked "
        "kindred embed"
    ).split()
)
"""Words ending in -ed that are no past verb."""
_BE = frozenset(
    ("am", "is", "are", "be", "been", "being", "get", "gets", "getting", "i'm", "we're", "you're")
)
"""A word before an -ed form that makes it a state or a plan, not a past event ("is booked", "I'm
excited", "get married")."""
_TOKEN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_NOT_PAST = re.compile(
    r"\b(?:going\s+to|gonna|would|might|could|should|hope\s+to|hoping\s+to|wants?\s+to|intends?\s+to"
    r"|plans?\s+to|planning\s+to|used\s+to)\b|\w'd\b",
    re.IGNORECASE,
)
"""Words that make the sentence a plan, a wish, a supposition or a habit ("I was going to sell it in
October", "I'd visit in May", "We used to ski in February"): what it tells may not have happened, or
happened every year."""
_EVENT_BEFORE = re.compile(
    r"\b(?:party|parties|wedding|trip|holiday|vacation|meeting|conference|concert|show|game|match|dinner"
    r"|lunch|event|visit|test|exam|appointment|interview|ceremony|funeral|festival|race|session|class"
    r"|lesson|workshop|surgery|operation|flight|talk|reunion|launch|performance|recital|graduation"
    r"|tickets?)s?\s+$",
    re.IGNORECASE,
)
"""An event's noun right before the date: the date may be the event's, ahead ("tickets for the concert in
October")."""
_ENDS_BEFORE = re.compile(
    r"\b(?:end|ends|ended|expire|expires|expired|finish|finishes|finished|terminated|lapsed|due|ran\s+out"
    r"|runs?\s+out)\s+$",
    re.IGNORECASE,
)
"""A fact's end before the date ("the warranty expired in October"): not when the fact holds from."""
_LIFE_EVENT = re.compile(
    r"\b(?:born|birth|birthday|married|marry|marrying|wed|wedded|wedding|engaged|engagement|anniversary"
    r"|died|death|passed\s+away|graduated|graduation|adopted|adoption)\b",
    re.IGNORECASE,
)
"""A life event's words ("I was born on July 4th", "We got married in June", "our anniversary"): a day
that comes back every year, whose year the words do not tell and the past tense does not bound (born
decades ago), so a month or a day without a year is not read; with its year it is ("born in May 2020")."""
_NEGATION = re.compile(r"\b(?:never|not|no\s+longer|neither|nor|cannot)\b|\w+n't\b", re.IGNORECASE)
"""A negation ("I never sold the Civic in October", "I didn't go to Rome in 2024"): the date in words is
the time of something that did not happen, not the memory's."""
_UNDONE = re.compile(
    r"\bbut\s+(?:(?:I|we|you|he|she|they|it)\s+)?(?:never(?:\s+did)?|did\s+not|didn't|could\s+not|couldn't"
    r"|was\s+not|wasn't|were\s+not|weren't|had\s+not|hadn't|would\s+not|wouldn't)\s*(?:[.!?]+\s*)?$",
    re.IGNORECASE,
)
"""A sentence that ends by taking back what it told ("We had planned to move in October, but never did",
"… in 2024, but didn't", "…, but I couldn't"): the date is the time of what did not happen."""
_SENTENCE_END = re.compile(r"[.!?;](?:\s|$)|\n")
_BREAK = re.compile(
    r"[.!?;:,](?:\s|$)|\n|\s[-–—]+\s|[–—]|\b(?:but|yet|although|though|whereas|and|or)\b", re.IGNORECASE
)
"""Where a part of a sentence ends: punctuation, a dash, a conjunction."""
_STRONG_BREAK = re.compile(r"[.!?;](?:\s|$)|\n|\b(?:but|yet|although|though|whereas)\b", re.IGNORECASE)
"""A break that a negation or a life event before it does not reach across: a sentence's end, a
semicolon, a contrast ("I never went to Rome, but in 2024 I flew to Paris"). Not a comma, "and" or
"or": "I didn't go to Rome and Paris in 2024", "I hadn't, in fact, moved in October"."""


def _own_clause(text: str, start: int, end: int) -> bool:
    """Whether the date ``text[start:end]`` stands in a part of its sentence (between two ``_BREAK``)
    that has its own verb in the past tense ("I moved to Denver in October"), rather than a phrase that
    hangs on a neighbouring part ("In 2024, I never went", "and Paris in 2024")."""
    opens = [m.end() for m in _BREAK.finditer(text, 0, start)]
    close = _BREAK.search(text, end)
    return past_tense(text[opens[-1] if opens else 0 : close.start() if close else len(text)])


def _scoped(pattern: re.Pattern[str], text: str, start: int, end: int) -> bool:
    """Whether a word of ``pattern`` (a negation, a life event) bears on the date ``text[start:end]``:
    unless the date's part is its own clause (``_own_clause``), any does; else one in that part does,
    one before it across no ``_STRONG_BREAK`` does ("I didn't go to Rome and Paris in 2024"), one after
    it across no ``_BREAK`` does ("In 2024 I never went"). One in another part does not: "I moved to
    Denver in October, not Boulder" (noted, not dated, when any "not" counted), "…in October and didn't
    like it", "I never went to Rome, but in 2024 I flew to Paris". Where a part ends is read narrowly,
    so the error left is a note too many, never a date of what did not happen."""
    found = list(pattern.finditer(text))
    if not found:
        return False
    if not _own_clause(text, start, end):
        return True
    for word in found:
        if word.end() <= start and not _STRONG_BREAK.search(text, word.end(), start):
            return True
        if word.start() >= end and not _BREAK.search(text, end, word.start()):
            return True
        if word.start() < end and start < word.end():
            return True
    return False


def _undone(text: str, end: int) -> bool:
    """Whether the sentence of a date ending at ``end`` ends by taking it back (``_UNDONE``: "…, but
    never did")."""
    close = _SENTENCE_END.search(text, end)
    sentence_end = close.end() if close else len(text)
    return _UNDONE.search(text[end:sentence_end].rstrip()) is not None


_FOUR_DIGITS = re.compile(r"(?<![\w.-])(?:19|20)\d{2}(?![\w-]|\.\w)")


def past_tense(text: str) -> bool:
    """Whether ``text`` has a verb in the past tense (module docstring): one of the past forms that are
    not also present forms, or a word ending in -ed that is no adjective after "is", "am", "get" …"""
    previous = ""
    for token in _TOKEN.findall(plain_apostrophes(text)):
        word = token.lower()
        if word in _UNREGULAR_PAST:
            return True
        if word.endswith("ed") and len(word) > 3 and word not in _NOT_VERBS and previous not in _BE:
            return True
        previous = word
    return False


@dataclass(frozen=True)
class WordDate:
    """A date in words read: where it stands (``text[start:end]``), the span it names, the words."""

    start: int
    end: int
    span: TimeSpan
    expression: str


def _span(match: re.Match[str], today: date) -> TimeSpan | None:
    """The span a form names from ``today`` (module table); None when it names no day (30 February),
    falls outside the supported range, or, with its year, starts after ``today``."""
    groups = match.groupdict()
    year = int(groups["year"]) if groups.get("year") else None
    try:
        if groups.get("month") is None:
            span = TimeSpan(datetime(year or 0, 1, 1, tzinfo=UTC), "year")  # the year form always has one
        else:
            month = MONTHS.index(groups["month"].lower()) + 1
            if groups.get("day") is None:
                first = date(year, month, 1) if year else _latest(today, month, 1)
                span = TimeSpan(datetime(first.year, month, 1, tzinfo=UTC), "month")
            else:
                day = int(groups["day"])
                span = day_span(date(year, month, day) if year else _latest(today, month, day))
        TimeSpan.of(span.start, span.precision)  # inside the supported range
    except (TimeRefused, ValueError):
        return None
    return span if span.start.date() <= today else None


def named_span(words: str, today: date) -> TimeSpan | None:
    """The span a calendar name ``words`` (``named_dates.calendar_names``: "in 2025", "in November",
    "May 3") names from ``today`` when it is one of the module table's forms, with or without its "on";
    None otherwise. For a name beside a relative expression that may say the same time again ("Last
    year, in 2025, I ran a marathon")."""
    for text in (words, "on " + words):
        for form in _FORMS:
            m = form.fullmatch(text)
            if m is not None:
                return _span(m, today)
    return None


def _latest(today: date, month: int, day: int) -> date:
    """The latest ``month``/``day`` on or before ``today``: this year's, else last year's. Raises
    ValueError when that day does not exist (29 February of a common year)."""
    this_year = date(today.year, month, day) if (month, day) <= (today.month, today.day) else None
    return this_year or date(today.year - 1, month, day)


def read_word_date(cased: str, today: date, quoted: list[tuple[int, int]], *, fact: bool) -> WordDate | None:
    """The date in words of ``cased`` (NFKC) read as the memory's time from the anchor's day ``today``
    (module docstring), the first in text order when several name the same span; None when none is read.
    ``quoted``: the ``[start, end)`` ranges of quoted passages; ``fact``: the words are a fact's (a date
    something ends in is not read)."""
    if _MAY_HOLD.search(cased) is None:
        return None
    matches = sorted((m for form in _FORMS for m in form.finditer(cased)), key=lambda m: m.start())
    if (
        not matches
        or not past_tense(cased)
        or ahead_words(cased)
        or _NOT_PAST.search(plain_apostrophes(cased))
    ):
        return None
    plain = plain_apostrophes(cased)
    read: list[WordDate] = []
    for m in matches:
        if any(w.start < m.end() and m.start() < w.end for w in read):
            return None  # two forms over the same words: not one reading
        if any(q <= m.start() and m.end() <= q_end for q, q_end in quoted):
            return None
        if relative_dates_another_clause(cased, m.start(), m.end()) or _EVENT_BEFORE.search(
            cased, 0, m.start()
        ):
            return None  # "the car I bought in October", "the concert in October"
        if fact and _ENDS_BEFORE.search(cased, 0, m.start()):
            return None  # "the warranty expired in October": its end, not its start
        if m.groupdict().get("month") and not m.group("year") and _scoped(_LIFE_EVENT, cased, *m.span()):
            return None  # "I was born on July 4th": which year?
        if _scoped(_NEGATION, plain, *m.span()) or _undone(plain, m.end()):
            return None  # "I never sold the Civic in October": the time of what did not happen
        span = _span(m, today)
        if span is None:
            return None
        read.append(WordDate(m.start(), m.end(), span, m.group(0)))
    if len({w.span for w in read}) != 1:
        return None
    covered = [(w.start, w.end) for w in read]
    for start, words, _ in calendar_names(cased):  # every time the words name is one read
        if words and not any(s <= start and start + len(words) <= e for s, e in covered):
            return None
    for m in _FOUR_DIGITS.finditer(cased):  # "In 2025 I ran in room 2024": another year, or a number
        if not any(s <= m.start() and m.end() <= e for s, e in covered):
            return None
    return read[0]
