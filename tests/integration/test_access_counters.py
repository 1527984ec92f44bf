"""A search's access bookkeeping lives in ``memory_access`` (migration 018): it writes no row version of
``memories`` (no index entries, the HNSW graph's included), and the counters read the same as before."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from hindsight.adapters.postgres.archive import PostgresArchive
from hindsight.bootstrap import Container, build_container
from hindsight.domain.memory import MemoryDraft, Scope, WriteJob
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery, resolve

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


@pytest.fixture
async def container(stack: LocalStack) -> AsyncIterator[Container]:
    c = await build_container(stack.require_settings(), with_queue=False)
    try:
        yield c
    finally:
        await c.aclose()


async def _store(container: Container, tenant: str, content: str) -> uuid.UUID:
    job = WriteJob(
        id=uuid.uuid4(),
        tenant_id=tenant,
        agent_id="default",
        submitted_at=datetime.now(UTC),
        draft=MemoryDraft(content=content, layer="semantic"),
    )
    [result] = await container.store_memories([job])
    assert result.outcome == "stored"
    assert result.memory_id is not None
    return result.memory_id


def _row_version(stack: LocalStack, memory_id: uuid.UUID) -> tuple[Any, ...]:
    """The memories row's physical version: a new one (an UPDATE) changes xmin and ctid."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            "SELECT xmin::text, ctid::text FROM memories WHERE id = %s", (memory_id,)
        ).fetchone()
    assert row is not None
    return tuple(row)


async def _search(container: Container, tenant: str, text: str) -> list[uuid.UUID]:
    request = resolve(RecallQuery(text=text, top_k=5), datetime.now(UTC))
    hits = await container.recall.search(Scope(tenant_id=tenant), request)
    await container.access_log.flush()
    return [h.memory.id for h in hits]


async def test_a_search_counts_its_hits_without_writing_their_memories_rows(
    container: Container, stack: LocalStack, tenant: str
) -> None:
    memory_id = await _store(container, tenant, "The staging database is rebuilt every Sunday night")
    scope = Scope(tenant_id=tenant)
    before = await container.reader.get(scope, memory_id)
    assert before is not None
    assert (before.access_count, before.last_accessed_at) == (0, None)
    version = _row_version(stack, memory_id)

    assert memory_id in await _search(container, tenant, "when is the staging database rebuilt?")
    first = await container.reader.get(scope, memory_id)
    assert first is not None
    assert first.access_count == 1
    assert first.last_accessed_at is not None
    assert _row_version(stack, memory_id) == version  # no new row version of memories

    # within the debounce window: the same session, not counted again; the last access still moves
    assert memory_id in await _search(container, tenant, "staging database rebuild schedule")
    second = await container.reader.get(scope, memory_id)
    assert second is not None
    assert second.access_count == 1
    assert second.last_accessed_at is not None
    assert second.last_accessed_at >= first.last_accessed_at
    assert second.version == before.version
    assert _row_version(stack, memory_id) == version


async def test_access_counters_travel_with_an_export_and_go_with_a_deleted_memory(
    container: Container, stack: LocalStack, tenant: str
) -> None:
    memory_id = await _store(container, tenant, "Invoices are archived to cold storage after 90 days")
    at = datetime.now(UTC) - timedelta(days=2)
    await container.editor.record_access(Scope(tenant_id=tenant), [memory_id], at)
    archive = PostgresArchive(container.pool)
    records = [r async for r in archive.export_records(tenant, None, with_embeddings=True)]
    [memory] = [r for r in records if r["kind"] == "memory"]
    assert memory["row"]["access_count"] == 1
    assert datetime.fromisoformat(memory["row"]["last_accessed_at"]) == at

    url = stack.require_settings().require_database_url()
    with psycopg.connect(url) as conn:
        conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))
        left = conn.execute(
            "SELECT count(*) FROM memory_access WHERE memory_id = %s", (memory_id,)
        ).fetchone()
    assert left == (0,)

    await archive.import_records(tenant, [memory])
    restored = await container.reader.get(Scope(tenant_id=tenant), memory_id)
    assert restored is not None
    assert (restored.access_count, restored.last_accessed_at) == (1, at)
