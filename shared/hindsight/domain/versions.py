"""Optimistic concurrency: a change may name the version it read (``expected_version``); when the object
moved on, the change is refused with ``VersionConflict`` showing what the object holds now, so the agent
can merge and retry. Memories are versioned in Postgres (bumped by every change, migration
``memory_versions``); working-memory items in Redis (``domain.working_memory``)."""

from __future__ import annotations

from hindsight.domain.errors import VersionConflict
from hindsight.domain.memory import StoredMemory

_SHOWN = (
    "id",
    "version",
    "content",
    "key",
    "status",
    "importance",
    "tags",
    "entities",
    "metadata",
    "valid_from",
    "valid_to",
    "shared_with",
    "last_verified_at",
    "updated_at",
)
"""The fields a conflict shows: what an agent merges with (not embeddings, not bookkeeping)."""


def memory_conflict(memory: StoredMemory, expected: int) -> VersionConflict:
    """The refusal of a change that expected ``expected`` of a memory now at ``memory.version``."""
    current = memory.model_dump(mode="json", include=set(_SHOWN))
    return VersionConflict(f"memory {memory.id}", expected, memory.version, current)


def check_memory_version(memory: StoredMemory, expected: int | None) -> None:
    """Raise ``VersionConflict`` unless ``expected`` is None (no check) or the memory's version."""
    if expected is not None and memory.version != expected:
        raise memory_conflict(memory, expected)
