"""Rate limits per caller: budgets, the separate write budget, the JSON-RPC error, and failing open."""

from __future__ import annotations

import pytest

from hindsight.api.errors import RATE_LIMITED, tool_error_result
from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, RateLimited, Unavailable
from hindsight.usecases.rate_limits import CheckRateLimit, RateLimitPolicy

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")
BOB = Principal(tenant_id="acme", key_id="k2")


class CountingLimiter:
    """An in-memory fixed window: enough to test the use case's decisions."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.windows: dict[str, int] = {}
        self.down = False
        self.calls = 0

    async def hit(self, bucket: str, limit: int, window_s: int, cost: int = 1) -> float | None:
        self.calls += 1
        if self.down:
            raise Unavailable("redis down")
        if self.counts.get(bucket, 0) + cost > limit:
            return 12.0
        self.counts[bucket] = self.counts.get(bucket, 0) + cost
        self.windows[bucket] = window_s
        return None


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


async def test_batch_items_count_one_by_one_with_a_burst_of_ten_minutes_worth() -> None:
    # Given the default budgets: 120 changes a minute, batch items counted over 600 s
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=600, writes_per_minute=120))
    # When a caller sends twelve full batches at once (a conversation history of 1,200 turns)
    for _ in range(12):
        await check.items(ALICE, 100)
    # Then all of them went through (the burst), counted by items over the long window
    assert limiter.counts["acme:k1:write_items"] == 1200
    assert limiter.windows["acme:k1:write_items"] == 600
    # and the next item is refused until the window has room: the average stays 120 a minute
    with pytest.raises(RateLimited) as caught:
        await check.items(ALICE, 1)
    assert (caught.value.budget, caught.value.limit, caught.value.window_s) == ("write_items", 1200, 600)
    assert "1200 batch items per 600 s" in str(caught.value)
    await check.items(BOB, 100)  # per caller


async def test_a_batch_over_what_the_item_window_ever_allows_is_an_argument_error() -> None:
    check = CheckRateLimit(CountingLimiter(), RateLimitPolicy(writes_per_minute=6, items_window_s=600))
    await check.items(ALICE, 60)  # 6 a minute over 10 minutes
    with pytest.raises(InvalidInput) as caught:
        await check.items(ALICE, 61)
    assert caught.value.field == "items"
    assert caught.value.limit == {"max_items": 60}


async def test_items_are_not_counted_when_writes_are_uncapped() -> None:
    limiter = CountingLimiter()
    await CheckRateLimit(limiter, RateLimitPolicy(writes_per_minute=0)).items(ALICE, 100)
    assert limiter.calls == 0


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
