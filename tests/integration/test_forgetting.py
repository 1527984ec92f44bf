"""A forget takes along what maintenance derived from the forgotten memory (domain.forgetting), against
real Postgres+pgvector, Redis and the MCP app: the new-user trial's cases — a hard-forgotten consolidation
summary left its archived originals readable, and hard-deleted evidence left the inferred preference that
quotes it active and served by memory_summarize."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from hindsight.bootstrap import Container
from hindsight.client import call
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _insert, _rows, _step
from tests.support import mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
DAY = timedelta(days=1)
DEPLOY = "Deployed the billing service to production"
AISLE = "I prefer aisle seats on long flights"


async def _repeats(c: Container, tenant: str, text: str, n: int = 3) -> list[UUID]:
    now = datetime.now(UTC)
    return [
        await _insert(c, tenant, text, created_at=now - (i + 1) * DAY, occurred_at=now - (i + 1) * DAY)
        for i in range(n)
    ]


async def _consolidated(
    stack: LocalStack, tenant: str, text: str = DEPLOY, n: int = 3
) -> tuple[str, list[str]]:
    """``n`` repeats of ``text`` (the billing deploy), one maintenance run: the summary's id and its
    members' (the most recent first)."""
    async with _container(stack) as c:
        members = await _repeats(c, tenant, text, n)
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
    assert _step(report, "consolidate")["summaries"] == 1
    ((summary,),) = _rows(
        stack, "SELECT id FROM memories WHERE tenant_id = %s AND metadata ? 'consolidation'", tenant
    )
    return str(summary), [str(m) for m in members]


async def test_a_hard_forgotten_summary_deletes_the_originals_it_stood_for(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    summary, members = await _consolidated(stack, tenant)
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client,
            "memory_forget",
            {"id": summary, "hard": True, "reason": "user asked to forget billing deploys"},
        )
        assert answer["status"] == "deleted"
        assert sorted(a["id"] for a in answer["also_forgotten"]) == sorted(members)
        assert all(summary in a["reason"] for a in answer["also_forgotten"])
        archived = await call(
            client, "memory_search", {"query": "billing service deploy", "status": ["archived", "active"]}
        )
        assert not [h for h in archived["results"] if "billing" in h["memory"]["content"]]
        for member in members:
            error = await tool_error(client, "memory_get", {"id": member})
            assert "not found" in error["message"]
    assert _rows(stack, "SELECT count(*) FROM memories WHERE tenant_id = %s", tenant) == [(0,)]
    assert _rows(stack, "SELECT count(*) FROM memory_history WHERE tenant_id = %s", tenant) == [(0,)]


async def test_a_soft_forgotten_summary_forgets_its_originals_too(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    summary, members = await _consolidated(stack, tenant)
    async with mcp_client(server.url, token) as client:
        answer = await call(client, "memory_forget", {"id": summary, "reason": "forget billing deploys"})
        assert answer["status"] == "forgotten"
        assert sorted(a["id"] for a in answer["also_forgotten"]) == sorted(members)
        archived = await call(
            client, "memory_search", {"query": "billing service deploy", "status": ["archived"]}
        )
        assert archived["results"] == []
        view = await call(client, "memory_get", {"id": members[0]})
        assert view["memory"]["status"] == "forgotten"
        assert view["history"][-1]["action"] == "forgotten"
        assert summary in view["history"][-1]["reason"]
        again = await call(client, "memory_forget", {"id": summary})  # nothing more to take along
        assert again.get("also_forgotten") is None


async def test_deleting_one_original_deletes_its_summary_and_brings_the_others_back(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    summary, members = await _consolidated(stack, tenant)
    async with mcp_client(server.url, token) as client:
        answer = await call(client, "memory_forget", {"id": members[0], "hard": True})
        assert [a["id"] for a in answer["also_forgotten"]] == [summary]
        assert sorted(answer["restored"]) == sorted(members[1:])
        hits = await call(client, "memory_search", {"query": "billing service deploy"})
        assert sorted(h["memory"]["id"] for h in hits["results"]) == sorted(members[1:])
        view = await call(client, "memory_get", {"id": members[1]})
        assert view["memory"]["status"] == "active"
        assert view["history"][-1]["action"] == "restored"


async def test_deleting_the_evidence_of_an_inferred_preference_deletes_it(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """The trial's case (b): three episodes state a preference, maintenance infers it; hard-deleting the
    episodes left "Preference stated in 3 episodes: I prefer aisle seats on long flights" active."""
    now = datetime.now(UTC)
    async with _container(stack) as c:
        # a week or more apart (never consolidated), one trip each (three distinct episodes)
        episodes = [
            str(
                await _insert(
                    c, tenant, AISLE, created_at=now - d * DAY, occurred_at=now - d * DAY, task_id=t
                )
            )
            for d, t in ((2, "trip-1"), (10, "trip-2"), (20, "trip-3"))
        ]
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "extract_patterns")["created"] == 1
    ((pattern, content),) = _rows(
        stack, "SELECT id, content FROM memories WHERE tenant_id = %s AND layer = 'semantic'", tenant
    )
    assert AISLE in content
    async with mcp_client(server.url, token) as client:
        first = await call(client, "memory_forget", {"id": episodes[0], "hard": True})
        assert [a["id"] for a in first["also_forgotten"]] == [str(pattern)]
        assert episodes[0] in first["also_forgotten"][0]["reason"]
        for episode in episodes[1:]:
            answer = await call(client, "memory_forget", {"id": episode, "hard": True})
            assert answer.get("also_forgotten") is None
        hint = await call(client, "memory_summarize", {"query": "aisle seats on long flights"})
        assert "aisle" not in hint["hint"]
    assert _rows(stack, "SELECT count(*) FROM memories WHERE tenant_id = %s", tenant) == [(0,)]
    async with _container(stack) as c:  # nothing left to infer it from: it does not come back
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "extract_patterns").get("created", 0) == 0
