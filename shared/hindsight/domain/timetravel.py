"""Point-in-time recall over the two times every memory carries (bi-temporal).

*Valid time* is when a fact held in the world: from ``valid_from`` (the write's ``valid_from``, else when
it happened — ``occurred_at`` or its session's date — else when it was written) until ``valid_to`` (set
by a supersede, or given), half-open ``[from, to)``: a fact that ended exactly at T is not true at T,
its successor (which starts at that instant) is. *Transaction time* is when this store held it: from
``created_at`` until the history's retirement times (superseded, archived, forgotten; restored brings
it back), with in-place edits (``action='update'``) read from the history as they stood.

``valid_at`` asks "what was true at T" (superseded facts included when they held then; their status
at T is active). ``known_at`` asks "what did we hold at T" (created by T, in the status and the content
of T). Both can be given (what we held at K about time V, by the validity held at K). ``as_of``
is neither: it is the moment a question is asked (relative phrases, recency).

A memory forgotten on request is never recalled, at any time; ``version`` is always today's (what a
change must name as ``expected_version``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import AsOfTime
from hindsight.domain.limits import SHARE_WITH_EVERY_AGENT
from hindsight.domain.memory import HistoryEntry, MemoryStatus, SearchRequest, StoredMemory

RESUMES_METADATA_KEY = "resumes"
"""Metadata key of a continuation: the id of the memory whose value it holds again after a bounded value
inside that memory's period (``adapters.postgres.key_resume``); a forget of either takes the other."""


def check_resumes(metadata: Mapping[str, object] | None, held: Mapping[str, object] | None = None) -> None:
    """Refuse a ``metadata`` given by a caller that sets ``RESUMES_METADATA_KEY`` — the store's own mark of a
    continuation: a write marked so would be taken for derived data (ordered by another memory's start,
    dropped when its key's timeline is settled again). ``held``: the metadata of the memory an update
    changes, whose own mark may be given back unchanged (an update merges the keys it names). Raises
    InvalidInput (field ``metadata.resumes``)."""
    if metadata is None or RESUMES_METADATA_KEY not in metadata:
        return
    mine = held.get(RESUMES_METADATA_KEY) if held is not None else None
    if mine is not None and metadata[RESUMES_METADATA_KEY] == mine:
        return
    raise InvalidInput(
        f"metadata.{RESUMES_METADATA_KEY}",
        f"'{RESUMES_METADATA_KEY}' is set by the store alone, on a continuation of a key's value (the id of "
        "the memory it continues); a write or an update cannot set or change it: leave it out",
    )


DROPPED_CHANGE = "dropped"
"""The ``changes`` key of the history row in which a continuation (``RESUMES_METADATA_KEY``) was dropped
(``adapters.postgres.key_rejoin``): derived data left holding nothing — its value holds its instants again,
or the value it continues ends before it. Its value: the memory whose change left it nothing. The row's
status becomes ``forgotten`` (out of every read of today) but the row and its history stay, so a ``known_at``
read at an instant it held still sees it (``held_until_dropped``): unlike a forget on request."""

REWOUND_FIELDS = (
    "content",
    "key",
    "query",
    "importance",
    "source",
    "status",
    "tags",
    "entities",
    "metadata",
    "valid_from",
    "valid_to",
    "shared_with",
    "occurred_at",
    "occurred_precision",
    "occurred_end",
)
"""Fields the history records as ``{"from": …, "to": …}`` and a memory is rewound through."""


ValidAt = Annotated[
    AsOfTime,
    Field(
        description="What was true at this time (valid time): facts whose validity [from, to) holds it, "
        "including those superseded since (shown with status_now and superseded_by). ISO 8601; a partial "
        "date means its last instant ('2026-03-01': the end of that day)."
    ),
]
"""The ``valid_at`` parameter: a point of view like ``as_of``, so a partial date means its end."""
KnownAt = Annotated[
    AsOfTime,
    Field(
        description="What this memory store held at this time (transaction time): memories stored by then, "
        "in the status and content they had then (status_now says today's when it differs). ISO 8601; a "
        "partial date means its last instant ('2026-03-01': by the end of that day)."
    ),
]
"""The ``known_at`` parameter (same time forms as ``valid_at``)."""


