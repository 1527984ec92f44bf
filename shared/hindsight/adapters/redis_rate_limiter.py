"""The RateLimiter port on Redis with the ``limits`` library's sliding-window counter.

Per bucket two counters (the current and the previous fixed window, one Lua script per hit, keys
``hs:<store id>:rl:…`` expiring on their own); the count is the current window's plus the previous window's
weighted by how much of it still overlaps — smooth like a sliding log, at the cost of two integers.
The Redis client is the process's shared one (its connection pool, timeouts and retries).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING, Any

from hindsight.domain.errors import Unavailable

if TYPE_CHECKING:
    from limits.aio.strategies import SlidingWindowCounterRateLimiter

KEY_PREFIX = "hs:rl"
"""The prefix without a store id (a store shares its Redis with no other); else ``hs:<store id>:rl``."""


class RedisRateLimiter:
    """``hit`` counts and answers in one round trip while under the limit; over it, a second one
    reads the window to say when the next request is allowed."""

    def __init__(self, client: Any, store_id: str = "") -> None:
        """``store_id`` (the database's identity) keeps two stores that share one Redis from sharing
        budgets: the same key id or tenant in each is a different caller."""
        self._client = client
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
