"""Changes by id (memory_update, memory_forget, memory_link, memory_feedback) and access bookkeeping.

Every change writes a ``memory_history`` row with what changed, why and who asked, in the same
transaction; every statement is scoped to the caller's tenant and agent.

Optimistic concurrency: a change that names ``expected_version`` locks the row (``SELECT … FOR UPDATE``),
compares its version and refuses with ``VersionConflict`` when it moved on — the check and the change
are one transaction under the row lock, so of N concurrent changes expecting version v exactly one
wins. The version itself is bumped by the ``memories_version`` trigger (migration ``memory_versions``).

A key names one fact (per tenant, agent and the semantic layer, as the worker's write path keeps it): an
update that moves an active semantic memory onto a key supersedes the active facts already on it, as a
``memory_write`` with that key would, under the same advisory key lock the worker takes (taken before the
row lock, as the worker does), so a concurrent write or update on the key cannot leave two active facts.
A restore (status back to ``active``) of a semantic memory with a key does the same: the restored fact is
the one on its key again, under that key's lock; the end of validity its supersedes gave it is undone (it
holds again — to the end it had before them, if the caller gave it one; the history keeps the end), and it
is put back into the key's timeline from its own start (``_fit_restored``): one value at each instant,
by the write's source rules (a restored inference never ends what the user stated: both kept, linked
``contradicts``; nor silently takes a key whose user statement is archived), and the values of an additive
pair leave each other as they are unless one replaced the other (``_settled_on_restore``). A restored
key-less fact is
the fact again the same way, fitted among its chain of successors (a contradiction, a supersede, a
supersedes link, followed through successors superseded since) as among a key's values.

An update that moves a keyed semantic value's period (``valid_from``, ``valid_to``) is settled with the
key's other values by the write path's rule (``domain.contradiction.order_contradiction``), under the
key's lock: a past value it now begins inside ends where it begins (as a write's value ends it,
``memory_writes.fit_in_past``); a value that would now begin inside its period, or that it may not end
(the source rules), refuses the change (``InvalidInput`` naming the end changed and that memory) — two
values of a key never hold at one instant, except additions and the pairs the source rules keep. A split
value (``key_resume``) follows its bounded value's period (``key_rejoin``): an end moved earlier gives the
instants back to the value it cut, an end moved later moves that value's continuation instead of refusing,
a forget of the bounded value makes the split value whole, and a restore of a forgotten piece restores the
pieces forgotten with it as they were.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection, Rollback, sql
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.conflicts import check_edited, check_restored, supersede
from hindsight.adapters.postgres.derived_edits import follow_edit
from hindsight.adapters.postgres.forgetting import forget_with_derived
from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.injection_labels import injection_params
from hindsight.adapters.postgres.key_rejoin import (
    BEGINS_AT,
    cut_pieces,
    drop,
    end_before_cuts,
    leave_key,
    pieces_note,
    refuse_dropped,
    restore_as_before,
    shortened,
    start_at,
    started_later,
    stated_start,
)
from hindsight.adapters.postgres.key_resume import resume_after
from hindsight.adapters.postgres.memory_writes import (
    ARCHIVED_STATEMENT,
    ARCHIVED_STATEMENTS,
    KEY_LOCK,
    KEY_LOCKS,
    LATER_VALUE,
    PAST_VALUE,
    key_lock,
)
from hindsight.adapters.postgres.rows import (
    MEMORY_COLUMNS,
    fetch_all,
    fetch_one,
    memory_from_row,
    relation_from_row,
    tenant_execute,
    tenant_transaction,
    vector_literal,
)
from hindsight.domain.contradiction import CONFLICT_COSINE, is_additive, order_contradiction, resolve
from hindsight.domain.errors import InvalidInput
from hindsight.domain.maintenance import CONSOLIDATION_MIN_SIZE, PatternPolicy
from hindsight.domain.memory import (
    MemoryChanges,
    MemoryStatus,
    Relation,
    Scope,
    StoredMemory,
    check_event_time,
    check_supersedes_link,
    check_validity_period,
    content_hash,
)
from hindsight.domain.text import entity_terms, same_information
from hindsight.domain.timetravel import RESUMES_METADATA_KEY, held_from, takes_key, valid_start
from hindsight.domain.versions import check_memory_version
from hindsight.ports import EditedMemory, ForgetOutcome, Vector

ACCESS_DEBOUNCE = timedelta(hours=1)
"""Recalls of one memory within this window count as one access (frequency is per session, not per hit)."""


MOVED_ONTO_KEY = "moved onto the same key by memory_update"
"""The ``supersedes`` relation's reason when an update moves a memory onto a key another fact held."""
RESTORED_ONTO_KEY = "restored onto its key by memory_update"
"""The ``supersedes`` relation's reason when a restored memory takes back a key another fact held."""
LINKED_SUPERSEDES = "superseded by memory_link"
"""The reason ``conflicts.supersede`` is given when a ``supersedes`` link retires its target (the relation
then keeps the caller's reason, or none)."""

_KEY_HOLDERS = """SELECT id FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s AND status = 'active'
     AND id <> %s
   ORDER BY created_at, id FOR UPDATE"""


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


async def _locked(conn: AsyncConnection, scope: Scope, memory_id: UUID) -> StoredMemory | None:
    row = await fetch_one(
        conn,
        sql.SQL(
            "SELECT {c} FROM memories m WHERE m.id = %s AND m.tenant_id = %s AND m.agent_id = %s FOR UPDATE"
        ).format(c=MEMORY_COLUMNS),
        (memory_id, scope.tenant_id, scope.agent_id),
    )
    return memory_from_row(row) if row else None


async def _reload(conn: AsyncConnection, memory_id: UUID) -> StoredMemory:
    row = await fetch_one(
        conn, sql.SQL("SELECT {c} FROM memories m WHERE m.id = %s").format(c=MEMORY_COLUMNS), (memory_id,)
    )
    assert row is not None
    return memory_from_row(row)


