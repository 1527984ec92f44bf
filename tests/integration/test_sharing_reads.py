"""What an agent a memory is shared with may read (new-user trial F1, F2), through the official MCP client
on the stack's real Postgres, SQS emulator and worker: never the owner's history through ``known_at``
(a version from before it was shared with that agent), and never a forgotten memory (only its owner sees
one, to restore it) — at any time, in get, search, related memories and chains."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _stored(client: Client, poller: SqsPoller, agent: str, **args: Any) -> str:
    ack = await call(client, "memory_write", {"agent_id": agent, **args})
    await drain(poller)
    return str(ack["id"])


async def _hits(client: Client, agent: str, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    result = await call(client, "memory_search", {"query": query, "agent_id": agent, "top_k": 50, **args})
    return {h["memory"]["id"]: h for h in result["results"]}


async def _created_at(client: Client, memory_id: str) -> str:
    return str(
        (await call(client, "memory_get", {"id": memory_id, "agent_id": "planner"}))["memory"]["created_at"]
    )


async def test_a_reader_never_rewinds_a_shared_memory_to_before_it_was_shared_with_it(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        vault = await _stored(
            client, poller, "planner", content="The vault code is 4711-secret", key="vault.code"
        )
        private_then = await _created_at(client, vault)
        await call(
            client,
            "memory_update",
            {
                "id": vault,
                "action": "update",
                "content": "The vault code was changed; ask the planner in person",
                "shared_with": ["coder"],
                "reason": "remove the code before sharing",
                "agent_id": "planner",
            },
        )
        now = await call(client, "memory_get", {"id": vault, "agent_id": "coder"})
        assert now["memory"]["content"] == "The vault code was changed; ask the planner in person"

        then = {"known_at": private_then, "agent_id": "coder"}
        refused = await tool_error(client, "memory_get", {"id": vault, **then})
        assert (refused["kind"], refused["field"]) == ("not_found", "known_at")
        assert "was not shared with this agent" in refused["message"]
        assert "4711" not in str(refused)
        assert vault not in await _hits(client, "coder", "vault code", known_at=private_then)
        assert vault not in await _hits(
            client, "coder", "vault code", known_at=private_then, status=["active"]
        )
        chain = await tool_error(client, "memory_recall_chain", {"id": vault, **then})
        assert chain["kind"] == "not_found"
        # the owner still reads its own history
        owner = await call(
            client, "memory_get", {"id": vault, "known_at": private_then, "agent_id": "planner"}
        )
        assert owner["memory"]["content"] == "The vault code is 4711-secret"

        # a version from while it was shared with the reader is the reader's to see again
        standup = await _stored(
            client,
            poller,
            "planner",
            content="The team standup is at 9:00 in room Kepler",
            shared_with=["coder"],
        )
        shared_then = await _created_at(client, standup)
        await call(
            client,
            "memory_update",
            {
                "id": standup,
                "action": "update",
                "content": "The team standup is at 10:00",
                "agent_id": "planner",
            },
        )
        seen = await call(client, "memory_get", {"id": standup, "known_at": shared_then, "agent_id": "coder"})
        assert seen["memory"]["content"] == "The team standup is at 9:00 in room Kepler"
        assert seen["history"] == []  # a memory's history is its owner's
        found = await _hits(client, "coder", "team standup", known_at=shared_then)
        assert found[standup]["memory"]["content"] == "The team standup is at 9:00 in room Kepler"


async def test_a_related_memory_is_shown_at_known_at_only_as_it_was_shared_then(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        hit = await _stored(
            client, poller, "planner", content="The supplier contract renews in March", shared_with=["coder"]
        )
        note = await _stored(
            client, poller, "planner", content="Private: we pay the supplier 90 euros an hour"
        )
        linked = await call(
            client, "memory_link", {"from_id": hit, "to_id": note, "kind": "related", "agent_id": "planner"}
        )
        then = str(linked["created_at"])
        await call(
            client,
            "memory_update",
            {
                "id": note,
                "action": "update",
                "content": "The supplier's rate is negotiated yearly",
                "shared_with": ["coder"],
                "agent_id": "planner",
            },
        )
        today = await _hits(client, "coder", "contract renews in March", top_k=1, include_related=True)
        assert note in str(today[hit]["related"])  # shared today: related today
        at_then = await _hits(
            client, "coder", "contract renews in March", top_k=1, include_related=True, known_at=then
        )
        assert hit in at_then
        assert note not in str(at_then[hit]["related"])
        assert "90 euros" not in str(at_then)
        owner = await _hits(
            client, "planner", "contract renews in March", top_k=1, include_related=True, known_at=then
        )
        assert "90 euros" in str(owner[hit]["related"])


async def test_a_forgotten_memory_is_its_owners_alone(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        address = await _stored(
            client,
            poller,
            "planner",
            content="Maya's home address is 12 Rua das Flores, Porto",
            shared_with=["coder"],
        )
        topic = await _stored(
            client, poller, "planner", content="Maya moved to Porto last spring", shared_with=["coder"]
        )
        await call(
            client,
            "memory_link",
            {"from_id": topic, "to_id": address, "kind": "related", "agent_id": "planner"},
        )
        before = await _created_at(client, address)
        forgotten = await call(
            client,
            "memory_forget",
            {"id": address, "reason": "Maya asked us to forget", "agent_id": "planner"},
        )
        assert forgotten["status"] == "forgotten"

        gone = await tool_error(client, "memory_get", {"id": address, "agent_id": "coder"})
        assert gone["kind"] == "not_found"
        assert address not in await _hits(client, "coder", "Maya address", status=["forgotten"])
        assert address not in await _hits(
            client, "coder", "Maya address", status=["forgotten"], known_at=before
        )
        assert address not in await _hits(client, "coder", "Maya address", known_at=before)
        assert (
            await tool_error(client, "memory_get", {"id": address, "known_at": before, "agent_id": "coder"})
        )["kind"] == "not_found"
        assert (
            await tool_error(
                client, "memory_update", {"id": address, "action": "restore", "agent_id": "coder"}
            )
        )["kind"] == "not_found"
        topic_seen = await call(client, "memory_get", {"id": topic, "agent_id": "coder"})
        assert address not in str(topic_seen["relations"])
        # the owner still finds it, to restore it
        assert address in await _hits(client, "planner", "Maya address", status=["forgotten"])
        owner = await call(client, "memory_get", {"id": address, "agent_id": "planner"})
        assert owner["memory"]["status"] == "forgotten"

        # restored since: a read of the time it was forgotten still does not show it to the reader
        at_forget = str(owner["history"][-1]["at"])
        await call(client, "memory_update", {"id": address, "action": "restore", "agent_id": "planner"})
        assert address in await _hits(client, "coder", "Maya address")
        then = {"status": ["forgotten"], "known_at": at_forget}
        assert address not in await _hits(client, "coder", "Maya address", **then)
        assert address in await _hits(client, "planner", "Maya address", **then)


async def test_a_memory_shared_by_a_repeat_write_is_not_rewound_to_before_it_was_shared(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        pin = await _stored(
            client, poller, "planner", content="The alarm code word is bluebird, keep it private"
        )
        private_then = await _created_at(client, pin)
        edited = "The alarm code word changes weekly: ask the planner in person"
        update = {"id": pin, "action": "update", "content": edited, "agent_id": "planner"}
        await call(client, "memory_update", update)
        await _stored(client, poller, "planner", content=edited, shared_with=["coder"])  # merges into it
        owner = await call(client, "memory_get", {"id": pin, "agent_id": "planner"})
        assert owner["memory"]["shared_with"] == ["coder"]
        assert owner["history"][-1]["changes"]["added"] == {"shared_with": ["coder"]}

        assert (await call(client, "memory_get", {"id": pin, "agent_id": "coder"}))["memory"][
            "content"
        ] == edited
        refused = await tool_error(
            client, "memory_get", {"id": pin, "known_at": private_then, "agent_id": "coder"}
        )
        assert refused["field"] == "known_at"
        assert "bluebird" not in str(refused)
        assert pin not in await _hits(client, "coder", "alarm code word", known_at=private_then)
        shared_now = await _hits(client, "coder", "alarm code word")
        assert shared_now[pin]["memory"]["content"] == edited


async def test_a_reader_never_sees_the_id_of_a_private_causal_parent(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Trial L4: a memory shared with the coder whose cause is the planner's private memory showed that
    memory's id as its ``causal_parent`` — in memory_get, search hits, related memories and chains. A
    reader sees nothing of a memory it may not read, its id included; the owner, and a reader of a parent
    shared with it, still see the link."""
    async with mcp_client(server.url, token) as client:
        cause = await _stored(
            client,
            poller,
            "planner",
            content="Payroll export failed: the bank rejected file 7781",
            layer="episodic",
        )
        effect = await _stored(
            client,
            poller,
            "planner",
            content="Payroll was paid a day late this month",
            layer="episodic",
            causal_parent=cause,
            shared_with=["coder"],
        )
        later = await _stored(
            client,
            poller,
            "planner",
            content="Payroll now exports two days before payday",
            layer="episodic",
            causal_parent=effect,
            shared_with=["coder"],
        )
        at = await _created_at(client, later)
        seen = await call(client, "memory_get", {"id": effect, "agent_id": "coder"})
        assert seen["memory"]["causal_parent"] is None
        for args in ({}, {"known_at": at}, {"include_related": True}):
            hits = await _hits(client, "coder", "payroll paid late", **args)
            assert hits[effect]["memory"]["causal_parent"] is None, args
            assert cause not in str(hits), args
        chain = await call(client, "memory_recall_chain", {"id": later, "agent_id": "coder"})
        assert cause not in str(chain)
        assert [s["memory"]["causal_parent"] for s in chain["chain"]] == [None, effect]
        # the owner reads its own link; a parent shared with the reader is the reader's to see
        owner = await call(client, "memory_get", {"id": effect, "agent_id": "planner"})
        assert owner["memory"]["causal_parent"] == cause
        shared = await call(client, "memory_get", {"id": later, "agent_id": "coder"})
        assert shared["memory"]["causal_parent"] == effect


