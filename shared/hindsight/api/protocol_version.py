"""The ``MCP-Protocol-Version`` header of a request in the 2025-11-25 era, checked before the SDK reads it.

The SDK routes a request whose header names no handshake version (2024-11-05 … 2025-11-25) to its
2026-07-28 path, whose first check is that era's per-request ``_meta`` envelope: a 2025-era client that
sends ``MCP-Protocol-Version: 2099-01-01`` was told "params._meta must be an object carrying the required
'io.modelcontextprotocol/protocolVersion' …", naming neither the header nor its value. The 2025-11-25
transport spec says: "If the server receives a request with an invalid or unsupported
MCP-Protocol-Version, it MUST respond with 400 Bad Request"; so such a request (one without the 2026
envelope) gets 400 -32600 naming the header, the value and the versions served, the answer the SDK's
2025-era transport gives. A request carrying the 2026 envelope is left to the SDK, whose answers there
(-32020 header mismatch, "Unsupported protocol version" with ``supported``) are that era's, but for a
routing header that is absent: the SDK says "mcp-method header does not match the request body's method",
which reads as a wrong value, so ``missing_header_refusal`` says it is missing (same code and status).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import pydantic_core
from mcp.shared.inbound import MCP_METHOD_HEADER, MCP_NAME_HEADER, NAME_BEARING_METHODS
from mcp_types import HEADER_MISMATCH, INVALID_REQUEST
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from hindsight.api.errors import shown
from hindsight.api.request_body import Refusal

HEADER = "mcp-protocol-version"
_ENVELOPE_KEY = "io.modelcontextprotocol/protocolVersion"
_SHOWN_CHARS = 64
_shown = partial(shown, limit=_SHOWN_CHARS)


def _modern_message(body: bytes | None) -> dict[str, Any] | None:
    """``body`` parsed when it is a 2026-07-28 request (its ``params._meta`` names a protocol version),
    else None."""
    try:
        message = pydantic_core.from_json(body) if body else None
    except ValueError:
        return None
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return message if isinstance(meta, dict) and _ENVELOPE_KEY in meta else None


def _modern(body: bytes | None) -> bool:
    """Whether ``body`` is a 2026-07-28 request: its ``params._meta`` names a protocol version."""
    return _modern_message(body) is not None


def missing_header_refusal(headers: Mapping[str, str], body: bytes | None) -> Refusal | None:
    """The 400 -32020 (the SDK's ``HEADER_MISMATCH``) for a 2026-07-28 request without a header that era
    requires (``MCP-Protocol-Version``, ``Mcp-Method``, and ``Mcp-Name`` for a call naming a tool, prompt
    or resource), saying it is missing and what it must carry; None when each is present (whether it
    matches is the SDK's check), when the ``Mcp-Method`` header names another method than the body's (the
    SDK says so: a ``tools/call`` body under ``Mcp-Method: tools/list`` has no ``Mcp-Name`` because the
    method is wrong, not missing), when what it would carry is no string (``request_body`` names that), or
    for a 2025-era request (``headers``: lower-case names)."""
    if all(h in headers for h in (HEADER, MCP_METHOD_HEADER, MCP_NAME_HEADER)):
        return None
    if not body or _ENVELOPE_KEY.encode() not in body:  # no 2026 request: no second parse of the body
        return None
    message = _modern_message(body)
    if message is None:
        return None
    params = message["params"]
    method = message.get("method")
    if headers.get(MCP_METHOD_HEADER, method) != method:  # a wrong method first: the SDK says it differs
        return None
    required = [
        (HEADER, "params._meta's protocol version", params["_meta"][_ENVELOPE_KEY]),
        (MCP_METHOD_HEADER, "the request's method", method),
    ]
    name_key = NAME_BEARING_METHODS.get(method) if isinstance(method, str) else None
    if name_key is not None:
        required.append((MCP_NAME_HEADER, f"the request's params.{name_key}", params.get(name_key)))
    for header, what, value in required:
        if header not in headers and isinstance(value, str):  # a value of another type: a malformed body
            return Refusal(
                HEADER_MISMATCH,
                f"Bad Request: the {header} header is missing; a 2026-07-28 request sends it with "
                f"{what} ({_shown(value)})",
                header,
                _request_id(body),
            )
    return None


def envelope_mismatch_refusal(version: str | None, body: bytes | None) -> Refusal | None:
    """The 400 -32020 for a request whose ``MCP-Protocol-Version`` header names a 2025-era (handshake)
    version while its body carries the 2026-07-28 envelope naming another: the SDK routes by the header,
    so it answered such a request as a 2025-era one (200) and ignored the envelope, where the 2026-07-28
    transport refuses a header that disagrees with ``params._meta`` (the SDK's own check, -32020, runs
    only on its 2026 path). None otherwise; the body is parsed only when the header is a handshake version
    and the envelope's key is in the body."""
    if version not in HANDSHAKE_PROTOCOL_VERSIONS or not body or _ENVELOPE_KEY.encode() not in body:
        return None
    message = _modern_message(body)
    if message is None:
        return None
    envelope = message["params"]["_meta"][_ENVELOPE_KEY]
    if not isinstance(envelope, str) or envelope == version:
        return None
    return Refusal(
        HEADER_MISMATCH,
        f"Bad Request: the {HEADER} header {_shown(version)} does not match params._meta's protocol version "
        f"({_shown(envelope)}); send one era's request: a 2026-07-28 request carries the same version in "
        "both, a 2025-era request has no params._meta protocol version",
        HEADER,
        _request_id(body),
    )


def _request_id(body: bytes | None) -> str | int | None:
    try:
        message: Any = pydantic_core.from_json(body) if body else None
    except ValueError:
        return None
    rpc_id = message.get("id") if isinstance(message, dict) else None
    return rpc_id if isinstance(rpc_id, str) or type(rpc_id) is int else None


def version_refusal(version: str | None, body: bytes | None) -> Refusal | None:
    """The 400 for a 2025-era request (no 2026 envelope in ``body``) whose ``MCP-Protocol-Version``
    header value ``version`` is no version served, or None (absent, served, or a 2026-era request)."""
    if version is None or version in HANDSHAKE_PROTOCOL_VERSIONS or version in MODERN_PROTOCOL_VERSIONS:
        return None
    if _modern(body):
        return None
    requested = version[:_SHOWN_CHARS] + ("…" if len(version) > _SHOWN_CHARS else "")  # as data, unquoted
    return Refusal(
        INVALID_REQUEST,
        f"Bad Request: unsupported MCP-Protocol-Version header {_shown(version)}; this server supports "
        f"{', '.join(HANDSHAKE_PROTOCOL_VERSIONS)} (negotiated by initialize, then sent on every request) "
        f"and {', '.join(MODERN_PROTOCOL_VERSIONS)} (stateless: every request carries it in params._meta)",
        HEADER,
        _request_id(body),
        {"requested": requested, "supported": supported_versions()},
    )


def supported_versions() -> list[str]:
    """Every protocol version served, oldest first."""
    return [*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS]
