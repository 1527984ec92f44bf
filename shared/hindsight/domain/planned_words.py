"""Whether an episode's words say it lies ahead: "Sam has a dentist appointment next Tuesday", "Sam will
visit his mother in 3 weeks", "Sam's MRI is in 2 weeks", "This Friday Sam has a job interview".

The relative-date rules (``relative_time``) read no time from most such words on purpose ("next
Tuesday": this week's or the next?), so the episode has no ``occurred_at``. A summary read days later must
then not call it something that happened (new-user trial H2): ``experience`` labels it planned, its time
not read. (An episode's "tomorrow" without a past verb is read, trial11: it is then "Upcoming".)
Deterministic word rules, no model; English and the Chinese future expressions the relative-date rules
know. When in doubt the episode is not called planned (it keeps the plain label).

Ahead (any of, as a standalone phrase, case-insensitive)
    - a future expression the relative-date rules stop at (``relative_time.elsewhere_expressions``:
      tomorrow, next week/month/year/<weekday>, in N days/weeks/months/years, "a month from today",
      "two weeks from yesterday", 明天, 下周, 明年 …; not
      "the day after", which may follow a past event);
    - "this" or "this coming" before a weekday or "weekend" ("this Friday", "this coming weekend");
    - the future auxiliaries "will", "shall", "'ll" (not "will not"/"won't": "the build won't start"
      says how something is now), "is/are scheduled", "scheduled for", "plans to", "planning to",
      "upcoming" (``ahead_words``).
"""

from __future__ import annotations

from hindsight.domain.ahead_words import ahead_words
from hindsight.domain.relative_time import elsewhere_expressions


def points_ahead(text: str) -> bool:
    """Whether ``text`` says what it tells lies in the future (module docstring, "Ahead")."""
    if any(expression != "the day after" for expression in elsewhere_expressions(text)):
        return True  # "the day after <something>" may be a day after a past event
    return ahead_words(text)
