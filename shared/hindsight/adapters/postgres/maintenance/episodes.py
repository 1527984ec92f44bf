"""Episodic rows as maintenance reads them (consolidation candidates, pattern evidence): the columns
selected and the row → ``Episode`` mapping."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection

from hindsight.adapters.postgres.rows import fetch_all
from hindsight.domain.maintenance import Episode
from hindsight.domain.maintenance.episodes import SERVICE_METADATA_KEYS
from hindsight.domain.memory import Scope
from hindsight.domain.relative_time import INFERRED_KEY, words_anchor

EPISODE_COLUMNS = f"""id, key, task_id, task_type, outcome, lessons, tags, importance, source, status,
                      query, context, coalesce(occurred_at, created_at) AS event_time, occurred_at,
                      occurred_end,
                      session_at, metadata -> '{INFERRED_KEY}' AS inferred, entities, metadata,
                      shared_with, version"""
"""Columns of an ``Episode`` row (its text comes with ``content``, selected whole or cut)."""


def _floats(value: Any) -> list[float]:
    """A vector column as floats: pgvector's ``Vector`` (``to_list``), a numpy array or a sequence."""
    if hasattr(value, "to_list"):
        return [float(x) for x in value.to_list()]
    if hasattr(value, "tolist"):
        return [float(x) for x in value.tolist()]
    return [float(x) for x in value]


def episode_from_row(row: dict[str, Any], with_embedding: bool) -> Episode:
    """The ``Episode`` of a row selected with ``EPISODE_COLUMNS`` and ``content`` (and ``embedding``)."""
    embedding = row.get("embedding") if with_embedding else None
    return Episode(
        id=row["id"],
        content=row["content"],
        event_time=row["event_time"],
        event_end=row.get("occurred_end"),
        importance=float(row["importance"]),
        source=row["source"],
        status=row["status"],
        key=row["key"],
        task_id=row["task_id"],
        task_type=row["task_type"],
        outcome=row["outcome"],
        lessons=row["lessons"],
        tags=tuple(row["tags"] or ()),
        embedding=_floats(embedding) if embedding is not None else (),
        query=row.get("query"),
        context=row.get("context"),
        entities=dict(row.get("entities") or {}),
        metadata={k: v for k, v in (row.get("metadata") or {}).items() if k not in SERVICE_METADATA_KEYS},
        shared_with=tuple(sorted(row.get("shared_with") or ())),
        version=int(row.get("version") or 1),
        anchor=words_anchor(
            row["content"], row.get("inferred"), row.get("occurred_at"), row.get("session_at")
        ),
    )


async def lock_unchanged(
    conn: AsyncConnection,
    scope: Scope,
    ids: Sequence[UUID],
    versions: Sequence[int],
    statuses: tuple[str, ...],
) -> bool:
    """In the caller's transaction: lock the memories ``ids`` (``FOR UPDATE``, in id order) and tell whether
    each is still what a maintenance plan read — a memory of the scope, in one of ``statuses``, at its
    version in ``versions`` (aligned with ``ids``). False when any changed since: the plan is skipped and
    re-planned from fresh rows by the next run (trial N0: an edit landing between the plan's read and its
    write was archived under a summary of its old words). Held until commit, the lock also makes an edit
    that comes later wait, then see what maintenance wrote (and re-derive it)."""
    rows = await fetch_all(
        conn,
        """SELECT id, version, status FROM memories
           WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s ORDER BY id FOR UPDATE""",
        (list(ids), scope.tenant_id, scope.agent_id),
    )
    read = dict(zip(ids, versions, strict=True))
    return len(rows) == len(read) and all(
        r["status"] in statuses and r["version"] == read[r["id"]] for r in rows
    )
