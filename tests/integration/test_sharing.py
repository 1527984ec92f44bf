"""Cross-agent sharing: a memory is private to the agent that wrote it unless it lists other agents of
its tenant (or '*') in shared_with; readers see it in search, get and chains, only the owner changes it,
and sharing never crosses tenants."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain, mcp_client, mint

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _write(client: Client, agent: str, **args: Any) -> str:
    return str((await call(client, "memory_write", {"agent_id": agent, **args}))["id"])


async def _found(client: Client, agent: str, query: str) -> set[str]:
    hits = await call(client, "memory_search", {"query": query, "agent_id": agent, "top_k": 50})
    return {h["memory"]["id"] for h in hits["results"]}


async def _error(client: Client, tool: str, args: dict[str, Any]) -> int:
    with pytest.raises(ToolCallError) as caught:
        await call(client, tool, args)
    return caught.value.code


async def test_memories_are_private_unless_shared(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        private = await _write(client, "planner", content="Planner's private scratch idea about pricing")
        to_coder = await _write(
            client, "planner", content="The pricing API moved to v2 endpoints", shared_with=["coder"]
        )
        to_all = await _write(
            client, "planner", content="The pricing freeze starts Friday", shared_with=["*"]
        )
        await drain(poller)

        assert {private, to_coder, to_all} <= await _found(client, "planner", "pricing")
        coder = await _found(client, "coder", "pricing")
        assert to_coder in coder
        assert to_all in coder
        assert private not in coder
        tester = await _found(client, "tester", "pricing")
        assert to_all in tester
        assert not {private, to_coder} & tester

        shared = await call(client, "memory_get", {"id": to_coder, "agent_id": "coder"})
        assert shared["memory"]["agent_id"] == "planner"
        assert shared["memory"]["shared_with"] == ["coder"]
        assert shared["history"] == []  # a memory's history is its owner's
        assert await _error(client, "memory_get", {"id": private, "agent_id": "coder"}) == -32002
        assert await _error(client, "memory_get", {"id": to_coder, "agent_id": "tester"}) == -32002


async def test_only_the_owner_changes_a_shared_memory(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        shared = await _write(
            client, "planner", content="Release train leaves at 16:00", shared_with=["coder"]
        )
        own = await _write(client, "coder", content="Coder's own note on the release")
        await drain(poller)
        as_coder = {"agent_id": "coder"}
        attempts = [
            ("memory_update", {"id": shared, "action": "update", "content": "changed", **as_coder}),
            ("memory_update", {"id": shared, "action": "update", "shared_with": ["*"], **as_coder}),
            ("memory_update", {"id": shared, "action": "supersede", "content": "changed", **as_coder}),
            ("memory_update", {"id": shared, "action": "archive", **as_coder}),
            ("memory_forget", {"id": shared, **as_coder}),
            ("memory_forget", {"id": shared, "hard": True, **as_coder}),
            ("memory_feedback", {"id": shared, "useful": False, **as_coder}),
            ("memory_link", {"from_id": own, "to_id": shared, "kind": "related", **as_coder}),
        ]
        for tool, args in attempts:
            assert await _error(client, tool, args) == -32003, (tool, args)
        detail = await call(client, "memory_get", {"id": shared, "agent_id": "planner"})
        assert detail["memory"]["content"] == "Release train leaves at 16:00"
        assert detail["memory"]["status"] == "active"
        assert detail["memory"]["importance"] == 0.5
        assert detail["relations"] == []
        assert [h["action"] for h in detail["history"]] == ["created"]

        # The owner stops sharing it: the reader no longer sees it.
        await call(
            client,
            "memory_update",
            {"id": shared, "action": "update", "shared_with": [], "agent_id": "planner"},
        )
        assert shared not in await _found(client, "coder", "release train")
        assert await _error(client, "memory_get", {"id": shared, "agent_id": "coder"}) == -32002


async def test_a_chain_never_passes_through_another_agents_private_memory(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        root = await _write(client, "planner", content="Private: budget cut decided", layer="episodic")
        await drain(poller)
        mid = await _write(
            client,
            "planner",
            content="Shared: staging cluster shut down",
            layer="episodic",
            causal_parent=root,
            shared_with=["coder"],
        )
        await drain(poller)
        leaf = await _write(
            client,
            "planner",
            content="Shared: tests now run locally",
            layer="episodic",
            causal_parent=mid,
            shared_with=["coder"],
        )
        await drain(poller)
        await call(
            client, "memory_link", {"from_id": mid, "to_id": root, "kind": "related", "agent_id": "planner"}
        )

        owner_chain = await call(client, "memory_recall_chain", {"id": leaf, "agent_id": "planner"})
        assert [s["memory"]["id"] for s in owner_chain["chain"]] == [root, mid, leaf]
        reader_chain = await call(client, "memory_recall_chain", {"id": leaf, "agent_id": "coder"})
        assert [s["memory"]["id"] for s in reader_chain["chain"]] == [mid, leaf]
        detail = await call(client, "memory_get", {"id": mid, "agent_id": "coder"})
        assert root not in str(detail["relations"])  # the link to the private memory stays hidden
        hits = await call(
            client,
            "memory_search",
            {"query": "staging cluster", "agent_id": "coder", "include_related": True},
        )
        assert "budget cut" not in str(hits)


async def test_the_owner_shares_the_replacement_of_a_shared_fact(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old = await _write(
            client, "planner", content="The on-call phone is 555-0100", key="oncall.phone", shared_with=["*"]
        )
        await drain(poller)
        update = await call(
            client,
            "memory_update",
            {
                "id": old,
                "action": "supersede",
                "content": "The on-call phone is 555-0199",
                "agent_id": "planner",
            },
        )
        await drain(poller)
        new = update["queued"]["id"]
        detail = await call(client, "memory_get", {"id": new, "agent_id": "coder"})
        assert detail["memory"]["shared_with"] == ["*"]


async def test_sharing_with_every_agent_never_crosses_tenants(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        shared = await _write(
            client, "planner", content="Company-wide: the VPN moves to WireGuard", shared_with=["*"]
        )
        await drain(poller)
    outsider = await mint(stack, "tenant-outsider-sharing")
    async with mcp_client(server.url, outsider) as client:
        for agent in ("planner", "coder", "default"):
            assert shared not in await _found(client, agent, "VPN WireGuard")
            assert await _error(client, "memory_get", {"id": shared, "agent_id": agent}) == -32002


async def test_bad_shared_with_is_refused(server: BackgroundServer, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": "x", "shared_with": ["not an agent id"]})
    assert caught.value.code == -32602
    assert "shared_with" in caught.value.error["message"]
