"""A memory's history (``memory_history``): the one statement every writer of history rows uses.

Each row says what happened to one memory (``action``: created, merged, updated, superseded, archived,
restored, forgotten, feedback, decayed), why (``reason``), what changed (``changes``: ``{"field": {"from":
…, "to": …}}``), who did it (``actor``: an API key id, "worker", "maintenance") and when (``at``, the
transaction's time unless given). The rows of one call go in one statement, in the order given. Decay
writes its rows inside its own set-based statement (``maintenance.decay``), computed from the update.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb


@dataclass(frozen=True)
class HistoryRow:
    """One change of one memory."""

    memory_id: UUID
    action: str
    reason: str | None = None
    changes: dict[str, Any] = field(default_factory=dict)


def status_change(before: str, after: str) -> dict[str, Any]:
    """The ``changes`` of a status transition."""
    return {"status": {"from": before, "to": after}}


async def record_history(
    conn: AsyncConnection, tenant_id: str, actor: str | None, *rows: HistoryRow, at: datetime | None = None
) -> None:
    """Insert ``rows`` for memories of ``tenant_id`` in one statement (none: no statement)."""
    if not rows:
        return
    await conn.execute(
        """INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor, at)
           SELECT r.memory_id, %(t)s, r.action, r.reason, r.changes, %(actor)s,
                  coalesce(%(at)s::timestamptz, now())
           FROM unnest(%(ids)s::uuid[], %(actions)s::text[], %(reasons)s::text[], %(changes)s::jsonb[])
                WITH ORDINALITY AS r(memory_id, action, reason, changes, n)
           ORDER BY r.n""",
        {
            "t": tenant_id,
            "actor": actor,
            "at": at,
            "ids": [r.memory_id for r in rows],
            "actions": [r.action for r in rows],
            "reasons": [r.reason for r in rows],
            "changes": [Jsonb(r.changes) for r in rows],
        },
    )
