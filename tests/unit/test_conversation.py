"""A memory's place in a conversation: validation of the position fields and what ingestion sets."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from hindsight.domain.interchange import items_from_locomo
from hindsight.domain.memory import MemoryDraft

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
