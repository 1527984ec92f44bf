"""memory_write / memory_search end to end: official MCP client over HTTP → uvicorn → SQS emulator →
worker (via the poller) → Postgres+pgvector → search. Both protocol eras."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import PROTOCOL_ERAS, count_memories, drain, mcp_client, mint, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _call(
    url: str, token: str, tool: str, args: dict[str, Any], mode: str = "legacy"
) -> dict[str, Any]:
    async with mcp_client(url, token, mode) as client:
        result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_written_memory_is_found_after_the_queue_drains(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str, mode: str
) -> None:
    # Given a memory written through the MCP URL
    ack = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "Maya's favourite hiking trail is the Lost Coast in California", "key": "maya.hiking"},
        mode,
    )
    assert ack["status"] == "queued"
    # When the worker has drained the queue
    await drain(poller)
    # Then a search in other words finds it first, with its scores
    found = await _call(server.url, token, "memory_search", {"query": "where does Maya like to hike?"}, mode)
    assert found["count"] >= 1
    top = found["results"][0]
    assert top["memory"]["id"] == ack["id"]
    assert top["memory"]["key"] == "maya.hiking"
    assert top["scores"]["vector"] > 0.5
    assert count_memories(stack, tenant) == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # auto: the capabilities server/discover answers
async def test_capabilities_promise_no_change_notifications_or_subscriptions(
    server: BackgroundServer, token: str, mode: str
) -> None:
    # Hindsight's tool list never changes at run time, it has no resources to subscribe to, and a Lambda
    # cannot hold a notification stream open: neither era may advertise listChanged or subscribe
    # (at 2026-07-28 the SDK derives them from whether subscriptions/listen is served).
    async with mcp_client(server.url, token, mode=mode) as client:
        capabilities = client.server_capabilities
    assert capabilities.tools is not None
    assert not capabilities.tools.list_changed
    for part in (capabilities.resources, capabilities.prompts):
        assert part is None or not part.list_changed
    assert capabilities.resources is None or not capabilities.resources.subscribe


async def test_tools_are_listed_with_descriptions_and_limits(server: BackgroundServer, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"memory_write", "memory_search"} <= set(tools)
    write = tools["memory_write"]
    assert "preference" in (write.description or "")
    assert write.input_schema["properties"]["content"]["maxLength"] == 32_000
    assert tools["memory_search"].input_schema["properties"]["top_k"]["maximum"] == 100
    for tool in tools.values():
        assert tool.title, tool.name
        assert tool.annotations is not None
        assert tool.annotations.open_world_hint is False
    # Honest hints: a search records an access (frequency ranking), so it is not read-only and a repeat
    # counts again; forgetting twice changes nothing more; reading by id changes nothing at all.
    search = tools["memory_search"].annotations
    assert search is not None
    assert (search.read_only_hint, search.destructive_hint, search.idempotent_hint) == (False, False, False)
    forget = tools["memory_forget"].annotations
    assert forget is not None
    assert (forget.read_only_hint, forget.destructive_hint, forget.idempotent_hint) == (False, True, True)
    get = tools["memory_get"].annotations
    assert get is not None
    assert get.read_only_hint is True
    # The rate budget each call counts against (searches are reads; writes have a smaller budget).
    assert (tools["memory_search"].meta or {})["dev.hindsight/rate_budget"] == "requests"
    assert (write.meta or {})["dev.hindsight/rate_budget"] == "writes"
    # Output schemas admit the {"error": …} of an isError result (strict clients validate it too).
    assert tools["memory_search"].output_schema is not None
    assert {"required": ["error"]} in tools["memory_search"].output_schema["anyOf"]


async def test_duplicate_write_updates_the_existing_memory(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    first = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "The user prefers dark mode in the editor", "key": "ui.theme", "importance": 0.4},
    )
    await drain(poller)
    second = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "The user prefers dark mode in the editor.", "key": "ui.theme", "importance": 0.8},
    )
    await drain(poller)
    assert count_memories(stack, tenant) == 1
    found = await _call(server.url, token, "memory_search", {"query": "editor theme preference"})
    assert [r["memory"]["id"] for r in found["results"]] == [first["id"]]
    assert found["results"][0]["memory"]["importance"] == pytest.approx(0.8)
    assert second["id"] != first["id"]


async def test_another_tenant_sees_nothing(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str
) -> None:
    await _call(server.url, token, "memory_write", {"content": "Project Falcon launches on March 3rd"})
    await drain(poller)
    other = await mint(stack, "tenant-b-isolation")
    found = await _call(server.url, other, "memory_search", {"query": "When does Project Falcon launch?"})
    assert found == {"results": [], "count": 0}
    mine = await _call(server.url, token, "memory_search", {"query": "When does Project Falcon launch?"})
    assert mine["count"] == 1


BAD_WRITES = [
    ({}, "content"),
    ({"content": ""}, "content"),
    ({"content": "   \n "}, "content"),
    ({"content": "x" * 32_001}, "content"),
    ({"content": "ok", "importance": "high"}, "importance"),
    ({"content": "ok", "importance": 1.5}, "importance"),
    ({"content": "ok", "layer": "working"}, "layer"),
    ({"content": "nul \x00 byte"}, "content"),
    ({"content": "ok", "metadata": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}, "metadata"),
    ({"content": "ok", "agent_id": "no spaces allowed"}, "agent_id"),
]


@pytest.mark.parametrize(("args", "field"), BAD_WRITES)
async def test_bad_write_is_a_json_rpc_error_naming_the_field(
    server: BackgroundServer,
    poller: SqsPoller,
    stack: LocalStack,
    token: str,
    tenant: str,
    args: dict[str, Any],
    field: str,
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await tool_error(client, "memory_write", args)
    assert error["kind"] == "invalid_arguments"
    assert error["code"] == -32602
    assert field in error["message"]
    assert any(e["field"] == field for e in error["errors"])
    await drain(poller)
    assert count_memories(stack, tenant) == 0


@pytest.mark.parametrize(
    ("args", "field", "limit"),
    [
        ({"query": "q", "top_k": 0}, "top_k", {"ge": 1}),
        ({"query": "q", "top_k": 10_000}, "top_k", {"le": 100}),
        ({"query": "q", "top_k": "ten"}, "top_k", None),
        ({"query": ""}, "query", {"min_length": 1}),
        ({"top_k": 3}, "query", None),
    ],
)
async def test_bad_search_names_the_field_and_limit(
    server: BackgroundServer, token: str, args: dict[str, Any], field: str, limit: dict[str, int] | None
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await tool_error(client, "memory_search", args)
    assert error["code"] == -32602
    errors = {e["field"]: e for e in error["errors"]}
    assert field in errors
    if limit is not None:
        assert errors[field]["limit"] == limit


@pytest.mark.parametrize(
    "authorization", [None, "Bearer nope", "Bearer hsk_0000000000000000." + "A" * 43, "Basic dXNlcjpwYXNz"]
)
async def test_missing_or_unknown_token_is_401(server: BackgroundServer, authorization: str | None) -> None:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if authorization:
        headers["authorization"] = authorization
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    async with httpx2.AsyncClient() as http:
        response = await http.post(server.url, json=body, headers=headers)
    assert response.status_code == 401
    assert "Bearer" in response.headers["www-authenticate"]


async def test_revoked_token_stops_working(server: BackgroundServer, stack: LocalStack) -> None:
    from hindsight.domain.auth import parse_token

    token = await mint(stack, "tenant-revoke")
    await _call(server.url, token, "memory_search", {"query": "anything"})
    parsed = parse_token(token)
    assert parsed is not None
    import psycopg

    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE key_id = %s", (parsed[0],))
    # A new server process has no cached answer; the running one forgets within the cache TTL.
    fresh = BackgroundServer(stack.require_settings()).start()
    try:
        async with httpx2.AsyncClient() as http:
            response = await http.post(
                fresh.url,
                json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                headers={
                    "authorization": f"Bearer {token}",
                    "content-type": "application/json",
                    "accept": "application/json, text/event-stream",
                },
            )
        assert response.status_code == 401
    finally:
        fresh.stop()
