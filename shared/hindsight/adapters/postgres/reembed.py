"""The EmbeddingMigrationStore port on Postgres: re-embedding every memory under a new model or dimension
while the store keeps serving.

1. ``begin`` adds a shadow column ``embedding_next vector(<new dim>)`` to ``memories`` and
   ``memory_chunks`` (a catalog change: no rewrite) and a trigger that clears it whenever a row's
   ``embedding`` changes (an edit during the re-embed is embedded again). The target is recorded in
   ``hindsight_meta`` (``reembed_target_model``, ``reembed_target_dim``), so an interrupted run resumes.
2. ``pending`` / ``fill`` walk the rows without a new vector in primary-key order; a fill only lands on
   the row version it was read at (``xmin``), so a row changed in between is read again.
3. ``build_index`` builds the HNSW index on the shadow column ``CONCURRENTLY`` (writes go on). pgvector
   needs a fixed dimension per index, which the typed column gives it.
4. ``switching`` takes SHARE ROW EXCLUSIVE on both tables — writers wait, searches go on — fills what
   was written meanwhile, then ``swap`` drops the old column, renames the shadow one and its index, sets
   NOT NULL, and records the new model and dimension, all in that one transaction. Old-config processes
   then fail ``check_schema`` at start ("embedding dimension/model mismatch"); new-config ones start.

These statements cross tenants (like listing maintenance scopes): run them as the schema owner.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from uuid import UUID

from psycopg import AsyncConnection, errors
from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.postgres.archive import exact_vector
from hindsight.adapters.postgres.hnsw import BUILD_OPTIONS
from hindsight.adapters.postgres.rows import fetch_all, fetch_one
from hindsight.domain.errors import InvalidInput, Unavailable
from hindsight.ports import EmbeddingState, PendingEmbedding, Vector

TARGET_MODEL = "reembed_target_model"
TARGET_DIM = "reembed_target_dim"
LOCK_TIMEOUT = "10s"
_TABLES = ("memories", "memory_chunks")
_TRIGGER_FUNCTION = """
CREATE OR REPLACE FUNCTION hindsight_reembed_invalidate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.embedding_next := NULL;  -- the row's text changed: embed it again under the new model
    RETURN NEW;
