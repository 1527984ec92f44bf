"""Rate limits per caller: budgets, the separate write budget, the JSON-RPC error, and failing open."""

from __future__ import annotations

import pytest

from hindsight.api.errors import RATE_LIMITED, tool_error_result
from hindsight.domain.auth import Principal
from hindsight.domain.errors import RateLimited, Unavailable
from hindsight.usecases.rate_limits import CheckRateLimit, RateLimitPolicy

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")
BOB = Principal(tenant_id="acme", key_id="k2")


class CountingLimiter:
    """An in-memory fixed window: enough to test the use case's decisions."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.down = False
        self.calls = 0

    async def hit(self, bucket: str, limit: int, window_s: int) -> float | None:
        self.calls += 1
        if self.down:
            raise Unavailable("redis down")
        self.counts[bucket] = self.counts.get(bucket, 0) + 1
        return None if self.counts[bucket] <= limit else 12.0


async def test_a_caller_over_its_budget_is_refused_with_retry_after() -> None:
    check = CheckRateLimit(CountingLimiter(), RateLimitPolicy(per_minute=3, writes_per_minute=0))
    for _ in range(3):
        await check(ALICE, write=False)
    with pytest.raises(RateLimited) as caught:
        await check(ALICE, write=False)
    assert caught.value.retry_after_s == 12.0
    assert caught.value.limit == 3
    await check(BOB, write=False)  # budgets are per caller


async def test_writes_have_their_own_smaller_budget() -> None:
    check = CheckRateLimit(CountingLimiter(), RateLimitPolicy(per_minute=100, writes_per_minute=2))
    await check(ALICE, write=True)
    await check(ALICE, write=True)
    with pytest.raises(RateLimited) as caught:
        await check(ALICE, write=True)
    assert caught.value.budget == "writes"
    await check(ALICE, write=False)  # reads still go through


async def test_the_error_is_a_rate_limited_result_with_retry_after() -> None:
    result = tool_error_result(RateLimited(budget="requests", limit=600, window_s=60, retry_after_s=7))
    assert result is not None
    assert result.is_error
    assert result.structured_content is not None
    error = result.structured_content["error"]
    assert error["kind"] == "rate_limited"
    assert error["code"] == RATE_LIMITED == -32029
    assert error["retry_after_s"] == 7
    assert error["retryable"] is True
    assert "600 tool calls per 60 s" in error["message"]
    assert "retry in 7 s" in error["message"]
    text = result.content[0].text  # type: ignore[union-attr]
    assert "retry in 7 s" in text
    assert '"retry_after_s": 7' in text


async def test_a_limiter_outage_fails_open_and_pauses() -> None:
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=1, writes_per_minute=1, fail_open_s=60))
    limiter.down = True
    for _ in range(5):
        await check(ALICE, write=True)  # never raises
    assert limiter.calls == 1  # paused after the first failure: no call waits on a dead Redis


async def test_zero_turns_a_budget_off() -> None:
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=0, writes_per_minute=0))
    for _ in range(10):
        await check(ALICE, write=True)
    assert limiter.calls == 0
