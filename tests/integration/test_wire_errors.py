"""Wire-level errors over real HTTP, in both protocol eras (2025-11-25 and the stateless 2026-07-28):
a number too long for Python's int-digit limit (4300), a string with an unpaired UTF-16 surrogate and
a malformed JSON-RPC envelope (``api.request_body``).

Such a number or string in a ``tools/call``'s arguments is valid JSON: the call's ``isError`` result
names the argument (SEP-1303), as for any out-of-range value. Elsewhere, and for a malformed envelope,
a JSON-RPC error names the member and what it must be — never pydantic's dump, never the caller's values.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack

pytestmark = pytest.mark.integration
ERAS = ["2025-11-25", "2026-07-28"]
LONG = "9" * 5_000
"""A number of 5000 digits: past the 4300 of ``sys.get_int_max_str_digits()``."""
SECRET = "hunter2"


@pytest.fixture(scope="module")
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def token(stack: LocalStack) -> str:
    return stack.mint_token("t-wire-errors")


def _message(era: str, method: Any, params: Any, rpc_id: Any = 1) -> dict[str, Any]:
    """A request as a client of ``era`` sends it (2026-07-28: the envelope's ``_meta`` in params)."""
    if era == "2026-07-28" and isinstance(params, dict):
        params = {
            **params,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": era,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        }
    return {"jsonrpc": "2.0", "id": rpc_id, "method": method, "params": params}


def _post(
    http: httpx2.Client,
    server: BackgroundServer,
    token: str,
    era: str,
    body: Any,
    number: str = LONG,
    extra_headers: dict[str, str] | None = None,
    drop_version: bool = False,
    drop_headers: tuple[str, ...] = (),
) -> httpx2.Response:
    """POST ``body`` (JSON; its string ``"@N@"`` becomes ``number``, unquoted) with ``era``'s headers
    (then ``extra_headers``; without MCP-Protocol-Version when ``drop_version``, without any of
    ``drop_headers``)."""
    raw = body if isinstance(body, bytes) else json.dumps(body).replace('"@N@"', number).encode()
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {token}",
        "mcp-protocol-version": era,
    }
    message = body
    if isinstance(body, bytes):  # the headers a client sends name the method and tool of what it sends
        method = re.search(rb'"method": ?"([^"]*)"', body)
        name = re.search(rb'"name": ?"([^"]*)"', body)
        message = {
            "method": method.group(1).decode() if method else None,
            "params": {"name": name.group(1).decode()} if name else {},
        }
    if era == "2026-07-28" and isinstance(message, dict):
        headers["mcp-method"] = str(message.get("method"))
        params = message.get("params")
        if isinstance(params, dict) and isinstance(params.get("name"), str):
            headers["mcp-name"] = params["name"]
    headers.update(extra_headers or {})
    if drop_version:
        del headers["mcp-protocol-version"]
    for name in drop_headers:
        del headers[name]
    return http.post(server.url, content=raw, headers=headers)


def _tool_error(response: httpx2.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text[:300]
    body = response.json()
    assert "result" in body, f"a JSON-RPC error, not a result the model can read: {response.text[:300]}"
    assert body["result"].get("isError") is True, response.text[:300]
    assert body["result"]["content"][0]["text"].startswith(
        body["result"]["structuredContent"]["error"]["message"]
    )
    return dict(body["result"]["structuredContent"]["error"])


def _rpc_error(response: httpx2.Response, code: int) -> dict[str, Any]:
    assert response.status_code == 400, (response.status_code, response.text[:300])
    body = response.json()
    assert body["jsonrpc"] == "2.0"
    assert "result" not in body, response.text[:300]
    assert body["error"]["code"] == code, body
    for leak in (SECRET, "pydantic", "validation error", "input_value", "9" * 50):
        assert leak not in response.text.lower(), f"{leak!r} in {response.text[:300]}"
    return dict(body["error"])


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("tool", "arguments", "field", "number"),
    [
        ("memory_search", {"query": "x", "top_k": "@N@"}, "top_k", LONG),
        ("memory_search", {"query": "x", "top_k": "@N@"}, "top_k", "-" + LONG),
        ("memory_search", {"query": "x", "top_k": "@N@"}, "top_k", LONG + ".5"),
        ("memory_write", {"content": "x", "turn_index": "@N@"}, "turn_index", LONG),
        (
            "memory_update",
            {"id": str(uuid.UUID(int=1)), "action": "update", "expected_version": "@N@"},
            "expected_version",
            LONG,
        ),
    ],
    ids=["top_k", "negative", "float", "turn_index", "expected_version"],
)
def test_an_over_long_number_in_the_arguments_is_an_is_error_result_naming_the_argument(
    server: BackgroundServer,
    http: httpx2.Client,
    token: str,
    era: str,
    tool: str,
    arguments: dict[str, Any],
    field: str,
    number: str,
) -> None:
    body = _message(era, "tools/call", {"name": tool, "arguments": arguments}, rpc_id=41)
    response = _post(http, server, token, era, body, number)
    assert response.json()["id"] == 41
    error = _tool_error(response)
    assert error["kind"] == "invalid_arguments", error
    assert error["code"] == -32602, error
    assert [e["field"] for e in error["errors"]] == [field], error
    assert error["errors"][0]["limit"] == {"max_digits": 4300}, error
    assert f"{field}: number out of range" in error["message"], error
    assert "9" * 50 not in response.text


@pytest.mark.parametrize("era", ERAS)
def test_numbers_within_the_digit_limit_reach_the_tool_as_before(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str
) -> None:
    arguments = {"query": "x", "top_k": "@N@"}
    at_limit = _post(
        http,
        server,
        token,
        era,
        _message(era, "tools/call", {"name": "memory_search", "arguments": arguments}),
        "9" * 4300,
    )
    error = _tool_error(at_limit)
    assert error["errors"][0]["field"] == "top_k", error
    assert error["errors"][0]["limit"] == {"le": 100}, error
    fine = _post(
        http,
        server,
        token,
        era,
        _message(era, "tools/call", {"name": "memory_search", "arguments": arguments}),
        "3",
    )
    assert fine.status_code == 200, fine.text[:300]
    assert fine.json()["result"].get("isError") is False, fine.text[:300]


@pytest.mark.parametrize("era", ERAS)
def test_an_over_long_number_outside_the_arguments_is_a_json_rpc_error_naming_where(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str
) -> None:
    error = _rpc_error(_post(http, server, token, era, _message(era, "tools/list", {}, rpc_id="@N@")), -32600)
    assert error["data"] == {"field": "id"}, error
    assert error["message"] == "Invalid Request: id: number out of range: more than 4300 digits", error
    listing = _post(http, server, token, era, _message(era, "tools/list", {"cursor": "@N@"}))
    error = _rpc_error(listing, -32600)
    assert error["data"] == {"field": "params.cursor"}, error
    assert "params.cursor: number out of range: more than 4300 digits" in error["message"], error
    assert listing.json()["id"] == 1


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("body", "field", "says"),
    [
        (b'"hello"', "body", "the body must be a JSON-RPC request object"),
        (b"5", "body", "the body must be a JSON-RPC request object"),
        (
            {"jsonrpc": "2.0", "id": 7, "method": 5, "params": {"note": f"password: {SECRET}"}},
            "method",
            "method must be a string",
        ),
        (
            {"jsonrpc": "1.0", "id": 7, "method": "tools/list", "params": {"note": SECRET}},
            "jsonrpc",
            'jsonrpc must be "2.0"',
        ),
        ({"id": 7, "method": "tools/list"}, "jsonrpc", 'jsonrpc must be "2.0"'),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": f"{SECRET}-secret"},
            "params",
            "params must be an object",
        ),
        ({"jsonrpc": "2.0", "id": 1, "params": {"note": SECRET}}, "method", "method is required"),
        (
            {"jsonrpc": "2.0", "id": [SECRET], "method": "tools/list"},
            "id",
            "id must be a string or an integer",
        ),
    ],
    ids=[
        "string",
        "number",
        "method_not_string",
        "jsonrpc_1",
        "no_jsonrpc",
        "params_not_object",
        "no_method",
        "id_list",
    ],
)
def test_a_malformed_envelope_is_invalid_request_naming_the_member(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str, body: Any, field: str, says: str
) -> None:
    error = _rpc_error(_post(http, server, token, era, body), -32600)
    assert error["message"] == f"Invalid Request: {says}" or error["message"].startswith(
        f"Invalid Request: {says}"
    )
    assert error["data"] == {"field": field}, error


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("params", "field", "says"),
    [
        ({"name": 5, "arguments": {"query": SECRET}}, "params.name", "params.name must be a string"),
        ({"arguments": {"query": SECRET}}, "params.name", "params.name is required"),
        (
            {"name": "memory_search", "arguments": [1, SECRET]},
            "params.arguments",
            "params.arguments must be an object",
        ),
        (
            {"name": "memory_search", "arguments": SECRET},
            "params.arguments",
            "params.arguments must be an object",
        ),
    ],
    ids=["name_number", "no_name", "arguments_list", "arguments_string"],
)
def test_a_tools_call_without_a_name_or_with_arguments_not_an_object_names_the_param(
    server: BackgroundServer,
    http: httpx2.Client,
    token: str,
    era: str,
    params: dict[str, Any],
    field: str,
    says: str,
) -> None:
    response = _post(http, server, token, era, _message(era, "tools/call", params, rpc_id="call-9"))
    error = _rpc_error(response, -32602)
    assert error["message"].startswith(f"Invalid params: {says}"), error
    assert error["data"] == {"field": field}, error
    assert response.json()["id"] == "call-9"


