"""The migration function: apply pending SQL migrations on every deploy (CloudFormation custom resource)
or on demand (plain invoke), and mint API keys inside the VPC (the first token of a new deployment).

Three event shapes are accepted:

* a CloudFormation custom-resource request — a dict with ``RequestType`` (``Create`` / ``Update`` /
  ``Delete``), ``ResponseURL``, ``StackId``, ``RequestId``, ``LogicalResourceId`` and, for Update and
  Delete, ``PhysicalResourceId``. The answer goes to CloudFormation by HTTP PUT to ``ResponseURL``
  (a pre-signed S3 URL), never as the return value. CloudFormation is *always* answered — SUCCESS, or
  FAILED with a ``Reason`` — even when the settings are invalid, the database is unreachable or the
  migration runs out of time, so a stack never hangs waiting for this resource. ``Delete`` is a no-op
  SUCCESS: removing the stack never drops the schema or the memories in it.
* ``{"mint_token": {"tenant": "acme", "name": "…", "agent_ids": ["…"], "read_only": false}}`` (only
  ``tenant`` is required): mints an API key exactly as ``hindsight token create`` does and returns
  ``{"key_id", "token", "tenant_id", "name", "agent_ids", "read_only"}``. The token is in the answer
  only — never logged; whoever may invoke this function may mint keys, so keep ``lambda:InvokeFunction``
  on it for operators. ``{"list_tokens": {"tenant": "acme"}}`` (tenant optional) and
  ``{"revoke_token": {"key_id": "…"}}`` do what ``hindsight token list`` / ``revoke`` do. Invalid
  requests raise ``ValueError`` naming the fields.
* anything else (``{}`` from ``aws lambda invoke`` or ``sam local invoke``): the migrations run and the
  function returns ``{"applied": [<versions applied now>]}`` (``[]`` when the schema is up to date);
  errors propagate, so the invoke reports them.

Migrations run exactly as ``hindsight migrate`` runs them (idempotent, one advisory lock, safe to run
concurrently). Nothing happens at import time: no environment reads, no clients.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight.bootstrap import build_container, run_migrations
from hindsight.config import Settings
from hindsight.domain.auth import ApiKeyRecord
from hindsight.usecases.api_keys import ManageKeys

log = logging.getLogger(__name__)
T = TypeVar("T")

SUCCESS = "SUCCESS"
FAILED = "FAILED"
# CloudFormation rejects response bodies over 4096 bytes; the Reason is cut well below that.
_MAX_REASON_CHARS = 1500
# Seconds kept back from the Lambda deadline to send FAILED when the migration is still running.
_DEADLINE_MARGIN_S = 15.0
# Pauses between attempts to deliver the answer (the pre-signed S3 URL can fail transiently).
_RESPONSE_RETRY_DELAYS_S: tuple[float, ...] = (1.0, 2.0, 4.0)
_RESPONSE_TIMEOUT_S = 15.0


class MigrationTimeout(TimeoutError):
    """The migrations ran out of the time budget derived from the Lambda deadline."""


def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Entry point for ``functions/migrate/app.py``.

    Returns:
        For a custom-resource event, the response body that was sent to CloudFormation (``Status``,
        ``Reason``, ``PhysicalResourceId``, ``Data``…). For ``mint_token``, the new key with its token;
        for ``list_tokens`` the keys (never a secret); for ``revoke_token`` whether one was revoked.
        For a plain invoke, ``{"applied": [int, …]}``.

    Raises:
        ConfigurationError, Unavailable, MigrationTimeout: plain invoke and key commands (invalid
            settings, unreachable database, an applied migration edited afterwards, out of time).
            ValueError: an invalid key command. A custom-resource event never raises: the error
            becomes a FAILED answer.
    """
    if is_custom_resource_event(event):
        return handle_custom_resource(event, context)
    if is_mint_token_event(event):
        return mint_token(Settings.load(), parse_mint_token(event[MINT_TOKEN]))
    if isinstance(event, dict) and LIST_TOKENS in event:
        return list_tokens(Settings.load(), _parse(ListTokensRequest, LIST_TOKENS, event[LIST_TOKENS]))
    if isinstance(event, dict) and REVOKE_TOKEN in event:
        return revoke_token(Settings.load(), _parse(RevokeTokenRequest, REVOKE_TOKEN, event[REVOKE_TOKEN]))
    applied = apply_migrations(Settings.load(), timeout_s=_time_budget_s(context))
    return {"applied": applied}


