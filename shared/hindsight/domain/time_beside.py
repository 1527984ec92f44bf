"""Whether a time in calendar words beside a relative expression or an ISO date that is read names a
second time of the memory's event, so that neither is read and the write's note names both
(``relative_time``: "I flew to Lisbon on May 3 and came back yesterday": the trip's start or its end?).

Only a name written as the time of an event counts (trial15: any month, holiday or weekday name anywhere
blocked "Yesterday I paid the October invoice", "Yesterday I spoke to April", "Yesterday I met Dana, who
was born in March", which were read before): a name after a preposition that places an event ("in
October", "on May 3", "over Christmas", "in 2019", "on the 3rd"), or a vague time ("a few days ago").
Not:

- a bare name, a modifier or a person ("the October invoice", "Christmas presents", "April", "my Sunday
  best", "the May Day parade"), or after another word ("since June", "from October", "every October",
  "until May");
- a time of something else: a relative clause ("Dana, who was born in March", "the report that was due
  on May 3", "the shoes I bought in October", ``content_date.relative_dates_another_clause``), a day
  something is due on ("due on May 3"), a part that says the day recurs ("as I do every year in
  October");
- a name in another sentence (after ``.``, ``!``, ``?``, ``;``) with no verb in the past tense and no
  word pointing ahead ("Yesterday I planted tulips; they bloom in April", "…; next appointment is in
  June"): a habit or a state, not a second time of the event.

When unsure the relative expression is read, as before the rule was added: a second time dropped is
one the note does not name; a time read wrongly would be the memory's.
"""

from __future__ import annotations

import re

from hindsight.domain.ahead_words import ahead_words
from hindsight.domain.content_date import relative_dates_another_clause
from hindsight.domain.named_dates import NameKind
from hindsight.domain.word_dates import past_tense

_LED = re.compile(
    r"(?i:(?:back\s+)?(?P<lead>in|on|during|over|at|last|this|next|coming|past|early|late|mid)\b-?\s*)"
)
"""A preposition (or "last"/"this"/"next"…) that places an event at the time after it, at the start
of the name as written ("in October", "on Tuesday", "back in 2019") or right before it ("on May 3")."""
_WORD_BEFORE = re.compile(r"(?i:\b(?P<word>[a-z]+)(?:-|\s+)$)")
_DUE_BEFORE = re.compile(r"(?i:\bdue\s+$)")
_RECURS = re.compile(r"(?i:\b(?:every|each|annual(?:ly)?|yearly|monthly|weekly)\b)")
_PART_BREAK = re.compile(r"[.!?;:,](?:\s|$)|\n|\s[-–—]+\s|[–—]")
_SENTENCE_BREAK = re.compile(r"[.!?;](?:\s|$)|\n")


def _led(cased: str, start: int, words: str) -> bool:
    """Whether the name ``words`` at ``start`` opens with, or follows, a preposition of ``_LED`` and no
    "due" ("the report due on May 3")."""
    own = _LED.match(words)
    if own is not None and own.end() < len(words):
        lead_start = start + own.start("lead")
    else:
        before = _WORD_BEFORE.search(cased, max(0, start - 24), start)
        if before is None or _LED.fullmatch(before.group("word")) is None:
            return False
        lead_start = before.start("word")
    return _DUE_BEFORE.search(cased, max(0, lead_start - 8), lead_start) is None


def _around(pattern: re.Pattern[str], cased: str, start: int, end: int) -> tuple[int, int]:
    """The ``[start, end)`` of the stretch of ``cased`` around ``[start, end)`` between two ``pattern``."""
    opens = [m.end() for m in pattern.finditer(cased, 0, start)]
    close = pattern.search(cased, end)
    return (opens[-1] if opens else 0, close.start() if close else len(cased))


def names_a_second_time(
    cased: str, start: int, words: str, kind: NameKind, read: list[tuple[int, int]]
) -> bool:
    """Whether the calendar name ``words`` at ``start`` of ``cased`` (``named_dates.calendar_names``,
    of kind ``kind``) names a second time of the event beside the expressions read at ``read``
    (``[start, end)`` ranges; module docstring)."""
    end = start + len(words)
    if kind not in ("vague", "iso") and not _led(cased, start, words):
        return False  # "the October invoice", "since June", "Dr. June Park"
    if relative_dates_another_clause(cased, start, end):
        return False  # "Dana, who was born in March", "the shoes I bought in October"
    part = _around(_PART_BREAK, cased, start, end)
    if _RECURS.search(cased, *part):
        return False  # "as I do every year in October"
    sentence = _around(_SENTENCE_BREAK, cased, start, end)
    if any(sentence[0] <= s < sentence[1] for s, _ in read):
        return True
    words_of_sentence = cased[sentence[0] : sentence[1]]
    return past_tense(words_of_sentence) or ahead_words(words_of_sentence)
