"""HTTP-level guard in front of the MCP endpoint: requests the SDK would answer unclearly, or not at all,
get a JSON-RPC error body and a 4xx (or 503) status.

On the MCP path only (``/healthz`` and the OAuth metadata routes pass untouched):

===========================================  ======  =======  ==============================================
request                                      status  code     why
===========================================  ======  =======  ==============================================
POST whose Content-Type is not JSON          415     -32600   the transport carries JSON-RPC as JSON
POST with Content-Length over the limit      413     -32600   ``data.limit.max_bytes`` names the limit (4 MiB)
POST whose body is a JSON array (a batch)    400     -32600   streamable HTTP carries one message per POST;
                                                              the SDK would answer with pydantic's union noise
GET                                          405     -32600   stateless: there is no server-to-client stream,
                                                              and the SDK would hold the connection open
a dependency down (``Unavailable`` raised    503     -32001   e.g. the token check with the database down:
below the tools, before a response)                           ``data.retryable`` and ``Retry-After``
===========================================  ======  =======  ==============================================

A body sent without Content-Length (chunked) and over the limit is still refused by the SDK's own limit
(413). Nothing here reads more of the body than its first non-blank byte; the rest streams on to the app.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hindsight.api.errors import UNAVAILABLE
from hindsight.domain.errors import Unavailable

RETRY_AFTER_S = 5
_BLANK = b" \t\r\n"


async def _error(
    send: Send,
    status: int,
    code: int,
    message: str,
    data: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> None:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


async def _peek(receive: Receive, max_bytes: int) -> tuple[Receive, bytes]:
    """The first non-blank byte of the body (b"" if none within ``max_bytes``), and a ``receive`` that
    replays what was read to find it."""
    buffered: list[Message] = []
    seen = 0
    first = b""
    while True:
        message = await receive()
        buffered.append(message)
        if message["type"] != "http.request":
            break
        body: bytes = message.get("body", b"")
        seen += len(body)
        stripped = body.lstrip(_BLANK)
        if stripped:
            first = stripped[:1]
            break
        if not message.get("more_body", False) or seen > max_bytes:
            break

    async def replay() -> Message:
        if buffered:
            return buffered.pop(0)
        return await receive()

    return replay, first


class RequestGuard:
    """ASGI middleware; see the module doc for what it refuses and how."""

    def __init__(
        self, app: ASGIApp, path: str = "/mcp", max_body_bytes: int = DEFAULT_MAX_REQUEST_BODY_SIZE
    ) -> None:
        self._app = app
        self._path = path.rstrip("/")
        self._max = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self._path:
            await self._app(scope, receive, send)
            return
        method = scope["method"]
        if method == "GET":
            await _error(
                send,
                405,
                INVALID_REQUEST,
                "GET is not supported: this server is stateless and sends no server-initiated messages; "
                "POST one JSON-RPC request",
                headers={"allow": "POST"},
            )
            return
        if method == "POST":
            refused = await self._check_post(scope, send)
            if refused:
                return
            receive, first = await _peek(receive, self._max)
            if first == b"[":
                await _error(
                    send,
                    400,
                    INVALID_REQUEST,
                    "Batch requests are not supported: send one JSON-RPC request per HTTP POST",
                )
                return
        await self._forward(scope, receive, send)

    async def _check_post(self, scope: Scope, send: Send) -> bool:
        """Answer a POST with the wrong content type or a declared size over the limit; True if answered."""
        headers = Headers(scope=scope)
        content_type = headers.get("content-type", "")
        media_type = content_type.split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            got = f"'{content_type[:80]}'" if content_type else "none"
            await _error(
                send,
                415,
                INVALID_REQUEST,
                f"Unsupported Media Type: Content-Type must be application/json (got {got})",
                {"field": "content-type", "limit": {"media_type": "application/json"}},
            )
            return True
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self._max:
            await _error(
                send,
                413,
                INVALID_REQUEST,
                f"Request body is {int(length)} bytes; the limit is {self._max}",
                {"field": "body", "limit": {"max_bytes": self._max}},
            )
            return True
        return False

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self._app(scope, receive, tracking_send)
        except Unavailable as exc:
            if started:
                raise
            await _error(
                send,
                503,
                UNAVAILABLE,
                f"{exc}; retry later",
                {"retryable": True},
                headers={"retry-after": str(RETRY_AFTER_S)},
            )
