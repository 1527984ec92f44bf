"""A partial occurred_at is the span it names (issue 12, item 1 and the time-filter check): the draft keeps
its precision, the queued job round-trips it, and ranking's time fit and recency treat it as the span."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from hindsight.domain.isotime import TimeSpan
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.domain.ranking import recency, time_fit
from hindsight.domain.timeparse import TimeIntent
from tests.unit.fakes import memory

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
JUNE = TimeIntent("window", datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC))


@pytest.mark.parametrize(
    ("given", "start", "precision"),
    [
        ("2026", datetime(2026, 1, 1, tzinfo=UTC), "year"),
        ("2026-11", datetime(2026, 11, 1, tzinfo=UTC), "month"),
        ("2026-W47", datetime(2026, 11, 16, tzinfo=UTC), "week"),
        ("2026-11-24", datetime(2026, 11, 24, tzinfo=UTC), "day"),
        ("2026-11-24T10:30:15+02:00", datetime(2026, 11, 24, 8, 30, 15, tzinfo=UTC), "instant"),
        (TimeSpan(datetime(2026, 3, 1, tzinfo=UTC), "month"), datetime(2026, 3, 1, tzinfo=UTC), "month"),
    ],
)
def test_a_draft_keeps_the_start_and_precision_of_what_was_given(
    given: object, start: datetime, precision: str
) -> None:
    draft = MemoryDraft.model_validate({"content": "x", "occurred_at": given})
    assert (draft.occurred_at, draft.occurred_precision) == (start, precision)
    job = WriteJob(
        id="00000000-0000-4000-8000-000000000000", tenant_id="t", agent_id="a", submitted_at=NOW, draft=draft
    )
    again = WriteJob.model_validate_json(job.model_dump_json())
    assert again.draft.event_span == TimeSpan(start, precision)  # type: ignore[arg-type]


def test_a_stored_pair_must_be_a_span_start_and_no_time_has_no_precision() -> None:
    with pytest.raises(ValidationError):
        MemoryDraft.model_validate(
            {"content": "x", "occurred_at": "2026-03-05T00:00:00Z", "occurred_precision": "month"}
        )
    with pytest.raises(ValidationError, match="occurred_at"):
        MemoryDraft.model_validate({"content": "x", "occurred_at": "20261124"})
    assert MemoryDraft(content="x").occurred_precision is None


def _at(start: datetime, precision: str | None) -> object:
    return memory().model_copy(update={"occurred_at": start, "occurred_precision": precision})


def test_a_year_overlaps_a_window_inside_it_and_jan_first_does_not() -> None:
    year = _at(datetime(2026, 1, 1, tzinfo=UTC), "year")
    instant = _at(datetime(2026, 1, 1, tzinfo=UTC), None)
    assert time_fit(year, JUNE, NOW, timedelta(days=30)) == 1.0  # type: ignore[arg-type]
    assert time_fit(instant, JUNE, NOW, timedelta(days=30)) < 0.1  # type: ignore[arg-type]
    before = _at(datetime(2025, 1, 1, tzinfo=UTC), "year")
    # 2025 ends 151 days before June 2026 begins: about five window-lengths away
    assert time_fit(before, JUNE, NOW, timedelta(days=30)) == pytest.approx(0.5 ** (151 / 30))  # type: ignore[arg-type]


def test_recency_of_a_span_counts_from_its_middle() -> None:
    month = _at(datetime(2026, 11, 1, tzinfo=UTC), "month")
    first_day = _at(datetime(2026, 11, 1, tzinfo=UTC), None)
    half_life = timedelta(days=30)
    assert recency(month, NOW, half_life) > recency(first_day, NOW, half_life)  # type: ignore[arg-type]
    assert recency(month, NOW, half_life) == pytest.approx(0.5 ** (16.5 / 30))  # type: ignore[arg-type]
