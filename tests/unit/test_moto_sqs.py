"""The SQS emulator's speed-ups (hindsight.local.moto_sqs): moto as released and moto sped up, each over
HTTP in a process of its own, answer the same calls the same way; and a receive from a deep queue reads
each message's visibility once, not once per message received (what made a receive of 10 from a queue of
1,500 take ~2 s). The work is counted, not timed."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from hindsight.local.sqs_emulator import SqsEmulator, create_queues

REGION = "us-east-1"


@pytest.fixture(scope="module")
def emulators() -> Iterator[dict[str, Any]]:
    plain, fast = SqsEmulator(speed_up=False).start(), SqsEmulator().start()
    try:
        yield {
            name: boto3.client("sqs", endpoint_url=e.endpoint_url, region_name=REGION)
            for name, e in (("plain", plain), ("fast", fast))
        }
    finally:
        plain.stop()
        fast.stop()


def _counts(sqs: Any, url: str) -> dict[str, str]:
    names = [
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
        "ApproximateNumberOfMessagesDelayed",
    ]
    attributes: dict[str, str] = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
    return attributes


def _scenario(sqs: Any) -> list[Any]:
    """Sends, delayed sends, receives, a batch delete with a stale, a repeated and an unknown handle,
    a message received past its maxReceiveCount (to the dead-letter queue), a FIFO queue with
    content-based deduplication; returns what a client sees at each step."""
    seen: list[Any] = []
    queues = create_queues(sqs, visibility_timeout_s=1, max_receive_count=2)
    url = queues.writes
    sqs.send_message_batch(QueueUrl=url, Entries=[{"Id": str(i), "MessageBody": f"m{i}"} for i in range(10)])
    sqs.send_message(QueueUrl=url, MessageBody="later", DelaySeconds=60)
    seen.append(_counts(sqs, url))
    first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=4, AttributeNames=["All"])["Messages"]
    seen.append(sorted(m["Body"] for m in first))
    seen.append(_counts(sqs, url))
    all_attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    seen.append({k: v for k, v in all_attributes.items() if "Timestamp" not in k and k != "QueueArn"})
    entries = [{"Id": f"e{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(first[:3])]
    entries.append({"Id": "unknown", "ReceiptHandle": "not-a-handle"})
    deleted = sqs.delete_message_batch(QueueUrl=url, Entries=entries)
    seen.append(
        (sorted(s["Id"] for s in deleted["Successful"]), [(f["Id"], f["Code"]) for f in deleted["Failed"]])
    )
    again = sqs.delete_message_batch(QueueUrl=url, Entries=entries[:1])  # already deleted: succeeds again
    seen.append(sorted(s["Id"] for s in again["Successful"]))
    seen.append(_counts(sqs, url))
    time.sleep(1.2)  # the fourth message becomes visible again
    rest: list[str] = []
    while batch := sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []):
        rest.extend(m["Body"] for m in batch)
        sqs.delete_message_batch(
            QueueUrl=url,
            Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(batch)],
        )
    seen.append(sorted(rest))
    seen.append(_counts(sqs, url))
    # a message received twice without a delete moves to the dead-letter queue on the next receive
    sqs.send_message(QueueUrl=url, MessageBody="poison")
    for _ in range(2):
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=1, AttributeNames=["All"])["Messages"]
        seen.append([(m["Body"], m["Attributes"]["ApproximateReceiveCount"]) for m in got])
        time.sleep(1.2)
    seen.append(sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []))
    dead = sqs.receive_message(QueueUrl=queues.writes_dlq, MaxNumberOfMessages=10)["Messages"]
    seen.append([m["Body"] for m in dead])
    fifo = sqs.create_queue(
        QueueName="lane.fifo", Attributes={"FifoQueue": "true", "ContentBasedDeduplication": "true"}
    )["QueueUrl"]
    for _ in range(2):
        sqs.send_message(QueueUrl=fifo, MessageBody="same", MessageGroupId="g")
    seen.append(_counts(sqs, fifo))
    return seen


def test_the_sped_up_emulator_answers_as_moto_does(emulators: dict[str, Any]) -> None:
    plain, fast = _scenario(emulators["plain"]), _scenario(emulators["fast"])
    assert fast == plain
    assert fast[0] == {
        "ApproximateNumberOfMessages": "10",
        "ApproximateNumberOfMessagesNotVisible": "0",
        "ApproximateNumberOfMessagesDelayed": "1",
    }
    assert fast[-2] == ["poison"]  # the redrive ran
    assert fast[-1]["ApproximateNumberOfMessages"] == "1"  # the FIFO duplicate was dropped


_WORK = """
import json, sys
from moto import mock_aws
from moto.sqs import models
from hindsight.local.moto_sqs import speed_up

reads = 0
visible = models.Message.visible.fget
def counted(self):
    global reads
    reads += 1
    return visible(self)
models.Message.visible = property(counted)

def receive_work(backend, name):
    global reads
    reads = 0
    got = backend.receive_message(name, 10, 0, 30)
    assert len(got) == 10
    return reads

with mock_aws():
    backend = models.sqs_backends["123456789012"]["us-east-1"]
    queue = backend.create_queue("deep")
    for i in range(int(sys.argv[1])):
        message = models.Message(str(i), "x" * 100)
        message.mark_sent()
        queue.add_message(message)
    before = receive_work(backend, "deep")
    speed_up()
    after = receive_work(backend, "deep")
print(json.dumps({"plain": before, "fast": after}))
"""


def test_a_receive_from_a_deep_queue_reads_each_message_once() -> None:
    depth = 1000
    out = subprocess.run(
        [sys.executable, "-c", _WORK, str(depth)], capture_output=True, text=True, check=True, timeout=120
    )
    work = json.loads(out.stdout)
    assert work["plain"] > 10 * depth  # moto as released: all attributes computed once per message received
    assert work["fast"] <= depth + 20
