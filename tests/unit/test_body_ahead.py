"""The request body read ahead of the MCP app (``api.body_ahead``): the HTTP guard and the request log read
it so, and the app then receives every message as it was sent."""

from __future__ import annotations

import asyncio
from typing import Any

from hindsight.api.body_ahead import read_ahead
from hindsight.api.http_guard import _read

DISCONNECT = {"type": "http.disconnect"}


def _receive(*bodies: bytes, ended: bool = True) -> tuple[Any, list[dict[str, Any]]]:
    """A ``receive`` giving ``bodies`` as http.request messages (the last one ending the body when
    ``ended``), then disconnects; and the messages it gives."""
    messages = [
        {"type": "http.request", "body": b, "more_body": not ended or i < len(bodies) - 1}
        for i, b in enumerate(bodies)
    ]
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0) if queue else DISCONNECT

    return receive, messages


def _read_ahead(receive: Any, max_bytes: int, reader: Any = read_ahead) -> tuple[bytes | None, list[Any]]:
    """The body read ahead, and every message the replaying ``receive`` gives up to the disconnect."""

    async def run() -> tuple[bytes | None, list[Any]]:
        replay, body = await reader(receive, max_bytes)
        given = [await replay()]
        while given[-1] != DISCONNECT:
            given.append(await replay())
        return body, given

    return asyncio.run(run())


def test_a_body_within_the_limit_is_read_whole_and_replayed() -> None:
    receive, messages = _receive(b'{"jsonrpc":', b'"2.0"}')
    assert _read_ahead(receive, 100) == (b'{"jsonrpc":"2.0"}', [*messages, DISCONNECT])


def test_a_body_not_ended_past_the_limit_is_none_and_still_replayed_in_full() -> None:
    receive, messages = _receive(b"a" * 60, b"b" * 60, b"c" * 60)
    assert _read_ahead(receive, 100) == (None, [*messages, DISCONNECT])


def test_a_body_whose_last_message_passes_the_limit_is_whole_for_the_log_and_none_for_the_guard() -> None:
    receive, messages = _receive(b"a" * 60, b"b" * 60)
    assert _read_ahead(receive, 100) == (b"a" * 60 + b"b" * 60, [*messages, DISCONNECT])
    receive, messages = _receive(b"a" * 60, b"b" * 60)
    assert _read_ahead(receive, 100, _read) == (None, [*messages, DISCONNECT])


def test_a_disconnect_before_the_body_ends_gives_no_body() -> None:
    receive, messages = _receive(b"a" * 10, ended=False)
    assert _read_ahead(receive, 100) == (None, [*messages, DISCONNECT])
