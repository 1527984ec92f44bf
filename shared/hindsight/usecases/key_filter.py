"""The ``key`` filter of ``memory_search`` and ``memory_summarize``: a key outside the key grammar is
refused, unless a memory holds it; a key that matches nothing but has keys below it gets a note naming
them (``key_family_note``).

A filter is not held to the grammar in the tool schema (``MemoryKey``, not ``NewMemoryKey``): a memory an
older version stored under a key the grammar refuses ("user city!!") stays found by its key. But such a
key names nothing else — no write can set it — so when no memory the caller may read holds it, the
filter is a mistyped key ("user..home", "user/home"), and an empty answer would read as "nothing is
known". It is refused instead, naming ``key`` and the grammar, as ``memory_write`` refuses it (trial:
a bad key filter answered with a silent empty result)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from hindsight.domain.counts import agreeing, counted
from hindsight.domain.errors import InvalidInput
from hindsight.domain.limits import KEY_FORMAT, in_key_grammar
from hindsight.domain.memory import MemoryStatus, Scope, SearchRequest
from hindsight.ports import MemoryReader

_ANY_STATUS: tuple[MemoryStatus, ...] = ("active", "superseded", "archived", "forgotten")


async def check_key_filter(
    reader: MemoryReader, scope: Scope, key: str | None, now: datetime, known_at: datetime | None = None
) -> None:
    """Nothing when ``key`` (a filter, in its stored form) is None or in the key grammar, or when a
    memory ``scope`` may read holds it today in any status; one read, only for a key outside the grammar.
    Nor under ``known_at``: a search then reads the keys memories had at that time, and one may have held
    an older version's key it has since been moved off (``memory_update``), which today's rows cannot
    tell.

    Raises:
        InvalidInput: field ``key``, the grammar in words (limit ``{"format": KEY_FORMAT}``).
        Unavailable: the database is down.
    """
    if key is None or known_at is not None or in_key_grammar(key):
        return
    lookup = SearchRequest(text="", top_k=1, now=now, key=key, statuses=_ANY_STATUS)
    if await reader.latest(scope, lookup, 1):
        return
    raise InvalidInput(
        "key",
        f"must be {KEY_FORMAT}: no memory holds this key, and no write can set it",
        {"format": KEY_FORMAT},
    )


MAX_FAMILY_SHOWN = 5
"""The keys below a filter's key a note names at most (in order)."""


async def key_family_note(
    reader: MemoryReader, scope: Scope, key: str | None, statuses: Sequence[MemoryStatus]
) -> str | None:
    """When a ``key`` filter (stored form) matched nothing but memories ``scope`` may read in one of
    ``statuses`` hold keys below it (``alex.allergy.peanuts`` under ``alex.allergy``): a note naming up to
    ``MAX_FAMILY_SHOWN`` of them and how to read them; None otherwise. One read; call it only when the
    filter matched nothing.

    The filter itself stays an exact match: a key holds one current value, and the README's one key per
    item (``alex.allergy.peanuts``, ``alex.allergy.shellfish``) makes the family's keys siblings, not
    values of ``alex.allergy``; matching the prefix would also change what every keyed search returns.
    But an empty answer to "alex.allergy" reads as "no allergies" (trial21): the note says where the
    facts are.

    Raises:
        Unavailable: the database is down.
    """
    if key is None:
        return None
    keys, total = await reader.keys_under(scope, key, statuses, MAX_FAMILY_SHOWN)
    if not keys:
        return None
    shown = ", ".join(f"'{k}'" for k in keys)
    more = f" (the first {len(keys)} of {total})" if total > len(keys) else ""
    below = f"{counted(total, 'key')} below it {agreeing(total, 'is', 'are')} held"
    return (
        f"no memory holds key '{key}' itself, but {below}: {shown}{more}; pass one of them as key, "
        "or leave key out and name the subject in the query"
    )
