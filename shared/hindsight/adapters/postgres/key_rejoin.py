"""A key's instants a removed or shortened bounded value leaves are given back to the values whose stated
periods cover them (trial 3: H5/H9, H6, H10).

A bounded value B inside a value P's period splits P (``key_resume``): P keeps ``[its start, B's start)``
and a continuation C of it holds from B's end. That split is derived from B's period, so when B goes (a
forget) or its end moves earlier (``memory_update``), the instants B held are a *hole* ``[h0, h1)`` that
the rule of the key's timeline — at each instant the value with the latest stated start among those whose
stated period contains it — gives back to whoever B had cut:

- P, the value that ended where the hole begins, holds again until its stated end (the end it had before
  the supersedes that cut it: ``end_before_cuts``) or the hole's end, whichever is first; when it reaches
  the hole's end and the value there is its own continuation, the two are one memory again (the
  continuation, derived data that nobody wrote, is dropped: ``drop``; its links and the continuations of it
  move to P); when another value begins there, P is a past value of it;
- a continuation that begins where the hole ends, of a value stated to hold over the rest of the hole,
  starts earlier (where P's part ends, or the hole's start).

Only a hole that ends (a bounded value, or one a later value cut) is filled: forgetting the key's open
current value leaves no value after it, as before. Callers hold the key's lock (``memory_writes.KEY_LOCK``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection

from hindsight.adapters.postgres.conflicts import supersede
from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.key_resume import PAST_VALUE, resume_after
from hindsight.adapters.postgres.rows import fetch_all, fetch_one
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import Scope, StoredMemory
from hindsight.domain.timetravel import DROPPED_CHANGE, RESUMES_METADATA_KEY, valid_start

REJOINED = "rejoined"
"""The ``changes`` key of a history row in which a value took back instants a bounded value had cut from
it (its value: the memory that left them); ``end_before_cuts`` reads such rows as derived, as supersedes'."""


@dataclass(frozen=True)
class Hole:
    """Instants ``[start, end)`` of a key that ``left`` (a forgotten or shortened value) no longer holds;
    ``was_active``: ``left`` was the key's fact (the value that takes its last instants takes that too)."""

    left: UUID
    start: datetime
    end: datetime | None
    was_active: bool


_ON_KEY = """SELECT id, status, valid_to AS until, metadata->>%(resumes)s AS resumes,
          coalesce(valid_from, occurred_at, created_at) AS since
   FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND key = %(key)s
     AND status IN ('active', 'superseded') AND NOT (id = ANY(%(not)s::uuid[]))
     AND coalesce(valid_to, 'infinity') > coalesce(valid_from, occurred_at, created_at)"""
_ENDS_AT = _ON_KEY + " AND valid_to = %(at)s ORDER BY created_at DESC, id DESC LIMIT 1"
"""The live value of a key whose (non-empty) period ends at an instant: the one a hole begins after."""
BEGINS_AT = (
    _ON_KEY + " AND coalesce(valid_from, occurred_at, created_at) = %(at)s ORDER BY created_at DESC, id DESC"
    " LIMIT 1"
)
"""The live value of a key whose (non-empty) period begins at an instant: the one a hole ends before."""
_ROOT_START = """WITH RECURSIVE up(id, resumes, since, depth) AS (
       SELECT id, metadata->>%(resumes)s, coalesce(valid_from, occurred_at, created_at), 0 FROM memories
        WHERE id = %(id)s AND tenant_id = %(t)s
       UNION ALL
       SELECT m.id, m.metadata->>%(resumes)s, coalesce(m.valid_from, m.occurred_at, m.created_at),
              up.depth + 1
         FROM up JOIN memories m ON m.tenant_id = %(t)s AND m.id = up.resumes::uuid
        WHERE up.resumes ~ '^[0-9a-f-]{36}$' AND up.depth < 64)
   SELECT id, since FROM up ORDER BY depth DESC LIMIT 1"""
"""The memory a continuation (of a continuation …) continues, the one that was written, and its start: the
continuation's stated start."""