END $$"""


async def _column_dim(conn: AsyncConnection, table: str, column: str) -> int | None:
    row = await fetch_one(
        conn,
        """SELECT atttypmod FROM pg_attribute
           WHERE attrelid = %s::regclass AND attname = %s AND NOT attisdropped""",
        (table, column),
    )
    return int(row["atttypmod"]) if row else None


async def _index_valid(conn: AsyncConnection, name: str) -> bool | None:
    row = await fetch_one(
        conn,
        "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname = %s",
        (name,),
    )
    return bool(row["indisvalid"]) if row else None


async def _pending(
    conn: AsyncConnection, after: tuple[UUID, int] | None, limit: int, with_context: bool
) -> list[PendingEmbedding]:
    # (memory_id, chunk_no) keyset: a memory is its chunk 0, so it comes after ``after`` only when its id
    # is greater; both branches walk their primary keys.
    after_id, after_no = after if after is not None else (UUID(int=0), -1)
    context = "m.context" if with_context else "NULL::text"
    rows = await fetch_all(
        conn,
        f"""(SELECT m.id AS memory_id, 0 AS chunk_no, m.xmin::text AS version, m.content, m.query,
                    {context} AS context
             FROM memories m WHERE m.embedding_next IS NULL AND (m.id > %(id)s OR %(no)s < 0)
             ORDER BY m.id LIMIT %(limit)s)
            UNION ALL
            (SELECT c.memory_id, c.chunk_no, c.xmin::text, c.content, NULL, NULL
             FROM memory_chunks c
             WHERE c.embedding_next IS NULL AND (c.memory_id, c.chunk_no) > (%(id)s, %(no)s)
             ORDER BY c.memory_id, c.chunk_no LIMIT %(limit)s)
            ORDER BY memory_id, chunk_no LIMIT %(limit)s""",
        {"id": after_id, "no": after_no, "limit": limit},
    )
    return [PendingEmbedding(**r) for r in rows]


async def _fill(conn: AsyncConnection, rows: Sequence[tuple[PendingEmbedding, Vector]]) -> int:
    whole = [(p, v) for p, v in rows if p.chunk_no == 0]
    parts = [(p, v) for p, v in rows if p.chunk_no > 0]
    filled = 0
    if whole:
        cur = await conn.execute(
            """UPDATE memories m SET embedding_next = v.e::vector
               FROM unnest(%s::uuid[], %s::text[], %s::text[]) AS v(id, version, e)
               WHERE m.id = v.id AND m.xmin::text = v.version AND m.embedding_next IS NULL""",
            (
                [p.memory_id for p, _ in whole],
                [p.version for p, _ in whole],
                [exact_vector(v) for _, v in whole],
            ),
        )
        filled += cur.rowcount
    if parts:
        cur = await conn.execute(
            """UPDATE memory_chunks c SET embedding_next = v.e::vector
               FROM unnest(%s::uuid[], %s::int[], %s::text[], %s::text[]) AS v(id, no, version, e)
               WHERE c.memory_id = v.id AND c.chunk_no = v.no AND c.xmin::text = v.version
                 AND c.embedding_next IS NULL""",
            (
                [p.memory_id for p, _ in parts],
                [p.chunk_no for p, _ in parts],
                [p.version for p, _ in parts],
                [exact_vector(v) for _, v in parts],
            ),
        )
        filled += cur.rowcount
    return filled


class _Switch:
    """The EmbeddingSwitch port: one transaction holding SHARE ROW EXCLUSIVE on both tables."""

    def __init__(self, conn: AsyncConnection, with_context: bool) -> None:
        self._conn = conn
        self._with_context = with_context
        self.swapped = False

    async def pending(self, limit: int) -> list[PendingEmbedding]:
        return await _pending(self._conn, None, limit, self._with_context)

    async def fill(self, rows: Sequence[tuple[PendingEmbedding, Vector]]) -> int:
        return await _fill(self._conn, rows)

    async def swap(self, model: str, dim: int) -> None:
        conn = self._conn
        for table in _TABLES:
            if await _index_valid(conn, f"{table}_embedding_next_hnsw") is not True:
                raise InvalidInput("reembed", f"the index on {table}.embedding_next is not built yet")
        for table in _TABLES:
            await conn.execute(f"DROP TRIGGER IF EXISTS {table}_reembed_invalidate ON {table}")
            await conn.execute(f"ALTER TABLE {table} DROP COLUMN embedding")
            await conn.execute(f"ALTER TABLE {table} RENAME COLUMN embedding_next TO embedding")
            await conn.execute(f"ALTER TABLE {table} ALTER COLUMN embedding SET NOT NULL")
            await conn.execute(f"ALTER INDEX {table}_embedding_next_hnsw RENAME TO {table}_embedding_hnsw")
        await conn.execute("DROP FUNCTION IF EXISTS hindsight_reembed_invalidate()")
        for name, value in (("embedding_model", model), ("embedding_dim", str(dim))):
            await conn.execute(
                """INSERT INTO hindsight_meta (name, value) VALUES (%s, %s)
                   ON CONFLICT (name) DO UPDATE SET value = excluded.value""",
                (name, value),
            )
        await conn.execute("DELETE FROM hindsight_meta WHERE name IN (%s, %s)", (TARGET_MODEL, TARGET_DIM))
        self.swapped = True


class PostgresEmbeddingMigration:
    """The shadow-column re-embedding (see the module docstring)."""

    def __init__(self, pool: AsyncConnectionPool) -> None:
        self._pool = pool
        self._with_context: bool | None = None

    async def _has_context(self, conn: AsyncConnection) -> bool:
        if self._with_context is None:
            self._with_context = await _column_dim(conn, "memories", "context") is not None
        return self._with_context

    async def _meta(self, conn: AsyncConnection) -> dict[str, str]:
        rows = await fetch_all(conn, "SELECT name, value FROM hindsight_meta")
        return {r["name"]: r["value"] for r in rows}

    async def state(self) -> EmbeddingState:
        async with self._pool.connection() as conn:
            meta = await self._meta(conn)
            dim = await _column_dim(conn, "memories", "embedding") or 0
            target_dim = int(meta[TARGET_DIM]) if TARGET_DIM in meta else None
            remaining = 0
            index_ready = False
            if target_dim is not None and await _column_dim(conn, "memories", "embedding_next") is not None:
                row = await fetch_one(
                    conn,
                    """SELECT (SELECT count(*) FROM memories WHERE embedding_next IS NULL)
                            + (SELECT count(*) FROM memory_chunks WHERE embedding_next IS NULL) AS n""",
                )
                remaining = int(row["n"]) if row else 0
                index_ready = all([await _index_valid(conn, f"{t}_embedding_next_hnsw") for t in _TABLES])
        return EmbeddingState(
            model=meta.get("embedding_model"),
            dim=dim,
            target_model=meta.get(TARGET_MODEL),
            target_dim=target_dim,
            remaining=remaining,
            index_ready=index_ready,
        )

    async def begin(self, model: str, dim: int) -> None:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('hindsight-reembed'))")
            meta = await self._meta(conn)
            if TARGET_MODEL in meta and (meta[TARGET_MODEL], int(meta[TARGET_DIM])) != (model, dim):
                raise InvalidInput(
                    "reembed",
                    f"a re-embed to {meta[TARGET_MODEL]} ({meta[TARGET_DIM]} dimensions) is in progress: "
                    "finish it with the same --embedder/--dim, or `hindsight reembed --abort`",
                )
            try:
                for table in _TABLES:
                    existing = await _column_dim(conn, table, "embedding_next")
                    if existing is not None and existing != dim:
                        await conn.execute(f"ALTER TABLE {table} DROP COLUMN embedding_next")
                    await conn.execute(
                        f"ALTER TABLE {table} ADD COLUMN IF NOT EXISTS embedding_next vector({int(dim)})"
                    )
                await conn.execute(_TRIGGER_FUNCTION)
                for table in _TABLES:
                    await conn.execute(
                        f"""CREATE OR REPLACE TRIGGER {table}_reembed_invalidate
                            BEFORE UPDATE OF embedding ON {table} FOR EACH ROW
                            WHEN (NEW.embedding IS DISTINCT FROM OLD.embedding)
                            EXECUTE FUNCTION hindsight_reembed_invalidate()"""
                    )
            except errors.LockNotAvailable as exc:
                raise Unavailable(f"the memories table is busy; try again ({exc})") from exc
            for name, value in ((TARGET_MODEL, model), (TARGET_DIM, str(dim))):
                await conn.execute(
                    """INSERT INTO hindsight_meta (name, value) VALUES (%s, %s)
                       ON CONFLICT (name) DO UPDATE SET value = excluded.value""",
                    (name, value),
                )

    async def pending(self, after: tuple[UUID, int] | None, limit: int) -> list[PendingEmbedding]:
        async with self._pool.connection() as conn:
            return await _pending(conn, after, limit, await self._has_context(conn))

    async def fill(self, rows: Sequence[tuple[PendingEmbedding, Vector]]) -> int:
        async with self._pool.connection() as conn, conn.transaction():
            return await _fill(conn, rows)

    async def build_index(self) -> None:
        async with self._pool.connection() as conn:
            for table in _TABLES:
                name = f"{table}_embedding_next_hnsw"
                if await _index_valid(conn, name) is False:  # a concurrent build that failed half-way
                    await conn.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                await conn.execute(
                    f"""CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {table}
                        USING hnsw (embedding_next vector_cosine_ops) WITH ({BUILD_OPTIONS})"""
                )

    @asynccontextmanager
    async def switching(self) -> AsyncIterator[_Switch]:
        async with self._pool.connection() as conn:
            with_context = await self._has_context(conn)
            try:
                async with conn.transaction():
                    await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
                    await conn.execute("LOCK TABLE memories, memory_chunks IN SHARE ROW EXCLUSIVE MODE")
                    yield _Switch(conn, with_context)
            except errors.LockNotAvailable as exc:
                raise Unavailable(
                    f"could not lock the memories for the switch within {LOCK_TIMEOUT}; run it again ({exc})"
                ) from exc

    async def abort(self) -> bool:
        async with self._pool.connection() as conn, conn.transaction():
            await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
            meta = await self._meta(conn)
            existed = (
                TARGET_MODEL in meta or await _column_dim(conn, "memories", "embedding_next") is not None
            )
            for table in _TABLES:
                await conn.execute(f"DROP TRIGGER IF EXISTS {table}_reembed_invalidate ON {table}")
                await conn.execute(f"ALTER TABLE {table} DROP COLUMN IF EXISTS embedding_next")
            await conn.execute("DROP FUNCTION IF EXISTS hindsight_reembed_invalidate()")
            await conn.execute(
                "DELETE FROM hindsight_meta WHERE name IN (%s, %s)", (TARGET_MODEL, TARGET_DIM)
            )
            return existed
