"""A local stand-in for Lambda's SQS event source mapping.

It long-polls a queue, hands the messages to a worker handler as the same event Lambda would send
(``{"Records": [...]}`` with ``messageId``, ``receiptHandle``, ``body``, ``attributes``,
``messageAttributes``, ``eventSource``, ``eventSourceARN``, ``awsRegion``), then deletes the records
the handler did not report in ``batchItemFailures``. Failed records become visible again after the
visibility timeout and, after the queue's maxReceiveCount, move to its dead-letter queue — the
emulator applies the redrive policy, as SQS does.

Running (``start()``), it works as the event source mapping does: its receiving runs beside the
function, so the next batch is in hand when the handler returns, and the deletes of a finished batch run
beside the next one. ``poll_once()`` and ``drain()`` do one step after another (receive, invoke, delete),
for tests and shutdown.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
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
    """Feeds one queue to one handler, like an event source mapping with ReportBatchItemFailures.

    With a ``bulk_queue_url`` it feeds two, with priority: each batch comes from the main queue when it
    has work, else from the bulk queue; while both have work, every ``bulk_share + 1``-th batch comes
    from the bulk queue, so a bulk backlog is never starved (it gets at least that share of the worker)
    and an interactive write waits at most for the bulk batch in progress (``bulk_batch_size`` jobs at
    most, default ``batch_size``). Idle, it long-polls the main queue only (a bulk job then waits up to
    ``wait_time_s``). In AWS the two queues have an event source mapping each, the bulk one with a
    lower MaximumConcurrency (template.yaml).

    With a ``bulk_handler`` (a second worker: the bulk queue's own instance, as in AWS), bulk batches go
    to it. Started, the poller then runs the bulk queue apart, on threads of its own (a poller of that
    queue alone, ``bulk_batch_size`` a batch), beside the main handler: a long bulk batch (an import, a
    write of many chunks, ``Settings.bulk_write_bytes``) never holds up the write queue, whose writes
    then wait for no bulk batch at all. Driven one step at a time, the two still take turns as above.

    Started, one thread receives and another invokes the handler: the receiver holds at most one batch
    ready, received while the handler runs the current one (none while batches take a quarter of the
    visibility timeout or more: a batch received ahead must not time out before it is handled), and the
    deletes run on a third thread. Each handler is never invoked twice at once, as with a concurrency of
    one (a worker runs one event loop: ``api.runtime.ProcessLoop``). ``stop()`` stops receiving, lets the
    handler finish its batch and returns a batch received ahead to its queue."""

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
        bulk_queue_url: str | None = None,
        bulk_share: int = 4,
        bulk_batch_size: int | None = None,
        bulk_handler: Handler | None = None,
    ) -> None:
        if bulk_share < 1:
            raise ValueError(f"bulk_share must be at least 1 ({bulk_share} given)")
        self._client = client
        self._queue_url = queue_url
        self._bulk_url = bulk_queue_url
        self._bulk_share = bulk_share
        self._streak = 0
        """Batches taken from the main queue in a row while the bulk queue had work waiting."""
        self._handler = handler
        self._bulk_handler = bulk_handler
        self._bulk_poller: SqsPoller | None = None
        """Started with a ``bulk_handler``: the poller of the bulk queue alone, kept (and restarted) across
        ``stop()`` and ``start()`` so its counts stay."""
        self._bulk_apart = False
        """Whether the bulk poller runs: the background receiver then takes the main queue only."""
        self._function_name = function_name
        self._batch_size = batch_size
        self._bulk_batch_size = bulk_batch_size or batch_size
        self._window_s = batching_window_s
        self._wait_s = wait_time_s
        self._region = region
        attributes = {url: self._queue_attributes(url) for url in self._urls}
        self._arns = {url: str(a["QueueArn"]) for url, a in attributes.items()}
        self._visibility_s = min(int(a.get("VisibilityTimeout", 30)) for a in attributes.values())
        """The shortest visibility timeout of its queues: a batch received ahead must start well within."""
        self._last_handler_s = 0.0
        """How long the handler took on its last batch (background mode: whether to receive ahead)."""
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._ready: queue.Queue[tuple[str, list[dict[str, Any]]]] = queue.Queue(maxsize=1)
        """The batch received while the handler runs the current one (background mode)."""
        self._unfinished = 0
        """Background mode: batches received and not yet through the handler (in hand or running)."""
        self._finished = threading.Condition()
        self._receiving = threading.Event()
        """Set while the background receiver runs."""
        self._deleter: ThreadPoolExecutor | None = None
        self._batches = self._failures = self._bulk_batches = 0

    @property
    def batches(self) -> int:
        """Batches handled, of both queues (the bulk poller's included)."""
        return self._batches + (self._bulk_poller.batches if self._bulk_poller else 0)

    @property
    def bulk_batches(self) -> int:
        """Batches of the bulk queue handled, by either handler."""
        return self._bulk_batches + (self._bulk_poller.batches if self._bulk_poller else 0)

    @property
    def failures(self) -> int:
        """Records the handlers reported as failed, or whose batch raised."""
        return self._failures + (self._bulk_poller.failures if self._bulk_poller else 0)

    @property
    def _urls(self) -> list[str]:
        return [self._queue_url] + ([self._bulk_url] if self._bulk_url else [])

    def _queue_attributes(self, url: str) -> dict[str, Any]:
        attributes = self._client.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn", "VisibilityTimeout"]
        )
        return dict(attributes["Attributes"])

    @property
    def function_name(self) -> str:
        """The worker this poller feeds (as named in logs)."""
        return self._function_name

    def _receive_from(self, url: str, wait_s: int) -> list[dict[str, Any]]:
        """Up to a batch of ``url`` (``bulk_batch_size`` for the bulk queue, else ``batch_size``): one poll
        waiting up to ``wait_s``, then short polls until the batching window closes."""
        size = self._bulk_batch_size if url == self._bulk_url else self._batch_size
        messages: list[dict[str, Any]] = []
        deadline: float | None = None
        while len(messages) < size:
            wait = wait_s if not messages else 0
            response = self._client.receive_message(
                QueueUrl=url,
                MaxNumberOfMessages=min(10, size - len(messages)),
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

    def _receive(self, *, bulk_allowed: bool = True) -> tuple[str, list[dict[str, Any]]] | None:
        """The next batch and its queue: the main queue first; the bulk queue when the main one is empty
        or its turn has come (``bulk_share``); a long poll on the main queue when both are empty. None,
        having received nothing, when the next batch would come from the bulk queue and ``bulk_allowed``
        is False (the background receiver takes a bulk batch only when the handler is free). The main
        queue only while the bulk poller runs the bulk queue apart."""
        if self._bulk_url is None or self._bulk_apart:
            return self._queue_url, self._receive_from(self._queue_url, self._wait_s)
        if self._streak >= self._bulk_share:
            if not bulk_allowed:
                return None
            self._streak = 0
            if bulk := self._receive_from(self._bulk_url, 0):
                return self._bulk_url, bulk
        if main := self._receive_from(self._queue_url, 0):
            if self._waiting(self._bulk_url):
                self._streak += 1
            return self._queue_url, main
        if not bulk_allowed:
            return None
        self._streak = 0
        if bulk := self._receive_from(self._bulk_url, 0):
            return self._bulk_url, bulk
        return self._queue_url, self._receive_from(self._queue_url, self._wait_s)

    def _waiting(self, url: str) -> bool:
        """Whether ``url`` has visible messages (SQS's approximate count)."""
        attrs = self._client.get_queue_attributes(
            QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"]
        )
        return int(attrs["Attributes"]["ApproximateNumberOfMessages"]) > 0

    def poll_once(self) -> int:
        """Receive one batch, invoke the handler, delete what succeeded. Returns messages received."""
        batch = self._receive()
        assert batch is not None  # bulk is allowed
        url, messages = batch
        if messages:
            self._delete(url, self._invoke(url, messages))
        return len(messages)

    def _invoke(self, url: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Invoke the handler with ``messages`` of ``url``; returns those it did not report as failed
        (none when it raised)."""
        event = to_lambda_event(messages, self._arns[url], self._region)
        failed: set[str] = set()
        handler = self._bulk_handler if url == self._bulk_url and self._bulk_handler else self._handler
        started = time.monotonic()
        try:
            response = handler(event, LocalLambdaContext(self._function_name)) or {}
            failed = {f["itemIdentifier"] for f in response.get("batchItemFailures", [])}
        except Exception:
            log.exception("%s raised; the whole batch returns to the queue", self._function_name)
            failed = {m["MessageId"] for m in messages}
        self._last_handler_s = time.monotonic() - started
        self._batches += 1
        self._bulk_batches += url != self._queue_url
        self._failures += len(failed)
        return [m for m in messages if m["MessageId"] not in failed]

    def _delete(self, url: str, done: list[dict[str, Any]]) -> None:
        """Delete ``done`` from ``url``, ten per DeleteMessageBatch (the SQS maximum)."""
        for start in range(0, len(done), 10):
            chunk = done[start : start + 10]
            self._client.delete_message_batch(
                QueueUrl=url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(chunk)],
            )

    def depth(self) -> tuple[int, int]:
        """(visible, in flight) messages of its queues together, as SQS approximates them."""
        visible = in_flight = 0
        for url in self._urls:
            attrs = self._client.get_queue_attributes(
                QueueUrl=url,
                AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
            )["Attributes"]
            visible += int(attrs["ApproximateNumberOfMessages"])
            in_flight += int(attrs["ApproximateNumberOfMessagesNotVisible"])
        return visible, in_flight

    def drain(self, timeout_s: float = 60.0) -> bool:
        """Process until the queue is empty (nothing visible, nothing in flight) or the timeout passes."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.poll_once() == 0 and self.depth() == (0, 0):
                return True
        return False

    def _receive_loop(self) -> None:
        """Background: receive batches and hand them to the invoking thread, one at a time. A bulk batch
        is received only when the handler is free, and the main queue is looked at again first, so an
        agent's write waits at most for the bulk batch in progress, as when driven one step at a time."""
        try:
            while not self._stop.is_set():
                with self._finished:
                    # One batch ahead at most, and none when batches take long: a batch received ahead
                    # waits for the current one, and its visibility timeout runs meanwhile.
                    if not self._finished.wait_for(self._may_receive, timeout=0.1):
                        continue
                    free = self._unfinished == 0
                try:
                    batch = self._receive(bulk_allowed=free)
                except Exception:
                    log.exception("poller error; retrying in 1 s")
                    self._stop.wait(1.0)
                    continue
                if batch is None:  # bulk's turn: wait until the handler is free
                    with self._finished:
                        self._finished.wait_for(lambda: self._unfinished == 0, timeout=0.1)
                    continue
                if not batch[1]:
                    continue
                with self._finished:
                    self._unfinished += 1
                while not self._stop.is_set():
                    try:
                        self._ready.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                else:  # stopping with a batch in hand: back to its queue
                    self._release(*batch)
                    with self._finished:
                        self._unfinished -= 1
                        self._finished.notify_all()
        finally:
            self._receiving.clear()

    def _may_receive(self) -> bool:
        """Whether the receiver may receive now (under ``_finished``): while fewer than two batches are
        unfinished, or none once the handler's last batch took a quarter of the visibility timeout."""
        ahead = 2 if self._last_handler_s < self._visibility_s / 4 else 1
        return self._unfinished < ahead

    def _invoke_loop(self) -> None:
        """Background: invoke the handler with each batch received; deletes go to the deleting thread.
        Ends once the receiver has stopped and nothing is left in hand."""
        assert self._deleter is not None
        while self._receiving.is_set() or not self._ready.empty():
            try:
                url, messages = self._ready.get(timeout=0.1)
            except queue.Empty:
                continue
            try:
                if self._stop.is_set():  # received ahead, not started: back to its queue
                    self._release(url, messages)
                else:
                    self._hand_to_deleter(url, self._invoke(url, messages))
            except Exception:
                log.exception("poller error")
            finally:
                with self._finished:
                    self._unfinished -= 1
                    self._finished.notify_all()

    def _hand_to_deleter(self, url: str, done: list[dict[str, Any]]) -> None:
        """Give a finished batch's deletes to the deleting thread. When ``stop()`` stopped waiting for
        this batch (a forced stop: its wait ran out) and shut that thread down, the batch is left on its
        queue: delivered again later, it is a no-op (the workers are idempotent per job)."""
        deleter = self._deleter
        try:
            if deleter is None:
                raise RuntimeError("the poller is stopped")
            deleter.submit(self._delete_logged, url, done)
        except RuntimeError:
            log.warning(
                "%s: stopped before deleting a finished batch; it is delivered again (a no-op)",
                self._function_name,
            )

    def _release(self, url: str, messages: list[dict[str, Any]]) -> None:
        """Make ``messages`` of ``url`` visible again at once (received ahead, not handled: at stop)."""
        try:
            for start in range(0, len(messages), 10):
                chunk = messages[start : start + 10]
                self._client.change_message_visibility_batch(
                    QueueUrl=url,
                    Entries=[
                        {"Id": str(i), "ReceiptHandle": m["ReceiptHandle"], "VisibilityTimeout": 0}
                        for i, m in enumerate(chunk)
                    ],
                )
        except Exception:
            log.exception(
                "%s: could not release a batch; it is visible again after the timeout", self._function_name
            )

    def _delete_logged(self, url: str, done: list[dict[str, Any]]) -> None:
        try:
            self._delete(url, done)
        except Exception:
            log.exception(
                "%s: deleting a finished batch failed; it will be delivered again", self._function_name
            )

    def start(self) -> SqsPoller:
        """Run in the background (a receiving, an invoking and a deleting thread) until ``stop()``; with a
        ``bulk_handler``, the bulk queue apart on three more (``_start_bulk``)."""
        self._start_bulk()
        self._stop.clear()
        self._receiving.set()
        self._deleter = ThreadPoolExecutor(1, thread_name_prefix=f"poller-{self._function_name}-delete")
        self._threads = [
            threading.Thread(target=loop, name=f"poller-{self._function_name}-{part}", daemon=True)
            for part, loop in (("receive", self._receive_loop), ("invoke", self._invoke_loop))
        ]
        for thread in self._threads:
            thread.start()
        return self

    def _start_bulk(self) -> None:
        """Start the bulk queue's own poller, when there is a bulk queue and a handler of its own for it:
        the same function (as one function has both event source mappings in AWS), its batches of
        ``bulk_batch_size``, received and handled apart from the main queue's."""
        if self._bulk_url is None or self._bulk_handler is None:
            return
        if self._bulk_poller is None:
            self._bulk_poller = SqsPoller(
                self._client,
                self._bulk_url,
                self._bulk_handler,
                function_name=self._function_name,
                batch_size=self._bulk_batch_size,
                batching_window_s=self._window_s,
                wait_time_s=self._wait_s,
                region=self._region,
            )
        self._bulk_poller.start()
        self._bulk_apart = True

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop receiving, let the handler finish the batch it runs and its deletes, and wait for the
        threads (up to ``timeout_s`` each; the receiver may be in a long poll of ``wait_time_s``). A batch
        received ahead and not started goes back to its queue, visible at once (its messages keep the
        receive this counted), so stopping waits for one batch at most, as before; the bulk poller's
        likewise, at the same time."""
        self._stop.set()
        bulk = self._bulk_poller if self._bulk_apart else None
        if bulk is not None:
            bulk._stop.set()  # both finish their batch at once; joined below
        for thread in self._threads:
            thread.join(timeout_s)
        self._threads = []
        if self._deleter is not None:
            self._deleter.shutdown(wait=True)
            self._deleter = None
        if bulk is not None:
            bulk.stop(timeout_s)
            self._bulk_apart = False
