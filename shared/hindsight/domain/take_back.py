"""Which values of a key a write takes back, instead of replacing them all. Pure: no I/O.

A key holds one fact; after an additive write ("X is also allergic to shellfish") its values together are
that fact, and a new value replaces them all (docs/tools.md, keys). A take-back is not a new value:

- A take-back of *one* of them ("X is no longer allergic to peanuts") retires the value it negates and
  leaves the others, which nobody took back (trial4 HIGH-3). Judged per value by
  ``contradiction.compare_facts``: only its sure polarity verdict (rule 1: the frames equal, one side
  negated) names the value taken back.
- A take-back of a value the key does not hold ("X is no longer allergic to kiwi") retires nothing
  (trial6 H1): a negation names no new value. Only a take-back of everything ("X is not allergic to
  anything any more") is the key's new value, as before.
- A re-add of a value taken back ("X is allergic to peanuts again") retires that take-back only (trial6
  H2): the other values were never taken back. Told by the polarity signal, sure or not, against a value
  that is itself a take-back.
- A value the write says still holds ("… no longer allergic to peanuts but still to shellfish") stays
  (trial6 MED): the words after "still" name it.

When unsure which values a write takes back, the others stay (a wrong supersede hides a true value from
every default read; a kept one is only shown beside it). A write that takes back nothing and is no
take-back ("Rowan now runs finance, nothing else") is the key's new value as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hindsight.domain.contradiction import compare_facts

_TAKE_BACK = re.compile(
    r"\bno\s+longer\b|\bnot\b|n't\b|\bnever\b|\bany\s*more\b|\bstopped\b|\bquit\b|\bgave\s+up\b", re.I
)
"""Words that make a statement a take-back (a negated state), not a new value (English only: elsewhere
the key's rule holds, as before)."""
_EVERYTHING = re.compile(r"\b(?:anything|any\s+of\s+(?:them|these|those)|at\s+all|whatsoever)\b", re.I)
"""A take-back of every value at once: the key's new value."""
_STILL = re.compile(r"\bstill\b", re.I)
"""What follows names values the write says still hold."""
_JOINER = re.compile(r"[\s,;]*(?:\b(?:but|and|yet|though|although|while)\b[^,;]*)?$", re.I)
"""The words that join the take-back to its "still" clause ("…, but is"): left out of the compared
take-back."""
_WORD = re.compile(r"[a-z0-9]+")
_NOT_A_VALUE = frozenset({"the", "and", "but", "his", "her", "its", "their", "our", "your", "has", "have"})
"""Short function words never taken as the name of a value after "still" (words under 3 letters neither)."""


@dataclass(frozen=True)
class TakeBack:
    """How a write settles with the values of its key, by index into those values: ``retired`` — the
    values it takes back (superseded by it); ``left`` — the others, never taken back (kept active, linked
    ``related`` to it: still the key's values)."""

    retired: tuple[int, ...]
    left: tuple[int, ...]


def is_take_back(text: str) -> bool:
    """Whether ``text`` is a take-back ("no longer", "not", "stopped", "quit", …): a write that may leave
    a key's values active even when the key holds one (``taken_back``)."""
    return bool(_TAKE_BACK.search(text))


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _NOT_A_VALUE}


def taken_back(new: str, values: Sequence[str]) -> TakeBack | None:
    """How ``new`` (a non-additive write on a key) settles with the key's active ``values`` (their
    contents, one or more), or None when the key's rule holds — it replaces them all. Raises nothing."""
    if not values:
        return None
    head, held = new, set()
    still = _STILL.search(new)
    if still is not None and _TAKE_BACK.search(new[: still.start()]):  # "no longer X but still Y"
        head = _JOINER.sub("", new[: still.start()])
        # "but still to shellfish": the words the head and every value share name no one value
        shared = set.intersection(*map(_words, values)) if len(values) > 1 else set()
        named = _words(new[still.end() :]) - _words(head) - shared
        held = {i for i, value in enumerate(values) if named & _words(value)}
    verdicts = [compare_facts(head, value) for value in values]
    polar = {i for i, v in enumerate(verdicts) if "polarity" in v.signals and i not in held}
    sure = {i for i in polar if verdicts[i].relation == "contradiction"}
    if _TAKE_BACK.search(head):
        retired = sure if sure or not _EVERYTHING.search(head) else set(range(len(values))) - held
    else:
        readded = {i for i in polar if _TAKE_BACK.search(values[i])}  # a re-add reverses that take-back
        retired = readded or sure or set(range(len(values))) - held
    if len(retired) == len(values):
        return None
    left = tuple(i for i in range(len(values)) if i not in retired)
    return TakeBack(retired=tuple(sorted(retired)), left=left)