async def _lock_keys(conn: AsyncConnection, scope: Scope, memory_id: UUID, key: str | None) -> str | None:
    """For an update to ``key``: the worker's advisory locks of the memory's current key and of ``key``,
    taken before its row lock as the worker does (no deadlock with a write), both at once in hash order
    (two updates swapping keys cannot deadlock): a write on either key waits for the move, and a move
    waits for the writes. The key read (unlocked) before locking; None when ``key`` is None (no lock)."""
    if key is None:
        return None
    row = await fetch_one(
        conn,
        "SELECT key FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s",
        (memory_id, scope.tenant_id, scope.agent_id),
    )
    old = row["key"] if row is not None else None
    names = [key_lock(scope.tenant_id, scope.agent_id, k) for k in {key, old} if k is not None]
    await conn.execute(KEY_LOCKS, (names,))
    return old


async def _lock_own_key(conn: AsyncConnection, scope: Scope, memory_id: UUID) -> str | None:
    """For a restore: the worker's advisory lock of the memory's key, taken before its row lock as the
    worker does. The key read (unlocked) before locking; None (no lock) when it has none."""
    row = await fetch_one(
        conn,
        "SELECT key FROM memories WHERE id = %s AND tenant_id = %s AND agent_id = %s",
        (memory_id, scope.tenant_id, scope.agent_id),
    )
    key: str | None = row["key"] if row is not None else None
    if key is not None:
        await conn.execute(KEY_LOCK, (key_lock(scope.tenant_id, scope.agent_id, key),))
    return key


async def _take_key(
    conn: AsyncConnection, scope: Scope, memory_id: UUID, key: str, actor: str, why: str = MOVED_ONTO_KEY
) -> list[UUID]:
    """``memory_id`` (just moved onto ``key``) becomes the fact on it: every other
    active semantic memory of the agent on the key is superseded by it, ending now — the write path's
    ``supersede`` (status, ``valid_to``, ``supersedes`` relation with reason ``why``, history). Every
    holder, not only the newest: after it the key names this fact alone. The caller holds the key's
    advisory lock. The ids superseded."""
    holders = await fetch_all(conn, _KEY_HOLDERS, (scope.tenant_id, scope.agent_id, key, memory_id))
    if not holders:
        return []
    clock = await fetch_one(conn, "SELECT now() AS now")
    assert clock is not None
    for holder in holders:
        await supersede(conn, scope.tenant_id, memory_id, holder["id"], clock["now"], why, actor)
    return [h["id"] for h in holders]


_VALUES_ON_KEY = """SELECT id, source, status, content,
          coalesce(valid_from, occurred_at, created_at) AS since, valid_to AS until,
          metadata->>'resumes' AS resumes
   FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s
     AND status IN ('active', 'superseded') AND id <> %s
   ORDER BY since, id FOR UPDATE"""
"""The other values of an agent's key that a valid-time read answers (active, and superseded: past)."""


def _keyed_value(memory: StoredMemory) -> bool:
    """Whether ``memory`` is a value of a key's timeline: semantic, keyed, no addition."""
    return memory.layer == "semantic" and memory.key is not None and not is_additive(memory.content)


def _iso(moment: datetime | None) -> str | None:
    """A UTC instant as the tools write it (``2026-03-01T00:00:00Z``); None stays None (no end)."""
    return None if moment is None else moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _period(start: datetime, end: datetime | None) -> str:
    """A valid period ``[start, end)`` in words, both ends labelled: "from … until …" or "from …, with no
    end"."""
    return f"from {_iso(start)}, with no end" if end is None else f"from {_iso(start)} until {_iso(end)}"


def _overlap(a: tuple[datetime, datetime | None], b: tuple[datetime, datetime | None]) -> bool:
    """Whether two half-open periods ``[start, end)`` (end None: open) share an instant."""
    (a0, a1), (b0, b1) = a, b
    if (a1 is not None and a1 <= a0) or (b1 is not None and b1 <= b0):
        return False  # an empty period holds at no instant
    return (b1 is None or a0 < b1) and (a1 is None or b0 < a1)


_CONTINUATION = """SELECT id, valid_from, valid_to FROM memories
   WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s
     AND metadata->>%s = %s AND status IN ('active', 'superseded')
   ORDER BY valid_from LIMIT 1"""
"""The continuation of a value split around a value given an end inside its period (``key_resume``)."""


_HOLDER_FROM = """SELECT m.id FROM memory_relations r
   JOIN memories m ON m.id = r.from_id AND m.tenant_id = r.tenant_id
   WHERE r.tenant_id = %s AND r.to_id = %s AND r.kind = 'supersedes'
     AND m.status IN ('active', 'superseded') AND coalesce(m.valid_from, m.occurred_at, m.created_at) = %s
   ORDER BY m.created_at DESC LIMIT 1"""
"""The value that superseded a memory and began where its period ends (the one it is a past value of)."""


def past_value_note(memory: StoredMemory, holder: UUID | None) -> str:
    """``memory_update`` restore's note when the restored memory is a past value of its key (a value of
    the key begins where its period ends, ``holder`` when found): it stays ``superseded`` (trial 11:08
    M3: the restore answered no note and the version went up)."""
    end = memory.valid_to.isoformat() if memory.valid_to is not None else "its end"
    by = f"memory {holder}" if holder is not None else "a value of its key"
    return (
        f"past value: {by} holds key {memory.key} from {end}; memory {memory.id} stays superseded by it "
        f"(valid until then)"
    )


def split_note(memory: StoredMemory, continuation: dict[str, Any]) -> str:
    """``memory_update`` restore's note for a piece of a split value (``key_resume``): its value holds
    again after the value given an end inside its period, as ``continuation`` (a row with id,
    valid_from, valid_to); restoring this piece over its whole period would empty that value's stated
    period, so the restore changes nothing (no version bump)."""
    end = memory.valid_to.isoformat() if memory.valid_to is not None else "its end"
    start = continuation["valid_from"].isoformat()
    until = f"until {continuation['valid_to'].isoformat()}" if continuation["valid_to"] else "with no end"
    return (
        f"nothing restored: the value of memory {memory.id} already holds key {memory.key} again from "
        f"{start} ({until}) as memory {continuation['id']}, split around a value given an end that begins "
        f"at {end}; restoring it over its whole period would empty that value's stated period, so it stays "
        f"a past value until {end}. Restore or update {continuation['id']} to change what holds after it"
    )