async def end_before_cuts(
    conn: AsyncConnection, tenant_id: str, memory_id: UUID, end: datetime | None
) -> tuple[bool, datetime | None]:
    """Whether ``memory_id``'s end ``end`` (its ``valid_to``) is what supersedes (and rejoins) made of it —
    its latest changes of the end are theirs, the last gave it ``end`` — and the end it had before them
    (None: open): the end its writer stated, or an update gave it. (False, None) when its end is its
    own."""
    if end is None:
        return False, None
    rows = await fetch_all(
        conn,
        """SELECT action, changes ? %s AS rejoined, changes->'valid_to'->>'from' AS before,
                  changes->'valid_to'->>'to' AS after
           FROM memory_history
           WHERE memory_id = %s AND tenant_id = %s AND changes ? 'valid_to'
           ORDER BY at DESC, id DESC""",
        (REJOINED, memory_id, tenant_id),
    )
    expected: datetime | None = end
    found = False
    for row in rows:
        if (row["action"] != "superseded" and not row["rejoined"]) or row["after"] is None:
            break
        if expected is None or datetime.fromisoformat(row["after"]) != expected:
            break
        found = True
        expected = datetime.fromisoformat(row["before"]) if row["before"] is not None else None
    return found, expected


async def fill(
    conn: AsyncConnection,
    tenant_id: str,
    agent_id: str,
    key: str,
    hole: Hole,
    gone: Sequence[UUID],
    actor: str,
) -> list[str]:
    """Give ``hole``'s instants back (module doc); ``gone``: memories that hold nothing any more (the
    forgotten, and ``hole.left`` itself, which never takes its own hole back). A value before the hole
    that does not take it back is linked to the value after it (its successor), or, when the hole was
    the key's fact and nothing follows, is the key's fact again. What was done, in words."""
    if hole.end is not None and hole.end <= hole.start:
        return []
    scope = {"t": tenant_id, "a": agent_id, "key": key, "not": list(gone), "resumes": RESUMES_METADATA_KEY}
    before = await fetch_one(conn, _ENDS_AT, scope | {"at": hole.start})
    after = None if hole.end is None else await fetch_one(conn, BEGINS_AT, scope | {"at": hole.end})
    done: list[str] = []
    reached: datetime | None = hole.start
    if before is not None:
        cut, stated_end = await end_before_cuts(conn, tenant_id, before["id"], before["until"])
        if cut and (stated_end is None or stated_end > hole.start):
            reached = hole.end if _until(stated_end) >= _until(hole.end) else stated_end
            if reached == hole.end and after is not None and after["resumes"] == str(before["id"]):
                await _merge(conn, tenant_id, before, after, hole, actor)
                return [
                    f"{before['id']} holds again over {hole.left}'s instants, one memory with {after['id']}"
                ]
        # the key's fact left nothing after it: the value before it is the key's fact again
        status = "active" if hole.was_active and after is None else before["status"]
        if reached != hole.start or status != before["status"]:
            await _extend(conn, tenant_id, before, reached, status, hole, actor)
            done.append(f"{before['id']} holds until {reached.isoformat() if reached else 'no end'}")
        if reached == hole.end and after is not None:
            await supersede(conn, tenant_id, after["id"], before["id"], after["since"], PAST_VALUE, actor)
    if reached is not None and _until(reached) < _until(hole.end) and after is not None:
        root = await fetch_one(
            conn, _ROOT_START, {"id": after["id"], "t": tenant_id, "resumes": RESUMES_METADATA_KEY}
        )
        movable = after["resumes"] is not None and after["id"] != hole.left  # never the one that moved
        if movable and root is not None and root["since"] <= reached:
            why = f"holds from where {hole.left} ends now (its start is derived from that value's period)"
            await start_at(conn, tenant_id, after["id"], after["since"], reached, actor, why, hole.left)
            done.append(f"{after['id']} holds again from {reached.isoformat()}")
            reached = hole.end
        if before is not None:  # the value before is a past value of the one after it
            end = reached if reached is not None else before["until"]
            await supersede(conn, tenant_id, after["id"], before["id"], end, PAST_VALUE, actor)
    return done


