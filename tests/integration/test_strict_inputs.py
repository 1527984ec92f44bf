"""What a new user found feeding the tools odd input, over the real MCP endpoint (official client, both
protocol eras; raw HTTP where the client cannot send the value): numbers and booleans read strictly
(never guessed), a validity period that may run to the end of 2100, a valid_to that can be cleared
again, and error messages that say what is wrong."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx2
import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.schema_cases import non_null, resolve, tool_schemas, valid_arguments
from tests.support import PROTOCOL_ERAS, count_memories, drain, mcp_client, mint, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

LAX = [
    ("memory_search", {"query": "q"}, "top_k", True, "an integer from 1 to 100 (got a boolean)"),
    ("memory_search", {"query": "q"}, "top_k", "5", "an integer from 1 to 100 (got a string)"),
    (
        "memory_search",
        {"query": "q"},
        "top_k",
        5.0,
        "an integer from 1 to 100 (got a decimal number like 5.0)",
    ),
    ("memory_search", {"query": "q"}, "include_related", "true", "true or false (got a string)"),
    ("memory_search", {"query": "q"}, "min_importance", "0.5", "a number from 0 to 1 (got a string)"),
    ("memory_search", {"query": "q"}, "max_tokens", "500", "an integer from 100 to 200000 (got a string)"),
    ("memory_summarize", {"query": "q"}, "max_memories", True, "an integer from 1 to 50 (got a boolean)"),
    (
        "memory_get",
        {"id": "00000000-0000-4000-8000-000000000000"},
        "include_history",
        0,
        "true or false (got an integer)",
    ),
]


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> str:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


async def _found(client: Client, query: str, **args: Any) -> list[str]:
    hits = await call(client, "memory_search", {"query": query, **args})
    return [h["memory"]["id"] for h in hits["results"]]


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_number_or_boolean_that_would_be_guessed_is_refused_naming_field_and_type(
    server: BackgroundServer, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        for tool, base, field, value, expected in LAX:
            error = await tool_error(client, tool, {**base, field: value})
            assert error["kind"] == "invalid_arguments", (field, value, error)
            assert [e["field"] for e in error["errors"]] == [field], (field, value, error)
            # the type and the bounds it takes, so the retry can be right (trial: importance "high")
            assert f"{field}: must be {expected}" in error["message"], error
            assert "type" in error["errors"][0]["limit"], error
        # a JSON integer is a number: min_importance 1 is read as 1.0
        assert await call(client, "memory_search", {"query": "q", "min_importance": 1}) is not None


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_validity_period_may_run_to_the_end_of_2100(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        mid = await _stored(client, poller, content="The lease of the Oslo office runs for decades")
        for until in ("2100", "2100-12-31", "2101-01-01T00:00:00Z"):  # all: until the end of 2100
            updated = await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": until})
            assert updated["memory"]["valid_to"].startswith("2101-01-01T00:00:00"), (until, updated)
        assert mid in await _found(client, "Oslo office lease", valid_at="2100-12-31T23:59:59Z")
        for beyond in ("2101", "2101-01-01T00:00:01Z"):
            error = await tool_error(
                client, "memory_update", {"id": mid, "action": "update", "valid_to": beyond}
            )
            assert error["errors"][0]["field"] == "valid_to", error
            # the limit an end has: 2101-01-01T00:00:00Z itself is accepted above, so "at most", not "before"
            assert error["errors"][0]["limit"]["le"] == "2101-01-01T00:00:00Z", error
            assert "at most 2101-01-01T00:00:00Z (the end of 2100)" in error["message"], error
            assert "before 2101" not in error["message"], error
        error = await tool_error(client, "memory_update", {"id": mid, "action": "update", "valid_to": "2101"})
        assert "'2101' would end in 2102" in error["message"], error


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_valid_to_null_reopens_the_fact_and_leaving_it_out_keeps_it(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        mid = await _stored(client, poller, content="Priya leads the Lisbon data team")
        closed = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "valid_from": "2026-01", "valid_to": "2026-03"},
        )
        assert closed["memory"]["valid_to"].startswith("2026-04-01")
        assert mid not in await _found(client, "who leads the Lisbon data team", valid_at="2027-06")
        # leaving valid_to out keeps it
        tagged = await call(client, "memory_update", {"id": mid, "action": "update", "tags": ["team"]})
        assert tagged["memory"]["valid_to"].startswith("2026-04-01")
        # an explicit null clears it: a change like any other (version, history)
        reopened = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "valid_to": None, "reason": "still leads"},
        )
        assert reopened["memory"]["valid_to"] is None, reopened
        assert (reopened["memory"]["version"], reopened["replaced_version"]) == (4, 3)
        detail = await call(client, "memory_get", {"id": mid})
        change = detail["history"][-1]
        assert (change["action"], change["reason"]) == ("updated", "still leads"), change
        assert change["changes"]["valid_to"]["from"].startswith("2026-04-01")
        assert change["changes"]["valid_to"]["to"] is None
        # the point-in-time reads see it open now
        assert mid in await _found(client, "who leads the Lisbon data team", valid_at="2027-06")
        then = await call(client, "memory_get", {"id": mid, "valid_at": "2027-06"})
        assert then["memory"]["valid_to"] is None
        # and a second null changes nothing
        again = await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": None})
        assert again["memory"]["version"] == 4


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_an_update_to_the_values_a_memory_has_writes_no_history(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        mid = await _stored(client, poller, content="The Tromsø lease runs to the end of the century")
        first = await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": "2100-12-31"})
        assert (first["memory"]["version"], first["replaced_version"]) == (2, 1)
        # "2100" ends where "2100-12-31" does; the same tags and importance again: nothing to change
        for same in ({"valid_to": "2100"}, {"valid_to": "2101-01-01T00:00:00Z", "tags": []}):
            again = await call(client, "memory_update", {"id": mid, "action": "update", **same})
            assert (again["memory"]["version"], again["replaced_version"]) == (2, 2), (same, again)
        history = (await call(client, "memory_get", {"id": mid}))["history"]
        assert [h["action"] for h in history] == ["created", "updated"], history
        assert all(h["changes"] for h in history if h["action"] == "updated"), history


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_valid_from_null_is_refused_naming_it_not_ignored(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        mid = await _stored(client, poller, content="Ingrid runs the Bodø depot")
        dated = await call(
            client, "memory_update", {"id": mid, "action": "update", "valid_from": "1900", "valid_to": "2100"}
        )
        for args in ({"valid_from": None}, {"valid_to": None, "valid_from": None}):
            error = await tool_error(client, "memory_update", {"id": mid, "action": "update", **args})
            assert error["kind"] == "invalid_arguments", error
            assert [e["field"] for e in error["errors"]] == ["valid_from"], error
            assert "valid_from cannot be cleared" in error["message"], error
        # refused as a whole: valid_to is not cleared either, nothing recorded
        after = await call(client, "memory_get", {"id": mid})
        assert after["memory"]["version"] == dated["memory"]["version"], after
        assert after["memory"]["valid_from"].startswith("1900-01-01"), after
        assert after["memory"]["valid_to"].startswith("2101-01-01"), after
        assert len(after["history"]) == 2, after["history"]
        # leaving it out keeps it
        kept = await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": None})
        assert kept["memory"]["valid_from"].startswith("1900-01-01"), kept
        assert kept["memory"]["valid_to"] is None, kept


async def test_messages_say_what_is_wrong(server: BackgroundServer, poller: SqsPoller, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        # a relative range over its limit names the limit
        error = await tool_error(client, "memory_search", {"query": "q", "time_range": "last 99999 days"})
        assert error["errors"][0]["field"] == "time_range", error
        assert error["errors"][0]["limit"] == {"le": 9999}, error
        assert "9999" in error["message"], error
        # an empty window says so, not the same instant twice
        instant = "2026-11-24T10:00:00Z"
        error = await tool_error(client, "memory_search", {"query": "q", "since": instant, "until": instant})
        assert "the time window is empty" in error["message"], error
        assert error["message"].count("2026-11-24T10:00:00") == 1, error
        # the validity period's own rule, without pydantic's "Value error," in front
        mid = await _stored(client, poller, content="The Bergen office opens in spring")
        error = await tool_error(
            client,
            "memory_update",
            {"id": mid, "action": "update", "valid_from": "2026-05", "valid_to": "2026-04"},
        )
        assert "Value error" not in json.dumps(error), error
        assert "valid_to: the validity period is empty" in error["message"], error
        # working memory: 0 on an existing key, 1 on a missing one
        await call(client, "working_memory_set", {"session_id": "msg", "key": "plan", "content": "v1"})
        error = await tool_error(
            client,
            "working_memory_set",
            {"session_id": "msg", "key": "plan", "content": "v2", "expected_version": 0},
        )
        assert "exists, at version 1" in error["message"], error
        assert "expected_version=0 means 'only if it does not exist'" in error["message"], error
        assert "changed since you read it" not in error["message"], error
        error = await tool_error(
            client,
            "working_memory_set",
            {"session_id": "msg", "key": "absent", "content": "v", "expected_version": 1},
        )
        assert "does not exist" in error["message"], error
        assert "merge" not in error["message"], error


@pytest.mark.parametrize(
    ("tool", "base", "field"),
    [
        ("memory_write", {"content": "ok"}, "importance"),
        ("memory_search", {"query": "q"}, "min_importance"),
        ("working_memory_set", {"session_id": "s", "key": "k", "content": "c"}, "importance"),
        (
            "memory_link",
            {
                "from_id": "00000000-0000-4000-8000-000000000000",
                "to_id": "00000000-0000-4000-8000-000000000000",
                "kind": "related",
            },
            "strength",
        ),
    ],
)
def test_nan_is_not_a_number_between_0_and_1(
    server: BackgroundServer, token: str, tool: str, base: dict[str, Any], field: str
) -> None:
    # NaN is JSON's common extension (Python's json.dumps writes it); the official client sends null
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": {**base, field: float("nan")}},
    }
    response = httpx2.post(
        server.url,
        content=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {token}",
        },
        timeout=30,
    )
    result = response.json()["result"]
    assert result["isError"] is True, result
    error = result["structuredContent"]["error"]
    assert [e["field"] for e in error["errors"]] == [field], error
    assert "a number between 0 and 1" in error["message"], error
    assert error["errors"][0]["limit"] == {"ge": 0, "le": 1}, error


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_causal_parent_that_names_nothing_of_this_agent_is_refused(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str, mode: str
) -> None:
    unknown = str(uuid.uuid4())
    other_tenant = await mint(stack, f"{tenant}-x")
    async with mcp_client(server.url, other_tenant, mode) as client:
        foreign = await _stored(client, poller, content="Another tenant's deploy started", layer="episodic")
    async with mcp_client(server.url, token, mode) as client:
        mine = await _stored(client, poller, content="Deploy of billing v3 started", layer="episodic")
        theirs = await _stored(
            client, poller, content="The planner's deploy started", layer="episodic", agent_id="planner"
        )
        before = count_memories(stack, tenant)
        for parent in (unknown, foreign, theirs):  # never written, another tenant's, another agent's
            error = await tool_error(
                client,
                "memory_write",
                {"content": "Deploy finished", "layer": "episodic", "causal_parent": parent},
            )
            assert error["kind"] == "invalid_arguments", error
            assert [e["field"] for e in error["errors"]] == ["causal_parent"], error
            assert f"no memory or write of this agent has the id {parent}" in error["message"], error
        batch = await call(
            client,
            "memory_write_batch",
            {
                "items": [
                    {"content": "Deploy finished", "layer": "episodic", "causal_parent": unknown},
                    {"content": "Deploy verified", "layer": "episodic", "causal_parent": mine},
                ]
            },
        )
        assert [r["status"] for r in batch["results"]] == ["error", "queued"], batch
        assert batch["results"][0]["error"]["errors"][0]["field"] == "items.0.causal_parent", batch
        # a parent still queued is accepted (the worker links it when it is stored), a stored one too
        queued = (await call(client, "memory_write", {"content": "Rollback started", "layer": "episodic"}))[
            "id"
        ]
        child = (
            await call(
                client,
                "memory_write",
                {"content": "Rollback finished", "layer": "episodic", "causal_parent": queued},
            )
        )["id"]
        await drain(poller)
        assert count_memories(stack, tenant) == before + 3  # the batch's valid item, the rollback pair
        got = await call(client, "memory_get", {"id": child})
        assert got["memory"]["causal_parent"] == queued
        verified = next(r["id"] for r in batch["results"] if r["status"] == "queued")
        assert (await call(client, "memory_get", {"id": verified}))["memory"]["causal_parent"] == mine


_SCHEMAS = tool_schemas()
TEXT_FIELDS = [
    (tool, field)
    for tool, schema in _SCHEMAS.items()
    for field, field_schema in schema.get("properties", {}).items()
    if resolve(non_null(field_schema), schema.get("$defs")).get("minLength", 0) >= 1
]


def test_a_whitespace_only_text_is_refused_as_blank_not_as_too_short(
    unlimited_server: BackgroundServer, stack: LocalStack
) -> None:
    # Before, "   " read "String should have at least 1 character": the field strips whitespace first.
    token = stack.mint_token("t-blank-input")
    http = httpx2.Client(timeout=30)  # closed at the end; a failed assertion leaves it to the GC
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "authorization": f"Bearer {token}",
    }

    def answer(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        }
        result: dict[str, Any] = http.post(unlimited_server.url, json=body, headers=headers).json()["result"]
        return result

    blank: list[str] = []
    for tool, field in TEXT_FIELDS:
        arguments = {**valid_arguments(_SCHEMAS[tool]), field: "   "}
        result = answer(tool, arguments)
        if not result.get("isError"):
            continue  # a field that keeps whitespace (an opaque id) may take it
        errors = [e for e in result["structuredContent"]["error"]["errors"] if e["field"] == field]
        assert all("at least 1 character" not in e["message"] for e in errors), (tool, errors)
        blank += [f"{tool}.{field}" for e in errors if e["type"] == "blank"]
    assert {"memory_write.content", "memory_write.key", "memory_search.query"} <= set(blank), blank
    item = {"items": [{"content": "   "}, {"content": "fine, and not blank"}]}
    result = answer("memory_write_batch", item)
    http.close()
    (error,) = result["structuredContent"]["results"][0]["error"]["errors"]
    assert error == {
        "field": "items.0.content",
        "message": "must not be blank (it is whitespace only)",
        "type": "blank",
    }, error
