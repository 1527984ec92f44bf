"""memory_summarize through the official MCP client: keys are per agent, so another agent's shared fact on
the same key name is shown beside the reader's own, labelled with its owner (trial F4), and an inferred
lesson is labelled by what it is, not by its derived key (trial L7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _insert, _step
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_another_agents_shared_fact_on_the_same_key_is_shown_beside_the_readers_own(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        team = await call(
            client,
            "memory_write",
            {
                "agent_id": "alice",
                "content": "The team standup is at 9:00 in room Kepler",
                "key": "team.standup",
                "shared_with": ["bob"],
            },
        )
        await drain(poller)
        own = await call(
            client,
            "memory_write",
            {
                "agent_id": "bob",
                "content": "My one-to-one with Dana is at 10:00 on Mondays",
                "key": "team.standup",
            },
        )
        await drain(poller)
        as_bob = await call(client, "memory_summarize", {"agent_id": "bob", "key": "team.standup"})
        as_alice = await call(client, "memory_summarize", {"agent_id": "alice", "key": "team.standup"})

    facts = {line["ids"][0]: line for line in as_bob["lines"]}
    assert set(facts) == {team["id"], own["id"]}  # two agents' values, neither hides the other
    assert facts[team["id"]]["owners"] == ["alice"]
    assert facts[own["id"]]["owners"] == []
    lines = as_bob["hint"].splitlines()
    assert "- Fact team.standup: My one-to-one with Dana is at 10:00 on Mondays [1]" in lines
    assert "- Fact team.standup (shared by alice): The team standup is at 9:00 in room Kepler [2]" in lines
    # alice does not see bob's private fact; her own carries no owner label
    assert as_alice["hint"] == "- Fact team.standup: The team standup is at 9:00 in room Kepler [1]"


async def test_an_inferred_lesson_is_labelled_by_what_it_is_not_by_its_derived_key(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    now = datetime.now(UTC)
    lesson = "Back off and retry when the payments API returns HTTP 429"
    async with _container(stack) as c:
        for i in range(3):
            await _insert(
                c,
                tenant,
                f"Invoice sync number {i} failed: too many requests to the payments API",
                created_at=now - timedelta(days=i + 1),
                occurred_at=now - timedelta(days=i + 1),
                task_type="modify",
                outcome="failure",
                lessons=lesson,
                task_id=f"task-{i}",
            )
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "extract_patterns")["created"] == 1
    async with mcp_client(server.url, token) as client:
        hint = await call(client, "memory_summarize", {"query": "payments API HTTP 429 lesson"})
    (fact,) = [line for line in hint["lines"] if line["kind"] == "fact"]
    assert fact["key"].startswith("lesson:modify:")  # the key itself is still given, for memory_search
    rendered = [text for text in hint["hint"].splitlines() if text.startswith("- Fact")]
    assert rendered == [
        f"- Fact (lesson for modify tasks, inferred): Lesson from 3 modify tasks (failure ×3): {lesson} "
        f"[{hint['ids'].index(fact['ids'][0]) + 1}]"
    ]
