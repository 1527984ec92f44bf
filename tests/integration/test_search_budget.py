"""memory_search with max_tokens through the official MCP client: the text the model reads stays within
the budget (counted with working memory's cl100k_base counter), whole hits first, then compact ones, and
the result says what was compacted or dropped; out-of-bounds budgets are refused naming field and limit."""

from __future__ import annotations

from typing import Any

import pytest
from mcp_types import TextContent

from hindsight.adapters.tiktoken_counter import TiktokenCounter
from hindsight.client import call
from hindsight.domain.context_budget import MAX_SEARCH_TOKENS, MIN_SEARCH_TOKENS
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

INCIDENTS = [
    f"Deploy {n} of the billing service failed because the schema migration held a lock for {n + 3} minutes. "
    f"We split migration {n} into batches of {n * 100} rows and retried at night. "
    "The retry succeeded without blocking checkout. "
    "Lesson: run long billing migrations in batches and watch pg_locks while they run."
    for n in range(1, 9)
]


async def _write_incidents(server: BackgroundServer, token: str, poller: SqsPoller) -> None:
    async with mcp_client(server.url, token) as client:
        for content in INCIDENTS:
            await call(client, "memory_write", {"content": content, "layer": "episodic"})
    await drain(poller)


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_search_within_max_tokens_returns_whole_then_compact_hits_and_says_so(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    await _write_incidents(server, token, poller)
    counter = TiktokenCounter()
    query = {"query": "billing migration lock during deploy", "top_k": 8}
    async with mcp_client(server.url, token, mode) as client:
        unbounded = await client.call_tool("memory_search", query)
        assert not unbounded.is_error
        assert isinstance(unbounded.structured_content, dict)
        assert set(unbounded.structured_content) == {"results", "count"}  # no budget asked: nothing added
        ranking = [r["memory"]["id"] for r in unbounded.structured_content["results"]]
        assert len(ranking) == 8
        full = await counter.count(_text(unbounded.content))

        result = await client.call_tool("memory_search", {**query, "max_tokens": full // 2})
    assert not result.is_error, result.content
    found: dict[str, Any] = result.structured_content or {}
    budget = found["budget"]
    text = _text(result.content)
    # the model reads at most max_tokens tokens, and the count reported is that of the text it reads
    assert budget["tokens"] == await counter.count(text) <= full // 2
    assert budget["max_tokens"] == full // 2
    assert budget["encoding"] == "cl100k_base"
    # whole hits first, then compact ones: a prefix of the same ranking, nothing reordered
    whole = [r["memory"]["id"] for r in found["results"]]
    compact = [c["id"] for c in found["compact"]]
    assert budget["whole"] == len(whole) == found["count"] >= 1
    assert budget["compacted"] == len(compact) >= 1
    assert whole + compact == ranking[: len(whole) + len(compact)]
    assert budget["whole"] + budget["compacted"] + budget["dropped"] == 8
    assert budget["truncated"] is True
    # compact: the first sentences of the content (a sentence boundary), no scores
    by_id = {r["memory"]["id"]: r["memory"]["content"] for r in unbounded.structured_content["results"]}
    for hit in found["compact"]:
        assert "scores" not in hit
        assert by_id[hit["id"]].startswith(hit["content"])
        assert hit["content"].endswith(".")
        assert hit["trimmed"] is True


async def test_a_tight_budget_drops_hits_and_a_loose_one_changes_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    await _write_incidents(server, token, poller)
    query = {"query": "billing migration lock during deploy", "top_k": 8}
    async with mcp_client(server.url, token) as client:
        # not even one compact hit fits in 100 tokens: refused, naming the budget that returns the first
        refused = await tool_error(client, "memory_search", {**query, "max_tokens": MIN_SEARCH_TOKENS})
        needed = refused["errors"][0]["limit"]["ge"]
        tight = await call(client, "memory_search", {**query, "max_tokens": needed})
        loose = await call(client, "memory_search", {**query, "max_tokens": MAX_SEARCH_TOKENS})
    assert refused["errors"][0]["field"] == "max_tokens"
    assert needed > MIN_SEARCH_TOKENS
    assert tight["budget"]["dropped"] >= 1
    assert tight["budget"]["tokens"] <= needed
    assert (tight["count"], tight["budget"]["compacted"]) == (0, 1)  # the first hit, compact only
    assert loose["budget"] | {"tokens": 0} == {
        "max_tokens": MAX_SEARCH_TOKENS,
        "tokens": 0,
        "truncated": False,
        "whole": 8,
        "compacted": 0,
        "dropped": 0,
        "encoding": "cl100k_base",
    }
    assert loose["compact"] == []
    assert loose["count"] == 8


@pytest.mark.parametrize(
    ("value", "limit"),
    [(MIN_SEARCH_TOKENS - 1, {"ge": MIN_SEARCH_TOKENS}), (MAX_SEARCH_TOKENS + 1, {"le": MAX_SEARCH_TOKENS})],
)
async def test_a_budget_out_of_bounds_is_refused_naming_the_field_and_the_limit(
    server: BackgroundServer, token: str, value: int, limit: dict[str, int]
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await tool_error(client, "memory_search", {"query": "billing", "max_tokens": value})
    assert error["kind"] == "invalid_arguments"
    (detail,) = error["errors"]
    assert detail["field"] == "max_tokens"
    assert detail["limit"] == limit
    assert error["message"].startswith("Invalid arguments: max_tokens: ")


def _text(content: list[Any]) -> str:
    return "".join(block.text for block in content if isinstance(block, TextContent))
