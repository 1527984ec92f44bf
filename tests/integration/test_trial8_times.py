"""Findings of the new-user trial of 2026-12-07 (trial8, main 4a97577), through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker).

- H1: a relative time in a clause that dates something else ("Sold the bike I bought two years ago",
  "Returned the library books that were due yesterday", "Got the results from yesterday's blood test",
  "Paid the invoice from last week") dated the episode, 9 of 9, with no note; an edit into such words
  ("…, the one that expired last month") re-dated it. Nothing is read from them, the write's
  ``time_not_read`` names the time, and the sentence's own time ("Yesterday I paid the bill") is still
  read.
- M1: vague times ("A couple of days ago", "earlier this week", "3 weeks back", "the other day",
  "recently") were placed at the write time with no note, though the docs promise one.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import mcp_client, written_together

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

ANOTHER_CLAUSE = {
    "Sold the bike I bought two years ago": "two years ago",
    "Returned the shoes I bought last month": "last month",
    "Finally watched the movie my sister recommended last year": "last year",
    "Paid the parking ticket I got last Tuesday": "last Tuesday",
    "Finally replied to the email Dana sent last week": "last week",
    "Returned the library books that were due yesterday": "yesterday",
    "Got the results from yesterday's blood test": "yesterday",
    "Paid the invoice from last week": "last week",
}
VAGUE = {
    "A couple of days ago I sprained my ankle": "A couple of days ago",
    "Renewed the car registration earlier this week": "earlier this week",
    "Started physical therapy 3 weeks back": "3 weeks back",
    "The other day I ran into Sam": "The other day",
}


async def test_a_relative_time_of_another_clause_or_a_vague_one_is_named_not_read(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given episodes whose relative time dates something else, or is vague, and two that date themselves
        texts = [*ANOTHER_CLAUSE, *VAGUE, "Yesterday I paid the bill", "I bought a bike two years ago"]
        acks, got = await written_together(
            client, poller, [{"content": t, "layer": "episodic"} for t in texts]
        )
    # Then no time is read from the first ones, and each write's answer names the words
    named = [*ANOTHER_CLAUSE.values(), *VAGUE.values()]
    for ack, memory, words in zip(acks[:-2], got[:-2], named, strict=True):
        assert memory["occurred_at"] is None, memory
        assert "occurred_at_inferred" not in memory["metadata"], memory
        assert f"({words!r})" in ack["time_not_read"], ack
    # while the sentence's own time is still read
    said = datetime.fromisoformat(acks[-2]["submitted_at"]).date()
    paid, bike = got[-2:]
    assert (paid["occurred_at"][:10], paid["occurred_precision"]) == (str(said - timedelta(days=1)), "day")
    assert (bike["occurred_at"][:4], bike["occurred_precision"]) == (str(said.year - 2), "year")
    assert acks[-2].get("time_not_read") is None


async def test_an_edit_into_words_dating_another_clause_drops_the_inferred_time(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given an episode dated by its words, then edited into words whose time is the passport's expiry
        (ack,), (before,) = await written_together(
            client, poller, [{"content": "Two weeks ago I renewed my passport", "layer": "episodic"}]
        )
        edited = await call(
            client,
            "memory_update",
            {
                "id": ack["id"],
                "action": "update",
                "content": "I renewed my passport, the one that expired last month",
            },
        )
        after = edited["memory"]
    # Then the inferred time is gone, not moved to last month
    assert before["occurred_precision"] == "week", before
    assert after["occurred_at"] is None, after
    assert "occurred_at_inferred" not in after["metadata"], after
