"""A calendar word beside a relative time (trial15, a regression of b409a9c), through the official MCP
client over HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):
"Yesterday I paid the October invoice" was placed at the write time with a note, so a search filtered to
yesterday missed it. Now it is placed yesterday and found; "I flew to Lisbon on May 3 and came back
yesterday" still reads neither time and names both."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_month_name_that_is_no_time_of_the_event_leaves_yesterday_read(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given a month used as a modifier beside "yesterday", and a trip with two times
        writes = [
            {"content": "Yesterday I paid the October invoice for the plumber", "layer": "episodic"},
            {"content": "I flew to Lisbon on May 3 and came back yesterday", "layer": "episodic"},
        ]
        acks = [await call(client, "memory_write", args) for args in writes]
        await drain(poller)
        got = [(await call(client, "memory_get", {"id": a["id"]}))["memory"] for a in acks]
        yesterday = date.fromisoformat(acks[0]["submitted_at"][:10]) - timedelta(days=1)
        window = {"query": "plumber invoice", "since": str(yesterday), "until": str(yesterday)}
        found = [h["memory"]["id"] for h in (await call(client, "memory_search", window))["results"]]
    # Then the first is placed yesterday with no note, and a search filtered to yesterday finds it
    assert acks[0].get("time_not_read") is None, acks
    assert (got[0]["occurred_at"][:10], got[0]["occurred_precision"]) == (str(yesterday), "day")
    assert acks[0]["id"] in found, found
    # and the trip's two times are still named, neither read
    assert "'May 3', 'yesterday'" in str(acks[1].get("time_not_read")), acks
    assert got[1]["occurred_at"] is None
