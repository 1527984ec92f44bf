"""The asynchronous pipeline against real services: SQS emulator over HTTP (moto server), Postgres,
Redis. Redelivery, poison messages and the DLQ, crashes before acknowledgement, reflection, the write
filter, redaction, chunking, operation status and the stuck-work sweep."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import LocalLambdaContext, SqsPoller, to_lambda_event
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import count_memories, drain, mcp_client

pytestmark = pytest.mark.integration


def _job(tenant: str, content: str, **draft: Any) -> WriteJob:
    return WriteJob(
        id=uuid.uuid4(),
        tenant_id=tenant,
        agent_id="default",
        submitted_at=datetime.now(UTC),
        draft=MemoryDraft(content=content, **draft),
    )


def _event(jobs: list[WriteJob], extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    messages = [{"MessageId": f"m-{j.id}", "ReceiptHandle": "r", "Body": j.model_dump_json()} for j in jobs]
    return to_lambda_event(
        messages + (extra or []), "arn:aws:sqs:us-east-1:123456789012:hindsight-writes", "us-east-1"
    )


def _db(stack: LocalStack) -> psycopg.Connection[Any]:
    return psycopg.connect(stack.require_settings().require_database_url())


@pytest.fixture
def worker(stack: LocalStack) -> Any:
    settings = stack.require_settings()
    w = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    yield w
    w.close()


def test_redelivered_and_duplicated_messages_store_one_memory(
    worker: WriteJobWorker, stack: LocalStack, tenant: str
) -> None:
    job = _job(tenant, "The staging database moved to eu-west-1")
    batch = _event([job, job])  # the same job twice in one batch (at-least-once delivery)
    assert worker(batch, LocalLambdaContext("w")) == {"batchItemFailures": []}
    assert worker(_event([job]), LocalLambdaContext("w")) == {"batchItemFailures": []}  # redelivery later
    assert count_memories(stack, tenant) == 1
    with _db(stack) as conn:
        assert conn.execute("SELECT count(*) FROM write_results WHERE job_id = %s", (job.id,)).fetchone() == (
            1,
        )


def test_a_poison_record_fails_alone(worker: WriteJobWorker, stack: LocalStack, tenant: str) -> None:
    facts = ["The Orion project ships in June", "Lena leads the design review", "Invoices go out on Fridays"]
    good = [_job(tenant, fact) for fact in facts]
    poison = {"MessageId": "poison", "ReceiptHandle": "r", "Body": json.dumps({"kind": "memory.write"})}
    response = worker(_event(good, [poison]), LocalLambdaContext("w"))
    assert response == {"batchItemFailures": [{"itemIdentifier": "poison"}]}
    assert count_memories(stack, tenant) == 3


def test_poison_message_lands_in_the_dlq_after_max_receives(
    worker: WriteJobWorker, stack: LocalStack, tenant: str
) -> None:
    sqs = stack.sqs_client()
    dlq = sqs.create_queue(QueueName=f"dlq-{tenant}")["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    queue = sqs.create_queue(
        QueueName=f"q-{tenant}",
        Attributes={
            "VisibilityTimeout": "1",
            "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2}),
        },
    )["QueueUrl"]
    sqs.send_message(QueueUrl=queue, MessageBody=_job(tenant, "A fine memory").model_dump_json())
    sqs.send_message(QueueUrl=queue, MessageBody='{"kind": "memory.write", "id": "not-a-uuid"}')
    poller = SqsPoller(sqs, queue, worker, function_name="embed_worker", wait_time_s=0)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        poller.poll_once()
        moved = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["ApproximateNumberOfMessages"])
        if moved["Attributes"]["ApproximateNumberOfMessages"] == "1":
            break
        time.sleep(0.3)
    dead = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in dead] == ['{"kind": "memory.write", "id": "not-a-uuid"}']
    assert count_memories(stack, tenant) == 1
    assert poller.failures >= 2


def test_a_worker_that_dies_before_acknowledging_stores_exactly_once_on_redelivery(
    stack: LocalStack, poller: SqsPoller, tenant: str
) -> None:
    sqs = stack.sqs_client()
    settings = stack.require_settings()
    job = _job(tenant, "The quarterly report is due on the 15th")
    sqs.send_message(QueueUrl=settings.require_write_queue_url(), MessageBody=job.model_dump_json())
    received = sqs.receive_message(
        QueueUrl=settings.require_write_queue_url(),
        MaxNumberOfMessages=1,
        WaitTimeSeconds=2,
        AttributeNames=["All"],
    )["Messages"]
    dying = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    try:  # the worker stores the batch, then "crashes": no delete, the message comes back after its timeout
        dying(
            to_lambda_event(received, "arn:aws:sqs:us-east-1:123456789012:hindsight-writes", "us-east-1"),
            LocalLambdaContext("w"),
        )
    finally:
        dying.close()
    sqs.change_message_visibility(
        QueueUrl=settings.require_write_queue_url(),
        ReceiptHandle=received[0]["ReceiptHandle"],
        VisibilityTimeout=0,
    )
    assert poller.drain(30)
    assert count_memories(stack, tenant) == 1


def test_powertools_idempotency_answers_a_redelivery_from_redis(
    worker: WriteJobWorker, stack: LocalStack, tenant: str
) -> None:
    job = _job(tenant, "Alex's birthday is on 4 March")
    worker(_event([job]), LocalLambdaContext("w"))
    with _db(stack) as conn:  # make Postgres unable to answer this job again
        conn.execute("DELETE FROM write_results WHERE job_id = %s", (job.id,))
        conn.execute("DELETE FROM memories WHERE id = %s", (job.id,))
    assert worker(_event([job]), LocalLambdaContext("w")) == {"batchItemFailures": []}
    assert count_memories(stack, tenant) == 0  # answered from the Redis idempotency record, not re-stored


def test_a_new_database_is_not_answered_by_the_idempotency_records_of_another(
    stack: LocalStack, tenant: str
) -> None:
    """A wiped database (a deleted local data folder) sharing the Redis must store redelivered jobs."""
    settings = stack.require_settings()
    job = _job(tenant, "The release train leaves on Fridays")
    first = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    try:
        first(_event([job]), LocalLambdaContext("w"))
    finally:
        first.close()
    with _db(stack) as conn:
        row = conn.execute("SELECT value FROM hindsight_meta WHERE name = 'store_id'").fetchone()
        assert row is not None
        assert row[0]
        conn.execute("DELETE FROM write_results WHERE job_id = %s", (job.id,))
        conn.execute("DELETE FROM memories WHERE id = %s", (job.id,))
        conn.execute("UPDATE hindsight_meta SET value = %s WHERE name = 'store_id'", (str(uuid.uuid4()),))
    try:
        second = WriteJobWorker(lambda: build_container(settings, with_queue=False))
        try:
            assert second(_event([job]), LocalLambdaContext("w")) == {"batchItemFailures": []}
        finally:
            second.close()
        assert count_memories(stack, tenant) == 1
    finally:
        with _db(stack) as conn:
            conn.execute("UPDATE hindsight_meta SET value = %s WHERE name = 'store_id'", (row[0],))


def test_long_content_is_chunked_and_found_by_its_last_part(
    worker: WriteJobWorker, stack: LocalStack, tenant: str
) -> None:
    filler = " ".join(
        f"Paragraph {i} discusses routine budget items and meeting logistics." for i in range(80)
    )
    content = filler + " Finally, the launch code name was chosen: Operation Kingfisher."
    job = _job(tenant, content)
    worker(_event([job]), LocalLambdaContext("w"))
    with _db(stack) as conn:
        (chunks,) = conn.execute(
            "SELECT count(*) FROM memory_chunks WHERE memory_id = %s", (job.id,)
        ).fetchone()
    assert chunks >= 3

    async def search() -> list[Any]:
        from hindsight.domain.auth import Principal
        from hindsight.usecases.recall import RecallQuery

        container = await build_container(stack.require_settings(), with_queue=False)
        try:
            return await container.recall(
                Principal(tenant_id=tenant, key_id="k"),
                None,
                RecallQuery(text="what was the launch code name?", top_k=3),
            )
        finally:
            await container.aclose()

    hits = asyncio.run(search())
    assert hits[0].memory.id == job.id
    assert hits[0].memory.content == content  # the whole memory, not the chunk


pytestmark_async = pytest.mark.anyio


@pytest.mark.anyio
async def test_task_reflect_becomes_one_episode(
    server: BackgroundServer, reflect_poller: SqsPoller, token: str
) -> None:
    report = {
        "task_id": "pay-7",
        "goal": "Charge the customer through the payments API",
        "steps": [
            "Called POST /charges",
            "Got HTTP 429 Too Many Requests",
            "Waited 30 seconds",
            "Retried POST /charges",
            "Charge succeeded",
        ],
        "outcome": "success",
        "entities": {"customer_id": "c-881"},
    }
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "task_reflect", report)
        again = await call(client, "task_reflect", report)
        assert again["id"] == ack["id"]
        await drain(reflect_poller)
        status = await call(client, "memory_status", {"ids": [ack["id"]]})
        assert status["writes"][0]["status"] == "stored"
        detail = await call(client, "memory_get", {"id": ack["id"]})
    memory = detail["memory"]
    assert memory["layer"] == "episodic"
    assert memory["outcome"] == "success"
    assert 1 <= len(memory["key_decisions"]) <= 3
    assert "429" in memory["lessons"]
    assert memory["entities"]["customer_id"] == "c-881"


@pytest.mark.anyio
async def test_the_write_filter_skips_small_talk_and_keeps_preferences(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        chat = await call(client, "memory_write", {"content": "ok thanks!", "filter": True})
        pref = await call(
            client, "memory_write", {"content": "From now on I prefer answers in German", "filter": True}
        )
        queued = await call(client, "memory_status", {"ids": [chat["id"], pref["id"]]})
        assert [w["status"] for w in queued["writes"]] == ["queued", "queued"]
        await drain(poller)
        done = await call(client, "memory_status", {"ids": [chat["id"], pref["id"]]})
    assert [w["status"] for w in done["writes"]] == ["skipped", "stored"]
    assert "not worth remembering" in done["writes"][0]["reason"]
    assert count_memories(stack, tenant) == 1


@pytest.mark.anyio
async def test_secrets_and_personal_data_are_redacted_before_storage(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client,
            "memory_write",
            {
                "content": "Deploy key is AKIAIOSFODNN7EXAMPLE and Maya's email is maya@example.com",
                "metadata": {"note": "password: hunter2"},
            },
        )
        await drain(poller)
    with _db(stack) as conn:
        content, metadata = conn.execute(
            "SELECT content, metadata FROM memories WHERE id = %s", (ack["id"],)
        ).fetchone()  # type: ignore[misc]
    assert "AKIA" not in content
    assert "maya@example.com" not in content
    assert "[REDACTED:aws_access_key]" in content
    assert "[REDACTED:email]" in content
    assert metadata == {"note": "password: [REDACTED:password]"}


def test_the_sweep_re_enqueues_work_lost_from_the_queue(
    stack: LocalStack, poller: SqsPoller, tenant: str
) -> None:
    from hindsight.domain.auth import Principal

    settings = stack.require_settings()

    async def write_then_lose() -> str:
        container = await build_container(settings)
        try:
            assert container.remember is not None
            ack = await container.remember(
                Principal(tenant_id=tenant, key_id="k"),
                None,
                MemoryDraft(content="The office wifi password changed in May"),
            )
            return str(ack.id)
        finally:
            await container.aclose()

    job_id = asyncio.run(write_then_lose())
    stack.sqs_client().purge_queue(QueueUrl=settings.require_write_queue_url())  # the message is gone
    assert poller.drain(10)
    assert count_memories(stack, tenant) == 0

    async def sweep() -> int:
        from datetime import timedelta

        container = await build_container(settings)
        try:
            assert container.sweeper is not None
            return await container.sweeper.sweep(timedelta(seconds=0))
        finally:
            await container.aclose()

    assert asyncio.run(sweep()) >= 1
    assert poller.drain(30)
    assert count_memories(stack, tenant) == 1
    with _db(stack) as conn:
        assert conn.execute("SELECT outcome FROM write_results WHERE job_id = %s", (job_id,)).fetchone() == (
            "stored",
        )
