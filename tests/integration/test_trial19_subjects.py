"""Findings of trial19 on another person's words on the writer's key, through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker): a write that names
another person without opening "my/our <relation on the list>" retired the writer's value.

- "Mom lives in Tampa now", "Last week my sister-in-law started at Globex", "My wife's brother moved to
  Boise", "Both my kids are allergic to peanuts" (stored beside the writer's allergy as an addition):
  refused as another person's words, the writer's value stays.
- Guard: "Mom and I live in Reno now" is the writer's new home: it replaces "I live in Denver".
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, tool_error, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("key", "value", "theirs", "subject"),
    [
        ("user.home", "I live in Denver", "Mom lives in Tampa now", "my mom"),
        (
            "user.employer",
            "I work at Acme",
            "Last week my sister-in-law started at Globex",
            "my sister-in-law",
        ),
        ("user.home", "I live in Denver", "My wife's brother moved to Boise", "my wife's brother"),
        ("user.allergy", "I'm allergic to penicillin", "Both my kids are allergic to peanuts", "my kids"),
    ],
    ids=["bare-kin", "fronted", "possessive-chain", "both-my-kids"],
)
async def test_another_persons_words_without_my_relation_opening_are_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, theirs: str, subject: str
) -> None:
    """Refused as a tool error naming the field and the person; the writer's value stays active."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        error = await tool_error(client, "memory_write", {"content": theirs, "key": key})
        assert error["kind"] == "invalid_arguments", error
        assert f"content: the words are about another person ({subject!r})" in error["message"], error
        await drain(poller)
        assert await active_among(client, [held]) == {held}


async def test_mom_and_i_is_the_writers_new_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Guard: "Mom and I live in Reno now" names the writer: it replaces "I live in Denver"."""
    key = f"user.home.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        denver = await write_stored(client, poller, "I live in Denver", key)
        reno = await write_stored(client, poller, "Mom and I live in Reno now", key)
        assert await active_among(client, [denver, reno]) == {reno}
        assert (await stored_memory(client, denver))["superseded_by"] == reno
