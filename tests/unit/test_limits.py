"""Input limits: every bound is enforced and named."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from hindsight.domain.limits import MAX_CONTENT_CHARS, MAX_METADATA_BYTES
from hindsight.domain.memory import MemoryDraft, content_hash


def _fields(exc: pytest.ExceptionInfo[ValidationError]) -> set[str]:
    return {".".join(str(p) for p in e["loc"]) for e in exc.value.errors()}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": " \t\n"}, "content"),
        ({"content": "x" * (MAX_CONTENT_CHARS + 1)}, "content"),
        ({"content": "bell \x07"}, "content"),
        ({"content": "lone surrogate \ud800"}, "content"),
        ({"content": "ok", "key": "k" * 201}, "key"),
        ({"content": "ok", "importance": -0.1}, "importance"),
        ({"content": "ok", "metadata": {"blob": "x" * MAX_METADATA_BYTES}}, "metadata"),
        ({"content": "ok", "metadata": {"a": [[[[[[1]]]]]]}}, "metadata"),
        ({"content": "ok", "unknown": 1}, "unknown"),
    ],
)
def test_draft_rejects_out_of_bounds_fields(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MemoryDraft(**kwargs)  # type: ignore[arg-type]
    assert field in _fields(caught)


def test_draft_keeps_text_tabs_newlines_and_unicode() -> None:
    draft = MemoryDraft(content="  Zoë prefers\ttea ☕\nnot coffee  ", metadata={"a": {"b": [1, 2]}})
    assert draft.content == "Zoë prefers\ttea ☕\nnot coffee"
    assert draft.layer == "semantic"
    assert draft.importance == 0.5


def test_occurred_at_is_normalised_to_utc() -> None:
    naive = MemoryDraft(content="x", occurred_at=datetime(2026, 1, 2, 3, 4))
    assert naive.occurred_at == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
    plus2 = MemoryDraft(
        content="x", occurred_at=datetime(2026, 1, 2, 5, 4, tzinfo=timezone(timedelta(hours=2)))
    )
    assert plus2.occurred_at == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)


def test_content_hash_ignores_case_and_spacing_only() -> None:
    assert content_hash("Dark  mode\nplease") == content_hash("dark mode please")
    assert content_hash("dark mode") != content_hash("light mode")