def _queued_writes(stack: LocalStack, tenant: str) -> int:
    """Queued-status keys of a tenant: a write the tool accepted leaves one at once."""
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:
        return sum(1 for _ in client.scan_iter(match=f"hs:op:{tenant}:*", count=1000))
    finally:
        client.close()


def _with_raw_string(body: dict[str, Any], raw: str) -> bytes:
    """``body`` as JSON, its string ``"@S@"`` replaced by ``raw`` (JSON text, e.g. ``"ab\\ud800"``)."""
    return json.dumps(body).replace('"@S@"', raw).encode()


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("memory_write", {"content": "@S@"}, "content"),
        ("memory_write", {"content": "ok", "metadata": {"note": "@S@"}}, "metadata.note"),
        ("memory_search", {"query": "@S@"}, "query"),
    ],
    ids=["content", "metadata_value", "query"],
)
def test_a_lone_surrogate_in_an_argument_is_an_is_error_result_naming_the_field_and_position(
    server: BackgroundServer,
    stack: LocalStack,
    http: httpx2.Client,
    era: str,
    tool: str,
    arguments: dict[str, Any],
    field: str,
) -> None:
    # Valid JSON (RFC 8259 leaves a lone surrogate escape to the reader) but not Unicode: the SDK's parser
    # refused the body (-32700 "unexpected end of hex escape", 2025-11-25) or named ``arguments`` (2026).
    tenant = f"t-wire-{uuid.uuid4().hex[:8]}"
    body = _message(era, "tools/call", {"name": tool, "arguments": arguments}, rpc_id=8)
    response = _post(http, server, stack.mint_token(tenant), era, _with_raw_string(body, '"abc\\ud800def"'))
    assert response.json()["id"] == 8
    error = _tool_error(response)
    assert error["kind"] == "invalid_arguments", error
    assert error["errors"] == [
        {
            "field": field,
            "message": "invalid Unicode: unpaired surrogate \\ud800 at position 3 (characters, from 0)",
            "type": "unpaired_surrogate",
        }
    ], error
    assert error["message"].startswith(f"Invalid arguments: {field}: invalid Unicode"), error
    assert _queued_writes(stack, tenant) == 0


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("repeat", ['"hard": true', '"h\\u0061rd": true'], ids=["plain", "escaped"])
def test_an_argument_given_twice_is_refused_naming_it_and_nothing_is_deleted(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, era: str, repeat: str
) -> None:
    # pydantic_core (the SDK's parser) keeps the last of a repeated member: '"hard": false, "hard": true'
    # hard-deleted without a word, a destructive flag read from a value the caller may not have meant
    tenant = f"t-wire-{uuid.uuid4().hex[:8]}"
    arguments = {"id": str(uuid.uuid4()), "hard": False, "reason": "@S@"}
    body = _message(era, "tools/call", {"name": "memory_forget", "arguments": arguments}, rpc_id=9)
    raw = _with_raw_string(body, f'"tidy up", {repeat}')
    error = _tool_error(_post(http, server, stack.mint_token(tenant), era, raw))
    assert error["kind"] == "invalid_arguments", error
    assert [(e["field"], e["type"]) for e in error["errors"]] == [("hard", "duplicate_member")], error
    assert error["message"].startswith("Invalid arguments: hard: given more than once"), error
    # the same member name in two different objects is no repeat: the call reaches the tool
    write = {"content": "Alice reports to Bob", "metadata": {"content": "a note"}}
    answer = _post(
        http,
        server,
        stack.mint_token(tenant),
        era,
        _message(era, "tools/call", {"name": "memory_write", "arguments": write}),
    )
    assert answer.json()["result"].get("isError") is not True, answer.text[:300]
    listing = _with_raw_string(_message(era, "tools/list", {"cursor": "@S@"}), '"a", "cursor": "b"')
    error = _rpc_error(_post(http, server, stack.mint_token(tenant), era, listing), -32600)
    assert error["data"] == {"field": "params.cursor"}, error