def _until(moment: datetime | None) -> datetime:
    """An end for comparison: None (no end) after every instant."""
    return moment if moment is not None else datetime.max.replace(tzinfo=UTC)


async def _extend(
    conn: AsyncConnection,
    tenant_id: str,
    row: dict[str, Any],
    end: datetime | None,
    status: str,
    hole: Hole,
    actor: str,
) -> None:
    """``row``'s period runs on to ``end`` (None: no end) and its status becomes ``status``, with a history
    row (``REJOINED`` when the end moved); the ``supersedes`` link from the value that left the hole to it
    is removed (it ends it no more)."""
    await conn.execute(
        "UPDATE memories SET valid_to = %s, status = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
        (end, status, row["id"], tenant_id),
    )
    await _unlink(conn, tenant_id, hole.left, row["id"])
    changes: dict[str, Any] = {}
    if end != row["until"]:
        until = end.isoformat() if end is not None else None
        changes = {"valid_to": {"from": row["until"].isoformat(), "to": until}, REJOINED: str(hole.left)}
    if status != row["status"]:
        changes |= status_change(row["status"], status)
    why = f"holds again over the instants {hole.left} held"
    await record_history(conn, tenant_id, actor, HistoryRow(row["id"], "updated", why, changes))


async def _merge(
    conn: AsyncConnection, tenant_id: str, first: dict[str, Any], rest: dict[str, Any], hole: Hole, actor: str
) -> None:
    """``first`` and its continuation ``rest`` are one memory again: ``first`` takes ``rest``'s end and
    status, the links to and from ``rest`` (but those between the two and to the value that left the hole),
    and the continuations of ``rest``; ``rest`` is dropped (``drop``)."""
    await conn.execute(
        "UPDATE memories SET valid_to = %s, status = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
        (rest["until"], rest["status"], first["id"], tenant_id),
    )
    pair = [first["id"], rest["id"], hole.left]
    await conn.execute(
        """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, strength, reason)
           SELECT tenant_id, CASE WHEN from_id = %(rest)s THEN %(first)s ELSE from_id END,
                  CASE WHEN to_id = %(rest)s THEN %(first)s ELSE to_id END, kind, strength, reason
             FROM memory_relations
            WHERE tenant_id = %(t)s AND (from_id = %(rest)s OR to_id = %(rest)s)
              AND NOT (from_id = ANY(%(pair)s) AND to_id = ANY(%(pair)s))
           ON CONFLICT (from_id, to_id, kind) DO NOTHING""",
        {"t": tenant_id, "first": first["id"], "rest": rest["id"], "pair": pair},
    )
    await conn.execute(
        """UPDATE memories SET metadata = jsonb_set(metadata, ARRAY[%(k)s], to_jsonb(%(first)s::text))
           WHERE tenant_id = %(t)s AND metadata->>%(k)s = %(rest)s::text""",
        {"t": tenant_id, "k": RESUMES_METADATA_KEY, "first": first["id"], "rest": rest["id"]},
    )
    why = f"one memory again with {first['id']}, the value it continues, which holds its instants again"
    await drop(conn, tenant_id, rest["id"], rest["status"], first["id"], why, actor)
    await _unlink(conn, tenant_id, hole.left, first["id"])
    before = rest["until"].isoformat() if rest["until"] is not None else None
    changes: dict[str, Any] = {"valid_to": {"from": first["until"].isoformat(), "to": before}}
    if rest["status"] != first["status"]:
        changes |= status_change(first["status"], rest["status"])
    why = f"holds again over the instants {hole.left} held: one memory with its continuation {rest['id']}"
    await record_history(
        conn, tenant_id, actor, HistoryRow(first["id"], "updated", why, changes | {REJOINED: str(hole.left)})
    )


