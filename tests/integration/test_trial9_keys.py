"""A question, a possibility or a plan on a key is refused, the key's value kept (trial9 H2: "I might move
to Portland next year" on ``user.home`` holding "I live in Seattle" retired Seattle and became the key's
fact). Without a key the same words are stored beside the fact, nothing retired."""

from __future__ import annotations

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, mcp_client, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_plan_or_a_question_on_a_key_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        home = await write_stored(client, poller, "I live in Seattle.", "user.home")
        for content in ("I might move to Portland next year.", "Do you think I should move to Austin?"):
            with pytest.raises(ToolCallError) as caught:
                await call(client, "memory_write", {"content": content, "key": "user.home"})
            message = caught.value.error["message"]
            assert caught.value.code == -32602, caught.value.error
            assert "content: the words state a possibility" in message or "ask a question" in message, message
            assert "'user.home'" in message, message
        free = await write_stored(client, poller, "I might move to Portland next year.")
        assert await active_among(client, [home, free]) == {home, free}
        summary = await call(client, "memory_summarize", {"key": "user.home"})
        assert "Seattle" in summary["hint"], summary
        assert "Portland" not in summary["hint"], summary


async def test_a_value_with_a_hedge_or_an_instruction_on_a_key_is_stored(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial10 M1: the first version of the refusal refused ordinary keyed values like these."""
    async with mcp_client(server.url, token) as client:
        for key, content in (
            ("user.calls", "If I'm late, text me instead of calling"),
            ("user.diet", "I'm vegetarian, though I might eat fish at restaurants"),
            ("user.book", 'My favourite book is "Who Moved My Cheese?"'),
        ):
            written = await write_stored(client, poller, content, key)
            assert await active_among(client, [written]) == {written}, content
