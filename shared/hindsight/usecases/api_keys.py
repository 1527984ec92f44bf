"""Authenticate a bearer token (an API key, or a JWT when an issuer is configured); mint, list and
revoke API keys."""

from __future__ import annotations

import time
from collections.abc import Sequence

from hindsight.domain.auth import (
    ApiKeyRecord,
    MintedKey,
    Principal,
    check_key_scope,
    looks_like_jwt,
    mint_key,
    parse_token,
    secret_matches,
)
from hindsight.domain.errors import InvalidInput
from hindsight.ports import ApiKeyStore, BearerTokenVerifier, Clock


class Authenticate:
    """Bearer token → Principal, or None. The token's shape decides: ``hsk_…`` is an API key (answers,
    positive and negative, cached for ``ttl_s``: a revoked key stops working within that time); a JWT
    goes to ``jwt`` when one is configured (verified every time; its JWKS is cached); anything else
    is None."""

    def __init__(
        self,
        keys: ApiKeyStore,
        ttl_s: float = 30.0,
        max_entries: int = 10_000,
        jwt: BearerTokenVerifier | None = None,
    ) -> None:
        self._keys = keys
        self._jwt = jwt
        self._ttl_s = ttl_s
        self._max = max_entries
        self._cache: dict[str, tuple[float, Principal | None]] = {}

    async def __call__(self, token: str) -> Principal | None:
        parsed = parse_token(token)
        if parsed is None:
            if self._jwt is not None and looks_like_jwt(token):
                return await self._jwt.verify(token)
            return None
        now = time.monotonic()
        cached = self._cache.get(token)
        if cached is not None and now - cached[0] < self._ttl_s:
            return cached[1]
        key_id, secret = parsed
        record = await self._keys.find(key_id)
        principal = None
        if record is not None and record.revoked_at is None and secret_matches(secret, record.secret_sha256):
            principal = record.to_principal()
        if len(self._cache) >= self._max:
            self._cache.clear()
        self._cache[token] = (now, principal)
        return principal


class ManageKeys:
    """``hindsight token create|list|revoke``."""

    def __init__(self, keys: ApiKeyStore, clock: Clock) -> None:
        self._keys = keys
        self._clock = clock

    async def create(
        self,
        tenant_id: str,
        name: str,
        agent_ids: Sequence[str] | None = None,
        read_only: bool = False,
        trusted: bool = False,
    ) -> tuple[MintedKey, ApiKeyRecord]:
        """Mint a key; the returned token is the only copy of the secret. ``trusted``: its writes may set
        any importance on inferences (``domain.trust``). Raises InvalidInput (also for a read-only
        trusted key, which would mean nothing; for a tenant or agent no call could use:
        ``domain.auth.check_key_scope``)."""
        check_key_scope(tenant_id, agent_ids)
        if trusted and read_only:
            raise InvalidInput("trusted", "a read-only key writes nothing to trust")
        minted = mint_key()
        record = ApiKeyRecord(
            key_id=minted.key_id,
            tenant_id=tenant_id,
            name=name or "unnamed",
            secret_sha256=minted.secret_sha256,
            agent_ids=list(agent_ids) if agent_ids else None,
            read_only=read_only,
            trusted=trusted,
            created_at=self._clock.now(),
            revoked_at=None,
        )
        await self._keys.create(record)
        return minted, record

    async def revoke(self, key_id: str) -> bool:
        return await self._keys.revoke(key_id, self._clock.now())

    async def list(self, tenant_id: str | None = None) -> list[ApiKeyRecord]:
        return await self._keys.list(tenant_id)
