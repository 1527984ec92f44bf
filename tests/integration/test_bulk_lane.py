"""The bulk lane (issue 15, noisy neighbours): imports, large batches and long writes go to a queue of
their own; the local poller takes the write queue first, or, with the bulk queue's own worker, runs the
two apart, so a long bulk batch holds up no agent's write; a bulk backlog still drains, stopping waits
for the bulk batch in progress, and failed bulk jobs end in the bulk queue's dead-letter queue. Real
components: the SQS emulator over HTTP, Postgres, Redis, the worker (the bulk worker's embedder is a
fake that holds its batch until the test lets it go).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import anyio
import pytest

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.interchange import IngestItem
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.sqs_emulator import BULK_DLQ, BULK_QUEUE
from hindsight.local.stack import LocalStack
from hindsight.operator_tools import operator_tools
from hindsight.ports import Vector
from tests.support import count_memories, drain, mcp_client, mint

pytestmark = [pytest.mark.integration, pytest.mark.anyio]


def _visible(stack: LocalStack, url: str) -> int:
    """Messages on ``url``, visible or in flight (no background poller runs in these tests)."""
    attributes = stack.sqs_client().get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def _depths(stack: LocalStack) -> tuple[int, int]:
    """(write queue, bulk queue) message counts."""
    assert stack.queues is not None
    return _visible(stack, stack.queues.writes), _visible(stack, stack.queues.bulk)


def _item(i: int) -> IngestItem:
    draft = MemoryDraft(content=f"Imported note {i}: the Oslo warehouse counted {100 + i} pallets of tiles")
    return IngestItem(draft=draft, agent_id=None, origin=f"line {i}")


async def _ingest(stack: LocalStack, tenant: str, count: int) -> list[uuid.UUID]:
    """``hindsight ingest`` (queue mode) of ``count`` notes for ``tenant``: the operator's import path."""
    container = await build_container(stack.require_settings())
    try:
        report = await operator_tools(container).ingest(
            [_item(i) for i in range(count)], tenant_id=tenant, default_agent="importer"
        )
    finally:
        await container.aclose()
    assert report.queued == count
    return report.ids


