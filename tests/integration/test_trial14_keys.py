"""Findings of trial14 on keyed facts, through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker):

- Plans said as "I'm gonna move …", "I'll move … next month", "I'm moving … next month", "Next month I'm
  going to move …", "I'm going to work at Globex", "I'm starting at Globex next week" replaced the key's
  value of now: they are refused on a key (an ``isError`` result naming ``content`` and a plan), the
  value stays, and a key that names plans stores them.
- "My son is allergic to eggs" on ``user.allergy`` replaced "I'm allergic to peanuts": a write about
  another person on a key of the writer's own values is refused naming the key and a key of theirs; on
  that key it is stored, and "My wife and I moved to Austin" (the writer in the subject) still replaces.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("key", "value", "plan"),
    [
        ("user.home", "I live in Denver", "I'm gonna move to Portland"),
        ("user.home", "I live in Denver", "Next month I'm going to move to Portland"),
        ("user.job", "I work at Acme", "I'm starting at Globex next week"),
    ],
    ids=["gonna", "time-first", "progressive"],
)
async def test_a_plan_of_trial14_on_a_key_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, plan: str
) -> None:
    """Refused as a tool error naming the field and a plan; the value stays active; on a plans key the
    same words are stored beside it."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": plan, "key": key})
        message = caught.value.error["message"]
        assert all(words in message for words in ("content", "state a plan", "without a key")), message
        await drain(poller)
        assert await active_among(client, [held]) == {held}
        stored = await write_stored(client, poller, plan, f"user.plans.{uuid.uuid4().hex[:6]}")
        assert await active_among(client, [held, stored]) == {held, stored}


async def test_another_persons_words_on_the_users_key_are_refused_and_stored_on_theirs(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """The son's allergy on user.allergy is refused naming the key and son.allergy; peanuts stays the
    user's value; on the son's key it is stored."""
    suffix = uuid.uuid4().hex[:6]
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", f"user.allergy{suffix}")
        with pytest.raises(ToolCallError) as caught:
            await call(
                client,
                "memory_write",
                {"content": "My son is allergic to eggs", "key": f"user.allergy{suffix}"},
            )
        message = caught.value.error["message"]
        assert all(words in message for words in ("another person", f"'son.allergy{suffix}'")), message
        await drain(poller)
        assert await active_among(client, [peanuts]) == {peanuts}
        eggs = await write_stored(client, poller, "My son is allergic to eggs", f"son.allergy{suffix}")
        assert await active_among(client, [peanuts, eggs]) == {peanuts, eggs}


async def test_the_writer_beside_another_person_still_changes_the_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Guard: "My wife and I moved to Austin" is the writer's move, the key's new value."""
    key = f"user.home.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        denver = await write_stored(client, poller, "I live in Denver", key)
        austin = await write_stored(client, poller, "My wife and I moved to Austin", key)
        assert await active_among(client, [denver, austin]) == {austin}
        assert (await stored_memory(client, denver))["superseded_by"] == austin
