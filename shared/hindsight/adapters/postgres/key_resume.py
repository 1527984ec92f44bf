"""A value of a key that a bounded value interrupts holds again after it (trial 08:25 M3).

A key holds one value at each instant (``memory_writes.order_on_key``, ``fit_in_past``). A value given an
end (``valid_to``: an ingest line, an imported past value) that begins inside another value's period ends
that one where it begins; when the other one held past the bounded value's end, it was true before the
bounded value and, as far as anything stored says, after it too ("Sam lives in Lisbon" from January, then
"Sam was in Braga" from March to April: Lisbon again from April). A memory has one period, so the value
is split, as a temporal table splits a row updated for a portion of its period (SQL:2011 ``FOR PORTION
OF``): the interrupted memory keeps the part before (``[its start, the bounded value's start)``), and a
**continuation** — a copy of it (content, key, source, embedding, chunks, tags, entities, metadata) with a
new id — holds the part after (``[the bounded value's end, the interrupted value's old end)``), in the
interrupted memory's status (``active`` when it was the key's fact: it stays the key's fact). The
continuation supersedes the bounded value (its successor on the key); a past value's continuation is
superseded by the value that ended the interrupted one. It carries ``metadata.resumes`` (the interrupted
memory's id) and a ``related`` link to it, and a forget of either takes the other along
(``adapters.postgres.forgetting``): they are one statement. No gap is left where a value was known, and
no two values of the key hold at one instant.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection

from hindsight.adapters.postgres.conflicts import relate_if_new, supersede
from hindsight.adapters.postgres.history import HistoryRow, record_history
from hindsight.adapters.postgres.rows import fetch_all, fetch_one
from hindsight.domain.ids import uuid7
from hindsight.domain.timetravel import RESUMES_METADATA_KEY

RESUMED = "the value it interrupted holds again after it"
"""The reason of the ``supersedes`` link from a continuation to the bounded value it follows."""
RESUMES_LINK = "resumes it: the same value, held again after a bounded value inside its period"
"""The reason of the ``related`` link from a continuation to the memory it continues."""
PAST_VALUE = "a newer value on the same key: the older one is a past value of it"
"""The reason of the ``supersedes`` link from a key's holder to a past value written after it (re-exported
by ``memory_writes``), and from the value that ended an interrupted one to its continuation."""

_OWN = {
    "id": "%(new)s",
    "valid_from": "%(start)s",
    "valid_to": "%(end)s",
    "status": "%(status)s",
    "created_at": "now()",
    "updated_at": "now()",
    "version": "1",
    "metadata": "m.metadata || jsonb_build_object(%(marker)s::text, %(old)s::text)",
    # a position in a conversation or a session chain, an idempotency key, access and decay belong to
    # the memory that was written: the continuation is a part of its validity, not another write
    "idempotency_key": "NULL",
    "session_id": "NULL",
    "session_seq": "NULL",
    "session_auto_parent": "false",
    "conversation_id": "NULL",
    "turn_index": "NULL",
    "session_index": "NULL",
    "access_count": "0",
    "last_accessed_at": "NULL",
    "decayed_at": "NULL",
}
"""The columns a continuation does not copy from the memory it continues, and what it has instead."""
_COLUMNS = """SELECT column_name FROM information_schema.columns
   WHERE table_schema = current_schema() AND table_name = 'memories' AND is_generated = 'NEVER'
   ORDER BY ordinal_position"""
_NEXT_ON_KEY = """SELECT id FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND key = %(key)s
     AND status IN ('active', 'superseded') AND id <> ALL(%(not)s::uuid[])
     AND coalesce(valid_from, occurred_at, created_at) = %(at)s
   ORDER BY created_at DESC, id DESC LIMIT 1"""
"""The value of a key that began at an instant (the one that ended a past value there)."""


async def resume_after(
    conn: AsyncConnection, tenant_id: str, bounded: UUID, interrupted: Sequence[dict[str, Any]], actor: str
) -> list[tuple[UUID, UUID]]:
    """Split each value in ``interrupted`` that held past the end of ``bounded`` (rows with ``id``,
    ``status`` and ``until``: status and ``valid_to`` before ``bounded`` ended it, None = open) around it:
    a continuation holds from ``bounded``'s end (read now, after every supersede of the caller) until
    ``until`` (module docstring). The caller holds the key's lock and has already ended each of them where
    ``bounded`` begins. Returns (interrupted id, continuation id) pairs; none when ``bounded`` is open or
    ended no value that held past its end."""
    row = await fetch_one(
        conn,
        """SELECT agent_id, key, valid_to, status = 'active'
                  AND coalesce(valid_from, occurred_at, created_at) <= now() AND now() < valid_to AS now
           FROM memories WHERE id = %s AND tenant_id = %s""",
        (bounded, tenant_id),
    )
    if row is None or row["valid_to"] is None or row["key"] is None:
        return []
    end: datetime = row["valid_to"]
    made: list[tuple[UUID, UUID]] = []
    for old in interrupted:
        if old["until"] is not None and old["until"] <= end:
            continue
        new = uuid7()
        await _copy(conn, tenant_id, old, new, end)
        await relate_if_new(conn, tenant_id, new, old["id"], "related", RESUMES_LINK)
        until = old["until"].isoformat() if old["until"] is not None else "open"
        why = f"continues {old['id']} after {bounded}: holds from {end.isoformat()} until {until}"
        await record_history(conn, tenant_id, actor, HistoryRow(new, "created", why))
        if old["until"] is not None and old["status"] == "superseded":
            after = await fetch_one(
                conn,
                _NEXT_ON_KEY,
                {
                    "t": tenant_id,
                    "a": row["agent_id"],
                    "key": row["key"],
                    "at": old["until"],
                    "not": [new, old["id"], bounded],
                },
            )
            if after is not None:  # the value that ended the interrupted one ends its continuation
                await relate_if_new(conn, tenant_id, after["id"], new, "supersedes", PAST_VALUE)
        if old["status"] == "active" and row["now"]:
            # the bounded value holds now: it stays the key's fact, the continuation is upcoming (its
            # valid_from is after now: search flags it); linked as its successor from its end
            await relate_if_new(conn, tenant_id, new, bounded, "supersedes", RESUMED)
        else:
            await supersede(conn, tenant_id, new, bounded, end, RESUMED, actor)
        made.append((old["id"], new))
    return made


async def _copy(
    conn: AsyncConnection, tenant_id: str, old: dict[str, Any], new: UUID, start: datetime
) -> None:
    """Insert the continuation ``new`` of ``old`` (every column of the live schema copied but ``_OWN``'s)
    and its chunks."""
    columns = [r["column_name"] for r in await fetch_all(conn, _COLUMNS)]
    values = ", ".join(_OWN.get(c, f'm."{c}"') for c in columns)
    names = ", ".join(f'"{c}"' for c in columns)
    await conn.execute(
        f"INSERT INTO memories ({names}) SELECT {values} FROM memories m "
        "WHERE m.id = %(old)s AND m.tenant_id = %(t)s",
        {
            "new": new,
            "old": old["id"],
            "t": tenant_id,
            "start": start,
            "end": old["until"],
            "status": old["status"],
            "marker": RESUMES_METADATA_KEY,
        },
    )
    await conn.execute(
        """INSERT INTO memory_chunks (memory_id, chunk_no, tenant_id, agent_id, content, embedding)
           SELECT %s, chunk_no, tenant_id, agent_id, content, embedding FROM memory_chunks
           WHERE memory_id = %s AND tenant_id = %s""",
        (new, old["id"], tenant_id),
    )


def resumed_reason(old: UUID, new: UUID) -> str:
    """The write outcome's part for a value split around the write (``resume_after``)."""
    return f"{old} holds again after it as {new}"


_NEXT_AFTER = """SELECT id, valid_to AS until, coalesce(valid_from, occurred_at, created_at) AS since
   FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND key = %(key)s
     AND status IN ('active', 'superseded') AND id <> ALL(%(not)s::uuid[])
     AND coalesce(valid_from, occurred_at, created_at) >= %(end)s
     AND coalesce(valid_from, occurred_at, created_at) < coalesce(%(until)s::timestamptz, 'infinity')
     -- a value that never held (an empty period: a continuation a newer open value superseded) is no end
     AND coalesce(valid_to, 'infinity') > coalesce(valid_from, occurred_at, created_at)
   ORDER BY 2, created_at DESC, id DESC LIMIT 1"""
"""The earliest value of a key that began in ``[end, until)`` (the one a continuation runs up to), with its
own end (where the next gap may open)."""


async def resume_written_after(
    conn: AsyncConnection,
    tenant_id: str,
    written: UUID,
    stated_end: datetime | None,
    holder: dict[str, Any],
    actor: str,
) -> list[tuple[UUID, UUID]]:
    """The same split when the interrupted value arrives second (trial 11:08 H1): ``written`` (a value true
    until ``stated_end``, None = open, that the caller has just stored as a past value of ``holder``, a
    ``KEY_HOLDERS``/``PAST_ON_KEY`` row with ``id`` and ``until``) began before a bounded ``holder`` and
    held past its end, so it holds again in every gap the key's later values leave before ``stated_end``:
    after ``holder`` until the next value that began after it (superseded by that one), after that one
    when it is bounded too, and so on; after the last, until ``stated_end`` as the key's fact
    (``active``) — as if it had been written first: a key's timeline does not depend on arrival order.
    Returns the (``written``, continuation) pairs; none when ``holder`` is open or ``written`` ended with
    it."""
    row = await fetch_one(
        conn, """SELECT agent_id, key FROM memories WHERE id = %s AND tenant_id = %s""", (written, tenant_id)
    )
    if row is None or row["key"] is None:
        return []
    made: list[tuple[UUID, UUID]] = []
    before: UUID = holder["id"]
    end: datetime | None = holder.get("until")
    skip = [written, before]
    while end is not None and (stated_end is None or end < stated_end):
        following = await fetch_one(
            conn,
            _NEXT_AFTER,
            {
                "t": tenant_id,
                "a": row["agent_id"],
                "key": row["key"],
                "not": skip,
                "end": end,
                "until": stated_end,
            },
        )
        until = following["since"] if following is not None else stated_end
        if until is None or until > end:  # a gap after ``before``: the written value holds there
            status = "superseded" if following is not None else "active"
            made += await resume_after(
                conn, tenant_id, before, [{"id": written, "status": status, "until": until}], actor
            )
            skip += [new for _, new in made[-1:]]
        if following is None:
            break
        before, end = following["id"], following["until"]
        skip.append(before)
    return made


def written_after_reason(bounded: UUID, new: UUID) -> str:
    """The write outcome's part for a past value that holds again after the bounded value it began before
    (``resume_written_after``)."""
    return f"holds again after {bounded} (a value given an end inside its period) as {new}"
