"""The SQS job queue adapter without SQS: the client is made on the first enqueue, once."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
import uuid
from datetime import UTC, datetime
from typing import Any

import anyio

from hindsight.adapters.sqs_queue import SEND_THREADS, SqsJobQueue
from hindsight.domain.memory import MemoryDraft, WriteJob


class RecordingClient:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **kwargs: Any) -> None:
        self.sent.append(kwargs)


def _job() -> WriteJob:
    return WriteJob(
        id=uuid.uuid4(),
        tenant_id="t1",
        agent_id="a1",
        submitted_at=datetime(2026, 12, 1, tzinfo=UTC),
        draft=MemoryDraft(content="the deploy moved to Thursday"),
    )


def test_a_client_factory_runs_on_the_first_enqueue_and_only_once() -> None:
    # Given a queue built with a client factory (so a cold start that only reads never imports boto3)
    made: list[RecordingClient] = []

    def factory() -> RecordingClient:
        made.append(RecordingClient())
        return made[-1]

    queue = SqsJobQueue(factory, "http://sqs/writes")
    assert made == []
    # When two jobs are sent
    first, second = _job(), _job()
    queue.enqueue_sync(first)
    queue.enqueue_sync(second)
    # Then one client was made and both bodies went to the write queue
    assert len(made) == 1
    sent = made[0].sent
    assert [m["QueueUrl"] for m in sent] == ["http://sqs/writes"] * 2
    assert [json.loads(m["MessageBody"])["id"] for m in sent] == [str(first.id), str(second.id)]


def test_a_client_object_is_used_as_given() -> None:
    client = RecordingClient()
    queue = SqsJobQueue(client, "http://sqs/writes")
    queue.enqueue_sync(_job())
    assert queue.client() is client
    assert len(client.sent) == 1


class BatchClient:
    """Answers SendMessageBatch like SQS: ``failed`` entry ids are reported Failed; ``down``: the whole
    request raises."""

    def __init__(self, failed: frozenset[str] = frozenset(), down: bool = False) -> None:
        self.requests: list[list[dict[str, Any]]] = []
        self.failed = failed
        self.down = down

    def send_message_batch(self, QueueUrl: str, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        from botocore.exceptions import EndpointConnectionError

        self.requests.append(Entries)
        if self.down:
            raise EndpointConnectionError(endpoint_url=QueueUrl)
        return {
            "Successful": [{"Id": e["Id"]} for e in Entries if e["Id"] not in self.failed],
            "Failed": [
                {"Id": e["Id"], "SenderFault": False, "Code": "InternalError", "Message": "try again"}
                for e in Entries
                if e["Id"] in self.failed
            ],
        }


def test_many_jobs_go_ten_to_a_request_in_order() -> None:
    client = BatchClient()
    jobs = [_job() for _ in range(23)]
    assert SqsJobQueue(client, "http://sqs/writes").enqueue_many_sync(jobs) == [None] * 23
    assert [len(r) for r in client.requests] == [10, 10, 3]
    sent = [json.loads(e["MessageBody"])["id"] for r in client.requests for e in r]
    assert sent == [str(j.id) for j in jobs]


def test_a_request_is_split_when_the_bodies_pass_256_kib_together() -> None:
    client = BatchClient()
    big = [
        WriteJob(
            id=uuid.uuid4(),
            tenant_id="t1",
            agent_id="a1",
            submitted_at=datetime(2026, 12, 1, tzinfo=UTC),
            draft=MemoryDraft(content="€" * 30_000),  # ~90 KB as UTF-8
        )
        for _ in range(5)
    ]
    assert SqsJobQueue(client, "http://sqs/writes").enqueue_many_sync(big) == [None] * 5
    assert [len(r) for r in client.requests] == [2, 2, 1]
    for request in client.requests:
        assert sum(len(e["MessageBody"].encode()) for e in request) <= 262_144


def test_failed_entries_and_failed_requests_are_errors_of_their_jobs_only() -> None:
    jobs = [_job() for _ in range(12)]
    # entry "3" of the first request fails; the second request (entries 10 and 11) is fine
    errors = SqsJobQueue(BatchClient(failed=frozenset({"3"})), "http://sqs/writes").enqueue_many_sync(jobs)
    assert [i for i, e in enumerate(errors) if e is not None] == [3]
    assert "InternalError" in str(errors[3])
    # the queue unreachable: every job has its error, none is dropped silently
    down = SqsJobQueue(BatchClient(down=True), "http://sqs/writes").enqueue_many_sync(jobs)
    assert all(e is not None for e in down)
    assert len(down) == 12


class LaneClient(RecordingClient):
    """Records both kinds of send, with their queue URLs; every entry is accepted."""

    def send_message_batch(self, **kwargs: Any) -> dict[str, Any]:
        self.sent.append(kwargs)
        return {"Successful": [{"Id": e["Id"]} for e in kwargs["Entries"]]}


def test_each_job_goes_to_its_lanes_queue() -> None:
    # Given a queue with a bulk lane and a mixed batch
    client = LaneClient()
    queue = SqsJobQueue(client, "http://sqs/writes", bulk_queue_url="http://sqs/bulk")
    jobs = [_job(), _job().model_copy(update={"lane": "bulk"}), _job()]
    # When they are sent together
    assert queue.enqueue_many_sync(jobs) == [None, None, None]
    # Then one request per queue, each with its own jobs, the lane kept in the body
    by_url = {m["QueueUrl"]: [json.loads(e["MessageBody"]) for e in m["Entries"]] for m in client.sent}
    assert [b["id"] for b in by_url["http://sqs/writes"]] == [str(jobs[0].id), str(jobs[2].id)]
    assert [(b["id"], b["lane"]) for b in by_url["http://sqs/bulk"]] == [(str(jobs[1].id), "bulk")]
    queue.enqueue_sync(jobs[1])  # a re-enqueued bulk job (the stuck-work sweep) returns to its lane
    assert client.sent[-1]["QueueUrl"] == "http://sqs/bulk"
    # And without a bulk queue configured, bulk jobs share the write queue
    plain = SqsJobQueue(LaneClient(), "http://sqs/writes")
    plain.enqueue_sync(jobs[1])
    assert plain.client().sent[-1]["QueueUrl"] == "http://sqs/writes"


class ThreadRecordingClient(LaneClient):
    """Records the thread each send runs in, and a context variable as that thread sees it."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[threading.Thread] = []
        self.seen: list[str | None] = []

    def send_message(self, **kwargs: Any) -> None:
        self.threads.append(threading.current_thread())
        self.seen.append(REQUEST.get())
        super().send_message(**kwargs)

    def send_message_batch(self, **kwargs: Any) -> dict[str, Any]:
        self.threads.append(threading.current_thread())
        self.seen.append(REQUEST.get())
        return super().send_message_batch(**kwargs)


