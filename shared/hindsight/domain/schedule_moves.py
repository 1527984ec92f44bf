"""A scheduled thing moved to another time: "Emma's piano lesson moved to Thursdays", "… has moved to
Thursdays", "… switched to Thursdays", "the book club was rescheduled to 6pm" (new-user trial 3, finding
3: only flagged, while docs/detectors.md said "moved" supersedes). Pure: regular expressions and token
tests, no I/O. Read by ``domain.contradiction``.

The new statement names a subject and the time it moved to; the old one is superseded only when it is
about *that subject*: its words before its verb are the same, and after its verb it says nothing but
when ("Emma's piano lesson is on Tuesdays", "the book club meets on Tuesdays", "the recycling is
collected on Tuesdays"), and the time moved is of a kind it gives ("Tuesdays" → "Thursdays", "at 7pm" →
"6pm"). "Emma plays tennis on Tuesdays" / "Emma's tennis moved to Thursdays" (another subject) and "The
user goes to yoga on Tuesdays" / "The user switched to Thursdays" (the user is not the thing that was
scheduled) are left to the other rules: at most flagged. A move the words put ahead ("will be moved to
Thursdays", ``ahead_words``) is not one yet.
"""

from __future__ import annotations

import re
from typing import Literal

from hindsight.domain.ahead_words import ahead_words
from hindsight.domain.calendar_words import (
    DAY_PART_ALT,
    DAY_PARTS,
    MONTH_ALT,
    MONTHS,
    WEEK_PART_ALT,
    WEEK_PARTS,
    WEEKDAY_ALT,
    WEEKDAYS,
)

WEEK_TIMES = frozenset(
    [
        *WEEKDAYS,
        *WEEK_PARTS,
    ]
)
"""Frame tokens (stemmed) of a day or part of the week."""
DAY_TIMES = frozenset([*DAY_PARTS, "lunchtime", "noon", "midnight"])
"""Frame tokens of a part of the day or a point in it."""
_MONTHS = frozenset(MONTHS)
"""``calendar_words.MONTHS`` as a set (``time_kind``)."""
_WORDS = "|".join(
    [
        *(rf"(?:{WEEKDAY_ALT})s?", rf"(?:{WEEK_PART_ALT})s?", rf"(?:{DAY_PART_ALT})s?"),
        *("lunchtime", "noon", "midnight", rf"(?:{MONTH_ALT})\b"),
        *(r"\d{1,2}(?::\d\d)?\s?[ap]\.?m\b", r"\d{1,2}:\d\d", r"\d{4}-\d\d-\d\d"),
        rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTH_ALT})\b",
    ]
)
TIME_START = rf"(?:(?:the|every|on|at|in)\s+)*(?:{_WORDS})"
"""Words that begin a time: a day, part of the day or week, a month, a clock time ("6pm", "18:00"), a
date ("10 December", "2026-12-10"), after "the", "every", "on", … — not any number ("12 Rue Cler")."""
MOVED_TO_TIME = re.compile(
    r"^(?P<subject>.+?)\s+(?:(?:has|have|had)\s+(?:been\s+)?|(?:is|are|was|were)\s+|got\s+|gets\s+)?"
    r"(?:moved|switched|changed|shifted|rescheduled|pushed|postponed|delayed|brought)"
    r"(?:\s+(?:back|forward|over|up))?\s+(?:to|until|till|for)\s+"
    rf"(?P<time>{TIME_START}.*?)\s*[.!]?\s*$",
    re.IGNORECASE,
)
"""A statement that a subject moved to a time (the words after "to" begin with a day, part of the day,
month or number)."""


def moved_to_time(statement: str) -> tuple[str, str] | None:
    """(subject, time) as written when ``statement`` says its subject moved to another time, the move not
    put ahead ("will be moved to …"); None otherwise."""
    match = MOVED_TO_TIME.match(statement.strip())
    if match is None or ahead_words(statement):
        return None
    return match.group("subject"), match.group("time")


def time_kind(token: str) -> str | None:
    """What kind of time a frame token is: "week" (a day or part of the week), "day_part", "month",
    "number" (a clock time, a day of the month); None: no time."""
    if token in WEEK_TIMES:
        return "week"
    if token in DAY_TIMES:
        return "day_part"
    if token in _MONTHS:
        return "month"
    return "number" if token[:1].isdigit() else None


def move_of(
    old: tuple[str, ...], old_verb: int | None, subject: tuple[str, ...], to: tuple[str, ...]
) -> Literal["moved", "unsure"] | None:
    """How an old statement (frame tokens ``old``, its verb at ``old_verb``) relates to ``subject`` (frame
    tokens) having moved to the time ``to`` (frame tokens): "moved" when it is that subject's schedule —
    the same subject right before its verb, nothing after it but a copula, the verb and its time — and it
    gives a time of a kind ``to`` gives that differs from it (module docstring); "unsure" when it begins
    with the subject and gives a time of such a kind but says more ("the user goes to yoga on Tuesdays" /
    "the user switched to Thursdays": maybe, maybe another of the user's appointments); else None."""
    if not subject or old[: len(subject)] != subject or not to or any(time_kind(t) is None for t in to):
        return None
    rest = [t for t in old[len(subject) :] if t not in ("every", "each")]
    when = [t for t in rest if time_kind(t)]
    kinds = {time_kind(t) for t in to} & {time_kind(t) for t in when}
    if not kinds:
        return None
    words = [t for t in rest if not time_kind(t)]
    if old_verb != len(subject) or len(words) > 2 or (len(words) == 2 and words[0] != "<be>"):
        return "unsure"  # "goes to yoga on Tuesdays": the subject does something; its object is what is timed
    moved = any(
        [t for t in when if time_kind(t) == kind] != [t for t in to if time_kind(t) == kind] for kind in kinds
    )
    return "moved" if moved else "unsure"
