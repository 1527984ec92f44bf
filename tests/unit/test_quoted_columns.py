"""The column lists every memory read composes (``rows.quoted_columns``) are the very SQL text
``sql.Identifier`` would give, so statements (and their prepared forms) do not change; the access
counters are their ``memory_access`` lookups (migration 018) under the fields' names."""

from __future__ import annotations

import pytest
from psycopg import sql

from hindsight.adapters.postgres.memory_reads import (
    _CANDIDATE_COLUMNS_UNALIASED,
    _CANDIDATE_FIELDS,
    CANDIDATE_COLUMNS,
)
from hindsight.adapters.postgres.rows import (
    _FIELDS,
    ACCESS_FIELDS,
    MEMORY_COLUMNS,
    access_fields,
    memory_columns,
    quoted_columns,
)


@pytest.mark.parametrize(
    ("columns", "fields"), [(MEMORY_COLUMNS, _FIELDS), (CANDIDATE_COLUMNS, _CANDIDATE_FIELDS)]
)
def test_the_column_lists_are_what_identifiers_compose_to(columns: sql.SQL, fields: list[str]) -> None:
    composed = sql.SQL(", ").join(
        sql.SQL(ACCESS_FIELDS[f]) + sql.SQL(" AS ") + sql.Identifier(f)  # type: ignore[arg-type]
        if f in ACCESS_FIELDS
        else sql.Identifier("m", f)
        for f in fields
    )
    assert "access_count" in fields  # both lists read it
    assert columns.as_bytes(None) == composed.as_bytes(None)


@pytest.mark.parametrize("name", ['na"me', "Name", "1st", "a b", ""])
def test_a_name_that_needs_escaping_is_refused(name: str) -> None:
    with pytest.raises(ValueError, match="plain lower-case identifier"):
        quoted_columns("m", ["id", name])


def test_the_columns_of_the_unaliased_table_are_those_of_m_renamed() -> None:
    """The keyword and entity statements read the candidate columns from the row their filters name
    ``memories`` (one join, issue 15): the same expressions, of that table."""
    unaliased = _CANDIDATE_COLUMNS_UNALIASED.as_string(None)
    assert '"m".' not in unaliased
    assert "m.id" not in unaliased
    renamed = CANDIDATE_COLUMNS.as_string(None).replace('"m".', '"memories".').replace("m.id", "memories.id")
    assert unaliased == renamed
    assert access_fields("memories")["access_count"] == ACCESS_FIELDS["access_count"].replace(
        "m.id", "memories.id"
    )


@pytest.mark.parametrize("alias", ['m"', "M", "m n", ""])
def test_an_alias_that_needs_escaping_is_refused(alias: str) -> None:
    with pytest.raises(ValueError, match="plain lower-case identifier"):
        memory_columns(["id"], alias=alias)
