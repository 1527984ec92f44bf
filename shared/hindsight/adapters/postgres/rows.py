"""Row mapping and the tenant-scoped transaction every statement runs in."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from psycopg import AsyncConnection, sql
from psycopg.rows import BaseRowFactory, dict_row
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from hindsight.adapters.postgres.hnsw import EF_SEARCH_SQL
from hindsight.domain.memory import HistoryEntry, Relation, StoredMemory
from hindsight.domain.trusted import trusted
from hindsight.ports import Vector

_FIELDS = [
    "id", "tenant_id", "agent_id", "layer", "key", "query", "content", "importance", "access_count",
    "last_accessed_at", "created_at", "updated_at", "occurred_at", "metadata", "status", "source", "tags",
    "entities", "task_id", "task_type", "outcome", "summary", "key_decisions", "lessons", "causal_parent",
    "last_verified_at", "valid_from", "valid_to", "context", "shared_with", "conversation_id", "turn_index",
    "session_index", "session_at", "version", "occurred_precision", "occurred_end", "injection_signals",
    "injection_stamp",
]  # fmt: skip
_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_]*")


def quoted_columns(alias: str, fields: Sequence[str]) -> sql.SQL:
    """``alias.field, …`` quoted as ``sql.Identifier`` quotes them ("m"."id"), as one SQL fragment: a
    statement composed with it escapes nothing per call (the 36 identifiers of MEMORY_COLUMNS cost
    ~85 µs of every statement reading a memory row). Names must be plain lower-case identifiers.

    Raises:
        ValueError: a name that would need escaping.
    """
    for name in (alias, *fields):
        if not _PLAIN_NAME.fullmatch(name):
            raise ValueError(f"column {name!r} is not a plain lower-case identifier")
    return sql.SQL(", ".join(f'"{alias}"."{f}"' for f in fields))


def access_fields(alias: str = "m") -> dict[str, str]:
    """The access counters of the memory ``alias`` (migration 018: their own table, so a search's
    bookkeeping writes no row of ``memories``), as expressions: a primary-key lookup each, no row → never
    recalled. ``alias``: a plain lower-case identifier (``quoted_columns``).

    Raises:
        ValueError: an alias that would need escaping."""
    quoted_columns(alias, [])  # the alias check
    row = f"FROM memory_access a WHERE a.memory_id = {alias}.id"
    return {
        "access_count": f"coalesce((SELECT a.access_count {row}), 0)",
        "last_accessed_at": f"(SELECT a.last_accessed_at {row})",
    }


ACCESS_FIELDS = access_fields()
"""``access_fields`` of the memory ``m``."""


def memory_columns(
    fields: Sequence[str], expressions: Mapping[str, str] | None = None, alias: str = "m"
) -> sql.SQL:
    """The select list of ``fields`` of the memory aliased ``alias`` (``m`` unless given), pre-quoted like
    ``quoted_columns``: a column of ``memories``, or an access counter's ``access_fields`` lookup named as
    the field, or the SQL expression ``expressions`` gives for it (named as the field).

    Raises:
        ValueError: an alias or field name that would need escaping."""
    computed = {**access_fields(alias), **(expressions or {})}
    return sql.SQL(
        ", ".join(
            f'{computed[f]} AS "{f}"' if f in computed else quoted_columns(alias, [f]).as_string(None)
            for f in fields
        )
    )


MEMORY_COLUMNS = memory_columns(_FIELDS)
MEMORY_FIELDS: tuple[str, ...] = tuple(_FIELDS)
"""The fields ``MEMORY_COLUMNS`` selects, in its order."""
_MEMORY_FIELDS = set(StoredMemory.model_fields)
_COLUMN_FIELDS = set(_FIELDS)
_UNREAD = {name: None for name in StoredMemory.model_fields if name not in _COLUMN_FIELDS}
"""The fields of ``StoredMemory`` no column holds (``superseded_by``, ``status_now``: set by the reads that
show them), at their default; they are its last fields."""
_MODEL_ORDER = tuple(name for name in StoredMemory.model_fields if name in _COLUMN_FIELDS)
if (*_MODEL_ORDER, *_UNREAD) != tuple(StoredMemory.model_fields) or any(
    StoredMemory.model_fields[name].default is not None for name in _UNREAD
):  # pragma: no cover - a model change this mapping does not follow
    raise RuntimeError("StoredMemory's fields no column holds must come last and default to None")


def memory_from_row(row: dict[str, Any]) -> StoredMemory:
    """A StoredMemory from a dict row holding at least MEMORY_COLUMNS.

    A row with exactly those fields (and any columns that are no field) is taken as it is (``trusted``):
    the driver gives each column as its field's type (uuid, text, real, integer, timestamptz, jsonb as
    dicts, arrays as lists) and the schema's NOT NULLs and CHECKs hold what the field's type does
    (layer, status, source, …), so validation would return the same values, only later (~16 µs a row:
    most of the Python CPU of the rows of the hits a search returns, issue 15). Any other row (one that
    also sets ``superseded_by`` or ``status_now``) is validated."""
    if _UNREAD.keys().isdisjoint(row) and _COLUMN_FIELDS.issubset(row):
        # one set of field names for every memory built here: pydantic copies it before changing it
        return trusted(StoredMemory, {name: row[name] for name in _MODEL_ORDER} | _UNREAD, _COLUMN_FIELDS)
    return StoredMemory.model_validate({k: v for k, v in row.items() if k in _MEMORY_FIELDS})


def relation_from_row(row: dict[str, Any]) -> Relation:
    return Relation.model_validate(row)


def history_from_row(row: dict[str, Any]) -> HistoryEntry:
    return HistoryEntry.model_validate(row)


def vector_literal(embedding: Vector) -> str:
    """pgvector's text form (sent as a parameter and cast with ``::vector``): 7 significant digits per
    value, formatted by one ``%`` of the whole vector (the same text as ``f"{x:.7g}"`` value by value, in
    about half the time: it is formatted for every write and search)."""
    return "[" + ",".join(["%.7g"] * len(embedding)) % tuple(embedding) + "]"


_SET_TENANT = f"""SELECT set_config('hindsight.tenant_id', %s, true),
                          set_config('hnsw.ef_search', {EF_SEARCH_SQL}, true)"""
"""The first statement of every tenant-scoped transaction: the tenant, and the HNSW search breadth for
the store's size (``hnsw.EF_SEARCH_SQL``); both end with the transaction."""