@pytest.mark.parametrize("era", ERAS)
def test_a_lone_surrogate_in_a_member_name_or_outside_the_arguments_is_named(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, token: str, era: str
) -> None:
    body = _message(
        era, "tools/call", {"name": "memory_write", "arguments": {"content": "ok", "metadata": {}}}
    )
    raw = json.dumps(body).replace('"metadata": {}', '"metadata": {"k\\udc00": 1}').encode()
    error = _tool_error(_post(http, server, token, era, raw))
    assert [e["field"] for e in error["errors"]] == ["metadata.k\\udc00"], error
    assert error["errors"][0]["message"].startswith("member name: invalid Unicode: unpaired surrogate"), error
    listing = _message(era, "tools/list", {"cursor": "@S@"})
    error = _rpc_error(_post(http, server, token, era, _with_raw_string(listing, '"\\udfff"')), -32600)
    assert error["data"] == {"field": "params.cursor"}, error
    assert "params.cursor: invalid Unicode: unpaired surrogate \\udfff at position 0" in error["message"]


@pytest.mark.parametrize("era", ERAS)
@given(text=st.text(max_size=40), at=st.integers(min_value=0, max_value=40), code=st.integers(0xD800, 0xDFFF))
@settings(
    max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_unpaired_surrogate_anywhere_in_content_is_named_with_its_position(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str, text: str, at: int, code: int
) -> None:
    at = min(at, len(text))
    escaped = json.dumps(text[:at])[1:-1] + f"\\u{code:04x}" + json.dumps(text[at:])[1:-1]
    body = _message(era, "tools/call", {"name": "memory_write", "arguments": {"content": "@S@"}})
    error = _tool_error(_post(http, server, token, era, _with_raw_string(body, f'"{escaped}"')))
    (detail,) = error["errors"]
    assert detail["field"] == "content", error
    assert detail["message"] == (
        f"invalid Unicode: unpaired surrogate \\u{code:04x} at position {at} (characters, from 0)"
    ), error


def _nested(depth: int, leaf: str = "x") -> str:
    """JSON text nesting ``depth`` containers (objects and lists in turn) around ``leaf``."""
    opens = "".join('{"k":' if i % 2 else "[" for i in range(depth))
    closes = "".join("}" if i % 2 else "]" for i in reversed(range(depth)))
    return f'{opens}"{leaf}"{closes}'


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("depth", [6, 60, 130, 200, 260, 1_000, 50_000])
def test_metadata_nested_at_any_depth_is_refused_naming_metadata_and_its_limit(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, era: str, depth: int
) -> None:
    # Past ~200 levels the SDK's parsers answered instead: -32700 "recursion limit exceeded" (2025-11-25)
    # or an isError naming "arguments" (2026-07-28); past ~1000, -32700 in both.
    tenant = f"t-wire-{uuid.uuid4().hex[:8]}"
    body = _message(
        era, "tools/call", {"name": "memory_write", "arguments": {"content": "x", "metadata": {}}}
    )
    raw = json.dumps(body).replace('"metadata": {}', f'"metadata": {{"a": {_nested(depth)}}}').encode()
    error = _tool_error(_post(http, server, stack.mint_token(tenant), era, raw))
    (detail,) = error["errors"]
    assert detail["field"] == "metadata", error
    assert detail["limit"] == {"max_depth": 5}, error
    # one type and one wording whichever reader found it (pydantic below 64 levels, the body reader past):
    # the type was metadata_too_deep below, too_deep past; the field was named twice, "metadata: metadata …"
    assert detail["type"] == "too_deep", error
    assert detail["message"] == f"nests {depth + 1} levels deep; the limit is 5", error
    assert error["message"] == f"Invalid arguments: metadata: nests {depth + 1} levels deep; the limit is 5"
    assert _queued_writes(stack, tenant) == 0


@pytest.mark.parametrize("era", ERAS)
def test_a_deep_value_is_named_after_the_argument_the_schema_gives_it(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str
) -> None:
    for arguments, field, message in [
        ({"content": "@D@"}, "content", "nests 3000 levels deep; it takes no object or array (limit 0)"),
        (
            {"query": "x", "tags": ["@D@"]},
            "tags.0",
            "nests 3000 levels deep; it takes no object or array (limit 0)",
        ),
    ]:
        tool = "memory_write" if "content" in arguments else "memory_search"
        body = _message(era, "tools/call", {"name": tool, "arguments": arguments})
        error = _tool_error(
            _post(
                http,
                server,
                token,
                era,
                json.dumps(body).replace('"@D@"', _nested(3000)).encode(),
            )
        )
        assert [(e["field"], e["message"]) for e in error["errors"]] == [(field, message)], error
        assert error["message"] == f"Invalid arguments: {field}: {message}", error


@pytest.mark.parametrize("era", ERAS)
def test_a_body_nested_too_deep_outside_the_arguments_is_invalid_request_naming_where(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str
) -> None:
    listing = json.dumps(_message(era, "tools/list", {"cursor": "@D@"})).replace('"@D@"', _nested(500))
    error = _rpc_error(_post(http, server, token, era, listing.encode()), -32600)
    assert (
        error["message"]
        == "Invalid Request: the body nests 502 levels deep at params.cursor.0.k.0.k.…; the limit is 64"
    ), error
    assert error["data"] == {"field": "params.cursor.0.k.0.k.…"}, error


@pytest.mark.parametrize("era", ERAS)
@given(depth=st.integers(min_value=5, max_value=3_000), leaf=st.text(max_size=5))
@settings(
    max_examples=10, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_nesting_of_metadata_past_its_limit_names_the_depth(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str, depth: int, leaf: str
) -> None:
    body = _message(
        era, "tools/call", {"name": "memory_write", "arguments": {"content": "x", "metadata": {}}}
    )
    inner = _nested(depth, json.dumps(leaf)[1:-1])
    raw = json.dumps(body).replace('"metadata": {}', f'"metadata": {{"a": {inner}}}').encode()
    error = _tool_error(_post(http, server, token, era, raw))
    (detail,) = error["errors"]
    assert (detail["field"], detail["limit"]) == ("metadata", {"max_depth": 5}), error
    assert detail["message"].startswith(f"nests {depth + 1} levels deep"), error


def test_a_refused_value_stays_with_its_own_call(stack: LocalStack, http: httpx2.Client) -> None:
    # A fresh server: a draft carried the refusal in a context variable set around the call; after a
    # 2026-07-28 refusal of a deep value the SDK ran every later call, in either era, in a context that
    # still held it, and refused it with the old error.
    server = BackgroundServer(stack.require_settings()).start()
    try:
        token = stack.mint_token(f"t-wire-{uuid.uuid4().hex[:8]}")
        for era in ERAS:
            body = _message(era, "tools/call", {"name": "memory_write", "arguments": {"content": "@D@"}})
            _tool_error(
                _post(http, server, token, era, json.dumps(body).replace('"@D@"', _nested(50_000)).encode())
            )
        for era in ERAS:
            body = _message(era, "tools/call", {"name": "memory_write", "arguments": {"content": "kept"}})
            response = _post(http, server, token, era, body)
            assert response.json()["result"].get("isError") is False, response.text[:300]
    finally:
        server.stop()


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {},
    "clientInfo": {"name": "wire-test", "version": "0"},
}


@pytest.mark.parametrize(
    ("method", "params", "header"),
    [
        ("initialize", INITIALIZE, "2099-01-01"),
        ("tools/list", {}, "2099-01-01"),
        ("tools/call", {"name": "memory_search", "arguments": {"query": "tea"}}, "not a version"),
        ("tools/list", {}, "x" * 500),
    ],
    ids=["initialize", "tools_list", "tools_call", "long_value"],
)
def test_a_2025_era_request_with_an_unsupported_version_header_is_told_about_the_header(
    server: BackgroundServer,
    http: httpx2.Client,
    token: str,
    method: str,
    params: dict[str, Any],
    header: str,
) -> None:
    # The SDK took any unknown header for a 2026-07-28 request and answered about that era's _meta
    # envelope ("params._meta must be an object carrying …"), which a 2025-era client never sends.
    body = {"jsonrpc": "2.0", "id": 3, "method": method, "params": params}
    response = _post(http, server, token, "2025-11-25", body, extra_headers={"mcp-protocol-version": header})
    error = _rpc_error(response, -32600)
    shown = header if len(header) <= 64 else header[:64] + "…"
    quoted = repr(header) if len(header) <= 64 else f"{header[:64]!r}… ({len(header)} characters)"
    assert error["message"].startswith(f"Bad Request: unsupported MCP-Protocol-Version header {quoted}; ")
    for version in ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"):
        assert version in error["message"], error
    assert error["data"] == {
        "field": "mcp-protocol-version",
        "requested": shown,
        "supported": ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"],
    }, error
    assert response.json()["id"] == 3
    assert "must be an object carrying" not in error["message"]


def test_a_2026_era_request_with_a_mismatched_version_header_keeps_that_era_s_answer(
    server: BackgroundServer, http: httpx2.Client, token: str
) -> None:
    body = _message("2026-07-28", "tools/list", {})
    response = _post(
        http, server, token, "2026-07-28", body, extra_headers={"mcp-protocol-version": "2099-01-01"}
    )
    assert response.status_code == 400, response.text[:300]
    error = response.json()["error"]
    assert error["code"] == -32020, error  # the SDK's HEADER_MISMATCH: names the header and the envelope
    assert "mcp-protocol-version header" in error["message"], error


@pytest.mark.parametrize("header", ["2025-11-25", "2025-06-18"])
def test_a_2026_envelope_under_a_2025_era_version_header_is_a_mismatch(
    server: BackgroundServer, http: httpx2.Client, token: str, header: str
) -> None:
    # A new-user trial: the SDK routes by the header, so this was answered 200 as a 2025-era request and
    # the envelope was ignored; the header and the envelope disagree, which the 2026 era refuses.
    body = _message("2026-07-28", "tools/list", {})
    response = _post(http, server, token, "2026-07-28", body, extra_headers={"mcp-protocol-version": header})
    error = _rpc_error(response, -32020)
    assert error["message"].startswith(
        f"Bad Request: the mcp-protocol-version header '{header}' does not match params._meta's protocol "
        "version ('2026-07-28')"
    ), error
    assert error["data"] == {"field": "mcp-protocol-version"}, error
    assert response.json()["id"] == body["id"], response.text[:300]


_SEARCH_CALL = {"name": "memory_search", "arguments": {"query": "x"}}


@pytest.mark.parametrize(
    ("method", "params", "header", "sent"),
    [
        ("tools/list", {}, "mcp-protocol-version", "params._meta's protocol version ('2026-07-28')"),
        ("tools/list", {}, "mcp-method", "the request's method ('tools/list')"),
        ("tools/call", _SEARCH_CALL, "mcp-method", "('tools/call')"),
        ("tools/call", _SEARCH_CALL, "mcp-name", "the request's params.name ('memory_search')"),
    ],
)
def test_a_2026_era_request_without_a_routing_header_is_told_it_is_missing(
    server: BackgroundServer,
    http: httpx2.Client,
    token: str,
    method: str,
    params: dict[str, Any],
    header: str,
    sent: str,
) -> None:
    # A new-user trial: a missing Mcp-Method header was answered "mcp-method header does not match the
    # request body's method", which reads as a wrong value.
    body = _message("2026-07-28", method, params)
    response = _post(http, server, token, "2026-07-28", body, drop_headers=(header,))
    error = _rpc_error(response, -32020)  # the SDK's HEADER_MISMATCH code, kept for clients that know it
    assert error["message"].startswith(f"Bad Request: the {header} header is missing; "), error
    assert sent in error["message"], error
    assert "does not match" not in error["message"], error
    assert error["data"] == {"field": header}, error


def test_a_2026_era_request_whose_method_header_names_another_method_is_told_it_does_not_match(
    server: BackgroundServer, http: httpx2.Client, token: str
) -> None:
    # A new-user trial: Mcp-Method tools/list over a tools/call body (no Mcp-Name, as for a listing) was
    # told "the mcp-name header is missing": the method is what is wrong.
    body = _message("2026-07-28", "tools/call", _SEARCH_CALL)
    headers = {"mcp-method": "tools/list"}
    response = _post(
        http, server, token, "2026-07-28", body, extra_headers=headers, drop_headers=("mcp-name",)
    )
    error = _rpc_error(response, -32020)
    assert "mcp-method header does not match the request body's method" in error["message"], error
    assert "missing" not in error["message"], error


@pytest.mark.parametrize("header", [None, "2025-06-18", "2025-11-25"])
def test_a_2025_era_request_with_a_served_or_no_version_header_is_answered(
    server: BackgroundServer, http: httpx2.Client, token: str, header: str | None
) -> None:
    body = {"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {}}
    extra = {} if header is None else {"mcp-protocol-version": header}
    response = _post(
        http, server, token, "2025-11-25", body, extra_headers=extra, drop_version=header is None
    )
    assert response.status_code == 200, response.text[:300]
    assert response.json()["result"]["tools"], response.text[:300]


def _batch(response: httpx2.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text[:300]
    result = response.json()["result"]
    assert not result.get("isError"), response.text[:500]
    return dict(result["structuredContent"])


@pytest.mark.parametrize("era", ERAS)
def test_a_value_unreadable_inside_one_batch_item_is_that_item_s_error_and_the_others_are_queued(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, era: str
) -> None:
    # Before, the first such value refused the whole batch ("Invalid arguments: items.1.content: …"),
    # nothing queued, though docs/tools.md says an invalid item does not stop the others.
    tenant = f"t-wire-{uuid.uuid4().hex[:8]}"
    items = [
        {"content": "fine"},
        {"content": "@S1@"},
        {"content": "long", "turn_index": "@N@", "conversation_id": "c"},
        {"content": "named", "metadata": {"@K@": 1}},
        {"content": "deep", "metadata": "@D@"},
        "@D@",
        {"content": "twice @S1@", "metadata": {"a": "@S1@"}},
        {"content": "also fine"},
    ]
    raw = (
        json.dumps(_message(era, "tools/call", {"name": "memory_write_batch", "arguments": {"items": items}}))
        .replace('"@S1@"', '"bad \\ud800"')
        .replace('"@N@"', LONG)
        .replace('"@K@"', '"k\\udc00"')
        .replace('"@D@"', _nested(100))
        .encode()
    )
    raw = raw.replace(b'"twice @S1@"', b'"twice \\ud800"')
    result = _batch(_post(http, server, stack.mint_token(tenant), era, raw))
    assert (result["queued"], result["errors"]) == (2, 6), result
    statuses = [r["status"] for r in result["results"]]
    assert statuses == ["queued", "error", "error", "error", "error", "error", "error", "queued"], result
    errors = {r["index"]: r["error"] for r in result["results"] if r["status"] == "error"}
    for error in errors.values():
        assert error["kind"] == "invalid_arguments", error
        assert error["retryable"] is False, error
        assert error["message"].startswith("Invalid arguments: items."), error
    fields = {i: [(e["field"], e["type"]) for e in error["errors"]] for i, error in errors.items()}
    assert fields == {
        1: [("items.1.content", "unpaired_surrogate")],
        2: [("items.2.turn_index", "number_too_long")],
        3: [("items.3.metadata.k\\udc00", "unpaired_surrogate")],
        4: [("items.4.metadata", "too_deep")],
        5: [("items.5", "too_deep")],
        6: [("items.6.content", "unpaired_surrogate"), ("items.6.metadata.a", "unpaired_surrogate")],
    }, fields
    assert errors[1]["message"] == (
        "Invalid arguments: items.1.content: invalid Unicode: unpaired surrogate \\ud800 at position 4 "
        "(characters, from 0)"
    ), errors[1]
    assert errors[4]["errors"][0]["limit"] == {"max_depth": 5}, errors[4]
    assert all(r["id"] for r in result["results"] if r["status"] == "queued"), result


@pytest.mark.parametrize("era", ERAS)
def test_problems_outside_the_items_refuse_the_call_naming_every_one(
    server: BackgroundServer, stack: LocalStack, http: httpx2.Client, era: str
) -> None:
    tenant = f"t-wire-{uuid.uuid4().hex[:8]}"
    arguments = {"items": [{"content": "fine"}], "agent_id": "@S@", "colour": "red"}
    body = _message(era, "tools/call", {"name": "memory_write_batch", "arguments": arguments})
    error = _tool_error(
        _post(http, server, stack.mint_token(tenant), era, _with_raw_string(body, '"a\\ud800"'))
    )
    assert [(e["field"], e["type"]) for e in error["errors"]] == [
        ("agent_id", "unpaired_surrogate"),
        ("colour", "unexpected_argument"),
    ], error
    assert _queued_writes(stack, tenant) == 0
    # an unreadable value and a value the tool's model refuses: both named, the stand-in's error not
    search = {"query": "@S@", "top_k": 0, "layer": "nope"}
    body = _message(era, "tools/call", {"name": "memory_search", "arguments": search})
    error = _tool_error(
        _post(http, server, stack.mint_token(tenant), era, _with_raw_string(body, '"\\ud800"'))
    )
    assert [e["field"] for e in error["errors"]] == ["query", "top_k", "layer"], error
    assert error["message"].count(";") == 2, error


@pytest.mark.parametrize("era", ERAS)
def test_invalid_json_is_a_parse_error_saying_where_in_both_eras(
    server: BackgroundServer, http: httpx2.Client, token: str, era: str
) -> None:
    # Before, the 2026-07-28 era answered a bare "Parse error"; the 2025 one said where the parser stopped.
    truncated = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "memory_search"'
    error = _rpc_error(_post(http, server, token, era, truncated), -32700)
    assert error["message"] == "Parse error: EOF while parsing an object at line 1 column 86", error
    error = _rpc_error(
        _post(http, server, token, era, b'{"jsonrpc": "2.0", "id": 1, "method": tools}'), -32700
    )
    assert error["message"] == "Parse error: expected ident at line 1 column 40", error
