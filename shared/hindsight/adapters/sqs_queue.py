"""JobQueue over SQS (AWS, LocalStack or the moto emulator), via boto3 in a worker thread."""

from __future__ import annotations

from typing import Any

import anyio
from botocore.exceptions import BotoCoreError, ClientError

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob


def sqs_client(region: str, endpoint_url: str | None) -> Any:
    """A boto3 SQS client with short timeouts and standard retries (a write must fail fast)."""
    import boto3
    from botocore.config import Config

    config = Config(connect_timeout=2, read_timeout=5, retries={"max_attempts": 3, "mode": "standard"})
    return boto3.client("sqs", region_name=region, endpoint_url=endpoint_url, config=config)


class SqsJobQueue:
    """The JobQueue port. Raises Unavailable when SQS refuses or cannot be reached."""

    def __init__(self, client: Any, queue_url: str) -> None:
        self._client = client
        self._queue_url = queue_url

    def enqueue_sync(self, job: WriteJob) -> None:
        try:
            self._client.send_message(
                QueueUrl=self._queue_url,
                MessageBody=job.model_dump_json(),
                MessageAttributes={
                    "kind": {"DataType": "String", "StringValue": job.kind},
                    "tenant_id": {"DataType": "String", "StringValue": job.tenant_id},
                },
            )
        except (BotoCoreError, ClientError) as exc:
            raise Unavailable(f"the write queue did not accept the job: {exc}") from exc

    async def enqueue(self, job: WriteJob) -> None:
        await anyio.to_thread.run_sync(self.enqueue_sync, job)