async def drop(
    conn: AsyncConnection, tenant_id: str, memory_id: UUID, status: str, by: UUID, why: str, actor: str
) -> None:
    """Drop the continuation ``memory_id`` (status ``status``), left holding nothing by ``by``'s change:
    derived data nobody wrote, so it goes out of every read of today (status ``forgotten``, its links
    removed), but it is not deleted: its row and history stay, with a ``DROPPED_CHANGE`` history row, so a
    ``known_at`` read at an instant it held still answers what the store held then (trial: the deleted
    continuation took that answer with it)."""
    await conn.execute(
        "DELETE FROM memory_relations WHERE tenant_id = %s AND (from_id = %s OR to_id = %s)",
        (tenant_id, memory_id, memory_id),
    )
    await conn.execute(
        "UPDATE memories SET status = 'forgotten', updated_at = now() WHERE id = %s AND tenant_id = %s",
        (memory_id, tenant_id),
    )
    changes = status_change(status, "forgotten") | {DROPPED_CHANGE: str(by)}
    await record_history(conn, tenant_id, actor, HistoryRow(memory_id, "updated", why, changes))


_DROPPED_BELOW = """WITH RECURSIVE down(id) AS (
       SELECT id FROM memories
        WHERE tenant_id = %(t)s AND layer = 'semantic' AND metadata->>%(resumes)s = ANY(%(ids)s::text[])
       UNION
       SELECT m.id FROM down
         JOIN memories m
           ON m.tenant_id = %(t)s AND m.layer = 'semantic' AND m.metadata->>%(resumes)s = down.id::text)
   SELECT m.id FROM memories m JOIN down ON down.id = m.id
    WHERE m.tenant_id = %(t)s AND m.status = 'forgotten' AND NOT m.id::text = ANY(%(ids)s::text[])
      AND EXISTS (SELECT 1 FROM memory_history h
                   WHERE h.tenant_id = %(t)s AND h.memory_id = m.id AND h.changes ? %(dropped)s)
    ORDER BY m.id"""
"""The dropped continuations (``drop``) of some memories, and of their continuations, at any depth."""


async def dropped_of(conn: AsyncConnection, tenant_id: str, ids: Sequence[UUID]) -> list[UUID]:
    """The continuations of ``ids`` (any depth) dropped earlier (``drop``): the same value, so a forget of
    it takes them along (soft: a ``known_at`` read no longer sees them either; hard: deleted)."""
    params = {"t": tenant_id, "ids": [str(i) for i in ids], "resumes": RESUMES_METADATA_KEY}
    rows = await fetch_all(conn, _DROPPED_BELOW, params | {"dropped": DROPPED_CHANGE})
    return [r["id"] for r in rows]


async def refuse_dropped(conn: AsyncConnection, tenant_id: str, memory_id: UUID) -> None:
    """Raise InvalidInput (field ``id``) when ``memory_id`` is a dropped continuation (``drop``): it holds
    nothing, its value holds its instants, so no change of it (a restore, an edit) can bring it back."""
    row = await fetch_one(
        conn,
        """SELECT changes->>%s AS by FROM memory_history
           WHERE tenant_id = %s AND memory_id = %s AND changes ? %s ORDER BY at DESC, id DESC LIMIT 1""",
        (DROPPED_CHANGE, tenant_id, memory_id, DROPPED_CHANGE),
    )
    if row is not None:
        raise InvalidInput(
            "id",
            f"memory {memory_id} held its value again after a value given an end inside its period, and "
            f"holds nothing since a change of memory {row['by']} (its value holds those instants, or ends "
            "before them): there is nothing to change or restore; change the value it continued instead",
        )


async def _unlink(conn: AsyncConnection, tenant_id: str, from_id: UUID, to_id: UUID) -> None:
    """Remove the ``supersedes`` link ``from_id`` → ``to_id`` (the value that left a hole ends the one that
    takes it back no more)."""
    await conn.execute(
        """DELETE FROM memory_relations WHERE tenant_id = %s AND from_id = %s AND to_id = %s
           AND kind = 'supersedes'""",
        (tenant_id, from_id, to_id),
    )


async def start_at(
    conn: AsyncConnection,
    tenant_id: str,
    memory_id: UUID,
    was: datetime,
    start: datetime,
    actor: str,
    why: str,
    left: UUID | None = None,
) -> None:
    """Move a continuation's derived start (``key_resume``) from ``was`` to ``start``, with its history row
    (``why``; ``left``: the value whose instants it takes, marked ``REJOINED`` for a restore of it)."""
    await conn.execute(
        "UPDATE memories SET valid_from = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
        (start, memory_id, tenant_id),
    )
    changes: dict[str, Any] = {"valid_from": {"from": was.isoformat(), "to": start.isoformat()}}
    if left is not None:
        changes[REJOINED] = str(left)
    await record_history(conn, tenant_id, actor, HistoryRow(memory_id, "updated", why, changes))


