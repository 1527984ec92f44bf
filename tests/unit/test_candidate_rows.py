"""The search SQL's rows become Candidates without validation (``memory_reads._ranked``): the objects
must be the ones validation would build, and behave as pydantic models do (copies, dumps, equality)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hindsight.adapters.postgres.memory_reads import (
    _SIGNAL_COLUMNS,
    ENTITY_SIGNALS,
    KEYWORD_SIGNALS,
    VECTOR_SIGNALS,
    Merged,
    _merged,
    _ranked,
)
from hindsight.domain.learned_ranker import load_ranker
from hindsight.domain.memory import Candidate, CandidateMemory, SearchRequest
from hindsight.domain.pool_columns import CandidatePool, pool_columns
from hindsight.domain.ranking import RankingPolicy, score_candidates

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
        "occurred_end": None,
        "conversation_id": "c" if i % 3 else None,
        "turn_index": i if i % 3 else None,
        "session_index": 1 if i % 3 else None,
        "similarity": similarity,
        "keyword_score": keyword,
        "entity_matches": matches,
        "entity_distance": 0.25 if matches is not None else None,
    }


def _statement(
    rows: list[dict[str, Any]], signals: Sequence[str]
) -> tuple[Sequence[str], list[tuple[Any, ...]]]:
    """``rows`` as a search statement returns them: tuples of the candidate's columns, then ``signals``."""
    fields = tuple(CandidateMemory.model_fields)
    return signals, [tuple(r[k] for k in fields) + tuple(r[k] for k in signals) for r in rows]


def _pool(rows: list[dict[str, Any]]) -> Merged:
    """``rows`` (every signal column set) as the one statement ``_merged`` joins."""
    return _merged(_statement(rows, _SIGNAL_COLUMNS))


def test_rows_become_the_candidates_validation_would_build() -> None:
    rows = [_row(0, 0.9, None, None), _row(1, 0.8, 0.5, 2), _row(2, None, 0.5, None), _row(3, 0.8, 0.1, 1)]
    pool = _ranked(_pool(rows))
    built = list(pool)
    assert _columns(pool) == _columns(built)
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
    first, second = _ranked(_pool([_row(0, 0.9, None, None), _row(1, 0.8, None, None)]))
    copied = first.model_copy(update={"keyword_rank": 7})
    assert copied.keyword_rank == 7
    assert first.keyword_rank is None
    assert "keyword_rank" in copied.model_fields_set
    assert second.model_fields_set == set(Candidate.model_fields)
    assert second.memory.model_fields_set == set(CandidateMemory.model_fields)


def _columns(candidates: Sequence[Candidate]) -> tuple[tuple[Any, ...], ...]:
    """``pool_columns`` as tuples (a ``CandidatePool`` holds lists, the models' are read as tuples)."""
    return tuple(tuple(column) for column in pool_columns(candidates))


def _reference(vector_rows: list[dict[str, Any]], text_rows: list[dict[str, Any]]) -> list[Candidate]:
    """The plain definition: rows merged by id (vector first), each signal's competition ranks from a
    sort of its scores, every candidate validated."""
    by_id: dict[Any, dict[str, Any]] = {}
    for r in vector_rows:
        by_id[r["id"]] = {**r, "keyword_score": None, "entity_matches": None, "entity_distance": None}
    for r in text_rows:
        if r["id"] in by_id:
            by_id[r["id"]].update({k: r[k] for k in ("keyword_score", "entity_matches", "entity_distance")})
        else:
            by_id[r["id"]] = {**r, "similarity": None}
    rows = list(by_id.values())

    def ranks(key: Any) -> dict[Any, int]:
        keys = {r["id"]: key(r) for r in rows if key(r) is not None}
        return {i: 1 + sum(other < k for other in keys.values()) for i, k in keys.items()}

    vector = ranks(lambda r: None if r["similarity"] is None else -r["similarity"])
    keyword = ranks(lambda r: None if r["keyword_score"] is None else -r["keyword_score"])
    entity = ranks(
        lambda r: None if r["entity_matches"] is None else (-r["entity_matches"], r["entity_distance"])
    )
    fields = tuple(CandidateMemory.model_fields)
    return [
        Candidate(
            memory=CandidateMemory.model_validate({k: r[k] for k in fields}),
            vector_rank=vector.get(r["id"]),
            vector_similarity=r["similarity"],
            keyword_rank=keyword.get(r["id"]),
            keyword_score=r["keyword_score"],
            entity_rank=entity.get(r["id"]),
            entity_matches=r["entity_matches"],
        )
        for r in rows
    ]


_score = st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9])  # few values: ties are common