async def _fit_restored(
    conn: AsyncConnection,
    scope: Scope,
    restored: StoredMemory,
    rows: Sequence[dict[str, Any]],
    why: str,
    actor: str,
    written_since: bool = False,
) -> list[UUID]:
    """A restored semantic value (its supersede ends undone) is the fact again from its own start, settled
    with ``rows`` — the other values of its key (``_VALUES_ON_KEY``), or for a key-less fact those of its
    chain of successors (``_CHAIN_VALUES``): id, source, status, since, until — so that one value holds
    at each instant (``_overlap``): a value that began before it, or with it (``timetravel.takes_key``,
    the write's order), ends where it begins, as a write's value ends it; a value that began after it,
    inside its period, never held (empty period at its own start, as an upcoming value a restore retires)
    — the restore says this value is the fact, not the one that replaced it. An active value that begins
    after the end the restored one keeps (a given end) holds: the restored value is its past value. All by
    the write's source rules (``domain.contradiction.resolve``, the restored value in the newer one's role;
    ``_kept_beside``): a restored inference never ends what the user stated, nor does an inference make the
    restored statement of the user a past value — such pairs stay as they are, linked ``contradicts``
    (flagged ``possible_conflict``). ``written_since``: the restore brings it back from the archive, and
    the values that began after it inside its period and never superseded it were written
    while it was out — they never settled with it, and the one with the latest stated start holds: it
    holds until the earliest of them begins, a past value of it (trial F5: such a restore emptied the
    newer value's period and answered the old value). ``why``: the ``supersedes`` reason. The caller holds
    the key's lock (a keyed value). The ids superseded (ended or retired)."""
    start = valid_start(restored)
    cutters = await _written_since(conn, scope.tenant_id, restored, rows) if written_since else []
    cutter = cutters[0] if cutters else None
    if cutters:
        await _around_written_since(conn, scope.tenant_id, restored, cutters, actor)
        restored = await _reload(conn, restored.id)
    period = (start, restored.valid_to)
    retired: list[UUID] = []
    later: list[dict[str, Any]] = []
    interrupted: list[dict[str, Any]] = []
    for row in rows:
        if _overlap(period, (row["since"], row["until"])):
            until = start if takes_key(start, row["since"]) else row["since"]
            if until == start and restored.key is not None and restored.valid_to is not None:
                interrupted.append(row)  # may hold past the restored value's end: again after it
        elif row["status"] == "active" and (restored.valid_to is None or row["since"] < restored.valid_to):
            until = start  # an active value that ended before this one begins: a past value of it
        elif row["status"] == "active":
            later.append(row)
            continue
        else:
            continue
        if resolve(restored.source, row["source"]) == "keep_both":
            await _kept_beside(conn, scope.tenant_id, restored.id, row["id"])
            continue
        await supersede(conn, scope.tenant_id, restored.id, row["id"], until, why, actor)
        retired.append(row["id"])
    if interrupted and not is_additive(restored.content):  # as after a write of it (trial 3 H10)
        ended = [r for r in interrupted if r["id"] in retired]
        await resume_after(conn, scope.tenant_id, restored.id, ended, actor)
    for row in later:  # an inference never makes the user's restored statement its past value
        if resolve(row["source"], restored.source) == "keep_both":
            await _kept_beside(conn, scope.tenant_id, row["id"], restored.id)
    # a past value of a value written since already (cutter): none of these holds after it
    holders = [r for r in later if resolve(r["source"], restored.source) == "supersede" and cutter is None]
    if holders:  # restored with an end before the value that holds began: a past value of it
        holder = min(holders, key=lambda r: r["since"])
        await supersede(conn, scope.tenant_id, holder["id"], restored.id, holder["since"], PAST_VALUE, actor)
    elif restored.key is not None and cutter is None:
        await _beside_archived_statements(conn, scope, restored)
    return retired


_SUPERSEDED_BY = """SELECT from_id FROM memory_relations
   WHERE tenant_id = %s AND to_id = %s AND kind = 'supersedes' AND from_id = ANY(%s)"""