async def test_imports_and_large_batches_take_the_bulk_lane_and_agents_writes_do_not(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    settings = stack.require_settings()
    assert settings.bulk_queue_url is not None
    assert settings.bulk_queue_url != settings.write_queue_url
    await drain(poller)
    big = settings.bulk_batch_items
    # Given an agent's single write and a small batch, a batch of bulk_batch_items, and an import
    async with mcp_client(server.url, token) as client:
        await call(client, "memory_write", {"content": "Noor prefers aisle seats on long flights"})
        await call(client, "memory_write_batch", {"items": [{"content": f"turn note {i}"} for i in range(3)]})
        assert _depths(stack) == (4, 0)  # Then the agent's own writes are on the write queue
        await call(
            client, "memory_write_batch", {"items": [{"content": f"backfill note {i}"} for i in range(big)]}
        )
    assert _depths(stack) == (4, big)  # the large batch is on the bulk queue
    await _ingest(stack, tenant, 12)
    assert _depths(stack) == (4, big + 12)  # and so is the import, whatever its size
    # And both lanes are stored by the same worker
    await drain(poller)
    assert _depths(stack) == (0, 0)
    assert count_memories(stack, tenant) == 4 + big + 12


async def test_with_a_bulk_backlog_an_interactive_write_is_stored_first_and_the_backlog_drains(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack
) -> None:
    await drain(poller)
    importer, agent = f"t-imp-{uuid.uuid4().hex[:8]}", f"t-agt-{uuid.uuid4().hex[:8]}"
    # Given another tenant's import of 40 memories waiting on the bulk queue (four batches)
    await _ingest(stack, importer, 40)
    # When an agent of another tenant writes once, after the import was queued
    token = await mint(stack, agent)
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": "Ines moved the standup to 9:30"})
        # Then the worker's next batch is the agent's write: stored before any of the import
        assert await _poll_once(poller) == 1
        status = await call(client, "memory_status", {"ids": [ack["id"]]})
    assert status["writes"][0]["status"] == "stored"
    assert count_memories(stack, importer) == 0
    # And the import still drains completely afterwards
    await drain(poller)
    assert count_memories(stack, importer) == 40
    assert _depths(stack) == (0, 0)


def test_a_bulk_backlog_gets_its_share_while_the_write_queue_is_busy(stack: LocalStack) -> None:
    # Given a poller over a busy write queue and a bulk backlog, one bulk batch after every two
    sqs = stack.sqs_client()
    suffix = uuid.uuid4().hex[:8]
    main = sqs.create_queue(QueueName=f"lane-main-{suffix}")["QueueUrl"]
    bulk = sqs.create_queue(QueueName=f"lane-bulk-{suffix}")["QueueUrl"]
    for i in range(0, 30, 10):
        entries = [{"Id": str(j), "MessageBody": f"main {i + j}"} for j in range(10)]
        sqs.send_message_batch(QueueUrl=main, Entries=entries)
    sqs.send_message_batch(
        QueueUrl=bulk, Entries=[{"Id": str(j), "MessageBody": f"bulk {j}"} for j in range(10)]
    )
    seen: list[list[str]] = []

    def handler(event: dict[str, Any], _: Any) -> None:
        seen.append([record["body"].split()[0] for record in event["Records"]])

    lane_poller = SqsPoller(
        sqs,
        main,
        handler,
        function_name="lanes",
        batch_size=5,
        bulk_queue_url=bulk,
        bulk_share=2,
        bulk_batch_size=3,
    )
    # When it runs until both are empty
    assert lane_poller.drain(timeout_s=60)
    # Then every batch is of one queue; bulk batches come every third batch while the write queue has
    # work (never starved), and the rest of the backlog once the write queue is empty
    kinds = [set(batch) for batch in seen]
    assert all(len(k) == 1 for k in kinds)
    order = [k.pop() for k in kinds]
    assert order[:6] == ["main", "main", "bulk", "main", "main", "bulk"]
    assert {len(b) for b in seen if b[0] == "bulk"} <= {1, 2, 3}  # bulk batches are bulk_batch_size at most
    assert sum(len(b) for b in seen if b[0] == "main") == 30
    assert sum(len(b) for b in seen if b[0] == "bulk") == 10
    assert lane_poller.bulk_batches == order.count("bulk")
    for url in (main, bulk):
        sqs.delete_queue(QueueUrl=url)


@pytest.fixture
def fast_bulk_redelivery(stack: LocalStack) -> Iterator[int]:
    """The bulk queue redelivers after 1 s and dead-letters after 2 receives; restored afterwards."""
    assert stack.queues is not None
    sqs = stack.sqs_client()
    before = sqs.get_queue_attributes(
        QueueUrl=stack.queues.bulk, AttributeNames=["VisibilityTimeout", "RedrivePolicy"]
    )["Attributes"]
    policy = json.loads(before["RedrivePolicy"])
    sqs.set_queue_attributes(
        QueueUrl=stack.queues.bulk,
        Attributes={
            "VisibilityTimeout": "1",
            "RedrivePolicy": json.dumps({**policy, "maxReceiveCount": 2}),
        },
    )
    try:
        yield 2
    finally:
        sqs.set_queue_attributes(QueueUrl=stack.queues.bulk, Attributes=before)


def test_the_bulk_queue_dead_letters_to_its_own_queue(
    stack: LocalStack, poller: SqsPoller, fast_bulk_redelivery: int, tenant: str
) -> None:
    assert stack.queues is not None
    sqs = stack.sqs_client()
    # The bulk queue's redrive policy names its own dead-letter queue, with the settings' receive count
    attributes = sqs.get_queue_attributes(QueueUrl=stack.queues.bulk, AttributeNames=["QueueArn"])
    assert attributes["Attributes"]["QueueArn"].endswith(f":{BULK_QUEUE}")
    assert stack.queues.bulk_dlq.endswith(f"/{BULK_DLQ}")
    # Given a poison message and a good bulk job on the bulk queue
    poison = '{"kind": "memory.write", "id": "not-a-uuid", "lane": "bulk"}'
    good = WriteJob(
        id=uuid.uuid4(),
        tenant_id=tenant,
        agent_id="importer",
        submitted_at=datetime.now(UTC),
        draft=MemoryDraft(content="Imported: the Bergen office closes on Fridays at 15:00"),
        lane="bulk",
    )
    for body in (poison, good.model_dump_json()):
        sqs.send_message(QueueUrl=stack.queues.bulk, MessageBody=body)
    # When the worker has had the bulk queue until it is empty
    assert poller.drain(timeout_s=30)
    # Then the good job is stored and the poison is in the bulk dead-letter queue, not the write DLQ
    assert count_memories(stack, tenant) == 1
    dead = sqs.receive_message(QueueUrl=stack.queues.bulk_dlq, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in dead] == [poison]
    for message in dead:
        sqs.delete_message(QueueUrl=stack.queues.bulk_dlq, ReceiptHandle=message["ReceiptHandle"])
    assert _visible(stack, stack.queues.writes_dlq) == 0


async def _poll_once(poller: SqsPoller) -> int:
    return await anyio.to_thread.run_sync(poller.poll_once)


async def test_a_long_write_takes_the_bulk_lane_by_its_utf8_bytes(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, tenant: str, token: str
) -> None:
    limit = stack.require_settings().bulk_write_bytes
    assert limit > 0
    text = "Noor packed the Lisbon files for the audit. " * (limit // 40)  # ~1,000 model tokens
    await drain(poller)
    async with mcp_client(server.url, token) as client:
        # Given a write one byte short of the limit: the write queue
        await call(client, "memory_write", {"content": text[: limit - 1]})
        assert _depths(stack) == (1, 0)
        # When a write of as many characters reaches it in bytes (emoji: 4 bytes, ~1 model token each)
        await call(client, "memory_write", {"content": "\N{GRINNING FACE}" * (limit // 4)})
        # Then it is bulk work, whichever call carries it: a long item of a small batch too
        assert _depths(stack) == (1, 1)
        other = ("Ines counted the pallets at the Oslo depot twice. " * (limit // 40))[:limit]
        items = [{"content": "Noor booked the Lisbon flight"}, {"content": other}]
        await call(client, "memory_write_batch", {"items": items})
        assert _depths(stack) == (2, 2)
    await drain(poller, timeout_s=180)  # ~3,000 tokens for the model, on a machine that may be busy
    assert count_memories(stack, tenant) == 4


class GatedEmbedder(HashEmbedder):
    """Hash vectors, given only once the test opens ``gate``: a batch of passages that takes as long as
    the test wants (a write of many chunks), ``embedding`` set while it waits."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.embedding = threading.Event()
        self.gate = threading.Event()

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        self.embedding.set()
        await anyio.to_thread.run_sync(self.gate.wait)
        return await super().embed_passages(texts)


@pytest.fixture
async def lanes_apart(stack: LocalStack, poller: SqsPoller) -> AsyncIterator[tuple[SqsPoller, GatedEmbedder]]:
    """The stack's queues drained, then a started poller whose write queue goes to a worker as the stack
    builds it and whose bulk queue goes to a second worker embedding with a ``GatedEmbedder``."""
    await drain(poller)
    settings = stack.require_settings()
    assert stack.queues is not None
    assert settings.bulk_queue_url is not None
    gated = GatedEmbedder(settings.embedding_dim)
    worker = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    bulk_worker = WriteJobWorker(
        lambda: build_container(settings, with_queue=False, verify_schema=False, embedder=gated)
    )
    apart = SqsPoller(
        stack.sqs_client(),
        stack.queues.writes,
        worker,
        function_name="embed_worker",
        wait_time_s=0,
        bulk_queue_url=settings.bulk_queue_url,
        bulk_handler=bulk_worker,
    ).start()
    try:
        yield apart, gated
    finally:
        gated.gate.set()
        await anyio.to_thread.run_sync(apart.stop, 60)
        await anyio.to_thread.run_sync(worker.close)
        await anyio.to_thread.run_sync(bulk_worker.close)


async def _status(client: Any, write_id: str) -> str:
    status = await call(client, "memory_status", {"ids": [write_id]})
    return str(status["writes"][0]["status"])


async def _stored(client: Any, write_id: str) -> str:
    """The write's status once it is no longer queued (60 s at most: a bound on a hang, not a timing;
    five calls a second stay within the key's rate limit)."""
    for _ in range(300):
        status = await _status(client, write_id)
        if status != "queued":
            break
        await anyio.sleep(0.2)
    return status


async def test_a_long_write_in_progress_holds_up_no_other_tenants_write(
    server: BackgroundServer,
    stack: LocalStack,
    token: str,
    lanes_apart: tuple[SqsPoller, GatedEmbedder],
) -> None:
    apart, gated = lanes_apart
    # Given tenant A's long write, being embedded by the bulk queue's worker (held there)
    async with mcp_client(server.url, token) as client:
        long = await call(client, "memory_write", {"content": "Quarterly notes on the Oslo depot. " * 150})
        assert await anyio.to_thread.run_sync(gated.embedding.wait, 60)
        # When tenant B's agent writes
        other = await mint(stack, f"t-agt-{uuid.uuid4().hex[:8]}")
        async with mcp_client(server.url, other) as agent:
            ack = await call(agent, "memory_write", {"content": "Ines moved the standup to 9:30"})
            # Then B's write is stored while A's is still in progress
            assert await _stored(agent, ack["id"]) == "stored"
        assert await _status(client, long["id"]) == "queued"
        # And A's is stored once its embedding ends, by the bulk queue's worker
        gated.gate.set()
        assert await _stored(client, long["id"]) == "stored"
    assert apart.bulk_batches >= 1


async def test_stopping_waits_for_the_bulk_batch_in_progress_and_deletes_it(
    server: BackgroundServer,
    stack: LocalStack,
    tenant: str,
    token: str,
    lanes_apart: tuple[SqsPoller, GatedEmbedder],
) -> None:
    apart, gated = lanes_apart
    # Given a long write the bulk queue's worker is embedding
    async with mcp_client(server.url, token) as client:
        await call(client, "memory_write", {"content": "Minutes of the Bergen planning day. " * 150})
    assert await anyio.to_thread.run_sync(gated.embedding.wait, 60)
    # When the poller is told to stop
    stopping = threading.Thread(target=apart.stop, args=(60,))
    stopping.start()
    stopping.join(0.5)
    # Then it waits for that batch (it cannot end before the embedding does)
    assert stopping.is_alive()
    gated.gate.set()
    await anyio.to_thread.run_sync(stopping.join, 60)
    assert not stopping.is_alive()
    # And the write is stored and its message deleted: nothing is left on either queue
    assert count_memories(stack, tenant) == 1
    assert _depths(stack) == (0, 0)
