"""Request and invocation observability: correlation ids, one log line per MCP request, metrics flushed
per request or invocation, the Powertools Logger and Tracer in Lambda (built lazily, once per instance).

- ``RequestContext`` (ASGI middleware on the MCP app, locally and in Lambda): binds ``correlation_id``
  (the caller's ``X-Correlation-Id`` / ``X-Request-Id`` when it is a plausible id, else the Lambda
  request id, else a fresh one), and the JSON-RPC ``rpc_id``, ``rpc_method`` and ``tool`` of the
  message, for every log line written while the request runs — including the retrieval trace of a
  ``memory_search``. Answers with ``X-Correlation-Id``. Logs ``mcp request`` (status, latency; never
  arguments) and flushes the container's metrics.
- ``ObservedHandler`` wraps a Lambda handler: the Powertools Logger (JSON, with the function's context
  keys), the invocation's request id as correlation id, the Tracer's handler segment (off outside Lambda
  or with ``POWERTOOLS_TRACE_DISABLED``), and a metrics flush after every invocation.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hindsight.api.body_ahead import read_ahead
from hindsight.correlation import bound, new_correlation_id

log = logging.getLogger("hindsight.requests")
PEEK_BYTES = 64 * 1024
"""Bodies up to this size (and one whose last message takes it past: ``body_ahead.read_ahead``) are read
for the JSON-RPC id and method; larger ones stream on untouched."""


def _lambda_request_id(scope: Scope) -> str | None:
    event = scope.get("aws.event")
    if isinstance(event, dict):
        context = event.get("requestContext")
        if isinstance(context, dict) and isinstance(context.get("requestId"), str):
            return str(context["requestId"])
    return None


def rpc_fields(body: bytes) -> dict[str, str | None]:
    """``rpc_id``, ``rpc_method`` and ``tool`` of a JSON-RPC message (None where absent or unreadable)."""
    try:
        message = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):  # deep nesting is the SDK's parse error
        return {}
    if not isinstance(message, dict):
        return {}
    params = message.get("params")
    tool = params.get("name") if isinstance(params, dict) and message.get("method") == "tools/call" else None
    rpc_id = message.get("id")
    return {
        "rpc_id": str(rpc_id) if isinstance(rpc_id, str | int) else None,
        "rpc_method": str(message["method"])[:64] if isinstance(message.get("method"), str) else None,
        "tool": str(tool)[:64] if isinstance(tool, str) else None,
    }


class RequestContext:
    """ASGI middleware; ``metrics()`` gives the Metrics to flush after each request (None: nothing)."""

    def __init__(self, app: ASGIApp, metrics: Callable[[], Any] = lambda: None, path: str = "/mcp") -> None:
        self.app = app
        self._metrics = metrics
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        correlation = new_correlation_id(
            headers.get("x-correlation-id") or headers.get("x-request-id") or _lambda_request_id(scope)
        )
        fields: dict[str, str | None] = {}
        is_rpc = scope.get("method") == "POST" and scope.get("path", "").rstrip("/") == self._path
        if is_rpc:
            receive, body = await read_ahead(receive, PEEK_BYTES)
            if body is not None:
                fields = rpc_fields(body)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"x-correlation-id", correlation.encode())],
                }
            await send(message)

        with bound(correlation_id=correlation, **fields):
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                if is_rpc:
                    log.info(
                        "mcp request",
                        extra={
                            "status": status,
                            "latency_ms": round((time.perf_counter() - started) * 1000, 2),
                        },
                    )
                metrics = self._metrics()
                if metrics is not None and hasattr(metrics, "flush"):
                    metrics.flush()


class ObservedHandler:
    """A Lambda handler with the Powertools Logger, Tracer and a metrics flush per invocation.

    ``metrics()`` gives the Metrics to flush (None before the first container exists). ``close()`` is
    passed on to the wrapped handler (tests)."""

    def __init__(
        self,
        inner: Callable[[dict[str, Any], Any], Any],
        *,
        name: str,
        level: str = "INFO",
        metrics: Callable[[], Any] = lambda: None,
    ) -> None:
        self._inner = inner
        self._name = name
        self._level = level
        self._metrics = metrics
        self._logger: Any = None
        self._traced: Callable[[dict[str, Any], Any], Any] | None = None
        self._cold = True

    def _setup(self) -> Callable[[dict[str, Any], Any], Any]:
        from hindsight.adapters.observability import lambda_logger, lambda_tracer

        self._logger = lambda_logger(self._level)
        tracer = lambda_tracer()
        traced: Callable[[dict[str, Any], Any], Any] = tracer.capture_lambda_handler(self._invoke)
        return traced

    def _invoke(self, event: dict[str, Any], context: Any) -> Any:
        return self._inner(event, context)

    def __call__(self, event: dict[str, Any], context: Any) -> Any:
        if self._traced is None:
            self._traced = self._setup()
        request_id = getattr(context, "aws_request_id", None)
        self._logger.append_keys(
            function_name=getattr(context, "function_name", self._name),
            function_request_id=request_id,
            cold_start=self._cold,
        )
        self._cold = False
        try:
            with bound(correlation_id=new_correlation_id(request_id)):
                return self._traced(event, context)
        finally:
            metrics = self._metrics()
            if metrics is not None and hasattr(metrics, "flush"):
                metrics.flush()

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()