async def _written_since(
    conn: AsyncConnection, tenant_id: str, restored: StoredMemory, rows: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Of ``rows`` (``_fit_restored``'s), the values stated to begin after ``restored``'s start (a
    continuation: its original's start), inside its period, that never superseded it (written while it was
    archived) and may end it by the source rules (an inference never makes what the user stated its past
    value), earliest first."""
    start = valid_start(restored)
    inside = [
        r
        for r in rows
        if r["since"] > start
        and _overlap((start, restored.valid_to), (r["since"], r["until"]))
        and resolve(r["source"], restored.source) == "supersede"
    ]
    if not inside:
        return []
    settled = await fetch_all(conn, _SUPERSEDED_BY, (tenant_id, restored.id, [r["id"] for r in inside]))
    done = {r["from_id"] for r in settled}
    later = [
        r
        for r in inside
        if r["id"] not in done
        and (r["resumes"] is None or await stated_start(conn, tenant_id, r["id"]) > start)
    ]
    return sorted(later, key=lambda r: r["since"])


async def _around_written_since(
    conn: AsyncConnection,
    tenant_id: str,
    restored: StoredMemory,
    cutters: Sequence[dict[str, Any]],
    actor: str,
) -> None:
    """``restored`` (active again, ``[start, end)``) holds only where none of ``cutters`` (``_written_since``,
    earliest first; one value at each instant among them) does: it is a past value of the first, ending
    where it begins, and holds again after each one that ends before its end, as a continuation
    (``key_resume.resume_after``) until the next begins — the value with the latest stated start holds."""
    end = restored.valid_to
    first = cutters[0]
    await supersede(conn, tenant_id, first["id"], restored.id, first["since"], PAST_VALUE, actor)
    bounded, reach = first, first["until"]
    for nxt in [*cutters[1:], None]:
        if reach is None or (end is not None and reach >= end):
            return
        if nxt is not None and nxt["since"] <= reach:  # it begins where the last ends, or inside it
            if nxt["until"] is None or nxt["until"] > reach:
                bounded, reach = nxt, nxt["until"]
            continue
        until = end if nxt is None or (end is not None and nxt["since"] >= end) else nxt["since"]
        gap = {"id": restored.id, "status": "active" if until == end else "superseded", "until": until}
        await resume_after(conn, tenant_id, bounded["id"], [gap], actor)
        if nxt is None or until == end:
            return
        bounded, reach = nxt, nxt["until"]


async def _kept_beside(conn: AsyncConnection, tenant_id: str, inference: UUID, statement: UUID) -> None:
    """Link a pair the source rules keep (an inference and what the user stated) ``contradicts``, unless
    they are linked so already, either way (a contradiction's own link)."""
    await conn.execute(
        """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
           SELECT %(t)s, %(a)s, %(b)s, 'contradicts', %(why)s
           WHERE NOT EXISTS (
               SELECT 1 FROM memory_relations
                WHERE tenant_id = %(t)s AND kind = 'contradicts'
                  AND ((from_id = %(a)s AND to_id = %(b)s) OR (from_id = %(b)s AND to_id = %(a)s)))""",
        {"t": tenant_id, "a": inference, "b": statement, "why": RESTORED_BESIDE},
    )


async def _beside_archived_statements(conn: AsyncConnection, scope: Scope, restored: StoredMemory) -> None:
    """A restored inference on a key whose user statement is archived (still open at its start) is linked
    ``contradicts`` to it, as a write of it is (``memory_writes.ARCHIVED_STATEMENTS``): never silently the
    key's fact — search flags it ``possible_conflict`` with the statement beside it. The caller holds the
    key's lock."""
    if restored.source != "agent_inferred" or is_additive(restored.content):
        return
    archived = (scope.tenant_id, scope.agent_id, restored.key, valid_start(restored))
    for old in await fetch_all(conn, ARCHIVED_STATEMENTS, archived):
        if not same_information(restored.content, old["content"]):
            await conn.execute(
                """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
                   VALUES (%s, %s, %s, 'contradicts', %s) ON CONFLICT (from_id, to_id, kind) DO NOTHING""",
                (scope.tenant_id, restored.id, old["id"], ARCHIVED_STATEMENT),
            )


async def _fit_period(
    conn: AsyncConnection, scope: Scope, before: StoredMemory, after: StoredMemory, field: str, actor: str
) -> list[UUID]:
    """Settle a keyed semantic value whose period an update moved (``before`` → ``after``) with the key's
    other values (module doc). The caller holds the key's lock. Only overlaps this change makes count (a
    restore may have left one: not this change's doing). The past values it ends (their ids); raises
    InvalidInput (``field``; the message gives both periods, each end labelled; ``limit``: the other
    memory's id, ``valid_from`` and ``valid_to``) when a value it may not end would share an instant."""
    if after.layer != "semantic" or after.key is None or after.status not in ("active", "superseded"):
        return []
    if is_additive(after.content):  # an addition holds beside the key's values, as a write of it does
        return []
    start = valid_start(after)
    now, was = (start, after.valid_to), (valid_start(before), before.valid_to)
    rows = await fetch_all(conn, _VALUES_ON_KEY, (scope.tenant_id, scope.agent_id, after.key, after.id))
    ended: list[UUID] = []
    later: list[dict[str, Any]] = []
    covered: list[dict[str, Any]] = []
    for row in rows:
        other = (row["since"], row["until"])
        if not _overlap(now, other) or _overlap(was, other):
            continue
        if under := await _continuation_under(conn, scope.tenant_id, row, start, after.valid_to):
            # a continuation stated before it: it holds after the moved end (MED), or nowhere (LOW-5)
            (later if under == "after" else covered).append(row)
            continue
        order = order_contradiction(after.source, start, row["source"], row["since"])
        if order == "keep_both":
            continue
        if order == "supersede" and row["status"] == "superseded":
            ended.append(row["id"])  # a past value that held when this one now begins: it ends there
            continue
        raise InvalidInput(
            field,
            f"memory {row['id']} holds key {after.key} {_period(row['since'], row['until'])}, and with this "
            f"change memory {after.id} would hold it {_period(start, after.valid_to)}: both would hold at "
            "one instant, and a key holds one value at a time (change that memory's period, or archive it, "
            "first)",
            {"memory": str(row["id"]), "valid_from": _iso(row["since"]), "valid_to": _iso(row["until"])},
        )
    for old in ended:
        await supersede(conn, scope.tenant_id, after.id, old, start, LATER_VALUE, actor)
    for row in later:
        assert after.valid_to is not None
        why = f"holds from where {after.id} ends now (its start is derived from that value's period)"
        await start_at(conn, scope.tenant_id, row["id"], row["since"], after.valid_to, actor, why)
    for row in covered:
        why = f"{after.id} holds over all of it now (its start is derived from that value's period)"
        await drop(conn, scope.tenant_id, row["id"], row["status"], after.id, why, actor)
    if covered:  # the value that cut the dropped continuation begins where the moved value ends now
        at = {"t": scope.tenant_id, "a": scope.agent_id, "key": after.key, "at": after.valid_to}
        gone = [after.id, *(r["id"] for r in covered)]
        holder = await fetch_one(conn, BEGINS_AT, at | {"not": gone, "resumes": RESUMES_METADATA_KEY})
        if holder is not None:
            await supersede(conn, scope.tenant_id, holder["id"], after.id, holder["since"], PAST_VALUE, actor)
    return ended


async def _continuation_under(
    conn: AsyncConnection, tenant_id: str, row: dict[str, Any], start: datetime, end: datetime | None
) -> str | None:
    """Whether ``row`` (a ``_VALUES_ON_KEY`` row a value moved to ``[start, end)`` now overlaps) is a
    continuation (``key_resume``) that begins inside that period and whose value was stated before
    ``start``: the moved value holds over it (the latest stated start), so instead of refusing the change
    it begins where the moved value ends ("after": it holds past that end), or holds nothing any more
    ("inside": it ends by then, at the value that cut it or at its value's stated end). None: it is not."""
    if row["resumes"] is None or end is None or row["since"] < start:
        return None
    if await stated_start(conn, tenant_id, row["id"]) >= start:
        return None
    return "inside" if row["until"] is not None and row["until"] <= end else "after"


RESTORED_OVER = "restored over the fact that superseded it, by memory_update"
"""The ``supersedes`` relation's reason when a restored key-less fact retires the fact that replaced it."""


RESTORED_BESIDE = "a restored inference disagrees with what the user stated; both kept"
"""The ``contradicts`` link's reason when a restore meets an inference and what the user stated (the source
rules: an inference never retires what the user stated, nor makes it a past value)."""

_CHAIN_VALUES = """WITH RECURSIVE chain(id) AS (
       SELECT r.from_id FROM memory_relations r
        WHERE r.tenant_id = %(t)s AND r.to_id = %(id)s AND r.kind = 'supersedes'
       UNION
       SELECT r.from_id FROM chain c
         JOIN memories s ON s.id = c.id AND s.tenant_id = %(t)s AND s.status = 'superseded'
         JOIN memory_relations r ON r.tenant_id = %(t)s AND r.to_id = c.id AND r.kind = 'supersedes')
   SELECT m.id, m.source, m.status, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since,
          m.valid_to AS until
     FROM memories m JOIN chain c ON c.id = m.id
    WHERE m.tenant_id = %(t)s AND m.agent_id = %(a)s AND m.id <> %(id)s
      AND m.status IN ('active', 'superseded') AND m.layer = 'semantic'
    ORDER BY since, m.id FOR UPDATE OF m"""
"""A memory's chain of successors, as a key's values for a key-less fact: the agent's semantic facts that
superseded it, and through every successor since superseded in turn, the facts that superseded those (A
superseded by B, B by C: B and C), active or superseded (past). Cycles end (UNION)."""


async def _settled_on_restore(
    conn: AsyncConnection, scope: Scope, restored: StoredMemory, rows: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Of ``rows`` (the other values of ``restored``'s key, ``_VALUES_ON_KEY``), those a restore of it
    settles with (``_fit_restored``): an additive pair ("X is allergic to peanuts", "X is also allergic to
    shellfish") stood side by side, neither replacing the other, so a restore of either leaves the other
    as it is — active, its period untouched — unless it is one of the values that replaced the restored
    one (its chain of successors, ``_CHAIN_VALUES``: a take-back of it, a new value written over both).
    So a restored additive value settles only with its successors (it retires nothing else, as an
    additive write retires nothing), and any restored value leaves the additive values that are not its
    successors (trial11 H1: a forgotten "also" value restored retired the value it was added to, ending
    it at the instant the "also" value was written)."""
    additive = is_additive(restored.content)
    beside = [r for r in rows if additive or is_additive(r["content"])]
    if not beside:
        return list(rows)
    chain = {"t": scope.tenant_id, "id": restored.id, "a": scope.agent_id}
    successors = {row["id"] for row in await fetch_all(conn, _CHAIN_VALUES, chain)}
    left = {r["id"] for r in beside if r["id"] not in successors}
    return [r for r in rows if r["id"] not in left]


async def _retire_successors(
    conn: AsyncConnection, scope: Scope, restored: StoredMemory, actor: str
) -> list[UUID]:
    """A restored key-less fact (a contradiction, a supersede or a supersedes link retired it) is the fact
    again, as a restored keyed one is on its key: it is fitted among its chain of successors
    (``_CHAIN_VALUES``: not only the direct successor, which may be superseded itself) as among a key's
    values (``_fit_restored``, the same rule and the same source rules) — else both would stand, saying
    opposite things, and a ``valid_at`` read would answer both for the while between the supersede and the
    restore. The ids superseded."""
    chain = {"t": scope.tenant_id, "id": restored.id, "a": scope.agent_id}
    rows = await fetch_all(conn, _CHAIN_VALUES, chain)
    return await _fit_restored(conn, scope, restored, rows, RESTORED_OVER, actor)


def _event_columns(changes: MemoryChanges, current: StoredMemory) -> dict[str, Any]:
    """The event-time columns a change of occurred_at sets (given, or cleared), each only where it differs
    from ``current``: occurred_at, its precision and its span's exclusive end, stored as a write stores
    them (``memory_writes.insert_params``)."""
    if changes.occurred_at is None and not changes.clear_occurred_at:
        return {}
    span = changes.occurred_at
    columns = {
        "occurred_at": span.start if span else None,
        "occurred_precision": span.precision if span else None,
        "occurred_end": span.end if span and span.precision != "instant" else None,
    }
    return {name: value for name, value in columns.items() if value != getattr(current, name)}


async def _key_timeline(conn: AsyncConnection, scope: Scope, key: str | None) -> list[tuple[Any, ...]]:
    """The agent's values of ``key`` as they stand: (id, status, valid_from, valid_to), by id."""
    rows = await fetch_all(
        conn,
        """SELECT id, status, valid_from, valid_to FROM memories
           WHERE tenant_id = %s AND agent_id = %s AND layer = 'semantic' AND key = %s ORDER BY id""",
        (scope.tenant_id, scope.agent_id, key),
    )
    return [(r["id"], r["status"], r["valid_from"], r["valid_to"]) for r in rows]


async def _new_status(
    conn: AsyncConnection,
    scope: Scope,
    current: StoredMemory,
    status: MemoryStatus,
    action: str,
    reason: str | None,
    actor: str,
    conflict_cosine: float,
) -> list[UUID]:
    """``current`` takes ``status`` (``set_status``): a restore reopens the end its supersedes gave it and
    fits it back among its key's values (``_fit_restored``), or a key-less fact among its successors
    (``_retire_successors``). One restored from the archive keeps the period it had there and is a past
    value of the values written meanwhile (``written_since``), then is checked for contradictions as a
    write (``conflicts.check_restored``, from ``conflict_cosine``): new-user trial F5, F14. The ids
    superseded."""
    superseded: list[UUID] = []
    changes = status_change(current.status, status)
    reopen, end = (False, None)
    # from the archive it comes back with the period it had there, a past value stays one (archiving says
    # nothing about truth); what was written since never settled with it (a forget is a retraction: a
    # restore of one says it holds again, docs/tools.md)
    was_out = current.status == "archived"
    # ... but one archived with an empty period (a restore had retired it: it never held) would come back
    # active at no instant, cutting the fact at its start (trial 2 HIGH 3): its supersede ends are undone
    retired = was_out and current.valid_to is not None and current.valid_to <= valid_start(current)
    if status == "active" and (not was_out or retired):
        reopen, end = await end_before_cuts(conn, scope.tenant_id, current.id, current.valid_to)
    if reopen:
        assert current.valid_to is not None
        changes["valid_to"] = {"from": current.valid_to.isoformat(), "to": _json(end)}
    await conn.execute(
        """UPDATE memories SET status = %s, updated_at = now(),
                  valid_to = CASE WHEN %s THEN %s ELSE valid_to END
           WHERE id = %s AND tenant_id = %s""",
        (status, reopen, end, current.id, scope.tenant_id),
    )
    await record_history(conn, scope.tenant_id, actor, HistoryRow(current.id, action, reason, changes))
    if status == "active" and current.layer == "semantic" and current.key is not None:
        restored = await _reload(conn, current.id)
        on_key = (scope.tenant_id, scope.agent_id, restored.key, restored.id)
        rows = await fetch_all(conn, _VALUES_ON_KEY, on_key)
        rows = await _settled_on_restore(conn, scope, restored, rows)
        superseded = await _fit_restored(
            conn, scope, restored, rows, RESTORED_ONTO_KEY, actor, written_since=was_out
        )
    elif status == "active" and current.layer == "semantic":
        superseded = await _retire_successors(conn, scope, await _reload(conn, current.id), actor)
    if status == "active" and current.layer == "semantic" and was_out:  # as a write of it (F14)
        restored = await _reload(conn, current.id)
        if restored.status == "active":
            superseded += await check_restored(
                conn, scope.tenant_id, restored, conflict_cosine, actor, superseded
            )
    return superseded


_DETECTOR_READS = frozenset({"content", "key", "query", "entities", "metadata"})
"""The fields an update may change that the injection detector reads (``domain.injection.injection_text``)."""


class PostgresMemoryEditor:
    """The MemoryEditor port. ``consolidation_min_size`` and ``patterns``: the maintenance constants an
    edit of a summary's member or of an inference's evidence derives them again by (``derived_edits``);
    ``conflict_cosine``: the write's similarity from which a restored fact is compared with the active
    ones (``conflicts.check_restored``)."""

    def __init__(
        self,
        pool: AsyncConnectionPool,
        consolidation_min_size: int = CONSOLIDATION_MIN_SIZE,
        patterns: PatternPolicy | None = None,
        conflict_cosine: float = CONFLICT_COSINE,
    ) -> None:
        self._pool = pool
        self._conflict_cosine = conflict_cosine
        self._min_size = consolidation_min_size
        self._patterns = patterns or PatternPolicy()

    async def update(
        self,
        scope: Scope,
        memory_id: UUID,
        changes: MemoryChanges,
        embedding: Vector | None,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> EditedMemory | None:
        """Apply ``changes`` in place; ``embedding`` must be given when the content changes. Values equal
        to the stored ones are no change: when nothing differs, nothing is written (no history entry,
        ``updated_at`` and the version kept) and the memory comes back as it is. Only the
        owner's memories (``scope.agent_id``) are changed: a memory shared with the agent is None here.
        A new ``key`` on an active semantic memory supersedes the active facts of the agent already on
        that key (their ids in ``superseded``; module doc). A consolidation summary standing for it, or an
        inference citing it as evidence, follows the change (``derived_edits.follow_edit``; what followed
        in ``note``). New content of an active semantic memory is compared with the agent's active facts
        as a write's is, but a contradiction is only linked ``contradicts`` (flagged ``possible_conflict``,
        nothing superseded: ``conflicts.check_edited``, which also removes the rules' links the new
        content no longer supports; each link made or removed in ``note``). Raises VersionConflict
        when ``expected_version`` is given and the memory is at another."""
        period = changes.valid_from is not None or changes.valid_to is not None or changes.clear_valid_to
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            moved_from = await _lock_keys(conn, scope, memory_id, changes.key)
            if changes.key is None and period:  # its period is settled with its key's values: that lock
                moved_from = await _lock_own_key(conn, scope, memory_id)
            current = await _locked(conn, scope, memory_id)
            if current is None:
                return None
            if (changes.key is not None or period) and current.key not in (None, moved_from, changes.key):
                # another update moved it between the read and the lock (rare): its key's lock too
                await conn.execute(KEY_LOCK, (key_lock(scope.tenant_id, scope.agent_id, current.key),))
            check_memory_version(current, expected_version)
            if current.status == "forgotten":
                await refuse_dropped(conn, scope.tenant_id, memory_id)
            moved = current.model_copy(update={"occurred_at": changes.occurred_at_after(current.occurred_at)})
            check_validity_period(changes, current.valid_from, current.valid_to, held_from(moved))
            check_event_time(changes, current)
            sets: list[sql.Composable] = [sql.SQL("updated_at = now()")]
            params: dict[str, Any] = {"id": memory_id, "t": scope.tenant_id}
            diff: dict[str, Any] = {}
            for name in (
                "content",
                "key",
                "query",
                "importance",
                "tags",
                "entities",
                "metadata",
                "valid_from",
                "valid_to",
                "shared_with",
            ):
                value = getattr(changes, name)
                if name == "valid_to":  # None: cleared (valid_to: null), not "leave as is"
                    value = changes.valid_to_after(current.valid_to)
                elif value is None:
                    continue
                if value == getattr(current, name):
                    continue
                diff[name] = {"from": _json(getattr(current, name)), "to": _json(value)}
                params[name] = Jsonb(value) if name in ("entities", "metadata") else value
                sets.append(sql.SQL("{} = %({})s").format(sql.Identifier(name), sql.SQL(name)))
            for name, value in _event_columns(changes, current).items():
                diff[name] = {"from": _json(getattr(current, name)), "to": _json(value)}
                params[name] = value
                sets.append(sql.SQL("{} = %({})s").format(sql.Identifier(name), sql.SQL(name)))
            if changes.content is not None and "content" in diff:
                if embedding is None:
                    raise ValueError("a content change needs its new embedding")
                sets += [sql.SQL("embedding = %(embedding)s::vector"), sql.SQL("content_hash = %(hash)s")]
                params |= {"embedding": vector_literal(embedding), "hash": content_hash(changes.content)}
            if "entities" in diff and changes.entities is not None:
                sets.append(sql.SQL("entity_terms = %(entity_terms)s"))
                params["entity_terms"] = entity_terms(changes.entities)
            if diff.keys() & _DETECTOR_READS:  # the labels of its new text, stored with it (migration 027)
                after = current.model_copy(
                    update={n: getattr(changes, n) for n in _DETECTOR_READS if n in diff}
                )
                params |= injection_params(
                    after.content,
                    after.key,
                    after.query,
                    after.summary,
                    after.lessons,
                    after.key_decisions,
                    after.metadata,
                    after.entities,
                )
                sets += [
                    sql.SQL("injection_signals = %(injection_signals)s"),
                    sql.SQL("injection_stamp = %(injection_stamp)s"),
                ]
            if changes.verified:
                sets.append(sql.SQL("last_verified_at = now()"))
                diff["verified"] = True
            if not diff:  # every value given is the one it has: no change, no history, same version
                end = current.valid_to
                stated = changes.valid_to is not None and end is not None and _keyed_value(current)
                # the end it already held until, stated now: no continuation of it after that
                if stated and end is not None and await cut_pieces(conn, scope, current, end, actor):
                    return EditedMemory(await _reload(conn, memory_id), current.version)
                return EditedMemory(current, current.version)
            if "key" in diff and _keyed_value(current) and current.status in ("active", "superseded"):
                await leave_key(conn, scope, current, actor)  # before it moves: its old key's instants
            await conn.execute(
                sql.SQL("UPDATE memories SET {} WHERE id = %(id)s AND tenant_id = %(t)s").format(
                    sql.SQL(", ").join(sets)
                ),
                params,
            )
            await record_history(conn, scope.tenant_id, actor, HistoryRow(memory_id, "updated", reason, diff))
            superseded: list[UUID] = []
            if "key" in diff and current.layer == "semantic" and current.status == "active":
                superseded = await _take_key(conn, scope, memory_id, str(changes.key), actor)
            elif "valid_from" in diff or "valid_to" in diff:
                field = "valid_from" if "valid_from" in diff else "valid_to"
                moved = await _reload(conn, memory_id)
                superseded = await _fit_period(conn, scope, current, moved, field, actor)
                was, end = current.valid_to, moved.valid_to
                if was is not None and end is not None and end < was and _keyed_value(moved):
                    await shortened(conn, scope, moved, was, actor)  # the instants it gives up (key_rejoin)
                if _keyed_value(moved) and valid_start(moved) > valid_start(current):
                    await started_later(conn, scope, moved, valid_start(current), actor)
            # a summary or inference derived from it follows the edit (trial F12, F13)
            notes = await follow_edit(conn, scope, current, diff, actor, self._min_size, self._patterns)
            if "content" in diff and current.layer == "semantic" and current.status == "active":
                # the new content is checked as a write's is, but only flagged (trial finding 4)
                edited = await _reload(conn, memory_id)
                notes += await check_edited(conn, scope.tenant_id, edited, self._conflict_cosine, superseded)
            return EditedMemory(
                await _reload(conn, memory_id),
                current.version,
                tuple(superseded),
                note="; ".join(notes) or None,
            )

    async def set_status(
        self,
        scope: Scope,
        memory_id: UUID,
        status: MemoryStatus,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> EditedMemory | None:
        """Set the status (a no-op when it is already that). A restore (``active``) of a semantic memory
        with a key makes it the fact on that key: the end of validity its supersedes gave it is undone and
        it is put back into the key's timeline (``_fit_restored``; the values it ends or retires in
        ``superseded``); a key-less one retires the facts holding its chain (``_retire_successors``). A
        restore that leaves its key's values as they were (a past value that stays one) changes nothing:
        no history row, the version kept (trial: it went up by 2). A dropped continuation
        (``key_rejoin.drop``) is refused (InvalidInput, ``id``). One restored from the archive is a past
        value of the values written meanwhile (``_fit_restored`` ``written_since``) and is checked for
        contradictions as a write (``conflicts.check_restored``; new-user trial F5, F14). Raises
        VersionConflict as ``update``."""
        action = {
            "active": "restored",
            "archived": "archived",
            "superseded": "superseded",
            "forgotten": "forgotten",
        }[status]
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            key = await _lock_own_key(conn, scope, memory_id) if status == "active" else None
            current = await _locked(conn, scope, memory_id)
            if current is None:
                return None
            if status == "active" and current.key not in (None, key):
                # an update moved it between the read and the lock (rare): its new key's lock too
                await conn.execute(KEY_LOCK, (key_lock(scope.tenant_id, scope.agent_id, current.key),))
            check_memory_version(current, expected_version)
            if current.status == "forgotten":
                await refuse_dropped(conn, scope.tenant_id, memory_id)
            superseded: list[UUID] = []
            if status == "active" and current.status == "forgotten" and _keyed_value(current):
                pieces = await restore_as_before(conn, scope, current, reason, actor)
                if pieces is not None:  # the forget undone: back as it was (with its value's other pieces)
                    after = await _reload(conn, memory_id)
                    note = pieces_note(pieces) if len(pieces) > 1 else None
                    if note is None and after.status == "superseded":
                        at = (scope.tenant_id, memory_id, after.valid_to)
                        holder = await fetch_one(conn, _HOLDER_FROM, at)
                        note = past_value_note(after, holder["id"] if holder is not None else None)
                    return EditedMemory(after, current.version, note=note)
            if status == "active" and current.status == "superseded" and current.key is not None:
                split = await fetch_one(
                    conn,
                    _CONTINUATION,
                    (scope.tenant_id, scope.agent_id, current.key, RESUMES_METADATA_KEY, str(memory_id)),
                )
                if split is not None:  # its value already holds again: left as it is (trial 11:08 H2)
                    return EditedMemory(current, current.version, note=split_note(current, split))
            if current.status != status:
                # a restore that leaves its key's timeline as it was changes nothing: no version, no history
                keyed = status == "active" and _keyed_value(current)
                before = await _key_timeline(conn, scope, current.key) if keyed else None
                async with conn.transaction() as savepoint:
                    superseded = await _new_status(
                        conn, scope, current, status, action, reason, actor, self._conflict_cosine
                    )
                    if before is not None and await _key_timeline(conn, scope, current.key) == before:
                        superseded = []
                        raise Rollback(savepoint)
            after = await _reload(conn, memory_id)
            note = None
            if status == "active" and after.status == "superseded":  # restored as a past value (M3)
                holder = await fetch_one(conn, _HOLDER_FROM, (scope.tenant_id, memory_id, after.valid_to))
                note = past_value_note(after, holder["id"] if holder is not None else None)
            return EditedMemory(after, current.version, tuple(superseded), note=note)

    async def forget(
        self,
        scope: Scope,
        memory_id: UUID,
        hard: bool,
        reason: str | None,
        actor: str,
        expected_version: int | None = None,
    ) -> ForgetOutcome | None:
        """Forget an own memory and what was derived from it (``forgetting.forget_with_derived``): soft,
        status ``forgotten`` (a no-op for the memory when it is already); hard, deleted. None when there
        is none. Raises VersionConflict as ``update``."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            # the key's instants it held go back to other values of it (key_rejoin): the writers' lock
            key = await _lock_own_key(conn, scope, memory_id)
            current = await _locked(conn, scope, memory_id)
            if current is None:
                return None
            if current.key not in (None, key):  # an update moved it between the read and the lock (rare)
                await conn.execute(KEY_LOCK, (key_lock(scope.tenant_id, scope.agent_id, current.key),))
            check_memory_version(current, expected_version)
            along, restored = await forget_with_derived(conn, scope, current, hard, reason, actor)
            memory = None if hard else await _reload(conn, memory_id)
            return ForgetOutcome(memory, current.version, tuple(along), tuple(restored))

    async def link(
        self, scope: Scope, relation: Relation, expected_version: int | None = None, actor: str = "api"
    ) -> EditedMemory | None:
        """Add (or re-weigh) a relation between two own memories; the from memory after it with the
        relation as stored, or None when either end is not the scope's own. A new or changed relation is a
        change of its from memory (bumps its version); the same relation again changes nothing. A
        ``supersedes`` link to an active memory supersedes it (``conflicts.supersede``: status, valid_to
        now, history by ``actor``; ``domain.memory.check_supersedes_link``). Both rows are locked, in id
        order (two links between the same memories in opposite directions cannot deadlock). Raises
        VersionConflict when ``expected_version`` is given and the from memory is at another version,
        InvalidInput (field ``from_id``) when an inactive memory would supersede an active one."""
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                sql.SQL(
                    """SELECT {c} FROM memories m
                       WHERE m.id = ANY(%s) AND m.tenant_id = %s AND m.agent_id = %s
                       ORDER BY m.id FOR UPDATE"""
                ).format(c=MEMORY_COLUMNS),
                ([relation.from_id, relation.to_id], scope.tenant_id, scope.agent_id),
            )
            ends = {m.id: m for m in map(memory_from_row, rows)}
            source, target = ends.get(relation.from_id), ends.get(relation.to_id)
            if source is None or target is None:
                return None
            check_memory_version(source, expected_version)
            retire = relation.kind == "supersedes" and check_supersedes_link(source, target)
            if retire:  # before the relation is written: supersede writes it too, and the caller's wins
                clock = await fetch_one(conn, "SELECT now() AS now")
                assert clock is not None
                why = relation.reason or LINKED_SUPERSEDES
                await supersede(
                    conn, scope.tenant_id, relation.from_id, relation.to_id, clock["now"], why, actor
                )
            cur = await conn.execute(
                """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, strength, reason)
                   VALUES (%s, %s, %s, %s, %s, %s)
                   ON CONFLICT (from_id, to_id, kind) DO UPDATE SET strength = EXCLUDED.strength,
                                                                    reason = EXCLUDED.reason
                   WHERE (memory_relations.strength, memory_relations.reason)
                         IS DISTINCT FROM (EXCLUDED.strength, EXCLUDED.reason)""",
                (
                    scope.tenant_id,
                    relation.from_id,
                    relation.to_id,
                    relation.kind,
                    relation.strength,
                    relation.reason,
                ),
            )
            changed = retire or bool(cur.rowcount)
            if changed:
                await conn.execute(
                    """UPDATE memories SET version = version + 1, updated_at = now()
                       WHERE id = %s AND tenant_id = %s""",
                    (relation.from_id, scope.tenant_id),
                )
            stored = await fetch_one(
                conn,
                """SELECT from_id, to_id, kind, strength, reason, created_at FROM memory_relations
                   WHERE from_id = %s AND to_id = %s AND kind = %s AND tenant_id = %s""",
                (relation.from_id, relation.to_id, relation.kind, scope.tenant_id),
            )
            assert stored is not None
            return EditedMemory(
                await _reload(conn, relation.from_id),
                source.version,
                (relation.to_id,) if retire else (),
                relation_from_row(stored),
            )

    async def adjust_importance(
        self, scope: Scope, memory_id: UUID, delta: float, reason: str, actor: str
    ) -> StoredMemory | None:
        async with tenant_transaction(self._pool, scope.tenant_id) as conn:
            current = await _locked(conn, scope, memory_id)
            if current is None:
                return None
            new = min(1.0, max(0.0, current.importance + delta))
            await conn.execute(
                "UPDATE memories SET importance = %s, updated_at = now() WHERE id = %s AND tenant_id = %s",
                (new, memory_id, scope.tenant_id),
            )
            await record_history(
                conn,
                scope.tenant_id,
                actor,
                HistoryRow(
                    memory_id, "feedback", reason, {"importance": {"from": current.importance, "to": new}}
                ),
            )
            return await _reload(conn, memory_id)

    async def record_access(self, scope: Scope, ids: Sequence[UUID], at: datetime) -> None:
        """Bump last_accessed_at always, access_count once per ``ACCESS_DEBOUNCE`` — the count is of
        sessions that needed the memory, not of hits, so a burst of searches cannot snowball it.

        Writes ``memory_access`` only (migration 018: a narrow row whose update is HOT), never a row of
        ``memories``; ids not of the scope's tenant, or deleted meanwhile, are skipped. Rows are taken in
        id order, so two bookkeepings of overlapping hits cannot deadlock."""
        if not ids:
            return
        # one statement: pipelined behind the tenant setting, one round trip (a search's bookkeeping)
        await tenant_execute(
            self._pool,
            scope.tenant_id,
            """INSERT INTO memory_access AS a (memory_id, tenant_id, access_count, last_accessed_at)
                   SELECT m.id, m.tenant_id, 1, %(at)s FROM memories m
                   WHERE m.id = ANY(%(ids)s) AND m.tenant_id = %(t)s
                   ORDER BY m.id
                   ON CONFLICT (memory_id) DO UPDATE
                   SET access_count = a.access_count + CASE WHEN a.last_accessed_at IS NULL
                                                              OR a.last_accessed_at < %(at)s - %(debounce)s
                                                         THEN 1 ELSE 0 END,
                       last_accessed_at = greatest(a.last_accessed_at, %(at)s)""",
            {"at": at, "debounce": ACCESS_DEBOUNCE, "ids": list(ids), "t": scope.tenant_id},
        )
