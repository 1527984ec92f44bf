"""Full ISO calendar dates written in a memory's words ("Sam had surgery on 2026-10-03"): read as the day
the memory tells of when it is the one time its words name (``relative_time.infer_event_time``; new-user
trial M1: such a memory was placed at the write time, so time filters took it for today's).

Only an unambiguous form is read: ``YYYY-MM-DD`` (four-digit year, two-digit month and day), a real
calendar date inside the supported range, introduced as the event's day by the word "on" right before it
("Sam had surgery on 2026-10-03", "On 2026-10-03, Sam …"). A wrong date is worse than none (trial2 H4:
"firmware version 2026-10-03", "ticket ID 2026-10-03", "the 2026-10-03 release notes" are names, not
days), so a date after any other word — an identifier, version, ticket, order or ID word, an article —
is not read. ``relative_time`` further reads a date after the write's day only when the words point
ahead, and never as a fact's start (trial2 H3, M1). Never a guess, so not read:

- part of a longer token: joined to a letter, digit or one of ``-_/.:@`` ("2026-10-03T10:00Z",
  "build-2026-10-03", "backup_2026-10-03.tar", "2026-10-03/report");
- inside quotation marks (the same quotes the relative rules skip: a title or someone's words);
- followed by a lower-case word that does not carry the sentence on ("on 2026-10-03 migration",
  "on 2026-10-03 of the app": a name the date qualifies; ``_CLAUSE_GOES_ON``);
- in a fact's words, the day something ends ("the lease ends on 2026-10-03", "expired on", "is due
  on": ``StatedDate.ends``, read by ``relative_time``): a fact holds from when it began, and its end is
  not that; an episode's "ended on 2026-10-03" is still its day;
- in a clause that dates something else (``dates_another_clause``; trial7 H3): "Paid the bill that was
  due on 2026-11-30", "Renewed my passport, which expired on …", "the blood test I took on …", "the movie
  my sister recommended on …", "the photos from the party on …" — the payment, the renewal, the pick-up
  are not that day (the same shapes keep a relative expression from dating the memory:
  ``relative_dates_another_clause``, trial8 H1);
- not right after "on": a bound rather than the day itself ("lived in Lisbon until 2023-05-01" names
  when it ended; "from 2026-10-01 to 2026-10-05" names two days), a name ("version 2026-10-03");
- other forms: "2026/10/03", "03.10.2026", "10/3", month names, week dates ("2026-W40").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

ISO_DATE = re.compile(r"(?<![\w\-/.:@])(\d{4})-(\d{2})-(\d{2})(?![\w\-/:@]|\.\w)")
"""A standalone ``YYYY-MM-DD``: no letter, digit or joiner on either side (a full stop after it may end
the sentence)."""
_ON = re.compile(r"\bon\s+$", re.IGNORECASE)
"""The word that introduces a date as the day something happened ("on 2026-10-03"), right before it."""
_NEXT_WORD = re.compile(r"\s+(\w+)")
"""The word right after a date."""
_CLAUSE_GOES_ON = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "in at and with after before when while for to from because but so then or as during until till by "
        "near around via the a an"
    ).split()
)
"""Lower-case words that may follow the event's day ("on 2026-10-03 in Lisbon", "on 2026-10-03 and …").
Any other lower-case word right after the date makes it a name's modifier, not the day (trial3 MED-5:
"worked on 2026-10-03 migration", "is working on 2026-10-03 release", "version on 2026-10-03 of the app"),
so it is not read; a capital ("On 2026-10-03 Sam moved") or punctuation after it is the day."""


_ENDS_ON = re.compile(
    r"\b(?:end|ends|ended|ending|expire|expires|expired|expiring|finish|finishes|finished|terminate"
    r"|terminates|terminated|lapse|lapses|lapsed|due|deadline(?:\s+is)?|runs?\s+out|ran\s+out)\s+on\s+$",
    re.IGNORECASE,
)
"""Words before "on" that make the date the day something ends ("the lease ends on 2026-10-03", "the
passport expired on …", "the invoice is due on …"): for a fact, the end of what it tells, not when it
holds from (trial 3, LOW: a past end date became the fact's valid_from)."""


_CLAUSE_BREAK = re.compile(r"[.!?;\n](?:\s|$)|[。！？；]")
"""Where a sentence ends: a relative clause never reaches past it."""
_RELATIVE = re.compile(
    r"\b(?:which|who|whom|whose)\b"
    r"|\bthat\s+(?:was|were|is|are|had|has|have|I|we|you|he|she|they|it|my|our|his|her|their|your|\w+ed)\b",
    re.IGNORECASE,
)
"""A relative (or reported) clause opening: "the bill that was due on …", "my passport, which expired on
…", "Sam, who I met on …", "the report that my boss asked for yesterday"; "that" only before a verb, a
subject or a possessive ("that bill" is a determiner)."""
_DETERMINER = r"(?:the|a|an|my|our|his|her|their|your|this|that|these|those)"
_FUNCTION_WORDS = (
    r"(?:to|with|for|from|at|in|on|of|by|about|into|and|or|but|so|then|because|than|as|that|which|who|"
    r"I|we|you|he|she|they|it)"
)
_NOUN_WORD = rf"(?!{_FUNCTION_WORDS}\b)[\w'’-]+\s+"
"""A word of a noun phrase ("dentist appointment"): not a preposition, conjunction or pronoun ("the keys
to Dana", "my sister and I" are no noun followed by a clause's subject)."""
_SUBJECT = (
    r"(?:(?:I|we|you|he|she|they)(?:['’](?:d|ve))?"
    r"|(?:my|our|his|her|their|your|the)\s+(?!" + _FUNCTION_WORDS + r"\b)[\w'’-]+"
    r"|(?-i:[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?))"
)
"""The subject of a clause without its pronoun: a pronoun ("the bike I bought"), a possessive or "the"
and a noun ("the movie my sister recommended"), a capitalised name ("the email Dana sent")."""
PAST_FORMS = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "was were had did made got bought sent took gave saw met paid sold told left lost found won wrote "
        "ate drank drove flew fell broke chose came went brought built began kept held put ran rode said "
        "sat slept spent stood swam taught thought wore woke grew forgot heard caught felt read set cut "
        "hit let shut quit hurt lent lit dug hung stole threw tore shot fed fled bit hid sang rang sank "
        "spoke sought fought dealt meant led knew understood"
    ).split()
)
"""Past forms that do not end in -ed: with a regular "-ed" form, the verb that opens a clause without its
pronoun ("the shoes I bought last month"); a present form ("the store we like") leaves the time to the
sentence's own verb ("Went to the store we like yesterday")."""
_PAST_VERB = r"(?-i:(?:[a-z][\w'’-]*ed|" + "|".join(sorted(PAST_FORMS)) + r"))\s+"
_PARTICLE = r"(?-i:(?!(?:and|or|but|so|then|because)\b)[a-z][\w'’-]*)\s+"
_LEADS_A_CLAUSE = frozenset(
    (  # noqa: SIM905 - a word list reads best as one string
        "after before when whenever once since until till while as because if then and but so or though "
        "although"
    ).split()
)
"""Words before a noun phrase that make the pronoun after it the sentence's own subject ("After the party
we left on …")."""
_EVENTS = (
    r"(?:party|parties|wedding|trip|holiday|vacation|meeting|conference|concert|show|game|match|dinner|lunch|"
    r"breakfast|event|visit|test|exam|appointment|interview|ceremony|funeral|festival|race|session|class|"
    r"lesson|workshop|surgery|operation|flight|talk|birthday|reunion|launch|performance|recital|graduation)"
)


