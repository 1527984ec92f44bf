"""Dates in words (h-time11), through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker): "I flew to Lisbon on May 3 and came back
yesterday" was placed yesterday and May 3 dropped with no note; "I moved to Denver in October, not
Boulder" was noted, not dated (a "not" of another clause); "In 2019 I ran a marathon" with occurred_at
2026-11-02 said nothing of 2019. Now the first names both times and reads none, the second is dated, the
third keeps the given time and names both."""

from __future__ import annotations

from datetime import date

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_two_times_are_named_a_not_of_another_clause_is_left_and_a_given_time_is_checked(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given two times, a date beside another clause's "not", and a given time its words contradict
        writes = [
            {"content": "I flew to Lisbon on May 3 and came back yesterday", "layer": "episodic"},
            {"content": "I moved to Denver in October, not Boulder", "layer": "episodic"},
            {"content": "In 2019 I ran a marathon", "layer": "episodic", "occurred_at": "2026-11-02"},
        ]
        acks = [await call(client, "memory_write", args) for args in writes]
        await drain(poller)
        got = [(await call(client, "memory_get", {"id": a["id"]}))["memory"] for a in acks]
    said = date.fromisoformat(acks[0]["submitted_at"][:10])
    october = date(said.year if said.month >= 10 else said.year - 1, 10, 1)
    notes = [str(a.get("time_not_read")) for a in acks]
    # Then the first names both times, the second says nothing, the third names the words' year and
    # the time given
    assert "'May 3', 'yesterday'" in notes[0], acks
    assert acks[1].get("time_not_read") is None, acks
    assert "'In 2019'" in notes[2], acks
    assert "2026-11-02" in notes[2], acks
    # and only the second is dated from its words; the third is where its caller put it
    placed = [(m["occurred_at"][:10] if m["occurred_at"] else None, m["occurred_precision"]) for m in got]
    assert placed == [(None, None), (str(october), "month"), ("2026-11-02", "day")]
