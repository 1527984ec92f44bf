"""MCP over HTTP (Lambda Function URL / API Gateway HTTP API v2 events)."""

from __future__ import annotations

from typing import Any

_handler: Any = None


def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Build the app on the first (cold) invocation, then serve every event through it."""
    global _handler
    if _handler is not None:
        result: dict[str, Any] = _handler(event, context)
        return result
    from hindsight.api.runtime import cold_start_without_gc

    with cold_start_without_gc():  # the first invocation: imports, build, first event
        from hindsight.api.entrypoints import mcp_http_handler

        _handler = mcp_http_handler()
        first: dict[str, Any] = _handler(event, context)
    return first
