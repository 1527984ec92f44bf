"""Test helpers shared by the integration tests: MCP clients, event files, direct database checks."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import psycopg
from mcp import Client
from mcp_types import TextContent

from hindsight.client import connect
from hindsight.local.poller import SqsPoller
from hindsight.local.stack import LocalStack

EVENTS = Path(__file__).parent / "events"
PROTOCOL_ERAS = ["legacy", "2026-07-28"]
"""The two client eras: 2025-11-25 with `initialize`, and the stateless 2026-07-28 with `server/discover`."""


def load_event(name: str) -> dict[str, Any]:
    """A canonical event from tests/events (the same files `sam local invoke -e` takes)."""
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


mcp_client = connect


def count_memories(stack: LocalStack, tenant: str, status: str | None = None) -> int:
    """Rows stored for a tenant (optionally with one status), straight from Postgres."""
    query = "SELECT count(*) FROM memories WHERE tenant_id = %s" + (" AND status = %s" if status else "")
    params = (tenant, status) if status else (tenant,)
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(query, params).fetchone()  # type: ignore[arg-type]
    return int(row[0]) if row else 0


async def drain(poller: SqsPoller, timeout_s: float = 60.0) -> None:
    """Let the worker store everything queued (from an async test: the worker runs its own loop)."""
    assert await anyio.to_thread.run_sync(poller.drain, timeout_s), "the write queue did not drain"


async def mint(stack: LocalStack, tenant: str, **kwargs: Any) -> str:
    """stack.mint_token from an async test (it runs its own event loop)."""
    token: str = await anyio.to_thread.run_sync(lambda: stack.mint_token(tenant, **kwargs))
    return token


@contextmanager
def loopback_http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1 (a free port) serving ``handler``; yields the port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def send_json(
    handler: BaseHTTPRequestHandler, status: int, payload: Any, headers: Mapping[str, str] | None = None
) -> None:
    """Answer a request of a loopback test server with a JSON body."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


async def tool_error(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must fail as a tool result a model can read (MCP 2025-11-25, SEP-1303): asserts
    ``isError``, that the text content carries the message and the whole error object, and returns the
    structured error (``kind``, ``code``, ``message``, ``retryable`` and its details)."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} succeeded: {result.structured_content}"
    assert isinstance(result.structured_content, dict), result.content
    error: dict[str, Any] = result.structured_content["error"]
    text = " ".join(block.text for block in result.content if isinstance(block, TextContent))
    assert error["message"] in text, (text, error)
    assert json.loads(text.split("\n", 1)[1]) == {"error": error}
    return error