class PointInTime(BaseModel):
    """The times a read is asked at (UTC instants); both None: now, as stored."""

    model_config = ConfigDict(frozen=True)

    valid_at: datetime | None = None
    known_at: datetime | None = None

    @property
    def is_now(self) -> bool:
        """No time travel: read as stored today."""
        return self.valid_at is None and self.known_at is None


NOW = PointInTime()


def point_of(request: SearchRequest) -> PointInTime:
    """The point in time a search asks at."""
    return PointInTime(valid_at=request.valid_at, known_at=request.known_at)


def valid_start(memory: StoredMemory) -> datetime:
    """When the fact began to hold: valid_from, else when it happened, else when it was written."""
    return memory.valid_from or held_from(memory)[1]


def held_from(memory: StoredMemory) -> tuple[str, datetime]:
    """Where a memory without valid_from (an episode's) holds from, with the field that says so:
    ("occurred_at", its occurred_at), else ("created_at", when it was written)."""
    if memory.occurred_at is not None:
        return "occurred_at", memory.occurred_at
    return "created_at", memory.created_at


def takes_key(start: datetime, holder_start: datetime) -> bool:
    """Whether a new value on a key, true from ``start``, takes the key from the fact that holds it, true
    from ``holder_start`` (both UTC instants, ``valid_start``). Valid time orders a key's values, not
    arrival: a value that began to hold before the holder did is a *past* value — stored superseded by
    the holder, ending where it begins — so older information never becomes the current fact. A tie
    goes to the new write (a correction of the same moment: the old one's interval becomes empty)."""
    return start >= holder_start


def is_upcoming(memory: StoredMemory, now: datetime) -> bool:
    """Whether a fact is not yet true at ``now``: an active semantic memory whose ``valid_from`` is after
    it (a future-dated value holds its key from then; reads flag it ``upcoming``)."""
    return (
        memory.layer == "semantic"
        and memory.status == "active"
        and memory.valid_from is not None
        and memory.valid_from > now
    )


def valid_at(memory: StoredMemory, moment: datetime) -> bool:
    """Whether ``moment`` is in the memory's valid interval ``[start, valid_to)`` (half-open)."""
    return valid_start(memory) <= moment and (memory.valid_to is None or moment < memory.valid_to)


MERGE_ADDED_FIELDS = ("entities", "tags", "metadata", "shared_with")
"""Fields a near-duplicate merge adds to, recorded as ``{"added": {field: what it added}}`` (the keys or
items the memory lacked: ``domain.repeat.Absorbed.changes``); a memory is rewound through a merge by
taking them out again."""


def _without(value: object, added: object) -> object:
    """``value`` (a list, or a dict by key) without what a merge ``added`` to it."""
    if isinstance(value, Mapping) and isinstance(added, Mapping):
        return {k: v for k, v in value.items() if k not in added}
    if isinstance(value, list) and isinstance(added, list):
        return [item for item in value if item not in added]
    return value


def rewound(memory: StoredMemory, later: Sequence[HistoryEntry]) -> StoredMemory:
    """The memory as it stood before the changes ``later`` (its history after some instant, any
    order), undone from today's value back, newest first: a change recorded ``{"from": …, "to": …}``
    gives back its ``from`` (so each field ends at the ``from`` of its earliest later change), a merge
    takes out what it added (``MERGE_ADDED_FIELDS``: a merge that shared the memory with more agents is
    undone too, so a reader is never shown a version from before it was shared with it). Fields no later
    change touched keep today's value. ``status_now`` is set when the status differs."""
    values: dict[str, object] = {}
    for entry in reversed(sorted(later, key=lambda e: e.at)):  # ties: the history's order, reversed
        for name in REWOUND_FIELDS:
            change = entry.changes.get(name)
            if isinstance(change, Mapping) and "from" in change:
                values[name] = change["from"]
        added = entry.changes.get("added")
        if isinstance(added, Mapping):
            for name in MERGE_ADDED_FIELDS:
                if name in added:
                    values[name] = _without(values.get(name, getattr(memory, name)), added[name])
    if not values:
        return memory
    then = StoredMemory.model_validate({**memory.model_dump(), **values})
    if then.status != memory.status:
        then = then.model_copy(update={"status_now": memory.status})
    return then


