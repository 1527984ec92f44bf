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
  due on 2026-11-30", "Renewed my passport, which expired on …", "the blood test I took on …", "the photos
  from the party on …" — the payment, the renewal, the pick-up are not that day;
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
    r"|\bthat\s+(?:was|were|is|are|had|has|have|I|we|you|he|she|they|it|\w+ed)\b",
    re.IGNORECASE,
)
"""A relative (or reported) clause opening: "the bill that was due on …", "my passport, which expired on
…", "Sam, who I met on …"; "that" only before a verb or a subject ("that bill" is a determiner)."""
_DETERMINER = r"(?:the|a|an|my|our|his|her|their|your|this|that|these|those)"
_PRONOUN_CLAUSE = re.compile(
    rf"\b(?P<det>{_DETERMINER})\s+(?:[\w'’-]+\s+){{1,3}}?(?:I|we|you|he|she|they)\s+(?:\w+\s+){{1,2}}?on\s+$",
    re.IGNORECASE,
)
"""A relative clause without its pronoun: "the blood test I took on …", "the flat we rented on …" — a
noun phrase, then a subject and its verb, then the date."""
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
_EVENT_OF = re.compile(
    rf"\b(?:from|of)\s+{_DETERMINER}\s+(?:[\w'’-]+\s+){{0,2}}?{_EVENTS}\s+on\s+$", re.IGNORECASE
)
"""A date that dates an event a thing comes from or belongs to: "the photos from the party on …", "the
results of the exam on …"."""


def dates_another_clause(text: str, on: int) -> bool:
    """Whether the date after ``text[:on]`` (which ends with "on ") sits in a clause that dates something
    other than what the sentence tells (trial7 H3: "Paid the electricity bill that was due on
    2026-11-30" was placed on the 30th; the payment is today's): a relative clause ("that was due on",
    ", which expired on", "who …"; one closed by a comma before the date does not count: "Sam, who is my
    brother, had surgery on …"), a relative clause without its pronoun ("the blood test I took on"; not
    when the noun phrase opens the sentence or follows "after", "when", "and" …), or an event a thing
    comes from ("the photos from the party on"). "Paid the bill on 2026-11-30" is not."""
    breaks = [m.end() for m in _CLAUSE_BREAK.finditer(text, 0, on)]
    start = breaks[-1] if breaks else 0
    for relative in _RELATIVE.finditer(text, start, on):
        closed = text[: relative.start()].rstrip().endswith(",") and "," in text[relative.end() : on]
        if not closed:
            return True
    if _EVENT_OF.search(text, start, on):
        return True
    reduced = _PRONOUN_CLAUSE.search(text, start, on)
    if reduced is None:
        return False
    before = text[start : reduced.start()].split()
    return bool(before) and not before[-1].endswith(",") and before[-1].lower() not in _LEADS_A_CLAUSE


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
