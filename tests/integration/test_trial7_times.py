"""Findings of the new-user trial of 2026-12-07 (trial7, main 3691871), through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker), in both protocol eras.

- H2: "a month from today", "two weeks from yesterday" were dated today/yesterday (the "today" inside read)
  and summarized as "Happened": the words count a while from that day, so nothing is read, the write's
  ``time_not_read`` names the phrase and a summary labels it planned.
- H3: an ISO date in a clause that dates something else ("the bill that was due on 2026-11-30") placed the
  episode on it, so a search since today missed today's payment; "Paid the bill on 2026-11-30" still is.
- M4: a task outcome dated in the future (memory_write "failure" on 2030-01-01, task_reflect in 2031) was
  stored and summarized as "Failed before": refused, naming the field and the latest time accepted; a
  plan (no outcome) in the future and an outcome today are still accepted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client, tool_error, written_together

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
        acks, got = await written_together(client, poller, writes)
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
        (due, paid), got = await written_together(
            client,
            poller,
            [
                {"content": "Paid the electricity bill that was due on 2026-11-30", "layer": "episodic"},
                {"content": "Paid the water bill on 2026-11-30", "layer": "episodic"},
            ],
        )
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


AHEAD = datetime.now(UTC).year + 4
"""A year after any write of the test run."""


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_an_outcome_in_the_future_is_refused_and_a_plan_is_not(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    failure = {"layer": "episodic", "outcome": "failure", "task_type": "modify"}
    async with mcp_client(server.url, token, mode) as client:
        # Given a task outcome dated in the future, by each way in
        written = await tool_error(
            client, "memory_write", {"content": "Deploy failed", **failure, "occurred_at": f"{AHEAD}-01-01"}
        )
        reflected = await tool_error(
            client,
            "task_reflect",
            {
                "task_id": "t7-m4",
                "goal": "Cut the release",
                "outcome": "success",
                "occurred_at": f"{AHEAD}-01-01",
            },
        )
        batch = await call(
            client,
            "memory_write_batch",
            {"items": [{"content": "Deploy failed again", **failure, "occurred_at": f"{AHEAD}-02-01"}]},
        )
        # and a plan in the future, an outcome of today, and an outcome episode then moved ahead
        plan = await call(
            client,
            "memory_write",
            {"content": "Offsite in Porto", "layer": "episodic", "occurred_at": f"{AHEAD}-03-01"},
        )
        today = await call(
            client,
            "memory_write",
            {"content": "Rollback failed", **failure, "occurred_at": datetime.now(UTC).date().isoformat()},
        )
        await drain(poller)
        moved = await tool_error(
            client, "memory_update", {"id": today["id"], "action": "update", "occurred_at": f"{AHEAD}-04-01"}
        )
        hint = await call(client, "memory_summarize", {"query": "deploy rollback failed"})
    # Then each future outcome is refused, naming occurred_at and the latest time accepted
    for error in (written, reflected, moved, batch["results"][0]["error"]):
        assert error["kind"] == "invalid_arguments", error
        (named,) = [e for e in error["errors"] if e["field"].endswith("occurred_at")]
        assert datetime.fromisoformat(named["limit"]) < datetime(AHEAD, 1, 1, tzinfo=UTC), named
        assert "can only be known once the task has ended" in error["message"], error
    # while the plan and today's outcome are stored, and no future failure is summarized
    assert (plan["status"], today["status"]) == ("queued", "queued")
    assert "Deploy failed" not in hint["hint"], hint["hint"]
    assert "Rollback failed" in hint["hint"], hint["hint"]
