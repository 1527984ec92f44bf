"""JobQueue over SQS (AWS, LocalStack or the moto emulator), via boto3 in a worker thread."""

from __future__ import annotations

from typing import Any

import anyio
from botocore.exceptions import BotoCoreError, ClientError

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

    Raises Unavailable when SQS refuses or cannot be reached, or no queue is configured for the kind.
    """

    def __init__(self, client: Any, write_queue_url: str, reflect_queue_url: str | None = None) -> None:
        self._client = client
        self._urls = {"memory.write": write_queue_url, "task.reflect": reflect_queue_url}

    def enqueue_sync(self, job: WriteJob | ReflectJob) -> None:
        url = self._urls.get(job.kind)
        if url is None:
            raise Unavailable(f"no queue configured for {job.kind} jobs")
        try:
            self._client.send_message(
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
