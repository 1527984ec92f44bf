"""An episodic memory as maintenance reads it, and the marks maintenance leaves on what it derives from
episodes: the metadata keys of summaries and inferred patterns, and their derived (UUIDv5) ids."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from uuid import UUID, uuid5

from hindsight.domain.memory import MemoryStatus, Outcome, Source, TaskType
from hindsight.domain.relative_time import INFERRED_KEY, annotate_relative_time


@dataclass(frozen=True)
class Episode:
    """An episodic memory as maintenance sees it. ``embedding`` is unit-length (the Embedder port's
    promise) and present only for consolidation candidates; ``content`` may be truncated for pattern
    evidence (``PATTERN_CONTENT_CHARS``)."""

    id: UUID
    content: str
    event_time: datetime
    importance: float
    event_end: datetime | None = None
    """The exclusive end of its event's span (``occurred_end``: a partial occurred_at's, a summary's);
    None: an instant at ``event_time``."""
    source: Source = "user_stated"
    status: MemoryStatus = "active"
    key: str | None = None
    task_id: str | None = None
    task_type: TaskType | None = None
    outcome: Outcome | None = None
    lessons: str | None = None
    tags: tuple[str, ...] = ()
    embedding: Sequence[float] = ()
    query: str | None = None
    context: str | None = None
    anchor: datetime | None = None
    """When its words were written, when that is certain (``relative_time.words_anchor``): the relative
    expressions of its text ("yesterday") are measured from it. None: unknown."""
    entities: Mapping[str, object] = field(default_factory=dict)
    """Its structured entities (``{"order_id": "A-1"}``): entity search finds it by them."""
    metadata: Mapping[str, object] = field(default_factory=dict)
    """The caller's metadata: every key but the service's own marks (``SERVICE_METADATA_KEYS``)."""
    shared_with: tuple[str, ...] = ()
    """The other agents that may read it (sorted): who sees it is part of what it is."""
    version: int = 1
    """Its ``version`` when read (bumped by every change of what it says: migration 010): the writing
    steps check it under lock, so a plan is never applied to a memory edited after it was read."""

    def dated(self, text: str | None) -> str | None:
        """``text`` (one of its fields) as it reads when copied elsewhere: each relative expression
        followed by its date from ``anchor`` (``relative_time.annotate_relative_time``)."""
        return None if text is None else annotate_relative_time(text, self.anchor)

    @property
    def searchable_text(self) -> str:
        """Every text field full-text search matches it by (content, recall hint, context)."""
        return "\n".join(part for part in (self.content, self.query, self.context) if part)


SUMMARY_METADATA_KEY = "consolidation"
"""Metadata key that marks a consolidation summary: ``{"members": n, "first": iso, "last": iso}``."""
PATTERN_METADATA_KEY = "inferred_from"
"""Metadata key of an inferred semantic memory: ``{"kind", "episodes", "first", "last", …}``."""
SERVICE_METADATA_KEYS = frozenset({SUMMARY_METADATA_KEY, PATTERN_METADATA_KEY, INFERRED_KEY})
"""Metadata keys the service writes (not the caller's): a summary, a pattern, an inferred occurred_at."""
PATTERN_CONTENT_CHARS = 2000
"""Characters of an episode's content read when looking for a preference statement."""

_NAMESPACE = UUID("5d1c2a7e-8f3b-4c6d-9e0a-1b2c3d4e5f60")
"""Namespace of the derived (UUIDv5) ids of summaries and patterns: fixed forever, or ids change."""


def derived_id(*parts: str) -> UUID:
    """The UUIDv5 of ``parts`` in ``_NAMESPACE``: the same parts give the same id, in every run."""
    return uuid5(_NAMESPACE, "\x1f".join(parts))
