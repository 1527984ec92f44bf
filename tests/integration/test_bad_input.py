"""Bad input over real HTTP: every field of every tool, malformed and oversized JSON-RPC bodies, batches,
wrong content types and methods. Each is a clear error — a bad argument is a tool result with isError
naming the field (and the limit when one is broken), an unknown tool a JSON-RPC -32602, a malformed
request a 4xx with a JSON-RPC error body — never a 5xx, and nothing is queued, stored or cached.

The (tool, field, bad value) table is generated from the tools' input schemas (``tests/schema_cases``),
so a new tool or field is covered the day it is added. Hand-written cases for a few tools live in
test_mcp_http.py and test_memory_model.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import psycopg
import pytest
import redis

from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.schema_cases import BadCase, bad_values, tool_schemas, valid_arguments
from tests.support import session_pattern

pytestmark = pytest.mark.integration
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


SCHEMAS = tool_schemas()
TABLE = [
    pytest.param(tool, field, case, id=f"{tool}-{field}-{case.label}")
    for tool, schema in SCHEMAS.items()
    for field, field_schema in schema.get("properties", {}).items()
    for case in bad_values(field_schema, schema.get("$defs"))
]


@pytest.fixture(scope="module")
def server(unlimited_server: BackgroundServer) -> BackgroundServer:
    """Rate limits off: hundreds of calls a minute from one key are the point here."""
    return unlimited_server


@pytest.fixture(scope="module")
def baseline(stack: LocalStack) -> dict[str, int]:
    """Queue depths before the first bad call of this module (no poller runs meanwhile)."""
    return _queue_depths(stack)


@pytest.fixture(scope="module")
def victim(stack: LocalStack, baseline: dict[str, int]) -> tuple[str, str]:
    """(tenant, token): a tenant that only ever sends bad input, so it must end with nothing anywhere."""
    tenant = "t-bad-input"
    return tenant, stack.mint_token(tenant)


def _redis_keys(stack: LocalStack, tenant: str) -> int:
    """Working-memory and queued-status keys of a tenant (a queued write leaves one at once)."""
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:
        return sum(
            1
            for pattern in (session_pattern(stack, tenant), f"hs:op:{tenant}:*")
            for _ in client.scan_iter(match=pattern, count=1000)
        )
    finally:
        client.close()


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30) as client:
        yield client


def _post(http: httpx2.Client, url: str, token: str, body: Any, **headers: str) -> httpx2.Response:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return http.post(url, content=raw, headers={**HEADERS, "authorization": f"Bearer {token}", **headers})


def _call(tool: str, arguments: Any, request_id: int = 1) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def _queue_depths(stack: LocalStack) -> dict[str, int]:
    """Messages in the write, bulk-write and reflection queues (visible + in flight), as SQS counts them."""
    sqs, settings = stack.sqs_client(), stack.require_settings()
    depths = {}
    for url in (settings.require_write_queue_url(), settings.bulk_queue_url, settings.reflect_queue_url):
        assert url is not None
        attrs = sqs.get_queue_attributes(
            QueueUrl=url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        depths[url] = int(attrs["ApproximateNumberOfMessages"]) + int(
            attrs["ApproximateNumberOfMessagesNotVisible"]
        )
    return depths


def _leftovers(stack: LocalStack, tenant: str) -> dict[str, int]:
    """What a tenant has anywhere: rows in every tenant table, working-memory and queued-status keys."""
    counts = {}
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        for table in ("memories", "write_results", "memory_history", "memory_relations"):
            row = conn.execute(f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (tenant,)).fetchone()
            counts[table] = int(row[0]) if row else 0
    counts["redis keys"] = _redis_keys(stack, tenant)
    return counts


def _assert_invalid_params(response: httpx2.Response, field: str, *, limit: bool = False) -> dict[str, Any]:
    """An argument error is the call's result with isError (SEP-1303), so the model reads it: the text
    content names the field (and the limit), the structured content holds the same error object."""
    assert response.status_code == 200, response.text[:300]
    body = response.json()
    assert "result" in body, f"a JSON-RPC error, not a result the model can read: {json.dumps(body)[:300]}"
    result = body["result"]
    assert result.get("isError") is True, f"accepted: {json.dumps(body)[:300]}"
    error = result["structuredContent"]["error"]
    assert error["kind"] == "invalid_arguments", error
    assert error["code"] == -32602, error
    named = [e for e in error["errors"] if e["field"] == field or e["field"].startswith(f"{field}.")]
    assert named, f"no error names {field}: {error}"
    assert field in error["message"]
    text = result["content"][0]["text"]
    assert text.startswith(error["message"]), text[:300]
    if limit:
        assert any("limit" in e for e in named), f"no limit named for {field}: {named}"
        assert '"limit"' in text
    return dict(error)


def _assert_rpc_invalid_params(response: httpx2.Response, field: str) -> dict[str, Any]:
    """What is wrong with the request itself (no such tool) stays a JSON-RPC error."""
    assert response.status_code == 200, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == -32602, error
    assert any(e["field"] == field for e in error["data"]["errors"]), error
    return dict(error)


def test_the_table_is_what_tools_list_serves(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    response = _post(http, server.url, victim[1], {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    live = {tool["name"]: tool["inputSchema"] for tool in response.json()["result"]["tools"]}
    assert live == SCHEMAS
    assert len(TABLE) >= 10 * len(SCHEMAS)  # every tool contributes cases


@pytest.mark.parametrize(("tool", "field", "case"), TABLE)
def test_every_field_refuses_bad_values_naming_the_field(
    server: BackgroundServer,
    stack: LocalStack,
    http: httpx2.Client,
    victim: tuple[str, str],
    tool: str,
    field: str,
    case: BadCase,
) -> None:
    arguments = {**valid_arguments(SCHEMAS[tool]), field: case.value}
    response = _post(http, server.url, victim[1], _call(tool, arguments))
    if tool == "memory_write_batch" and case.label.startswith("item_"):
        _assert_item_error(response, "items.0", limit=case.limit)  # a bad item is that item's error
    else:
        _assert_invalid_params(response, field, limit=case.limit)
    assert _redis_keys(stack, victim[0]) == 0  # not queued (no status entry), no working memory


def _assert_item_error(response: httpx2.Response, field: str, *, limit: bool) -> None:
    """memory_write_batch answers a bad item in its result (the other items go on): the item's error
    object is what memory_write would answer, its fields named under ``items.<index>``."""
    result = response.json()["result"]
    assert not result.get("isError"), result
    (item,) = result["structuredContent"]["results"]
    assert item["status"] == "error", item
    error = item["error"]
    assert (error["kind"], error["code"], error["retryable"]) == ("invalid_arguments", -32602, False)
    named = [e for e in error["errors"] if e["field"] == field or e["field"].startswith(f"{field}.")]
    assert named, error
    assert field in error["message"]
    if limit:
        assert any("limit" in e for e in named), named


@pytest.mark.parametrize("tool", sorted(SCHEMAS))
def test_an_argument_the_tool_does_not_take_is_refused_by_name(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, victim: tuple[str, str], tool: str
) -> None:
    arguments = {**valid_arguments(SCHEMAS[tool]), "top-k": 5}
    error = _assert_invalid_params(_post(http, server.url, victim[1], _call(tool, arguments)), "top-k")
    assert "it takes:" in error["message"]
    assert _redis_keys(stack, victim[0]) == 0


def test_an_unknown_tool_is_a_json_rpc_invalid_params_error(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    error = _assert_rpc_invalid_params(_post(http, server.url, victim[1], _call("memory_wrte", {})), "name")
    assert "unknown tool" in error["message"]


def test_a_huge_body_of_valid_json_with_an_over_limit_field_is_refused_without_a_crash(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    # 3.9 MiB: under the transport's 4 MiB limit, so it reaches validation — the field is named.
    before = _queue_depths(stack)
    body = _call("memory_write", {"content": "x" * (39 * 1024 * 1024 // 10), "tags": ["ok"]})
    assert 3.8 * 2**20 < len(json.dumps(body)) < 4 * 2**20
    _assert_invalid_params(_post(http, server.url, victim[1], body), "content", limit=True)
    big_metadata = _call("memory_write", {"content": "ok", "metadata": {"blob": "y" * (39 * 2**20 // 10)}})
    _assert_invalid_params(_post(http, server.url, victim[1], big_metadata), "metadata", limit=True)
    assert _queue_depths(stack) == before


def _rpc_error(response: httpx2.Response, status: int, code: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert body["error"]["code"] == code, body
    return dict(body["error"])


def test_a_body_over_4_mib_is_413_naming_the_limit(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "' + b"a" * (4 * 2**20) + b'"}'
    error = _rpc_error(_post(http, server.url, victim[1], body), 413, -32600)
    assert error["data"]["limit"] == {"max_bytes": 4 * 2**20}


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
def test_a_batch_request_is_a_clear_400(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str], era: str
) -> None:
    batch = [_call("memory_write", {"content": "one"}, 1), _call("memory_write", {"content": "two"}, 2)]
    error = _rpc_error(
        _post(
            http, server.url, victim[1], b" \n" + json.dumps(batch).encode(), **{"mcp-protocol-version": era}
        ),
        400,
        -32600,
    )
    assert "Batch requests are not supported" in error["message"]


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""]
)
def test_a_wrong_content_type_is_415(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str], content_type: str
) -> None:
    body = json.dumps(_call("memory_write", {"content": "typed wrong"})).encode()
    error = _rpc_error(
        _post(http, server.url, victim[1], body, **{"content-type": content_type}), 415, -32600
    )
    assert "application/json" in error["message"]


def test_get_is_405_instead_of_an_open_stream(server: BackgroundServer, victim: tuple[str, str]) -> None:
    with httpx2.Client(timeout=5) as client:  # the SDK alone would hold this GET open until shutdown
        response = client.get(server.url, headers={**HEADERS, "authorization": f"Bearer {victim[1]}"})
    _rpc_error(response, 405, -32600)
    assert response.headers["allow"] == "POST"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_', -32700),
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":'
         + b"[" * 50_000 + b"]" * 50_000 + b"}}", -32602),
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":'
         b'{"query":"x\xff\xfe"}}}', -32700),
        (b'{"jsonrpc": "2.0", "id": 1}', -32600),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "memory_write"}', -32600),
        (b"[]", -32600),
        (b'"just a string"', -32600),
    ],
    ids=["garbage", "truncated", "deep", "bad_utf8", "no_method", "params_not_object",
         "empty_batch", "not_an_object"],
)  # fmt: skip
def test_malformed_json_rpc_is_a_4xx_error(
    server: BackgroundServer,
    stack: LocalStack,
    http: httpx2.Client,
    victim: tuple[str, str],
    body: bytes,
    code: int,
) -> None:
    before = _queue_depths(stack)
    _rpc_error(_post(http, server.url, victim[1], body), 400, code)
    assert _queue_depths(stack) == before


def test_arguments_that_are_not_an_object_are_invalid_params(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    error = _rpc_error(
        _post(http, server.url, victim[1], _call("memory_write", ["content", "x"])), 400, -32602
    )
    assert error["message"] == "Invalid params: params.arguments must be an object", error


def test_nothing_of_the_bad_input_tenant_was_queued_or_stored_anywhere(
    stack: LocalStack, victim: tuple[str, str], baseline: dict[str, int]
) -> None:
    # Runs after the cases above (file order): hundreds of refused calls queued no message and left no
    # row and no Redis key.
    assert _queue_depths(stack) == baseline
    assert _leftovers(stack, victim[0]) == {
        "memories": 0,
        "write_results": 0,
        "memory_history": 0,
        "memory_relations": 0,
        "redis keys": 0,
    }


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize(
    ("headers", "status", "field", "says"),
    [
        ({"host": "evil.example"}, 421, "host", "Misdirected Request: the Host header 'evil.example' is not"),
        (
            {"origin": "http://evil.example"},
            403,
            "origin",
            "Forbidden: the Origin header 'http://evil.example'",
        ),
    ],
    ids=["host", "origin"],
)
def test_a_refused_host_or_origin_is_a_json_rpc_error_naming_the_header(
    server: BackgroundServer,
    http: httpx2.Client,
    victim: tuple[str, str],
    era: str,
    headers: dict[str, str],
    status: int,
    field: str,
    says: str,
) -> None:
    # The SDK's DNS-rebinding check answered "Invalid Host header" / "Invalid Origin header" as text/plain.
    body = _call("memory_search", {"query": "tea"})
    response = _post(http, server.url, victim[1], body, **{"mcp-protocol-version": era, **headers})
    error = _rpc_error(response, status, -32600)
    assert response.json()["id"] is None
    assert error["message"].startswith(says), error
    assert "DNS-rebinding protection" in error["message"], error
    assert error["data"]["field"] == field, error
    assert "127.0.0.1:*" in " ".join(error["data"]["allowed"]), error


def test_the_host_check_ignores_case_and_names_a_missing_port(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    # DNS names are case-insensitive (RFC 4343): before, "LOCALHOST:<port>" was 421 like a foreign host.
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for host in (f"LOCALHOST:{server.port}", f"LocalHost:{server.port}"):
        response = _post(http, server.url, victim[1], listing, host=host)
        assert response.status_code == 200, (host, response.text[:300])
    # No port means port 80 (RFC 9110 §7.2): not this server, so still refused, saying why.
    error = _rpc_error(_post(http, server.url, victim[1], listing, host="localhost"), 421, -32600)
    assert f"(without a port: port 80; this server listens on {server.port})" in error["message"], error
    for host in ("EVIL.example", f"evil.example:{server.port}", f"LOCALHOST.evil.example:{server.port}"):
        response = _post(http, server.url, victim[1], listing, host=host)
        assert response.status_code == 421, (host, response.text[:300])


def test_an_allowed_origin_is_answered(
    server: BackgroundServer, http: httpx2.Client, victim: tuple[str, str]
) -> None:
    origin = f"http://127.0.0.1:{server.port}"
    response = _post(
        http, server.url, victim[1], {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, origin=origin
    )
    assert response.status_code == 200, response.text[:300]
