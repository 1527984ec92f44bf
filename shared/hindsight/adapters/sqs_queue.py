"""JobQueue over SQS (AWS, LocalStack or the moto emulator), via boto3 in threads the queue keeps."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import anyio

from hindsight.domain.errors import Unavailable
from hindsight.domain.limits import MAX_JOB_BYTES
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob

log = logging.getLogger(__name__)
BATCH_ENTRIES = 10
"""Entries per ``SendMessageBatch`` (SQS's maximum)."""
BATCH_BYTES = MAX_JOB_BYTES
"""Bodies per ``SendMessageBatch`` together (SQS's classic batch payload limit, 256 KiB, which every queue
and emulator accepts): a request of ten large jobs is split."""
SEND_THREADS = 10
"""Threads sending at once: botocore's default connection pool per client (``max_pool_connections``),
so a further thread would only wait for a connection."""
T = TypeVar("T")


def sqs_client(region: str, endpoint_url: str | None) -> Any:
    """A boto3 SQS client with short timeouts and standard retries (a write must fail fast)."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 3, "mode": "standard"})
    return boto3.client("sqs", region_name=region, endpoint_url=endpoint_url, config=config)


class SqsJobQueue:
    """The JobQueue port: write jobs to the write queue (``bulk``-lane jobs to the bulk queue, when one is
    configured; else to the write queue too), reflection jobs to the reflection queue.

    ``client`` is a boto3 SQS client, or a function making one: then it is made on the first enqueue,
    so a cold start that only answers reads never imports boto3 (~0.2 s of CPU, bench/latency.py).

    Raises Unavailable when SQS refuses or cannot be reached, or no queue is configured for the kind.
    """

    def __init__(
        self,
        client: Any | Callable[[], Any],
        write_queue_url: str,
        reflect_queue_url: str | None = None,
        bulk_queue_url: str | None = None,
    ) -> None:
        self._client = None if callable(client) else client
        self._make_client = client if callable(client) else None
        self._lock = threading.Lock()
        self._urls = {"memory.write": write_queue_url, "task.reflect": reflect_queue_url}
        self._bulk_url = bulk_queue_url or write_queue_url
        self._threads: ThreadPoolExecutor | None = None

    async def _in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in one of the queue's own threads, with the caller's context variables (the
        correlation id of its log lines), as ``anyio.to_thread.run_sync`` would: the caller waits for it
        even when cancelled (a send in flight is never abandoned).

        The threads outlive the calls. anyio's worker threads stop when the event loop's root task ends,
        and on Lambda every invocation is a root task of its own (Mangum runs each on the instance's
        loop), so each write started a thread and stopped it again on the acknowledgement's path
        (bench/ab_write_ack.py)."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(SEND_THREADS, thread_name_prefix="sqs-send")
        call = functools.partial(contextvars.copy_context().run, fn, *args)
        with anyio.CancelScope(shield=True):
            result: T = await asyncio.wrap_future(self._threads.submit(call))
        return result

    def _url(self, job: WriteJob | ReflectJob) -> str | None:
        """The queue ``job`` goes to: its lane's for a write job, its kind's otherwise."""
        if isinstance(job, WriteJob) and job.lane == "bulk":
            return self._bulk_url
        return self._urls.get(job.kind)

    def client(self) -> Any:
        """The boto3 client, made once (enqueues run in worker threads, hence the lock)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    assert self._make_client is not None
                    self._client = self._make_client()
        return self._client

    def enqueue_many_sync(self, jobs: Sequence[WriteJob]) -> list[Unavailable | None]:
        """See ``JobQueue.enqueue_many``: one ``SendMessageBatch`` per up to 10 jobs (fewer when their
        bodies pass 256 KiB together). An entry SQS reports in ``Failed`` is that job's error; a request
        that fails as a whole (SQS down, throttled) is the error of each of its jobs; the other requests
        still go."""
        from botocore.exceptions import BotoCoreError, ClientError

        errors: list[Unavailable | None] = [None] * len(jobs)
        bodies = [job.model_dump_json() for job in jobs]
        for url, chunk in _requests(bodies, [self._url(job) or "" for job in jobs]):
            entries = [
                {
                    "Id": str(index),
                    "MessageBody": bodies[index],
                    "MessageAttributes": {
                        "kind": {"DataType": "String", "StringValue": jobs[index].kind},
                        "tenant_id": {"DataType": "String", "StringValue": jobs[index].tenant_id},
                    },
                }
                for index in chunk
            ]
            try:
                answer = self.client().send_message_batch(QueueUrl=url, Entries=entries)
            except (BotoCoreError, ClientError) as exc:
                for index in chunk:
                    errors[index] = Unavailable(f"the write queue did not accept the batch: {exc}")
                continue
            sent = {entry["Id"] for entry in answer.get("Successful", [])}
            failed = {entry["Id"]: entry for entry in answer.get("Failed", [])}
            for index in chunk:
                entry_id = str(index)
                if entry_id in failed:
                    entry = failed[entry_id]
                    errors[index] = Unavailable(
                        f"the write queue refused this item ({entry.get('Code', 'error')}: "
                        f"{entry.get('Message', '')})"
                    )
                elif entry_id not in sent:  # neither sent nor failed: never assume it was queued
                    errors[index] = Unavailable("the write queue did not confirm this item")
        refused = sum(e is not None for e in errors)
        if refused:
            log.warning("SendMessageBatch: %d of %d write jobs not queued", refused, len(jobs))
        return errors

    async def enqueue_many(self, jobs: Sequence[WriteJob]) -> list[Unavailable | None]:
        return await self._in_thread(self.enqueue_many_sync, jobs)

    def enqueue_sync(self, job: WriteJob | ReflectJob) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        url = self._url(job)
        if url is None:
            raise Unavailable(f"no queue configured for {job.kind} jobs")
        try:
            self.client().send_message(
                QueueUrl=url,
                MessageBody=job.model_dump_json(),
                MessageAttributes={
                    "kind": {"DataType": "String", "StringValue": job.kind},
                    "tenant_id": {"DataType": "String", "StringValue": job.tenant_id},
                },
            )
        except (BotoCoreError, ClientError) as exc:
            raise Unavailable(f"the write queue did not accept the job: {exc}") from exc

    async def enqueue(self, job: WriteJob | ReflectJob) -> None:
        await self._in_thread(self.enqueue_sync, job)


def _requests(bodies: Sequence[str], urls: Sequence[str]) -> Iterator[tuple[str, list[int]]]:
    """(queue URL, indexes of ``bodies``) per ``SendMessageBatch``: the jobs of each queue, in order,
    grouped as ``_chunks`` does."""
    for url in dict.fromkeys(urls):
        mine = [index for index, u in enumerate(urls) if u == url]
        for chunk in _chunks([bodies[index] for index in mine]):
            yield url, [mine[position] for position in chunk]


def _chunks(bodies: Sequence[str]) -> Iterator[list[int]]:
    """Indexes of ``bodies`` grouped into requests of at most BATCH_ENTRIES entries and BATCH_BYTES
    bytes (UTF-8), in order. A body is never over BATCH_BYTES (``domain.limits.ensure_job_fits``)."""
    chunk: list[int] = []
    size = 0
    for index, body in enumerate(bodies):
        length = len(body.encode("utf-8"))
        if chunk and (len(chunk) == BATCH_ENTRIES or size + length > BATCH_BYTES):
            yield chunk
            chunk, size = [], 0
        chunk.append(index)
        size += length
    if chunk:
        yield chunk
