"""trial8 H2, H3 (2026-12-07): keyless writes retired facts that still hold — "Mia is now allergic to
shellfish" retired "Mia is allergic to peanuts" ("now" read as a correction), "Lena has lived in France
for a decade" retired "Lena lives in Paris" (a broader place read as a move). Through the official MCP
client, the SQS emulator, the worker and Postgres: the old fact stays active and is flagged (linked
``contradicts``); a new value of a one-value attribute still replaces the old one."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_contradicts, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second", "status"),
    [
        ("Mia is allergic to peanuts", "Mia is now allergic to shellfish", "active"),
        ("Lena lives in Paris", "Lena has lived in France for a decade", "active"),
        ("I live in Brooklyn", "I have been living in New York since 2010", "active"),
        ("My landlord is Mr. Brown", "My landlord is now Greystar", "superseded"),
    ],
)
async def test_now_or_a_broader_place_retires_only_the_same_attribute(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str, status: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(client, poller, first, second)
    assert_contradicts(new, old, view, status)