async def holes_of(conn: AsyncConnection, tenant_id: str, ids: Sequence[UUID]) -> list[tuple[str, str, Hole]]:
    """The holes the memories ``ids`` would leave (read before they go): (agent, key, hole) for each keyed
    semantic one that holds a non-empty period that ends."""
    rows = await fetch_all(
        conn,
        """SELECT id, agent_id, key, status, valid_to, coalesce(valid_from, occurred_at, created_at) AS since
           FROM memories
           WHERE id = ANY(%s) AND tenant_id = %s AND layer = 'semantic' AND key IS NOT NULL
             AND status IN ('active', 'superseded') AND valid_to IS NOT NULL
             AND valid_to > coalesce(valid_from, occurred_at, created_at)
           ORDER BY since""",
        (list(ids), tenant_id),
    )
    return [
        (r["agent_id"], r["key"], Hole(r["id"], r["since"], r["valid_to"], r["status"] == "active"))
        for r in rows
    ]


async def stated_start(conn: AsyncConnection, tenant_id: str, memory_id: UUID) -> datetime:
    """When the value of ``memory_id`` was stated to begin: its own start, or for a continuation its
    original's (``_ROOT_START``)."""
    row = await fetch_one(
        conn, _ROOT_START, {"id": memory_id, "t": tenant_id, "resumes": RESUMES_METADATA_KEY}
    )
    assert row is not None
    since: datetime = row["since"]
    return since


ENDED_BEFORE_NOW = "its end moved before now: the value after it holds today"
"""The reason of the ``supersedes`` link from the value after a key's fact whose end an update moved into
the past."""


async def shortened(
    conn: AsyncConnection, scope: Scope, memory: StoredMemory, was: datetime, actor: str
) -> None:
    """``memory`` (a keyed value; its end just moved from ``was`` to an earlier ``memory.valid_to`` by
    ``memory_update``) gives up ``[its end, was)``: the value it had cut holds there again — its
    continuation starts earlier (``fill``), or, when the value there is another one, a continuation is made
    for the instants its stated period covers (``key_resume.resume_after``). A key's fact whose end is now
    past is superseded by the value that holds after it, if any (trial 3 H6: it stayed today's fact). The
    caller holds the key's lock."""
    end = memory.valid_to
    assert end is not None
    assert memory.key is not None
    await cut_pieces(conn, scope, memory, end, actor)
    hole = Hole(memory.id, end, was, memory.status == "active")
    if not await fill(conn, scope.tenant_id, scope.agent_id, memory.key, hole, [memory.id], actor):
        where: dict[str, Any] = {"t": scope.tenant_id, "a": scope.agent_id, "key": memory.key}
        where |= {"not": [memory.id], "resumes": RESUMES_METADATA_KEY, "at": valid_start(memory)}
        cut = await fetch_one(conn, _ENDS_AT, where)
        if cut is not None:
            found, stated = await end_before_cuts(conn, scope.tenant_id, cut["id"], cut["until"])
            if found and (stated is None or stated > end):
                until = was if stated is None or stated > was else stated
                interrupted = [{"id": cut["id"], "status": "superseded", "until": until}]
                await resume_after(conn, scope.tenant_id, memory.id, interrupted, actor)
    if memory.status != "active":
        return
    clock = await fetch_one(conn, "SELECT now() AS now")
    assert clock is not None
    if end <= clock["now"]:
        at: dict[str, Any] = {"t": scope.tenant_id, "a": scope.agent_id, "key": memory.key, "at": end}
        after = await fetch_one(conn, BEGINS_AT, at | {"not": [memory.id], "resumes": RESUMES_METADATA_KEY})
        if after is not None:
            await supersede(conn, scope.tenant_id, after["id"], memory.id, end, ENDED_BEFORE_NOW, actor)


