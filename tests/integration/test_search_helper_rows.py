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
