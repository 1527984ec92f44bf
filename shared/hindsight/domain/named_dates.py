"""The times a text names in calendar words, as written, whether or not a rule reads them: month names
written with a capital ("last March", "in May", "December 1st"), weekdays ("on Tuesday"), "weekend" and
"fortnight", holidays ("last Christmas"), a year after a preposition ("in 2024"; "back in '19": which
century is not read), a month shortened and a day ("Dec 1"), a day and month in digits ("on 1/12", "on
01.12."), an ordinal day ("on the 3rd", "on Friday the 4th"), a particular season ("last summer"), a time
counted back from another ("the weekend before last", "a week ago Sunday"), vague times ("a few days
ago", "recently") and counts in words the relative rules do not read ("forty days ago"), and
``YYYY-MM-DD`` forms.

Pure patterns over the text (no imports of the relative-date rules), so that both ``unread_time`` (the
write's ``time_not_read``: which of them were not read) and ``word_dates`` (which of them may be read as
the memory's time: every one the text names must be one it reads) see the same times. ``calendar_names``
lists them with their kind (``NameKind``).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from hindsight.domain.calendar_ago import NUMBER_WORD_PATTERN
from hindsight.domain.calendar_words import (
    DAY_PART_ALT,
    MONTH_ABBREVIATIONS,
    MONTHS,
    SEASON_ALT,
    UNIT_ALT,
    WEEKDAY_ALT,
)
from hindsight.domain.regex_literals import Gates, fold, gates_of

_MONTH_NAMES = "|".join(month.capitalize() for month in MONTHS)
_MONTHS = "|".join(
    month.capitalize() + ("(?! (?:I|we|you|he|she|they|it)\\b)" if month == "may" else "") for month in MONTHS
)
"""Month names, capitalised, alone ("may" is a verb; "May I …" asks). After a word that introduces a month
("Last May we adopted a dog", "In May we moved") "May" is the month, whatever follows (trial20)."""
_NAMED = re.compile(
    r"(?:\b(?i:last|this|next|in|early|late|mid-?)\s+(?:" + _MONTH_NAMES + r")|\b(?:" + _MONTHS + r"))\b"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b(?![:.]\d))?(?:,?\s+(?:19|20)\d{2}\b(?![-/.]\d))?"
    r"|(?i:(?:\b(?:last|this|next|on|coming)\s+)?\b(?:" + WEEKDAY_ALT + r")s?\b"
    r"|(?:\b(?:last|this|next)\s+)?\bweekend\b|\b(?:a|one|two|\d+)?\s*fortnights?(?:\s+ago)?\b)"
)
_COUNTED_FROM_LAST = (
    r"\b(?:(?:the|\d{1,3}|" + NUMBER_WORD_PATTERN + r")\s+)?(?:" + UNIT_ALT + r"|weekend|fortnight|night)s?"
    r"\s+(?:before|after)\s+last\s+(?:week|weekend|month|year|night|" + WEEKDAY_ALT + r")\b"
)
COUNTED_FROM_LAST = re.compile(_COUNTED_FROM_LAST)
"""A time counted from one the relative rules name ("the week before last Monday", "two days after last
week"; lower case, as ``relative_time`` scans): not that time ("last Monday" was read, h-lows), and which
span is meant (the seven days before that Monday, or the ISO week before its week) the words do not say.
``relative_time`` reads none of it; "the week before last" alone it reads."""
_COUNT = r"(?:\d{1,3}|" + NUMBER_WORD_PATTERN.replace(" ", r"\s+").replace("-", r"\s*-\s*") + r")"
"""A count the relative rules read (``calendar_ago.NUMBER_WORDS``), a compound's words apart by any white
space or a hyphen with space beside it ("twenty- one")."""
_UNIT = rf"(?:{UNIT_ALT})s?"
_DAY_NAMED = (
    r"(?:the\s+day\s+before\s+yesterday|yesterday|today|tonight|last\s+night"
    r"|this\s+(?:morning|afternoon|evening))"
)
"""The days the relative rules name by a word (not by a count)."""
_NOT_A_WHILE = (
    r"(?<!\bfor\s)(?<!\bover\s)(?<!\bduring\s)(?<!\bin\s)(?<!\bwithin\s)(?<!\bspent\s)(?<!\bafter\s)"
)
"""Not a while something lasted: "for 10 years, and 2 days ago I quit" is ten years of something and a
day two days ago, not one time twelve years back."""
_AFTER_A_WORD = (
    r"(?<=\w\s)(?<!\band\s)(?<!\bbut\s)(?<!\bso\s)(?<!\bthen\s)(?<!\bthat\s)(?<!\bwhen\s)"
    r"(?<!\bbecause\s)(?<!\bsince\s)(?<!\buntil\s)"
)
"""After a word that does not open a clause (not "and", "but", "so", "then", "that", "when", "because",
"since", "until"): "married 3 years and …" may be a while. One space between, as writes mostly have it;
other spacing only weakens the check (the compound is read)."""
_NOT_AT_THE_END = r"(?!\s*(?:[.!?)\"'’]|$))"
"""Not the end of the sentence: what follows "ago" may be a clause of its own ("… 2 days ago, we celebrated",
"… 2 days ago the baby was born", "… 3 days ago it ended")."""
_JOIN = r"\s*(?:,\s*(?:and\s+)?|\s(?:and|plus)\s+|&\s*)"
"""What joins the parts of a compound duration: ",", "and", ", and", "plus", "&"."""
_COMPOUND = rf"{_COUNT}\s+{_UNIT}(?:{_JOIN}{_COUNT}\s+{_UNIT})+\s+ago\b"
COMPOUND_AGO = rf"\b{_NOT_A_WHILE}{_COMPOUND}"
"""A compound duration counted back ("two weeks and three days ago", "1 year and 2 days ago", "3 weeks, 2
days ago"; lower case, as ``relative_time`` scans, which reads it as the parts' sum: trial23 H2 read its
last part alone)."""
_COMPOUND_OR_WHILE = rf"\b{_NOT_A_WHILE}{_AFTER_A_WORD}{_COMPOUND}{_NOT_AT_THE_END}"
COMPOUND_OR_WHILE = re.compile(_COMPOUND_OR_WHILE)
"""A compound duration that may be a while and a time: a word before it that does not open a clause, and
more of the sentence after it ("we have been married 3 years and 2 days ago we celebrated", "the project
lasted about 2 years, and 3 days ago it ended": how long something lasted, and a time two or three days
ago, or one time years back? the words do not say; 70edbad read the latter). Read: a compound that opens
its clause ("Two weeks and three days ago I …", "… that 2 weeks and 3 days ago she …") or ends its sentence
("I visited Rome two weeks and three days ago."). Lower case; ``relative_time`` reads none of it (its rule
comes before ``COMPOUND_AGO``'s) and ``calendar_names`` names it (``UNREAD_RELATIVE``)."""
BEFORE_NAMED_DAY = (
    rf"\b({_COUNT})\s+(day|week)s?\s+(?:before|prior\s+to|earlier\s+than)\s+"
    r"(the\s+day\s+before\s+yesterday|yesterday|last\s+night|today|tonight|this\s+(?:morning|afternoon|evening))\b"
)
"""Days or weeks counted back from a day a word names ("2 days before yesterday", "a week prior to today";
lower case): ``relative_time`` reads that day (trial23 H2 read "yesterday" alone). Groups: the count, the
unit, the day."""
_UNREAD_AGO = (
    # a fraction of a unit: "half a year ago", "a year and a half ago", "one and a half years ago",
    # "2.5 years ago"
    rf"\b(?:half\s+(?:an?\s+)?{_UNIT}|(?:an?|one|\d{{1,3}})\s+(?:{UNIT_ALT})\s+and\s+a\s+half"
    rf"|{_COUNT}\s+and\s+an?\s+(?:half|quarter)\s+{_UNIT}|(?:an?\s+)?quarter\s+(?:of\s+)?an?\s+{_UNIT}"
    rf"|\d+[.,]\d+\s+{_UNIT})\s+ago\b"
    # a count joined to another that ``COMPOUND_AGO`` does not read ("two weeks and a few days ago"), and
    # a count in an older order ("one and twenty days ago")
    rf"|\b{_NOT_A_WHILE}{_COUNT}\s+(?:{_UNIT}{_JOIN}(?:(?:half|quarter|few|couple|of|several|{_COUNT})\s+){{0,3}}"
    rf"|and\s+{_COUNT}\s+){_UNIT}\s+ago\b"
    # a compound that may be a while and a time (``COMPOUND_OR_WHILE``)
    rf"|{_COMPOUND_OR_WHILE}"
    # hours and minutes
    rf"|\b(?:{_COUNT}|half\s+an|a\s+few|a\s+couple\s+of|several)\s+(?:hour|minute|hr|min)s?\s+ago\b"
    # a count no rule reads: thousands ("1,000 days ago", "1000 days ago")
    rf"|(?<![\w,.])\d{{1,3}}(?:[,.]\d{{3}})+\s+{_UNIT}\s+ago\b|\b\d{{4,}}\s+{_UNIT}\s+ago\b"
)
_UNREAD_FROM_DAY = (
    # a while counted from a day a word names, other than the days before it that are read
    r"\b(?!the\s+day\s+before\s+yesterday\b)"
    rf"(?:{_COUNT}|the|a\s+few|a\s+couple(?:\s+of)?|several)\s+(?:{UNIT_ALT}|fortnight|night|hour|minute)s?"
    rf"\s+(?:before|after|prior\s+to|earlier\s+than|later\s+than)\s+(?:{_DAY_NAMED}|{_COUNT}\s+{_UNIT}\s+ago)\b"
)
_UNREAD_WEEK = (
    # a week from a day ("yesterday week", "last Friday week": a week before it or after it?)
    # ("yesterday week two of my training started": the week is counted, the day is read)
    rf"\b(?:yesterday|today|(?:last\s+)?(?:{WEEKDAY_ALT}))\s+week\b(?!\s*(?:\d|(?:{NUMBER_WORD_PATTERN})\b))"
)
_UNREAD_SINCE = (
    # an anniversary a day marks ("Yesterday marks three years since I …"): the event is the count before it
    rf"\b{_DAY_NAMED}\s+(?:it\s+)?(?:marks|marked|makes|made|is|was|has\s+been|had\s+been|it['’]s)\s+"
    rf"(?:exactly\s+|just\s+)?(?:{_COUNT}|\d[\d,.]*)\s+{_UNIT}\s+(?:since|from)\b"
)
_DAY_WORDS = ("yesterday", "today", "tonight", "night", "morning", "afternoon", "evening")
UNREAD_RELATIVE: tuple[tuple[re.Pattern[str], tuple[tuple[str, ...], ...]], ...] = tuple(
    (re.compile(r"(?i:" + pattern + ")"), gate)
    for pattern, gate in (
        (_UNREAD_AGO, (("ago",),)),
        (_UNREAD_FROM_DAY, (("before", "after", "prior", "earlier", "later"), (*_DAY_WORDS, "ago"))),
        (_UNREAD_WEEK, (("week",),)),
        (_UNREAD_SINCE, (("since", "from"), _DAY_WORDS)),
    )
)
"""Relative times the relative rules do not read, whose parts they would (trial23 H2): a fraction ("half a
year ago" was read as "a year ago"), a count joined to another ("weeks and three days ago", a compound the
rules do not read whole; "one and twenty days ago" was "twenty days ago"), hours and minutes (no rule reads
them: named, not placed at the write time silently), a count with a thousands separator ("1,000 days ago"
was "000 days ago", today), a while counted from a day a word names ("a month before yesterday", "two days
after today"; the days and weeks *before* one are read: ``relative_time``), "yesterday week" and "last
Friday week" (a week before that day or after it, the words do not say), and the day an anniversary falls
on ("Yesterday marks three years since I visited Rome": the visit is three years before).
``relative_time`` reads none of it, nor any expression inside it. Each pattern with the words (lower
case) a text must hold for it to match, one of each tuple: each pattern's scan of a text cost ~30-110 µs
(``relative_time`` looks for them first, in every write)."""
_BEFORE_LAST = re.compile(
    r"(?i:" + _COUNTED_FROM_LAST + "|"
    r"\b(?:the\s+)?(?:weekend|week|month|year|night|day)\s+before\s+last\b"
    r"|\b(?:\d{1,3}|" + NUMBER_WORD_PATTERN + r")\s+weeks?\s+ago\s+(?:" + WEEKDAY_ALT + r")\b)"
)
"""A day or week counted back from another ("the weekend before last", "a week ago Sunday": trial21 H1/H2
named only "weekend", "Sunday"): the whole phrase is the time named (the relative rules read most)."""
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
_SHORT_YEAR = re.compile(
    r"(?i:\b(?:back\s+)?(?:in|during|since|until|till|from|by|before|after|around|of|class\s+of)\s+"
    r"(?:(?:early|late|mid-?)\s*)?(?:the\s+)?)['’]\d{2}s?(?![\w'’])"
)
"""A year of two digits after an apostrophe ("back in '19", "the summer of '08", "in the '90s"): which
century is not read (trial21 H2), the time is named."""
_SHORT_MONTHS = rf"(?:{'|'.join(MONTH_ABBREVIATIONS)})"
_ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_SHORT_DATE = re.compile(
    rf"(?i:\b{_SHORT_MONTHS}\.?\s+{_ORDINAL}(?:,?\s+(?:19|20)\d{{2}})?(?![\d:.]\d|\w)"
    rf"|\b{_ORDINAL}\s+(?:of\s+)?{_SHORT_MONTHS}\b\.?(?:,?\s+(?:19|20)\d{{2}}\b)?)"
)
"""A month shortened, with a day next to it ("Dec 1", "Sept 3rd, 2024", "1 Dec"): "Jan" alone is a name."""
_DATE_LEAD = r"\b(?:on|by|until|till|since|from|before|after|due|as\s+of|through|to)\s+"
DIGIT_DATE = re.compile(
    rf"(?i:{_DATE_LEAD})?(?<![\w/.-])(?P<a>\d{{1,2}})(?P<sep>[/.])(?P<b>\d{{1,2}})"
    r"(?:(?P=sep)(?P<year>\d{4}|\d{2}))?(?![\w/-]|[.,]\d)"
)
"""A day and a month in digits ("on 1/12", "1/12/2026", "1.12.2026"): a date only after a word that
introduces one or with a year ("3/4 of the team" is a fraction; "1.12" only with a year, or after "on"
ending a phrase: "quit on 01.12.", ``_DOTTED_ON``);
``digit_date`` checks the numbers."""
_ORDINAL_DAY = re.compile(
    rf"(?i:(?:{_DATE_LEAD}(?:(?:{WEEKDAY_ALT}),?\s+)?|\b(?:{WEEKDAY_ALT}),?\s+)the\s+\d{{1,2}}(?:st|nd|rd|th)\b"
    r"(?!\s+(?!(?:of|at|and|or|to|through|until|till|this|next|last|in|for|when|because|but|so|then"
    r"|i|we|you|he|she|they|it|us|them|my|our|his|her|their|your|its|the|a|an|there|everyone|everybody"
    r"|someone|somebody|nobody|all|both)\b)"
    r"[a-z]))"
)
"""An ordinal day of an unnamed month ("on the 3rd", "by the 21st"), not of a thing ("on the 3rd floor",
"on the 2nd try", "on the 3rd Floor": a word after it other than "of", "at", "this", …). A pronoun or a
determiner after it starts the clause ("On the 2nd I flew to Denver", trial20; "On the 26th we had
Thanksgiving dinner", trial21), a capitalised noun does not (h-review: "My office is on the 3rd Floor now"
was named); a weekday before "the" is part of the name ("on Friday the 4th")."""
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


_DOTTED_ON = re.compile(r"(?i:on)\s+\d{2}\.\d{2}")
"""A day and month with a dot and no year after "on" ("I quit on 01.12."): a date as much as "on 1/12"
(trial21 H2 placed it at the write time silently), when the clause ends or goes on after it. Two digits
each: "I'm on 3.12." is a version."""
_CLAUSE_GOES_ON = re.compile(
    r"\s*(?:$|[.,;:!?)\]])|\s+(?:I|(?i:we|you|he|she|they|it|my|our|his|her|their|and|but|at|in|when|with"
    r"|after|before|because|then|so|for|to|from))\b"
)
"""What may follow a date ending a phrase: the end, a punctuation mark, or a word that starts a clause or
a phrase (not a unit: "on 2.5 mg")."""


_UNREAD_COUNT = re.compile(
    r"(?i:\b(?:(?:a|one|two|three|four|five|six|seven|eight|nine|a\s+few|several)\s+)?"
    r"(?:(?:hundred|thousand|dozen)(?:\s+and)?(?:[\s-]+[a-z]+){0,2}"
    r"|(?:thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-]+(?:one|two|three|four|five|six|seven"
    r"|eight|nine))?)\s+" + _UNITS + r"\s+ago\b)"
)
"""A count in words the relative rules do not read ("forty days ago", "a hundred years ago"; they read a,
an, one to thirty-one, ``calendar_ago.NUMBER_WORDS``): named, never read from a part ("twenty one days
ago" was read as "one days ago", trial21 H2)."""


def digit_date(match: re.Match[str]) -> bool:
    """Whether a ``DIGIT_DATE`` match is a day and a month: introduced by a date word or with a year, and
    each number a day or month one of the two ways round (``1/12`` either; ``25/12`` day first; ``0/5``,
    ``14/15`` neither)."""
    a, b = int(match.group("a")), int(match.group("b"))
    led = match.group(0)[:1].isalpha()
    if not (led or match.group("year")) or min(a, b) < 1:
        return False
    if match.group("sep") == "." and not match.group("year") and not _DOTTED_ON.fullmatch(match.group(0)):
        return False  # "from 9.30", "at 2.5 mg": a decimal or a time, not a date
    if (
        match.group("sep") == "."
        and not match.group("year")
        and not _CLAUSE_GOES_ON.match(match.string, match.end())
    ):
        return False  # "on 2.5 mg": a measure
    return (a <= 31 and b <= 12) or (a <= 12 and b <= 31)


NameKind = Literal["iso", "named", "holiday", "short", "digits", "ordinal", "season", "vague", "year"]
"""What a calendar name is: a ``YYYY-MM-DD`` form (``iso``); a month name, a weekday, "weekend" or
"fortnight" (``named``); a holiday; a shortened month and a day (``short``); a day and month in digits
(``digits``); an ordinal day of an unnamed month (``ordinal``); a particular season; a vague time; a year
after a preposition."""
DAY_OF_YEAR: frozenset[NameKind] = frozenset(("named", "holiday", "short", "ordinal"))
"""The kinds that name a day or month of some year by its name without saying which year: what a
birthday, a due day or a weekly meeting is written with ("March 3", "on Mondays", "Christmas", "Dec 1",
"on the 1st"). Not a day and month in digits: which number is the day is not known ("on 1/12")."""


def calendar_names(cased: str) -> list[tuple[int, str, NameKind]]:
    """Each calendar name of ``cased`` (NFKC; module docstring): (where it starts, the words as written,
    its kind), in the order of the patterns (not sorted; a name may be inside another).

    A pattern is run only on a text that holds the literals one of its matches needs
    (``regex_literals``: a month or weekday name, a season, "ago" …): most texts name no season, holiday
    or year after a preposition, and each pattern's scan of every position cost ~20-90 µs of a 200-character
    write's acknowledgement (``unread_time.named_times``, issue 15)."""
    gates = _gates()
    present = gates.present(fold(cased))
    found: list[tuple[int, str, NameKind]] = []
    for index, (pattern, kind) in enumerate(_KINDS):
        if not gates.holds_in(index, present):
            continue  # it cannot match here
        for m in pattern.finditer(cased):
            if kind == "digits" and not digit_date(m):
                continue
            found.append((m.start(), m.group(0).strip() if kind == "named" else m.group(0), kind))
    return found


_KINDS: tuple[tuple[re.Pattern[str], NameKind], ...] = (
    (_ANY_DATE, "iso"),
    (_NAMED, "named"),
    (_HOLIDAY, "holiday"),
    (_SHORT_DATE, "short"),
    (DIGIT_DATE, "digits"),
    (_ORDINAL_DAY, "ordinal"),
    (_SEASON, "season"),
    (_VAGUE, "vague"),
    (_YEAR, "year"),
    (_SHORT_YEAR, "year"),
    (_BEFORE_LAST, "named"),
    (_UNREAD_COUNT, "vague"),
    *((pattern, "vague") for pattern, _ in UNREAD_RELATIVE),
)
"""The patterns of ``calendar_names``, in its order, with the kind of name each finds."""


@cache
def _gates() -> Gates:
    """The literal conditions of ``_KINDS``' patterns (``regex_literals.gates_of``), built on first use."""
    return gates_of([pattern for pattern, _ in _KINDS])


RECURRING = re.compile(
    r"\b(?:birthdays?|anniversar(?:y|ies)|name\s?days?|every|each|annual(?:ly)?|yearly|monthly|weekly"
    r"|(?:" + WEEKDAY_ALT + r")s)\b",
    re.IGNORECASE,
)
"""Words that make a day a fact names come back ("Bob's birthday is March 3", "due on the 1st of every
month", "standup is on Mondays"): a date the fact is about, not when it began (with no verb in the past
tense: ``unread_time.recurring_date``)."""