# ---- API keys, minted and managed inside the VPC (the database is not reachable from outside) ------

MINT_TOKEN = "mint_token"  # noqa: S105 - event keys, not secrets
LIST_TOKENS = "list_tokens"
REVOKE_TOKEN = "revoke_token"  # noqa: S105
M = TypeVar("M", bound=BaseModel)


class MintTokenRequest(BaseModel):
    """The ``mint_token`` event's body (the options of ``hindsight token create``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant: str = Field(min_length=1, max_length=128)
    name: str = Field(default="api key", min_length=1, max_length=200)
    agent_ids: list[str] | None = Field(default=None, min_length=1, max_length=100)
    read_only: bool = False
    trusted: bool = False


class ListTokensRequest(BaseModel):
    """``{"list_tokens": {}}`` or ``{"list_tokens": {"tenant": "acme"}}``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tenant: str | None = Field(default=None, min_length=1, max_length=128)


class RevokeTokenRequest(BaseModel):
    """``{"revoke_token": {"key_id": "…"}}`` (the ``key_id`` that mint_token and list_tokens show)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key_id: str = Field(min_length=1, max_length=64)


def is_mint_token_event(event: object) -> bool:
    """True for ``{"mint_token": {...}}``."""
    return isinstance(event, dict) and MINT_TOKEN in event


def parse_mint_token(body: object) -> MintTokenRequest:
    """Raises ValueError naming each invalid field."""
    return _parse(MintTokenRequest, MINT_TOKEN, body)


def _parse(model: type[M], command: str, body: object) -> M:
    try:
        return model.model_validate(body if body is not None else {})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or command}: {err['msg']}" for err in exc.errors()
        )
        raise ValueError(f"invalid {command} request: {problems}") from None


async def _with_keys(settings: Settings, use: Callable[[ManageKeys], Awaitable[T]]) -> T:
    container = await build_container(settings, with_queue=False)
    try:
        return await use(container.keys)
    finally:
        await container.aclose()


def mint_token(settings: Settings, request: MintTokenRequest) -> dict[str, Any]:
    """Mint an API key in the configured database; returns it with the token (shown this once)."""

    async def mint(keys: ManageKeys) -> dict[str, Any]:
        minted, record = await keys.create(
            request.tenant, request.name, request.agent_ids, request.read_only, request.trusted
        )
        log.info("minted API key %s for tenant %s", minted.key_id, record.tenant_id)
        return {"key_id": minted.key_id, "token": minted.token, **_public(record)}

    return asyncio.run(_with_keys(settings, mint))


def list_tokens(settings: Settings, request: ListTokensRequest) -> dict[str, Any]:
    """The API keys (of one tenant, or all): ids, names, scopes and dates — never a secret or digest."""

    async def listed(keys: ManageKeys) -> list[ApiKeyRecord]:
        return await keys.list(request.tenant)

    return {"keys": [_public(r) for r in asyncio.run(_with_keys(settings, listed))]}


def revoke_token(settings: Settings, request: RevokeTokenRequest) -> dict[str, Any]:
    """Revoke a key; it stops working within the token cache TTL (HINDSIGHT_TOKEN_CACHE_TTL_S)."""

    async def revoke(keys: ManageKeys) -> bool:
        return await keys.revoke(request.key_id)

    revoked = asyncio.run(_with_keys(settings, revoke))
    log.info(
        "revoke API key %s: %s", request.key_id, "revoked" if revoked else "not found or already revoked"
    )
    return {"key_id": request.key_id, "revoked": revoked}


def _public(record: ApiKeyRecord) -> dict[str, Any]:
    return record.model_dump(mode="json", exclude={"secret_sha256"})


def is_custom_resource_event(event: object) -> bool:
    """True for a CloudFormation custom-resource request (it has ``RequestType`` and ``ResponseURL``)."""
    return isinstance(event, dict) and "RequestType" in event and "ResponseURL" in event


def handle_custom_resource(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Run (or, for Delete, skip) the migrations and answer CloudFormation; never raises."""
    request_type = str(event.get("RequestType"))
    status, reason, data = SUCCESS, "", {}
    try:
        if request_type == "Delete":
            reason = "nothing to do: deleting the stack keeps the schema and its data"
        elif request_type in ("Create", "Update"):
            settings = Settings.load()
            applied = apply_migrations(settings, timeout_s=_time_budget_s(context))
            data = {"Applied": ",".join(str(v) for v in applied)}
            reason = f"applied migrations {applied}" if applied else "schema up to date"
        else:
            status, reason = FAILED, f"unknown RequestType {request_type!r}"
    except Exception as exc:  # every failure must reach CloudFormation, or the stack waits for it
        log.exception("migration failed")
        status, reason = FAILED, f"{type(exc).__name__}: {exc}"
    log_stream = getattr(context, "log_stream_name", None)
    if status == FAILED and log_stream:
        reason = f"{reason} (log stream {log_stream})"
    body = {
        "Status": status,
        "Reason": reason[:_MAX_REASON_CHARS],
        "PhysicalResourceId": event.get("PhysicalResourceId")
        or f"hindsight-migrations-{event.get('LogicalResourceId', 'schema')}",
        "StackId": event.get("StackId", ""),
        "RequestId": event.get("RequestId", ""),
        "LogicalResourceId": event.get("LogicalResourceId", ""),
        "NoEcho": False,
        "Data": data,
    }
    send_response(str(event.get("ResponseURL", "")), body)
    return body


