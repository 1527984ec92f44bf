"""A memory's place in a conversation: validation of the position fields and what ingestion sets."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from hindsight.domain.interchange import items_from_locomo
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.usecases.store_memories import StoreMemories
from tests.unit.fakes import ScriptedStore

WHEN = datetime(2026, 2, 10, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize("field", ["turn_index", "session_index", "session_at"])
def test_a_position_without_a_conversation_is_refused_naming_the_field(field: str) -> None:
    value: object = WHEN if field == "session_at" else 2
    with pytest.raises(ValidationError) as err:
        MemoryDraft(content="x", **{field: value})  # type: ignore[arg-type]
    assert err.value.errors()[0]["loc"] == (field,)
    assert "needs conversation_id" in err.value.errors()[0]["msg"]


@pytest.mark.parametrize("value", [-1, 10_000_000, "3", 1.5, True])
def test_turn_index_must_be_a_small_non_negative_integer(value: object) -> None:
    with pytest.raises(ValidationError) as err:
        MemoryDraft(content="x", conversation_id="c", turn_index=value)  # type: ignore[arg-type]
    assert err.value.errors()[0]["loc"] == ("turn_index",)


def test_a_turn_inherits_its_session_time_unless_it_has_its_own() -> None:
    inherited = MemoryDraft(content="x", conversation_id="c", turn_index=0, session_at=WHEN)
    own = MemoryDraft(
        content="x",
        conversation_id="c",
        turn_index=0,
        session_at=WHEN,
        occurred_at=datetime(2026, 3, 1, tzinfo=UTC),
    )
    assert inherited.event_at == WHEN
    assert own.event_at == datetime(2026, 3, 1, tzinfo=UTC)
    assert MemoryDraft(content="x").event_at is None


def test_locomo_ingestion_sets_each_turn_position() -> None:
    data = [
        {
            "sample_id": "conv-x",
            "conversation": {
                "speaker_a": "A",
                "speaker_b": "B",
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": [
                    {"speaker": "A", "dia_id": "D1:1", "text": "hello"},
                    {"speaker": "B", "dia_id": "D1:2", "text": "hi there"},
                ],
                "session_2_date_time": "2:00 pm on 9 May, 2023",
                "session_2": [{"speaker": "A", "dia_id": "D2:1", "text": "back again"}],
            },
        }
    ]
    items = list(items_from_locomo(data))
    positions = [(i.draft.conversation_id, i.draft.session_index, i.draft.turn_index) for i in items]
    assert positions == [("conv-x", 1, 0), ("conv-x", 1, 1), ("conv-x", 2, 0)]
    assert items[2].draft.session_at == datetime(2023, 5, 9, 14, 0, tzinfo=UTC)


class _RecordingEmbedder:
    """Records what it is asked to embed; vectors are irrelevant here."""

    dim = 4
    model_name = "recording"

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def embed_query(self, text: str) -> list[float]:
        return [0.0] * self.dim

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        return [[1.0, 0.0, 0.0, 0.0] for _ in texts]

    def passage_window(self) -> None:
        return None


def _job(content: str, turn: int | None, context: str | None = None, conversation: str = "chat") -> WriteJob:
    draft = MemoryDraft(
        content=content,
        layer="episodic",
        context=context,
        conversation_id=conversation if turn is not None else None,
        turn_index=turn,
        session_index=1 if turn is not None else None,
    )
    return WriteJob(id=uuid.uuid4(), tenant_id="t", agent_id="a", submitted_at=WHEN, draft=draft)


@pytest.mark.anyio
async def test_a_short_reply_is_indexed_with_the_turn_it_answers() -> None:
    # Given a question and its short reply in one batch, a short reply whose question is already stored,
    # a short reply with its own context, a long turn and a first turn
    store = ScriptedStore()
    store.turns[("t", "a", ("chat", 1, 6))] = "Sam: And when do you fly?"
    embedder = _RecordingEmbedder()
    jobs = [
        _job("Priya: Where should we go in the spring?", 2),
        _job("Sam: Lisbon!", 3),
        _job("Priya: Second week of March.", 7),
        _job("Sam: Yes, really.", 9, context="Priya: Are you sure?"),
        _job("Priya: I think the old trams and the tile museum would be the highlights for me.", 11),
        _job("Sam: Hi!", 0),
        _job("Sam: Ok.", 5, conversation="elsewhere"),
    ]
    # When the worker prepares them
    prepared = await StoreMemories(store, embedder, 0.95).prepare(jobs)
    contexts = [p.job.draft.context for p in prepared]
    # Then the replies carry the turn before them (same batch, or from the store), embedded with it
    assert contexts[1] == "Priya: Where should we go in the spring?"
    assert contexts[2] == "Sam: And when do you fly?"
    assert embedder.texts[1] == "Priya: Where should we go in the spring?\nSam: Lisbon!"
    # and an explicit context, a long turn, a first turn and an unknown predecessor are left alone
    assert contexts[3] == "Priya: Are you sure?"
    assert [contexts[i] for i in (0, 4, 5, 6)] == [None, None, None, None]
