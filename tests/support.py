"""Test helpers shared by the integration tests: MCP clients, event files, direct database checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import psycopg

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
