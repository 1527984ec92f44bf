"""HTTP-level guard in front of the MCP endpoint: requests the SDK would answer unclearly, or not at all,
get a JSON-RPC error body and a 4xx (or 503) status.

On the MCP path only (``/healthz`` and the OAuth metadata routes pass untouched):

===========================================  ======  =======  ==============================================
request                                      status  code     why
===========================================  ======  =======  ==============================================
a Host header not allowed (or none)          421     -32600   DNS-rebinding protection, the SDK's check
                                                              (``allowed_hosts``); it answered in plain text
an Origin header present and not allowed     403     -32600   the same; ``data.field`` names the header,
                                                              ``data.allowed`` what is allowed
POST whose Content-Type is not JSON          415     -32600   the transport carries JSON-RPC as JSON
POST with Content-Length over the limit      413     -32600   ``data.limit.max_bytes`` names the limit (4 MiB)
a 2025-era POST (no 2026 ``_meta`` envelope)  400     -32600   ``api.protocol_version``: the SDK took it for
whose MCP-Protocol-Version is not served                      a 2026 request and named the envelope instead
a 2026-era POST without MCP-Protocol-Version, 400     -32020   the same module: the SDK said the absent header
Mcp-Method or (tools/call) Mcp-Name                           "does not match" the body
POST whose body is a JSON array (a batch)    400     -32600   streamable HTTP carries one message per POST;
                                                              the SDK would answer with pydantic's union noise
a malformed envelope, an unreadable value   400     -32600   ``api.request_body``: the member named, never
(over-long number, unpaired surrogate)       /-32602  its value; such a value in a tools/call's
                                                      arguments is the call's ``isError`` result instead
GET                                          405     -32600   stateless: there is no server-to-client stream,
                                                              and the SDK would hold the connection open
a dependency down (``Unavailable`` raised    503     -32001   e.g. the token check with the database down:
below the tools, before a response)                           ``data.retryable`` and ``Retry-After``
===========================================  ======  =======  ==============================================

The 421 and 403 bodies are JSON-RPC errors with a null id, as every other answer here: the streamable
HTTP transport (2025-11-25, Security Warning) says of a refused Origin "the HTTP response body MAY
comprise a JSON-RPC error response that has no id", and the SDK's own HTTP-level errors (400, 404, 406)
are that shape; a client reading JSON finds why instead of a parse error on "Invalid Host header". The
check runs here, before the token is read, with the SDK's ``TransportSecurityMiddleware`` (the one
definition of what is allowed); the SDK's own run of it after auth then always passes.

A body sent without Content-Length (chunked) and over the limit is still refused by the SDK's own limit
(413): it streams on to the app after the first ``max_body_bytes`` read here. A body within the limit is
read whole (the SDK reads it whole too) and checked by ``api.request_body`` before it is replayed.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from mcp.server.transport_security import (
    DEFAULT_MAX_REQUEST_BODY_SIZE,
    TransportSecurityMiddleware,
    TransportSecuritySettings,
)
from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hindsight.api.body_ahead import read_ahead
from hindsight.api.errors import UNAVAILABLE, shown
from hindsight.api.protocol_version import HEADER as VERSION_HEADER
from hindsight.api.protocol_version import envelope_mismatch_refusal, missing_header_refusal, version_refusal
from hindsight.api.request_body import Refusal, check_body
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
    request_id: str | int | None = None,
) -> None:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode()
    raw_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    raw_headers += [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


MAX_SHOWN_HEADER_CHARS = 100
"""A refused header value a message quotes at most this many characters of (``api.errors.shown``)."""
_shown = partial(shown, limit=MAX_SHOWN_HEADER_CHARS)


async def _read(receive: Receive, max_bytes: int) -> tuple[Receive, bytes | None]:
    """The whole body (None when it is over ``max_bytes``: the SDK refuses it), and a ``receive`` that
    replays what was read (``body_ahead.read_ahead``)."""
    replay, body = await read_ahead(receive, max_bytes)
    return replay, body if body is not None and len(body) <= max_bytes else None


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that delivers ``body`` in one message, then what ``receive`` (whose body was read
    whole) delivers next: the disconnect."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class RequestGuard:
    """ASGI middleware; see the module doc for what it refuses and how."""

    def __init__(
        self,
        app: ASGIApp,
        path: str = "/mcp",
        max_body_bytes: int = DEFAULT_MAX_REQUEST_BODY_SIZE,
        security: TransportSecuritySettings | None = None,
    ) -> None:
        """``security``: the Host/Origin allow-lists the SDK's transport is given (None: no check)."""
        self._app = app
        self._path = path.rstrip("/")
        self._max = max_body_bytes
        self._security = security

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self._path:
            await self._app(scope, receive, send)
            return
        if self._security is not None:
            scope = _with_canonical_host(scope)
        if await self._refuse_host_or_origin(scope, send):
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
            replay, body = await _read(receive, self._max)
            if body is not None and body.lstrip(_BLANK)[:1] == b"[":
                await _error(
                    send,
                    400,
                    INVALID_REQUEST,
                    "Batch requests are not supported: send one JSON-RPC request per HTTP POST",
                )
                return
            sent = Headers(scope=scope)
            verdict = (
                version_refusal(sent.get(VERSION_HEADER), body)
                or envelope_mismatch_refusal(sent.get(VERSION_HEADER), body)
                or missing_header_refusal(sent, body)
                or (check_body(body) if body is not None else None)
            )
            if isinstance(verdict, Refusal):
                await _error(
                    send,
                    400,
                    verdict.code,
                    verdict.message,
                    {"field": verdict.field, **verdict.details},
                    request_id=verdict.request_id,
                )
                return
            if verdict is not None:
                headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
                headers.append((b"content-length", str(len(verdict.body)).encode()))
                await self._forward({**scope, "headers": headers}, _replaying(verdict.body, receive), send)
                return
            receive = replay
        await self._forward(scope, receive, send)

    async def _refuse_host_or_origin(self, scope: Scope, send: Send) -> bool:
        """Answer a request whose Host or Origin the SDK's DNS-rebinding check refuses; True if answered."""
        if self._security is None:
            return False
        refused = await TransportSecurityMiddleware(self._security).validate_request(Request(scope))
        if refused is None:
            return False
        headers = Headers(scope=scope)
        if refused.status_code == 421:
            host = headers.get("host")
            port = _server_port(scope)
            if not host:
                got = "a request without a Host header is not"
            elif not _has_port(host) and port is not None and _listed(host, self._security.allowed_hosts):
                # an allowed name, at the scheme's default port: say why that is not this server
                default = _DEFAULT_PORTS.get(scope.get("scheme", "http"), "?")
                got = (
                    f"the Host header {_shown(host)} (without a port: port {default}; this server listens "
                    f"on {port}) is not"
                )
            else:
                got = f"the Host header {_shown(host)} is not"
            message = (
                f"Misdirected Request: {got} one this server answers (DNS-rebinding protection); "
                "the server's allowed_hosts (HINDSIGHT_ALLOWED_HOSTS) lists the hosts it answers"
            )
            data = {"field": "host", "allowed": self._security.allowed_hosts}
        else:
            message = (
                f"Forbidden: the Origin header {_shown(headers.get('origin', ''))} is not allowed "
                "(DNS-rebinding protection: a web page may call this server only from an allowed origin)"
            )
            data = {"field": "origin", "allowed": self._security.allowed_origins}
        await _error(send, refused.status_code, INVALID_REQUEST, message, data)
        return True

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


