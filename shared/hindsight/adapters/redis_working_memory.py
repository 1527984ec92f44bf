"""The WorkingMemoryStore port on Redis (ElastiCache in AWS, a local redis-server otherwise).

Layout: one hash per session, ``hs:<store id>:wm:<tenant>:<agent>:<session>`` (each part
percent-encoded, so ``:`` inside an id cannot make two scopes share a key); field = item key, value =
the item as JSON. The store id (the database's identity, ``hindsight_meta.store_id``) is the prefix the
other Redis keys carry too (``hs:<store id>:op:…``, ``…:seq:…``): two stacks on different databases
sharing one Redis never see each other's sessions. A store without an id (migrated before it existed)
keeps the older ``hindsight:wm:v1:…`` keys. ``session_prefix`` is the one place that builds them. The
whole hash carries the session's TTL, so a session expires as one (the spec: "expire whole sessions").

Updates are optimistic transactions: WATCH the session key, read it, let the caller decide, then
MULTI/EXEC the change. A concurrent change to the same session aborts EXEC and the update is retried
from a fresh read, so two writers can never together overshoot the budget. Every Redis or socket
error becomes ``Unavailable``; the client's connection pool reconnects on the next call, so the
service recovers without a restart when Redis comes back.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import redis.asyncio as aioredis
from pydantic import ValidationError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, WatchError
from redis.exceptions import TimeoutError as RedisTimeoutError

from hindsight.domain.errors import Unavailable
from hindsight.domain.working_memory import SessionScope, SessionState, SessionUpdate, WorkingMemoryItem
from hindsight.ports import SessionDecision

if TYPE_CHECKING:
    from hindsight.domain.maintenance import SessionSweep

log = logging.getLogger(__name__)

LEGACY_PREFIX = "hindsight:wm:v1"
"""The keys' prefix for a store without an id (and of every store before the per-store prefix)."""
MAX_ATTEMPTS = 32
"""Optimistic-transaction attempts before giving up with Unavailable. Each lost race means another
writer succeeded, and a lost race waits a jittered 0–2·attempt ms before retrying (spreading a burst),
so this runs out only under dozens of simultaneous writes to one session."""


def session_prefix(store_id: str, *parts: str) -> str:
    """The key prefix of a store's sessions, narrowed by the leading scope ``parts`` (tenant, then
    agent), percent-encoded, ending in ``:``: ``hs:<store id>:wm:<tenant>:``; with ``store_id`` ""
    the legacy ``hindsight:wm:v1:<tenant>:``. Append ``*`` for a SCAN pattern."""
    base = f"hs:{store_id}:wm" if store_id else LEGACY_PREFIX
    return ":".join([base, *(quote(p, safe="") for p in parts)]) + ":"


def session_key(scope: SessionScope, store_id: str = "") -> str:
    """The Redis key of a session's hash in the store ``store_id`` (see ``session_prefix``)."""
    return session_prefix(store_id, scope.tenant_id, scope.agent_id) + quote(scope.session_id, safe="")


def _unavailable(exc: BaseException) -> Unavailable:
    """The caller's error names what failed, not where: Redis's address stays in the server log."""
    log.warning("working-memory Redis call failed: %s: %s", type(exc).__name__, exc)
    if isinstance(exc, RedisTimeoutError | TimeoutError):
        reason = "Redis did not answer in time"
    elif isinstance(exc, RedisConnectionError | OSError):
        reason = "cannot connect to Redis"
    else:
        reason = f"Redis error ({type(exc).__name__})"
    return Unavailable(f"working memory is unavailable: {reason}")


def _decode(key: str, raw: Mapping[Any, Any]) -> dict[str, WorkingMemoryItem]:
    items: dict[str, WorkingMemoryItem] = {}
    for field, value in raw.items():
        try:
            item = WorkingMemoryItem.model_validate_json(value)
        except ValidationError:
            # Only a bug or a hand edit can put this here; skip it rather than fail the whole session.
            log.warning("skipping an unreadable working-memory item in %s", key)
            continue
        items[field.decode("utf-8") if isinstance(field, bytes) else str(field)] = item
    return items


def _expires_in(pttl_ms: int) -> float | None:
    return pttl_ms / 1000 if pttl_ms >= 0 else None


