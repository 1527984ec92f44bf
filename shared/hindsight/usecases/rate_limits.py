"""Rate limits per caller (API key or JWT subject): a budget of tool calls per minute, and a smaller
one for calls that change memory. Exceeded → ``RateLimited`` (an isError result of kind rate_limited with
``retry_after_s``).

Fail open: when the counter store (Redis) is down, calls go through — an outage of the limiter must
not lock every agent out — and the limiter is skipped for ``fail_open_s`` seconds, so no call waits
on a dead Redis's timeout meanwhile; the outage is logged once per pause.
"""

from __future__ import annotations

import logging
import time

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.errors import RateLimited, Unavailable
from hindsight.ports import RateLimiter

log = logging.getLogger(__name__)
WINDOW_S = 60


class RateLimitPolicy(BaseModel):
    """Calls per minute per caller (0: unlimited); ``writes_per_minute`` also caps the changing ones."""

    model_config = ConfigDict(frozen=True)

    per_minute: int = Field(default=600, ge=0)
    writes_per_minute: int = Field(default=120, ge=0)
    fail_open_s: float = Field(default=30.0, ge=0)


class CheckRateLimit:
    """Count one call of ``principal``; raise RateLimited when it is over a budget."""

    def __init__(self, limiter: RateLimiter, policy: RateLimitPolicy) -> None:
        self._limiter = limiter
        self.policy = policy
        self._paused_until = 0.0

    async def __call__(self, principal: Principal, *, write: bool) -> None:
        """Raises RateLimited (never Unavailable: the limiter fails open)."""
        if time.monotonic() < self._paused_until:
            return
        caller = f"{principal.tenant_id}:{principal.key_id}"
        budgets = [("requests", self.policy.per_minute)]
        if write:
            budgets.append(("writes", self.policy.writes_per_minute))
        for name, limit in budgets:
            if limit <= 0:
                continue
            try:
                wait = await self._limiter.hit(f"{caller}:{name}", limit, WINDOW_S)
            except Unavailable as exc:
                self._paused_until = time.monotonic() + self.policy.fail_open_s
                log.warning("rate limiting skipped for %.0f s (fail open): %s", self.policy.fail_open_s, exc)
                return
            if wait is not None:
                raise RateLimited(budget=name, limit=limit, window_s=WINDOW_S, retry_after_s=wait)
