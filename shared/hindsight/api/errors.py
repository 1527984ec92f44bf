"""Domain and validation errors → JSON-RPC errors that name the field and the limit.

Codes: -32602 invalid params (JSON-RPC 2.0); server-defined codes in the -32000…-32099 range for the
rest. Messages never echo the rejected value: it is the caller's data and may be large or sensitive.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from pydantic import ValidationError

from hindsight.domain.errors import (
    Forbidden,
    InvalidInput,
    NotFound,
    RateLimited,
    Unauthorized,
    Unavailable,
)

UNAVAILABLE = -32001  # a dependency is down; retry later (data.retryable = true)
NOT_FOUND = -32002  # the same code MCP uses for an unknown resource
FORBIDDEN = -32003
UNAUTHORIZED = -32004
RATE_LIMITED = -32029  # the JSON-RPC twin of HTTP 429; data: retry_after_s, limit, window_s, budget

_LIMIT_KEYS = (
    "max_length",
    "min_length",
    "ge",
    "gt",
    "le",
    "lt",
    "pattern",
    "max_items",
    "min_items",
    "max_bytes",
    "max_depth",
)


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(p) for p in loc) or "arguments"


def validation_error(exc: ValidationError, prefix: str = "") -> MCPError:
    """One INVALID_PARAMS error listing every bad field with its limit."""
    details: list[dict[str, Any]] = []
    parts: list[str] = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = tuple(p for p in err["loc"] if p not in ("draft",))
        field = (prefix + "." if prefix else "") + _field(loc)
        ctx = err.get("ctx") or {}
        limit = {k: ctx[k] for k in _LIMIT_KEYS if k in ctx}
        message = err["msg"]
        detail: dict[str, Any] = {"field": field, "message": message, "type": err["type"]}
        if limit:
            detail["limit"] = {
                k: (v if isinstance(v, int | float | str) else str(v)) for k, v in limit.items()
            }
        details.append(detail)
        parts.append(f"{field}: {message}")
    return MCPError(INVALID_PARAMS, "Invalid arguments: " + "; ".join(parts), {"errors": details})


def to_mcp_error(exc: Exception) -> MCPError | None:
    """The JSON-RPC error for a domain error, or None for anything unexpected."""
    if isinstance(exc, InvalidInput):
        detail: dict[str, Any] = {"field": exc.field, "message": str(exc)}
        if exc.limit is not None:
            detail["limit"] = exc.limit
        return MCPError(INVALID_PARAMS, f"Invalid arguments: {exc}", {"errors": [detail]})
    if isinstance(exc, ValidationError):
        return validation_error(exc)
    if isinstance(exc, NotFound):
        return MCPError(NOT_FOUND, str(exc) or "not found")
    if isinstance(exc, Forbidden):
        return MCPError(FORBIDDEN, str(exc))
    if isinstance(exc, Unauthorized):
        return MCPError(UNAUTHORIZED, str(exc))
    if isinstance(exc, RateLimited):
        return MCPError(
            RATE_LIMITED,
            str(exc),
            {
                "retry_after_s": exc.retry_after_s,
                "limit": exc.limit,
                "window_s": exc.window_s,
                "budget": exc.budget,
                "retryable": True,
            },
        )
    if isinstance(exc, Unavailable):
        return MCPError(UNAVAILABLE, f"{exc}; retry later", {"retryable": True})
    return None


@contextmanager
def domain_errors() -> Iterator[None]:
    """Run a tool body, re-raising domain errors as JSON-RPC errors."""
    try:
        yield
    except MCPError:
        raise
    except Exception as exc:
        mapped = to_mcp_error(exc)
        if mapped is None:
            raise
        raise mapped from exc
