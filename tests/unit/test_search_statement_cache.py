"""The search statements a reader keeps between searches (``memory_reads._search_statements``,
``PostgresMemoryReader._vector_statement`` and ``_literal``) and the query prepared once per text
(``ranking_features._query``): each must give the text composing it anew gives, and a kept one must never
be served for other values (another tenant, agent, status, filter or embedding)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from psycopg import sql

from hindsight.adapters.postgres import memory_reads
from hindsight.adapters.postgres.memory_reads import (
    STATEMENTS_CACHED,
    PostgresMemoryReader,
    _filters,
    _search_statements,
    _with_values,
)
from hindsight.adapters.postgres.rows import vector_literal
from hindsight.domain.memory import Scope
from hindsight.domain.ranking_features import _Query, _query
from hindsight.usecases.recall import RecallQuery, resolve

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _reader() -> PostgresMemoryReader:
    return PostgresMemoryReader(None)  # type: ignore[arg-type]  # no statement is run


def _vector(reader: PostgresMemoryReader, scope: Scope, **query: Any) -> str:
    """The vector statement's text the reader sends for ``query`` in ``scope``, and checks it against the
    text composed anew (``_with_values`` of the template, as before the statements were kept)."""
    request = resolve(RecallQuery(text="where did we camp", top_k=10, **query), NOW)
    where, params = _filters(scope, request)
    params |= {"pool": 100}
    clause = where.as_string(None)
    _, _, template, names = _search_statements(clause)
    text = reader._vector_statement(clause, template, names, params).as_string(None)
    assert text == _with_values(template, params).as_string(None)
    return text


def test_a_kept_vector_statement_is_the_composed_one_and_only_for_its_values() -> None:
    reader = _reader()
    a = Scope(tenant_id="t1", agent_id="a1")
    first = _vector(reader, a)
    assert _vector(reader, a) == first
    assert len(reader._vector_texts) == 1  # kept, not composed again
    others = {
        _vector(reader, Scope(tenant_id="t2", agent_id="a1")),
        _vector(reader, Scope(tenant_id="t1", agent_id="a2")),
        _vector(reader, a, tags=["x"]),
        _vector(reader, a, tags=["y"]),
        _vector(reader, a, statuses=["active", "superseded"]),
        _vector(reader, a, layers=["semantic"]),
    }
    assert len(others) == 6
    assert first not in others
    assert "'t2'" in _vector(reader, Scope(tenant_id="t2", agent_id="a1"))


@pytest.mark.parametrize("tag", ["a\\b", 'say "hi"', "50%"])
def test_values_written_differently_with_a_connection_are_not_kept(tag: str) -> None:
    reader = _reader()
    scope = Scope(tenant_id="t1", agent_id="a1")
    request = resolve(RecallQuery(text="q", top_k=10, tags=[tag]), NOW)
    where, params = _filters(scope, request)
    params |= {"pool": 100}
    clause = where.as_string(None)
    _, _, template, names = _search_statements(clause)
    statement = reader._vector_statement(clause, template, names, params)
    kept = "%" in tag  # a % is doubled whatever the connection: kept
    assert len(reader._vector_texts) == (1 if kept else 0)
    assert isinstance(statement, sql.SQL) == kept
    assert statement.as_string(None) == _with_values(template, params).as_string(None)


def test_the_keyword_and_entity_texts_are_their_composed_statements() -> None:
    scope = Scope(tenant_id="t1", agent_id="a1")
    where, _ = _filters(scope, resolve(RecallQuery(text="q", top_k=10, min_importance=0.5), NOW))
    keyword, entity, template, names = _search_statements(where.as_string(None))
    for text in (keyword.as_string(None), entity.as_string(None), template.as_string(None)):
        assert "importance >= %(min_importance)s" in text
        assert "{" not in text.replace("'{", "")
    assert "hindsight_keyword_queries" in keyword.as_string(None)
    assert "hindsight_entity_matches" in entity.as_string(None)
    assert "embedding" not in names
    assert {"tenant", "agent", "readers", "statuses", "pool"} <= names


def test_a_kept_literal_is_the_embeddings_own_and_the_cache_is_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader = _reader()
    vector = [0.1, -0.25, 1e-9, 0.0]
    assert reader._literal(vector) == vector_literal(vector)
    assert reader._literal(list(vector)) == vector_literal(vector)
    assert len(reader._literals) == 1
    negative_zero = [0.1, -0.25, 1e-9, -0.0]  # equal to vector in Python, written "-0"
    assert reader._literal(negative_zero) == vector_literal(negative_zero) != vector_literal(vector)
    monkeypatch.setattr(memory_reads, "STATEMENTS_CACHED", 3)
    for i in range(10):
        assert reader._literal([float(i)]) == vector_literal([float(i)])
    assert len(reader._literals) == 3
    assert STATEMENTS_CACHED >= 1


def test_a_querys_preparation_is_shared_and_cannot_be_changed() -> None:
    prepared = _query("Where did Caroline go camping last summer?")
    assert _query("Where did Caroline go camping last summer?") is prepared
    fresh = _Query("Where did Caroline go camping last summer?")
    assert (prepared.words, prepared.stems, prepared.stem_of) == (fresh.words, fresh.stems, fresh.stem_of)
    assert isinstance(prepared.words, frozenset)
    assert isinstance(prepared.stems, frozenset)
