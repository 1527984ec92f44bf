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

Leases: the counter store's round trip is kept off a call's path. After an admitted call, while its tool
runs (its own I/O: SendMessage for a write, the database for a search), the process claims the caller's
next unit of each budget the call counted against (``RateLimiter.lease``: counted in the store at once),
and the caller's next call in that window spends it with no round trip; a call with no lease in hand is
counted as before. The claim is awaited before the call is answered, so nothing runs after a response
(Lambda freezes an instance then). Because a leased unit is counted when it is claimed, the store never
admits more than a budget, across processes and concurrent calls; a unit spent before its counting window
ends is counted exactly where a hit at that moment would be. A process holds at most one claimed and
unspent unit per caller and budget (a claim in flight included), valid only until its counting window
ends — by the monotonic and the wall clock both, so a frozen and thawed Lambda instance whose monotonic
clock stood still does not keep it, less ``LEASE_MARGIN_S`` — after which it is dropped, never spent.
The price: a caller can be refused up to one unit early per budget and per process holding a lease it
does not use (one process alone spends its own, so it gets its whole budget unless a lease lapses
unspent), and a caller that calls less than once a window counts two units a call (each lapses).
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
LEASE_MARGIN_S = 0.25
"""A lease ends this much before its counting window does: covers the store's clock (Redis expires keys
on its own) running ahead of ours — clock slewing is at most 500 ppm, 0.03 s a minute — and rounding."""
MAX_LEASES = 4096
"""Leases one process holds at most (an entry of ~200 bytes each): past it, lapsed ones are dropped first,
then no new one is claimed until some lapse."""


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
        self._leases: dict[str, tuple[float, float]] = {}
        """Bucket → the lease's end by ``time.monotonic`` and by ``time.time``."""
        self._claiming: set[str] = set()

    async def __call__(self, principal: Principal, *, write: bool) -> None:
        """Count one call against the calls budget and, for a ``write``, the writes budget: with the
        caller's lease of a budget when this process holds a live one, else in the store (a write's two
        budgets at once, one round trip). Raises RateLimited (never Unavailable: the limiter fails open).
        A write refused by one budget is still counted against the other."""
        hits = [
            self._hit(bucket, name, limit, WINDOW_S, 1)
            for name, limit, bucket in self._budgets(principal, write)
            if not self._spend_lease(bucket)
        ]
        if len(hits) == 1:
            await hits[0]
        elif hits:
            outcomes = await asyncio.gather(*hits, return_exceptions=True)
            for outcome in outcomes:  # the calls budget's refusal first, as before
                if isinstance(outcome, BaseException):
                    raise outcome

    async def lease_next(self, principal: Principal, *, write: bool) -> None:
        """After an admitted call (``self(principal, write=write)`` returned), claim the caller's next
        unit of each budget it counted against that this process holds no live lease of (nor claims
        already): one round trip for all of them, meant to run while the call's tool waits on its own
        I/O and to be awaited before the call is answered. Never raises (the limiter fails open; a unit
        that does not fit is simply not leased)."""
        if time.monotonic() < self._paused_until:
            return
        if len(self._leases) >= MAX_LEASES:
            for lapsed in [b for b in self._leases if not self._lease_live(b)]:
                self._leases.pop(lapsed, None)
            if len(self._leases) >= MAX_LEASES:
                return
        claims = {
            bucket: limit
            for _, limit, bucket in self._budgets(principal, write)
            if bucket not in self._claiming and not self._lease_live(bucket)
        }
        if not claims:
            return
        self._claiming.update(claims)  # before any await: a concurrent call claims no second unit
        try:
            # the windows' ends are measured from before the request: the store counted the units later
            monotonic, wall = time.monotonic(), time.time()
            try:
                lefts = await self._limiter.lease(list(claims.items()), WINDOW_S)
            except Unavailable as exc:
                self._pause(exc)
                return
        finally:
            self._claiming.difference_update(claims)
        for bucket, left in zip(claims, lefts, strict=True):
            if left is not None and left > LEASE_MARGIN_S:
                self._leases[bucket] = (monotonic + left - LEASE_MARGIN_S, wall + left - LEASE_MARGIN_S)

    def _budgets(self, principal: Principal, write: bool) -> list[tuple[str, int, str]]:
        """(Budget name, limit, bucket) of each capped budget a call counts against."""
        budgets = [("requests", self.policy.per_minute)]
        if write:
            budgets.append(("writes", self.policy.writes_per_minute))
        prefix = f"{principal.tenant_id}:{principal.key_id}"
        return [(name, limit, f"{prefix}:{name}") for name, limit in budgets if limit > 0]

    def _lease_live(self, bucket: str) -> bool:
        lease = self._leases.get(bucket)
        if lease is None:
            return False
        if time.monotonic() < lease[0] and time.time() < lease[1]:
            return True
        del self._leases[bucket]  # lapsed: its unit stays counted in its window, never spent
        return False

    def _spend_lease(self, bucket: str) -> bool:
        """Whether a live lease of ``bucket`` was there (it is spent: no await between look and take, so
        two concurrent calls never spend one lease)."""
        if not self._lease_live(bucket):
            return False
        del self._leases[bucket]
        return True

    async def refused(self, principal: Principal) -> None:
        """Count one call refused for its arguments against ``refused`` (``per_minute`` a minute).
        Raises RateLimited."""
        bucket = f"{principal.tenant_id}:{principal.key_id}:refused"
        await self._hit(bucket, "refused", self.policy.per_minute, WINDOW_S, 1)

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
        bucket = f"{principal.tenant_id}:{principal.key_id}:write_items"
        await self._hit(bucket, "write_items", limit, self.policy.items_window_s, count)

    async def _hit(self, bucket: str, name: str, limit: int, window_s: int, cost: int) -> None:
        if limit <= 0 or time.monotonic() < self._paused_until:
            return
        try:
            wait = await self._limiter.hit(bucket, limit, window_s, cost)
        except Unavailable as exc:
            self._pause(exc)
            return
        if wait is not None:
            raise RateLimited(budget=name, limit=limit, window_s=window_s, retry_after_s=wait)

    def _pause(self, exc: Unavailable) -> None:
        self._paused_until = time.monotonic() + self.policy.fail_open_s
        log.warning("rate limiting skipped for %.0f s (fail open): %s", self.policy.fail_open_s, exc)
