"""What a write's answer says when its words name a time the rules did not read (new-user trial M1): "Sam
went to Rome last March", "Sam's MRI is in 2 weeks", "yesterday … and last week". Such a memory is placed
at its session's start or the write time, so time filters take it for then; the agent can give
``occurred_at`` to place it, but only if it is told.

Times looked for (a note, never a refusal; deterministic words): the expressions the relative-date rules
stop at (``relative_time.elsewhere_expressions``: tomorrow, next …, in 3 weeks, "a month from today"
— named whole, not the "today" inside it —, 明天 …); relative
expressions they would read but did not (several naming different times); ``YYYY-MM-DD`` forms not read
(a bound such as "until 2026-10-03", two dates, a date joined to a time); month names written with a
capital ("last March", "in May"); weekdays ("on Tuesday", "this Friday"); "weekend" and "fortnight";
holidays, capitalised ("last Christmas", "at Easter", "New Year's Eve"); a year after a preposition ("in
2024", "back in 2019", "since 2015", "in early 2020"; trial4 MED-1: "In 2024 I ran a marathon" was
placed today, silently); a month shortened and a day ("Dec 1", "3 Sept"), a day and month in digits ("on
1/12", "1/12/2026": which is the day is never guessed, and the note says so when either could be), an
ordinal day ("on the 3rd"; not "on the 3rd floor"), a particular season ("last summer", "in summer 2023",
"the winter of 2019"; trial6 B); vague times ("a couple of days ago", "earlier this week", "3 weeks
back", "the other day", "recently", 前几天; trial8 M1: ``_VAGUE``); and a relative expression in a clause
that dates something else, which the rules do not read ("the bike I bought two years ago"; trial8 H1:
it comes with the relative expressions). A year on a keyed fact is not said when the worker may read it
to place the key's value (``inferred_order.first_value_period``: "lived in Paris in 2019", "from 2015 to
2019"), so a note could be wrong; any other year there is ("has lived in Lisbon since 2019": the key's
value is held from the write time; trial6 C).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from hindsight.domain.calendar_ago import NUMBER_WORD_PATTERN
from hindsight.domain.calendar_words import (
    DAY_PART_ALT,
    MONTH_ABBREVIATIONS,
    MONTHS,
    SEASON_ALT,
    UNIT_ALT,
    WEEKDAY_ALT,
)
from hindsight.domain.inferred_order import first_value_period
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import elsewhere_expressions, infer_event_time, relative_mentions

_MONTHS = "|".join(
    month.capitalize() + ("(?! (?:I|we|you|he|she|they|it)\\b)" if month == "may" else "") for month in MONTHS
)
"""Month names, capitalised ("may" is a verb; "May I …" asks)."""
_NAMED = re.compile(
    r"(?:\b(?:last|this|next|in|early|late|mid-?)\s+)?\b(?:" + _MONTHS + r")\b"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d))?(?:,?\s+(?:19|20)\d{2}\b(?![-/.]\d))?"
    r"|(?i:(?:\b(?:last|this|next|on|coming)\s+)?\b(?:" + WEEKDAY_ALT + r")s?\b"
    r"|(?:\b(?:last|this|next)\s+)?\bweekend\b|\b(?:a|one|two|\d+)?\s*fortnights?(?:\s+ago)?\b)"
)
_HOLIDAYS = (
    r"Christmas(?:\s+(?:Eve|Day))?|Xmas|Easter(?:\s+(?:Sunday|Monday))?|New\s+Year(?:['’]s)?(?:\s+(?:Eve|Day))?|"
    r"(?:Chinese|Lunar)\s+New\s+Year|Thanksgiving|Halloween|Hanukkah|Passover|Ramadan|Diwali|Eid|"
    r"Valentine['’]?s\s+Day|Mother['’]?s\s+Day|Father['’]?s\s+Day|Independence\s+Day|Labou?r\s+Day"
)
"""Holidays, capitalised: a day (or days) of some year the relative rules do not place."""
_HOLIDAY = re.compile(
    r"(?:\b(?i:last|this|next|on|at|over|for|since|until|by)\s+)?\b(?:" + _HOLIDAYS + r")\b"
)
_YEAR = re.compile(
    r"(?i:\b(?:back\s+)?(?:in|during|since|until|till|from|by|before|after|around)\s+(?:(?:early|late|mid-?)\s*)?)"
    r"(?:19|20)\d{2}\b(?![-/.]\d)"
)
"""A year after a preposition ("in 2024", "back in 2019"), not the start of a date ("in 2024-05-01")."""
_SHORT_MONTHS = rf"(?:{'|'.join(MONTH_ABBREVIATIONS)})"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_SHORT_DATE = re.compile(
    rf"(?i:\b{_SHORT_MONTHS}\.?\s+{_ORDINAL}(?:,?\s+(?:19|20)\d{{2}})?(?![\d:.]\d|\w)"
    rf"|\b{_ORDINAL}\s+(?:of\s+)?{_SHORT_MONTHS}\b\.?(?:,?\s+(?:19|20)\d{{2}}\b)?)"
)
"""A month shortened, with a day next to it ("Dec 1", "Sept 3rd, 2024", "1 Dec"): "Jan" alone is a name."""
_DATE_LEAD = r"\b(?:on|by|until|till|since|from|before|after|due|as\s+of|through|to)\s+"
_DIGIT_DATE = re.compile(
    rf"(?i:{_DATE_LEAD})?(?<![\w/.-])(?P<a>\d{{1,2}})(?P<sep>[/.])(?P<b>\d{{1,2}})"
    r"(?:(?P=sep)(?P<year>\d{4}|\d{2}))?(?![\w/-]|[.,]\d)"
)
"""A day and a month in digits ("on 1/12", "1/12/2026", "1.12.2026"): a date only after a word that
introduces one or with a year ("3/4 of the team" is a fraction; "1.12" only with a year);
``_digit_date`` checks the numbers."""
_ORDINAL_DAY = re.compile(
    rf"(?i:{_DATE_LEAD}the\s+\d{{1,2}}(?:st|nd|rd|th)\b"
    r"(?!\s+(?!(?:of|at|and|or|to|through|until|till|this|next|last|in|for|when|because|but|so|then)\b)"
    r"[a-z]))"
)
"""An ordinal day of an unnamed month ("on the 3rd", "by the 21st"), not of a thing ("on the 3rd floor",
"on the 2nd try": a lower-case word after it other than "of", "at", "this", …)."""
_SEASONS = rf"(?:{SEASON_ALT})"
_SEASON = re.compile(
    rf"(?i:\b(?:(?:in|during|over|since|until|till|by)\s+)?(?:the\s+)?(?:(?:early|late|mid-?)\s*)?"
    rf"{_SEASONS}\s+(?:of\s+)?(?:19|20)\d{{2}}\b(?![-/.]\d)"
    rf"|\b(?:last|this|next|past|coming|since|until|till)\s+(?:the\s+)?{_SEASONS}\b)"
)
"""A particular season ("last summer", "in summer 2023", "the winter of 2019"), not a habit ("skis in
winter": no year, no "last"/"this"/"next")."""
_ANY_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")
_UNITS = rf"(?:(?:{UNIT_ALT}|night)s?)"
_VAGUE = re.compile(
    rf"(?i:\b(?:a\s+)?(?:few|couple(?:\s+of)?|several|some|number\s+of)\s+{_UNITS}\s+(?:ago|back|earlier)\b"
    rf"|\b(?:a|an|one|two|\d{{1,3}})\s+{_UNITS}\s+or\s+(?:two|three|so)\s+(?:ago|back)\b"
    rf"|\b(?:\d{{1,3}}|{NUMBER_WORD_PATTERN})\s+{_UNITS}\s+back\b"
    r"|\b(?:a\s+)?(?:little\s+|short\s+)?(?:while|bit|time)\s+(?:ago|back)\b|\bnot\s+(?:so\s+)?long\s+ago\b"
    rf"|\bthe\s+other\s+(?:day|week|{DAY_PART_ALT})\b|\b(?:recently|lately)\b"
    r"|\b(?:earlier|later)\s+(?:this|that)\s+(?:week|month|year|morning|afternoon|evening)\b"
    rf"|\b(?:this|the)\s+past\s+(?:(?:few|couple(?:\s+of)?|several|\d{{1,3}}|{NUMBER_WORD_PATTERN})\s+)?{_UNITS}\b)"
    r"|最近(?!的)|前几天|前些天|前阵子|不久前|几(?:天|周|个星期|个礼拜|个月|年)(?:之|以)?前"
)
"""Vague times (M1 of trial8: "A couple of days ago I sprained my ankle", "earlier this week", "3 weeks
back" were placed at the write time with no note): "a few days ago", "a week or two ago", "3 weeks back"
("back" is never read: "pushed 3 weeks back" is a delay), "a while ago", "the other day", "recently",
"earlier this week", "this past week"; 最近 (not 最近的, "the nearest"), 前几天, 几天前. The relative
rules never read them: a span would be a guess."""
MAX_NAMED = 3
"""A note quotes at most this many of the times named."""


def named_times(text: str, anchor: datetime, *, years: bool = True) -> list[str]:
    """The times ``text`` names, as written, in text order (module docstring), each once: those the rules
    could read and those they cannot. ``anchor``: what relative words count from; ``years``: whether a
    year after a preposition counts."""
    cased = unicodedata.normalize("NFKC", text)
    found: list[tuple[int, str]] = [
        (m.start, cased[m.start : m.end]) for m in relative_mentions(cased, anchor)
    ]
    lowered = cased.lower()
    for expression in elsewhere_expressions(cased):
        found.append((lowered.find(expression), cased[lowered.find(expression) :][: len(expression)]))
    found += [(m.start(), m.group(0)) for m in _ANY_DATE.finditer(cased)]
    found += [(m.start(), m.group(0).strip()) for m in _NAMED.finditer(cased)]
    found += [(m.start(), m.group(0)) for m in _HOLIDAY.finditer(cased)]
    found += [(m.start(), m.group(0)) for m in _SHORT_DATE.finditer(cased)]
    found += [(m.start(), m.group(0)) for m in _DIGIT_DATE.finditer(cased) if _digit_date(m)]
    found += [(m.start(), m.group(0)) for m in _ORDINAL_DAY.finditer(cased)]
    found += [(m.start(), m.group(0)) for m in _SEASON.finditer(cased)]
    found += [(m.start(), m.group(0)) for m in _VAGUE.finditer(cased)]
    if years:
        found += [(m.start(), m.group(0)) for m in _YEAR.finditer(cased)]
    spans = [(start, start + len(words)) for start, words in found if words]
    inside = {  # "today" in "a month from today": the longer phrase is the time named
        (start, words)
        for start, words in found
        if any(s <= start and start + len(words) <= e and e - s > len(words) for s, e in spans)
    }
    return list(
        dict.fromkeys(words for start, words in sorted(found) if words and (start, words) not in inside)
    )


def _digit_date(match: re.Match[str]) -> bool:
    """Whether a ``_DIGIT_DATE`` match is a day and a month: introduced by a date word or with a year, and
    each number a day or month one of the two ways round (``1/12`` either; ``25/12`` day first; ``0/5``,
    ``14/15`` neither)."""
    a, b = int(match.group("a")), int(match.group("b"))
    led = match.group(0)[:1].isalpha()
    if not (led or match.group("year")) or min(a, b) < 1:
        return False
    if match.group("sep") == "." and not match.group("year"):
        return False  # "on 2.5 mg", "from 9.30": a decimal or a time, not a date
    return (a <= 31 and b <= 12) or (a <= 12 and b <= 31)


def _either_way(named: list[str]) -> list[str]:
    """The day-month dates in digits among ``named`` that read as a date both ways round ("1/12": 1
    December or 12 January)."""
    out = []
    for words in named:
        m = _DIGIT_DATE.search(words)
        if m is not None and _digit_date(m):
            a, b = int(m.group("a")), int(m.group("b"))
            if a != b and a <= 12 and b <= 12:
                out.append(f"{m.group('a')}{m.group('sep')}{m.group('b')}")
    return out


def unread_time_note(draft: MemoryDraft, submitted_at: datetime) -> str | None:
    """The write answer's ``time_not_read``: when ``draft`` gives no ``occurred_at``, its words name a
    time (``named_times``) and no time was read from them (``relative_time.infer_event_time``, from its
    session's start or ``submitted_at``): which words, where the memory is placed instead, and how to
    place it. None otherwise."""
    if draft.occurred_at is not None:
        return None
    anchor = draft.session_at or submitted_at
    if infer_event_time(draft.content, anchor, fact=draft.layer == "semantic") is not None:
        return None
    keyed = draft.layer == "semantic" and draft.key is not None
    named = named_times(draft.content, anchor, years=not (keyed and first_value_period(draft) is not None))
    if not named:
        return None
    quoted = ", ".join(repr(words) for words in named[:MAX_NAMED]) + (", …" if len(named) > MAX_NAMED else "")
    where = "its session's start (session_at)" if draft.session_at is not None else "the write time"
    if keyed:
        where += " and holds its key from then"
    either = _either_way(named)
    ambiguous = (
        f"; {', '.join(repr(w) for w in either)} may be day/month or month/day, not guessed" if either else ""
    )
    return (
        f"the words name a time that was not read ({quoted}){ambiguous}: the memory is placed at {where}, so "
        "time filters take it for then; give occurred_at (ISO 8601) to place it"
    )