REQUEST: contextvars.ContextVar[str | None] = contextvars.ContextVar("request", default=None)


def test_sends_of_successive_lambda_invocations_reuse_the_queues_thread() -> None:
    # Given one event loop kept across invocations, each running as a task of its own (as Mangum runs
    # a Lambda instance's requests; anyio's worker thread stopped with each such task)
    client = ThreadRecordingClient()
    queue = SqsJobQueue(client, "http://sqs/writes")
    loop = asyncio.new_event_loop()

    async def invocation(name: str) -> None:
        REQUEST.set(name)
        await queue.enqueue(_job())
        await queue.enqueue_many([_job()])

    names = [f"invocation-{i}" for i in range(3 * SEND_THREADS)]
    try:
        # When each of many invocations sends a job and a batch
        for name in names:
            loop.run_until_complete(invocation(name))
    finally:
        loop.close()
    # Then the sends ran in the queue's few threads, none started per invocation, none the loop's
    assert len(client.sent) == 2 * len(names)
    assert len(set(client.threads)) <= SEND_THREADS
    assert threading.main_thread() not in client.threads
    # And each saw its caller's context (the correlation id of its log lines)
    assert client.seen == [name for name in names for _ in range(2)]


class HeldClient(RecordingClient):
    """A send that stays in flight until ``release`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.started, self.release = threading.Event(), threading.Event()
        self.finished = False

    def send_message(self, **kwargs: Any) -> None:
        self.started.set()
        self.release.wait(10)
        super().send_message(**kwargs)
        self.finished = True


def test_a_cancelled_caller_still_waits_for_its_send_in_flight() -> None:
    client = HeldClient()
    queue = SqsJobQueue(client, "http://sqs/writes")

    async def cancel_during_the_send() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(queue.enqueue, _job())
            await anyio.to_thread.run_sync(client.started.wait)
            group.cancel_scope.cancel()  # e.g. the client went away mid-write
            threading.Timer(0.05, client.release.set).start()
        # the group ends only once the send it was waiting on is over: nothing is abandoned mid-flight
        assert client.finished

    asyncio.run(cancel_during_the_send())
