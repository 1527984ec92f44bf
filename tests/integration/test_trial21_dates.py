"""Findings of the new-user trial of 2026-12-07 (trial21, main 2094736), through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker).

- H1: "A week ago Sunday I ran a half marathon", said on Monday 2026-12-07, was stored at the week of
  2026-11-30 ("Sunday" dropped), so a search since/until Sunday 2026-11-29 missed it: it is that Sunday.
- M5: ``time_range`` "last weekend" was refused though a write's "last weekend" is read: it is the span a
  write's is stored as.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import mcp_client, written_together

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

TURN = {
    "layer": "episodic",
    "conversation_id": "running-chat",
    "session_at": "2026-12-07T10:00:00Z",  # a Monday: the words were said then
}


async def test_a_week_ago_sunday_is_found_on_that_sunday(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given turns said on Monday 2026-12-07 naming a week ago Sunday and a week ago Friday
    async with mcp_client(server.url, token) as client:
        (sunday, friday), got = await written_together(
            client,
            poller,
            [
                {**TURN, "content": "A week ago Sunday I ran a half marathon", "turn_index": 0},
                {**TURN, "content": "A week ago Friday I bought new running shoes", "turn_index": 1},
            ],
        )

        async def found(query: str, day: str) -> set[str]:
            hits = await call(client, "memory_search", {"query": query, "since": day, "until": day})
            return {h["memory"]["id"] for h in hits["results"]}

        on_sunday = await found("half marathon", "2026-11-29")
        on_monday = await found("half marathon", "2026-11-30")
        on_friday = await found("running shoes", "2026-11-27")
    # Then each is placed on its day, nothing is said unread, and a search of that day finds it
    assert (got[0]["occurred_at"][:10], got[0]["occurred_precision"]) == ("2026-11-29", "day"), got[0]
    assert got[0]["metadata"]["occurred_at_inferred"]["expression"] == "a week ago sunday", got[0]
    assert (got[1]["occurred_at"][:10], got[1]["occurred_precision"]) == ("2026-11-27", "day"), got[1]
    assert sunday.get("time_not_read") is None
    assert friday.get("time_not_read") is None
    assert sunday["id"] in on_sunday
    assert sunday["id"] not in on_monday
    assert friday["id"] in on_friday


async def test_a_search_of_last_weekend_finds_what_a_write_read_as_last_weekend(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given an episode whose words say last weekend
    async with mcp_client(server.url, token) as client:
        (ack,), (memory,) = await written_together(
            client, poller, [{"content": "Last weekend I went hiking in the Alps", "layer": "episodic"}]
        )
        hits = await call(client, "memory_search", {"query": "hiking Alps", "time_range": "last weekend"})
    # Then the search is not refused, and finds it in the span the write stored
    assert memory["occurred_precision"] == "week", memory
    assert datetime.fromisoformat(memory["occurred_at"]) < datetime.fromisoformat(ack["submitted_at"])
    assert ack["id"] in {h["memory"]["id"] for h in hits["results"]}
