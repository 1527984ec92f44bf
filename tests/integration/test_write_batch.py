"""memory_write_batch through the MCP client, the SQS emulator and the worker: every item stored with its
own id and status, bad items answered item by item, entries SQS refuses reported retryable (never
dropped), items counted against the caller's item budget."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hindsight.adapters.sqs_queue import SqsJobQueue, sqs_client
from hindsight.bootstrap import Container, build_container
from hindsight.client import call
from hindsight.config import Settings
from hindsight.domain.limits import MAX_BATCH_ITEMS
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.remember import Remember, RememberBatch
from tests.support import count_memories, drain, mcp_client, tool_error

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
REFUSE = "refuse-me"
"""Items whose content holds this are sent with an invalid DelaySeconds, so the emulator itself reports
their entries in SendMessageBatch's Failed list (its own partial failure) while the others are sent."""


def _turn(i: int, **extra: Any) -> dict[str, Any]:
    return {
        "content": f"Turn {i}: Priya booked the Lisbon venue for offsite number {1000 + i}",
        "layer": "episodic",
        "occurred_at": "2026-11-24T10:00:00Z",
        "idempotency_key": f"import-{i}",
        "metadata": {"turn": i},
        **extra,
    }


async def _statuses(client: Any, ids: list[str]) -> dict[str, str]:
    result = await call(client, "memory_status", {"ids": ids})
    return {w["id"]: w["status"] for w in result["writes"]}


