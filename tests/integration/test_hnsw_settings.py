"""The HNSW indexes as the migrations leave them (ef_construction 256, migration 022, issue 15), and the
search breadth every tenant-scoped statement runs with: 200 up to 110k memories, then growing with the
square root of the store's size, at most 1000; or the pinned ``HINDSIGHT_HNSW_EF_SEARCH``."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from hindsight.adapters.postgres.hnsw import BUILD_OPTIONS, ef_search_for
from hindsight.adapters.postgres.migrations import default_migrations_dir, load_migrations, migrate
from hindsight.adapters.postgres.pool import one_connection, open_pool
from hindsight.adapters.postgres.rows import tenant_rows, tenant_rows_of, tenant_transaction
from hindsight.bootstrap import session_settings
from hindsight.config import Settings
from hindsight.local.stack import LocalStack

pytestmark = pytest.mark.integration
BREADTH = "SELECT current_setting('hnsw.ef_search') AS ef"
PROBE = "SELECT id FROM memories ORDER BY embedding <=> %s::vector LIMIT 5"


@pytest.fixture(scope="module")
def migrated(stack: LocalStack) -> str:
    """A database of its own, migrated (its row-count statistics are rewritten below)."""
    url = stack.require_settings().require_database_url()
    name = f"hnsw_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = url.replace("/hindsight?", f"/{name}?")

    async def go() -> None:
        conn = await one_connection(url)
        try:
            await migrate(
                conn, load_migrations(default_migrations_dir(None)), embedding_dim=8, embedding_model="t"
            )
        finally:
            await conn.close()

    asyncio.run(go())
    return url


def _set_rows(url: str, rows: float) -> None:
    """What ANALYZE would have recorded for a memories table of ``rows`` rows."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE pg_class SET reltuples = %s WHERE oid = 'memories'::regclass", (rows,))


INDEX_OPTIONS = """SELECT c.relname, c.reloptions FROM pg_class c
                   WHERE c.relname IN ('memories_embedding_hnsw', 'memory_chunks_embedding_hnsw')"""


def test_the_migrated_indexes_are_built_with_ef_construction_256(migrated: str) -> None:
    with psycopg.connect(migrated) as conn:
        options = dict(conn.execute(INDEX_OPTIONS).fetchall())
    assert options == {
        "memories_embedding_hnsw": ["m=16", "ef_construction=256"],
        "memory_chunks_embedding_hnsw": ["m=16", "ef_construction=256"],
    }
    assert BUILD_OPTIONS == "m = 16, ef_construction = 256"  # what the re-embed and the benchmarks build


def test_a_store_migrated_before_022_links_new_rows_with_256(stack: LocalStack) -> None:
    """A store at 021 has the indexes as 015 left them when it ran (128); 022 sets 256 on both."""
    url = stack.require_settings().require_database_url()
    name = f"hnsw_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = url.replace("/hindsight?", f"/{name}?")
    migrations = load_migrations(default_migrations_dir(None))
    assert [m.version for m in migrations][21] == 22

    async def go(upto: int) -> list[int]:
        conn = await one_connection(url)
        try:
            return await migrate(conn, migrations[:upto], embedding_dim=8, embedding_model="t")
        finally:
            await conn.close()

    asyncio.run(go(21))
    with psycopg.connect(url, autocommit=True) as conn:
        for index in ("memories_embedding_hnsw", "memory_chunks_embedding_hnsw"):
            conn.execute(f"ALTER INDEX {index} SET (ef_construction = 128)")  # 015 as it ran then
    assert asyncio.run(go(len(migrations)))[0] == 22
    with psycopg.connect(url) as conn:
        options = dict(conn.execute(INDEX_OPTIONS).fetchall())
    assert options == {
        "memories_embedding_hnsw": ["m=16", "ef_construction=256"],
        "memory_chunks_embedding_hnsw": ["m=16", "ef_construction=256"],
    }


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("rows", "expected"), [(-1, 200), (40_000, 200), (250_000, 302), (1_010_000, 607), (5_000_000, 1000)]
)
async def test_every_tenant_statement_gets_the_breadth_of_the_store_size(
    migrated: str, rows: float, expected: int
) -> None:
    _set_rows(migrated, rows)
    assert ef_search_for(rows) == expected
    pool = await open_pool(
        migrated,
        min_size=1,
        max_size=1,
        timeout_s=5,
        session_settings=session_settings(Settings(hnsw_ef_search=None)),
    )
    try:
        # a read, with a vector probe before it in the same pipeline (pgvector loaded mid-transaction)
        _, [after] = await tenant_rows_of(pool, "t", [(PROBE, ("[1,0,0,0,0,0,0,0]",)), (BREADTH, None)])
        assert after == {"ef": str(expected)}
        async with tenant_transaction(pool, "t") as conn:  # a write's transaction
            row = await (await conn.execute(BREADTH)).fetchone()
        assert row == (str(expected),)
        # the setting ends with its statement's transaction
        async with pool.connection() as conn:
            left = await (await conn.execute("SELECT current_setting('hnsw.ef_search', true)")).fetchone()
        assert left is not None
        assert left[0] in (None, "", "40")  # unset (pgvector not loaded yet) or pgvector's default
    finally:
        await pool.close()


@pytest.mark.anyio
async def test_a_pinned_breadth_wins_over_the_size_rule(migrated: str) -> None:
    _set_rows(migrated, 5_000_000)
    pool = await open_pool(
        migrated,
        min_size=1,
        max_size=1,
        timeout_s=5,
        session_settings=session_settings(Settings(hnsw_ef_search=321)),
    )
    try:
        assert await tenant_rows(pool, "t", BREADTH) == [{"ef": "321"}]
    finally:
        await pool.close()
