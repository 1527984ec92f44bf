"""trial13 H1 and H2 (2026-12-07), through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker): a past event dated in words
(``domain.word_dates``) was read where it must not be — "I was born on July 4th" was placed on 4 July of
this year (a life event's year is not told), and "I never sold the Civic in October" in October (the
time of what did not happen). Both are now noted in ``time_not_read`` and not dated; with its year the
birth is read."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import mcp_client, written_together

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_life_events_day_and_a_negated_events_month_are_noted_not_dated(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given a birth without its year, a negated sale, a negated trip, and a birth with its year
        writes = [
            {"content": "I was born on July 4th", "layer": "episodic"},
            {"content": "I never sold the Civic in October", "layer": "episodic"},
            {"content": "I never went to Rome in 2024", "layer": "episodic"},
            {"content": "My son was born on March 3rd, 2019", "layer": "episodic"},
        ]
        acks, got = await written_together(client, poller, writes)
    # Then the first three say which words were not read, and only the last is dated
    notes = [a.get("time_not_read") for a in acks]
    for note, words in zip(notes[:3], ("'July 4th'", "'in October'", "'in 2024'"), strict=True):
        assert words in str(note), acks
    assert notes[3] is None, acks
    placed = [(m["occurred_at"][:10] if m["occurred_at"] else None, m["occurred_precision"]) for m in got]
    assert placed == [(None, None), (None, None), (None, None), ("2019-03-03", "day")]
