"""An ASGI request's body read ahead of the app, and a ``receive`` that replays it: the HTTP guard
(``http_guard``: the whole body within its limit, to check it) and the request log (``observe``: the
JSON-RPC id and method) both read the body before the MCP app does."""

from __future__ import annotations

from starlette.types import Message, Receive


async def read_ahead(receive: Receive, max_bytes: int) -> tuple[Receive, bytes | None]:
    """Read the body's messages until it ends or more than ``max_bytes`` bytes of it have arrived.

    Returns a ``receive`` that gives every message read, in order, then goes on with ``receive``; and the
    whole body (the bytes of every ``http.request`` message read) when its last message was read — which
    may take it past ``max_bytes`` (a caller that needs it within the limit checks its length) — else
    None: the body had not ended when more than ``max_bytes`` had arrived, or another message (a
    disconnect) came first. Raises nothing of its own."""
    buffered: list[Message] = []
    seen = 0
    complete = False
    while seen <= max_bytes:
        message = await receive()
        buffered.append(message)
        if message["type"] != "http.request":
            break
        seen += len(message.get("body", b""))
        if not message.get("more_body", False):
            complete = True
            break
    body = b"".join(m.get("body", b"") for m in buffered if m["type"] == "http.request") if complete else None

    async def replay() -> Message:
        if buffered:
            return buffered.pop(0)
        return await receive()

    return replay, body
