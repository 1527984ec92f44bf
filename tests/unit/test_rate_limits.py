"""Rate limits per caller: budgets, the separate write budget, the JSON-RPC error, and failing open."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from hindsight.api.errors import RATE_LIMITED, tool_error_result
from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, RateLimited, Unavailable
from hindsight.usecases import rate_limits
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
        self.leases = 0
        self.left_s = 30.0  # what a lease answers: the seconds left of its window

    async def hit(self, bucket: str, limit: int, window_s: int, cost: int = 1) -> float | None:
        self.calls += 1
        if self.down:
            raise Unavailable("redis down")
        if self.counts.get(bucket, 0) + cost > limit:
            return 12.0
        self.counts[bucket] = self.counts.get(bucket, 0) + cost
        self.windows[bucket] = window_s
        return None

    async def lease(self, buckets: Sequence[tuple[str, int]], window_s: int) -> list[float | None]:
        self.leases += len(buckets)
        if self.down:
            raise Unavailable("redis down")
        return [self.left_s if await self.hit(b, limit, window_s) is None else None for b, limit in buckets]


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


# ---- leases: the next call's unit counted while this one runs ---------------------------------------


async def test_a_lease_is_spent_by_the_next_call_with_no_round_trip_and_one_process_gets_its_budget() -> None:
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=100, writes_per_minute=3))
    for _ in range(3):
        await check(ALICE, write=True)
        await check.lease_next(ALICE, write=True)
    for _ in range(2):  # one process spends its own leases: exactly the budget
        with pytest.raises(RateLimited) as refused:
            await check(ALICE, write=True)
        assert refused.value.budget == "writes"
    assert limiter.counts["acme:k1:writes"] == 3  # never more counted than the budget either
    await check(BOB, write=True)
    await check.lease_next(BOB, write=True)
    calls = limiter.calls
    await check(BOB, write=False)  # a read spends the calls budget's lease a write claimed
    assert limiter.calls == calls


async def test_two_concurrent_calls_never_spend_one_lease_and_a_process_holds_one_per_budget() -> None:
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=100, writes_per_minute=100))
    await check(ALICE, write=True)
    await asyncio.gather(*(check.lease_next(ALICE, write=True) for _ in range(3)))
    assert limiter.leases == 2  # one unit per budget however many calls claim at once
    before = dict(limiter.counts)
    await asyncio.gather(check(ALICE, write=True), check(ALICE, write=True))
    assert limiter.counts["acme:k1:writes"] == before["acme:k1:writes"] + 1  # one spent the lease
    assert limiter.counts["acme:k1:requests"] == before["acme:k1:requests"] + 1


async def test_a_lapsed_lease_is_not_spent_even_when_one_clock_stood_still(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A Lambda instance frozen between two calls: its monotonic clock may not have advanced, the wall
    # clock has; the lease's window ended meanwhile, so the call must be counted in the store again.
    clock = FakeClock()
    monkeypatch.setattr(rate_limits, "time", clock)
    limiter = CountingLimiter()
    limiter.left_s = 10.0
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=100, writes_per_minute=0))
    await check(ALICE, write=False)
    await check.lease_next(ALICE, write=False)
    clock.wall += 10.0 - rate_limits.LEASE_MARGIN_S  # the monotonic clock stood still
    calls = limiter.calls
    await check(ALICE, write=False)
    assert limiter.calls == calls + 1
    await check.lease_next(ALICE, write=False)
    clock.mono += 10.0 - rate_limits.LEASE_MARGIN_S  # and the other way round
    await check(ALICE, write=False)
    assert limiter.calls == calls + 3
    await check.lease_next(ALICE, write=False)
    clock.mono += 5.0  # a live lease is spent
    clock.wall += 5.0
    await check(ALICE, write=False)
    assert limiter.calls == calls + 4


async def test_a_refused_or_failing_limiter_leases_nothing() -> None:
    limiter = CountingLimiter()
    check = CheckRateLimit(limiter, RateLimitPolicy(per_minute=1, writes_per_minute=0, fail_open_s=60))
    await check(ALICE, write=False)
    await check.lease_next(ALICE, write=False)  # does not fit: no lease, no error
    with pytest.raises(RateLimited):
        await check(ALICE, write=False)
    limiter.down = True
    await check.lease_next(BOB, write=False)  # never raises; pauses the limiter (fail open)
    calls = limiter.calls
    await check(BOB, write=False)
    assert limiter.calls == calls


class FakeClock:
    """Stands in for the ``time`` module in ``usecases.rate_limits``."""

    def __init__(self) -> None:
        self.mono, self.wall = 1000.0, 1_800_000_000.0

    def monotonic(self) -> float:
        return self.mono

    def time(self) -> float:
        return self.wall
