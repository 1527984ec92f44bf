"""The vector statement keeps its plan (issue 15): every value its plan depends on is in its text, only
the embedding is a parameter, so from the sixth run on a connection Postgres runs the prepared
statement's generic plan — the plan those values get — instead of planning it again on every search.
The same with a point in time (``known_at``, ``valid_at``): the generic plan of the statement that took
them as parameters (a LIMIT the planner could not read) was an exact scan of the whole scope evaluating
the history subquery for every memory, 206 ms where the values' plan probes the HNSW index in ~4 ms at
100k memories."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

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
]


@pytest.mark.parametrize("point", ["now", "known_at", "valid_at", "both"])
def test_the_vector_statement_runs_its_generic_plan_once_prepared(
    stack: LocalStack, tenant: str, point: str
) -> None:
    settings = stack.require_settings()
    # a tenant id with a quote, a '%' that reads like a placeholder and braces: written into the text
    odd = f"{tenant} it's 100%(pool)s {{x}}"

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(keyed_jobs(odd, FACTS, "semantic"))
            scope = Scope(tenant_id=odd, agent_id="default")
            now = datetime.now(UTC)
            times = {
                "now": {},
                "known_at": {"known_at": now},
                "valid_at": {"valid_at": now},
                "both": {"known_at": now, "valid_at": now},
            }[point]
            request = resolve(RecallQuery(text="Caroline pottery", top_k=10, **times), now)
            reader = PostgresMemoryReader(container.pool)
            vector = await container.embedder.embed_query(request.text)

            async def given() -> Vector:
                return vector

            pool = container.pool
            # enough runs for one of the pool's connections to run the vector statement six times
            times = 5 * pool.max_size + 1
            runs = [await reader.search_candidates(scope, request, given, 100) for _ in range(times)]
            found = sorted(c.memory.content for c in runs[0] if c.vector_similarity is not None)
            assert found == sorted(FACTS)
            assert all([c.model_dump() for c in run] == [c.model_dump() for c in runs[0]] for run in runs)

            held = [await pool.getconn(timeout=30) for _ in range(pool.max_size)]
            try:
                plans = []
                for conn in held:
                    cur = await conn.execute(
                        """SELECT generic_plans, custom_plans, cardinality(parameter_types)
                           FROM pg_prepared_statements WHERE statement LIKE '%whole AS%<=>%'"""
                    )
                    plans += await cur.fetchall()
            finally:
                for conn in held:
                    await pool.putconn(conn)
            assert plans, "the vector statement was never prepared"
            # each connection planned it for its first five runs (psycopg prepares it at the sixth), then
            # ran the one generic plan, which reads every value but the embedding from the text
            assert sum(generic for generic, _, _ in plans) >= 1
            assert all(custom <= 5 for _, custom, _ in plans)
            assert all(parameters == 1 for _, _, parameters in plans)
        finally:
            await container.aclose()

    asyncio.run(scenario())
