"""Operation status for queued work, in Redis: what was accepted and not processed yet.

Per job a hash ``hs:op:<tenant>:<id>`` (kind, the job's JSON, enqueue time, attempts) with a TTL, and
one sorted set ``hs:ops:queued`` scored by enqueue time for the stuck-work sweep. With a store id (the
database's identity, ``hindsight_meta.store_id``) the keys read ``hs:<store id>:op:…``: two databases
sharing one Redis (a wiped local data folder, two clones) never see each other's queued work. Postgres'
``write_results`` is the record of what was processed; this is only the "queued" half, so it is
best-effort: when Redis is down the write is still accepted (it is on the queue) and its status reads
"unknown" until the worker records it.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob

log = logging.getLogger(__name__)
OP_TTL_S = 7 * 86_400  # a queued job older than a week is long past SQS's own retention of redrives


def _agent_of(body: bytes | str) -> str | None:
    """The agent a queued job's JSON body names (None if unreadable)."""
    try:
        agent = json.loads(body).get("agent_id")
    except (ValueError, AttributeError):
        return None
    return agent if isinstance(agent, str) else None


class RedisOperationLog:
    """The OperationLog port."""

    def __init__(self, client: Any, store_id: str = "") -> None:
        self._client = client  # redis.asyncio.Redis
        self._prefix = f"hs:{store_id}:" if store_id else "hs:"
        self._queued = f"{self._prefix}ops:queued"

    def _key(self, tenant_id: str, job_id: UUID | str) -> str:
        return f"{self._prefix}op:{tenant_id}:{job_id}"

    async def record_queued(self, job: WriteJob | ReflectJob) -> None:
        try:
            key = self._key(job.tenant_id, job.id)
            # One transaction per key: the hash and the sorted set live in different hash slots, and a
            # MULTI spanning two slots fails with CROSSSLOT on cluster-mode Redis (ElastiCache
            # Serverless is always cluster mode). The hash goes first: the sweep skips a missing one.
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.hset(
                    key,
                    mapping={
                        "kind": job.kind,
                        "body": job.model_dump_json(),
                        "enqueued_at": time.time(),
                        "attempts": 1,
                    },
                )
                pipe.expire(key, OP_TTL_S)
                await pipe.execute()
            await self._client.zadd(self._queued, {f"{job.tenant_id}:{job.id}": time.time()})
        except Exception as exc:  # the job is on the queue already: status is a convenience
            log.warning("could not record queued job %s: %s", job.id, exc)

    async def queued(self, tenant_id: str, ids: Sequence[UUID], agent_id: str | None = None) -> set[UUID]:
        """The ids among ``ids`` recorded as queued for this tenant (and written by ``agent_id`` when
        given: another agent's pending job is not its business). Raises Unavailable."""
        try:
            async with self._client.pipeline(transaction=False) as pipe:
                for job_id in ids:
                    pipe.hget(self._key(tenant_id, job_id), "body")
                found = await pipe.execute()
        except Exception as exc:
            raise Unavailable(f"operation status is unavailable: {type(exc).__name__}") from exc
        return {
            job_id
            for job_id, body in zip(ids, found, strict=True)
            if body is not None and (agent_id is None or _agent_of(body) == agent_id)
        }

    async def older_than(self, seconds: float, limit: int = 500) -> list[tuple[str, UUID, str, int]]:
        """(tenant, id, job JSON, attempts) of jobs queued more than ``seconds`` ago."""
        members = await self._client.zrangebyscore(self._queued, 0, time.time() - seconds, start=0, num=limit)
        out = []
        for member in members:
            tenant_id, _, job_id = (member.decode() if isinstance(member, bytes) else member).rpartition(":")
            data = await self._client.hgetall(self._key(tenant_id, job_id))
            if not data:
                await self._client.zrem(self._queued, member)  # expired
                continue
            body = data.get(b"body", data.get("body"))
            attempts = int(data.get(b"attempts", data.get("attempts", 1)))
            out.append(
                (tenant_id, UUID(job_id), body.decode() if isinstance(body, bytes) else body, attempts)
            )
        return out

    async def requeued(self, tenant_id: str, job_id: UUID) -> None:
        key = self._key(tenant_id, job_id)
        await self._client.hincrby(key, "attempts", 1)
        await self._client.zadd(self._queued, {f"{tenant_id}:{job_id}": time.time()})

    async def done(self, tenant_id: str, job_ids: Sequence[UUID]) -> None:
        if not job_ids:
            return
        async with self._client.pipeline(transaction=False) as pipe:
            for job_id in job_ids:
                pipe.delete(self._key(tenant_id, job_id))
                pipe.zrem(self._queued, f"{tenant_id}:{job_id}")
            await pipe.execute()
