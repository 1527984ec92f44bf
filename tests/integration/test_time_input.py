"""Times and numbers over the real MCP endpoint (both protocol eras): one ISO 8601 parser for every time
field, partial dates kept as the span they name, numbers never read as Unix seconds, and numbers that
would be guessed (``"0.9"``, ``true``) refused where a wrong guess would store a wrong fact."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import PROTOCOL_ERAS, count_memories, drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
SOME_ID = "00000000-0000-4000-8000-000000000000"


async def _call(
    url: str, token: str, tool: str, args: dict[str, Any], mode: str = "legacy"
) -> dict[str, Any]:
    async with mcp_client(url, token, mode) as client:
        result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def _refusal(url: str, token: str, tool: str, args: dict[str, Any], mode: str = "legacy") -> str:
    """The error text of a refused call: a JSON-RPC error, or a tool result with isError (either way the
    caller is told which field is wrong)."""
    async with mcp_client(url, token, mode) as client:
        try:
            result = await client.call_tool(tool, args)
        except MCPError as exc:
            error = exc
        else:
            error = None
    if error is not None:
        assert error.code == -32602, error
        return error.message + json.dumps(error.data)
    assert result.is_error, f"{tool} accepted {args}: {result.structured_content}"
    return json.dumps([c.model_dump(mode="json") for c in result.content]) + json.dumps(
        result.structured_content
    )


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_year_only_occurred_at_is_that_year_and_time_filters_find_it(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    # Given an event known only by its year (read as Unix seconds before: stored as 1970-01-01T00:33:46Z)
    ack = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "Rowan ran the Tromsø marathon", "layer": "episodic", "occurred_at": "2026"},
        mode,
    )
    await drain(poller)
    # Then it is stored in 2026
    got = await _call(server.url, token, "memory_get", {"id": ack["id"]}, mode)
    assert got["memory"]["occurred_at"].startswith("2026-01-01T00:00:00")
    # And a search over 2026 finds it, one over 1970 does not
    in_2026 = await _call(
        server.url, token, "memory_search", {"query": "marathon", "since": "2026", "until": "2026"}, mode
    )
    assert [r["memory"]["id"] for r in in_2026["results"]] == [ack["id"]]
    in_1970 = await _call(
        server.url, token, "memory_search", {"query": "marathon", "time_range": "1970"}, mode
    )
    assert in_1970["count"] == 0


NOT_TIMES = [1700000000, "1700000000", "20261124", "0", "-5", 2026, 2026.5, True]
TIME_FIELDS = [
    ("memory_write", {"content": "ok"}, "occurred_at"),
    ("task_reflect", {"task_id": "t-1", "goal": "g", "outcome": "success"}, "occurred_at"),
    ("memory_search", {"query": "q"}, "as_of"),
    ("memory_search", {"query": "q"}, "since"),
    ("memory_search", {"query": "q"}, "until"),
    ("memory_search", {"query": "q"}, "time_range"),
    ("memory_update", {"id": SOME_ID, "action": "update"}, "valid_from"),
    ("memory_update", {"id": SOME_ID, "action": "update"}, "valid_to"),
]


@pytest.mark.parametrize("value", NOT_TIMES, ids=repr)
@pytest.mark.parametrize(
    ("tool", "base", "field"), TIME_FIELDS, ids=lambda v: v if isinstance(v, str) else ""
)
async def test_numbers_and_numeric_strings_are_never_times_on_any_tool(
    server: BackgroundServer,
    poller: SqsPoller,
    stack: LocalStack,
    tenant: str,
    token: str,
    tool: str,
    base: dict[str, Any],
    field: str,
    value: object,
) -> None:
    text = await _refusal(server.url, token, tool, {**base, field: value})
    assert field in text
    await drain(poller)
    assert count_memories(stack, tenant) == 0


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_partial_valid_to_includes_its_whole_span(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    ack = await _call(server.url, token, "memory_write", {"content": "Rowan is on the payroll team"}, mode)
    await drain(poller)
    updated = await _call(
        server.url,
        token,
        "memory_update",
        {"id": ack["id"], "action": "update", "valid_from": "2026-01", "valid_to": "2026-03"},
        mode,
    )
    assert updated["memory"]["valid_from"].startswith("2026-01-01T00:00:00")
    assert updated["memory"]["valid_to"].startswith("2026-04-01T00:00:00")  # the whole of March


GUESSES = [
    ("memory_write", {"content": "ok"}, "importance", "0.9"),
    ("memory_write", {"content": "ok"}, "importance", True),
    ("memory_write", {"content": "ok"}, "filter", "yes"),
    ("memory_forget", {"id": SOME_ID}, "hard", "yes"),
    ("memory_forget", {"id": SOME_ID}, "hard", 1),
    ("memory_update", {"id": SOME_ID, "action": "update"}, "verified", "true"),
    ("memory_update", {"id": SOME_ID, "action": "update"}, "importance", "1"),
    ("memory_feedback", {"id": SOME_ID}, "useful", "no"),
    ("memory_link", {"from_id": SOME_ID, "to_id": SOME_ID, "kind": "related"}, "strength", "1"),
    ("working_memory_set", {"session_id": "s", "key": "k", "content": "c"}, "core", 1),
    ("working_memory_set", {"session_id": "s", "key": "k", "content": "c"}, "importance", False),
    ("working_memory_promote", {"session_id": "s", "key": "k"}, "keep", "false"),
]


@pytest.mark.parametrize(("tool", "base", "field", "value"), GUESSES, ids=lambda v: repr(v)[:20])
async def test_a_value_that_would_be_guessed_into_a_stored_fact_is_refused(
    server: BackgroundServer, token: str, tool: str, base: dict[str, Any], field: str, value: object
) -> None:
    text = await _refusal(server.url, token, tool, {**base, field: value})
    assert field in text


async def test_a_partial_date_is_found_by_any_window_that_overlaps_its_span(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given events known only by their year and by their month (both stored as their span's start before,
    # so a window inside the span missed them)
    year = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "Rowan ran the Tromsø marathon", "layer": "episodic", "occurred_at": "2026"},
    )
    month = await _call(
        server.url,
        token,
        "memory_write",
        {"content": "Rowan ran the Oslo half marathon", "layer": "episodic", "occurred_at": "2026-11"},
    )
    await drain(poller)
    got = await _call(server.url, token, "memory_get", {"id": year["id"]})
    assert got["memory"]["occurred_precision"] == "year"

    async def found(**window: str) -> set[str]:
        hits = await _call(server.url, token, "memory_search", {"query": "marathon", **window})
        return {r["memory"]["id"] for r in hits["results"]}

    # Then a window inside a span finds it (the spans overlap) …
    assert await found(since="2026-06-01", until="2026-07-01") == {year["id"]}
    assert await found(since="2026-11-20", until="2026-11-21") == {year["id"], month["id"]}
    assert await found(time_range="2026-11-24") == {year["id"], month["id"]}
    # … and a window that only touches its edges does not
    assert await found(since="2027-01-01") == set()
    assert await found(until="2025-12-31") == set()  # until a day: up to its end
    assert await found(since="2026-12-01", until="2027-02-01") == {year["id"]}
