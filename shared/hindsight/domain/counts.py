"""A count and its noun in agreement, for the texts a caller reads ("1 recalled memory was left out", not
"1 recalled memories were left out"). English only: every text a tool answers is English."""

from __future__ import annotations


def counted(count: int, singular: str, plural: str | None = None) -> str:
    """``count`` and the noun that agrees with it: "1 episode", "0 episodes", "3 memories" (``plural``
    defaults to ``singular`` + "s"). Raises nothing."""
    return f"{count} {singular if count == 1 else plural or singular + 's'}"


def agreeing(count: int, one: str, other: str) -> str:
    """The word that agrees with ``count`` — ``one`` for exactly 1, ``other`` for any other count — for a
    verb or pronoun after a counted noun ("was"/"were", "it"/"they", "does"/"do"). Raises nothing."""
    return one if count == 1 else other
