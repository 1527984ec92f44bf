"""Redis requests of one turn of the event loop go as one pipeline (``adapters.redis_pipelines``, issue 15):
a ``memory_write``'s rate-limit lease and its operation-log entry take one round trip beside its
SendMessage, and each caller still gets its own replies or its own error. Real Redis."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from redis.asyncio.client import Pipeline
from redis.exceptions import NoScriptError

from hindsight.adapters.redis_client import redis_client
from hindsight.client import call
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import mcp_client, mint

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


def _spy_pipelines(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command names of every pipeline sent from now on, one list per round trip."""
    sent: list[list[str]] = []
    original = Pipeline.execute

    async def execute(self: Pipeline, *args: Any, **kwargs: Any) -> Any:
        sent.append([str(command[0][0]).upper() for command in self.command_stack])
        return await original(self, *args, **kwargs)

    monkeypatch.setattr(Pipeline, "execute", execute)
    return sent


async def test_a_writes_lease_and_operation_log_entry_take_one_round_trip(
    stack: LocalStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _spy_pipelines(monkeypatch)
    settings = stack.require_settings().replace(rate_limit_per_minute=1000, rate_limit_writes_per_minute=1000)
    server = BackgroundServer(settings).start()
    try:
        token = await mint(stack, f"t-{uuid.uuid4().hex[:12]}")
        async with mcp_client(server.url, token) as client:
            for n in range(3):
                ack = await call(client, "memory_write", {"content": f"Order {n} shipped on Monday"})
                assert ack["status"] == "queued"
    finally:
        server.stop()
    noted = [names for names in sent if "HSET" in names]  # the operation log's entry of each write
    assert len(noted) == 3
    for names in noted:  # beside it, the lease of the caller's next call and next write
        assert names == ["EVALSHA", "EVALSHA", "HSET", "EXPIRE", "ZADD"], sent


async def test_callers_sharing_a_pipeline_get_their_own_replies_and_errors(stack: LocalStack) -> None:
    from hindsight.adapters.redis_pipelines import SharedPipelines

    client = redis_client(stack.require_settings().redis_url)
    pipelines = SharedPipelines(client)
    key = f"test:pipelines:{uuid.uuid4().hex}"
    try:
        counted, unknown, read = await asyncio.gather(
            pipelines.run(lambda pipe: pipe.incr(key).incr(key)),
            pipelines.run(lambda pipe: pipe.evalsha("0" * 40, 1, key)),  # a script Redis does not know
            pipelines.run(lambda pipe: pipe.get(key)),
            return_exceptions=True,
        )
        assert counted == [1, 2]
        assert isinstance(unknown, NoScriptError)
        assert read == [b"2"]
        # a caller whose commands cannot be queued adds nothing to the turn's pipeline
        with pytest.raises(ZeroDivisionError):
            await pipelines.run(lambda pipe: (pipe.incr(key), 1 / 0))
        assert await pipelines.run(lambda pipe: pipe.get(key)) == [b"2"]
    finally:
        await client.delete(key)
        await client.aclose()
