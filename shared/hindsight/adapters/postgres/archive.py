"""The MemoryArchive port on Postgres: a tenant's rows out as JSON-ready records and back in.

Rows travel as ``to_jsonb(row)``: every column the schema has, including ones added after this code was
written, so an export → import round trip loses nothing. Vectors travel as pgvector's text form
(shortest decimal that reads back to the same float32), so they come back bit for bit. Import builds its
column lists from the live schema (generated columns excluded) and refuses a record with a column the
schema does not have (an export from a newer schema: migrate first).

A key names one fact (per tenant, agent, semantic layer): an imported active keyed fact that meets active
facts of the tenant on its key — another tenant's export, or a ``remap_ids`` copy into the same tenant —
is settled with them as the worker settles a write (``memory_writes.order_values``: valid-time order and
the source rules; an addition stays beside them; among the key's past values, ``fit_in_past``; an
inference is linked to an archived user statement), under the worker's key locks, with the same supersedes
links and history rows (actor ``import``), and reported (``KeySettlement``). An imported past value (a
superseded keyed fact with an end) is fitted among the key's values by the same rule (``_fit_past_value``),
and a value of the tenant it interrupts holds again after it (``key_resume``). Import never leaves two
holders of one key, nor two values of it at one instant, that a write would not have left.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection, errors, sql
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.conflicts import supersede
from hindsight.adapters.postgres.key_resume import (
    resume_after,
    resume_written_after,
    resumed_reason,
    written_after_reason,
)
from hindsight.adapters.postgres.memory_writes import (
    ARCHIVED_STATEMENT,
    ARCHIVED_STATEMENTS,
    KEY_HOLDERS,
    KEY_LOCKS,
    LATER_VALUE,
    PAST_ON_KEY,
    PAST_VALUE,
    RELATE,
    ended_reason,
    fit_in_past,
    kept_reason,
    key_lock,
    order_values,
    past_value_reason,
)
from hindsight.adapters.postgres.rows import fetch_all, fetch_one, tenant_transaction
from hindsight.domain.contradiction import is_additive, order_contradiction
from hindsight.domain.errors import InvalidInput
from hindsight.domain.export_records import RecordRefused, record_id
from hindsight.domain.text import same_information
from hindsight.ports.archive import KeySettlement

TABLES = {
    "memory": "memories",
    "chunk": "memory_chunks",
    "relation": "memory_relations",
    "history": "memory_history",
    "write_result": "write_results",
    "pending_link": "pending_causal_links",
}
_SKIP = {"memory_history": {"id"}}
"""Columns not carried over: history's serial id is the target's own."""
_VECTOR = {"memories", "memory_chunks"}
_ACCESS = ("access_count", "last_accessed_at")
"""A memory record's access counters: fields of its row in the file (as before migration 018), a row of
``memory_access`` in the database."""
IMPORT = "import"
"""The actor of the history rows an import's settlement on a key writes."""
IMPORTED_NEWER = "newer fact on the same key (import)"
"""The ``supersedes`` link's reason when an imported fact takes its key from a fact of the tenant."""


def _holds_key(row: dict[str, Any]) -> bool:
    """Whether an imported memory row is an active semantic fact with a key (settled on its key)."""
    return row.get("status") == "active" and _on_key(row)


def _past_value(row: dict[str, Any]) -> bool:
    """Whether an imported memory row is a past value of a key (a superseded semantic fact with a key and
    an end: fitted among the key's values)."""
    return row.get("status") == "superseded" and row.get("valid_to") is not None and _on_key(row)


def _on_key(row: dict[str, Any]) -> bool:
    return row.get("layer") == "semantic" and row.get("key") is not None


