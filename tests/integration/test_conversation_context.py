"""Conversation context end to end: turns written with their place in a conversation come back from
``memory_search`` with the turns said around them (``context_window``), through the official MCP client,
both protocol eras."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

TURNS = [
    "Priya: I finally booked the trip we talked about.",
    "Sam: Oh nice, where are you going in the end?",
    "Priya: Lisbon, for the tile museum and the old trams.",
    "Sam: Lovely, I have wanted to see that city for years. When do you fly out?",
    "Priya: The second week of March.",
]


async def _call(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_search_returns_each_hit_with_its_neighbouring_turns(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    agent = f"conv-agent-{mode.replace('-', '')}"
    async with mcp_client(server.url, token, mode) as client:
        # Given a conversation written turn by turn with its position, and one turn of another conversation
        for index, text in enumerate(TURNS):
            await _call(
                client,
                "memory_write",
                {
                    "content": text,
                    "layer": "episodic",
                    "conversation_id": "trip-chat",
                    "session_index": 1,
                    "turn_index": index,
                    "session_at": "2026-02-10T18:00:00Z",
                    "agent_id": agent,
                },
            )
        await _call(
            client,
            "memory_write",
            {
                "content": "Priya: Lisbon again next year, maybe.",
                "layer": "episodic",
                "conversation_id": "other-chat",
                "turn_index": 3,
                "agent_id": agent,
            },
        )
        await drain(poller)
        # When the agent searches with a context window of one turn
        found = await _call(
            client,
            "memory_search",
            {"query": "tile museum and trams", "context_window": 1, "top_k": 1, "agent_id": agent},
        )
        plain = await _call(
            client, "memory_search", {"query": "tile museum and trams", "top_k": 1, "agent_id": agent}
        )
    # Then the hit carries its position and the turns just before and after it, in order
    hit = found["results"][0]
    assert hit["memory"]["content"] == TURNS[2]
    assert hit["memory"]["conversation_id"] == "trip-chat"
    assert (hit["memory"]["session_index"], hit["memory"]["turn_index"]) == (1, 2)
    # a turn without occurred_at happened when its session did
    assert hit["memory"]["occurred_at"].startswith("2026-02-10T18:00:00")
    assert [(t["content"], t["offset"]) for t in hit["context_turns"]] == [(TURNS[1], -1), (TURNS[3], 1)]
    # and without a window nothing around it is attached
    assert plain["results"][0]["memory"]["id"] == hit["memory"]["id"]
    assert plain["results"][0]["context_turns"] == []


async def _refusal(client: Any, tool: str, args: dict[str, Any]) -> str:
    """The error text of a refused call (a JSON-RPC error, or a tool result with isError)."""
    try:
        result = await client.call_tool(tool, args)
    except MCPError as exc:
        return str(exc)
    assert result.is_error, f"{tool} accepted {args}"
    return str(result.content)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"content": "x", "turn_index": 3}, "turn_index"),
        ({"content": "x", "session_index": 1}, "session_index"),
        ({"content": "x", "conversation_id": "c", "turn_index": -1}, "turn_index"),
        ({"content": "x", "conversation_id": "c", "turn_index": "3"}, "turn_index"),
        ({"content": "x", "conversation_id": "bad id with spaces"}, "conversation_id"),
    ],
)
async def test_a_position_without_a_conversation_or_out_of_range_is_refused(
    server: BackgroundServer, token: str, args: dict[str, Any], field: str
) -> None:
    async with mcp_client(server.url, token) as client:
        message = await _refusal(client, "memory_write", args)
    assert field in message


async def test_context_window_over_the_limit_is_refused(server: BackgroundServer, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        message = await _refusal(client, "memory_search", {"query": "trip", "context_window": 6})
    assert "context_window" in message