@asynccontextmanager
async def tenant_transaction(pool: AsyncConnectionPool, tenant_id: str) -> AsyncIterator[AsyncConnection]:
    """A transaction whose ``hindsight.tenant_id`` setting names the tenant (the row-level-security
    policies key on it, a second wall behind the WHERE clauses every statement carries), with the HNSW
    breadth of ``hnsw.EF_SEARCH_SQL``."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute(_SET_TENANT, (tenant_id,))
        yield conn


SPARE_WAIT_S = 0.001
"""How long ``spare_transaction`` waits for a connection: none in effect (psycopg_pool refuses a zero
timeout even with a connection idle); one asked for when none is idle is opened in the background, for
the next time."""


@asynccontextmanager
async def spare_transaction(
    pool: AsyncConnectionPool, tenant_id: str
) -> AsyncIterator[AsyncConnection | None]:
    """``tenant_transaction`` on a connection the pool has idle now, or None: it never waits for one, so
    a caller that holds a connection already cannot wait for a second one that others hold in turn."""
    try:
        conn = await pool.getconn(timeout=SPARE_WAIT_S)
    except PoolTimeout:
        yield None
        return
    try:
        async with conn.transaction():
            await conn.execute(_SET_TENANT, (tenant_id,))
            yield conn
    finally:
        await pool.putconn(conn)


@asynccontextmanager
async def spare_connection(pool: AsyncConnectionPool) -> AsyncIterator[AsyncConnection | None]:
    """A connection the pool has idle now (autocommit, no tenant set), or None: it never waits for one,
    like ``spare_transaction``."""
    try:
        conn = await pool.getconn(timeout=SPARE_WAIT_S)
    except PoolTimeout:
        yield None
        return
    try:
        yield conn
    finally:
        await pool.putconn(conn)


async def tenant_rows(
    pool: AsyncConnectionPool,
    tenant_id: str,
    query: Any,
    params: Any = None,
    row_factory: BaseRowFactory[Any] = dict_row,
) -> list[Any]:
    """The rows of one read statement in the tenant's transaction, in one round trip: the tenant
    setting and the statement are pipelined on an autocommit connection, and the server runs what
    comes before a Sync as one implicit transaction, so ``set_config(..., true)`` holds for the
    statement and ends with it (an explicit read transaction costs two: the rows, then COMMIT). Each
    row is a dict by column name, or what ``row_factory`` makes of it (``tuple_row``: a tuple in the
    select list's order). Errors surface here."""
    [rows] = await tenant_rows_of(pool, tenant_id, [(query, params)], row_factory)
    return rows


async def tenant_rows_of(
    pool: AsyncConnectionPool,
    tenant_id: str,
    statements: Sequence[tuple[Any, Any]],
    row_factory: BaseRowFactory[Any] = dict_row,
) -> list[list[Any]]:
    """Each ``(query, params)``'s rows, in order: ``tenant_rows`` for several read statements, all in
    the same implicit transaction and the same one round trip."""
    async with pool.connection() as conn:
        return await tenant_rows_on(conn, tenant_id, statements, row_factory)


async def tenant_rows_on(
    conn: AsyncConnection,
    tenant_id: str,
    statements: Sequence[tuple[Any, Any]],
    row_factory: BaseRowFactory[Any] = dict_row,
) -> list[list[Any]]:
    """``tenant_rows_of`` on ``conn``, an autocommit connection the caller holds."""
    async with conn.pipeline():
        await conn.execute(_SET_TENANT, (tenant_id,))
        cursors = []
        for query, params in statements:
            cursors.append(cur := conn.cursor(row_factory=row_factory))
            await cur.execute(query, params)
    # the pipeline's exit sent the Sync and collected every result
    return [await cur.fetchall() for cur in cursors]


async def rows_of(conn: AsyncConnection, statements: Sequence[tuple[Any, Any]]) -> list[list[dict[str, Any]]]:
    """Each ``(query, params)``'s rows, in order, in ``conn``'s transaction: pipelined, one round trip.
    Errors surface here."""
    async with conn.pipeline():
        cursors = []
        for query, params in statements:
            cursors.append(cur := conn.cursor(row_factory=dict_row))
            await cur.execute(query, params)
    return [await cur.fetchall() for cur in cursors]


async def tenant_execute(pool: AsyncConnectionPool, tenant_id: str, query: Any, params: Any = None) -> None:
    """One write statement that returns no rows, in the tenant's setting, in one round trip: pipelined
    after the tenant setting on an autocommit connection, as ``tenant_rows`` does, so both run in one
    implicit transaction that commits at the Sync (``tenant_transaction`` costs four: BEGIN, the
    setting, the statement, COMMIT). For a single statement only: it is atomic by itself. Errors
    surface here."""
    async with pool.connection() as conn, conn.pipeline():
        await conn.execute(_SET_TENANT, (tenant_id,))
        await conn.execute(query, params)


async def fetch_all(conn: AsyncConnection, query: Any, params: Any = None) -> list[dict[str, Any]]:
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(query, params)
    return await cur.fetchall()


async def fetch_one(conn: AsyncConnection, query: Any, params: Any = None) -> dict[str, Any] | None:
    cur = conn.cursor(row_factory=dict_row)
    await cur.execute(query, params)
    return await cur.fetchone()
