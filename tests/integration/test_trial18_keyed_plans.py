"""Findings of trial18 on keyed writes, through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker), in both protocol eras:

- H3: the son's "also" allergy (or the sister's "also" home) kept beside the user's value was retired by
  the user's next value: it stays active, the user's old value alone is superseded.
- H4: "I'm going vegan in January", "My last day at Globex is Friday" replaced the value of now: refused
  as a tool error naming ``content``, the value stays; the value written once it holds, with
  ``occurred_at`` (the argument the refusal names, M3), is stored.
- M1: "I'm not allergic to shellfish, the test was negative" was refused as a past state: it takes the
  shellfish value back.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("key", "first", "addition", "next_value", "mode"),
    [
        (
            "user.allergy",
            "I'm allergic to penicillin",
            "My son is also allergic to eggs",
            "I'm allergic to sulfa drugs",
            "2026-07-28",
        ),
        (
            "user.home",
            "I live in Boise",
            "My sister also lives in Boise now",
            "I live in Meridian now",
            "legacy",
        ),
    ],
    ids=["allergy-2026", "home-legacy"],
)
async def test_the_users_next_value_leaves_another_persons_addition(
    server: BackgroundServer,
    poller: SqsPoller,
    token: str,
    key: str,
    first: str,
    addition: str,
    next_value: str,
    mode: str,
) -> None:
    """The addition is kept beside the first value; the user's next value supersedes the first only, and
    its reason says the addition is left active."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token, mode=mode) as client:
        mine = await write_stored(client, poller, first, key)
        theirs = await write_stored(client, poller, addition, key)
        new = await write_stored(client, poller, next_value, key)
        assert await active_among(client, [mine, theirs, new]) == {theirs, new}
        (status,) = (await call(client, "memory_status", {"ids": [new]}))["writes"]
        assert f"supersedes {mine}" in status["reason"], status
        assert f"leaves {theirs} active" in status["reason"], status


@pytest.mark.parametrize(
    ("key", "value", "plan", "mode"),
    [
        ("user.diet", "I eat fish but no other meat", "I'm going vegan in January", "2026-07-28"),
        (
            "user.employer",
            "I work at Globex as a product manager",
            "My last day at Globex is Friday",
            "legacy",
        ),
    ],
    ids=["going-vegan-2026", "last-day-legacy"],
)
async def test_a_change_from_a_time_ahead_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, plan: str, mode: str
) -> None:
    """A tool error naming the field, the words and occurred_at (an argument memory_write takes); the value
    of now stays; written with occurred_at, a value is stored."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token, mode=mode) as client:
        held = await write_stored(client, poller, value, key)
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": plan, "key": key})
        message = caught.value.error["message"]
        assert all(words in message for words in ("content", "occurred_at")), message
        assert "valid_from" not in message, message
        await drain(poller)
        assert await active_among(client, [held]) == {held}
        later = await write_stored(client, poller, "I eat no animal products", key, occurred_at="2099-01-05")
        (status,) = (await call(client, "memory_status", {"ids": [later]}))["writes"]
        assert status["status"] == "stored", status


async def test_a_take_back_with_a_was_aside_takes_the_value_back(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Accepted (it was refused as a past state); the shellfish value is superseded by it, peanuts (the
    user's addition) stays."""
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        shellfish = await write_stored(client, poller, "I'm allergic to shellfish", key)
        peanuts = await write_stored(client, poller, "I'm also allergic to peanuts", key)
        taken = await write_stored(
            client, poller, "I'm not allergic to shellfish, the test was negative", key
        )
        assert await active_among(client, [shellfish, peanuts, taken]) == {peanuts, taken}
