"""A search runs its keyword statement while the query embedding is computed (issue 15): the same
candidates as with the embedding given first, and an error in the embedding or in a statement surfaces
as it is with nothing left running — no task, no pool connection checked out."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg
import pytest

import hindsight.adapters.postgres.memory_reads as memory_reads
from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.bootstrap import build_container
from hindsight.container import Container
from hindsight.domain.memory import Scope, SearchRequest
from hindsight.local.stack import LocalStack
from hindsight.ports import Vector
from hindsight.usecases.recall import RecallQuery, resolve
from tests.support import keyed_jobs

pytestmark = pytest.mark.integration

FACTS = [
    "Caroline joined the pottery class on Tuesday",
    "Melanie painted a sunrise over the lake",
    "Caroline's pottery bowl cracked in the kiln",
    "The support group meets every second Friday",
]


async def _stored(
    container: Container, tenant: str
) -> tuple[Scope, SearchRequest, PostgresMemoryReader, Vector]:
    """FACTS stored for ``tenant``, and what a search of them needs: scope, request, reader and the
    query's embedding."""
    await container.store_memories(keyed_jobs(tenant, FACTS, "semantic"))
    scope = Scope(tenant_id=tenant, agent_id="default")
    request = resolve(RecallQuery(text="Caroline pottery", top_k=10), datetime.now(UTC))
    return (
        scope,
        request,
        PostgresMemoryReader(container.pool),
        await container.embedder.embed_query(request.text),
    )


def test_a_failing_embedding_or_statement_leaves_no_task_and_no_connection_behind(
    stack: LocalStack, tenant: str
) -> None:
    settings = stack.require_settings()

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            scope, request, reader, vector = await _stored(container, tenant)

            async def every_connection_free() -> bool:
                # all of the pool's connections can be had at once: none is held by a search (one
                # closed because its statement was cancelled mid-way is replaced meanwhile)
                pool = container.pool
                held = [await pool.getconn(timeout=30) for _ in range(pool.max_size)]
                for conn in held:
                    await pool.putconn(conn)
                return True

            async def given() -> Vector:
                return vector

            async def slow() -> Vector:
                await asyncio.sleep(0.05)  # the keyword statement is under way meanwhile
                return vector

            async def failing() -> Vector:
                await asyncio.sleep(0.01)
                raise RuntimeError("model crashed")

            async def wrong_size() -> Vector:
                return vector[:7]  # the vector statement fails: different vector dimensions

            expected = await reader.search_candidates(scope, request, given, 100)
            running = asyncio.all_tasks()  # the pool's workers, the container's background tasks
            assert expected
            assert any(c.keyword_score is not None for c in expected)
            same = await reader.search_candidates(scope, request, slow, 100)
            assert [c.model_dump() for c in same] == [c.model_dump() for c in expected]

            with pytest.raises(RuntimeError, match="model crashed"):
                await reader.search_candidates(scope, request, failing, 100)
            assert asyncio.all_tasks() <= running
            assert await every_connection_free()

            # the keyword statement is still running when the vector statement fails: it is cancelled
            # and has ended (its connection back) by the time the error is raised (gather left it running)
            with pytest.raises(psycopg.errors.DataException):
                await reader.search_candidates(scope, request, wrong_size, 100)
            assert asyncio.all_tasks() <= running
            assert await every_connection_free()

            again = await reader.search_candidates(scope, request, given, 100)
            assert [c.model_dump() for c in again] == [c.model_dump() for c in expected]
        finally:
            await container.aclose()

    asyncio.run(scenario())


