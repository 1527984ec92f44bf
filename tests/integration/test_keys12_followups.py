"""Follow-ups of trial14/15 through the official MCP client over HTTP, the worker and Postgres:

- trial15 LOW: memory_forget, memory_get and memory_update given the id a write's acknowledgement
  returned, for a write merged into an existing memory, answered "memory X not found"; now an ``isError``
  result naming the memory it was merged into.
- "My son's allergic to eggs" (a contracted "is") on ``user.allergy`` holding "I'm allergic to peanuts"
  replaced it: refused as "My son is allergic to eggs" is (8fd0036).
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, tool_error, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_merged_writes_id_names_the_memory_to_use(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        first = await write_stored(client, poller, "Quinn keeps a green bicycle in the hallway")
        repeat = str(
            (await call(client, "memory_write", {"content": "Quinn keeps a green bicycle in the hallway"}))[
                "id"
            ]
        )
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [repeat]}))["writes"]
        assert (status["status"], status["memory_id"]) == ("merged", first)
        for tool, arguments in (
            ("memory_get", {"id": repeat}),
            ("memory_forget", {"id": repeat}),
            ("memory_update", {"id": repeat, "action": "update", "importance": 0.9}),
        ):
            error = await tool_error(client, tool, arguments)
            assert f"merged into memory {first} (a near-duplicate): use {first}" in error["message"], error
        assert (await stored_memory(client, first))["status"] == "active"  # nothing forgotten


async def test_another_persons_contracted_is_on_the_users_key_is_refused(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", key)
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": "My son's allergic to eggs", "key": key})
        message = caught.value.error["message"]
        assert all(words in message for words in ("another person ('my son')", "content")), message
        await drain(poller)
        assert await active_among(client, [peanuts]) == {peanuts}