@dataclass(frozen=True)
class _ClauseShapes:
    """The clause shapes that date something else, each ending where the time begins (``lead``: the
    words between, "on " for an ISO date, none for a relative expression)."""

    reduced: re.Pattern[str]
    event_of: re.Pattern[str]


def _shapes(lead: str) -> _ClauseShapes:
    return _ClauseShapes(
        reduced=re.compile(
            rf"\b(?P<det>{_DETERMINER})\s+(?:{_NOUN_WORD}){{1,3}}?{_SUBJECT}\s+{_PAST_VERB}(?:{_PARTICLE}){{0,2}}?"
            rf"{lead}$",
            re.IGNORECASE,
        ),
        event_of=re.compile(
            rf"\b(?:from|of)\s+{_DETERMINER}\s+(?:[\w'’-]+\s+){{0,2}}?{_EVENTS}\s+{lead}$", re.IGNORECASE
        ),
    )


_ON_SHAPES = _shapes(r"on\s+")
"""Before an ISO date: "the blood test I took on …", "the photos from the party on …"."""
_BARE_SHAPES = _shapes("")
"""Before a relative expression: "the bike I bought two years ago", "the photos from the party last
week"."""
_FROM_BEFORE = re.compile(r"\S\s+from\s+$", re.IGNORECASE)
""""from" between a noun and the time: "the invoice from last week" (the invoice's week, not the
payment's)."""
_POSSESSIVE_AFTER = re.compile(r"['’]s\s+\w")
"""The time as a possessive modifier: "yesterday's blood test"."""