def apply_migrations(settings: Settings, *, timeout_s: float | None = None) -> list[int]:
    """Apply pending migrations; returns the versions applied now.

    Raises:
        MigrationTimeout: not finished within ``timeout_s`` (the transaction in flight is rolled back;
            the migrations that finished stay applied, and the next run continues from there).
        ConfigurationError: no database configured, migrations missing or edited after they ran.
        Unavailable: the database did not answer.
    """

    async def bounded() -> list[int]:
        try:
            async with asyncio.timeout(timeout_s) as deadline:
                return await run_migrations(settings)
        except TimeoutError:
            if deadline.expired():
                raise MigrationTimeout(
                    f"migrations did not finish within {timeout_s:.0f}s (the function's time left minus "
                    f"{_DEADLINE_MARGIN_S:.0f}s); raise the MigrateFunction Timeout and deploy again"
                ) from None
            raise

    return asyncio.run(bounded())


def send_response(url: str, body: dict[str, Any]) -> bool:
    """PUT ``body`` as JSON to the pre-signed ``url``; retries transient failures.

    ``Content-Type`` is sent empty: the URL is signed without one, and urllib would otherwise add
    ``application/x-www-form-urlencoded``. Returns False (after logging) when every attempt failed; the
    URL itself is never logged (it carries a signature).
    """
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in ("https", "http"):
        log.error("cannot answer CloudFormation: ResponseURL scheme %r is not http(s)", scheme)
        return False
    payload = json.dumps(body).encode("utf-8")
    attempts = len(_RESPONSE_RETRY_DELAYS_S) + 1
    for attempt in range(1, attempts + 1):
        request = urllib.request.Request(  # noqa: S310 - scheme checked above
            url,
            data=payload,
            method="PUT",
            headers={"Content-Type": "", "Content-Length": str(len(payload))},
        )
        try:
            with urllib.request.urlopen(request, timeout=_RESPONSE_TIMEOUT_S) as response:  # noqa: S310
                log.info("answered CloudFormation %s (HTTP %s)", body.get("Status"), response.status)
                return True
        except (urllib.error.URLError, OSError) as exc:
            log.warning("answering CloudFormation failed (attempt %d/%d): %s", attempt, attempts, exc)
            if attempt < attempts:
                time.sleep(_RESPONSE_RETRY_DELAYS_S[attempt - 1])
    log.error("could not answer CloudFormation; the stack waits until the custom resource times out")
    return False


def _time_budget_s(context: Any) -> float | None:
    """Seconds the migration may take: the Lambda time left minus a margin to send the answer."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return None
    return max(1.0, float(remaining()) / 1000.0 - _DEADLINE_MARGIN_S)
