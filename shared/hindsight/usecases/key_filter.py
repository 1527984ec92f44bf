"""The ``key`` filter of ``memory_search`` and ``memory_summarize``: a key outside the key grammar is
refused, unless a memory holds it.

A filter is not held to the grammar in the tool schema (``MemoryKey``, not ``NewMemoryKey``): a memory an
older version stored under a key the grammar refuses ("user city!!") stays found by its key. But such a
key names nothing else — no write can set it — so when no memory the caller may read holds it, the
filter is a mistyped key ("user..home", "user/home"), and an empty answer would read as "nothing is
known". It is refused instead, naming ``key`` and the grammar, as ``memory_write`` refuses it (trial:
a bad key filter answered with a silent empty result)."""

from __future__ import annotations

from datetime import datetime

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