REACH = 300
"""How far before a time (characters) its clause is looked at: a clause that dates something else opens
within a few words of it, and a bound keeps a long text with many times linear, not quadratic."""


def _clause_start(text: str, at: int) -> tuple[int, bool]:
    """Where the sentence holding ``text[at]`` starts, looked for at most ``REACH`` characters back, and
    whether it starts there (False: the sentence is longer; ``at - REACH`` is returned)."""
    reach = max(0, at - REACH)
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, reach, at)]
    return (breaks[-1], True) if breaks else (reach, reach == 0)


def dates_another_clause(text: str, on: int, *, shapes: _ClauseShapes = _ON_SHAPES) -> bool:
    """Whether the date after ``text[:on]`` (which ends with "on ") sits in a clause that dates something
    other than what the sentence tells (trial7 H3: "Paid the electricity bill that was due on
    2026-11-30" was placed on the 30th; the payment is today's): a relative clause ("that was due on",
    ", which expired on", "who …"; one closed by a comma before the date does not count: "Sam, who is my
    brother, had surgery on …"), a relative clause without its pronoun, its verb in the past ("the blood
    test I took on", "the movie my sister recommended on", "the email Dana sent on"; not when the noun
    phrase opens the sentence or follows "after", "when", "and" …), or an event a thing comes from ("the
    photos from the party on"). "Paid the bill on 2026-11-30" is not. ``shapes``: the clause shapes
    ending where the time begins (``relative_dates_another_clause``: no "on")."""
    start, whole = _clause_start(text, on)
    for relative in _RELATIVE.finditer(text, start, on):
        closed = text[start : relative.start()].rstrip().endswith(",") and "," in text[relative.end() : on]
        if not closed:
            return True
    if shapes.event_of.search(text, start, on):
        return True
    reduced = shapes.reduced.search(text, start, on)
    if reduced is None:
        return False
    before = text[start : reduced.start()].split() or ([] if whole else ["…"])
    return bool(before) and not before[-1].endswith(",") and before[-1].lower() not in _LEADS_A_CLAUSE


def relative_dates_another_clause(text: str, start: int, end: int) -> bool:
    """Whether the relative expression ``text[start:end]`` ("last month", "yesterday") dates something
    other than what the sentence tells (trial8 H1: "Returned the shoes I bought last month" was placed in
    November; the return is today's): the clauses of ``dates_another_clause`` ("the books that were due
    yesterday", "the bike I bought two years ago", "the email Dana sent last week", "the photos from the
    party last week"), a thing "from" that time ("the invoice from last week"), or the time as the
    possessive of a noun that does not open the sentence ("Got the results from yesterday's blood test";
    "Yesterday's storm knocked the power out" is the storm's day)."""
    if dates_another_clause(text, start, shapes=_BARE_SHAPES) or _FROM_BEFORE.search(
        text, max(0, start - REACH), start
    ):
        return True
    clause, whole = _clause_start(text, start)
    opens = whole and not text[clause:start].strip()
    return not opens and _POSSESSIVE_AFTER.match(text, end) is not None


@dataclass(frozen=True)
class StatedDate:
    """A date written in a text: where (``text[start:end]``, the date as written), which day, and whether
    the words make it the day something ends (``ends``: ``_ENDS_ON``)."""

    start: int
    end: int
    day: date
    ends: bool = False


def stated_dates(text: str, quoted: list[tuple[int, int]]) -> list[StatedDate]:
    """Every ISO date of ``text`` read as a day (module docstring), in text order; ``quoted``: the
    ``[start, end)`` ranges of quoted passages (dates inside them are not read)."""
    found = []
    for match in ISO_DATE.finditer(text):
        if any(q <= match.start() and match.end() <= q_end for q, q_end in quoted):
            continue
        if not _ON.search(text, 0, match.start()):
            continue  # not introduced as the day: a bound, a name, a version, an ID
        if dates_another_clause(text, match.start()):
            continue  # "the bill that was due on …": the day of something else (trial7 H3)
        after = _NEXT_WORD.match(text, match.end())
        if after and after.group(1)[0].islower() and after.group(1) not in _CLAUSE_GOES_ON:
            continue  # "on 2026-10-03 release": a name the date qualifies
        try:
            day = date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:  # 2026-02-30: no such day, nothing is read
            continue
        ends = _ENDS_ON.search(text, 0, match.start()) is not None
        found.append(StatedDate(match.start(), match.end(), day, ends))
    return found


_ANY_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def iso_date_forms(text: str) -> int:
    """How many ``YYYY-MM-DD`` forms ``text`` holds, standalone or not, read or not: each is a time the
    words name (a date read is used only when every one of them is read and they name one day)."""
    return len(_ANY_DATE.findall(text))
