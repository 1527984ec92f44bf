"""ElastiCache Serverless is always cluster mode: a MULTI/EXEC whose keys span two hash slots fails with
CROSSSLOT. The operation log records every queued write, so each of its transactions must stay in one
slot (it now uses none: one pipeline of single-key commands). A recording client stands in for Redis (no
cluster runs locally)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from redis.crc import key_slot

from hindsight.adapters.redis_operations import RedisOperationLog
from hindsight.domain.memory import MemoryDraft, WriteJob


class _Pipeline:
    def __init__(self, client: RecordingRedis, transaction: bool) -> None:
        self._client, self._transaction, self._keys = client, transaction, []
        self._commands: list[tuple[str, str]] = []

    async def __aenter__(self) -> _Pipeline:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    def __getattr__(self, command: str) -> Any:
        def queue(key: str, *args: Any, **kwargs: Any) -> None:
            self._keys.append(key)
            self._commands.append((command, key))

        return queue

    async def execute(self) -> list[Any]:
        if self._transaction:
            self._client.transactions.append(list(self._keys))
        self._client.pipelines.append(list(self._commands))
        return [None] * len(self._keys)


class RecordingRedis:
    """Records the keys of each transactional pipeline; single commands succeed."""

    def __init__(self) -> None:
        self.transactions: list[list[str]] = []
        self.pipelines: list[list[tuple[str, str]]] = []
        """(command, key) of each pipeline sent (one round trip each), transactional or not."""
        self.commands: list[tuple[str, str]] = []

    def pipeline(self, transaction: bool = True) -> _Pipeline:
        return _Pipeline(self, transaction)

    def __getattr__(self, command: str) -> Any:
        async def run(key: str, *args: Any, **kwargs: Any) -> int:
            self.commands.append((command, key))
            return 1

        return run


@pytest.mark.anyio
async def test_record_queued_keeps_each_transaction_in_one_hash_slot() -> None:
    client = RecordingRedis()
    job = WriteJob(
        id=uuid.uuid4(),
        tenant_id="acme",
        agent_id="default",
        submitted_at=datetime.now(UTC),
        draft=MemoryDraft(content="Alex is allergic to peanuts"),
    )
    await RedisOperationLog(client).record_queued(job)
    for keys in client.transactions:
        assert len({key_slot(k.encode()) for k in keys}) == 1, keys
    # One round trip: the job's hash, its TTL right behind it, and the sorted set the stuck-work sweep
    # reads (the acknowledgement waits for it beside its SendMessage).
    key = f"hs:op:acme:{job.id}"
    assert client.pipelines == [[("hset", key), ("expire", key), ("zadd", "hs:ops:queued")]]
    assert client.commands == []
