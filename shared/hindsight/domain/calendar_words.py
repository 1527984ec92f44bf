"""The English calendar words, spelled once: the day names, the month names (and their abbreviations), the
seasons, and which days "weekday" and "weekend" cover. Every rule that reads a day, a month or a season
in a text builds its word set or pattern from these (``relative_time``, ``unread_time``, ``ahead_words``,
``timeparse``, ``inferred_order``, ``both_hold``, ``schedule_moves``, ``supersede_guard``,
``state_change``, ``contradiction``, ``ranking_features``). Pure data: no I/O, no imports of the project.

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
