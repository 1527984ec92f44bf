"""The write acknowledgement's path (issue 15) keeps its guarantees: the operation log's entry, written
while SQS takes the job, is removed when SQS refuses it (a replay's, the first call's, is kept), and the
refused write's idempotency key is free again. Real Redis and the SQS emulator over HTTP."""

from __future__ import annotations

import uuid

import pytest

from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.redis_operations import RedisOperationLog
from hindsight.adapters.sqs_queue import SqsJobQueue, sqs_client
from hindsight.adapters.system_clock import SystemClock
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import MemoryDraft
from hindsight.local.stack import LocalStack
from hindsight.usecases.remember import Remember, job_id
from tests.support import store_id

pytestmark = pytest.mark.anyio


def _remember(stack: LocalStack, queue_url: str) -> tuple[Remember, RedisOperationLog]:
    """Remember over the stack's Redis (operation log and idempotency records) and the emulator's
    ``queue_url``."""
    settings = stack.require_settings()
    operations = RedisOperationLog(redis_client(settings.redis_url), store_id(stack))
    queue = SqsJobQueue(sqs_client(settings.aws_region, settings.aws_endpoint_url), queue_url)
    return Remember(queue, SystemClock(), operations=operations, idempotency=operations), operations


def _missing_queue(stack: LocalStack) -> str:
    """A queue URL on the emulator that names no queue: SendMessage is refused."""
    return stack.require_settings().require_write_queue_url().rsplit("/", 1)[0] + "/no-such-queue"


async def test_a_write_the_queue_refuses_leaves_no_queued_entry_and_frees_its_key(stack: LocalStack) -> None:
    alice = Principal(tenant_id=f"t-{uuid.uuid4().hex[:12]}", key_id="k1")
    draft = MemoryDraft(content="Invoice 881 was paid", idempotency_key="inv-881")
    write_id = job_id(alice.tenant_id, "default", "inv-881")
    refusing, operations = _remember(stack, _missing_queue(stack))

    with pytest.raises(Unavailable):
        await refusing(alice, None, draft)

    assert await operations.queued(alice.tenant_id, [write_id]) == set()
    assert not [job for job in await operations.older_than(0) if job[1] == write_id]  # nothing to sweep
    accepting, _ = _remember(stack, stack.require_settings().require_write_queue_url())
    ack = await accepting(alice, None, draft.model_copy(update={"content": "Invoice 881 was refunded"}))
    assert ack.id == write_id
    assert ack.replayed is None  # the key was free again
    assert await operations.queued(alice.tenant_id, [write_id]) == {write_id}


async def test_a_refused_replay_keeps_the_first_writes_queued_entry(stack: LocalStack) -> None:
    alice = Principal(tenant_id=f"t-{uuid.uuid4().hex[:12]}", key_id="k1")
    draft = MemoryDraft(content="Invoice 882 was paid", idempotency_key="inv-882")
    accepting, operations = _remember(stack, stack.require_settings().require_write_queue_url())
    first = await accepting(alice, None, draft)
    refusing, _ = _remember(stack, _missing_queue(stack))

    with pytest.raises(Unavailable):
        await refusing(alice, None, draft)  # a replay: same key, same arguments

    assert await operations.queued(alice.tenant_id, [first.id]) == {first.id}
