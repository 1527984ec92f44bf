"""Findings of trial16 on another person's words on the writer's key, through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- "My husband works at Globex" on ``user.employer`` holding "I work at Acme" replaced it (only "is",
  "has", "lives" were read after a relation): refused naming the husband, Acme stays.
- "My boss is Dana now" on ``user.manager`` holding "I report to Lee" was refused as another person's
  words: the boss is the value of the writer's role, so it replaces "I report to Lee".
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_another_persons_verb_on_the_writers_key_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """The husband's employer is refused on user.employer, naming him; Acme stays active."""
    suffix = uuid.uuid4().hex[:6]
    async with mcp_client(server.url, token) as client:
        acme = await write_stored(client, poller, "I work at Acme", f"user.employer.{suffix}")
        with pytest.raises(ToolCallError) as caught:
            await call(
                client,
                "memory_write",
                {"content": "My husband works at Globex", "key": f"user.employer.{suffix}"},
            )
        message = caught.value.error["message"]
        assert all(words in message for words in ("another person ('my husband')", "content")), message
        await drain(poller)
        assert await active_among(client, [acme]) == {acme}


async def test_a_person_filling_the_writers_role_replaces_the_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """The boss's name on user.manager is the writer's new value: "I report to Lee" superseded by it."""
    suffix = uuid.uuid4().hex[:6]
    async with mcp_client(server.url, token) as client:
        lee = await write_stored(client, poller, "I report to Lee", f"user.manager.{suffix}")
        dana = await write_stored(client, poller, "My boss is Dana now", f"user.manager.{suffix}")
        assert await active_among(client, [lee, dana]) == {dana}
        assert (await stored_memory(client, lee))["superseded_by"] == dana
