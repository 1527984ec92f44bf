"""JWT bearer tokens (OAuth access tokens of hosted agents, e.g. from Amazon Cognito) → Principal.

PyJWT does the cryptography and the registered-claim checks (signature, ``exp``, ``nbf``, ``iat``,
``iss``, ``aud``, with a leeway for clock skew); ``PyJWKClient`` fetches the issuer's JWKS over HTTPS
and caches it (the whole set for ``cache_s``; an unknown ``kid`` forces at most one refetch per
cooldown, so a key rotation is picked up and random ``kid``s cannot hammer the issuer).

Claims → Principal: ``tenant_claim`` names the tenant (required: a token without it is refused, never
mapped to a default tenant); ``agent_ids_claim``, when configured and present, limits the agents
(a list, or one string separated by spaces or commas); the ``scope`` claim (a space-separated string,
or ``scp`` as a list) must grant ``read_scope`` or ``write_scope``: only read → a read-only principal;
``trusted_scope`` with write → a trusted principal (``domain.trust``: may set any importance).
Scopes match exactly or as the last path segment (Cognito's ``<resource-server>/memory:write``).

A refused token is None (the SDK answers HTTP 401); the reason is logged at INFO without the token.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Sequence
from typing import Any

import jwt
from jwt import PyJWKClient

from hindsight.domain.auth import Principal

log = logging.getLogger(__name__)
_AGENT_ID = re.compile(r"^[A-Za-z0-9_.:@-]{1,128}$")
MAX_TENANT_CHARS = 128


class JwksTokenVerifier:
    """The BearerTokenVerifier port for JWTs signed with a key from a JWKS URL."""

    def __init__(
        self,
        *,
        issuer: str,
        audiences: Sequence[str],
        jwks_url: str,
        algorithms: Sequence[str] = ("RS256",),
        leeway_s: float = 30.0,
        tenant_claim: str = "tenant_id",
        agent_ids_claim: str | None = None,
        audience_claim: str = "aud",
        read_scope: str = "memory:read",
        write_scope: str = "memory:write",
        trusted_scope: str = "memory:trusted",
        cache_s: float = 300.0,
        timeout_s: float = 5.0,
    ) -> None:
        self._issuer = issuer
        self._audiences = list(audiences)
        self._algorithms = list(algorithms)
        self._leeway = leeway_s
        self._tenant_claim = tenant_claim
        self._agent_ids_claim = agent_ids_claim
        self._audience_claim = audience_claim
        self._read_scope = read_scope
        self._write_scope = write_scope
        self._trusted_scope = trusted_scope
        self._jwks = PyJWKClient(jwks_url, cache_jwk_set=True, lifespan=cache_s, timeout=timeout_s)

    async def verify(self, token: str) -> Principal | None:
        """The principal of a valid token, else None (reason logged). Never raises for a bad token."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.InvalidTokenError:
            return _refuse("not a JWT")
        if header.get("alg") not in self._algorithms:
            return _refuse(f"algorithm {str(header.get('alg'))[:20]!r} not allowed")
        try:
            # PyJWKClient uses urllib (blocking) when it has to fetch: off the event loop.
            signing_key = await asyncio.to_thread(self._jwks.get_signing_key_from_jwt, token)
        except jwt.PyJWKClientConnectionError as exc:
            log.warning("JWT refused: the JWKS could not be fetched (%s)", type(exc).__name__)
            return None
        except (jwt.PyJWKClientError, jwt.InvalidTokenError):
            return _refuse("no key in the JWKS for its kid")
        check_aud = self._audience_claim == "aud"
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                signing_key.key,
                algorithms=self._algorithms,
                issuer=self._issuer,
                audience=self._audiences if check_aud else None,
                leeway=self._leeway,
                options={"require": ["exp", "iss", "sub", *(["aud"] if check_aud else [])]},
            )
        except jwt.ExpiredSignatureError:
            return _refuse("expired")
        except jwt.ImmatureSignatureError:
            return _refuse("not valid yet (nbf/iat)")
        except jwt.InvalidAudienceError:
            return _refuse("wrong audience")
        except jwt.InvalidIssuerError:
            return _refuse("wrong issuer")
        except jwt.InvalidSignatureError:
            return _refuse("bad signature")
        except jwt.MissingRequiredClaimError as exc:
            return _refuse(f"missing claim {exc.claim!r}")
        except jwt.InvalidTokenError as exc:
            return _refuse(f"invalid ({type(exc).__name__})")
        if not check_aud and not _audience_matches(claims.get(self._audience_claim), self._audiences):
            return _refuse(f"wrong audience ({self._audience_claim})")
        return self._principal(claims)

    def _principal(self, claims: dict[str, Any]) -> Principal | None:
        tenant = claims.get(self._tenant_claim)
        if not isinstance(tenant, str) or not tenant.strip() or len(tenant) > MAX_TENANT_CHARS:
            return _refuse(f"no usable tenant claim {self._tenant_claim!r}")
        agent_ids: frozenset[str] | None = None
        if self._agent_ids_claim is not None and self._agent_ids_claim in claims:
            agents = _names(claims[self._agent_ids_claim])
            if agents is None or not all(_AGENT_ID.match(a) for a in agents):
                return _refuse(f"unusable agent claim {self._agent_ids_claim!r}")
            agent_ids = frozenset(agents)
        scopes = _names(claims.get("scope", claims.get("scp"))) or []
        can_write = any(_grants(s, self._write_scope) for s in scopes)
        can_read = can_write or any(_grants(s, self._read_scope) for s in scopes)
        if not can_read:
            return _refuse(f"neither {self._read_scope!r} nor {self._write_scope!r} in its scopes")
        return Principal(
            tenant_id=tenant,
            key_id=f"jwt:{claims['sub']}"[:128],
            agent_ids=agent_ids,
            read_only=not can_write,
            trusted=can_write and any(_grants(s, self._trusted_scope) for s in scopes),
        )


def _refuse(reason: str) -> Principal | None:
    log.info("JWT refused: %s", reason)
    return None


def _names(value: object) -> list[str] | None:
    """A claim that lists names: a JSON list of strings, or one string separated by spaces/commas."""
    if isinstance(value, str):
        return [p for p in re.split(r"[\s,]+", value) if p]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _grants(scope: str, wanted: str) -> bool:
    return scope == wanted or scope.endswith("/" + wanted)


def _audience_matches(value: object, audiences: Sequence[str]) -> bool:
    values = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return any(v in audiences for v in values if isinstance(v, str))
