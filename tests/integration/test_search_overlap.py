"""A search runs its keyword statement while the query embedding is computed (issue 15): the same
candidates as with the embedding given first, and an error in the embedding or in a statement surfaces
as it is with nothing left running — no task, no pool connection checked out."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import psycopg
import pytest

from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.bootstrap import build_container
from hindsight.domain.memory import Scope
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


def test_a_failing_embedding_or_statement_leaves_no_task_and_no_connection_behind(
    stack: LocalStack, tenant: str
) -> None:
    settings = stack.require_settings()

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(keyed_jobs(tenant, FACTS, "semantic"))
            scope = Scope(tenant_id=tenant, agent_id="default")
            request = resolve(RecallQuery(text="Caroline pottery", top_k=10), datetime.now(UTC))
            reader = PostgresMemoryReader(container.pool)
            vector = await container.embedder.embed_query(request.text)

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
