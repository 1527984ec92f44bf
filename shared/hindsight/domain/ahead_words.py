"""Words that say what a text tells lies ahead, besides the future expressions of the relative-date
rules: "this Friday", "will", "shall", "'ll", "is scheduled", "scheduled for", "plans to", "upcoming".

Shared by ``planned_words.points_ahead`` (a summary's "Planned" label) and the ISO-date reading of
``relative_time`` (a date after the write's day is read only when the words point ahead). No imports of
the relative-date rules, so both can use it. Deterministic, case-insensitive, NFKC-normalised.
"""

from __future__ import annotations

import re
import unicodedata

from hindsight.domain.calendar_words import WEEKDAY_ALT

_AHEAD = re.compile(
    r"\bthis (?:coming )?(?:" + WEEKDAY_ALT + r"|weekend)\b"
    r"|\b(?:will|shall)\b(?! not\b)|\w['\u2019]ll\b"
    r"|\b(?:is|are) scheduled\b|\bscheduled for\b|\bplan(?:s|ning) to\b|\bupcoming\b"
)


def ahead_words(text: str) -> bool:
    """Whether ``text`` holds one of the module's words pointing ahead ("will", "this Friday", "is
    scheduled" …; not "will not"/"won't")."""
    return _AHEAD.search(unicodedata.normalize("NFKC", text).lower()) is not None
