"""What a repeat write adds to the memory it merges into (the worker's near-duplicate merge).

A repeat — cosine at the dedup threshold and the same words (``domain.text.same_information``) — is the
same memory said again; what it carries beside its words must not vanish into the merge (new-user trial
F4: a repeat's entities and tags were dropped, so an entity or tag filter no longer found the memory):

- entities say what the memory is about. A type the memory lacks is added; a value it already holds
  (for a list: every value of the write among the memory's) adds nothing; another value of a type it has
  ("person": "Ana" on a memory of "person": "Lee") names another referent, so the write is no repeat of
  that memory and is stored as its own (a type's value is never widened into a list behind the caller's
  back, and never dropped);
- tags: the union, the memory's first;
- shared_with: the union (the owner shared the repeat, so the memory is shared as widely), named in the
  merge's reason and history when it adds an agent;
- metadata is bookkeeping about a write, not what it says: a key the memory lacks is added, a key it holds
  keeps the memory's value, and the write's differing value is named in the merge's history and reason;
- a semantic repeat with another ``occurred_at`` is the same fact stated at another time: the memory keeps
  its own times (when it was first known: the key's timeline rests on them), the repeat's time is named in
  the history and reason. (Episodic repeats merge only at the same ``occurred_at``: another time is
  another event, ``memory_writes``.)

A combination that would break a write limit (tags, entities, JSON bytes) is no merge either: the write
is stored as its own memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hindsight.domain.limits import (
    MAX_ENTITIES,
    MAX_ENTITIES_BYTES,
    MAX_METADATA_BYTES,
    MAX_SHARED_WITH,
    MAX_TAGS,
)
from hindsight.domain.memory import MemoryDraft


@dataclass(frozen=True)
class Held:
    """What a memory holds that a merge combines with a repeat's: its entities, tags, metadata,
    occurred_at (None: unknown) and the agents it is shared with."""

    entities: dict[str, Any]
    tags: list[str]
    metadata: dict[str, Any]
    occurred_at: datetime | None = None
    shared_with: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Absorbed:
    """What a repeat adds to the memory (``added_*``) and what of it the memory does not take
    (``kept_metadata``: the write's differing values of metadata keys the memory holds; ``other_time``:
    the write's occurred_at when it differs from the memory's)."""

    added_entities: dict[str, Any] = field(default_factory=dict)
    added_tags: list[str] = field(default_factory=list)
    added_metadata: dict[str, Any] = field(default_factory=dict)
    kept_metadata: dict[str, Any] = field(default_factory=dict)
    other_time: datetime | None = None
    added_shared_with: list[str] = field(default_factory=list)

    def after(self, held: Held) -> Held:
        """The memory as the merge leaves it."""
        return Held(
            {**held.entities, **self.added_entities},
            [*held.tags, *self.added_tags],
            {**held.metadata, **self.added_metadata},
            held.occurred_at,
            [*held.shared_with, *self.added_shared_with],
        )

    def changes(self) -> dict[str, Any]:
        """The merge's history entries: ``added`` ({"entities": …, "tags": […], "metadata": …}, only what
        was added) and ``not_taken`` ({"metadata": the write's differing values, "occurred_at": ISO})."""
        added: dict[str, Any] = {}
        if self.added_entities:
            added["entities"] = self.added_entities
        if self.added_tags:
            added["tags"] = self.added_tags
        if self.added_metadata:
            added["metadata"] = self.added_metadata
        if self.added_shared_with:
            added["shared_with"] = self.added_shared_with
        not_taken: dict[str, Any] = {}
        if self.kept_metadata:
            not_taken["metadata"] = self.kept_metadata
        if self.other_time is not None:
            not_taken["occurred_at"] = self.other_time.isoformat()
        return {k: v for k, v in (("added", added), ("not_taken", not_taken)) if v}

    def reason(self, target: object) -> str | None:
        """The write's reason: what it added to ``target`` and what it kept of its own (None: neither)."""
        parts = []
        for what, names in (
            ("entities", list(self.added_entities)),
            ("tags", self.added_tags),
            ("metadata", list(self.added_metadata)),
            ("shared_with", self.added_shared_with),
        ):
            if names:
                parts.append(f"added {what} {', '.join(names)}")
        if self.kept_metadata:
            keys = ", ".join(self.kept_metadata)
            parts.append(f"kept its own metadata {keys} (this write's values are in its history)")
        if self.other_time is not None:
            when = self.other_time.isoformat()
            parts.append(f"kept its own occurred_at (this write's, {when}, is in its history)")
        return f"repeat of {target}: {'; '.join(parts)}" if parts else None


def _values(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values (``True`` is not ``1``, ``1`` is not ``"1"``)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _quoted(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def absorb(held: Held, draft: MemoryDraft) -> Absorbed | str:
    """What the repeat ``draft`` adds to a memory holding ``held``, or why it cannot merge into it
    (then it is stored as its own memory): an entity type of the memory with a value the write does not
    share, or a combination past a write limit."""
    added_entities: dict[str, Any] = {}
    for name, value in draft.entities.items():
        if name not in held.entities:
            added_entities[name] = value
            continue
        mine = _values(held.entities[name])
        missing = [v for v in _values(value) if not any(_same(v, m) for m in mine)]
        if missing:
            return (
                f"its entity {name} is {_quoted(held.entities[name])}, this write's {_quoted(value)}: "
                "another value of a type is another referent, never dropped or widened into a list"
            )
    added_tags = [t for t in dict.fromkeys(draft.tags) if t not in held.tags]
    added_metadata = {k: v for k, v in draft.metadata.items() if k not in held.metadata}
    kept = {k: v for k, v in draft.metadata.items() if k in held.metadata and not _same(v, held.metadata[k])}
    shared = [a for a in draft.shared_with if a not in held.shared_with]  # SharedWith: no duplicates
    result = Absorbed(added_entities, added_tags, added_metadata, kept, added_shared_with=shared)
    after = result.after(held)
    if len(after.tags) > MAX_TAGS:
        return f"together they would hold {len(after.tags)} tags; the limit is {MAX_TAGS}"
    if len(after.shared_with) > MAX_SHARED_WITH:
        return (
            f"together they would be shared with {len(after.shared_with)} agents; the limit is "
            f"{MAX_SHARED_WITH}"
        )
    if len(after.entities) > MAX_ENTITIES:
        return f"together they would hold {len(after.entities)} entities; the limit is {MAX_ENTITIES}"
    sized: tuple[tuple[str, dict[str, Any], int], ...] = (
        ("entities", after.entities, MAX_ENTITIES_BYTES),
        ("metadata", after.metadata, MAX_METADATA_BYTES),
    )
    for what, data, limit in sized:
        size = len(json.dumps(data, ensure_ascii=False).encode())
        if size > limit:
            return f"together their {what} would be {size} bytes as JSON; the limit is {limit}"
    when = draft.event_at
    if draft.layer == "semantic" and when is not None and when != held.occurred_at:
        result = Absorbed(added_entities, added_tags, added_metadata, kept, when, shared)
    return result
