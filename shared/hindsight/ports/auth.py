"""Ports of trust: API keys, bearer tokens from an OAuth issuer, and per-caller rate limits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from hindsight.domain.auth import ApiKeyRecord, Principal


class ApiKeyStore(Protocol):
    """Where API keys live."""

    async def find(self, key_id: str) -> ApiKeyRecord | None: ...

    async def create(self, record: ApiKeyRecord) -> None: ...

    async def revoke(self, key_id: str, at: datetime) -> bool: ...

    async def list(self, tenant_id: str | None) -> list[ApiKeyRecord]: ...


class BearerTokenVerifier(Protocol):
    """Verifies bearer tokens that are not Hindsight API keys (JWTs from an OAuth issuer)."""

    async def verify(self, token: str) -> Principal | None:
        """The caller a valid token names; None for any invalid one (expired, wrong audience or issuer,
        unknown key, bad signature, no tenant). Never raises for a bad token."""
        ...


class RateLimiter(Protocol):
    """Counts requests per caller in a sliding window shared by every process (Redis)."""

    async def hit(self, bucket: str, limit: int, window_s: int, cost: int = 1) -> float | None:
        """Count ``cost`` units (a request, or the items of a batch) in ``bucket``; None when they fit
        within ``limit`` per ``window_s`` seconds (then they are counted), else the seconds until they
        would (then nothing is counted). Raises Unavailable when the counter store is down."""
        ...

    async def lease(self, buckets: Sequence[tuple[str, int]], window_s: int) -> list[float | None]:
        """Count one unit in each ``(bucket, limit)`` now, as ``hit`` does, for a call that has not come
        yet (one round trip): per bucket, the seconds left of the counting window the unit was counted in
        (> 0; until then, spending the unit is counted exactly as a ``hit`` at that moment would be: in
        that window), or None when it does not fit or that window ends now (then nothing is counted).
        Raises Unavailable when the counter store is down."""
        ...
