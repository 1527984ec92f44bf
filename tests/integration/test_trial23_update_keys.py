"""trial23 H1, through the official MCP client over HTTP with the real stack: memory_update stored on a key
what memory_write refuses there — another person's words in place of the writer's value, by ``supersede``
and by ``update``, and a possibility or an undated past state by ``update``. Each is now the same tool error
(``invalid_arguments``, field ``content``, the same message) as memory_write's, and the writer's value
stays, unchanged."""

from __future__ import annotations

import uuid

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, stored_memory, tool_error, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("key", "value", "words", "action"),
    [
        ("user.city", "I live in Lisbon", "My son Tom lives in Faro", "supersede"),
        ("user.city", "I live in Lisbon", "My son Tom lives in Faro", "update"),
        ("user.diet", "I'm vegetarian", "My wife Maria is vegan", "update"),
        ("user.employer", "I work at Acme", "I might move to Globex next year", "update"),
        ("user.home", "I live in Paris", "I used to live in Rome", "update"),
    ],
    ids=["other-supersede", "other-update", "wife-update", "plan-update", "past-update"],
)
async def test_memory_update_refuses_on_a_key_what_memory_write_refuses(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, words: str, action: str
) -> None:
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        written = await tool_error(client, "memory_write", {"content": words, "key": key})
        updated = await tool_error(client, "memory_update", {"id": held, "action": action, "content": words})
        await drain(poller)
        after = await stored_memory(client, held)
    assert written["kind"] == updated["kind"] == "invalid_arguments", updated
    assert updated["message"] == written["message"], updated
    assert updated["message"].startswith("Invalid arguments: content: "), updated
    assert [e["field"] for e in updated["errors"]] == ["content"], updated
    assert (after["status"], after["content"], after["version"]) == ("active", value, 1)
