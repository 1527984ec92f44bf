"""New-user trial findings on key-less writes, through the official MCP client, the SQS emulator, the
worker and Postgres, each pair on its own agent, no key, no chat model: a change sharing no word with the
old fact ("I use VS Code for everything" / "I switched to Neovim"), or scoring below the usual gate ("My
dog Rex is 5 years old" / "Rex passed away last week"), left both active and unflagged — now the old one
is linked ``contradicts`` (flagged), never retired; "I speak Spanish" / "I speak French" was flagged —
now neither is linked."""

from __future__ import annotations

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_contradicts, assert_left_alone, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I use VS Code for everything", "I switched to Neovim"),
        ("We use MySQL 5.7", "We migrated to Postgres 16"),
        ("I drive a 2015 Honda Civic", "I traded in my car for a Tesla Model 3"),
        ("I take lisinopril for blood pressure", "My doctor switched me to losartan"),
        ("The team meeting is on Mondays", "Our meeting is now on Thursdays"),
        ("My dog Rex is 5 years old", "Rex passed away last week"),
    ],
)
async def test_a_change_in_words_of_its_own_is_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(client, poller, first, second)
    assert_contradicts(new, old, view, "active")


@pytest.mark.parametrize(
    ("first", "second"),
    [("I speak Spanish", "I speak French"), ("I'm learning Spanish", "I'm learning French")],
)
async def test_two_languages_are_not_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        *_, view = await written_in_turn(client, poller, first, second)
    assert_left_alone(view)
