"""Episodic rows as maintenance reads them (consolidation candidates, pattern evidence): the columns
selected and the row → ``Episode`` mapping."""

from __future__ import annotations

from typing import Any

from hindsight.domain.maintenance import Episode
from hindsight.domain.maintenance.episodes import SERVICE_METADATA_KEYS
from hindsight.domain.relative_time import INFERRED_KEY, words_anchor

EPISODE_COLUMNS = f"""id, key, task_id, task_type, outcome, lessons, tags, importance, source, status,
                      query, context, coalesce(occurred_at, created_at) AS event_time, occurred_at,
                      occurred_end,
                      session_at, metadata -> '{INFERRED_KEY}' AS inferred, entities, metadata,
                      shared_with"""
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
        anchor=words_anchor(
            row["content"], row.get("inferred"), row.get("occurred_at"), row.get("session_at")
        ),
    )
