"""The key grammar (``domain.limits.KEY_PATTERN``), end to end through the official MCP client: a key a
write sets is segments of letters, digits and _:@- joined by dots; another one is refused on every tool
that sets a key, naming ``key``, the grammar and an example, and nothing is stored. A memory stored under
another key before the grammar existed (or by a job queued before it) still reads, filters, updates,
supersedes and forgets: only new keys obey it."""

from __future__ import annotations

from typing import Any

import anyio
import psycopg
import pytest

from hindsight.client import call
from hindsight.domain.memory import MemoryDraft
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_operator_cli import _store
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

ODD = "user city!!"
"""A key of the new-user trial, stored before the grammar existed."""


def _assert_grammar_refusal(error: dict[str, Any], field: str) -> None:
    """An argument error on ``field`` that states the grammar, its limit and an example."""
    assert error["kind"] == "invalid_arguments", error
    assert [e["field"] for e in error["errors"]] == [field], error
    (detail,) = error["errors"]
    assert "joined by dots" in detail["message"], detail
    assert "'user.home'" in detail["message"], detail
    assert "joined by dots" in detail["limit"]["format"], detail
    assert error["message"].startswith(f"Invalid arguments: {field}: must be"), error


def _rows(stack: LocalStack, tenant: str) -> list[tuple[Any, ...]]:
    """Every memory and history row of the tenant, every column."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        return [
            row
            for table in ("memories", "memory_history", "write_results")
            for row in conn.execute(
                f"SELECT row_to_json(t)::text FROM {table} t WHERE tenant_id = %s ORDER BY 1", (tenant,)
            ).fetchall()
        ]


async def test_a_key_outside_the_grammar_is_refused_on_every_tool_that_sets_one(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": "Sam lives in Lisbon", "key": "sam.city"})
        await call(client, "working_memory_set", {"session_id": "s-1", "key": "goal", "content": "ship"})
        await drain(poller)
        before = _rows(stack, tenant)
        for key in (ODD, "user..city", ".user", "user/city", "user#1"):
            error = await tool_error(client, "memory_write", {"content": "Sam lives in Porto", "key": key})
            _assert_grammar_refusal(error, "key")
            error = await tool_error(
                client, "memory_update", {"id": ack["id"], "action": "update", "key": key}
            )
            _assert_grammar_refusal(error, "key")
            error = await tool_error(
                client, "working_memory_promote", {"session_id": "s-1", "key": "goal", "memory_key": key}
            )
            _assert_grammar_refusal(error, "memory_key")
        batch = await call(
            client, "memory_write_batch", {"items": [{"content": "Sam likes tea", "key": ODD}]}
        )
        (item,) = batch["results"]
        assert item["status"] == "error", item
        _assert_grammar_refusal(item["error"], "items.0.key")
        await drain(poller)
        assert _rows(stack, tenant) == before  # nothing stored, updated or queued
        # keys the docs and agents use are accepted, in any script and either case
        for key in ("user.home", "project.db_version", "order:A-1042", "café.menu", "用户.城市"):
            await call(client, "memory_write", {"content": f"A fact on {key}", "key": key})


async def test_a_memory_stored_under_a_key_outside_the_grammar_still_reads_updates_and_forgets(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    # Given a memory an older version stored under a key the grammar refuses (the worker's path: a job
    # queued before the grammar existed is stored as it was written)
    drafts = [("default", MemoryDraft(content="Sam lives in Lisbon", key=ODD))]
    [stored] = await anyio.to_thread.run_sync(_store, stack, tenant, drafts)
    async with mcp_client(server.url, token) as client:
        # it is found by its key, and read
        found = await call(client, "memory_search", {"query": "Where does Sam live?", "key": ODD})
        assert [h["memory"]["id"] for h in found["results"]] == [str(stored)]
        memory = (await call(client, "memory_get", {"id": str(stored)}))["memory"]
        assert memory["key"] == ODD
        summary = await call(client, "memory_summarize", {"key": ODD})
        assert summary is not None
        # updated in place (leaving key out keeps it)
        updated = await call(
            client, "memory_update", {"id": str(stored), "action": "update", "importance": 0.8}
        )
        assert (updated["memory"]["key"], updated["memory"]["importance"]) == (ODD, 0.8)
        # superseded: the new value keeps the key, and is the one current fact on it
        newer = await call(
            client,
            "memory_update",
            {"id": str(stored), "action": "supersede", "content": "Sam lives in Porto"},
        )
        await drain(poller)
        current = await call(client, "memory_search", {"query": "Where does Sam live?", "key": ODD})
        assert [(h["memory"]["content"], h["memory"]["key"]) for h in current["results"]] == [
            ("Sam lives in Porto", ODD)
        ]
        # and forgotten (the forget's note names the previous value; restoring it works on that key too)
        forgotten = await call(client, "memory_forget", {"id": newer["queued"]["id"], "reason": "moved away"})
        assert forgotten["status"] == "forgotten", forgotten
        restored = await call(client, "memory_update", {"id": str(stored), "action": "restore"})
        assert (restored["memory"]["status"], restored["memory"]["key"]) == ("active", ODD)
        now = await call(client, "memory_search", {"query": "Where does Sam live?", "key": ODD})
        assert [h["memory"]["content"] for h in now["results"]] == ["Sam lives in Lisbon"]