_CONTINUATIONS = """WITH RECURSIVE down(id) AS (
       SELECT id FROM memories WHERE tenant_id = %(t)s AND metadata->>%(resumes)s = %(id)s::text
       UNION
       SELECT m.id FROM down
         JOIN memories m ON m.tenant_id = %(t)s AND m.metadata->>%(resumes)s = down.id::text)
   SELECT m.id, m.status, m.valid_to AS until, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since
     FROM memories m JOIN down ON down.id = m.id
    WHERE m.tenant_id = %(t)s AND m.status IN ('active', 'superseded')
      AND coalesce(m.valid_to, 'infinity') > %(end)s
    ORDER BY since DESC"""
"""The live continuations of a memory (and of its continuations) that hold past an instant, latest first."""


async def cut_pieces(
    conn: AsyncConnection, scope: Scope, memory: StoredMemory, end: datetime, actor: str
) -> int:
    """The continuations of ``memory`` (its stated end just moved earlier, to ``end``) hold nothing past
    ``end``: one that begins there or later is dropped (``drop``: derived data), one that runs past it
    ends there; the instants they gave up go back as any hole (``fill``). How many there were. (Also when
    the stored end does not move: a split value given the end it already held until keeps no continuation
    after it.)"""
    assert memory.key is not None
    params = {"t": scope.tenant_id, "resumes": RESUMES_METADATA_KEY, "id": memory.id, "end": end}
    pieces = await fetch_all(conn, _CONTINUATIONS, params)
    for piece in pieces:
        if piece["since"] >= end:
            hole = Hole(piece["id"], piece["since"], piece["until"], piece["status"] == "active")
            why = f"the value it continues, {memory.id}, ends at {end.isoformat()} now, before it begins"
            await drop(conn, scope.tenant_id, piece["id"], piece["status"], memory.id, why, actor)
        else:
            hole = Hole(piece["id"], end, piece["until"], piece["status"] == "active")
            await conn.execute(
                "UPDATE memories SET valid_to = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
                (end, piece["id"], scope.tenant_id),
            )
            until = piece["until"].isoformat() if piece["until"] is not None else None
            changes = {"valid_to": {"from": until, "to": end.isoformat()}}
            why = f"the value it continues, {memory.id}, ends at {end.isoformat()} now"
            await record_history(
                conn, scope.tenant_id, actor, HistoryRow(piece["id"], "updated", why, changes)
            )
        await fill(conn, scope.tenant_id, scope.agent_id, memory.key, hole, [memory.id, piece["id"]], actor)
    return len(pieces)


async def leave_key(conn: AsyncConnection, scope: Scope, memory: StoredMemory, actor: str) -> None:
    """``memory`` (a keyed value, as read before an update moves it onto another key) leaves its key's
    timeline: its continuations there (``key_resume``: the same value, derived from that key's values)
    are dropped, and the instants it and they held until an end go back to the key's other values as a
    forget's do (``fill``; trial F10: the value it had cut held nowhere over them). Called before its key
    changes; the caller holds the old key's lock."""
    assert memory.key is not None
    params = {
        "t": scope.tenant_id,
        "resumes": RESUMES_METADATA_KEY,
        "id": memory.id,
        "end": valid_start(memory),
    }
    pieces = await fetch_all(conn, _CONTINUATIONS, params)
    gone = [memory.id, *(p["id"] for p in pieces)]
    holes = await holes_of(conn, scope.tenant_id, gone)
    for piece in pieces:
        why = f"the value it continues, {memory.id}, moved to another key"
        await drop(conn, scope.tenant_id, piece["id"], piece["status"], memory.id, why, actor)
    for agent_id, key, hole in holes:
        await fill(conn, scope.tenant_id, agent_id, key, hole, gone, actor)


async def started_later(
    conn: AsyncConnection, scope: Scope, memory: StoredMemory, was: datetime, actor: str
) -> None:
    """``memory`` (a keyed value; its start just moved from ``was`` to a later one by ``memory_update``)
    gives up ``[was, its start)``: the value it had cut there holds on until it begins (``fill``; trial 3:
    the instants stayed empty). The caller holds the key's lock."""
    assert memory.key is not None
    if memory.status not in ("active", "superseded"):
        return
    hole = Hole(memory.id, was, valid_start(memory), False)
    await fill(conn, scope.tenant_id, scope.agent_id, memory.key, hole, [], actor)


