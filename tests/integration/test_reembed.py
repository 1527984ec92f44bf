"""Re-embedding under another model and dimension on a private database: searches keep answering while
the new vectors are filled, an edit and a new write made meanwhile are embedded again, the switch is
atomic, and afterwards only processes configured for the new model start."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.bootstrap import build_container, run_migrations
from hindsight.config import Settings
from hindsight.domain.auth import Principal
from hindsight.domain.errors import ConfigurationError
from hindsight.domain.memory import MemoryChanges, MemoryDraft, Scope, WriteJob
from hindsight.domain.text import passage_text
from hindsight.local.stack import LocalStack
from hindsight.operator_tools import make_reembed
from hindsight.usecases.recall import RecallQuery, resolve

pytestmark = pytest.mark.integration
TENANT = "reembed"
WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
]


def _private_settings(stack: LocalStack, dim: int) -> Settings:
    url = stack.require_settings().require_database_url()
    name = f"reembed_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return stack.require_settings().replace(
        database_url=url.replace("/hindsight?", f"/{name}?"),
        embedder="hash",
        embedding_dim=dim,
        dedup_cosine=1.0,  # short notes under a 32-dimension hash embedder look alike: keep them all
    )


def _owner(settings: Settings) -> Settings:
    """The schema owner's connection (re-embedding alters tables), not the application role."""
    return settings.replace(db_app_role=None) if "db_app_role" in Settings.model_fields else settings


async def _search(container: Any, text: str) -> list[Any]:
    request = resolve(RecallQuery(text=text, top_k=5), datetime.now(UTC))
    hits: list[Any] = await container.recall.search(Scope(tenant_id=TENANT), request, record_access=False)
    return hits


async def _store(container: Any, drafts: list[MemoryDraft]) -> list[uuid.UUID]:
    start = datetime.now(UTC) - timedelta(minutes=10)
    jobs = [
        WriteJob(
            id=uuid.uuid4(),
            tenant_id=TENANT,
            agent_id="default",
            submitted_at=start + timedelta(seconds=i),
            draft=d,
        )
        for i, d in enumerate(drafts)
    ]
    results = await container.store_memories(jobs)
    assert all(r.outcome in ("stored", "merged") for r in results), results  # hashing may collide
    return [j.id for j in jobs]


def test_reembed_switches_atomically_while_search_keeps_working(stack: LocalStack) -> None:
    old = _private_settings(stack, 32)
    new = old.replace(embedding_dim=48)
    asyncio.run(run_migrations(old))

    async def scenario() -> None:
        app = await build_container(old, with_queue=False)  # a running process on the old config
        admin = await build_container(_owner(old), with_queue=False, verify_schema=False)
        try:
            drafts = [
                MemoryDraft(content=f"note about {WORDS[i // 15]}{WORDS[i % 15]} and {WORDS[i % 15]}")
                for i in range(80)
            ]
            drafts.append(MemoryDraft(content="the long one. " + "kilo lima mike. " * 150, key="long"))
            ids = await _store(app, drafts)
            job = make_reembed(admin, new)
            state = await job.status()
            assert (state.model, state.dim, state.target_model) == ("hash/32", 32, None)

            # Phase 1: fill and index, not switched; searches run all along on the old vectors.
            phases: list[str] = []
            answered = 0

            async def searching() -> None:
                nonlocal answered
                while "index" not in phases:
                    assert await _search(app, "kilo lima mike"), (
                        "search stopped answering during the re-embed"
                    )
                    answered += 1
                    await asyncio.sleep(0)

            searcher = asyncio.create_task(searching())
            report = await job.run(switch=False, progress=lambda phase, done, total: phases.append(phase))
            await searcher
            assert answered > 0
            assert not report.switched
            assert report.embedded >= 2
            state = await job.status()
            assert (state.target_model, state.target_dim, state.remaining, state.index_ready) == (
                "hash/48",
                48,
                0,
                True,
            )

            # Meanwhile an agent edits a memory and writes a new one (old config, old vectors).
            principal = Principal(tenant_id=TENANT, key_id="test")
            await app.manage.update(
                principal, None, ids[0], "update", MemoryChanges(content="note 0 is now zulu"), "edit"
            )
            (late,) = await _store(app, [MemoryDraft(content="a late write about xray yankee")])
            assert (await job.status()).remaining == 2  # the edit cleared its new vector; the write has none

            # Phase 2: the switch fills those two inside its transaction and swaps.
            report = await job.run(switch=True)
            assert report.switched
            state = await job.status()
            assert (state.model, state.dim, state.target_model) == ("hash/48", 48, None)
        finally:
            await admin.aclose()
            await app.aclose()

        # Old config: refused at start, naming both dimensions. New config: starts and finds everything.
        with pytest.raises(ConfigurationError, match=r"vector\(48\).*HINDSIGHT_EMBEDDING_DIM is 32"):
            await build_container(old, with_queue=False)
        fresh = await build_container(new, with_queue=False)
        try:
            hits = await _search(fresh, "note 0 is now zulu")
            assert hits[0].memory.id == ids[0]
            assert (await _search(fresh, "a late write about xray yankee"))[0].memory.id == late
            assert (await _search(fresh, "the long one kilo lima mike"))[0].memory.key == "long"
            expected = (
                await HashEmbedder(48).embed_passages(
                    [passage_text(MemoryDraft(content="note 0 is now zulu"))]
                )
            )[0]
            async with fresh.pool.connection() as conn, conn.transaction():
                await conn.execute("SELECT set_config('hindsight.tenant_id', %s, true)", (TENANT,))
                cur = await conn.execute("SELECT embedding::text FROM memories WHERE id = %s", (ids[0],))
                row = await cur.fetchone()
            assert row is not None
            stored = [float(x) for x in row[0].strip("[]").split(",")]
            assert stored == pytest.approx(expected, abs=1e-6)
            cur2 = await _chunks_dim(fresh)
            assert cur2 == 48
        finally:
            await fresh.aclose()

    asyncio.run(scenario())


async def _chunks_dim(container: Any) -> int:
    async with container.pool.connection() as conn:
        cur = await conn.execute(
            """SELECT atttypmod FROM pg_attribute
               WHERE attrelid = 'memory_chunks'::regclass AND attname = 'embedding'"""
        )
        row = await cur.fetchone()
    return int(row[0]) if row else -1


def test_reembed_refuses_a_second_target_and_can_be_aborted(stack: LocalStack) -> None:
    old = _private_settings(stack, 32)
    asyncio.run(run_migrations(old))

    async def scenario() -> None:
        admin = await build_container(_owner(old), with_queue=False)
        try:
            await _store(admin, [MemoryDraft(content="one"), MemoryDraft(content="two")])
            first = make_reembed(admin, old.replace(embedding_dim=40))
            await first.run(switch=False)
            other = make_reembed(admin, old.replace(embedding_dim=24))
            with pytest.raises(Exception, match="in progress"):
                await other.run()
            assert await first.abort() is True
            assert (await first.status()).target_model is None
            same = make_reembed(admin, old)
            assert (await same.run()).nothing_to_do
        finally:
            await admin.aclose()
        again = await build_container(old, with_queue=False)  # untouched: the old config still starts
        await again.aclose()

    asyncio.run(scenario())
