"""Faults on real services, stopped and started by the tests, on a private stack (the session's stack is
shared by every other test): Postgres down while writes arrive, Redis down, the SQS emulator down at write
time, a worker crashing mid-batch with duplicates and a poison message in it, and a store that does not
match the configuration at start. Each test is bounded (< 30 s).

The private stack uses the hash embedder (these tests are about the plumbing, not retrieval quality),
its own SQS region (the emulator keeps queues per process and region), a 2 s database connection
timeout (an outage answers in seconds, not the default 10), and a 1 s visibility timeout on its queues
so failed messages come back quickly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx2
import psycopg
import pytest
import redis

from hindsight.api.lambda_http import LambdaHttpAdapter
from hindsight.api.mcp_server import create_http_app
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.errors import ConfigurationError
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import LocalLambdaContext, SqsPoller, to_lambda_event
from hindsight.local.redis_server import start_redis
from hindsight.local.serve import BackgroundServer
from hindsight.local.sqs_emulator import SqsEmulator, create_queues
from hindsight.local.stack import LocalStack
from tests.support import drain, load_event, mcp_client, tool_error

pytestmark = pytest.mark.integration
VISIBILITY_S = 1
MAX_RECEIVES = 3


def _fast_redelivery(stack: LocalStack) -> None:
    """Failed messages visible again after VISIBILITY_S; the DLQ after MAX_RECEIVES deliveries."""
    assert stack.queues is not None
    sqs = stack.sqs_client()
    for url, dlq in ((stack.queues.writes, stack.queues.writes_dlq),
                     (stack.queues.reflections, stack.queues.reflections_dlq)):  # fmt: skip
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"][
            "QueueArn"
        ]
        sqs.set_queue_attributes(
            QueueUrl=url,
            Attributes={
                "VisibilityTimeout": str(VISIBILITY_S),
                "RedrivePolicy": json.dumps(
                    {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": MAX_RECEIVES}
                ),
            },
        )


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    stack = LocalStack(
        tmp_path_factory.mktemp("faults"),
        ephemeral=True,
        embedder="hash",
        aws_region="eu-west-1",  # its own queues: the emulator's state is per process and region
        db_connect_timeout_s=2,
        queue_max_receive_count=MAX_RECEIVES,
    )
    with stack:
        _fast_redelivery(stack)
        yield stack


@pytest.fixture(scope="module")
def private_server(private: LocalStack) -> Iterator[BackgroundServer]:
    srv = BackgroundServer(private.require_settings()).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def private_poller(private: LocalStack) -> SqsPoller:
    return private.start_write_poller(background=False)


@pytest.fixture(scope="module")
def private_reflect_poller(private: LocalStack) -> SqsPoller:
    return private.start_reflect_poller(background=False)


@pytest.fixture
def private_tenant() -> str:
    return f"t-fault-{uuid.uuid4().hex[:8]}"


def _rows(stack: LocalStack, sql: str, *params: Any) -> int:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(sql, params).fetchone()  # type: ignore[arg-type]
    return int(row[0]) if row else 0


def _memories(stack: LocalStack, tenant: str) -> int:
    return _rows(stack, "SELECT count(*) FROM memories WHERE tenant_id = %s", tenant)


async def _error(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    return await tool_error(client, tool, args)


def _facts(n: int) -> list[str]:
    """n facts different enough never to be merged as near-duplicates."""
    words = [
        "copper",
        "violin",
        "glacier",
        "pepper",
        "orbit",
        "lantern",
        "meadow",
        "quartz",
        "harbor",
        "falcon",
    ]
    return [
        f"Fact {i}: the {words[i % 10]} project uses {words[(3 * i + 1) % 10]} code {i * 7919}"
        for i in range(n)
    ]


@pytest.mark.anyio
async def test_postgres_down_writes_are_acknowledged_then_stored_exactly_once_when_it_returns(
    private: LocalStack,
    private_server: BackgroundServer,
    private_poller: SqsPoller,
    private_tenant: str,
) -> None:
    n = 12
    token = await anyio.to_thread.run_sync(lambda: private.mint_token(private_tenant))
    cold_token = await anyio.to_thread.run_sync(lambda: private.mint_token(private_tenant, name="cold"))
    assert private.postgres is not None
    async with mcp_client(private_server.url, token) as client:
        await call(client, "memory_search", {"query": "warm the key cache"})  # the key is checked now
        await anyio.to_thread.run_sync(private.postgres.stop_server)
        try:
            # Writes go to the queue: acknowledged while the database is down.
            acks = [await call(client, "memory_write", {"content": fact}) for fact in _facts(n)]
            assert {a["status"] for a in acks} == {"queued"}
            # Reads need the database: a clear, retryable error (not a crash).
            down = await _error(client, "memory_search", {"query": "copper"})
            assert down["code"] == -32001
            assert down["kind"] == "unavailable"
            assert down["retryable"] is True
            # A key not yet checked cannot be verified: 503, retryable, not 401 and not 500.
            async with httpx2.AsyncClient(timeout=30) as http:
                response = await http.post(
                    private_server.url,
                    json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                    headers={
                        "authorization": f"Bearer {cold_token}",
                        "accept": "application/json, text/event-stream",
                    },
                )
            assert response.status_code == 503
            assert response.headers["retry-after"]
            assert response.json()["error"]["code"] == -32001
            # The worker fails the batch fast (one connection timeout, not one per job); messages return.
            started = time.monotonic()
            received = await anyio.to_thread.run_sync(private_poller.poll_once)
            assert received > 0
            assert time.monotonic() - started < 10
            assert private_poller.failures >= received
        finally:
            await anyio.to_thread.run_sync(private.postgres.start_server)
        # The database is back: the same server and worker recover without a restart.
        await drain(private_poller, timeout_s=30)
        assert _memories(private, private_tenant) == n
        assert _rows(private, "SELECT count(*) FROM write_results WHERE tenant_id = %s", private_tenant) == n
        status = await call(client, "memory_status", {"ids": [a["id"] for a in acks]})
        assert {w["status"] for w in status["writes"]} == {"stored"}
        found = await call(client, "memory_search", {"query": "violin project code"})
        assert found["count"] > 0


@pytest.mark.anyio
async def test_redis_down_search_and_writes_still_work_working_memory_says_unavailable(
    private: LocalStack,
    private_server: BackgroundServer,
    private_poller: SqsPoller,
    private_reflect_poller: SqsPoller,
    private_tenant: str,
) -> None:
    token = await anyio.to_thread.run_sync(lambda: private.mint_token(private_tenant))
    assert private.redis is not None
    port = private.redis.port
    assert port is not None
    async with mcp_client(private_server.url, token) as client:
        await call(client, "working_memory_set", {"session_id": "s", "key": "goal", "content": "ship v2"})
        before = await call(client, "memory_write", {"content": "The release train leaves on Thursdays"})
        await drain(private_poller, timeout_s=30)
        private.redis.stop()
        try:
            # Long-term memory does not need Redis: write, reflect, search, get, status all answer.
            ack = await call(client, "memory_write", {"content": "Hotfixes skip the release train"})
            reflected = await call(
                client, "task_reflect", {"task_id": "r-1", "goal": "Cut the release", "outcome": "success"}
            )
            hits = await call(client, "memory_search", {"query": "release train"})
            assert before["id"] in [h["memory"]["id"] for h in hits["results"]]
            await call(client, "memory_get", {"id": before["id"]})
            pending = await call(client, "memory_status", {"ids": [ack["id"]]})
            assert pending["writes"][0]["status"] in ("queued", "unknown")  # the queued half lives in Redis
            # The workers store without their Redis idempotency layer (Postgres is the last word).
            await drain(private_reflect_poller, timeout_s=30)
            await drain(private_poller, timeout_s=30)
            stored = await call(client, "memory_status", {"ids": [ack["id"], reflected["id"]]})
            assert [w["status"] for w in stored["writes"]] == ["stored", "stored"]
            # Working memory is Redis: a clear, retryable error.
            for tool, args in [
                ("working_memory_get", {"session_id": "s"}),
                ("working_memory_set", {"session_id": "s", "key": "k", "content": "v"}),
            ]:
                error = await _error(client, tool, args)
                assert error["code"] == -32001
                assert "working memory is unavailable" in error["message"]
                assert error["retryable"] is True
        finally:
            private.redis = await anyio.to_thread.run_sync(
                lambda: start_redis(private.data_dir / "redis", port=port)
            )
        # Back without restarting anything; the append-only file kept the session.
        session = await call(client, "working_memory_get", {"session_id": "s"})
        assert [i["content"] for i in session["items"]] == ["ship v2"]
    assert _memories(private, private_tenant) == 3


@pytest.mark.anyio
async def test_sqs_down_at_write_time_refuses_with_a_retryable_error_and_writes_nothing(
    private: LocalStack,
    private_server: BackgroundServer,
    private_poller: SqsPoller,
    private_tenant: str,
) -> None:
    token = await anyio.to_thread.run_sync(lambda: private.mint_token(private_tenant))
    assert private.sqs is not None
    port = private.sqs.port
    async with mcp_client(private_server.url, token) as client:
        old = await call(client, "memory_write", {"content": "The office opens at 9"})
        await drain(private_poller, timeout_s=30)
        await call(client, "working_memory_set", {"session_id": "s", "key": "plan", "content": "call Ana"})
        statuses = _queued_status_keys(private, private_tenant)
        private.sqs.stop()
        try:
            for tool, args in [
                ("memory_write", {"content": "The office now opens at 8"}),
                ("task_reflect", {"task_id": "t-9", "goal": "Book a room", "outcome": "failure"}),
                ("memory_update", {"id": old["id"], "action": "supersede", "content": "Opens at 8"}),
                ("working_memory_promote", {"session_id": "s", "key": "plan", "keep": False}),
            ]:
                error = await _error(client, tool, args)
                assert error["code"] == -32001, (tool, error)
                assert error["retryable"] is True
                assert "queue" in error["message"]
            # Nothing half-written: no queued status, no row, the promoted item is still in the session.
            assert _queued_status_keys(private, private_tenant) == statuses
            session = await call(client, "working_memory_get", {"session_id": "s", "key": "plan"})
            assert session["count"] == 1
            # Reads do not need the queue.
            await call(client, "memory_search", {"query": "office hours"})
        finally:
            private.sqs = SqsEmulator(port=port).start()  # same port: clients keep their endpoint
            private.queues = create_queues(
                private.sqs_client(), visibility_timeout_s=VISIBILITY_S, max_receive_count=MAX_RECEIVES
            )
        assert _memories(private, private_tenant) == 1
        again = await call(client, "memory_write", {"content": "The office now opens at 8"})
        await drain(private_poller, timeout_s=30)
        status = await call(client, "memory_status", {"ids": [again["id"]]})
        assert status["writes"][0]["status"] == "stored"


def _queued_status_keys(stack: LocalStack, tenant: str) -> int:
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:
        return sum(1 for _ in client.scan_iter(match=f"hs:op:{tenant}:*", count=1000))
    finally:
        client.close()


class Crash(BaseException):
    """The process dies: not an Exception, so no handler in the worker catches it."""


def _wait_for_expired_job_locks(stack: LocalStack, store_id: str, timeout_s: float) -> None:
    """Wait until no job's idempotency record is still in progress: a crashed invocation's record holds
    its job until the invocation's deadline (Powertools' ``in_progress_expiration``, in ms), and a
    redelivery before then is refused (and counts towards the dead-letter queue)."""
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            held = []
            for key in client.scan_iter(match=f"hindsight-job:{store_id}*"):
                raw = client.get(key)
                record = json.loads(raw) if raw and not key.endswith(b":lock") else {}
                if record.get("status") == "INPROGRESS" and record.get("in_progress_expiration"):
                    held.append(int(record["in_progress_expiration"]))
            if not held or max(held) < time.time() * 1000:
                return
            assert time.monotonic() < deadline, f"{len(held)} job locks still held after {timeout_s} s"
            time.sleep(0.05)
    finally:
        client.close()


@pytest.mark.parametrize("dies", ["before_commit", "after_commit"])
def test_a_worker_crash_mid_batch_with_duplicates_and_poison_stores_each_write_once(
    private: LocalStack, private_poller: SqsPoller, private_tenant: str, dies: str
) -> None:
    assert private.queues is not None
    sqs, url = private.sqs_client(), private.queues.writes
    jobs = [
        WriteJob(
            id=uuid.uuid4(),
            tenant_id=private_tenant,
            agent_id="default",
            submitted_at=datetime.now(UTC),
            draft=MemoryDraft(content=fact),
        )
        for fact in _facts(6)
    ]
    poison = '{"kind": "memory.write", "id": "not-a-uuid"}'
    for body in [job.model_dump_json() for job in jobs] + [jobs[0].model_dump_json(), poison]:
        sqs.send_message(QueueUrl=url, MessageBody=body)  # jobs[0] twice: a duplicate delivery
    received: list[dict[str, Any]] = []
    while len(received) < 8:
        got = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, AttributeNames=["All"]
        )
        received += got.get("Messages", [])

    settings = private.require_settings()
    dying = WriteJobWorker(lambda: build_container(settings, with_queue=False))
    try:
        container = dying.container()
        real_commit = container.store_memories.commit

        async def commit_then_die(items: Any) -> Any:
            # The batch commits in one transaction: the process dies before it, or after it (the rows
            # are in Postgres, the Redis records still say in progress, nothing is acknowledged).
            if dies == "after_commit":
                await real_commit(items)
            raise Crash

        container.store_memories.commit = commit_then_die  # type: ignore[method-assign]
        event = to_lambda_event(received, "arn:aws:sqs:us-east-1:000000000000:hindsight-writes", "us-east-1")
        with pytest.raises(Crash):
            dying(event, LocalLambdaContext("embed_worker", timeout_s=2))
    finally:
        dying.close()
    assert _memories(private, private_tenant) == (6 if dies == "after_commit" else 0)

    # Nothing was deleted: every message comes back after its visibility timeout. The dying batch's
    # idempotency locks expire with the crashed invocation's time (2 s); then the normal worker runs.
    _wait_for_expired_job_locks(private, container.store_id, timeout_s=10)
    assert private_poller.drain(timeout_s=25)
    assert _memories(private, private_tenant) == 6
    assert _rows(private, "SELECT count(*) FROM write_results WHERE tenant_id = %s", private_tenant) == 6
    dead = sqs.receive_message(QueueUrl=private.queues.writes_dlq, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in dead] == [poison]
    for message in dead:
        sqs.delete_message(QueueUrl=private.queues.writes_dlq, ReceiptHandle=message["ReceiptHandle"])


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # uvicorn's exit
def test_a_store_that_does_not_match_the_configuration_stops_every_process_at_start(
    private: LocalStack, tmp_path: Path
) -> None:
    wrong = private.require_settings().replace(embedding_dim=64)  # the column is vector(384)
    why = "HINDSIGHT_EMBEDDING_DIM is 64"
    # The MCP function (Lambda): the first invocation raises, naming both dimensions.
    adapter = LambdaHttpAdapter(create_http_app(wrong, lambda: build_container(wrong)), startup_timeout_s=20)
    with pytest.raises(ConfigurationError, match=why):
        adapter(load_event("function_url_tools_list.json"), LocalLambdaContext("mcp"))
    # The embedding worker: raises before touching a record, so the batch is retried, never dropped.
    worker = WriteJobWorker(lambda: build_container(wrong, with_queue=False))
    event = to_lambda_event(
        [{"MessageId": "m", "ReceiptHandle": "r", "Body": "{}"}], "arn:aws:sqs:us-east-1:0:q", "us-east-1"
    )
    with pytest.raises(ConfigurationError, match=why):
        worker(event, LocalLambdaContext("embed_worker"))
    # The local HTTP server: does not start, and its log says why.
    server = BackgroundServer(wrong)
    lines = _Lines()
    logging.getLogger("uvicorn.error").addHandler(lines)
    try:
        with pytest.raises(RuntimeError, match="did not start"):
            server.start(timeout_s=20)
    finally:
        logging.getLogger("uvicorn.error").removeHandler(lines)
    assert any(why in line or "startup failed" in line.lower() for line in lines.lines), lines.lines
    # A schema older than the code: also refused at start, saying what to run.
    fresh = private.require_settings().replace(database_url=_empty_database(private))
    with pytest.raises(ConfigurationError, match="hindsight migrate"):
        asyncio.run(build_container(fresh, with_queue=False))


def _empty_database(stack: LocalStack) -> str:
    url = stack.require_settings().require_database_url()
    name = f"empty_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return url.replace("/hindsight?", f"/{name}?")