def _overlap(a: tuple[datetime, datetime | None], b: tuple[datetime, datetime | None]) -> bool:
    """Whether two half-open periods (end None: open) share an instant; an empty one shares none."""
    (a0, a1), (b0, b1) = a, b
    if (a1 is not None and a1 <= a0) or (b1 is not None and b1 <= b0):
        return False
    return (b1 is None or a0 < b1) and (a1 is None or b0 < a1)


_PIECES_BELOW = """SELECT id FROM memories m
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND metadata->>%(resumes)s = ANY(%(ids)s::text[])
     AND NOT EXISTS (SELECT 1 FROM memory_history h
                      WHERE h.tenant_id = %(t)s AND h.memory_id = m.id AND h.changes ? %(dropped)s)"""
"""The continuations of some memories, but those dropped (``drop``: never a piece again)."""
_PRIOR_STATUS = """SELECT DISTINCT ON (memory_id) memory_id, changes->'status'->>'from' AS status
   FROM memory_history WHERE tenant_id = %s AND memory_id = ANY(%s) AND action = 'forgotten'
   ORDER BY memory_id, at DESC, id DESC"""
"""The status each memory had before its latest forget."""


async def restore_as_before(
    conn: AsyncConnection, scope: Scope, memory: StoredMemory, reason: str | None, actor: str
) -> list[dict[str, Any]] | None:
    """Undo the forget of a keyed value: ``memory`` and, when it is a piece of a split value
    (``key_resume``), the other pieces forgotten with it (a forget of one takes the others along) get back
    the status each had before, their periods unchanged — the value holds again exactly where it held
    (trial 3 H10: restoring the first piece alone made it the value from its start with no end, over the
    bounded value inside its period, whose period became empty; a past value restored after its forget
    became the fact over the value after it). A value written since that begins inside the period of
    ``memory`` (a bounded value of its own, not split) ends it: ``memory`` holds until that one begins, a
    past value of it (and again after it when it ends first) — a trial found that value emptied ([its
    start, its start)) and nothing held after ``memory``'s end. The pieces restored (id, since, until,
    status); None (nothing done) when another value of the key written since holds at an instant a piece
    held — the restore of ``memory`` alone then settles it with that value, as any restore. The caller
    holds the key's lock."""
    assert memory.key is not None
    params = {"t": scope.tenant_id, "a": scope.agent_id, "resumes": RESUMES_METADATA_KEY}
    params["dropped"] = DROPPED_CHANGE
    root = await fetch_one(conn, _ROOT_START, params | {"id": memory.id})
    assert root is not None
    group, frontier = {root["id"]}, [str(root["id"])]
    while frontier:
        found = await fetch_all(conn, _PIECES_BELOW, params | {"ids": frontier})
        frontier = [str(r["id"]) for r in found if r["id"] not in group]
        group |= {r["id"] for r in found}
    pieces = await fetch_all(
        conn,
        """SELECT id, valid_to AS until, coalesce(valid_from, occurred_at, created_at) AS since FROM memories
           WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s AND key = %s AND status = 'forgotten'
           ORDER BY since, id FOR UPDATE""",
        (list(group | {memory.id}), scope.tenant_id, scope.agent_id, memory.key),
    )
    if all(p["id"] != memory.id for p in pieces):
        return None
    ids = [p["id"] for p in pieces]
    prior = {
        r["memory_id"]: r["status"] for r in await fetch_all(conn, _PRIOR_STATUS, (scope.tenant_id, ids))
    }
    if any(prior.get(i) not in ("active", "superseded") for i in ids):
        return None
    others = await fetch_all(conn, _ON_KEY + " FOR UPDATE", params | {"key": memory.key, "not": ids})
    # the values that took back a piece's instants at its forget (fill) give them back now
    took = {
        r["memory_id"] for r in await fetch_all(conn, _TOOK_BACK, (scope.tenant_id, [str(i) for i in ids]))
    }
    since = [o for o in others if o["id"] not in took]  # values that took nothing of it: written since
    later: dict[str, Any] | None = None
    for piece in pieces:
        period = (piece["since"], piece["until"])
        overlapping = [o for o in since if _overlap(period, (o["since"], o["until"]))]
        # an open value or a split value's piece: the fallback below (the fact again from its start)
        alone = len(pieces) == 1 and piece["until"] is not None
        if overlapping and (not alone or any(o["since"] <= piece["since"] for o in overlapping)):
            return None
        if overlapping:  # a value written since begins inside it: it holds until that one (trial: HIGH)
            later = min(overlapping, key=lambda o: o["since"])
    for piece in pieces:
        await conn.execute(
            "UPDATE memories SET status = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
            (prior[piece["id"]], piece["id"], scope.tenant_id),
        )
    rows = [
        HistoryRow(
            i,
            "restored",
            reason if i == memory.id else f"restored with {memory.id}, the same value",
            status_change("forgotten", prior[i]),
        )
        for i in ids
    ]
    await record_history(conn, scope.tenant_id, actor, *rows)
    for piece in pieces:
        if prior[piece["id"]] in ("active", "superseded"):
            for other in (o for o in others if o["id"] in took):
                if _overlap((piece["since"], piece["until"]), (other["since"], other["until"])):
                    await _give_back(conn, scope.tenant_id, piece, other, actor)
    if later is not None:  # a past value of it, as a write of it would be; again after it if it ends first
        [piece] = pieces
        await supersede(conn, scope.tenant_id, later["id"], piece["id"], later["since"], PAST_VALUE, actor)
        if later["until"] is not None and _until(piece["until"]) > later["until"]:
            interrupted = [{"id": piece["id"], "status": prior[piece["id"]], "until": piece["until"]}]
            await resume_after(conn, scope.tenant_id, later["id"], interrupted, actor)
        return [piece | {"status": "superseded", "until": later["since"]}]
    return [p | {"status": prior[p["id"]]} for p in pieces]


