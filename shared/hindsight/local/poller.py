"""A local stand-in for Lambda's SQS event source mapping.

It long-polls a queue, hands the messages to a worker handler as the same event Lambda would send
(``{"Records": [...]}`` with ``messageId``, ``receiptHandle``, ``body``, ``attributes``,
``messageAttributes``, ``eventSource``, ``eventSourceARN``, ``awsRegion``), then deletes the records
the handler did not report in ``batchItemFailures``. Failed records become visible again after the
visibility timeout and, after the queue's maxReceiveCount, move to its dead-letter queue — the
emulator applies the redrive policy, as SQS does.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any], Any], dict[str, Any] | None]


@dataclass
class LocalLambdaContext:
    """The attributes of a Lambda context object that handlers and Powertools read."""

    function_name: str
    timeout_s: float = 60.0
    memory_limit_in_mb: int = 1024
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = ""
    _started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.timeout_s - (time.monotonic() - self._started)) * 1000))


def _lambda_message_attributes(attrs: dict[str, Any]) -> dict[str, Any]:
    """SQS API attribute shape (``StringValue``) → the Lambda event shape (``stringValue``)."""
    out = {}
    for name, value in attrs.items():
        out[name] = {
            "stringValue": value.get("StringValue"),
            "binaryValue": value.get("BinaryValue"),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": value.get("DataType", "String"),
        }
    return out


def to_lambda_event(messages: list[dict[str, Any]], queue_arn: str, region: str) -> dict[str, Any]:
    """The SQS event Lambda delivers for these received messages."""
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m.get("Attributes", {}),
                "messageAttributes": _lambda_message_attributes(m.get("MessageAttributes", {})),
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": region,
            }
            for m in messages
        ]
    }


class SqsPoller:
    """Feeds one queue to one handler, like an event source mapping with ReportBatchItemFailures."""

    def __init__(
        self,
        client: Any,
        queue_url: str,
        handler: Handler,
        *,
        function_name: str,
        batch_size: int = 10,
        batching_window_s: float = 0.05,
        wait_time_s: int = 1,
        region: str = "us-east-1",
    ) -> None:
        self._client = client
        self._queue_url = queue_url
        self._handler = handler
        self._function_name = function_name
        self._batch_size = batch_size
        self._window_s = batching_window_s
        self._wait_s = wait_time_s
        self._region = region
        self._arn = client.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.batches = 0
        self.failures = 0

    @property
    def function_name(self) -> str:
        """The worker this poller feeds (as named in logs)."""
        return self._function_name

    def _receive(self) -> list[dict[str, Any]]:
        """Up to batch_size messages: one long poll, then short polls until the batching window closes."""
        messages: list[dict[str, Any]] = []
        deadline: float | None = None
        while len(messages) < self._batch_size:
            wait = self._wait_s if not messages else 0
            response = self._client.receive_message(
                QueueUrl=self._queue_url,
                MaxNumberOfMessages=min(10, self._batch_size - len(messages)),
                WaitTimeSeconds=wait,
                AttributeNames=["All"],
                MessageAttributeNames=["All"],
            )
            got = response.get("Messages", [])
            messages.extend(got)
            if not messages:
                return []
            deadline = deadline or time.monotonic() + self._window_s
            if not got or time.monotonic() >= deadline:
                break
        return messages

    def poll_once(self) -> int:
        """Receive one batch, invoke the handler, delete what succeeded. Returns messages received."""
        messages = self._receive()
        if not messages:
            return 0
        event = to_lambda_event(messages, self._arn, self._region)
        failed: set[str] = set()
        try:
            response = self._handler(event, LocalLambdaContext(self._function_name)) or {}
            failed = {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}
        except Exception:
            log.exception("%s raised; the whole batch returns to the queue", self._function_name)
            failed = {m["MessageId"] for m in messages}
        done = [m for m in messages if m["MessageId"] not in failed]
        for start in range(0, len(done), 10):
            chunk = done[start : start + 10]
            self._client.delete_message_batch(
                QueueUrl=self._queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)],
            )
        self.batches += 1
        self.failures += len(failed)
        return len(messages)

    def depth(self) -> tuple[int, int]:
        """(visible, in flight) messages, as SQS approximates them."""
        attrs = self._client.get_queue_attributes(
            QueueUrl=self._queue_url,
            AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        )["Attributes"]
        return int(attrs["ApproximateNumberOfMessages"]), int(attrs["ApproximateNumberOfMessagesNotVisible"])

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Process until the queue is empty (nothing visible, nothing in flight) or the timeout passes."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.poll_once() == 0 and self.depth() == (0, 0):
                return True
        return False

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll_once()
            except Exception:
                log.exception("poller error; retrying in 1 s")
                self._stop.wait(1.0)

    def start(self) -> SqsPoller:
        self._thread = threading.Thread(target=self._run, name=f"poller-{self._function_name}", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout_s: float = 10.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
