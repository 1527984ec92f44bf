"""trial7 M1 and M2 (2026-12-07): an everyday change in the user's own words — "We just moved to Austin" after
"I live in Denver", "I gave up keto" after "I'm on a keto diet", "Tom Reyes retired, so Priya is my
manager now" after "My manager is Tom Reyes", "Mia turned 8 last week" after "My daughter Mia is 7" —
left both facts active and unflagged. M2: on a key, "Also, I work at Globex now" after "I work at Acme" was
taken as one more value ("adds to … (same key, both active)"), as were "I've also switched to a Pixel
8" and "My sister moved to Denver and I moved there too". Through the official MCP client, the SQS
emulator, the worker and Postgres: the old key-less fact is linked ``contradicts`` (flagged), and
nothing is retired on such loose words; on a key, the change replaces the value."""

from __future__ import annotations

from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import assert_contradicts, assert_left_alone, mcp_client, written_in_turn

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I live in Denver", "We just moved to Austin"),
        ("I live in Denver", "Finally settled in Austin after the move"),  # below the usual gate
        ("I'm on a keto diet", "I gave up keto"),
        ("My manager is Tom Reyes", "Tom Reyes retired, so Priya is my manager now"),
        ("My daughter Mia is 7", "Mia turned 8 last week"),
    ],
)
async def test_an_everyday_change_in_the_users_words_is_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(client, poller, first, second)
    assert_contradicts(new, old, view, "active")


async def test_another_persons_move_leaves_the_users_home_alone(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        *_, view = await written_in_turn(client, poller, "I live in Denver", "My sister moved to Austin")
    assert_left_alone(view)


@pytest.mark.parametrize(
    ("key", "first", "second", "status"),
    [
        ("user.employer", "I work at Acme", "Also, I work at Globex now", "superseded"),
        ("user.phone", "I use an iPhone 12", "I've also switched to a Pixel 8", "superseded"),
        ("user.city", "I live in Boston", "My sister moved to Denver and I moved there too", "superseded"),
        # trial9 H1: "also … now" is one more value from now on; it retired the key's value
        (
            "user.allergy",
            "I'm allergic to penicillin.",
            "Turns out I'm also allergic to latex now.",
            "active",
        ),
        ("user.languages", "I speak Spanish.", "I also speak French now.", "active"),
        # trial10 H1: an ending verb beside "also … now" is a change
        ("user.bank", "I bank with Chase", "I also closed my Chase account, I'm with Ally now", "superseded"),
    ],
)
async def test_an_also_on_a_key_adds_a_value_unless_beside_a_change(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, first: str, second: str, status: str
) -> None:
    async with mcp_client(server.url, token) as client:
        _, new, view = await written_in_turn(client, poller, first, second, key=key)
        added: dict[str, Any] = await call(client, "memory_get", {"id": new["id"]})
    assert view["memory"]["status"] == status, (view, added)
    assert added["memory"]["status"] == "active", added
