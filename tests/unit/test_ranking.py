"""Reciprocal rank fusion and the importance blend."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hindsight.domain.memory import Candidate, StoredMemory
from hindsight.domain.ranking import rank_candidates, reciprocal_rank_fusion


def _memory(importance: float = 0.5) -> StoredMemory:
    return StoredMemory(
        id=uuid.uuid4(),
        tenant_id="t",
        agent_id="a",
        layer="semantic",
        key=None,
        query=None,
        content="c",
        importance=importance,
        access_count=0,
        last_accessed_at=None,
        created_at=datetime.now(UTC),
        occurred_at=None,
        metadata={},
        status="active",
    )


def test_rrf_sums_reciprocal_ranks_with_k() -> None:
    assert reciprocal_rank_fusion([1, 3], k=60) == pytest.approx(1 / 61 + 1 / 63)
    assert reciprocal_rank_fusion([None, 2], k=60) == pytest.approx(1 / 62)
    assert reciprocal_rank_fusion([None, None], k=60) == 0.0


@pytest.mark.parametrize(("ranks", "k"), [([0], 60), ([1], 0)])
def test_rrf_rejects_bad_input(ranks: list[int], k: int) -> None:
    with pytest.raises(ValueError, match=r"rank|k"):
        reciprocal_rank_fusion(ranks, k=k)


def test_both_signals_beat_one_and_importance_breaks_near_ties() -> None:
    both = Candidate(
        memory=_memory(), vector_rank=2, keyword_rank=2, vector_similarity=0.7, keyword_score=0.1
    )
    vector_only = Candidate(memory=_memory(), vector_rank=1, vector_similarity=0.8)
    keyword_only_important = Candidate(memory=_memory(importance=1.0), keyword_rank=1, keyword_score=0.3)
    keyword_only = Candidate(memory=_memory(importance=0.0), keyword_rank=1, keyword_score=0.3)
    hits = rank_candidates(
        [vector_only, keyword_only, both, keyword_only_important], k=60, relevance_weight=0.7, top_k=4
    )
    assert hits[0].memory.id == both.memory.id
    order = [h.memory.id for h in hits]
    assert order.index(keyword_only_important.memory.id) < order.index(keyword_only.memory.id)
    assert hits[0].scores.relevance == pytest.approx((2 / 62) / (2 / 61))


@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(1, 200)),
            st.one_of(st.none(), st.integers(1, 200)),
            st.floats(0, 1),
        ),
        min_size=1,
        max_size=30,
    ),
    st.integers(1, 30),
)
def test_scores_stay_in_range_and_results_are_sorted(
    rows: list[tuple[int | None, int | None, float]], top_k: int
) -> None:
    candidates = [
        Candidate(memory=_memory(imp), vector_rank=v, keyword_rank=kw, vector_similarity=0.5 if v else None)
        for v, kw, imp in rows
    ]
    hits = rank_candidates(candidates, k=60, relevance_weight=0.7, top_k=top_k)
    assert len(hits) == min(top_k, len(candidates))
    finals = [h.scores.final for h in hits]
    assert finals == sorted(finals, reverse=True)
    assert all(0.0 <= h.scores.relevance <= 1.0 + 1e-9 for h in hits)
