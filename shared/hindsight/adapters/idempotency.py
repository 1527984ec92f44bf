"""Per-job idempotency records in Redis around the worker's batch commit, pipelined for the whole batch.

The record protocol is Powertools idempotency's (``INPROGRESS`` while a delivery commits, bounded by the
invocation's remaining time; ``COMPLETED`` with the job's result for ``ttl_s``; deleted when the commit
failed, so a retry runs again), but a batch costs two Redis round trips in all — one pipeline claims
every job (``SET NX`` + ``GET``), one records every outcome — instead of several calls per job.

The key is the job id plus a hash of its payload (``[id, content_hash]``): a redelivered message is
answered from Redis without touching Postgres. Postgres stays the last word — ``write_results`` makes
a commit idempotent by itself — so when Redis is unreachable the batch commits without this layer
rather than failing the writes (Redis down must not stop memories from being stored).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Literal

log = logging.getLogger(__name__)

INPROGRESS, COMPLETED = "INPROGRESS", "COMPLETED"


class IdempotencyInProgress(Exception):
    """Another worker is committing the same job right now; this delivery should be retried later."""


@dataclass(frozen=True)
class Claim:
    """What Redis said about one job: ``run`` (commit it), ``done`` (answer ``result``, already
    committed), or ``busy`` (another delivery is committing it)."""

    state: Literal["run", "done", "busy"]
    result: dict[str, Any] | None = None


class RedisIdempotency:
    """``claim(keys)`` before a batch commit, ``finish(...)`` after it. ``namespace``: the store id, so
    records of one database never answer for another that shares the Redis (a wiped local data folder
    would otherwise see its new jobs as done)."""

    def __init__(
        self, redis_url: str, ttl_s: int = 3600, socket_timeout_s: float = 1.0, namespace: str = ""
    ) -> None:
        import redis

        self._client = redis.Redis.from_url(
            redis_url, socket_timeout=socket_timeout_s, socket_connect_timeout=socket_timeout_s
        )
        self._ttl_s = ttl_s
        self._prefix = f"hindsight-job:{namespace}" if namespace else "hindsight-job"
        self._context: Any = None

    def register_context(self, context: Any) -> None:
        """Bound in-progress records by the invocation's remaining time (a crashed worker's lock expires)."""
        if context is not None and hasattr(context, "get_remaining_time_in_millis"):
            self._context = context

    def key(self, key: dict[str, Any]) -> str:
        """The Redis key of one job: ``key`` is ``{"id", "kind", "content_hash"}``."""
        data = json.dumps([key["id"], key["content_hash"]], sort_keys=True).encode()
        return f"{self._prefix}#{hashlib.md5(data, usedforsecurity=False).hexdigest()}"

    def _in_progress_s(self) -> int:
        if self._context is None:
            return self._ttl_s
        remaining_ms = int(self._context.get_remaining_time_in_millis())
        return max(1, math.ceil(remaining_ms / 1000))

    def claim(self, keys: list[str]) -> list[Claim] | None:
        """One pipeline: claim every key not yet claimed (distinct keys expected); None when Redis is
        unreachable (then commit without this layer)."""
        import redis

        hold_s = self._in_progress_s()
        now = time.time()
        record = json.dumps(
            {
                "status": INPROGRESS,
                "expiration": int(now) + hold_s,
                "in_progress_expiration": int((now + hold_s) * 1000),
            }
        )
        try:
            pipe = self._client.pipeline(transaction=False)
            for key in keys:
                pipe.set(key, record, nx=True, ex=hold_s)
                pipe.get(key)
            replies = pipe.execute()
        except redis.RedisError as exc:
            log.warning("idempotency store unavailable (%s); relying on the database's write_results", exc)
            return None
        claims, expired = [], []
        for key, claimed, raw in zip(keys, replies[0::2], replies[1::2], strict=True):
            if claimed:
                claims.append(Claim("run"))
                continue
            found = json.loads(raw) if raw else {}
            if found.get("status") == COMPLETED:
                claims.append(Claim("done", found.get("data")))
            elif found.get("status") == INPROGRESS and found.get("in_progress_expiration", 0) > now * 1000:
                claims.append(Claim("busy"))
            else:  # the record expired between the two commands, or a crashed delivery's lock ran out
                expired.append(key)
                claims.append(Claim("run"))
        if expired:
            try:
                pipe = self._client.pipeline(transaction=False)
                for key in expired:
                    pipe.set(key, record, ex=hold_s)
                pipe.execute()
            except redis.RedisError as exc:
                log.warning(
                    "idempotency store unavailable (%s); relying on the database's write_results", exc
                )
        return claims

    def finish(self, completed: dict[str, dict[str, Any]], failed: list[str]) -> None:
        """One pipeline: record the results of the committed jobs; forget the failed ones (a redelivery
        runs again). Redis errors are logged, not raised (the commit is done; Postgres answers a replay)."""
        import redis

        if not completed and not failed:
            return
        now = int(time.time())
        try:
            pipe = self._client.pipeline(transaction=False)
            for key, result in completed.items():
                record = {"status": COMPLETED, "expiration": now + self._ttl_s, "data": result}
                pipe.set(key, json.dumps(record), ex=self._ttl_s)
            if failed:
                pipe.delete(*failed)
            pipe.execute()
        except redis.RedisError as exc:
            log.warning(
                "idempotency store unavailable (%s); the database's write_results answer replays", exc
            )

    def close(self) -> None:
        """Release the connection pool."""
        self._client.close()
