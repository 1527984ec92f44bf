"""JWT bearer tokens against a real JWKS served on loopback: what is accepted, what is refused and why,
how claims become a Principal, and how Authenticate tells API keys and JWTs apart."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from hindsight.adapters.jwt_verifier import JwksTokenVerifier
from hindsight.config import Settings
from hindsight.domain.auth import ApiKeyRecord, Principal, hash_secret, mint_key
from hindsight.domain.errors import ConfigurationError
from hindsight.usecases.api_keys import Authenticate
from tests.jwt_issuer import AUDIENCE, ISSUER, LoopbackIssuer

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def issuer() -> Iterator[LoopbackIssuer]:
    server = LoopbackIssuer().start()
    yield server
    server.stop()


def _verifier(issuer: LoopbackIssuer, **overrides: Any) -> JwksTokenVerifier:
    options: dict[str, Any] = {
        "issuer": ISSUER,
        "audiences": [AUDIENCE],
        "jwks_url": issuer.jwks_url,
        "leeway_s": 5,
        "agent_ids_claim": "agents",
        **overrides,
    }
    return JwksTokenVerifier(**options)


async def test_a_valid_token_becomes_a_principal_of_its_tenant(issuer: LoopbackIssuer) -> None:
    principal = await _verifier(issuer).verify(issuer.token(tenant="acme"))
    assert principal == Principal(tenant_id="acme", key_id="jwt:agent-runner-7", read_only=False)


async def test_the_read_scope_alone_makes_a_read_only_principal(issuer: LoopbackIssuer) -> None:
    principal = await _verifier(issuer).verify(issuer.token(scope="openid memory:read"))
    assert principal is not None
    assert principal.read_only


async def test_the_trusted_scope_with_write_makes_a_trusted_principal(issuer: LoopbackIssuer) -> None:
    verifier = _verifier(issuer)
    trusted = await verifier.verify(issuer.token(scope="memory:write memory:trusted"))
    assert trusted is not None
    assert trusted.trusted
    read_only = await verifier.verify(issuer.token(scope="memory:read memory:trusted"))
    assert read_only is not None
    assert read_only.read_only
    assert not read_only.trusted
    plain = await verifier.verify(issuer.token(scope="memory:write"))
    assert plain is not None
    assert not plain.trusted


async def test_the_agents_claim_limits_the_agents(issuer: LoopbackIssuer) -> None:
    principal = await _verifier(issuer).verify(issuer.token(agents=["planner", "coder"]))
    assert principal is not None
    assert principal.agent_ids == frozenset({"planner", "coder"})
    spaced = await _verifier(issuer).verify(issuer.token(agents="planner coder"))
    assert spaced is not None
    assert spaced.agent_ids == frozenset({"planner", "coder"})


def _tampered(token: str) -> str:
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["tenant_id"] = "victim"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{header}.{forged}.{signature}"


def _unsigned(issuer: LoopbackIssuer) -> str:
    return jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": 2_000_000_000, "tenant_id": "acme"},
        None,
        algorithm="none",
        headers={"kid": issuer.kid},
    )


REFUSED = {
    "expired": lambda i: i.token(lifetime_s=-60),
    "wrong audience": lambda i: i.token(aud="another-api"),
    "wrong issuer": lambda i: i.token(iss="https://evil.example"),
    "unknown kid": lambda i: i.token(kid="not-in-the-jwks"),
    "signed by another key": lambda i: i.token(
        key=rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ),
    "tampered payload": lambda i: _tampered(i.token()),
    "missing tenant claim": lambda i: i.token(tenant=None),
    "empty tenant claim": lambda i: i.token(tenant=""),
    "no memory scope": lambda i: i.token(scope="openid profile"),
    "no scope at all": lambda i: i.token(scope=None),
    "not valid yet": lambda i: i.token(nbf=int(datetime.now(UTC).timestamp()) + 3600),
    "missing exp": lambda i: i.token(exp=None),
    "missing sub": lambda i: i.token(sub=None),
    "alg none": _unsigned,
    "bad agent id in claim": lambda i: i.token(agents=["has space"]),
    "not a JWT": lambda i: "a.b.c",
}


REASONS = {
    "expired": "expired",
    "wrong audience": "wrong audience",
    "wrong issuer": "wrong issuer",
    "unknown kid": "no key in the JWKS",
    "signed by another key": "bad signature",
    "tampered payload": "bad signature",
    "missing tenant claim": "tenant claim",
    "empty tenant claim": "tenant claim",
    "no memory scope": "scopes",
    "no scope at all": "scopes",
    "not valid yet": "not valid yet",
    "missing exp": "missing claim 'exp'",
    "missing sub": "missing claim 'sub'",
    "alg none": "algorithm 'none' not allowed",
    "bad agent id in claim": "agent claim",
    "not a JWT": "not a JWT",
}


@pytest.mark.parametrize("case", sorted(REFUSED))
async def test_bad_tokens_are_refused(issuer: LoopbackIssuer, case: str, caplog: Any) -> None:
    token = REFUSED[case](issuer)
    with caplog.at_level("INFO", logger="hindsight.adapters.jwt_verifier"):
        assert await _verifier(issuer).verify(token) is None
    assert REASONS[case] in caplog.text
    assert token not in caplog.text  # reasons are logged, tokens never


async def test_a_shared_secret_hs256_token_is_refused(issuer: LoopbackIssuer) -> None:
    """Algorithm confusion: only the configured asymmetric algorithms are accepted, never HS*."""
    forged = jwt.encode(
        {"iss": ISSUER, "aud": AUDIENCE, "sub": "x", "exp": 2_000_000_000, "tenant_id": "acme",
         "scope": "memory:write"},
        "a-guessed-secret-of-at-least-32-bytes!!",
        algorithm="HS256",
        headers={"kid": issuer.kid},
    )  # fmt: skip
    assert await _verifier(issuer).verify(forged) is None


async def test_cognito_access_tokens_use_client_id_and_prefixed_scopes(issuer: LoopbackIssuer) -> None:
    verifier = _verifier(issuer, audience_claim="client_id", tenant_claim="custom:tenant")
    token = issuer.token(
        aud=None, client_id=AUDIENCE, tenant=None, scope="https://memory.example/memory:write",
        **{"custom:tenant": "acme", "token_use": "access"},
    )  # fmt: skip
    principal = await verifier.verify(token)
    assert principal is not None
    assert principal.tenant_id == "acme"
    assert not principal.read_only
    wrong_client = issuer.token(aud=None, client_id="other", **{"custom:tenant": "acme"})
    assert await verifier.verify(wrong_client) is None


async def test_the_jwks_is_cached(issuer: LoopbackIssuer) -> None:
    verifier = _verifier(issuer)
    before = issuer.fetches
    for _ in range(5):
        assert await verifier.verify(issuer.token()) is not None
    assert issuer.fetches - before == 1


async def test_an_unreachable_jwks_refuses_without_raising() -> None:
    verifier = JwksTokenVerifier(
        issuer=ISSUER, audiences=[AUDIENCE], jwks_url="http://127.0.0.1:9/jwks.json", timeout_s=1
    )
    token = LoopbackIssuer().token()
    assert await verifier.verify(token) is None


class _Keys:
    def __init__(self, record: ApiKeyRecord) -> None:
        self.record = record
        self.finds = 0

    async def find(self, key_id: str) -> ApiKeyRecord | None:
        self.finds += 1
        return self.record if key_id == self.record.key_id else None


class _Jwt:
    def __init__(self) -> None:
        self.seen: list[str] = []

    async def verify(self, token: str) -> Principal | None:
        self.seen.append(token)
        return Principal(tenant_id="from-jwt", key_id="jwt:x")


async def test_the_token_shape_decides_between_api_key_and_jwt(issuer: LoopbackIssuer) -> None:
    minted = mint_key()
    record = ApiKeyRecord(
        key_id=minted.key_id,
        tenant_id="from-key",
        name="k",
        secret_sha256=hash_secret(minted.token.split(".", 1)[1]),
        agent_ids=None,
        read_only=False,
        created_at=datetime.now(UTC),
        revoked_at=None,
    )
    keys, verifier = _Keys(record), _Jwt()
    authenticate = Authenticate(keys, jwt=verifier)  # type: ignore[arg-type]
    by_key = await authenticate(minted.token)
    assert by_key is not None
    assert by_key.tenant_id == "from-key"
    by_jwt = await authenticate(issuer.token())
    assert by_jwt is not None
    assert by_jwt.tenant_id == "from-jwt"
    assert await authenticate("neither-a-key-nor-a-jwt") is None
    assert len(verifier.seen) == 1
    assert keys.finds == 1
    assert await Authenticate(keys)(issuer.token()) is None  # no issuer configured: JWTs are refused


def test_jwt_settings_are_validated() -> None:
    with pytest.raises(ConfigurationError, match="HINDSIGHT_JWT_AUDIENCE"):
        Settings.load(jwt_issuer=ISSUER)
    with pytest.raises(ConfigurationError, match="HS256"):
        Settings.load(jwt_issuer=ISSUER, jwt_audience="a", jwt_algorithms="RS256,HS256")
    settings = Settings.load(jwt_issuer=ISSUER, jwt_audience="a, b", jwt_algorithms='["RS256","ES256"]')
    assert settings.jwt_audience == ["a", "b"]
    assert settings.jwt_algorithms == ["RS256", "ES256"]
