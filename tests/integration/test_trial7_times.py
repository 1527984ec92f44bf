"""Findings of the new-user trial of 2026-12-07 (trial7, main 3691871), through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker), in both protocol eras.

- H2: "a month from today", "two weeks from yesterday" were dated today/yesterday (the "today" inside read)
  and summarized as "Happened": the words count a while from that day, so nothing is read, the write's
  ``time_not_read`` names the phrase and a summary labels it planned.
- H3: an ISO date in a clause that dates something else ("the bill that was due on 2026-11-30") placed the
  episode on it, so a search since today missed today's payment; "Paid the bill on 2026-11-30" still is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

COUNTED = {
    "Moving to Berlin a month from today": "a month from today",
    "The kitchen renovation starts two weeks from yesterday": "two weeks from yesterday",
}


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_while_counted_from_today_is_not_dated_today_nor_summarized_as_happened(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    # Given episodes that count a while from today / yesterday, and a fact that does
    writes: list[dict[str, Any]] = [{"content": c, "layer": "episodic"} for c in COUNTED]
    writes.append({"content": "My lease ends a month from today"})
    async with mcp_client(server.url, token, mode) as client:
        acks = [await call(client, "memory_write", args) for args in writes]
        await drain(poller)
        got = [(await call(client, "memory_get", {"id": a["id"]}))["memory"] for a in acks]
        hint = await call(client, "memory_summarize", {"query": "Berlin kitchen renovation"})
    # Then no time is read from their words, and the write's answer names the phrase
    for ack, memory, (_, phrase) in zip(
        acks, got, [*COUNTED.items(), ("", "a month from today")], strict=True
    ):
        assert memory["occurred_at"] is None, memory
        assert "occurred_at_inferred" not in memory["metadata"], memory
        assert f"({phrase!r})" in ack["time_not_read"], ack
    # the fact holds from its write, not from the start of a day the words name
    assert datetime.fromisoformat(got[2]["valid_from"]) == datetime.fromisoformat(acks[2]["submitted_at"]), (
        got[2]
    )
    # and the summary calls them planned, never "Happened"
    lines = {line["text"]: line["kind"] for line in hint["lines"]}
    assert {c: lines.get(c) for c in COUNTED} == {c: "planned" for c in COUNTED}, hint["hint"]
    assert "Happened" not in hint["hint"], hint["hint"]


async def test_a_date_of_another_clause_does_not_place_the_episode(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given a payment today of a bill due on a past day, and a payment on that day
    async with mcp_client(server.url, token) as client:
        due = await call(
            client,
            "memory_write",
            {"content": "Paid the electricity bill that was due on 2026-11-30", "layer": "episodic"},
        )
        paid = await call(
            client, "memory_write", {"content": "Paid the water bill on 2026-11-30", "layer": "episodic"}
        )
        await drain(poller)
        got = [(await call(client, "memory_get", {"id": a["id"]}))["memory"] for a in (due, paid)]
        since = await call(
            client, "memory_search", {"query": "electricity bill", "since": due["submitted_at"][:10]}
        )
    # Then the due day is not the payment's: it is placed at the write and found since today, the day noted
    assert got[0]["occurred_at"] is None, got[0]
    assert "('2026-11-30')" in due["time_not_read"], due
    assert due["id"] in {h["memory"]["id"] for h in since["results"]}
    # and a payment on a day is still placed on it
    assert got[1]["occurred_at"].startswith("2026-11-30T00:00:00"), got[1]
    assert paid.get("time_not_read") is None