def test_the_entity_statement_runs_beside_the_vector_one_when_the_keyword_one_ended_first(
    stack: LocalStack, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new query: the keyword statement ends while the model runs, so its connection is idle when the
    embedding arrives; the entity statement then runs there, not queued after the vector probe. A
    repeated query (the embedding at hand at once) sends the vector probe first, with the entity
    statement after it in one round trip, then the keyword statement. The candidates are the same
    either way."""
    settings = stack.require_settings()
    calls: list[list[str]] = []  # per round trip, the search statements it carried
    keyword_ended = asyncio.Event()

    def kind(query: object) -> str:
        text = query.as_string(None) if hasattr(query, "as_string") else str(query)
        if "hindsight_keyword_queries" in text:
            return "keyword"
        return "entity" if "hindsight_entity_matches" in text else "vector"

    original_of = memory_reads.tenant_rows_of
    original = memory_reads.tenant_rows

    async def spied_of(
        pool: object, tenant_id: str, statements: list[tuple[object, object]], *rows: object
    ) -> object:
        calls.append([kind(q) for q, _ in statements])
        return await original_of(pool, tenant_id, statements, *rows)  # type: ignore[arg-type]

    async def spied(
        pool: object, tenant_id: str, query: object, params: object = None, *rows: object
    ) -> object:
        calls.append([kind(query)])
        try:
            return await original(pool, tenant_id, query, params, *rows)  # type: ignore[arg-type]
        finally:
            if kind(query) == "keyword":
                keyword_ended.set()

    monkeypatch.setattr(memory_reads, "tenant_rows_of", spied_of)
    monkeypatch.setattr(memory_reads, "tenant_rows", spied)

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            drafts = [
                job.model_copy(update={"draft": job.draft.model_copy(update={"entities": {"person": who}})})
                for job, who in zip(
                    keyed_jobs(tenant, FACTS, "semantic"),
                    ["Caroline", "Melanie", "Caroline", "Melanie"],
                    strict=True,
                )
            ]
            await container.store_memories(drafts)
            scope = Scope(tenant_id=tenant, agent_id="default")
            request = resolve(RecallQuery(text="Caroline pottery", top_k=10), datetime.now(UTC))
            reader = PostgresMemoryReader(container.pool)
            vector = await container.embedder.embed_query(request.text)

            async def at_hand() -> Vector:
                return vector

            async def after_the_keyword_statement() -> Vector:
                await keyword_ended.wait()
                return vector

            repeated = await reader.search_candidates(scope, request, at_hand, 100)
            # the longer round trip is sent first: the keyword statement waits for it to be on its way
            assert calls == [["vector", "entity"], ["keyword"]]
            assert any(c.entity_matches for c in repeated)

            calls.clear()
            keyword_ended.clear()
            new = await reader.search_candidates(scope, request, after_the_keyword_statement, 100)
            assert sorted(calls) == [["entity"], ["keyword"], ["vector"]]
            assert [c.model_dump() for c in new] == [c.model_dump() for c in repeated]
        finally:
            await container.aclose()

    asyncio.run(scenario())


def test_the_model_starts_first_and_every_candidate_text_is_prepared(
    stack: LocalStack, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The query embedding is asked for before any statement is sent (the model is a new query's long
    pole), and ``prepare`` is handed the texts of every candidate, statement by statement."""
    settings = stack.require_settings()
    events: list[str] = []
    original = memory_reads.tenant_rows

    async def spied(
        pool: object, tenant_id: str, query: object, params: object = None, *rows: object
    ) -> object:
        events.append("statement")
        return await original(pool, tenant_id, query, params, *rows)  # type: ignore[arg-type]

    monkeypatch.setattr(memory_reads, "tenant_rows", spied)

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            scope, request, reader, vector = await _stored(container, tenant)

            async def embed() -> Vector:
                events.append("embed")
                await asyncio.sleep(0.05)  # a model at work: the keyword statement ends meanwhile
                return vector

            batches: list[list[str]] = []
            candidates = await reader.search_candidates(scope, request, embed, 100, batches.append)
            assert events[:2] == ["embed", "statement"]
            assert candidates
            assert len(batches) >= 2  # the keyword statement's texts, then the vector statement's
            assert {c.memory.content for c in candidates} <= {text for batch in batches for text in batch}
            given = await reader.search_candidates(scope, request, embed, 100)
            assert [c.model_dump() for c in given] == [c.model_dump() for c in candidates]
        finally:
            await container.aclose()

    asyncio.run(scenario())
