"""The English calendar words, spelled once: the day names, the parts of the week and of the day, the
month names (and their abbreviations), the seasons, the calendar units, and which days "weekday" and
"weekend" cover. Every rule that reads a day, a part of one, a month, a season or a counted while in a
text builds its word set or pattern from these (``relative_time``, ``named_dates``, ``word_dates``,
``ahead_words``, ``timeparse``, ``inferred_order``, ``both_hold``, ``schedule_moves``, ``supersede_guard``,
``state_change``, ``value_slots``, ``contradiction``, ``ranking_features``). Pure data: no I/O, no
imports of the project.

Every word is lower case and ASCII; a rule that needs capitals or other forms ("Mondays", "May" but not
"may I") builds them from these. The ``*_ALT`` strings are bare regex alternations (``"monday|tuesday|…"``):
wrap them in a group (``(?:…)``) before adding anything around them.
"""

from __future__ import annotations

from collections.abc import Mapping

WEEKDAYS: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The seven day names, Monday first: ``WEEKDAYS.index(name)`` is the day's ``date.weekday()`` (0 to 6)."""
WEEKDAY_ALT = "|".join(WEEKDAYS)
"""``WEEKDAYS`` as a regex alternation, in that order: ``"monday|tuesday|…|sunday"``."""
DAY_GROUPS: Mapping[str, frozenset[str]] = {
    "weekday": frozenset(WEEKDAYS[:5]),
    "weekend": frozenset(WEEKDAYS[5:]),
}
"""The days a group word covers: "weekday" Monday to Friday, "weekend" Saturday and Sunday."""
WEEK_PARTS: tuple[str, ...] = ("weekday", "weekend", "weeknight")
"""The parts of the week a time names ("on weekdays", "at weekends", "weeknights"): ``DAY_GROUPS``'s words
and "weeknight"."""
WEEK_PART_ALT = "|".join(WEEK_PARTS)
"""``WEEK_PARTS`` as a regex alternation, in that order: ``"weekday|weekend|weeknight"``."""

DAY_PARTS: tuple[str, ...] = ("morning", "afternoon", "evening", "night")
"""The four parts of a day ("in the mornings", "Thursday evenings"), morning first. A rule that also reads
a meal's time ("lunchtime") or a point ("noon", "midnight") adds it to these."""
DAY_PART_ALT = "|".join(DAY_PARTS)
"""``DAY_PARTS`` as a regex alternation, in that order: ``"morning|afternoon|evening|night"``."""

MONTHS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
"""The twelve month names, January first: ``MONTHS.index(name) + 1`` is the month's number (1 to 12).
"may" is also a verb ("May I …", "it may rain"): a rule that would misread it leaves it out or guards it."""
MONTH_ALT = "|".join(MONTHS)
"""``MONTHS`` as a regex alternation, in that order: ``"january|february|…|december"``."""
MONTH_ABBREVIATIONS: tuple[str, ...] = (
    *("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"),
)
"""The usual short forms of the month names, January first ("sep" and "sept" both; none for "may",
which is short already)."""

SEASONS: tuple[str, ...] = ("spring", "summer", "autumn", "fall", "winter")
"""The four seasons' names, spring first, with "fall" (American for autumn; also a verb: a rule that
reads lone tokens may leave it out)."""
SEASON_ALT = "|".join(SEASONS)
"""``SEASONS`` as a regex alternation, in that order: ``"spring|summer|autumn|fall|winter"``."""

UNITS: tuple[str, ...] = ("day", "week", "month", "year")
"""The calendar units a counted while names ("3 days ago", "in two weeks", "for a few years"), shortest
first, singular (a pattern adds the plural: ``(?:{UNIT_ALT})s?``). A rule that also counts "minute" and
"hour", "night", "fortnight" or "decade" adds them to these."""
UNIT_ALT = "|".join(UNITS)
"""``UNITS`` as a regex alternation, in that order: ``"day|week|month|year"``."""
