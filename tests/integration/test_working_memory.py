"""Working memory end to end: official MCP client over HTTP → uvicorn → Redis (the stack's private one,
or one started here), plus promotion through the SQS emulator and the worker into Postgres."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.redis_sessions import RedisSessionLister
from hindsight.adapters.redis_working_memory import RedisWorkingMemoryStore
from hindsight.adapters.tiktoken_counter import TiktokenCounter
from hindsight.bootstrap import SystemClock, build_container
from hindsight.domain.auth import Principal
from hindsight.local.poller import SqsPoller
from hindsight.local.ports import free_port
from hindsight.local.redis_server import LocalRedis, start_redis
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.working_memory import WorkingMemory, WorkingMemoryPolicy
from tests.support import PROTOCOL_ERAS, drain, mcp_client, mint, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SMALL_BUDGET = 100  # tokens: a 1 000-token window × 0.1


@pytest.fixture(scope="module")
def small_server(stack: LocalStack) -> Iterator[BackgroundServer]:
    """A second server whose sessions hold 100 tokens, to exercise eviction with short texts."""
    settings = stack.require_settings().replace(
        working_memory_context_window_tokens=1_000, working_memory_budget_fraction=0.1
    )
    srv = BackgroundServer(settings).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def short_ttl_server(stack: LocalStack) -> Iterator[BackgroundServer]:
    """A second server whose sessions expire one second after their last write."""
    srv = BackgroundServer(stack.require_settings().replace(working_memory_ttl_s=1)).start()
    yield srv
    srv.stop()


async def _call(
    url: str, token: str, tool: str, args: dict[str, Any], mode: str = "legacy"
) -> dict[str, Any]:
    async with mcp_client(url, token, mode) as client:
        result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def _error(url: str, token: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    async with mcp_client(url, token) as client:
        return await tool_error(client, tool, args)


def _words(n: int, word: str = "note") -> str:
    """Text of exactly ``n`` cl100k tokens (" note" is one token)."""
    return word + f" {word}" * (n - 1)


def _content_for(key: str, tokens: int) -> str:
    """Content that makes the item (rendered "key: content") exactly ``tokens`` cl100k tokens."""
    content = _words(tokens - TiktokenCounter().count_sync(f"{key}:"))
    assert TiktokenCounter().count_sync(f"{key}: {content}") == tokens
    return content


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_set_get_list_and_clear(server: BackgroundServer, token: str, mode: str) -> None:
    # Given two items in one session
    first = await _call(
        server.url,
        token,
        "working_memory_set",
        {
            "session_id": "chat-1",
            "key": "goal",
            "content": "Book a table for four on Friday",
            "importance": 0.6,
        },
        mode,
    )
    assert first["item"]["key"] == "goal"
    assert first["item"]["tokens"] > 0
    assert first["evicted"] == []
    assert first["budget_tokens"] == 38_400
    assert 1790 <= first["expires_in_s"] <= 1800
    await _call(
        server.url,
        token,
        "working_memory_set",
        {"session_id": "chat-1", "key": "diet", "content": "Sam is vegetarian", "importance": 0.9},
        mode,
    )
    # When the whole session is read, then the most important comes first
    listed = await _call(server.url, token, "working_memory_get", {"session_id": "chat-1"}, mode)
    assert [i["key"] for i in listed["items"]] == ["diet", "goal"]
    assert listed["tokens_used"] == sum(i["tokens"] for i in listed["items"])
    # and one key gives that item, with its access recorded
    one = await _call(server.url, token, "working_memory_get", {"session_id": "chat-1", "key": "goal"}, mode)
    assert [(i["key"], i["access_count"]) for i in one["items"]] == [("goal", 2)]
    # Clearing one key, then the session, leaves nothing
    cleared = await _call(
        server.url, token, "working_memory_clear", {"session_id": "chat-1", "key": "goal"}, mode
    )
    assert cleared["cleared"] == 1
    assert (await _call(server.url, token, "working_memory_clear", {"session_id": "chat-1"}, mode))[
        "cleared"
    ] == 1
    empty = await _call(server.url, token, "working_memory_get", {"session_id": "chat-1"}, mode)
    assert empty["items"] == []
    assert empty["expires_in_s"] is None


async def test_tools_are_listed_with_hints(server: BackgroundServer, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    names = {"working_memory_set", "working_memory_get", "working_memory_clear", "working_memory_promote"}
    assert names <= set(tools)
    for name in names:
        assert "session" in (tools[name].description or "")
    get_hints, clear_hints = (
        tools["working_memory_get"].annotations,
        tools["working_memory_clear"].annotations,
    )
    assert get_hints is not None
    assert get_hints.read_only_hint is False  # a read records an access (it feeds eviction)
    assert get_hints.destructive_hint is False
    assert clear_hints is not None
    assert clear_hints.destructive_hint is True
    schema = tools["working_memory_set"].input_schema["properties"]
    assert schema["session_id"]["maxLength"] == 128
    # optional (omitted: the item keeps its own), bounded when given
    importance = [b for b in schema["importance"]["anyOf"] if b.get("type") == "number"]
    assert importance[0]["maximum"] == 1
    assert {"type": "null"} in schema["importance"]["anyOf"]


async def test_session_expires_after_its_ttl(short_ttl_server: BackgroundServer, token: str) -> None:
    url = short_ttl_server.url
    await _call(url, token, "working_memory_set", {"session_id": "brief", "key": "k", "content": "soon gone"})
    assert len((await _call(url, token, "working_memory_get", {"session_id": "brief"}))["items"]) == 1
    deadline = time.monotonic() + 3.0
    items: list[Any] = [None]
    while items and time.monotonic() < deadline:
        await anyio.sleep(0.25)
        items = (await _call(url, token, "working_memory_get", {"session_id": "brief"}))["items"]
    assert items == [], "the session outlived its 1 s TTL by more than 2 s"


async def test_over_budget_evicts_least_retained_and_never_core(
    small_server: BackgroundServer, token: str
) -> None:
    # The spec's scenario: a core safety constraint, chit-chat and an order under discussion, then more
    # context than the budget holds. Every item below is 20 tokens ("key: content").
    url, session = small_server.url, "support-7"

    async def put(key: str, importance: float, core: bool = False) -> dict[str, Any]:
        content = _content_for(key, 20)
        args = {"session_id": session, "key": key, "content": content, "importance": importance, "core": core}
        return await _call(url, token, "working_memory_set", args)

    allergy = await put("allergy", 0.3, core=True)  # low importance, but core
    assert allergy["item"]["tokens"] == 20
    await put("chit_chat", 0.1)
    await put("order", 0.8)
    await put("plan", 0.5)
    full = await put("address", 0.6)  # 100 tokens: exactly the budget
    assert full["evicted"] == []
    assert full["tokens_used"] == SMALL_BUDGET
    # One more item: the least important non-core item goes, not the (less important) core one
    more = await put("payment", 0.5)
    assert [e["key"] for e in more["evicted"]] == ["chit_chat"]
    assert more["tokens_used"] <= SMALL_BUDGET
    # Then the next least retained: "plan" (0.5) before "payment" (0.5, but just written)
    again = await put("delivery", 0.7)
    assert [e["key"] for e in again["evicted"]] == ["plan"]
    keys = {
        i["key"] for i in (await _call(url, token, "working_memory_get", {"session_id": session}))["items"]
    }
    assert keys == {"allergy", "order", "address", "payment", "delivery"}
    # Core items that cannot fit together are refused, naming the field and the budget
    args = {"session_id": session, "key": "huge", "content": _words(90), "core": True}
    error = await _error(url, token, "working_memory_set", args)
    assert error["code"] == -32602
    assert error["errors"][0]["field"] == "content"
    assert error["errors"][0]["limit"] == {"budget_tokens": SMALL_BUDGET}
    after = await _call(url, token, "working_memory_get", {"session_id": session})
    assert {i["key"] for i in after["items"]} == keys  # nothing changed


async def test_concurrent_writes_never_overshoot_the_budget(stack: LocalStack, tenant: str) -> None:
    # Straight through the use case and the Redis adapter: 30 simultaneous 20-token writes, 50-token budget.
    store = RedisWorkingMemoryStore(redis_client(stack.require_settings().redis_url))
    wm = WorkingMemory(
        store, TiktokenCounter(), SystemClock(), WorkingMemoryPolicy(budget_tokens=50, ttl_s=60)
    )
    alice = Principal(tenant_id=tenant, key_id="k")
    try:
        async with anyio.create_task_group() as tg:
            for n in range(30):
                tg.start_soon(wm.set, alice, None, "race", f"k{n}", _content_for(f"k{n}", 20), 0.5)
        view = await wm.get(alice, None, "race")
        assert view.tokens_used <= 50
        assert sum(i.tokens for i in view.items) == view.tokens_used
        assert view.count == 2
    finally:
        await wm.aclose()


async def test_promoted_item_is_found_by_memory_search(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    url = server.url
    content = "Priya prefers window seats on long-haul flights"
    await _call(
        url,
        token,
        "working_memory_set",
        {"session_id": "trip", "key": "priya.seat", "content": content, "importance": 0.8},
    )
    promoted = await _call(
        url,
        token,
        "working_memory_promote",
        {"session_id": "trip", "key": "priya.seat", "keep": False, "memory_key": "user.priya.seat"},
    )
    assert promoted["key"] == "user.priya.seat"
    assert promoted["status"] == "queued"
    assert promoted["kept"] is False
    assert (await _call(url, token, "working_memory_get", {"session_id": "trip"}))["items"] == []
    await drain(poller)
    found = await _call(url, token, "memory_search", {"query": "which seat does Priya like on flights?"})
    top = found["results"][0]["memory"]
    assert top["id"] == promoted["id"]
    assert top["content"] == content
    assert top["layer"] == "semantic"
    assert top["importance"] == pytest.approx(0.8)
    assert top["metadata"] == {"promoted_from": "working_memory", "session_id": "trip"}
    assert top["key"] == "user.priya.seat"
    missing = await _error(url, token, "working_memory_promote", {"session_id": "trip", "key": "priya.seat"})
    assert missing["code"] == -32002


async def test_another_tenant_cannot_see_or_clear_a_session(
    server: BackgroundServer, stack: LocalStack, token: str
) -> None:
    url = server.url
    await _call(
        url, token, "working_memory_set", {"session_id": "shared-id", "key": "secret", "content": "mine"}
    )
    other = await mint(stack, "tenant-b-working-memory")
    assert (await _call(url, other, "working_memory_get", {"session_id": "shared-id"}))["items"] == []
    assert (await _call(url, other, "working_memory_clear", {"session_id": "shared-id"}))["cleared"] == 0
    error = await _error(url, other, "working_memory_promote", {"session_id": "shared-id", "key": "secret"})
    assert error["code"] == -32002
    mine = await _call(url, token, "working_memory_get", {"session_id": "shared-id"})
    assert [i["content"] for i in mine["items"]] == ["mine"]


async def test_read_only_key_may_read_but_not_write(
    server: BackgroundServer, stack: LocalStack, tenant: str
) -> None:
    writer = await mint(stack, tenant)
    reader = await mint(stack, tenant, read_only=True)
    await _call(server.url, writer, "working_memory_set", {"session_id": "s", "key": "k", "content": "v"})
    assert len((await _call(server.url, reader, "working_memory_get", {"session_id": "s"}))["items"]) == 1
    for tool, args in [
        ("working_memory_set", {"session_id": "s", "key": "k", "content": "w"}),
        ("working_memory_clear", {"session_id": "s"}),
        ("working_memory_promote", {"session_id": "s", "key": "k"}),
    ]:
        assert (await _error(server.url, reader, tool, args))["code"] == -32003


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"session_id": "has spaces", "key": "k", "content": "v"}, "session_id"),
        ({"session_id": "x" * 129, "key": "k", "content": "v"}, "session_id"),
        ({"session_id": "s", "key": "", "content": "v"}, "key"),
        ({"session_id": "s", "key": "k", "content": "  "}, "content"),
        ({"session_id": "s", "key": "k", "content": "v", "importance": 1.5}, "importance"),
        ({"session_id": "s", "key": "k", "content": "x" * 32_001}, "content"),
        ({"key": "k", "content": "v"}, "session_id"),
    ],
)
async def test_bad_input_names_the_field(
    server: BackgroundServer, token: str, args: dict[str, Any], field: str
) -> None:
    error = await _error(server.url, token, "working_memory_set", args)
    assert error["code"] == -32602
    assert any(e["field"] == field for e in error["errors"])


async def test_redis_outage_is_a_retryable_error_and_recovery_needs_no_restart(
    stack: LocalStack, token: str, tmp_path: Path
) -> None:
    # A server whose Redis is not running yet: it still starts (nothing connects at build time).
    port = free_port()
    srv = BackgroundServer(stack.require_settings().replace(redis_url=f"redis://127.0.0.1:{port}/0")).start()
    redis: LocalRedis | None = None
    args = {"session_id": "outage", "key": "k", "content": "still here"}
    try:
        down = await _error(srv.url, token, "working_memory_get", {"session_id": "outage"})
        assert down["code"] == -32001
        assert "working memory is unavailable" in down["message"]
        assert down["retryable"] is True
        # Redis comes up: the same server works
        redis = await anyio.to_thread.run_sync(lambda: start_redis(tmp_path / "redis", port=port))
        await _call(srv.url, token, "working_memory_set", args)
        # Redis goes away: a clear, retryable error, for writes and reads alike
        redis.stop()
        for tool, tool_args in [
            ("working_memory_set", args),
            ("working_memory_get", {"session_id": "outage"}),
        ]:
            error = await _error(srv.url, token, tool, tool_args)
            assert error["code"] == -32001
            assert "working memory is unavailable" in error["message"]
        # and back again, without restarting the server (append-only file kept the session)
        redis = await anyio.to_thread.run_sync(lambda: start_redis(tmp_path / "redis", port=port))
        back = await _call(srv.url, token, "working_memory_get", {"session_id": "outage"})
        assert [i["content"] for i in back["items"]] == ["still here"]
    finally:
        srv.stop()
        if redis is not None:
            redis.stop()


async def test_two_stores_sharing_one_redis_keep_their_sessions_apart(stack: LocalStack, tenant: str) -> None:
    # Two local stacks on different data folders share the machine's Redis: each database has its own
    # store id, and the same tenant/agent/session in the other store is another session.
    settings = stack.require_settings()
    url = settings.require_database_url()
    alice = Principal(tenant_id=tenant, key_id="k")
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT value FROM hindsight_meta WHERE name = 'store_id'").fetchone()
    assert row is not None
    assert row[0]
    first = await build_container(settings, with_queue=False)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE hindsight_meta SET value = %s WHERE name = 'store_id'", (str(uuid.uuid4()),))
        try:
            second = await build_container(settings, with_queue=False)
        finally:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("UPDATE hindsight_meta SET value = %s WHERE name = 'store_id'", (row[0],))
        try:
            assert first.store_id != second.store_id
            a, b = first.working_memory, second.working_memory
            assert a is not None
            assert b is not None
            await a.set(alice, None, "same-session", "plan", "store A's plan", 0.5)
            assert (await b.get(alice, None, "same-session")).items == []  # not visible…
            assert (await b.clear(alice, None, "same-session")).cleared == 0  # …nor cleared by the other
            await b.set(alice, None, "same-session", "plan", "store B's plan", 0.5)
            assert [i.content for i in (await a.get(alice, None, "same-session")).items] == ["store A's plan"]
            assert (await b.clear(alice, None, "same-session")).cleared == 1
            assert [i.content for i in (await a.get(alice, None, "same-session")).items] == ["store A's plan"]
            # the operators' session list and the maintenance sweep see their own store's sessions only
            await b.set(alice, None, "only-in-b", "x", "store B's note", 0.5)
            lister_a = RedisSessionLister(first.redis, first.store_id)
            assert [s for s, _ in await lister_a.sessions(tenant, "default", 100)] == ["same-session"]
            sweeper_b = RedisWorkingMemoryStore(second.redis, second.store_id)
            scanned, cursor = 0, 0
            while True:
                page = await sweeper_b.sweep_sessions(cursor, 1000, 60, tenant)
                scanned, cursor = scanned + page.scanned, page.next_cursor
                if cursor == 0:
                    break
            assert scanned == 1  # B's "only-in-b", not A's session
            await a.clear(alice, None, "same-session")
            await b.clear(alice, None, "only-in-b")
        finally:
            await second.aclose()
    finally:
        await first.aclose()
