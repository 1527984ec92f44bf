"""What a write's answer says when its words name a time the rules did not read (new-user trial M1): "Sam
went to Rome last March", "Sam's MRI is in 2 weeks", "yesterday … and last week". Such a memory is placed
at its session's start or the write time, so time filters take it for then; the agent can give
``occurred_at`` to place it, but only if it is told.

Times looked for (a note, never a refusal; deterministic words): the expressions the relative-date rules
stop at (``relative_time.elsewhere_expressions``: tomorrow, next …, in 3 weeks, 明天 …); relative
expressions they would read but did not (several naming different times); ``YYYY-MM-DD`` forms not read
(a bound such as "until 2026-10-03", two dates, a date joined to a time); month names written with a
capital ("last March", "in May"); weekdays ("on Tuesday", "this Friday"); "weekend" and "fortnight";
holidays, capitalised ("last Christmas", "at Easter", "New Year's Eve"); a year after a preposition ("in
2024", "back in 2019", "since 2015", "in early 2020"; trial4 MED-1: "In 2024 I ran a marathon" was
placed today, silently). Not a year on a keyed fact: the worker may read "in 2019" there to order the
key's values (``inferred_order.stated_past_year``), so a note could be wrong.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import elsewhere_expressions, infer_event_time, relative_mentions

_MONTHS = (
    "January|February|March|April|May(?! (?:I|we|you|he|she|they|it)\\b)|June|July|August|September|October|"
    "November|December"
)
"""Month names, capitalised ("may" is a verb; "May I …" asks)."""
_NAMED = re.compile(
    r"(?:\b(?:last|this|next|in|early|late|mid-?)\s+)?\b(?:" + _MONTHS + r")\b"
    r"|(?i:(?:\b(?:last|this|next|on|coming)\s+)?\b(?:monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)s?\b|(?:\b(?:last|this|next)\s+)?\bweekend\b|\b(?:a|one|two|\d+)?\s*fortnights?(?:\s+ago)?\b)"
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
_ANY_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:T[\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")
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
    if years:
        found += [(m.start(), m.group(0)) for m in _YEAR.finditer(cased)]
    return list(dict.fromkeys(words for _, words in sorted(found) if words))


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
    named = named_times(draft.content, anchor, years=not (draft.layer == "semantic" and draft.key))
    if not named:
        return None
    quoted = ", ".join(repr(words) for words in named[:MAX_NAMED]) + (", …" if len(named) > MAX_NAMED else "")
    where = "its session's start (session_at)" if draft.session_at is not None else "the write time"
    return (
        f"the words name a time that was not read ({quoted}): the memory is placed at {where}, so time "
        "filters take it for then; give occurred_at (ISO 8601) to place it"
    )