@settings(max_examples=200, deadline=None)
@given(
    vector=st.lists(st.tuples(st.integers(0, 30), _score), max_size=20, unique_by=lambda t: t[0]),
    text=st.lists(
        st.tuples(st.integers(0, 30), st.none() | _score, st.none() | st.integers(1, 3), _score),
        max_size=20,
        unique_by=lambda t: t[0],
    ),
)
def test_statement_rows_become_the_reference_candidates(
    vector: list[tuple[int, float]], text: list[tuple[int, float | None, int | None, float]]
) -> None:
    text = [t for t in text if t[1] is not None or t[2] is not None]  # the text statement's rows
    vector_rows = [_row(i, s, None, None) for i, s in vector]
    text_rows = [
        _row(i, None, k, m) | {"entity_distance": d if m is not None else None} for i, k, m, d in text
    ]
    for r in vector_rows:
        del r["keyword_score"], r["entity_matches"], r["entity_distance"]
    for r in text_rows:
        del r["similarity"]
    expected = _reference([dict(r) for r in vector_rows], [dict(r) for r in text_rows])
    pool = _ranked(
        _merged(
            _statement(vector_rows, VECTOR_SIGNALS),
            _statement(text_rows, (*KEYWORD_SIGNALS, *ENTITY_SIGNALS)),
        )
    )
    built = [pool[i] for i in reversed(range(len(pool)))][::-1]  # built in any order, each from its row
    assert built == expected
    assert list(pool) == built
    assert all(a is b for a, b in zip(pool, built, strict=True))  # each built once
    assert _columns(pool) == _columns(expected)
    assert [c.model_dump() for c in built] == [c.model_dump() for c in expected]
    # the row turned into the memory's values keeps the fields' order (dumps and reprs read it)
    assert [repr(c) for c in built] == [repr(c) for c in expected]
    assert [c.model_dump_json() for c in built] == [c.model_dump_json() for c in expected]


@settings(max_examples=200, deadline=None)
@given(
    vector=st.lists(st.tuples(st.integers(0, 30), _score), max_size=20, unique_by=lambda t: t[0]),
    text=st.lists(
        st.tuples(st.integers(0, 30), st.none() | _score, st.none() | st.integers(1, 3), _score),
        max_size=20,
        unique_by=lambda t: t[0],
    ),
)
def test_keyword_and_entity_statements_apart_give_the_candidates_of_one_text_statement(
    vector: list[tuple[int, float]], text: list[tuple[int, float | None, int | None, float]]
) -> None:
    """The search runs the keyword statement apart from the vector + entity ones (it needs no
    embedding): the same memories with the same signals and ranks as the one text statement gave."""
    text = [t for t in text if t[1] is not None or t[2] is not None]
    vector_rows = [_row(i, s, None, None) for i, s in vector]
    for r in vector_rows:
        del r["keyword_score"], r["entity_matches"], r["entity_distance"]
    keyword_rows = [_row(i, None, k, None) for i, k, _, _ in text if k is not None]
    for r in keyword_rows:
        del r["similarity"], r["entity_matches"], r["entity_distance"]
    entity_rows = [_row(i, None, None, m) | {"entity_distance": d} for i, _, m, d in text if m is not None]
    for r in entity_rows:
        del r["similarity"], r["keyword_score"]
    text_rows = [
        _row(i, None, k, m) | {"entity_distance": d if m is not None else None} for i, k, m, d in text
    ]
    for r in text_rows:
        del r["similarity"]
    expected = {c.memory.id: c for c in _reference(vector_rows, text_rows)}
    built = _ranked(
        _merged(
            _statement(vector_rows, VECTOR_SIGNALS),
            _statement(keyword_rows, KEYWORD_SIGNALS),
            _statement(entity_rows, ENTITY_SIGNALS),
        )
    )
    assert len(built) == len(expected)
    assert {c.memory.id: c.model_dump() for c in built} == {i: c.model_dump() for i, c in expected.items()}


def test_a_pool_ranks_as_its_candidates_and_builds_only_the_candidates_read() -> None:
    """Scoring reads the store's columns: the same scores and order as scoring the candidate models
    (``test_ranking_features_fast`` checks those against the plain definition); a model is built for a
    place of the ranking only when it is read (a search reads its top_k)."""
    rows = [
        _row(i, 0.9 - i / 50 if i % 3 else None, 0.5 - i / 70 if i % 2 else None, i % 4 or None)
        for i in range(24)
    ]
    request = SearchRequest(text="turn 7 of the conversation", top_k=3, now=WHEN)
    for policy in (RankingPolicy(learned=load_ranker()), RankingPolicy()):
        pool = _ranked(_pool(rows))
        built: list[int] = []

        def build(i: int, pool: CandidatePool = pool, built: list[int] = built) -> Candidate:
            built.append(i)
            return pool[i]

        scored = score_candidates(
            CandidatePool(pool.columns, build), policy=policy, now=WHEN, request=request
        )
        top = scored[:3]
        assert len(built) == 3
        assert len(scored) == len(rows)
        models = list(_ranked(_pool(rows)))
        plain = score_candidates(models, policy=policy, now=WHEN, request=request)
        assert [tuple(s) for s in scored] == [tuple(s) for s in plain]
        assert top == list(scored)[:3]
        assert scored[-1] is list(scored)[-1]
