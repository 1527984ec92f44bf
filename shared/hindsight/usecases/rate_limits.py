"""Rate limits per caller (API key or JWT subject): a budget of tool calls per minute, and a smaller
one for calls that change memory. Exceeded → ``RateLimited`` (an isError result of kind rate_limited with
``retry_after_s``).

A batch of writes (``memory_write_batch``) is one call of each budget, and its items are counted one by
one against a third, ``write_items``: ``writes_per_minute`` items per minute on average, measured over
``items_window_s`` (default 600 s: 1,200 items per 10 minutes at the default 120). The average is the
single writes' budget — the worker's cost is per item (one embedding, one transaction), so a batch is no
way around it — while the longer window is the burst allowance: a conversation history of up to 1,200
turns (LoCoMo's conversations have 369–689) goes in at once, twelve full batches, instead of being paced
at two writes a second; after that the importer is held to the average.

A call refused for its arguments before the tool runs (the SDK's schema, an argument the tool does not
take, a value that cannot be read) counts against neither: a model that retries a malformed call until
it gets it right must not be locked out of its correct calls, nor of writing, by its own mistakes, and
a refusal costs the server no work past the check. It counts against ``refused`` instead, a budget of
its own as large as the calls budget (``per_minute``), so a flood of malformed calls stays bounded: at
most twice ``per_minute`` calls a minute reach the argument check, half of them refused there.

Fail open: when the counter store (Redis) is down, calls go through — an outage of the limiter must
not lock every agent out — and the limiter is skipped for ``fail_open_s`` seconds, so no call waits
on a dead Redis's timeout meanwhile; the outage is logged once per pause.
"""

from __future__ import annotations

import asyncio
import logging
import time

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, RateLimited, Unavailable
from hindsight.ports import RateLimiter

log = logging.getLogger(__name__)
WINDOW_S = 60


class RateLimitPolicy(BaseModel):
    """Calls per minute per caller (0: unlimited); ``writes_per_minute`` also caps the changing ones."""

    model_config = ConfigDict(frozen=True)

    per_minute: int = Field(default=600, ge=0)
    writes_per_minute: int = Field(default=120, ge=0)
    items_window_s: int = Field(default=600, ge=60)
    """The window batch items are counted over (``writes_per_minute`` × window / 60 items per window)."""
    fail_open_s: float = Field(default=30.0, ge=0)

    @property
    def items_limit(self) -> int:
        """Batch items allowed per ``items_window_s`` (0: no cap)."""
        return self.writes_per_minute * self.items_window_s // WINDOW_S


class CheckRateLimit:
    """Count one call of ``principal``; raise RateLimited when it is over a budget."""

    def __init__(self, limiter: RateLimiter, policy: RateLimitPolicy) -> None:
        self._limiter = limiter
        self.policy = policy
        self._paused_until = 0.0

    async def __call__(self, principal: Principal, *, write: bool) -> None:
        """Raises RateLimited (never Unavailable: the limiter fails open).

        A write's two budgets are counted at once (one round trip on the acknowledgement's path instead
        of two): a write refused by the calls budget is still counted against the writes budget."""
        if not write:
            await self._hit(principal, "requests", self.policy.per_minute, WINDOW_S, 1)
            return
        outcomes = await asyncio.gather(
            self._hit(principal, "requests", self.policy.per_minute, WINDOW_S, 1),
            self._hit(principal, "writes", self.policy.writes_per_minute, WINDOW_S, 1),
            return_exceptions=True,
        )
        for outcome in outcomes:  # the calls budget's refusal first, as before
            if isinstance(outcome, BaseException):
                raise outcome

    async def refused(self, principal: Principal) -> None:
        """Count one call refused for its arguments against ``refused`` (``per_minute`` a minute).
        Raises RateLimited."""
        await self._hit(principal, "refused", self.policy.per_minute, WINDOW_S, 1)

    async def items(self, principal: Principal, count: int) -> None:
        """Count ``count`` items of a batch against ``write_items`` (all or none). Raises RateLimited,
        or InvalidInput (field ``items``) when ``count`` is over what the window ever allows."""
        limit = self.policy.items_limit
        if limit <= 0 or count <= 0:
            return
        if count > limit:
            raise InvalidInput(
                "items", f"at most {limit} items per batch under this key's rate limit", {"max_items": limit}
            )
        await self._hit(principal, "write_items", limit, self.policy.items_window_s, count)

    async def _hit(self, principal: Principal, name: str, limit: int, window_s: int, cost: int) -> None:
        if limit <= 0 or time.monotonic() < self._paused_until:
            return
        try:
            wait = await self._limiter.hit(
                f"{principal.tenant_id}:{principal.key_id}:{name}", limit, window_s, cost
            )
        except Unavailable as exc:
            self._paused_until = time.monotonic() + self.policy.fail_open_s
            log.warning("rate limiting skipped for %.0f s (fail open): %s", self.policy.fail_open_s, exc)
            return
        if wait is not None:
            raise RateLimited(budget=name, limit=limit, window_s=window_s, retry_after_s=wait)
