"""trial11 LOW (2026-12-07, several trials in a row), through the official MCP client over HTTP with the
real stack (Postgres+pgvector, Redis, the SQS emulator and the worker): writes dated in calendar words
came back with ``time_not_read`` and were placed at the write time — "In 2025 I ran my first marathon",
"Sold the Honda Civic in October", "I met Dana on December 1st", "Last weekend I went hiking" — and "I
will see the doctor tomorrow" was stored as today, as if it had happened; "Bob's birthday is March 3" (a
fact) was warned about a date that is what the fact says. Each is now dated from its words
(``domain.word_dates``, ``domain.relative_time``), with no note, and the fact is not warned about."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from hindsight.client import call
from hindsight.domain.calendar_words import MONTHS
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import mcp_client, written_together

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


def _latest(said: date, month: int, day: int = 1) -> date:
    """The latest ``month``/``day`` on or before ``said``."""
    this_year = date(said.year, month, day)
    return this_year if this_year <= said else date(said.year - 1, month, day)


async def test_dates_in_words_place_the_memory_and_a_facts_birthday_is_not_warned_about(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given writes dated in words, a plan for tomorrow, and a fact naming a recurring date
        writes = [
            {"content": "In 2025 I ran my first marathon", "layer": "episodic"},
            {"content": "Sold the Honda Civic in October", "layer": "episodic"},
            {"content": "I met Dana on December 1st", "layer": "episodic"},
            {"content": "Last weekend I went hiking", "layer": "episodic"},
            {"content": "I will see the doctor tomorrow", "layer": "episodic"},
            {"content": "Bob's birthday is March 3"},
        ]
        acks, got = await written_together(client, poller, writes)
        hint = await call(client, "memory_summarize", {"query": "doctor"})
    said = date.fromisoformat(acks[0]["submitted_at"][:10])
    # Then none of the writes says a time was not read
    assert [a.get("time_not_read") for a in acks] == [None] * len(writes), acks
    # and each episode is placed where its words say, as precisely as they say it
    placed = [(m["occurred_at"][:10] if m["occurred_at"] else None, m["occurred_precision"]) for m in got]
    monday = said - timedelta(days=said.weekday())
    assert placed == [
        ("2025-01-01", "year"),
        (str(_latest(said, MONTHS.index("october") + 1)), "month"),
        (str(_latest(said, 12, 1)), "day"),
        (str(monday - timedelta(weeks=1)), "week"),  # the ISO week that holds last weekend
        (str(said + timedelta(days=1)), "day"),
        (None, None),  # a fact holds from the write
    ]
    assert got[1]["metadata"]["occurred_at_inferred"]["expression"] == "in October"
    # and the plan is summarized as upcoming, not as something that happened
    lines = {line["text"]: line["kind"] for line in hint["lines"]}
    assert lines.get("I will see the doctor tomorrow") == "upcoming", hint["hint"]