def _split_access(row: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A memory record's row without its access counters, and the counters when it has any recorded."""
    access = {k: row[k] for k in _ACCESS if k in row}
    rest = {k: v for k, v in row.items() if k not in _ACCESS}
    recorded = bool(access.get("access_count")) or access.get("last_accessed_at") is not None
    return rest, access if recorded else {}


def exact_vector(values: Sequence[float]) -> str:
    """pgvector text form with every float written exactly (repr), unlike the 7-digit search literal."""
    return "[" + ",".join(repr(float(v)) for v in values) + "]"


class PostgresArchive:
    """Export streams with a server-side cursor; import inserts in the caller's batches."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._columns: dict[str, list[str]] = {}

    async def export_records(
        self, tenant_id: str, agent_id: str | None, with_embeddings: bool
    ) -> AsyncIterator[dict[str, Any]]:
        agent = sql.SQL("AND m.agent_id = %(a)s") if agent_id is not None else sql.SQL("")
        params = {"t": tenant_id, "a": agent_id}
        mine = sql.SQL("SELECT m.id FROM memories m WHERE m.tenant_id = %(t)s {agent}").format(agent=agent)
        vector = sql.SQL(", m.embedding::text AS embedding") if with_embeddings else sql.SQL("")
        chunk_vector = sql.SQL(", c.embedding::text AS embedding") if with_embeddings else sql.SQL("")
        queries: list[tuple[str, sql.Composed]] = [
            (
                "memory",
                sql.SQL(
                    """SELECT to_jsonb(m) - 'embedding' - 'search_text'
                              || jsonb_build_object('access_count', coalesce(a.access_count, 0),
                                                    'last_accessed_at', a.last_accessed_at) AS row {vector}
                       FROM memories m LEFT JOIN memory_access a ON a.memory_id = m.id
                       WHERE m.tenant_id = %(t)s {agent} ORDER BY m.created_at, m.id"""
                ).format(vector=vector, agent=agent),
            ),
            (
                "chunk",
                sql.SQL(
                    """SELECT to_jsonb(c) - 'embedding' AS row {vector} FROM memory_chunks c
                       WHERE c.tenant_id = %(t)s AND c.memory_id IN ({mine})
                       ORDER BY c.memory_id, c.chunk_no"""
                ).format(vector=chunk_vector, mine=mine),
            ),
            (
                "relation",
                sql.SQL(
                    """SELECT to_jsonb(r) AS row FROM memory_relations r WHERE r.tenant_id = %(t)s
                       AND r.from_id IN ({mine}) AND r.to_id IN ({mine}) ORDER BY r.created_at, r.from_id"""
                ).format(mine=mine),
            ),
            (
                "history",
                sql.SQL(
                    """SELECT to_jsonb(h) - 'id' AS row FROM memory_history h WHERE h.tenant_id = %(t)s
                       AND h.memory_id IN ({mine}) ORDER BY h.id"""
                ).format(mine=mine),
            ),
            (
                "write_result",
                sql.SQL(
                    """SELECT to_jsonb(w) AS row FROM write_results w WHERE w.tenant_id = %(t)s
                       AND w.memory_id IN ({mine}) ORDER BY w.recorded_at, w.job_id"""
                ).format(mine=mine),
            ),
            (
                "pending_link",
                sql.SQL(
                    """SELECT to_jsonb(p) AS row FROM pending_causal_links p WHERE p.tenant_id = %(t)s
                       AND p.child_id IN ({mine}) ORDER BY p.child_id"""
                ).format(mine=mine),
            ),
        ]
        async with tenant_transaction(self._pool, tenant_id) as conn:
            for kind, query in queries:
                cursor = conn.cursor(name=f"export_{kind}")
                await cursor.execute(query, params)
                while rows := await cursor.fetchmany(500):
                    for row in rows:
                        record: dict[str, Any] = {"kind": kind, "row": row[0]}
                        if len(row) > 1 and row[1] is not None:
                            record["embedding"] = json.loads(row[1])
                        yield record
                await cursor.close()

    async def _table_columns(self, conn: AsyncConnection, table: str) -> list[str]:
        if table not in self._columns:
            rows = await fetch_all(
                conn,
                """SELECT column_name FROM information_schema.columns
                   WHERE table_schema = current_schema() AND table_name = %s AND is_generated = 'NEVER'
                   ORDER BY ordinal_position""",
                (table,),
            )
            self._columns[table] = [
                r["column_name"] for r in rows if r["column_name"] not in _SKIP.get(table, ())
            ]
        return self._columns[table]

    async def _insert(
        self,
        conn: AsyncConnection,
        table: str,
        record: dict[str, Any],
        conflict: str | sql.Composed,
        returning: bool,
        extra: dict[str, Any] | None = None,
    ) -> bool:
        row: dict[str, Any] = record["row"]
        columns = await self._table_columns(conn, table)
        unknown = set(row) - set(columns) - _SKIP.get(table, set())
        if unknown:
            raise InvalidInput(
                "file",
                f"{table} has no column {', '.join(sorted(unknown))}: the export comes from a newer schema "
                "(run `hindsight migrate` with that version first)",
            )
        chosen = [c for c in columns if c in row and not (c == "embedding" and table in _VECTOR)]
        targets = [sql.Identifier(c) for c in chosen]
        values: list[sql.Composable] = [sql.SQL("r.{}").format(sql.Identifier(c)) for c in chosen]
        params: dict[str, Any] = {"row": Jsonb(row), **(extra or {})}
        if table in _VECTOR:
            if "embedding" not in record:
                raise ValueError(f"{table} record without its embedding")
            targets.append(sql.Identifier("embedding"))
            values.append(sql.SQL("%(embedding)s::vector"))
            params["embedding"] = exact_vector(record["embedding"])
        query = sql.SQL(
            "INSERT INTO {table} ({targets}) SELECT {values} "
            "FROM jsonb_populate_record(NULL::{table}, %(row)s) r "
            "{conflict}{returning}"
        ).format(
            table=sql.Identifier(table),
            targets=sql.SQL(", ").join(targets),
            values=sql.SQL(", ").join(values),
            conflict=sql.SQL(conflict) if isinstance(conflict, str) else conflict,
            returning=sql.SQL(" RETURNING 1") if returning else sql.SQL(""),
        )
        cursor = await conn.execute(query, params)
        return cursor.rowcount == 1

    async def import_records(
        self, tenant_id: str, records: Sequence[dict[str, Any]]
    ) -> tuple[dict[str, int], set[str], list[KeySettlement]]:
        counts: dict[str, int] = {"skipped": 0}
        new_memories: set[str] = set()
        settled: list[KeySettlement] = []
        async with tenant_transaction(self._pool, tenant_id) as conn:
            # the worker's key locks, all at once in its order, before any row: no two holders can appear
            # by a write and an import racing, and no deadlock with a worker batch
            keys = {
                key_lock(tenant_id, str(r["row"].get("agent_id")), r["row"]["key"])
                for r in records
                if r["kind"] == "memory" and (_holds_key(r["row"]) or _past_value(r["row"]))
            }
            if keys:
                await conn.execute(KEY_LOCKS, (sorted(keys),))
            for record in records:
                kind = record["kind"]
                table = TABLES[kind]
                try:
                    inserted = await self._import_one(conn, tenant_id, record, new_memories)
                    settlement = None
                    if inserted and kind == "memory" and _holds_key(record["row"]):
                        settlement = await _settle_on_key(conn, tenant_id, record["row"]["id"])
                    elif inserted and kind == "memory" and _past_value(record["row"]):
                        settlement = await _fit_past_value(conn, tenant_id, record["row"]["id"])
                    if settlement is not None:
                        settled.append(settlement)
                except (errors.NotNullViolation, errors.CheckViolation, errors.DataError) as exc:
                    # a value domain.export_records does not know (a NULL, a wrong type): the batch rolls
                    # back and the use case imports the records before this one again (its module doc)
                    column = exc.diag.column_name or table
                    what = exc.diag.message_primary or type(exc).__name__
                    where = f"{kind} {record_id(kind, record['row'])}: {column}"
                    raise RecordRefused(
                        record.get("line", 0), where, f"the database refuses it ({what})"
                    ) from None
                counts[kind] = counts.get(kind, 0) + int(inserted)
                counts["skipped"] += int(not inserted)
        return counts, new_memories, settled

    async def _import_one(
        self, conn: AsyncConnection, tenant_id: str, record: dict[str, Any], new_memories: set[str]
    ) -> bool:
        """Insert one record; True when it was inserted, False when it was skipped (already there, or a
        relation whose ends are not both in the tenant)."""
        kind = record["kind"]
        table = TABLES[kind]
        if record["row"].get("tenant_id") != tenant_id:
            raise ValueError(f"{kind} record of tenant {record['row'].get('tenant_id')!r}")
        if kind == "memory":
            row, access = _split_access(record["row"])
            inserted = await self._insert(
                conn, table, {**record, "row": row}, "ON CONFLICT (id) DO NOTHING", True
            )
            if inserted:
                new_memories.add(str(row["id"]))
                if access:
                    access_row = {"memory_id": row["id"], "tenant_id": tenant_id, **access}
                    await self._insert(conn, "memory_access", {"row": access_row}, "", False)
            else:
                await self._explain_conflict(conn, tenant_id, record["row"]["id"])
        elif kind == "relation":
            inserted = await self._insert_if_both_ends(conn, tenant_id, record)
        elif kind == "history":
            inserted = await self._insert_history(conn, record)
        else:
            inserted = await self._insert(conn, table, record, "ON CONFLICT DO NOTHING", False)
        return inserted

    async def _insert_if_both_ends(
        self, conn: AsyncConnection, tenant_id: str, record: dict[str, Any]
    ) -> bool:
        row = record["row"]
        cur = await conn.execute(
            "SELECT count(*) FROM memories WHERE tenant_id = %s AND id = ANY(%s)",
            (tenant_id, [row["from_id"], row["to_id"]]),
        )
        found = await cur.fetchone()
        if not found or int(found[0]) != 2:
            return False
        return await self._insert(conn, "memory_relations", record, "ON CONFLICT DO NOTHING", False)

    async def _insert_history(self, conn: AsyncConnection, record: dict[str, Any]) -> bool:
        """A history record has no key (its serial id is the target's own): its ``occurrence``-th identical
        entry in the file (every column it carries equal) is inserted unless the memory has that many, so
        importing a file again (after a stopped import) adds only the entries not there yet."""
        columns = [c for c in await self._table_columns(conn, "memory_history") if c in record["row"]]
        same = sql.SQL(" AND ").join(
            sql.SQL("h.{c} IS NOT DISTINCT FROM r.{c}").format(c=sql.Identifier(c)) for c in columns
        )
        unless_there = sql.SQL(
            "WHERE (SELECT count(*) FROM memory_history h WHERE h.memory_id = r.memory_id AND {same})"
            " < %(occurrence)s"
        ).format(same=same)
        occurrence = int(record.get("occurrence", 1))
        return await self._insert(
            conn, "memory_history", record, unless_there, False, {"occurrence": occurrence}
        )

    async def existing_chunks(self, tenant_id: str, keys: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        if not keys:
            return set()
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(
                conn,
                """SELECT c.memory_id, c.chunk_no FROM memory_chunks c
                   JOIN unnest(%s::uuid[], %s::int[]) AS k(memory_id, chunk_no)
                     ON c.memory_id = k.memory_id AND c.chunk_no = k.chunk_no
                   WHERE c.tenant_id = %s""",
                ([m for m, _ in keys], [n for _, n in keys], tenant_id),
            )
        return {(str(r["memory_id"]), int(r["chunk_no"])) for r in rows}

    async def _explain_conflict(self, conn: AsyncConnection, tenant_id: str, memory_id: str) -> None:
        cur = await conn.execute(
            "SELECT 1 FROM memories WHERE id = %s AND tenant_id = %s", (memory_id, tenant_id)
        )
        if await cur.fetchone() is None:
            raise InvalidInput(
                "file",
                f"memory {memory_id} already exists in another tenant: import with --remap-ids to give the "
                "imported memories ids of their own",
            )

    async def existing(self, tenant_id: str, ids: Sequence[str]) -> set[str]:
        async with tenant_transaction(self._pool, tenant_id) as conn:
            rows = await fetch_all(
                conn,
                "SELECT id FROM memories WHERE tenant_id = %s AND id = ANY(%s::uuid[])",
                (tenant_id, list(ids)),
            )
        return {str(r["id"]) for r in rows}

    async def link_causal_parents(self, tenant_id: str, links: Sequence[tuple[UUID, UUID]]) -> int:
        if not links:
            return 0
        async with tenant_transaction(self._pool, tenant_id) as conn:
            cur = await conn.execute(
                """UPDATE memories m SET causal_parent = l.parent
                   FROM unnest(%s::uuid[], %s::uuid[]) AS l(child, parent)
                   WHERE m.id = l.child AND m.tenant_id = %s AND m.causal_parent IS NULL
                     AND EXISTS (SELECT 1 FROM memories p WHERE p.id = l.parent AND p.tenant_id = %s)""",
                ([c for c, _ in links], [p for _, p in links], tenant_id, tenant_id),
            )
            return cur.rowcount


async def _settle_on_key(conn: AsyncConnection, tenant_id: str, memory_id: Any) -> KeySettlement | None:
    """Settle the just-imported active keyed fact ``memory_id`` with the other values of its agent's key,
    as ``memory_writes._store_one`` settles a write (the caller holds the key's lock): an additive one
    stays beside the active facts (linked ``related``); otherwise, by ``order_values``, it supersedes each
    active fact that began to hold at or before it, is a past value of the earliest that began after it
    (stored superseded by it, valid until then), and stays beside an inference/user statement pair the
    source rules keep (linked ``contradicts``); among the key's past values (``fit_in_past``) it ends the
    one it begins inside and, as a past value, ends where the next begins; an inference is linked to an
    archived user statement on the key (``ARCHIVED_STATEMENTS``). None when it met nothing on the key."""
    new = await fetch_one(conn, _IMPORTED, (memory_id, tenant_id))
    assert new is not None
    agent, key, since = new["agent_id"], new["key"], new["since"]
    holders = [h for h in await fetch_all(conn, KEY_HOLDERS, (tenant_id, agent, key)) if h["id"] != new["id"]]
    settled = {"agent_id": agent, "key": key, "memory_id": new["id"]}
    if is_additive(new["content"]):
        if not holders:
            return None
        newest = holders[0]["id"]
        why = "adds to the fact on the same key"
        await conn.execute(RELATE, (tenant_id, new["id"], newest, "related", why))
        kept_ids = tuple(h["id"] for h in holders)
        return KeySettlement(**settled, kept=kept_ids, reason=f"adds to {newest} (same key, both active)")
    superseded, kept, holder = order_values(new["source"], since, holders)
    past = await fetch_all(conn, PAST_ON_KEY, (tenant_id, agent, key, since, new["id"]))
    ended, holder = fit_in_past(new["source"], since, past, holder)
    parts = []
    for old in superseded:
        await supersede(conn, tenant_id, new["id"], old["id"], since, IMPORTED_NEWER, IMPORT)
        parts.append(f"supersedes {old['id']}")
    parts += await _end_values(conn, tenant_id, new["id"], ended, since)
    for old in kept if holder is None else []:  # a past value is not current: it contradicts nothing now
        why, part = kept_reason(old)
        await conn.execute(RELATE, (tenant_id, new["id"], old["id"], "contradicts", why))
        parts.append(part)
    archived: list[UUID] = []
    resumed: list[tuple[UUID, UUID]] = []
    if holder is not None:
        said, resumed = await _past_value_of(conn, tenant_id, new, holder)
        parts += said
    elif new["source"] == "agent_inferred":  # never silently the fact over an archived user statement
        for old in await fetch_all(conn, ARCHIVED_STATEMENTS, (tenant_id, agent, key, since)):
            if not same_information(new["content"], old["content"]):
                await conn.execute(
                    RELATE, (tenant_id, new["id"], old["id"], "contradicts", ARCHIVED_STATEMENT)
                )
                archived.append(old["id"])
                parts.append(f"contradicts {old['id']} (user_stated, archived: kept, shown beside it)")
    interrupted = await resume_after(conn, tenant_id, new["id"], [*superseded, *ended], IMPORT)
    parts += [resumed_reason(old, made) for old, made in interrupted]
    resumed += interrupted
    if not parts:
        return None
    return KeySettlement(
        **settled,
        superseded=tuple(o["id"] for o in superseded),
        ended=tuple(o["id"] for o in ended),
        past_value_of=holder["id"] if holder is not None else None,
        kept=tuple(o["id"] for o in kept) + tuple(archived),
        resumed=tuple(made for _, made in resumed),
        reason="; ".join(parts),
    )


async def _end_values(
    conn: AsyncConnection, tenant_id: str, new_id: UUID, ended: Sequence[dict[str, Any]], since: datetime
) -> list[str]:
    """End each of ``ended`` (rows with ``id``) where the imported value ``new_id`` begins, ``since``
    (superseded by it, ``LATER_VALUE``); the settlement's reason parts, one a value."""
    parts = []
    for old in ended:
        await supersede(conn, tenant_id, new_id, old["id"], since, LATER_VALUE, IMPORT)
        parts.append(ended_reason(old["id"], since))
    return parts


async def _past_value_of(
    conn: AsyncConnection, tenant_id: str, new: dict[str, Any], holder: dict[str, Any]
) -> tuple[list[str], list[tuple[UUID, UUID]]]:
    """Store the imported value ``new`` (``id``, ``valid_to``) as a past value of ``holder`` (``id``,
    ``since``: the earliest value that began after it; superseded by it then, ``PAST_VALUE``) and, when
    ``new`` was imported after a value bounded inside its period, let that value hold again after it, as a
    write does (``key_resume.resume_written_after``). The settlement's reason parts and the (resumed, made)
    id pairs."""
    await supersede(conn, tenant_id, holder["id"], new["id"], holder["since"], PAST_VALUE, IMPORT)
    resumed = await resume_written_after(conn, tenant_id, new["id"], new["valid_to"], holder, IMPORT)
    said = [past_value_reason(holder["id"], holder["since"])]
    return said + [written_after_reason(holder["id"], made) for _, made in resumed], resumed


_IMPORTED = """SELECT id, agent_id, key, source, content, valid_to,
          coalesce(valid_from, occurred_at, created_at) AS since
   FROM memories WHERE id = %s AND tenant_id = %s"""
_OVERLAPPING = """SELECT id, source, status, valid_to AS until,
          coalesce(valid_from, occurred_at, created_at) AS since FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND key = %(key)s AND id <> %(id)s
     AND status IN ('active', 'superseded')
     AND coalesce(valid_from, occurred_at, created_at) < %(end)s
     AND coalesce(valid_to, 'infinity') > %(start)s
     AND coalesce(valid_to, 'infinity') > coalesce(valid_from, occurred_at, created_at)"""
"""The values of an agent's key (active or past, never an empty period) that share an instant with
``[start, end)``."""


async def _fit_past_value(conn: AsyncConnection, tenant_id: str, memory_id: Any) -> KeySettlement | None:
    """Fit the just-imported past value ``memory_id`` (superseded, with an end: ``[since, end)``) among the
    other values of its agent's key by the write path's rule (``domain.contradiction.order_contradiction``,
    as ``fit_in_past``; the caller holds the key's lock): each value that held when it began and that it
    may replace ends where it begins — and holds again after its end when it held past it
    (``key_resume.resume_after``); it ends where the earliest value that began inside its period begins
    (superseded by it). An addition, and the pairs the source rules keep, stay beside it; a value with an
    empty period (``[t, t)``: it never held) is fitted nowhere (new-user trial F8: the current fact was split
    around one). None when it shared no instant with another value of the key."""
    new = await fetch_one(conn, _IMPORTED, (memory_id, tenant_id))
    assert new is not None
    if is_additive(new["content"]) or new["valid_to"] <= new["since"]:
        return None  # an empty period (a value a restore retired: it never held) interrupts nothing (F8)
    since = new["since"]
    others = await fetch_all(
        conn,
        _OVERLAPPING,
        {"t": tenant_id, "a": new["agent_id"], "key": new["key"], "id": new["id"], "start": since,
         "end": new["valid_to"]},
    )  # fmt: skip
    ended: list[dict[str, Any]] = []
    later: list[dict[str, Any]] = []
    for row in others:
        order = order_contradiction(new["source"], since, row["source"], row["since"])
        (ended if order == "supersede" else later if order == "superseded" else []).append(row)
    holder = min(later, key=lambda r: r["since"], default=None)
    parts = await _end_values(conn, tenant_id, new["id"], ended, since)
    resumed: list[tuple[UUID, UUID]] = []
    if holder is not None:
        said, resumed = await _past_value_of(conn, tenant_id, new, holder)
        parts += said
    interrupted = await resume_after(conn, tenant_id, new["id"], ended, IMPORT)
    parts += [resumed_reason(old, made) for old, made in interrupted]
    resumed += interrupted
    if not parts:
        return None
    return KeySettlement(
        agent_id=new["agent_id"],
        key=new["key"],
        memory_id=new["id"],
        ended=tuple(o["id"] for o in ended),
        past_value_of=holder["id"] if holder is not None else None,
        resumed=tuple(made for _, made in resumed),
        reason="; ".join(parts),
    )
