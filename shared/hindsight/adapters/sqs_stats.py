"""The QueueStats port on SQS (the local emulator or AWS): approximate depths of the write and reflection
queues and of their dead-letter queues, found through each queue's redrive policy."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hindsight.domain.errors import Unavailable

_ATTRIBUTES = [
    "ApproximateNumberOfMessages",
    "ApproximateNumberOfMessagesNotVisible",
    "ApproximateNumberOfMessagesDelayed",
    "RedrivePolicy",
]


def _int(attributes: dict[str, str], name: str) -> int | None:
    value = attributes.get(name)
    return int(value) if value is not None else None


class SqsQueueStats:
    """``depths()`` for the configured queues (None entries are skipped)."""

    def __init__(self, client: Any, queues: dict[str, str | None]) -> None:
        self._client = client
        self._queues = {name: url for name, url in queues.items() if url}

    def _depth(self, name: str, url: str) -> dict[str, object]:
        attributes = self._client.get_queue_attributes(QueueUrl=url, AttributeNames=_ATTRIBUTES)["Attributes"]
        entry: dict[str, object] = {
            "name": name,
            "queue": url.rsplit("/", 1)[-1],
            "visible": _int(attributes, "ApproximateNumberOfMessages"),
            "in_flight": _int(attributes, "ApproximateNumberOfMessagesNotVisible"),
            "delayed": _int(attributes, "ApproximateNumberOfMessagesDelayed"),
            "dlq": None,
            "dlq_visible": None,
            "max_receive_count": None,
        }
        redrive = attributes.get("RedrivePolicy")
        if redrive:
            policy = json.loads(redrive)
            dlq_name = str(policy["deadLetterTargetArn"]).rsplit(":", 1)[-1]
            dlq_url = self._client.get_queue_url(QueueName=dlq_name)["QueueUrl"]
            dlq = self._client.get_queue_attributes(
                QueueUrl=dlq_url, AttributeNames=["ApproximateNumberOfMessages"]
            )["Attributes"]
            entry |= {
                "dlq": dlq_name,
                "dlq_visible": _int(dlq, "ApproximateNumberOfMessages"),
                "max_receive_count": int(policy.get("maxReceiveCount", 0)) or None,
            }
        return entry

    async def depths(self) -> list[dict[str, object]]:
        try:
            return await asyncio.to_thread(
                lambda: [self._depth(name, url) for name, url in self._queues.items()]
            )
        except Exception as exc:  # botocore errors, connection refused
            raise Unavailable(f"the queue service cannot be reached: {type(exc).__name__}: {exc}") from exc