async def test_a_merge_is_rewound_at_known_at_its_source_and_importance_too(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Trial F9: a repeat stated by the user merged into the agent's inference made it user_stated and
    raised its importance, and a known_at read from before the merge already showed both: the merge's
    history row did not record the importance, and a read did not rewind the source."""
    async with mcp_client(server.url, token) as client:
        fact = await _stored(
            client,
            poller,
            "planner",
            content="The customer prefers invoices in euros",
            source="agent_inferred",
            importance=0.3,
        )
        before = await _created_at(client, fact)
        merged = await call(
            client,
            "memory_write",
            {
                "agent_id": "planner",
                "content": "The customer prefers invoices in euros",
                "source": "user_stated",
                "importance": 0.8,
            },
        )
        await drain(poller)
        status = await call(client, "memory_status", {"ids": [merged["id"]], "agent_id": "planner"})
        assert status["writes"][0]["status"] == "merged", status
        now = await call(client, "memory_get", {"id": fact, "agent_id": "planner"})
        assert (now["memory"]["source"], now["memory"]["importance"]) == ("user_stated", 0.8)
        assert now["history"][-1]["changes"]["importance"] == {"from": pytest.approx(0.3), "to": 0.8}
        then = await call(client, "memory_get", {"id": fact, "agent_id": "planner", "known_at": before})
        assert then["memory"]["source"] == "agent_inferred"
        assert then["memory"]["importance"] == pytest.approx(0.3)
        found = await _hits(client, "planner", "invoice currency", known_at=before)
        assert found[fact]["memory"]["source"] == "agent_inferred"
        assert "inference" in found[fact]["flags"]
        assert not await _hits(client, "planner", "invoice currency", known_at=before, min_importance=0.5)