async def test_every_item_is_stored_with_its_own_id_and_bad_items_are_answered_one_by_one(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    # Given 25 good turns (three SendMessageBatch requests) and three bad items among them
    items: list[Any] = [_turn(i) for i in range(25)]
    items.insert(3, {"content": "too important", "importance": 2})
    items.insert(10, {"content": "misspelt", "tpos": ["x"]})
    items.insert(20, "not an object")
    async with mcp_client(server.url, token) as client:
        result = await call(client, "memory_write_batch", {"items": items})
        # Then each item has its result, in order: the bad ones say what is wrong, named under items.<i>
        assert [r["index"] for r in result["results"]] == list(range(28))
        assert (result["queued"], result["errors"]) == (25, 3)
        bad = {r["index"]: r["error"] for r in result["results"] if r["status"] == "error"}
        assert sorted(bad) == [3, 10, 20]
        assert bad[3]["kind"] == "invalid_arguments"
        assert bad[3]["retryable"] is False
        assert bad[3]["errors"][0]["field"] == "items.3.importance"
        assert bad[3]["errors"][0]["limit"] == {"le": 1.0}
        assert bad[10]["errors"][0]["field"] == "items.10.tpos"
        assert bad[20]["errors"][0]["field"] == "items.20"
        queued = [r for r in result["results"] if r["status"] == "queued"]
        ids = [r["id"] for r in queued]
        assert len(set(ids)) == 25
        # When the worker has run, every queued item is stored
        await drain(poller)
        assert set((await _statuses(client, ids)).values()) == {"stored"}
        assert count_memories(stack, tenant) == 25
        hits = await call(client, "memory_search", {"query": "offsite number 1017 Lisbon venue"})
        assert any("1017" in h["memory"]["content"] for h in hits["results"])
        # And the same batch again (idempotency keys per item) answers the same ids and stores nothing twice
        again = await call(client, "memory_write_batch", {"items": items})
        assert [r["id"] for r in again["results"] if r["status"] == "queued"] == ids
        await drain(poller)
        assert count_memories(stack, tenant) == 25


async def test_more_than_the_limit_of_items_is_an_argument_error_naming_items(
    server: BackgroundServer, stack: LocalStack, tenant: str, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await tool_error(
            client, "memory_write_batch", {"items": [_turn(i) for i in range(MAX_BATCH_ITEMS + 1)]}
        )
        empty = await tool_error(client, "memory_write_batch", {"items": []})
    assert error["kind"] == "invalid_arguments"
    assert error["errors"][0]["field"] == "items"
    assert error["errors"][0]["limit"] == {"max_length": MAX_BATCH_ITEMS}
    assert empty["errors"][0]["field"] == "items"
    assert count_memories(stack, tenant) == 0


async def test_an_item_with_agent_id_or_another_unknown_field_is_told_it_is_not_an_item_argument(
    server: BackgroundServer, token: str
) -> None:
    # Before: pydantic's "Extra inputs are not permitted"; memory_write says "not an argument of …".
    items = [
        {"content": "Mina prefers tea", "agent_id": "importer"},
        {"content": "Mina prefers green tea", "tpos": 1, "importance": 2},
        {"content": "Mina drinks it at 4pm"},
    ]
    async with mcp_client(server.url, token) as client:
        result = await call(client, "memory_write_batch", {"items": items, "agent_id": "importer"})
    assert [r["status"] for r in result["results"]] == ["error", "error", "queued"], result
    first, second = (r["error"] for r in result["results"][:2])
    assert first["errors"] == [
        {
            "field": "items.0.agent_id",
            "message": "not an argument of a memory_write_batch item: agent_id is the batch call's own "
            "argument (every item is written for that agent)",
            "type": "unexpected_argument",
        }
    ], first
    assert first["message"].startswith("Invalid arguments: items.0.agent_id: not an argument of"), first
    assert {(e["field"], e["type"]) for e in second["errors"]} == {
        ("items.1.tpos", "unexpected_argument"),
        ("items.1.importance", "less_than_equal"),
    }, second
    assert "Extra inputs" not in str(result)


class RefusingClient:
    """The emulator's own boto3 client; entries carrying REFUSE get DelaySeconds 901 (over SQS's 900),
    which the emulator answers with a Failed entry in an otherwise successful SendMessageBatch."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.failed: list[dict[str, Any]] = []

    def send_message_batch(self, **kwargs: Any) -> Any:
        for entry in kwargs["Entries"]:
            if REFUSE in entry["MessageBody"]:
                entry["DelaySeconds"] = 901
        answer = self._client.send_message_batch(**kwargs)
        self.failed.extend(answer.get("Failed", []))
        return answer

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


@pytest.fixture
def refusing_server(stack: LocalStack) -> Iterator[tuple[BackgroundServer, list[RefusingClient]]]:
    clients: list[RefusingClient] = []

    async def factory(settings: Settings) -> Container:
        container = await build_container(settings)
        client = RefusingClient(sqs_client(settings.aws_region, settings.aws_endpoint_url))
        clients.append(client)
        queue = SqsJobQueue(client, settings.require_write_queue_url())
        container.remember_batch = RememberBatch(Remember(queue, container.clock))
        return container

    srv = BackgroundServer(stack.require_settings(), factory=factory).start()
    yield srv, clients
    srv.stop()


async def test_entries_the_queue_refuses_are_retryable_errors_and_the_rest_is_stored(
    refusing_server: tuple[BackgroundServer, list[RefusingClient]],
    server: BackgroundServer,
    poller: SqsPoller,
    stack: LocalStack,
    tenant: str,
    token: str,
) -> None:
    srv, clients = refusing_server
    items = [_turn(i, content=f"Turn {i} {REFUSE}") if i in (4, 11) else _turn(i) for i in range(12)]
    async with mcp_client(srv.url, token) as client:
        result = await call(client, "memory_write_batch", {"items": items})
    # Then the emulator refused exactly those two entries, and they are errors a caller may retry
    assert len(clients[0].failed) == 2
    refused = {r["index"]: r["error"] for r in result["results"] if r["status"] == "error"}
    assert sorted(refused) == [4, 11]
    assert all(e["kind"] == "unavailable" and e["retryable"] is True for e in refused.values())
    queued = [r["id"] for r in result["results"] if r["status"] == "queued"]
    assert len(queued) == 10
    await drain(poller)
    async with mcp_client(server.url, token) as client:
        assert set((await _statuses(client, queued)).values()) == {"stored"}
        # When the caller retries only the refused items (same idempotency keys) through a healthy queue
        retry = await call(
            client,
            "memory_write_batch",
            {"items": [_turn(4, content="Turn 4"), _turn(11, content="Turn 11")]},
        )
        await drain(poller)
        retried = [r["id"] for r in retry["results"]]
        assert set((await _statuses(client, retried)).values()) == {"stored"}
    assert count_memories(stack, tenant) == 12


async def test_items_count_one_by_one_against_the_item_budget(
    stack: LocalStack, poller: SqsPoller, tenant: str, token: str
) -> None:
    # Given a key allowed 6 changes a minute: 60 batch items per 10 minutes
    srv = BackgroundServer(stack.require_settings().replace(rate_limit_writes_per_minute=6)).start()
    try:
        async with mcp_client(srv.url, token) as client:
            first = await call(client, "memory_write_batch", {"items": [_turn(i) for i in range(50)]})
            assert first["queued"] == 50
            over = await tool_error(
                client, "memory_write_batch", {"items": [_turn(i) for i in range(50, 61)]}
            )
            never = await tool_error(client, "memory_write_batch", {"items": [_turn(i) for i in range(61)]})
    finally:
        srv.stop()
    assert (over["kind"], over["budget"], over["limit"], over["window_s"]) == (
        "rate_limited",
        "write_items",
        60,
        600,
    )
    assert over["retry_after_s"] > 0
    assert never["kind"] == "invalid_arguments"
    assert never["errors"][0]["limit"] == {"max_items": 60}
    await drain(poller)
    assert count_memories(stack, tenant) == 50
