"""The migration function: apply pending SQL migrations on every deploy (CloudFormation custom resource)
or on demand (plain invoke).

Two event shapes are accepted:

* a CloudFormation custom-resource request — a dict with ``RequestType`` (``Create`` / ``Update`` /
  ``Delete``), ``ResponseURL``, ``StackId``, ``RequestId``, ``LogicalResourceId`` and, for Update and
  Delete, ``PhysicalResourceId``. The answer goes to CloudFormation by HTTP PUT to ``ResponseURL``
  (a pre-signed S3 URL), never as the return value. CloudFormation is *always* answered — SUCCESS, or
  FAILED with a ``Reason`` — even when the settings are invalid, the database is unreachable or the
  migration runs out of time, so a stack never hangs waiting for this resource. ``Delete`` is a no-op
  SUCCESS: removing the stack never drops the schema or the memories in it.
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
from typing import Any

from hindsight.bootstrap import run_migrations
from hindsight.config import Settings

log = logging.getLogger(__name__)

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
        ``Reason``, ``PhysicalResourceId``, ``Data``…). For a plain invoke, ``{"applied": [int, …]}``.

    Raises:
        ConfigurationError, Unavailable, MigrationTimeout: plain invoke only (invalid settings,
            unreachable database, an applied migration edited afterwards, out of time). A
            custom-resource event never raises: the error becomes a FAILED answer.
    """
    if is_custom_resource_event(event):
        return handle_custom_resource(event, context)
    applied = apply_migrations(Settings.load(), timeout_s=_time_budget_s(context))
    return {"applied": applied}


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