_DEFAULT_PORTS = {"http": 80, "https": 443}


def _has_port(host: str) -> bool:
    return ":" in host[host.rfind("]") + 1 :]  # after an IPv6 literal's brackets


def _listed(host: str, allowed: list[str]) -> bool:
    """Whether ``host`` (no port) is the name of an allow-list entry (``localhost`` of ``localhost:*``)."""
    return any(entry.rsplit(":", 1)[0] == host for entry in allowed)


def _server_port(scope: Scope) -> int | None:
    server = scope.get("server")
    return int(server[1]) if server and server[1] is not None else None


def canonical_host(host: str, scheme: str, server_port: int | None) -> str:
    """A Host header as the allow-list compares it: lower-cased (DNS names are case-insensitive, RFC 4343;
    so are IPv6 hex digits), and without a port given the scheme's default one (RFC 9110 §7.2: no port
    means port 80 for http, 443 for https) when the server listens on that port. A host without a port
    at a server on another port stays as it is and is refused (``localhost:*`` wants a port): it names
    another server. Never makes an unlisted host allowed: DNS-rebinding protection is unchanged."""
    host = host.lower()
    default = _DEFAULT_PORTS.get(scheme)
    if host and not _has_port(host) and default is not None and server_port == default:
        return f"{host}:{default}"
    return host


def _with_canonical_host(scope: Scope) -> Scope:
    """``scope`` with its Host header canonical (``canonical_host``): the SDK's transport checks it too."""
    headers = scope["headers"]
    for i, (name, value) in enumerate(headers):
        if name == b"host":
            host = canonical_host(value.decode("latin-1"), scope.get("scheme", "http"), _server_port(scope))
            if host.encode("latin-1") == value:
                return scope
            return {**scope, "headers": [*headers[:i], (name, host.encode("latin-1")), *headers[i + 1 :]]}
    return scope
