"""The search helpers declare the rows they return (migration 023, issue 15), so the planner joins their
ids back to ``memories`` by primary key instead of hashing the whole visible scope of a small store."""

from __future__ import annotations

import psycopg
import pytest

from hindsight.local.stack import LocalStack

pytestmark = pytest.mark.integration


def test_the_search_helpers_declare_their_row_counts(stack: LocalStack) -> None:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = dict(
            conn.execute(
                """SELECT proname, prorows FROM pg_proc
                   WHERE proname IN ('hindsight_text_matches', 'hindsight_entity_matches',
                                     'hindsight_keyword_queries')"""
            ).fetchall()
        )
    # at most the candidate pool (100 by default) without a narrowing filter; exactly one row of queries
    assert rows == {
        "hindsight_text_matches": 100,
        "hindsight_entity_matches": 100,
        "hindsight_keyword_queries": 1,
    }


def test_the_entity_helper_counts_the_distinct_terms_a_memory_shares(stack: LocalStack) -> None:
    """Migration 026 counts a memory's matching terms with ``= ANY`` instead of a per-row INTERSECT: the
    same number, the distinct values both lists hold, whatever repeats either holds."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        matches = conn.execute(
            """SELECT (SELECT count(*) FROM unnest((SELECT array_agg(DISTINCT u) FROM unnest(q) AS u)) AS t
                       WHERE t = ANY(m)),
                      cardinality(ARRAY(SELECT unnest(m) INTERSECT SELECT unnest(q)))
               FROM (VALUES (ARRAY['a', 'b', 'b', 'c'], ARRAY['b', 'b', 'c', 'x']),
                            (ARRAY['a'], ARRAY['b']), (ARRAY['a', 'a'], ARRAY['a', 'a', 'a']))
                    AS v(m, q)"""
        ).fetchall()
        body = conn.execute(
            "SELECT prosrc FROM pg_proc WHERE proname = 'hindsight_entity_matches'"
        ).fetchone()
    assert matches == [(2, 2), (0, 0), (1, 1)]
    assert body is not None
    assert "INTERSECT" not in body[0]
    assert "array_agg(DISTINCT u)" in body[0]
