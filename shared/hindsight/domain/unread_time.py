"""What a write's answer says when its words name a time the rules did not read (new-user trial M1): "Sam
went to Rome last March", "Sam's MRI is in 2 weeks", "yesterday … and last week". Such a memory is placed
at its session's start or the write time, so time filters take it for then; the agent can give
``occurred_at`` to place it, but only if it is told.

Times looked for (a note, never a refusal; deterministic words): the expressions the relative-date rules
stop at (``relative_time.elsewhere_expressions``: tomorrow, next …, in 3 weeks, "a month from today" —
named whole, not the "today" inside it —, 明天 …); relative expressions they would read but did not
(several naming different times); ``YYYY-MM-DD`` forms not read (a bound such as "until 2026-10-03", two
dates, a date joined to a time); month names written with a capital ("last March", "in May"); weekdays
("on Tuesday", "this Friday"); "weekend" and "fortnight"; holidays, capitalised ("last Christmas", "at
Easter", "New Year's Eve"); a year after a preposition ("in 2024", "back in 2019", "since 2015", "in
early 2020"; trial4 MED-1: "In 2024 I ran a marathon" was placed today, silently; trial11: a past event's
year is now read, ``word_dates``); a month shortened and a day ("Dec 1", "3 Sept"), a day and month in
digits ("on 1/12", "1/12/2026": which is the day is never guessed, and the note says so when either could
be), an ordinal day ("on the 3rd"; not "on the 3rd floor"), a particular season ("last summer", "in
summer 2023", "the winter of 2019"; trial6 B); vague times ("a couple of days ago", "earlier this week",
"3 weeks back", "the other day", "recently", 前几天; trial8 M1); and a relative expression in a clause that
dates something else, which the rules do not read ("the bike I bought two years ago"; trial8 H1: it comes
with the relative expressions). A year on a keyed fact is not said when the worker may read it to place
the key's value (``inferred_order.first_value_period``: "lived in Paris in 2019", "from 2015 to 2019"),
so a note could be wrong; any other year there is ("has lived in Lisbon since 2019": the key's
value is held from the write time; trial6 C). The calendar names are found by ``named_dates`` (the
same list ``word_dates`` checks before it reads one).

On a fact whose words say the day recurs (``recurring_date``: a birthday, an anniversary, "every",
"monthly", "on Mondays") and have no verb in the past tense, a day or month of an unsaid year named by
its name — a month or weekday name, a holiday, "Dec 1", "on the 1st" (``named_dates.DAY_OF_YEAR``) — is
not named (trial11): "Bob's birthday is March 3", "The rent is due on the 1st of every month", "Team
standup is on Mondays" say a date the fact is about, which comes back every year, month or week, not when
the fact began, and a fact holds from the write; a note telling the agent to place it is noise. A one-off
day is still named ("The user's dentist appointment is on Dec 1": an episode with occurred_at may be
what the agent meant; trial6 B), so is a day and month in digits ("on 1/12": which number is the day
is worth saying), and so is a date of a fact telling a past event that is not read ("We celebrated our
anniversary last March").

A write that gives ``occurred_at`` keeps it (the caller's, never overridden), but when its words date it
with a year written out ("In 2019 I ran a marathon", "on 2019-05-03", "in May 2024": the same span
whenever the words were written) and the given time is not in it (a day's leeway for the writer's time
zone), the note names both (``_given_time_differs``): it was kept with no word said. Not for a relative
expression ("yesterday" counts from when the words were said, which a given occurred_at may be: an
imported conversation's date), a month without its year, or a keyed fact (its words' year is the key
rules', ``inferred_order``).

A keyed fact whose words are read at one time and name another the rules did not read ("I lived in Austin
in 2019 and moved to Denver last month": placed last month, "in 2019" was dropped with no word said,
keys15) names the other time, the one read and what to do (``_other_time_on_key``): the other time is
never guessed a place.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta

from hindsight.domain.inferred_order import first_value_period
from hindsight.domain.isotime import TimeSpan
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.named_dates import DAY_OF_YEAR, DIGIT_DATE, RECURRING, calendar_names, digit_date
from hindsight.domain.relative_time import (
    InferredTime,
    elsewhere_expressions,
    infer_event_time,
    relative_mentions,
    span_label,
)
from hindsight.domain.word_dates import past_tense


def recurring_date(draft: MemoryDraft) -> bool:
    """Whether the days of the year ``draft``'s words name (``named_dates.DAY_OF_YEAR``) recur rather than
    date it: a fact (semantic) whose words say the day comes back (``named_dates.RECURRING``: a birthday, an
    anniversary, "every", "monthly", "on Mondays") and have no verb in the past tense
    (``word_dates.past_tense``: "We met on March 3, our anniversary" tells a past event)."""
    return (
        draft.layer == "semantic" and bool(RECURRING.search(draft.content)) and not past_tense(draft.content)
    )


MAX_NAMED = 3
"""A note quotes at most this many of the times named."""


def named_times(text: str, anchor: datetime, *, years: bool = True, days: bool = True) -> list[str]:
    """The times ``text`` names, as written, in text order (module docstring), each once: those the rules
    could read and those they cannot. ``anchor``: what relative words count from; ``years``: whether a
    year after a preposition counts; ``days``: whether a day or month of an unsaid year counts (a month
    or weekday name, a holiday, "Dec 1", "on 1/12", "on the 3rd": ``named_dates.DAY_OF_YEAR``)."""
    cased = unicodedata.normalize("NFKC", text)
    found: list[tuple[int, str]] = [
        (m.start, cased[m.start : m.end]) for m in relative_mentions(cased, anchor)
    ]
    lowered = cased.lower()
    for expression in elsewhere_expressions(cased):
        found.append((lowered.find(expression), cased[lowered.find(expression) :][: len(expression)]))
    found += [
        (start, words)
        for start, words, kind in calendar_names(cased)
        if (years or kind != "year") and (days or kind not in DAY_OF_YEAR)
    ]
    spans = [(start, start + len(words)) for start, words in found if words]
    inside = {  # "today" in "a month from today": the longer phrase is the time named
        (start, words)
        for start, words in found
        if any(s <= start and start + len(words) <= e and e - s > len(words) for s, e in spans)
    }
    return list(
        dict.fromkeys(words for start, words in sorted(found) if words and (start, words) not in inside)
    )


def _either_way(named: list[str]) -> list[str]:
    """The day-month dates in digits among ``named`` that read as a date both ways round ("1/12": 1
    December or 12 January)."""
    out = []
    for words in named:
        m = DIGIT_DATE.search(words)
        if m is not None and digit_date(m):
            a, b = int(m.group("a")), int(m.group("b"))
            if a != b and a <= 12 and b <= 12:
                out.append(f"{m.group('a')}{m.group('sep')}{m.group('b')}")
    return out


def _read(draft: MemoryDraft, anchor: datetime) -> InferredTime | None:
    """The time ``draft``'s words give it from ``anchor``, as a write without occurred_at reads it
    (``relative_time.with_inferred_time``)."""
    keyed = draft.layer == "semantic" and draft.key is not None
    ahead = draft.layer == "episodic" and draft.outcome is None
    return infer_event_time(
        draft.content, anchor, fact=draft.layer == "semantic", words=not keyed, ahead=ahead
    )


_YEAR_WRITTEN = re.compile(r"(?:19|20)\d{2}")
"""A year written out: a time read with one names the same span whenever the words were written."""
_LEEWAY = timedelta(days=1)
"""How far outside the words' span a given occurred_at may fall and still be theirs: it is stored in
UTC, and the words' days are the writer's local days."""


def _year_written(text: str, read: InferredTime) -> bool:
    """Whether the time ``read`` from ``text`` carries a year written out: in its own words ("In 2019"),
    or in a calendar name beside them that says the same year again ("Last year, in 2025, …",
    ``relative_time``: a relative expression alone counts from when the words were said)."""
    if _YEAR_WRITTEN.search(read.expression) is not None:
        return True
    year = str(read.span.start.year)
    return (read.span.end - timedelta(microseconds=1)).year == read.span.start.year and any(
        kind != "iso" and year in _YEAR_WRITTEN.findall(words) for _, words, kind in calendar_names(text)
    )


def _given_time_differs(draft: MemoryDraft, submitted_at: datetime) -> str | None:
    """The note when ``draft`` gives an ``occurred_at`` outside the time its words give it with a year
    written out ("In 2019 I ran a marathon" with occurred_at 2026-11-02 was stored in 2026 with no
    word said): the given time is kept — the caller's, never overridden — and both are named. None when
    the words read no such time (a relative "yesterday" counts from when the words were said, which a
    given occurred_at may be: an imported conversation's date) or it holds the given time."""
    if draft.occurred_at is None or _YEAR_WRITTEN.search(draft.content) is None:
        return None  # most writes: no year in the words, nothing read
    read = _read(draft, draft.session_at or submitted_at)
    if read is None or not _year_written(draft.content, read):
        return None
    given = TimeSpan(draft.occurred_at, draft.occurred_precision or "instant")
    if given.start - _LEEWAY < read.span.end and read.span.start < given.end + _LEEWAY:
        return None
    label = span_label(given) if given.precision != "instant" else draft.occurred_at.isoformat()
    return (
        f"the words name a time ({read.expression!r}: {span_label(read.span)}) that the occurred_at given "
        f"({label}) is not in: the memory is placed at occurred_at as given; give occurred_at in "
        f"{span_label(read.span)}, or none to have the words read, if they tell when it happened"
    )


def unread_time_note(draft: MemoryDraft, submitted_at: datetime) -> str | None:
    """The write answer's ``time_not_read``: when ``draft`` gives no ``occurred_at``, its words name a
    time (``named_times``) and no time was read from them (``relative_time.infer_event_time``, from its
    session's start or ``submitted_at``): which words, where the memory is placed instead, and how to
    place it. When it gives one outside the time its words name with a year written out, both
    (``_given_time_differs``); when a keyed fact's words are read at one time and name another, both
    (``_other_time_on_key``). None otherwise."""
    if draft.occurred_at is not None:
        return _given_time_differs(draft, submitted_at)
    anchor = draft.session_at or submitted_at
    keyed = draft.layer == "semantic" and draft.key is not None
    read = _read(draft, anchor)
    if read is not None:
        return _other_time_on_key(draft, anchor, read) if keyed else None
    named = named_times(
        draft.content,
        anchor,
        years=not (keyed and first_value_period(draft) is not None),
        days=not recurring_date(draft),
    )
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


def _names_the_time_read(words: str, read: InferredTime) -> bool:
    """Whether ``words`` (a time ``named_times`` found) is the time ``read`` was read from: its expression
    or a part of it, or a year written beside it that is the read time's own ("Last year, in 2025, …")."""
    said, expression = words.lower(), read.expression.lower()
    if said in expression or expression in said:
        return True
    last = read.span.end - timedelta(microseconds=1)
    years = _YEAR_WRITTEN.findall(words)
    return bool(years) and last.year == read.span.start.year and all(y == str(last.year) for y in years)


def _other_time_on_key(draft: MemoryDraft, anchor: datetime, read: InferredTime) -> str | None:
    """The note when a keyed fact's words are read at one time and name another the rules did not read
    (keys15: "I lived in Austin in 2019 and moved to Denver last month" holds its key from last month, and
    "in 2019" was dropped with no word said): which words, the time read, and what to do — the other time
    is never guessed a place (it is usually when another value held). None when the words name no other
    time (``_names_the_time_read``; a day of a day that comes back is not one, ``recurring_date``)."""
    others = [
        words
        for words in named_times(draft.content, anchor, days=not recurring_date(draft))
        if not _names_the_time_read(words, read)
    ]
    if not others:
        return None
    quoted = ", ".join(repr(words) for words in others[:MAX_NAMED]) + (
        ", …" if len(others) > MAX_NAMED else ""
    )
    return (
        f"the words name a time that was not read ({quoted}) beside the one read ({read.expression!r}: "
        f"{span_label(read.span)}): the memory is placed at {span_label(read.span)} and holds its key from "
        "then, and the other time is stored nowhere; write what held then on the key with its own "
        "occurred_at, or give occurred_at to place this one"
    )
