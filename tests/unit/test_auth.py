"""API key format, hashing and principal scoping."""

from __future__ import annotations

import pytest

from hindsight.domain.auth import Principal, mint_key, parse_token, secret_matches
from hindsight.domain.errors import Forbidden


def test_minted_token_parses_and_matches_only_its_digest() -> None:
    minted = mint_key()
    parsed = parse_token(minted.token)
    assert parsed is not None
    key_id, secret = parsed
    assert key_id == minted.key_id
    assert secret not in minted.secret_sha256
    assert secret_matches(secret, minted.secret_sha256)
    assert not secret_matches(secret + "x", minted.secret_sha256)
    assert mint_key().token != minted.token


@pytest.mark.parametrize(
    "token",
    [
        "",
        "hsk_",
        "Bearer x",
        "hsk_zzzzzzzzzzzzzzzz." + "a" * 43,
        "hsk_0123456789abcdef." + "a" * 42,
        "hsk_0123456789abcdef" + "a" * 44,
    ],
)
def test_malformed_tokens_do_not_parse(token: str) -> None:
    assert parse_token(token) is None


def test_principal_scope_respects_agent_limits() -> None:
    anyone = Principal(tenant_id="t", key_id="k")
    assert anyone.scope(None).agent_id == "default"
    assert anyone.scope("planner").agent_id == "planner"
    limited = Principal(tenant_id="t", key_id="k", agent_ids=frozenset({"planner"}))
    assert limited.scope(None).agent_id == "planner"
    with pytest.raises(Forbidden):
        limited.scope("coder")
    with pytest.raises(Forbidden):
        Principal(tenant_id="t", key_id="k", read_only=True).require_write("memory_write")
