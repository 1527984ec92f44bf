"""Rate-limit leases (``usecases.rate_limits``, "Leases"): an admitted call counts its caller's next unit in
Redis while its tool runs, so the next call is not held up by the counter's round trip — and still no caller
gets more than its budget, over several servers (each its own limiter, as Lambda instances are) and
concurrent writers, and a refused write is neither queued nor noted. Real Redis, the official MCP client."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import pytest

from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.redis_rate_limiter import RedisRateLimiter
from hindsight.client import ToolCallError, call
from hindsight.domain.auth import Principal
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.rate_limits import CheckRateLimit, RateLimitPolicy
from tests.support import count_memories, drain, mcp_client, mint, store_id

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
WRITES = 5
SERVERS = 3


@pytest.fixture(scope="module")
def write_limited(stack: LocalStack) -> Iterator[list[BackgroundServer]]:
    """Three MCP servers on one store, each with its own limiter (its own leases), ``WRITES`` writes a
    minute per key and a calls budget no test reaches."""
    settings = stack.require_settings().replace(
        rate_limit_per_minute=1000, rate_limit_writes_per_minute=WRITES
    )
    servers = [BackgroundServer(settings).start() for _ in range(SERVERS)]
    yield servers
    for server in servers:
        server.stop()


async def _redis_keys(stack: LocalStack, pattern: str) -> dict[str, int]:
    """The keys matching ``pattern`` in the stack's Redis with their integer values (a hash counts 1)."""
    client = redis_client(stack.require_settings().redis_url)
    try:
        found: dict[str, int] = {}
        async for key in client.scan_iter(match=pattern):
            name = key.decode() if isinstance(key, bytes) else key
            kind = await client.type(name)
            kind = kind.decode() if isinstance(kind, bytes) else kind
            found[name] = int(await client.get(name) or 0) if kind == "string" else 1
        return found
    finally:
        await client.aclose()


async def _write(client: Any, text: str) -> str:
    """``queued`` or the error kind of a memory_write of ``text``."""
    try:
        answer = await call(client, "memory_write", {"content": text})
    except ToolCallError as refused:
        error = refused.error
    else:
        return str(answer["status"])
    assert error["budget"] == "writes", error
    return str(error["kind"])


async def test_one_server_admits_exactly_the_budget_and_counts_the_next_write_ahead(
    write_limited: list[BackgroundServer], stack: LocalStack, poller: SqsPoller
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    token = await mint(stack, tenant)
    prefix = f"hs:{store_id(stack)}"
    async with mcp_client(write_limited[0].url, token) as client:
        assert await _write(client, f"first {uuid.uuid4().hex}") == "queued"
        # the write was counted, and the caller's next one too (the lease), before the answer came back
        counters = await _redis_keys(stack, f"{prefix}:rl:*{tenant}:*:writes/*")
        assert list(counters.values()) == [2], counters
        outcomes = [await _write(client, f"write {i} {uuid.uuid4().hex}") for i in range(WRITES + 2)]
    assert outcomes == ["queued"] * (WRITES - 1) + ["rate_limited"] * 3
    counters = await _redis_keys(stack, f"{prefix}:rl:*{tenant}:*:writes/*")
    assert list(counters.values()) == [WRITES], counters  # never more counted than the budget
    # the refused writes were neither noted (the operation log) nor queued (nothing more was stored)
    assert len(await _redis_keys(stack, f"{prefix}:op:{tenant}:*")) == WRITES
    await drain(poller)
    assert await anyio.to_thread.run_sync(count_memories, stack, tenant) == WRITES


async def test_concurrent_writers_on_several_servers_never_get_more_than_the_budget(
    write_limited: list[BackgroundServer], stack: LocalStack, poller: SqsPoller
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    token = await mint(stack, tenant)

    async def writer(server: BackgroundServer, name: str) -> list[str]:
        async with mcp_client(server.url, token) as client:
            return [await _write(client, f"{name} {i} {uuid.uuid4().hex}") for i in range(4)]

    # a first write on every server, so each holds a lease, then four writers per server at once
    warm = [await writer_once(server, token, tenant) for server in write_limited]
    runs = await asyncio.gather(*(writer(s, f"w{s.port}-{n}") for s in write_limited for n in range(4)))
    outcomes = warm + [o for run in runs for o in run]
    admitted = outcomes.count("queued")
    assert set(outcomes) == {"queued", "rate_limited"}
    # never more than the budget; at most one unit early per server holding a lease it did not spend
    assert WRITES - SERVERS <= admitted <= WRITES, outcomes
    assert len(await _redis_keys(stack, f"hs:{store_id(stack)}:op:{tenant}:*")) == admitted
    await drain(poller)
    assert await anyio.to_thread.run_sync(count_memories, stack, tenant) == admitted


async def writer_once(server: BackgroundServer, token: str, tenant: str) -> str:
    async with mcp_client(server.url, token) as client:
        return await _write(client, f"warm {server.port} {tenant} {uuid.uuid4().hex}")


async def test_a_lease_is_never_spent_after_the_window_it_was_counted_in(stack: LocalStack) -> None:
    # Given a caller whose counting window ends in a second (its current counter set to live one
    # window and one second, as limits' sliding-window counter leaves it a window before it shifts)
    client = redis_client(stack.require_settings().redis_url)
    store = f"store-{uuid.uuid4().hex[:8]}"
    caller = Principal(tenant_id=f"t-{uuid.uuid4().hex[:8]}", key_id="k1")
    current = f"hs:{store}:rl:{{LIMITER/{caller.tenant_id}:k1:requests/10/60/second}}"
    try:
        await client.set(current, 0, px=61_000)
        check = CheckRateLimit(RedisRateLimiter(client, store), RateLimitPolicy(per_minute=10))
        # When a call is counted and the next one leased in that window
        await check(caller, write=False)
        await check.lease_next(caller, write=False)
        assert int(await client.get(current) or 0) == 2
        # and the next call comes after the window ended
        await anyio.sleep(1.2)
        await check(caller, write=False)
        # Then it was counted in the new window (the leased unit stays in the old one, now the previous)
        assert int(await client.get(f"{current}/-1") or 0) == 2
        assert int(await client.get(current) or 0) == 1
    finally:
        await client.aclose()


async def test_leases_and_hits_count_in_the_same_counters(stack: LocalStack) -> None:
    client = redis_client(stack.require_settings().redis_url)
    limiter = RedisRateLimiter(client, f"store-{uuid.uuid4().hex[:8]}")
    bucket = f"key-{uuid.uuid4().hex[:8]}"
    try:
        other = f"key-{uuid.uuid4().hex[:8]}"
        [left, other_left] = await limiter.lease([(bucket, 3), (other, 1)], 60)
        assert left is not None
        assert 59 < left <= 60  # a new window: all of it left
        assert await limiter.hit(bucket, 3, 60) is None
        assert (await limiter.lease([(bucket, 3)], 60))[0] is not None
        assert await limiter.hit(bucket, 3, 60) is not None  # three counted: the budget is spent
        assert await limiter.lease([(bucket, 3), (other, 1)], 60) == [None, None]
        assert other_left is not None
        await client.script_flush()  # a Redis that lost the script (restarted, flushed) gets it again
        assert (await limiter.lease([(f"key-{uuid.uuid4().hex[:8]}", 1)], 60))[0] is not None
    finally:
        await client.aclose()
