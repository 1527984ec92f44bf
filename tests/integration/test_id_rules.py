"""Caller-chosen ids through the official MCP client (real Postgres): a value that breaks an id's character
rule is refused with the rule in words, never a regex (trial L1, L2); shared_with drops the writing agent
itself and keeps '*' alone (trial L2)."""

from __future__ import annotations

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

PRINTABLE = "printable ASCII without spaces (characters ! to ~)"
AGENT_CHARACTERS = "letters, digits and _.:@- only"


async def test_an_id_with_a_bad_character_is_refused_with_the_rule_in_words(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        task = await tool_error(
            client, "task_reflect", {"task_id": "x 1", "goal": "Pay the invoice", "outcome": "success"}
        )
        conversation = await tool_error(
            client, "memory_write", {"content": "Hello there", "conversation_id": "chat 42", "turn_index": 0}
        )
        session = await tool_error(client, "working_memory_get", {"session_id": "s trial"})
        shared = await tool_error(client, "memory_write", {"content": "x", "shared_with": ["no such agent!"]})
        too_long = await tool_error(client, "memory_write", {"content": "x", "shared_with": ["a" * 129]})

    for error, field, words in [
        (task, "task_id", PRINTABLE),
        (conversation, "conversation_id", PRINTABLE),
        (session, "session_id", AGENT_CHARACTERS),
    ]:
        (detail,) = error["errors"]
        assert detail["field"] == field
        assert detail["message"] == f"must be {words}"
        assert detail["limit"] == {"format": words}
        assert "\\x21" not in error["message"]
        assert "[A-Za-z" not in error["message"]
    (detail,) = shared["errors"]
    assert detail["field"] == "shared_with"
    assert detail["limit"] == {"format": AGENT_CHARACTERS}  # a character problem, not a length one
    assert "letters, digits and _.:@-" in detail["message"]
    (detail,) = too_long["errors"]
    assert detail["limit"] == {"max_length": 128}


async def test_sharing_with_yourself_is_dropped_and_star_stands_alone(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mine = await call(
            client,
            "memory_write",
            {"agent_id": "alice", "content": "Alice's note on the rota", "shared_with": ["alice", "bob"]},
        )
        everyone = await call(
            client,
            "memory_write",
            {"agent_id": "alice", "content": "The office closes at 18:00", "shared_with": ["bob", "*"]},
        )
        await drain(poller)
        got = await call(client, "memory_get", {"agent_id": "alice", "id": mine["id"]})
        star = await call(client, "memory_get", {"agent_id": "alice", "id": everyone["id"]})
        await call(
            client,
            "memory_update",
            {"agent_id": "alice", "id": mine["id"], "action": "update", "shared_with": ["alice"]},
        )
        private = await call(client, "memory_get", {"agent_id": "alice", "id": mine["id"]})
        bob = await tool_error(client, "memory_get", {"agent_id": "bob", "id": mine["id"]})

    assert got["memory"]["shared_with"] == ["bob"]
    assert star["memory"]["shared_with"] == ["*"]
    assert private["memory"]["shared_with"] == []  # naming only herself: private
    assert bob["kind"] == "not_found"
