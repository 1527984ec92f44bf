"""Which values of a key a write takes back, when the key holds several (an additive pair). Pure: no I/O.

A key holds one fact; after an additive write ("X is also allergic to shellfish") its values together are
that fact, and a new value replaces them all (docs/tools.md, keys). A take-back of *one* of them ("X is
no longer allergic to peanuts") is not a new value for the whole key: it retires the value it negates and
leaves the others, which nobody took back (trial4 HIGH-3: the shellfish allergy was superseded with the
peanuts one). Judged per value by ``contradiction.compare_facts``: only its sure polarity verdict (rule 1:
the frames equal, one side negated) names the value taken back. A write that surely negates none of them
("X is not allergic to anything any more", "Rowan now runs finance, nothing else") is the key's new value
as before; one that surely negates every one of them, too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hindsight.domain.contradiction import compare_facts


@dataclass(frozen=True)
class TakeBack:
    """How a write settles with the several values of its key, by index into those values: ``retired``
    — the values it negates (superseded by it); ``left`` — the others, never taken back (kept active,
    linked ``related`` to it: still the key's values)."""

    retired: tuple[int, ...]
    left: tuple[int, ...]


def taken_back(new: str, values: Sequence[str]) -> TakeBack | None:
    """How ``new`` (a non-additive write on a key) settles with the key's active ``values`` (their
    contents, two or more), or None when the key's rule holds — it replaces them all: it surely negates
    none of them, or every one. Raises nothing."""
    if len(values) < 2:
        return None
    verdicts = [compare_facts(new, value) for value in values]
    retired = tuple(
        i for i, v in enumerate(verdicts) if v.relation == "contradiction" and "polarity" in v.signals
    )
    if not retired or len(retired) == len(values):
        return None
    return TakeBack(retired=retired, left=tuple(i for i in range(len(values)) if i not in retired))
