"""Times and numbers over the real MCP endpoint (both protocol eras): one ISO 8601 parser for every time
field, partial dates kept as the span they name, numbers never read as Unix seconds, and numbers that
would be guessed (``"0.9"``, ``true``) refused where a wrong guess would store a wrong fact."""

from __future__ import annotations

import json
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from hindsight.client import call
from hindsight.domain.isotime import INSTANT_FORMAT, TIME_FORMAT, TIME_PATTERN
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.schema_cases import non_null, resolve, tool_schemas, valid_arguments
from tests.support import PROTOCOL_ERAS, count_memories, drain, mcp_client, tool_error

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


def _time_fields() -> list[tuple[str, dict[str, Any], str, str]]:
    """(tool, valid base arguments, field, expected form) for every time argument of every tool, from the
    live schemas: the ISO fields, the instant fields and the phrase-or-ISO search bounds."""
    fields = []
    for tool, schema in tool_schemas().items():
        for name, field_schema in schema.get("properties", {}).items():
            spec = resolve(non_null(field_schema), schema.get("$defs"))
            if spec.get("pattern") == TIME_PATTERN:
                expected = TIME_FORMAT
            elif spec.get("format") == "date-time":
                expected = INSTANT_FORMAT
            elif tool == "memory_search" and name in ("since", "until", "time_range"):
                expected = TIME_FORMAT
            else:
                continue
            fields.append((tool, valid_arguments(schema), name, expected))
    return fields


TIME_ARGUMENTS = _time_fields()


def test_the_time_table_covers_the_tools_that_take_a_time() -> None:
    """The schema-derived table holds every kind of time argument (so the test below covers them)."""
    assert {(tool, field) for tool, _, field, _ in TIME_ARGUMENTS} >= {
        ("memory_write", "occurred_at"),
        ("memory_write", "session_at"),
        ("memory_search", "time_range"),
        ("memory_search", "since"),
        ("memory_search", "as_of"),
        ("memory_search", "valid_at"),
        ("memory_get", "valid_at"),
        ("memory_recall_chain", "known_at"),
        ("memory_update", "valid_from"),
        ("memory_update", "valid_to"),
        ("memory_summarize", "until"),
        ("task_reflect", "occurred_at"),
    }


@pytest.mark.parametrize(
    ("tool", "base", "field", "expected"),
    TIME_ARGUMENTS,
    ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "",
)
async def test_a_time_that_is_no_time_names_the_expected_form_in_words(
    server: BackgroundServer, token: str, tool: str, base: dict[str, Any], field: str, expected: str
) -> None:
    """Trial L2: the limit of a calendar error is the form a person can write ("ISO 8601 date-time such as
    2026-03-01T09:00:00Z"), the same on every tool, not the schema's regular expression."""
    async with mcp_client(server.url, token) as client:
        error = await tool_error(client, tool, {**base, field: "next tuesday-ish"})
    [detail] = [e for e in error["errors"] if e["field"] == field]
    assert detail["limit"]["format"] == expected, detail
    assert "pattern" not in detail["limit"], detail


async def test_a_batch_item_with_no_time_names_the_expected_form_in_words(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        result = await call(
            client, "memory_write_batch", {"items": [{"content": "ok", "occurred_at": "soon"}]}
        )
    [detail] = result["results"][0]["error"]["errors"]
    assert (detail["field"], detail["limit"]) == ("items.0.occurred_at", {"format": TIME_FORMAT})