_TOOK_BACK = """SELECT DISTINCT memory_id FROM memory_history
   WHERE tenant_id = %s AND changes->>'rejoined' = ANY(%s::text[])"""
"""The memories that took back instants one of some values held (``REJOINED`` history rows)."""


async def _give_back(
    conn: AsyncConnection, tenant_id: str, piece: dict[str, Any], other: dict[str, Any], actor: str
) -> None:
    """``other`` took ``piece``'s instants when it was forgotten (``fill``); ``piece`` is restored: a value
    that began before it ends where it begins and, when it held past its end, holds again after it
    (``key_resume.resume_after``); a continuation that began inside it begins where it ends."""
    if other["since"] < piece["since"]:
        await supersede(conn, tenant_id, piece["id"], other["id"], piece["since"], PAST_VALUE, actor)
        if piece["until"] is not None and _until(other["until"]) > piece["until"]:
            interrupted = [{"id": other["id"], "status": other["status"], "until": other["until"]}]
            await resume_after(conn, tenant_id, piece["id"], interrupted, actor)
    elif piece["until"] is not None and _until(other["until"]) > piece["until"]:
        why = f"{piece['id']} holds again until {piece['until'].isoformat()} (restored)"
        await start_at(conn, tenant_id, other["id"], other["since"], piece["until"], actor, why)
        await supersede(conn, tenant_id, other["id"], piece["id"], piece["until"], PAST_VALUE, actor)


def pieces_note(pieces: Sequence[dict[str, Any]]) -> str:
    """``memory_update`` restore's note when the pieces of a split value came back together
    (``restore_as_before``)."""
    parts = [
        f"memory {p['id']} from {p['since'].isoformat()} "
        + (f"until {p['until'].isoformat()}" if p["until"] is not None else "with no end")
        + f" ({p['status']})"
        for p in pieces
    ]
    return (
        "restored with the other pieces of its value (split around a value given an end inside its "
        "period), each as it was before the forget: " + "; ".join(parts)
    )
