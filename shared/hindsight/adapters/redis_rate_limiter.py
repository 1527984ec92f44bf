"""The RateLimiter port on Redis with the ``limits`` library's sliding-window counter.

Per bucket two counters (the current and the previous fixed window, one Lua script per hit, keys
``hs:<store id>:rl:…`` expiring on their own); the count is the current window's plus the previous window's
weighted by how much of it still overlaps — smooth like a sliding log, at the cost of two integers.
A window is fixed per bucket: it starts at the bucket's first hit (the current key is set to live two
windows) and ends when that key has one window left to live, at which hit the current count becomes the
previous one. ``lease`` counts a unit in the same two keys with the same rule (``LEASE_SCRIPT``) and also
answers how long the window it was counted in has left.
The Redis client is the process's shared one (its connection pool, timeouts and retries).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hindsight.domain.errors import Unavailable

if TYPE_CHECKING:
    from limits.aio.strategies import SlidingWindowCounterRateLimiter

    from hindsight.adapters.redis_pipelines import SharedPipelines

KEY_PREFIX = "hs:rl"
"""The prefix without a store id (a store shares its Redis with no other); else ``hs:<store id>:rl``."""

LEASE_SCRIPT = """
local limit = tonumber(ARGV[1])
local expiry = tonumber(ARGV[2]) * 1000
local current_ttl = tonumber(redis.call('pttl', KEYS[2]))
if current_ttl > 0 and current_ttl < expiry then
    redis.call('rename', KEYS[2], KEYS[1])
    redis.call('set', KEYS[2], 0, 'PX', current_ttl + expiry)
end
local previous_count = tonumber(redis.call('get', KEYS[1])) or 0
local previous_ttl = math.max(tonumber(redis.call('pttl', KEYS[1])) or 0, 0)
local current_count = tonumber(redis.call('get', KEYS[2])) or 0
current_ttl = tonumber(redis.call('pttl', KEYS[2]))
if math.floor(previous_count * previous_ttl / expiry) + current_count + 1 > limit then
    return -1
end
if current_ttl == -2 then
    redis.call('set', KEYS[2], 1, 'PX', expiry * 2)
    return expiry
end
if current_ttl <= expiry then
    return -1
end
redis.call('incrby', KEYS[2], 1)
return current_ttl - expiry
"""
"""One unit counted as ``limits``' ``acquire_sliding_window.lua`` (limits 5.8) counts it — KEYS previous and
current window, ARGV limit and window in seconds, the same shift of an ended window and the same weighted
count — answering the milliseconds left of the current window (the current key's time to live less one
window: the next hit after that shifts it), or -1 when the unit does not fit or that window ends now
(nothing counted). A test holds the two to one count (``test_rate_limit_leases``)."""
LEASE_SCRIPT_SHA = hashlib.sha1(LEASE_SCRIPT.encode()).hexdigest()  # noqa: S324 (Redis names scripts so)


class RedisRateLimiter:
    """``hit`` counts and answers in one round trip while under the limit; over it, a second one
    reads the window to say when the next request is allowed."""

    def __init__(self, client: Any, store_id: str = "", pipelines: SharedPipelines | None = None) -> None:
        """``store_id`` (the database's identity) keeps two stores that share one Redis from sharing
        budgets: the same key id or tenant in each is a different caller. ``pipelines``: the process's
        shared pipelines on ``client`` (``adapters.redis_pipelines``), which leases go out on beside the
        other requests of their turn; None: a pipeline of their own."""
        self._client = client
        self._pipelines = pipelines
        self._key_prefix = f"hs:{store_id}:rl" if store_id else KEY_PREFIX
        self._built: SlidingWindowCounterRateLimiter | None = None

    def _limiter(self) -> SlidingWindowCounterRateLimiter:
        """The ``limits`` limiter, made on the first hit: importing ``limits`` (all its storage backends,
        memcached's included) is ~20 ms of CPU that a Lambda cold start's first answer, ``initialize``,
        does not count against any budget (bench/ab_coldstart.py)."""
        if self._built is None:
            from limits.aio.storage import RedisStorage
            from limits.aio.strategies import SlidingWindowCounterRateLimiter

            storage = RedisStorage(
                "async+redis://",
                implementation="redispy",
                key_prefix=self._key_prefix,
                wrap_exceptions=True,
                connection_pool=self._client.connection_pool,
            )
            self._built = SlidingWindowCounterRateLimiter(storage)
        return self._built

    async def hit(self, bucket: str, limit: int, window_s: int, cost: int = 1) -> float | None:
        """See ``RateLimiter.hit``. Raises Unavailable when Redis cannot be reached."""
        from limits import RateLimitItemPerSecond

        limiter = self._limiter()
        item = RateLimitItemPerSecond(limit, window_s)
        try:
            if await limiter.hit(item, bucket, cost=cost):
                return None
            stats = await limiter.get_window_stats(item, bucket)
        except Exception as exc:  # limits wraps every Redis error in StorageError
            raise Unavailable(f"rate-limit store unavailable ({type(exc).__name__})") from exc
        wait = stats.reset_time - time.time()
        return max(1.0, math.ceil(wait)) if math.isfinite(wait) else float(window_s)

    async def lease(self, buckets: Sequence[tuple[str, int]], window_s: int) -> list[float | None]:
        """See ``RateLimiter.lease``: the buckets' scripts pipelined (each bucket's two keys share a hash
        slot, two buckets need not: one script per bucket), by digest, the script loaded once if Redis
        does not know it. Raises Unavailable when Redis cannot be reached."""
        from limits import RateLimitItemPerSecond
        from redis.exceptions import NoScriptError

        commands = []
        for bucket, limit in buckets:
            # the keys limits' RedisStorage gives the bucket: "<prefix>:{<item key>}" and ".../-1"
            current = f"{self._key_prefix}:{{{RateLimitItemPerSecond(limit, window_s).key_for(bucket)}}}"
            commands.append((f"{current}/-1", current, limit, window_s))
        try:
            try:
                answers = await self._run_leases(commands)
            except NoScriptError:  # a new or flushed Redis: load it, once
                await self._client.script_load(LEASE_SCRIPT)
                answers = await self._run_leases(commands)
        except Exception as exc:
            raise Unavailable(f"rate-limit store unavailable ({type(exc).__name__})") from exc
        return [int(left_ms) / 1000 if int(left_ms) > 0 else None for left_ms in answers]

    async def _run_leases(self, commands: list[tuple[str, str, int, int]]) -> list[Any]:
        def build(pipe: Any) -> None:
            for previous, current, limit, window_s in commands:
                pipe.evalsha(LEASE_SCRIPT_SHA, 2, previous, current, limit, window_s)

        if self._pipelines is not None:
            return await self._pipelines.run(build)
        async with self._client.pipeline(transaction=False) as pipe:
            build(pipe)
            return list(await pipe.execute())
