"""``MemoryReader.latest`` (memory_summarize without a query, the inactive-key note) takes every filter a
search takes, the point-in-time ones too: their clauses name the ``memories`` table itself, which the
statement had aliased ``m`` (an SQL error for any ``valid_at``/``known_at`` request)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from hindsight.bootstrap import build_container
from hindsight.domain.memory import Scope, SearchRequest
from hindsight.local.stack import LocalStack
from tests.support import keyed_jobs

pytestmark = pytest.mark.integration

FACTS = ["The user's bike is blue", "The user's car is grey", "The user's boat is white"]


def test_latest_takes_point_in_time_filters(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()

    async def scenario() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(keyed_jobs(tenant, FACTS, "semantic"))
            scope = Scope(tenant_id=tenant, agent_id="default")
            now = datetime.now(UTC)
            today = await container.reader.latest(scope, SearchRequest(text="", top_k=10, now=now), 10)
            assert sorted(m.content for m in today) == sorted(FACTS)
            for point in ({"known_at": now}, {"valid_at": now}, {"known_at": now, "valid_at": now}):
                request = SearchRequest(text="", top_k=10, now=now, **point)
                assert await container.reader.latest(scope, request, 10) == today, point
            # a point before every write sees none of them; the limit holds
            before = SearchRequest(text="", top_k=10, now=now, known_at=datetime(2000, 1, 1, tzinfo=UTC))
            assert await container.reader.latest(scope, before, 10) == []
            assert (
                await container.reader.latest(scope, SearchRequest(text="", top_k=10, now=now), 2)
                == today[:2]
            )
        finally:
            await container.aclose()

    asyncio.run(scenario())
