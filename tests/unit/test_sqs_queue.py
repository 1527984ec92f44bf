"""The SQS job queue adapter without SQS: the client is made on the first enqueue, once."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from hindsight.adapters.sqs_queue import SqsJobQueue
from hindsight.domain.memory import MemoryDraft, WriteJob


class RecordingClient:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def send_message(self, **kwargs: Any) -> None:
        self.sent.append(kwargs)


def _job() -> WriteJob:
    return WriteJob(
        id=uuid.uuid4(),
        tenant_id="t1",
        agent_id="a1",
        submitted_at=datetime(2026, 12, 1, tzinfo=UTC),
        draft=MemoryDraft(content="the deploy moved to Thursday"),
    )


def test_a_client_factory_runs_on_the_first_enqueue_and_only_once() -> None:
    # Given a queue built with a client factory (so a cold start that only reads never imports boto3)
    made: list[RecordingClient] = []

    def factory() -> RecordingClient:
        made.append(RecordingClient())
        return made[-1]

    queue = SqsJobQueue(factory, "http://sqs/writes")
    assert made == []
    # When two jobs are sent
    first, second = _job(), _job()
    queue.enqueue_sync(first)
    queue.enqueue_sync(second)
    # Then one client was made and both bodies went to the write queue
    assert len(made) == 1
    sent = made[0].sent
    assert [m["QueueUrl"] for m in sent] == ["http://sqs/writes"] * 2
    assert [json.loads(m["MessageBody"])["id"] for m in sent] == [str(first.id), str(second.id)]


def test_a_client_object_is_used_as_given() -> None:
    client = RecordingClient()
    queue = SqsJobQueue(client, "http://sqs/writes")
    queue.enqueue_sync(_job())
    assert queue.client() is client
    assert len(client.sent) == 1
