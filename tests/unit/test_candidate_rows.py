"""The search SQL's rows become Candidates without validation (``memory_reads._ranked``): the objects
must be the ones validation would build, and behave as pydantic models do (copies, dumps, equality)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from hindsight.adapters.postgres.memory_reads import _ranked
from hindsight.domain.memory import Candidate, CandidateMemory

WHEN = datetime(2026, 11, 30, 12, tzinfo=UTC)


def _row(i: int, similarity: float | None, keyword: float | None, matches: int | None) -> dict[str, Any]:
    return {
        "id": uuid.UUID(int=i + 1),
        "layer": "episodic" if i % 2 else "semantic",
        "content": f"turn {i}",
        "importance": 0.5,
        "access_count": i,
        "source": "user_stated",
        "created_at": WHEN,
        "occurred_at": WHEN if i % 2 else None,
        "occurred_precision": None,
        "conversation_id": "c" if i % 3 else None,
        "turn_index": i if i % 3 else None,
        "session_index": 1 if i % 3 else None,
        "similarity": similarity,
        "keyword_score": keyword,
        "entity_matches": matches,
        "entity_distance": 0.25 if matches is not None else None,
    }


def test_rows_become_the_candidates_validation_would_build() -> None:
    rows = [_row(0, 0.9, None, None), _row(1, 0.8, 0.5, 2), _row(2, None, 0.5, None), _row(3, 0.8, 0.1, 1)]
    built = _ranked(rows)
    fields = tuple(CandidateMemory.model_fields)
    expected = [
        Candidate(memory=CandidateMemory.model_validate({k: r[k] for k in fields}), **ranks)
        for r, ranks in zip(
            rows,
            [
                {"vector_rank": 1, "vector_similarity": 0.9},
                {
                    "vector_rank": 2,
                    "vector_similarity": 0.8,
                    "keyword_rank": 1,
                    "keyword_score": 0.5,
                    "entity_rank": 1,
                    "entity_matches": 2,
                },
                {"keyword_rank": 1, "keyword_score": 0.5},
                {
                    "vector_rank": 2,
                    "vector_similarity": 0.8,
                    "keyword_rank": 3,
                    "keyword_score": 0.1,
                    "entity_rank": 2,
                    "entity_matches": 1,
                },
            ],
            strict=True,
        )
    ]
    assert built == expected
    assert [c.model_dump() for c in built] == [c.model_dump() for c in expected]
    # every field given, as the validating construction gave them
    assert all(c.model_fields_set == set(Candidate.model_fields) for c in built)
    assert [c.memory.position for c in built] == [None, ("c", 1, 1), ("c", 1, 2), None]


def test_a_copy_of_one_candidate_leaves_the_others_alone() -> None:
    first, second = _ranked([_row(0, 0.9, None, None), _row(1, 0.8, None, None)])
    copied = first.model_copy(update={"keyword_rank": 7})
    assert copied.keyword_rank == 7
    assert first.keyword_rank is None
    assert "keyword_rank" in copied.model_fields_set
    assert second.model_fields_set == set(Candidate.model_fields)
    assert second.memory.model_fields_set == set(CandidateMemory.model_fields)
