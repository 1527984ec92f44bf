"""A thin convenience over the official MCP client for scripts, benchmarks and tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def connect(
    url: str, token: str | None, mode: str = "legacy", timeout_s: float = 60.0
) -> AsyncIterator[Client]:
    """An MCP client session over streamable HTTP with a bearer token.

    ``mode``: "legacy" (2025-11-25, initialize handshake), "2026-07-28" (stateless, server/discover
    era) or "auto" (probe, then fall back).
    """
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout_s) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,  # type: ignore[arg-type]
    ):
        yield client


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool and return its structured result. Raises RuntimeError on a tool-level error."""
    result = await client.call_tool(tool, arguments)
    if result.is_error or result.structured_content is None:
        raise RuntimeError(f"{tool} failed: {result.content}")
    return dict(result.structured_content)
