"""memory_update stores on a key nothing memory_write refuses there (trial23 H1): an in-place update of a
keyed memory's words, or a move onto a key, and a supersede, meet memory_write's key checks
(``usecases.key_admission``) with the same refusal, against the value they replace; a memory without a
key is updated as before."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryChanges, MemoryDraft, Scope, SearchRequest, StoredMemory
from hindsight.ports import EditedMemory
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.remember import Remember
from tests.unit.fakes import FixedClock, ListQueue, memory

ALICE = Principal(tenant_id="acme", key_id="k1")
NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)
REFUSED = [
    ("user.city", "I live in Lisbon", "My son Tom lives in Faro"),
    ("user.diet", "I'm vegetarian", "My wife Maria is vegan"),
    ("user.employer", "I work at Acme", "I might move to Globex next year"),
    ("user.home", "I live in Paris", "I used to live in Rome"),
]
"""(key, the writer's value it holds, words memory_write refuses there): the trial's four."""


@dataclass
class _Store:
    """The reader and editor ports over a few memories; ``updates``: the in-place changes made."""

    memories: list[StoredMemory]
    updates: list[MemoryChanges] = field(default_factory=list)

    async def get(self, scope: Scope, memory_id: uuid.UUID) -> StoredMemory | None:
        return next((m for m in self.memories if m.id == memory_id), None)

    async def latest(self, scope: Scope, request: SearchRequest, limit: int) -> list[StoredMemory]:
        return [m for m in self.memories if m.key == request.key and m.status == "active"][:limit]

    async def update(
        self, scope: Scope, memory_id: uuid.UUID, changes: MemoryChanges, *_: Any
    ) -> EditedMemory:
        self.updates.append(changes)
        found = await self.get(scope, memory_id)
        assert found is not None
        return EditedMemory(memory=found, replaced_version=found.version)


class _Embedder:
    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        return [[0.0] for _ in texts]


def _held(content: str, key: str | None) -> StoredMemory:
    return memory(content).model_copy(update={"tenant_id": "acme", "key": key, "valid_from": NOW})


def _manage(store: _Store, queue: ListQueue) -> ManageMemory:
    clock = FixedClock(NOW)
    remember = Remember(queue, clock)
    return ManageMemory(store, store, _Embedder(), remember, None, clock)  # type: ignore[arg-type]


async def _write_refusal(key: str, value: str, words: str) -> str:
    """memory_write's refusal of ``words`` on ``key`` holding ``value``."""

    async def values(scope: Scope, asked: str) -> list[str]:
        return [value]

    remember = Remember(ListQueue(), FixedClock(NOW), key_values=values)
    with pytest.raises(InvalidInput) as refused:
        await remember(ALICE, None, MemoryDraft(content=words, key=key))
    assert refused.value.field == "content"
    return str(refused.value)


@pytest.mark.anyio
@pytest.mark.parametrize("action", ["update", "supersede"])
async def test_an_update_of_a_keyed_memory_is_refused_what_memory_write_refuses_on_its_key(
    action: Any,
) -> None:
    for key, value, words in REFUSED:
        held = _held(value, key)
        store, queue = _Store([held]), ListQueue()
        with pytest.raises(InvalidInput) as refused:
            await _manage(store, queue).update(
                ALICE, None, held.id, action, MemoryChanges(content=words), None
            )
        assert refused.value.field == "content", words
        if (action, words) != ("supersede", "I used to live in Rome"):  # a supersede's own words for it
            assert str(refused.value) == await _write_refusal(key, value, words), words
        else:  # (``check_past_supersede``, before trial23): names the fact it would replace
            assert "the new words state a past state ('used to')" in str(refused.value)
        assert (store.updates, queue.jobs) == ([], []), words  # nothing changed, nothing queued


@pytest.mark.anyio
async def test_moving_onto_a_key_meets_its_values_as_a_write_and_what_no_check_reads_is_updated() -> None:
    lisbon, faro = _held("I live in Lisbon", "user.city"), _held("My son Tom lives in Faro", None)
    tom = _held("My son Tom lives in Faro", "user.city")
    store, queue = _Store([lisbon, faro]), ListQueue()
    manage = _manage(store, queue)
    with pytest.raises(InvalidInput) as refused:
        await manage.update(ALICE, None, faro.id, "update", MemoryChanges(key="user.city"), None)
    assert str(refused.value) == await _write_refusal("user.city", "I live in Lisbon", faro.content)
    moved = MemoryChanges(content=faro.content, key="user.city")
    with pytest.raises(InvalidInput) as superseding:  # retires the key's values too: as a write
        await manage.update(ALICE, None, faro.id, "supersede", moved, None)
    assert str(superseding.value) == str(refused.value)
    assert (store.updates, queue.jobs) == ([], [])
    # as before: a memory without a key; a change that leaves words and key as they are; another
    # person's value replaced by theirs
    store.memories = [_held("I live in Lisbon", None), tom]
    words = MemoryChanges(content="My son Tom lives in Faro")
    await manage.update(ALICE, None, store.memories[0].id, "update", words, None)
    await manage.update(ALICE, None, tom.id, "update", MemoryChanges(importance=0.9), None)
    porto = MemoryChanges(content="My son Tom lives in Porto")
    await manage.update(ALICE, None, tom.id, "supersede", porto, None)
    assert [c.content for c in store.updates] == ["My son Tom lives in Faro", None]
    assert [job.draft.content for job in queue.jobs] == ["My son Tom lives in Porto"]
