"""Sessions that chain themselves: episodic writes with a session_id follow the session's previous event
(by the order they were acknowledged in, whatever order the queue delivers them in), so an agent that
never passes ids gets the whole decision path from memory_recall_chain; chain=false opts out, an
explicit causal_parent wins."""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from hindsight.adapters.sqs_queue import SqsJobQueue, sqs_client
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
STEPS = [
    "Checkout page returned HTTP 500 for order A-77",
    "Read the payment service log: card token expired",
    "Refreshed the card token through the vault",
    "Retried the checkout for order A-77",
    "Checkout succeeded; receipt sent",
]


def _parents(stack: LocalStack, tenant: str) -> dict[str, str | None]:
    """content → the content of its causal parent, straight from Postgres."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute(
            """SELECT c.content, p.content FROM memories c LEFT JOIN memories p ON p.id = c.causal_parent
               WHERE c.tenant_id = %s""",
            (tenant,),
        ).fetchall()
    return {child: parent for child, parent in rows}


async def _path(client: Any, memory_id: str) -> list[str]:
    chain = await call(client, "memory_recall_chain", {"id": memory_id, "direction": "causes"})
    return [step["memory"]["content"] for step in sorted(chain["chain"], key=lambda s: s["step"])]


async def test_an_agent_that_never_passes_ids_gets_the_whole_path(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        acks = [
            await call(client, "memory_write", {"content": c, "layer": "episodic", "session_id": "run-1"})
            for c in STEPS
        ]
        await call(
            client, "memory_write", {"content": "Another run", "layer": "episodic", "session_id": "run-2"}
        )
        await drain(poller)
        assert await _path(client, acks[-1]["id"]) == STEPS
        effects = await call(client, "memory_recall_chain", {"id": acks[0]["id"], "direction": "effects"})
        assert [s["memory"]["content"] for s in sorted(effects["chain"], key=lambda s: s["step"])] == STEPS


async def test_a_batch_chains_its_items_in_order(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    items = [{"content": c, "layer": "episodic", "session_id": "batch-run"} for c in STEPS]
    async with mcp_client(server.url, token) as client:
        result = await call(client, "memory_write_batch", {"items": items})
        await drain(poller)
        assert await _path(client, result["results"][-1]["id"]) == STEPS


async def test_shuffled_delivery_still_builds_the_acknowledged_order(
    stack: LocalStack, poller: SqsPoller, tenant: str
) -> None:
    """The queue keeps no order: the jobs of one session, numbered in acknowledgement order, are stored
    one at a time in a shuffled order (each late one re-points its successor), then sent through SQS in
    another shuffled order and stored by the worker."""
    settings = stack.require_settings()
    container = await build_container(settings, with_queue=False)
    rng = random.Random(14)
    try:
        for session, deliver in (("direct", "one by one"), ("queued", "sqs")):
            jobs = [
                WriteJob(
                    id=uuid.uuid4(),
                    tenant_id=tenant,
                    agent_id="default",
                    submitted_at=datetime(2026, 12, 2, 14, i, tzinfo=UTC),
                    draft=MemoryDraft(content=f"{session}: {c}", layer="episodic", session_id=session),
                    session_seq=1000 + i,
                )
                for i, c in enumerate(STEPS)
            ]
            order = jobs[:]
            rng.shuffle(order)
            assert order != jobs
            if deliver == "one by one":
                for job in order:
                    (result,) = await container.store_memories([job])
                    assert result.outcome == "stored"
            else:
                queue = SqsJobQueue(
                    sqs_client(settings.aws_region, settings.aws_endpoint_url),
                    settings.require_write_queue_url(),
                )
                for job in order:
                    await queue.enqueue(job)
                await drain(poller)
        parents = _parents(stack, tenant)
        for session in ("direct", "queued"):
            expected = [None, *(f"{session}: {c}" for c in STEPS[:-1])]
            assert [parents[f"{session}: {c}"] for c in STEPS] == expected, session
    finally:
        await container.aclose()


async def test_chain_false_stays_out_and_an_explicit_parent_wins(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        cause = await call(
            client, "memory_write", {"content": "Deploy 41 changed the cache TTL", "layer": "episodic"}
        )

        async def event(content: str, **extra: Any) -> None:
            await call(
                client,
                "memory_write",
                {"content": content, "layer": "episodic", "session_id": "s-9", **extra},
            )

        await event("Opened the incident")
        await event("Side note: coffee machine broken", chain=False)
        await event("Cache hit rate fell to 20 %", causal_parent=cause["id"])
        await event("Rolled back the TTL")
        await call(client, "memory_write", {"content": "A fact, not an event", "session_id": "s-9"})
        await drain(poller)
    parents = _parents(stack, tenant)
    assert parents["Opened the incident"] is None
    assert parents["Side note: coffee machine broken"] is None  # chain=false: no default parent
    assert parents["Cache hit rate fell to 20 %"] == "Deploy 41 changed the cache TTL"  # explicit wins
    assert parents["Rolled back the TTL"] == "Cache hit rate fell to 20 %"  # follows it, skips the side note
    assert parents["A fact, not an event"] is None  # semantic writes never chain
