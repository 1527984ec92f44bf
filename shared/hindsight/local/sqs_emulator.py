"""The SQS emulator: moto in server mode on 127.0.0.1 (a real HTTP endpoint boto3 talks to)."""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from typing import Any

from hindsight.local.ports import free_port
from hindsight.local.process_group import stop_group

WRITE_QUEUE = "hindsight-writes"
WRITE_DLQ = "hindsight-writes-dlq"
BULK_QUEUE = "hindsight-bulk-writes"
BULK_DLQ = "hindsight-bulk-writes-dlq"
REFLECT_QUEUE = "hindsight-reflections"
REFLECT_DLQ = "hindsight-reflections-dlq"
MAX_RECEIVE_COUNT = 5
VISIBILITY_TIMEOUT_S = 30

_LAUNCHER = """\
import os, sys, threading, time
parent = int(sys.argv.pop(1))
if sys.argv.pop(1) == "fast":
    from hindsight.local.moto_sqs import speed_up
    speed_up()
def exit_with_parent():
    while os.getppid() == parent:
        time.sleep(1)
    os._exit(0)
threading.Thread(target=exit_with_parent, daemon=True).start()
from moto.server import main
main(sys.argv[1:])
"""
"""``moto.server``'s main, plus a thread that ends the emulator when the process that started it is gone
(even SIGKILLed, when no cleanup code runs), so an emulator is never left behind; with ``fast``, moto's SQS
backend first gets ``moto_sqs.speed_up()`` (per-call cost independent of the queue's depth)."""


@dataclass
class QueueUrls:
    """URLs of the queues the stack uses."""

    writes: str
    writes_dlq: str
    reflections: str
    reflections_dlq: str
    bulk: str
    """The bulk lane's write queue (``domain.memory.Lane``)."""
    bulk_dlq: str


def use_dummy_aws_credentials() -> None:
    """boto3 signs every request; the emulator accepts any key. Keeps real credentials out of local runs."""
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "hindsight-local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "hindsight-local")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")


class SqsEmulator:
    """moto in server mode, in a process of its own, on 127.0.0.1; ``endpoint_url`` is what boto3 uses.

    A separate process, not a thread: in-process, moto shares the GIL with the workers and the embedding
    model (measured: embedding fell from 27 to 9 passages/s, bench/throughput.py), and two emulators in
    one process would share their queues.

    The process runs in a session (and process group) of its own, so a terminal's Ctrl-C, sent to the
    whole foreground group, does not reach it: its queues live in its memory only, and the stack must be
    able to drain them before it stops the emulator with ``stop()``. ``stop()`` also runs at interpreter
    exit, and the emulator exits by itself when its parent process is gone.

    ``speed_up`` (the default): moto's SQS with the cost of a send, receive or batch delete independent
    of the queue's depth (``moto_sqs``); False runs moto exactly as released (to compare the two).
    """

    def __init__(self, port: int | None = None, *, speed_up: bool = True) -> None:
        self.port = port or free_port()
        self.speed_up = speed_up
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 20.0) -> SqsEmulator:
        """Start and wait until it answers. Raises RuntimeError if it does not within ``timeout_s``."""
        use_dummy_aws_credentials()
        self._process = subprocess.Popen(  # noqa: S603 - our interpreter, loopback only
            [
                sys.executable,
                "-c",
                _LAUNCHER,
                str(os.getpid()),
                "fast" if self.speed_up else "plain",
                "-H",
                "127.0.0.1",
                "-p",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # out of the terminal's process group: Ctrl-C must not reach it
        )
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            try:
                with urllib.request.urlopen(f"{self.endpoint_url}/moto-api/", timeout=0.5):  # noqa: S310
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the SQS emulator did not start on port {self.port}")

    @property
    def alive(self) -> bool:
        """Whether the emulator process is running (False before start, after stop, or once it died)."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The emulator's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def stop(self) -> None:
        """Stop the emulator (SIGTERM, SIGKILL after 5 s) and wait for it; its queues are gone after this.
        Idempotent."""
        process, self._process = self._process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        stop_group(process, 5)


def _queue_with_dlq(
    client: Any, name: str, dlq_name: str, visibility_timeout_s: int, max_receive_count: int
) -> tuple[str, str]:
    dlq_url = client.create_queue(QueueName=dlq_name, Attributes={"MessageRetentionPeriod": "1209600"})[
        "QueueUrl"
    ]
    dlq_arn = client.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    url = client.create_queue(
        QueueName=name,
        Attributes={
            "VisibilityTimeout": str(visibility_timeout_s),
            "RedrivePolicy": json.dumps(
                {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": max_receive_count}
            ),
        },
    )["QueueUrl"]
    return url, dlq_url


def create_queues(
    client: Any,
    *,
    visibility_timeout_s: int = VISIBILITY_TIMEOUT_S,
    max_receive_count: int = MAX_RECEIVE_COUNT,
) -> QueueUrls:
    """Create the write, bulk-write and reflection queues, each with its dead-letter queue and redrive
    (idempotent)."""
    writes, writes_dlq = _queue_with_dlq(
        client, WRITE_QUEUE, WRITE_DLQ, visibility_timeout_s, max_receive_count
    )
    reflections, reflections_dlq = _queue_with_dlq(
        client, REFLECT_QUEUE, REFLECT_DLQ, visibility_timeout_s, max_receive_count
    )
    bulk, bulk_dlq = _queue_with_dlq(client, BULK_QUEUE, BULK_DLQ, visibility_timeout_s, max_receive_count)
    return QueueUrls(
        writes=writes,
        writes_dlq=writes_dlq,
        reflections=reflections,
        reflections_dlq=reflections_dlq,
        bulk=bulk,
        bulk_dlq=bulk_dlq,
    )
