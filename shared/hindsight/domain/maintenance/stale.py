"""A derived memory that its sources no longer support is not brought back by a ``restore`` (new-user
trial N4/N5). Pure: no I/O.

Maintenance derives two kinds of memory from episodes, and takes each back when an edit of its sources
leaves it unsupported (``adapters.postgres.derived_edits``):

- a consolidation summary is *undone* (archived, its originals active again, metadata
  ``consolidation.undone_at``) when its originals no longer repeat one event. Restoring it would show,
  beside the originals, the words they said before the edit;
- an inferred memory is *withdrawn* (archived, metadata ``inferred_from.withdrawn_at``) when fewer
  episodes than an inference needs still state it. Restoring it would show a count ("stated in 3
  episodes") the episodes no longer support.

Both are maintenance's to bring back, derived again from the sources as they are: a summary when enough
originals repeat one event again, an inference (same id, recounted) once enough episodes state it again.
"""

from __future__ import annotations

from typing import Any

from hindsight.domain.maintenance.episodes import PATTERN_METADATA_KEY, SUMMARY_METADATA_KEY
from hindsight.domain.maintenance.patterns import WITHDRAWN_AT

UNDONE_AT = "undone_at"
"""Key of a summary's ``SUMMARY_METADATA_KEY`` metadata: when its consolidation was undone (ISO 8601)."""


def _mark(metadata: dict[str, Any], name: str, mark: str) -> Any:
    inner = metadata.get(name)
    return inner.get(mark) if isinstance(inner, dict) else None


def restore_refusal(memory_id: object, status: str, metadata: dict[str, Any]) -> str | None:
    """Why a restore of the memory ``memory_id`` (its ``status`` and ``metadata``) is refused — an undone
    summary or a withdrawn inference (module doc) not active now —, or None when it may be restored."""
    if status == "active":
        return None  # a restore changes nothing
    undone = _mark(metadata, SUMMARY_METADATA_KEY, UNDONE_AT)
    if undone is not None:
        return (
            f"memory {memory_id} is a consolidation summary that was undone at {undone}: its originals no "
            "longer repeat one event and are active memories again, so restoring it would bring back words "
            "they no longer say; maintenance summarises the originals again while enough of them repeat "
            "one event (memory_get shows its history)"
        )
    withdrawn = _mark(metadata, PATTERN_METADATA_KEY, WITHDRAWN_AT)
    if withdrawn is not None:
        return (
            f"memory {memory_id} is an inference withdrawn at {withdrawn}: fewer episodes than an "
            "inference needs still state it, so restoring it would bring back a count they no longer "
            "support; maintenance makes it active again, recounted, once enough episodes state it again "
            "(to keep the statement now, write it as a memory of its own)"
        )
    return None
