"""Operation status for queued work, in Redis: what was accepted and not processed yet.

Per job a hash ``hs:op:<tenant>:<id>`` (kind, the job's JSON, enqueue time, attempts) with a TTL, and
one sorted set ``hs:ops:queued`` scored by enqueue time for the stuck-work sweep. With a store id (the
database's identity, ``hindsight_meta.store_id``) the keys read ``hs:<store id>:op:…``: two databases
sharing one Redis (a wiped local data folder, two clones) never see each other's queued work. Postgres'
``write_results`` is the record of what was processed; this is only the "queued" half, so it is
best-effort: when Redis is down the write is still accepted (it is on the queue) and its status reads
"unknown" until the worker records it.

The same adapter keeps the idempotency records (the IdempotencyRecords port): ``hs:idem:<tenant>:<id>``,
the fingerprint of the arguments an idempotency key was first used with and that write's acknowledgement
time, for ``IDEMPOTENCY_WINDOW_S``. Past the window, or when Redis lost them, a reused key is answered as
before the records existed: the first write stored wins and the new arguments are dropped.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from uuid import UUID

from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import WriteJob
from hindsight.domain.reflection import ReflectJob
from hindsight.ports.queues import IdempotencyRecord

if TYPE_CHECKING:
    from hindsight.adapters.redis_pipelines import SharedPipelines

log = logging.getLogger(__name__)
OP_TTL_S = 7 * 86_400  # a queued job older than a week is long past SQS's own retention of redrives
IDEMPOTENCY_WINDOW_S = OP_TTL_S
"""How long an idempotency key stays bound to the arguments it was first used with."""


def _agent_of(body: bytes | str) -> str | None:
    """The agent a queued job's JSON body names (None if unreadable)."""
    try:
        agent = json.loads(body).get("agent_id")
    except (ValueError, AttributeError):
        return None
    return agent if isinstance(agent, str) else None


class RedisOperationLog:
    """The OperationLog port."""

    def __init__(self, client: Any, store_id: str = "", pipelines: SharedPipelines | None = None) -> None:
        """``client``: a ``redis.asyncio.Redis``; ``store_id``: the database's identity (key prefix);
        ``pipelines``: the process's shared pipelines on ``client`` (``adapters.redis_pipelines``), which
        ``record_queued`` goes out on beside the other requests of its turn (a write's rate-limit lease);
        None: a pipeline of its own."""
        self._client = client
        self._pipelines = pipelines
        self._prefix = f"hs:{store_id}:" if store_id else "hs:"
        self._queued = f"{self._prefix}ops:queued"

    def _key(self, tenant_id: str, job_id: UUID | str) -> str:
        return f"{self._prefix}op:{tenant_id}:{job_id}"

    async def record_queued(self, job: WriteJob | ReflectJob) -> None:
        try:
            key = self._key(job.tenant_id, job.id)

            # One pipeline, no MULTI: the hash and the sorted set live in different hash slots, and a
            # MULTI spanning two slots fails with CROSSSLOT on cluster-mode Redis (ElastiCache
            # Serverless is always cluster mode); each command names one key. One round trip on one
            # pooled connection, beside the acknowledgement's SendMessage: a MULTI for the hash and a
            # second connection for the sorted set cost ~0.3 ms more CPU a write (redis-py's own work,
            # competing with the send's thread). The sweep only reads entries an hour old and skips a
            # missing hash; the hash gets its TTL from the EXPIRE right behind it.
            def build(pipe: Any) -> None:
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
                pipe.zadd(self._queued, {f"{job.tenant_id}:{job.id}": time.time()})

            if self._pipelines is not None:
                await self._pipelines.run(build)
                return
            async with self._client.pipeline(transaction=False) as pipe:
                build(pipe)
                await pipe.execute()
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

    async def older_than(
        self, seconds: float, limit: int = 500, offset: int = 0
    ) -> list[tuple[str, UUID, str, int]]:
        """(tenant, id, job JSON, attempts) of jobs queued more than ``seconds`` ago, oldest first, at most
        ``limit`` after the first ``offset``."""
        members = await self._client.zrangebyscore(
            self._queued, 0, time.time() - seconds, start=offset, num=limit
        )
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

    def _idem_key(self, tenant_id: str, job_id: UUID) -> str:
        return f"{self._prefix}idem:{tenant_id}:{job_id}"

    async def claim(
        self, tenant_id: str, job_id: UUID, record: IdempotencyRecord
    ) -> IdempotencyRecord | None:
        """The IdempotencyRecords port: SET NX, else the record set first. Raises Unavailable."""
        value = json.dumps(
            {
                "fingerprint": record.fingerprint,
                "submitted_at": record.submitted_at.isoformat(),
                "trusted": record.trusted,
            }
        )
        key = self._idem_key(tenant_id, job_id)
        try:
            for _ in range(3):  # the first record may expire between SET NX and GET: then claim again
                if await self._client.set(key, value, nx=True, ex=IDEMPOTENCY_WINDOW_S):
                    return None
                first = await self._client.get(key)
                if first is not None:
                    data = json.loads(first)
                    return IdempotencyRecord(
                        data["fingerprint"], datetime.fromisoformat(data["submitted_at"]), data.get("trusted")
                    )
        except Exception as exc:
            raise Unavailable(f"idempotency records are unavailable: {type(exc).__name__}") from exc
        raise Unavailable("idempotency records are unavailable: the record kept expiring")

    async def release(self, tenant_id: str, job_id: UUID) -> None:
        try:
            await self._client.delete(self._idem_key(tenant_id, job_id))
        except Exception as exc:
            log.warning("could not release idempotency record %s: %s", job_id, exc)
