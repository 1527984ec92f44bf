"""What a write's answers say (issue 12, item 7), through the official MCP client against real Postgres,
Redis and the SQS emulator: a reused idempotency key with other arguments is refused, a true replay gets
the first answer; a hard-forgotten write reads `deleted`; redaction is named in the write's answer."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import count_memories, drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


def _contents(stack: LocalStack, tenant: str) -> list[str]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute("SELECT content FROM memories WHERE tenant_id = %s", (tenant,)).fetchall()
    return [r[0] for r in rows]


async def test_a_reused_idempotency_key_with_other_arguments_is_refused_and_a_replay_answered_alike(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    write: dict[str, Any] = {
        "content": "Invoice 881 was paid",
        "tags": ["billing"],
        "idempotency_key": "inv-881",
    }
    async with mcp_client(server.url, token) as client:
        first = await call(client, "memory_write", write)
        # the same arguments in another order, defaults spelled out: a replay
        again = await call(client, "memory_write", {**dict(reversed(write.items())), "layer": "semantic"})
        assert (again["id"], again["submitted_at"], again["replayed"]) == (
            first["id"],
            first["submitted_at"],
            True,
        )
        assert first.get("replayed") is None
        error = await tool_error(client, "memory_write", {**write, "content": "Invoice 881 was refunded"})
        assert error["kind"] == "invalid_arguments"
        assert [e["field"] for e in error["errors"]] == ["idempotency_key"]
        assert "different arguments" in error["message"]
        assert error["id"] == first["id"]
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [first["id"]]}))["writes"]
        assert status["status"] == "stored"
    assert _contents(stack, tenant) == ["Invoice 881 was paid"]


async def test_a_hard_forgotten_write_reads_deleted(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        kept = (await call(client, "memory_write", {"content": "The office plant is a monstera"}))["id"]
        gone = (await call(client, "memory_write", {"content": "My locker code is under the desk mat"}))["id"]
        await drain(poller)
        soft = (await call(client, "memory_write", {"content": "Standup moved to 9:45"}))["id"]
        await drain(poller)
        await call(client, "memory_forget", {"id": gone, "hard": True, "reason": "delete it"})
        await call(client, "memory_forget", {"id": soft, "reason": "no longer true"})
        statuses = (await call(client, "memory_status", {"ids": [kept, gone, soft]}))["writes"]
    assert [(s["status"], s["memory_id"]) for s in statuses] == [
        ("stored", kept),
        ("deleted", gone),
        ("stored", soft),  # a soft forget keeps the row: memory_get still shows it, status 'forgotten'
    ]
    assert count_memories(stack, tenant) == 2


async def test_the_write_answer_names_what_redaction_replaced(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client, "memory_write", {"content": "Maya's e-mail is maya.r@example.com", "metadata": {"n": "x"}}
        )
        assert ack["redacted"] == ["email"]
        plain = await call(client, "memory_write", {"content": "Maya prefers e-mail to calls"})
        assert plain.get("redacted") is None
        await drain(poller)
    assert sorted(_contents(stack, tenant)) == [
        "Maya prefers e-mail to calls",
        "Maya's e-mail is [REDACTED:email]",
    ]
