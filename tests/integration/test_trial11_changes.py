"""trial11 H3 and M2 (2026-12-07), through the official MCP client, the SQS emulator, the worker and
Postgres, each pair on its own agent, no key, no chat model. H3: a change that does not name the old value
("I switched to a Pixel 8" after "My phone is an iPhone 12") left both active, unflagged — now the old one
is linked ``contradicts`` (flagged), never retired. M2: two facts that both hold ("I take 10mg of
lisinopril daily" / "I take 500mg of metformin daily") were flagged — now neither is linked."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_contradicts, assert_left_alone, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("My phone is an iPhone 12", "I switched to a Pixel 8"),
        ("I use Python 3.11", "I upgraded to Python 3.12"),
        ("I'm on the Platform team", "I joined the Payments team last week"),
        ("We host the app on AWS", "We migrated the app to GCP"),
    ],
)
async def test_a_switch_that_does_not_name_the_old_value_is_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(client, poller, first, second)
    assert_contradicts(new, old, view, "active")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I take 10mg of lisinopril daily", "I take 500mg of metformin daily"),
        ("I don't eat pork", "I don't eat beef"),
        ("Our team uses Jira for tickets", "Our team uses Slack for chat"),
        ("I have a meeting with Dana at 10:00 on Monday", "I have a meeting with Bob at 15:00 on Monday"),
    ],
)
async def test_two_facts_that_both_hold_are_not_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        *_, view = await written_in_turn(client, poller, first, second)
    assert_left_alone(view)
