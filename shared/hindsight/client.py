"""A thin convenience over the official MCP client for scripts, benchmarks and tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent


@asynccontextmanager
async def connect(
    url: str,
    token: str | None,
    mode: str = "legacy",
    timeout_s: float = 60.0,
    on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
) -> AsyncIterator[Client]:
    """An MCP client session over streamable HTTP with a bearer token.

    ``mode``: "legacy" (2025-11-25, initialize handshake), "2026-07-28" (stateless, server/discover
    era) or "auto" (probe, then fall back). ``on_response`` sees every HTTP response (its status and
    headers; the body is not read yet), e.g. to count 5xx answers.
    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    hooks = {"response": [on_response]} if on_response is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout_s, event_hooks=hooks) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,  # type: ignore[arg-type]
    ):
        yield client


class ToolCallError(RuntimeError):
    """A tool answered with ``isError``. ``error`` is the structured error Hindsight returns (``kind``,
    ``code``, ``message``, ``retryable`` and details such as ``errors`` or ``retry_after_s``; see
    docs/tools.md "Errors"); ``kind`` and ``code`` are its fields."""

    def __init__(self, tool: str, error: dict[str, Any]) -> None:
        self.tool = tool
        self.error = error
        self.kind = str(error.get("kind", "error"))
        self.code = error.get("code")
        super().__init__(f"{tool} failed: {error.get('message', error)}")


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool and return its structured result. Raises ``ToolCallError`` when the tool answers with
    ``isError`` (a JSON-RPC error — unknown tool, malformed request — stays ``mcp.shared.exceptions.
    MCPError``)."""
    result = await client.call_tool(tool, arguments)
    if result.is_error:
        structured = result.structured_content
        error = structured.get("error") if isinstance(structured, dict) else None
        raise ToolCallError(tool, error if isinstance(error, dict) else {"message": _text(result)})
    if not isinstance(result.structured_content, dict):
        raise ToolCallError(tool, {"message": f"no structured result: {_text(result)[:500]}"})
    return dict(result.structured_content)