def readable_by(memory: StoredMemory, agent_id: str) -> bool:
    """Whether the agent ``agent_id`` (of the memory's tenant) may read ``memory`` as it stands — today's
    row, or a version rewound to ``known_at`` (``rewound``): its owner always; another agent only while
    that version is shared with it (its id or '*' in ``shared_with``) and not forgotten. So a point-in-time
    read never shows another agent what the owner held before sharing it (text removed before sharing,
    new-user trial F1), nor a forgotten memory (only its owner sees one, to restore it: trial F2).
    ``adapters.postgres.memory_reads.visible`` is the same rule for today's rows."""
    if memory.agent_id == agent_id:
        return True
    shared = agent_id in memory.shared_with or SHARE_WITH_EVERY_AGENT in memory.shared_with
    return shared and memory.status != "forgotten"


def held_until_dropped(later: Sequence[HistoryEntry]) -> bool:
    """Whether a memory forgotten today was dropped as a continuation (``DROPPED_CHANGE``), not forgotten
    on request: its latest status change among ``later`` (its history after a ``known_at``) is the drop.
    A forget on request of its value since (a later status change) hides it again, at every time."""
    changes = [e for e in sorted(later, key=lambda e: e.at) if "status" in e.changes]
    return bool(changes) and DROPPED_CHANGE in changes[-1].changes


def at_point(
    memory: StoredMemory,
    point: PointInTime,
    later: Sequence[HistoryEntry] = (),
    superseded_by: UUID | None = None,
) -> StoredMemory | None:
    """The memory as a read at ``point`` sees it, or None when that read does not see it: created after
    ``known_at``, not valid at ``valid_at``, forgotten. ``later``: its history after ``known_at``
    (ignored without). ``superseded_by``: the memory that replaced it, shown when it is superseded
    today. Under ``valid_at`` a fact superseded since is shown active (it held then). A continuation dropped
    after ``known_at`` (``held_until_dropped``) is seen as it stood then."""
    dropped = point.known_at is not None and held_until_dropped(later)
    if memory.status == "forgotten" and not dropped:
        return None
    if superseded_by is not None and memory.status == "superseded":
        memory = memory.model_copy(update={"superseded_by": superseded_by})
    if point.known_at is not None:
        if memory.created_at > point.known_at:
            return None
        memory = rewound(memory, [e for e in later if e.at > point.known_at])
    if point.valid_at is not None:
        if not valid_at(memory, point.valid_at):
            return None
        if memory.status == "superseded":
            memory = memory.model_copy(update={"status": "active", "status_now": "superseded"})
    return memory


def search_statuses(point: PointInTime, asked: Iterable[MemoryStatus]) -> tuple[MemoryStatus, ...]:
    """The statuses a search keeps: under ``valid_at``, asking for active facts also brings those
    superseded since (a fact replaced later was the truth then, and is shown active) and archived facts
    (``archived_facts_only``). Under ``known_at`` they are statuses at that time (the store's filter
    reads them from the history)."""
    statuses = tuple(dict.fromkeys(asked))
    if point.valid_at is not None and "active" in statuses:
        implied: tuple[MemoryStatus, ...] = ("superseded", "archived")
        extra = tuple(s for s in implied if s not in statuses)
        return (*statuses, *extra)
    return statuses


def archived_facts_only(point: PointInTime, asked: Iterable[MemoryStatus]) -> bool:
    """Whether ``search_statuses`` added 'archived' for facts only: under ``valid_at``, active asked and
    archived not. Archiving (cold from disuse, or on request) is no retraction — what an archived fact
    says held during its period (trial F6), so it is shown, with its status ``archived``. Archived
    episodes stay out: most are members of a consolidation summary that is itself shown."""
    statuses = set(asked)
    return point.valid_at is not None and "active" in statuses and "archived" not in statuses
