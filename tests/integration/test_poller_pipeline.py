"""The local poller running in the background (``SqsPoller.start()``), as Lambda's event source mapping
runs beside the function: the next batch is received while the handler runs the current one, the handler
is never invoked twice at once, failed records still come back, the bulk lane keeps its share, and
``stop()`` lets the handler finish and returns a batch received ahead to its queue. Real SQS emulator
over HTTP; the handlers are plain functions."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.sqs_emulator import SqsEmulator

pytestmark = pytest.mark.integration

WAIT_S = 30.0
"""How long a test waits for the poller to reach a state (a bound against hanging, not a speed check)."""


@pytest.fixture(scope="module")
def sqs() -> Iterator[Any]:
    emulator = SqsEmulator().start()
    try:
        yield boto3.client("sqs", endpoint_url=emulator.endpoint_url, region_name="us-east-1")
    finally:
        emulator.stop()


def _queue(sqs: Any, count: int, prefix: str = "m", visibility_s: int = 30) -> str:
    url: str = sqs.create_queue(
        QueueName=f"pipe-{uuid.uuid4().hex[:8]}", Attributes={"VisibilityTimeout": str(visibility_s)}
    )["QueueUrl"]
    for start in range(0, count, 10):
        entries = [
            {"Id": str(i), "MessageBody": f"{prefix} {start + i}"} for i in range(min(10, count - start))
        ]
        sqs.send_message_batch(QueueUrl=url, Entries=entries)
    return url


def _in_flight(sqs: Any, url: str) -> tuple[int, int]:
    attributes = sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]), int(
        attributes["ApproximateNumberOfMessagesNotVisible"]
    )


def _until(condition: Callable[[], bool]) -> bool:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


class Recorder:
    """A handler that records batches, checks it never runs twice at once, and can hold its first batch."""

    def __init__(self, hold_first: bool = False, fail_once: set[str] | None = None) -> None:
        self.batches: list[list[str]] = []
        self.release = threading.Event()
        if not hold_first:
            self.release.set()
        self.running = 0
        self.overlapped = False
        self.fail_once = set(fail_once or ())
        self._lock = threading.Lock()

    def __call__(self, event: dict[str, Any], _: Any) -> dict[str, Any]:
        with self._lock:
            self.running += 1
            self.overlapped |= self.running > 1
        try:
            if not self.batches:
                self.release.wait(WAIT_S)
            bodies = [r["body"] for r in event["Records"]]
            self.batches.append(bodies)
            failed = [r["messageId"] for r in event["Records"] if r["body"] in self.fail_once]
            self.fail_once -= set(bodies)
            return {"batchItemFailures": [{"itemIdentifier": i} for i in failed]}
        finally:
            with self._lock:
                self.running -= 1

    @property
    def seen(self) -> list[str]:
        return [b for batch in self.batches for b in batch]


def test_the_next_batch_is_received_while_the_handler_runs_the_current_one(sqs: Any) -> None:
    # Given 20 messages and a started poller of batches of 10 whose handler holds its first batch
    url = _queue(sqs, 20)
    handler = Recorder(hold_first=True)
    poller = SqsPoller(sqs, url, handler, function_name="pipe", batch_size=10, wait_time_s=0)
    poller.start()
    try:
        # Then while the handler runs the first batch, the second is already received (in flight)
        assert _until(lambda: _in_flight(sqs, url) == (0, 20))
        assert len(handler.batches) == 0
        # And once the handler returns, both are stored and deleted, one batch at a time
        handler.release.set()
        assert _until(lambda: _in_flight(sqs, url) == (0, 0))
    finally:
        poller.stop()
    assert sorted(handler.seen) == sorted(f"m {i}" for i in range(20))
    assert [len(b) for b in handler.batches] == [10, 10]
    assert not handler.overlapped


def test_stop_lets_the_handler_finish_and_returns_the_batch_received_ahead(sqs: Any) -> None:
    url = _queue(sqs, 20)
    handler = Recorder(hold_first=True)
    poller = SqsPoller(sqs, url, handler, function_name="pipe", batch_size=10, wait_time_s=0)
    poller.start()
    assert _until(lambda: _in_flight(sqs, url) == (0, 20))  # one batch in the handler, one received ahead
    # When the poller is stopped while the handler still runs
    stopping = threading.Thread(target=poller.stop, kwargs={"timeout_s": WAIT_S})
    stopping.start()
    handler.release.set()
    stopping.join()
    # Then the handler's batch was finished and deleted, and the other is on the queue again, visible
    assert len(handler.batches) == 1
    assert _in_flight(sqs, url) == (10, 0)
    # And a poller started later stores it
    assert SqsPoller(sqs, url, handler, function_name="pipe", batch_size=10, wait_time_s=0).drain(WAIT_S)
    assert sorted(handler.seen) == sorted(f"m {i}" for i in range(20))


def test_failed_records_of_a_started_poller_come_back_after_the_visibility_timeout(sqs: Any) -> None:
    # Given a handler that reports one record of its batch as failed, once
    url = _queue(sqs, 5, visibility_s=1)
    handler = Recorder(fail_once={"m 2"})
    poller = SqsPoller(sqs, url, handler, function_name="pipe", batch_size=10, wait_time_s=0)
    poller.start()
    try:
        # Then the others are deleted, and the failed one is delivered again and then deleted
        assert _until(lambda: handler.seen.count("m 2") == 2 and _in_flight(sqs, url) == (0, 0))
    finally:
        poller.stop()
    assert sorted(handler.seen) == sorted([f"m {i}" for i in range(5)] + ["m 2"])
    assert poller.failures == 1


def test_a_started_poller_keeps_the_bulk_lanes_order(sqs: Any) -> None:
    # Given a busy write queue and a bulk backlog, one bulk batch after every two
    main, bulk = _queue(sqs, 30, "main"), _queue(sqs, 10, "bulk")
    handler = Recorder()
    poller = SqsPoller(
        sqs,
        main,
        handler,
        function_name="lanes",
        batch_size=5,
        wait_time_s=0,
        bulk_queue_url=bulk,
        bulk_share=2,
        bulk_batch_size=3,
    )
    poller.start()
    try:
        assert _until(lambda: len(handler.seen) == 40)
    finally:
        poller.stop()
    # Then the batches come in the same order as when driven one step at a time (test_bulk_lane.py)
    order = [batch[0].split()[0] for batch in handler.batches]
    assert all(len({b.split()[0] for b in batch}) == 1 for batch in handler.batches)
    assert order[:6] == ["main", "main", "bulk", "main", "main", "bulk"]
    assert not handler.overlapped
    assert _in_flight(sqs, main) == _in_flight(sqs, bulk) == (0, 0)


def test_a_started_poller_takes_no_bulk_batch_while_the_handler_runs(sqs: Any) -> None:
    # Given a write-queue batch in the handler and a bulk backlog waiting
    main, bulk = _queue(sqs, 5, "main"), _queue(sqs, 10, "bulk")
    handler = Recorder(hold_first=True)
    poller = SqsPoller(
        sqs, main, handler, function_name="lanes", batch_size=5, wait_time_s=0, bulk_queue_url=bulk
    )
    poller.start()
    try:
        assert _until(lambda: _in_flight(sqs, main) == (0, 5))
        # When an agent writes while the handler still runs
        sqs.send_message(QueueUrl=main, MessageBody="main agent")
        handler.release.set()
        assert _until(lambda: len(handler.seen) == 16)
    finally:
        poller.stop()
    # Then the agent's write is the next batch: no bulk batch was received ahead of it
    assert handler.batches[1] == ["main agent"]
    assert [b[0].split()[0] for b in handler.batches[2:]] == ["bulk"] * (len(handler.batches) - 2)
    assert _in_flight(sqs, bulk) == (0, 0)


def test_nothing_is_received_ahead_while_batches_take_a_quarter_of_the_visibility_timeout(sqs: Any) -> None:
    # Given a queue whose visibility timeout is 4 s and a handler that takes 1.2 s a batch
    url = _queue(sqs, 30, visibility_s=4)
    in_flight: list[int] = []

    def slow(event: dict[str, Any], _: Any) -> None:
        time.sleep(1.2)
        in_flight.append(_in_flight(sqs, url)[1])

    poller = SqsPoller(sqs, url, slow, function_name="slow", batch_size=10, wait_time_s=0)
    poller.start()
    try:
        assert _until(lambda: len(in_flight) == 3)
    finally:
        poller.stop()
    # Then only the first batch had one received ahead (no duration known yet); later ones had none, so
    # no batch waits in hand long enough to time out and be delivered twice
    assert in_flight == [20, 10, 10]