class RedisWorkingMemoryStore:
    """WorkingMemoryStore over one ``redis.asyncio`` client (a connection pool, shared by all sessions),
    keyed under the store ``store_id`` (see the module's docstring)."""

    def __init__(self, client: aioredis.Redis, store_id: str = "") -> None:
        self._client = client
        self._store_id = store_id

    async def read(self, scope: SessionScope) -> SessionState:
        """See ``WorkingMemoryStore.read``. Raises Unavailable."""
        key = session_key(scope, self._store_id)
        try:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.hgetall(key)
                pipe.pttl(key)
                raw, pttl = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise _unavailable(exc) from exc
        return SessionState(items=_decode(key, raw), expires_in_s=_expires_in(pttl))

    async def apply(self, scope: SessionScope, decide: SessionDecision, ttl_s: int) -> SessionUpdate:
        """See ``WorkingMemoryStore.apply``. Raises Unavailable (Redis down, or ``MAX_ATTEMPTS`` lost
        races) and whatever domain error ``decide`` raises."""
        key = session_key(scope, self._store_id)
        for attempt in range(MAX_ATTEMPTS):
            try:
                return await self._apply_once(key, decide, ttl_s)
            except WatchError:
                await asyncio.sleep(random.uniform(0, 0.002 * (attempt + 1)))
            except (RedisError, OSError) as exc:
                raise _unavailable(exc) from exc
        raise Unavailable(
            f"working memory is unavailable: session busy ({MAX_ATTEMPTS} concurrent updates won the race)"
        )

    async def _apply_once(self, key: str, decide: SessionDecision, ttl_s: int) -> SessionUpdate:
        async with self._client.pipeline(transaction=True) as pipe:
            await pipe.watch(key)
            raw = await pipe.hgetall(key)  # immediate mode while watching
            pttl = int(await pipe.pttl(key))
            before = _decode(key, raw)
            change = decide(before)
            if change.is_empty:
                await pipe.unwatch()  # type: ignore[no-untyped-call]
                state = SessionState(items=before, expires_in_s=_expires_in(pttl) if before else None)
                return SessionUpdate(change=change, after=state)
            after = dict(before)
            for item in change.delete:
                after.pop(item.key, None)
            for item in change.upsert:
                after[item.key] = item
            pipe.multi()  # type: ignore[no-untyped-call]
            if change.delete:
                pipe.hdel(key, *[i.key for i in change.delete])
            if change.upsert:
                pipe.hset(key, mapping={i.key: i.model_dump_json() for i in change.upsert})
            # Always leave a TTL on the hash, so no session can outlive it by accident.
            expire_ms = ttl_s * 1000 if change.refresh_ttl or pttl <= 0 else pttl
            if after:
                pipe.pexpire(key, expire_ms)
            await pipe.execute()
        state = SessionState(items=after, expires_in_s=expire_ms / 1000 if after else None)
        return SessionUpdate(change=change, after=state)

    async def sweep_sessions(
        self, cursor: int, count: int, ttl_s: int, tenant_id: str | None
    ) -> SessionSweep:
        """The WorkingMemorySweeper port (scheduled maintenance): one SCAN page of session keys from
        ``cursor`` (``count`` is SCAN's hint), only ``tenant_id``'s when given; a session found without a
        TTL (PTTL −1: written by hand or by an older version) gets ``ttl_s`` seconds. Expired and emptied
        sessions need nothing: Redis deletes expired keys and hashes whose last field is removed.
        Raises Unavailable."""
        scope = (tenant_id,) if tenant_id is not None else ()
        match = session_prefix(self._store_id, *scope) + "*"  # this store's sessions only
        repaired = 0
        try:
            next_cursor, keys = await self._client.scan(cursor=cursor, match=match, count=count)
            if keys:
                async with self._client.pipeline(transaction=False) as pipe:
                    for key in keys:
                        pipe.pttl(key)
                    ttls = await pipe.execute()
                missing = [key for key, ttl in zip(keys, ttls, strict=True) if int(ttl) == -1]
                if missing:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for key in missing:
                            pipe.expire(key, ttl_s)
                        repaired = sum(1 for done in await pipe.execute() if done)
        except (RedisError, OSError) as exc:
            raise _unavailable(exc) from exc
        from hindsight.domain.maintenance import SessionSweep  # maintenance only: off the cold start

        return SessionSweep(next_cursor=int(next_cursor), scanned=len(keys), repaired=repaired)

    async def aclose(self) -> None:
        """Close the client's connections (errors ignored: the process is shutting down)."""
        try:
            await self._client.aclose()
        except (RedisError, OSError):
            log.debug("error closing the working-memory Redis client", exc_info=True)
