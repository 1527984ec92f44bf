"""API keys and principals.

A key is ``hsk_<key_id>.<secret>``. Only SHA-256 of the secret is stored (the secret carries 256 bits
of entropy, so a slow password hash adds nothing); verification compares digests in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from hindsight.domain.errors import Forbidden, InvalidInput
from hindsight.domain.limits import AGENT_ID_PATTERN, DEFAULT_AGENT_ID, MAX_AGENT_ID_CHARS, PATTERN_FORMATS
from hindsight.domain.memory import Scope

TOKEN_PREFIX = "hsk_"  # noqa: S105 - a public prefix, not a secret
_TOKEN = re.compile(r"^hsk_(?P<key_id>[0-9a-f]{16})\.(?P<secret>[A-Za-z0-9_-]{43})$")
_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$")
MAX_JWT_CHARS = 16_384
MAX_TENANT_ID_CHARS = 128
"""A tenant id's bound; its only other rule is not to be blank, as for a JWT's tenant claim
(``adapters.jwt_verifier``): the service has no character rule for tenants."""
_KEY_AGENT_ID = re.compile(AGENT_ID_PATTERN)


class Principal(BaseModel):
    """Who is calling: a tenant, the key used and what that key may do."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    key_id: str
    agent_ids: frozenset[str] | None = None
    """Agents this key may act for; None means every agent of the tenant."""
    read_only: bool = False
    trusted: bool = False
    """A trusted key (an operator's pipeline) may set any importance on inferences; others are capped
    (``domain.trust``)."""

    def scope(self, agent_id: str | None) -> Scope:
        """The scope for ``agent_id`` (default agent when None).

        Raises:
            Forbidden: the key is limited to other agents.
        """
        agent = agent_id or (
            next(iter(self.agent_ids)) if self.agent_ids and len(self.agent_ids) == 1 else DEFAULT_AGENT_ID
        )
        if self.agent_ids is not None and agent not in self.agent_ids:
            implied = "" if agent_id else " (the agent used when agent_id is omitted)"
            allowed = ", ".join(f"'{a}'" for a in sorted(self.agent_ids)) or "no agent"
            raise Forbidden(
                f"this key may not act for agent '{agent}'{implied}; it may act for {allowed}", "agent_id"
            )
        return Scope(tenant_id=self.tenant_id, agent_id=agent)

    def require_write(self, tool: str) -> None:
        """Raises Forbidden for read-only keys, naming ``tool`` (the MCP tool refused) and the next step:
        a key that may write (trial24: "this key is read-only" told neither)."""
        if self.read_only:
            raise Forbidden(
                f"this key is read-only, so {tool} was refused; call it with a key that may write: an API "
                "key minted without --read-only (see `hindsight token create --help`) or a JWT with the "
                "write scope"
            )


def tenant_id_problem(tenant_id: str) -> str | None:
    """Why ``tenant_id`` cannot be a key's tenant (blank, or over ``MAX_TENANT_ID_CHARS``), else None."""
    if not tenant_id.strip() or len(tenant_id) > MAX_TENANT_ID_CHARS:
        return f"must be 1–{MAX_TENANT_ID_CHARS} characters, not blank"
    return None


def agent_id_problem(agent_id: str) -> str | None:
    """Why ``agent_id`` cannot be one of a key's agents, else None. The rule is the tools' own agent_id
    rule (``limits.AgentId``): a key limited to an agent no tool accepts could never be used when a call
    omits agent_id (trial24: "bad agent!" was minted, then every write was refused with an error the model
    cannot fix). '*' is no agent: a key for every agent names none."""
    if agent_id == "*":
        return "'*' is not an agent id; a key that may act for every agent of its tenant names no agent"
    if not 0 < len(agent_id) <= MAX_AGENT_ID_CHARS or not _KEY_AGENT_ID.match(agent_id):
        return (
            f"{agent_id!r} is not an agent id: 1–{MAX_AGENT_ID_CHARS} characters, "
            f"{PATTERN_FORMATS[AGENT_ID_PATTERN]}"
        )
    return None


def check_key_scope(tenant_id: str, agent_ids: Sequence[str] | None) -> None:
    """Refuse a key's tenant or agents that no call could use (``tenant_id_problem``,
    ``agent_id_problem``). Raises InvalidInput naming ``tenant_id`` or ``agent_ids``. Only new keys are
    checked: a stored key stays valid as it is."""
    problem = tenant_id_problem(tenant_id)
    if problem is not None:
        raise InvalidInput("tenant_id", problem, MAX_TENANT_ID_CHARS)
    for agent_id in agent_ids or ():
        problem = agent_id_problem(agent_id)
        if problem is not None:
            raise InvalidInput("agent_ids", problem, {"format": PATTERN_FORMATS[AGENT_ID_PATTERN]})


class ApiKeyRecord(BaseModel):
    """A stored API key (never the secret itself)."""

    model_config = ConfigDict(frozen=True)

    key_id: str
    tenant_id: str
    name: str
    secret_sha256: str
    agent_ids: list[str] | None
    read_only: bool
    created_at: datetime
    revoked_at: datetime | None
    trusted: bool = False

    def to_principal(self) -> Principal:
        return Principal(
            tenant_id=self.tenant_id,
            key_id=self.key_id,
            agent_ids=frozenset(self.agent_ids) if self.agent_ids is not None else None,
            read_only=self.read_only,
            trusted=self.trusted,
        )


class MintedKey(BaseModel):
    """A freshly minted key: ``token`` is shown once and never stored."""

    model_config = ConfigDict(frozen=True)

    key_id: str
    token: str
    secret_sha256: str


def hash_secret(secret: str) -> str:
    """Hex SHA-256 of a key secret."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def mint_key() -> MintedKey:
    """A new random key id and secret (``secrets`` CSPRNG)."""
    key_id = secrets.token_hex(8)
    secret = secrets.token_urlsafe(32)
    return MintedKey(
        key_id=key_id, token=f"{TOKEN_PREFIX}{key_id}.{secret}", secret_sha256=hash_secret(secret)
    )


def parse_token(token: str) -> tuple[str, str] | None:
    """(key_id, secret) of a well-formed token, else None."""
    match = _TOKEN.match(token.strip())
    if match is None:
        return None
    return match.group("key_id"), match.group("secret")


def looks_like_jwt(token: str) -> bool:
    """Whether a bearer token has a JWT's shape (three base64url parts); says nothing of its validity."""
    return len(token) <= MAX_JWT_CHARS and _JWT.match(token) is not None


def secret_matches(secret: str, stored_sha256: str) -> bool:
    """Constant-time comparison of a presented secret with the stored digest."""
    return hmac.compare_digest(hash_secret(secret), stored_sha256)
