"""JobQueue over SQS (AWS, LocalStack or the moto emulator), via boto3 in a worker thread."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import anyio

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob


def sqs_client(region: str, endpoint_url: str | None) -> Any:
    """A boto3 SQS client with short timeouts and standard retries (a write must fail fast)."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 3, "mode": "standard"})
    return boto3.client("sqs", region_name=region, endpoint_url=endpoint_url, config=config)


class SqsJobQueue:
    """The JobQueue port: write jobs to the write queue, reflection jobs to the reflection queue.

    ``client`` is a boto3 SQS client, or a function making one: then it is made on the first enqueue,
    so a cold start that only answers reads never imports boto3 (~0.2 s of CPU, bench/latency.py).

    Raises Unavailable when SQS refuses or cannot be reached, or no queue is configured for the kind.
    """

    def __init__(
        self, client: Any | Callable[[], Any], write_queue_url: str, reflect_queue_url: str | None = None
    ) -> None:
        self._client = None if callable(client) else client
        self._make_client = client if callable(client) else None
        self._lock = threading.Lock()
        self._urls = {"memory.write": write_queue_url, "task.reflect": reflect_queue_url}

    def client(self) -> Any:
        """The boto3 client, made once (enqueues run in worker threads, hence the lock)."""
        if self._client is None:
            with self._lock:
                if self._client is None:
                    assert self._make_client is not None
                    self._client = self._make_client()
        return self._client

    def enqueue_sync(self, job: WriteJob | ReflectJob) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        url = self._urls.get(job.kind)
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
        await anyio.to_thread.run_sync(self.enqueue_sync, job)
