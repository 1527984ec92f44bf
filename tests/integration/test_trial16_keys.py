"""Findings of trial16 on keyed facts, through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker):

- 8fd0036 refused as plans words that are values: "I'm going to work at Acme by bike these days" (a
  habit), "I'm gonna be honest, I still live in Denver" (a discourse opening), "I will work from home on
  Fridays" (a standing arrangement). They are the key's value again and replace it.
- A value that holds only from a time ahead ("From next week the standup is at 10") replaced the value of
  now: it is refused naming ``content`` and ``occurred_at`` (trial18 M3: memory_write takes no
  ``valid_from``), and the value stays.
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
    ("key", "value", "habit"),
    [
        ("user.commute", "I drive to work at Acme", "I'm going to work at Acme by bike these days"),
        ("user.schedule", "I work from the office every day", "I will work from home on Fridays"),
    ],
    ids=["by-bike", "fridays"],
)
async def test_a_habit_refused_as_a_plan_by_8fd0036_is_the_keys_value_again(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, habit: str
) -> None:
    """Stored on the key, it replaces the value it follows."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        now = await write_stored(client, poller, habit, key)
        assert await active_among(client, [held, now]) == {now}


async def test_a_value_from_a_time_ahead_is_refused_and_the_value_of_now_kept(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """ "From next week the standup is at 10" on team.standup holding "Standup is at 9": a tool error
    naming the field, the time ahead and occurred_at; 9 stays the key's value."""
    key = f"team.standup.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        nine = await write_stored(client, poller, "Standup is at 9", key)
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": "From next week the standup is at 10", "key": key})
        message = caught.value.error["message"]
        assert all(words in message for words in ("content", "a time ahead", "occurred_at")), message
        await drain(poller)
        assert await active_among(client, [nine]) == {nine}
