"""Two statements whose value differs but which can both be true: the contradiction rules'
(``domain.contradiction.compare_facts``) guards that make such a pair at most a possible conflict, never a
supersede (new-user trial, findings on qualifiers, appointments and past states). Pure: no I/O. Each
reads the frames' tokens (stemmed, function words dropped) and the function word written before each
(``lead``), or the texts as written.

- **A qualifier** (``other_qualifier``): a day, a time of day, a season, a place or a project that says
  *when* or *where* a statement holds ("on Mondays", "in the mornings", "on weekends", "in summer", "at
  home", "for project Atlas", "part-time"). "The user works at Google on Mondays" and "The user works
  at Meta on Fridays" both hold; so do "… at Google" and "… at Meta on Fridays" (a qualifier on one side
  only). A time changed with another day is the time of each day ("school starts at 8:15 on weekdays" /
  "… at 9:00 on Saturdays"). A place qualifier alone changed after a verb may be a second place. A day or
  part of the week changed, alone or with a clock time ("works at Google on Mondays" / "… on Fridays",
  "goes to the gym on Mondays" / "… on Fridays", "the sync is on Tuesdays" / "… on Thursdays", "the
  swim class is on Tuesdays at 7pm" / "… on Thursdays at 6pm") may be a second day (``another_day``;
  with a time too since trial 3, finding 5 — a second session at another time is no less likely):
  without a word saying it changed ("now", "moved", "rescheduled",
  "instead", "no longer", "actually", "changed", …) it is at most a possible conflict — an unsure pair is
  flagged and visible, a true fact silently retired is not (trial 2, H2). A day that is what "is" names
  ("the user's day off is Monday" / "… is Friday") is the value, not a qualifier.
- **Several at once** (``several_at_once``): alarms, appointments, reminders, timers, bookings and
  reservations — the user has several at different times ("The user's alarm is set for 7am" / "… for
  9pm"; "dentist appointment at 3pm" / "… at 5pm"). A changed time or date of one is a possible conflict
  unless the new statement says it was moved (``RESCHEDULED``) or corrects it ("actually", "instead").
  Not after a verb of wanting ("wants a reminder 15 minutes before meetings" / "… 30 minutes": a
  preference, one value).
- **Two things at once** (``another_purpose``, ``another_party``; trial11 M2): another thing for another
  purpose ("our team uses Jira for tickets" / "… Slack for chat"), another person at another clock time
  ("a meeting with Dana at 10:00" / "… with Bob at 15:00"): with no word saying anything changed, both
  hold — the caller reads such a pair as unrelated, not even a possible conflict.
- **Past states** (``two_past_states``): "The user lived in Paris" / "The user lived in Rome", "The user's
  run was 5 km" / "… was 10 km" — two past states, each may have held at its own time. Only when neither
  text dates itself (``dated``): a dated past statement is ordered by the valid-time rules as before.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from hindsight.domain.calendar_words import DAY_PARTS, MONTHS, SEASONS, WEEK_PARTS, WEEKDAYS
from hindsight.domain.inferred_order import states_past
from hindsight.domain.relative_time import relative_mentions

QUALIFIER_TIMES = frozenset(
    [
        *WEEKDAYS,
        *WEEK_PARTS,
        *DAY_PARTS,
        "lunchtime",
        *(season for season in SEASONS if season != "fall"),  # "fall" is also a verb
        *("holiday", "vacation", "part-time", "full-time"),
    ]
)
"""Frame tokens (stemmed: "Mondays" is "monday") that say when a statement holds."""
QUALIFIER_PLACES = {
    "home": frozenset(["at", "from"]),
    "work": frozenset(["at"]),
    "office": frozenset(["at", "from", "in"]),
    "school": frozenset(["at"]),
    "campus": frozenset(["at", "on"]),
    "project": frozenset(["for", "on"]),
}
"""Frame tokens that say where (or for what) a statement holds, after one of these function words:
"at home", "from the office", "for project Atlas" (the name after "project" counts with it)."""
SEVERAL_AT_ONCE = frozenset(["appointment", "alarm", "reminder", "timer", "booking", "reservation"])
"""Nouns (stemmed) the user has several of at different times."""
WANTING = frozenset(["want", "need", "prefer", "like", "expect", "ask"])
"""Verbs after which such a noun is a preference ("wants a reminder 15 minutes before"): one value."""
RESCHEDULED = re.compile(
    r"\b(?:moved|rescheduled|postponed|pushed|delayed|brought\s+forward|changed|shifted|reset)\b", re.I
)
"""Words that say an alarm or appointment was moved: the new time replaces the old one."""
DAY_MOVED = re.compile(
    r"\b(?:moved|rescheduled|postponed|pushed|delayed|brought\s+forward|changed|shifted|switched)\b", re.I
)
"""Words that say a day was moved (``another_day``): ``RESCHEDULED`` without "reset", which is also what a
thing undergoes on a day ("the staging database is reset every Sunday")."""
CLOCK = re.compile(r"^\d{1,2}(?::\d\d)?(?:am|pm)$|^\d{1,2}:\d\d$")
"""A clock time as a frame token ("6pm", "18:00")."""
_DATED = re.compile(
    r"(?<![\w-])(?:1[6-9]|20)\d\d(?![\w-])|\b(?:ago|since|until|till|between|during|when|before|after"
    r"|earlier|recently|yesterday|last|as\s+an?\s+(?:child|kid|teen|teenager|student|adult)"
    r"|" + "|".join(month for month in MONTHS if month != "may") + r")\b"  # "may" is also a verb
    r"|\bin\s+(?:the\s+)?'?\d0s\b|\bin\s+(?:his|her|their|my|our)\s+\w+ies\b",
    re.IGNORECASE,
)
"""Words that date a past statement (a year, a month, "ago", "since", "until", "as a child", …)."""
_ANCHOR = datetime(2025, 1, 1, tzinfo=UTC)
"""Any day: ``relative_mentions`` is asked only whether a relative date is written, not which."""


def _qualifiers(tokens: tuple[str, ...], lead: tuple[str, ...], start: int, length: int) -> list[str]:
    """The qualifier tokens among ``tokens[start:start + length]`` (``lead``: the function word before
    each token of the whole frame)."""
    found: list[str] = []
    for i in range(start, start + length):
        token, before = tokens[i], lead[i] if i < len(lead) else ""
        after_project = i > 0 and tokens[i - 1] == "project" and lead[i - 1] in QUALIFIER_PLACES["project"]
        if token in QUALIFIER_TIMES or before in QUALIFIER_PLACES.get(token, ()) or after_project:
            found.append(token)
    return found


def other_qualifier(
    old: tuple[tuple[str, ...], tuple[str, ...]],
    new: tuple[tuple[str, ...], tuple[str, ...]],
    start: int,
    was: tuple[str, ...],
    now: tuple[str, ...],
    numeric: bool,
) -> bool:
    """Whether the changed span (``was`` in the old frame, ``now`` in the new, from ``start``; ``old`` and
    ``new``: each frame's tokens and leads) changes a qualifier as well as a value, or a qualifier alone
    after a verb (module docstring). ``numeric``: every changed token is a number or time word; then a
    changed number with another qualifier is the time of another day ("school starts at 8:15 on weekdays"
    / "… at 9:00 on Saturdays", "the yoga class is at 7am on Tuesdays" / "… at 6pm on Thursdays"), unless
    the day is what the copula states ("the weekly sync is on Tuesdays at 10:00" / "… on Thursdays at
    15:00"): whether the sync moved or a second one was added is ``another_day``'s to say, by the
    change words."""
    q_was = _qualifiers(old[0], old[1], start, len(was))
    q_now = _qualifiers(new[0], new[1], start, len(now))
    if sorted(q_was) == sorted(q_now):
        return False
    after_be = start > 0 and old[0][start - 1] == "<be>"
    if numeric:
        numbers = [[t for t in side if any(c.isdigit() for c in t)] for side in (was, now)]
        moved_day = after_be and (was[0] in QUALIFIER_TIMES or now[0] in QUALIFIER_TIMES)
        return numbers[0] != numbers[1] and not moved_day  # a day the copula states: ``another_day``
    rest_was = [t for t in was if t not in q_was and not any(c.isdigit() for c in t)]
    rest_now = [t for t in now if t not in q_now and not any(c.isdigit() for c in t)]
    if rest_was and rest_now:
        return rest_was != rest_now  # "Google on Mondays" / "Meta on Fridays", "Google" / "Meta on Fridays"
    only_qualifiers = not rest_was and not rest_now and len(q_was) == len(was) and len(q_now) == len(now)
    return only_qualifiers and not after_be  # "goes to the gym on Mondays" / "… on Fridays"


def another_day(was: tuple[str, ...], now: tuple[str, ...], new_text: str, marked: bool) -> bool:
    """Whether the changed span (``was`` → ``now``) changes the day or part of the week or day
    (``QUALIFIER_TIMES``: "Mondays" → "Fridays", "weekdays" → "weekends", "every Sunday" → "every
    Wednesday"), alone or with a clock time (``CLOCK``: "Tuesdays at 7pm" → "Thursdays at 6pm"; trial 3,
    finding 5), and the new statement (``new_text``; ``marked``: it has a correction or change marker
    such as "now", "actually", "instead", "no longer", "new") does not say it changed (nor "moved",
    "rescheduled", "changed", … ``DAY_MOVED``): a second day is as likely as a moved one."""
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    if not any(t in QUALIFIER_TIMES for t in differing):
        return False
    if not all(t in QUALIFIER_TIMES or CLOCK.match(t) for t in differing):
        return False
    return not marked and not DAY_MOVED.search(new_text)


def several_at_once(tokens: tuple[str, ...], verb: str | None, start: int, new_text: str) -> bool:
    """Whether a changed time or date at ``start`` of a frame (``tokens``; ``verb``: its verb token, if
    found) is one of several alarms, appointments, … the user may hold at once: such a noun stands before
    it, not as the object of a verb of wanting, and ``new_text`` does not say it was moved."""
    if verb in WANTING or RESCHEDULED.search(new_text):
        return False
    return any(t in SEVERAL_AT_ONCE for t in tokens[:start])


def dated(text: str) -> bool:
    """Whether ``text`` dates what it says: a year, a month, a relative date ("two years ago", "last
    March"), or a word placing it in time ("since", "until", "as a child", …)."""
    return bool(_DATED.search(text)) or bool(relative_mentions(text, _ANCHOR))


def two_past_states(old_text: str, new_text: str) -> bool:
    """Whether both texts state a past state (``inferred_order.states_past``: "lived", "worked", "was",
    "used to", … and no present-state word) and neither is dated (``dated``): two periods, each may have
    held, in an order we cannot read. Not for a birth ("was born in Paris" / "… in Rome": one place)."""
    if re.search(r"\bborn\b", old_text + " " + new_text, re.IGNORECASE):
        return False
    return states_past(old_text) and states_past(new_text) and not dated(old_text) and not dated(new_text)


Frame = tuple[tuple[str, ...], tuple[str, ...]]
"""A frame's tokens and, for each, the function word written before it (``lead``)."""


def _for_split(side: tuple[str, ...], lead: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``side`` (frame tokens, ``lead`` theirs) cut at its first token after "for": (the thing, the
    purpose); the purpose is empty when no token follows "for"."""
    for k, before in enumerate(lead):
        if before == "for":
            return side[:k], side[k:]
    return side, ()


def another_purpose(old: Frame, new: Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether the changed span (``was`` in the old frame, ``now`` in the new, from ``start``; ``old``,
    ``new``: each frame's tokens and leads) names on each side another thing *and* another purpose after
    "for" ("our team uses Jira for tickets" / "… uses Slack for chat", "pays Tom for gardening" / "… Ana
    for cleaning"): two things for two jobs, both hold (trial11 M2). The same purpose ("uses Jira for
    tickets" / "uses Linear for tickets") is outside the span: another value of one job. The caller has
    made sure the change follows a verb that may hold several values and no word says anything changed."""
    sides = [
        _for_split(side, frame[1][start : start + len(side)]) for frame, side in ((old, was), (new, now))
    ]
    (thing_was, for_was), (thing_now, for_now) = sides
    if not (thing_was and thing_now and for_was and for_now):
        return False
    return not set(for_was) & set(for_now) and set(thing_was) != set(thing_now)


def another_party(was: tuple[str, ...], now: tuple[str, ...], names: frozenset[str]) -> bool:
    """Whether the changed span of two frames (``was`` in the old, ``now`` in the new; ``names``: the
    tokens written capitalised) names on each side another person *and* another clock time (``CLOCK``):
    "a meeting with Dana at 10:00 on Monday" / "a meeting with Bob at 15:00 on Monday", "meets Sarah at
    10am" / "meets John at 2pm" — two meetings, both hold (trial11 M2). Another person alone ("with Dana
    at 10:00" / "with Bob at 10:00") or another time alone may be the same meeting changed: left to the
    other rules. A day or month written capitalised is no person. The caller has made sure no word says
    anything changed."""
    sides = []
    for side in (was, now):
        people = {
            t for t in side if t in names and t.isalpha() and t not in QUALIFIER_TIMES and t not in MONTHS
        }
        sides.append((people, {t for t in side if CLOCK.match(t)}))
    (people_was, times_was), (people_now, times_now) = sides
    if not (people_was and people_now and times_was and times_now):
        return False
    return not people_was & people_now and not times_was & times_now
