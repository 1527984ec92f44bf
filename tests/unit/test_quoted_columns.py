"""The column lists every memory read composes (``rows.quoted_columns``) are the very SQL text
``sql.Identifier`` would give, so statements (and their prepared forms) do not change; the access
counters are their ``memory_access`` lookups (migration 018) under the fields' names."""

from __future__ import annotations

import pytest
from psycopg import sql

from hindsight.adapters.postgres.memory_reads import _CANDIDATE_FIELDS, CANDIDATE_COLUMNS
from hindsight.adapters.postgres.rows import _FIELDS, ACCESS_FIELDS, MEMORY_COLUMNS, quoted_columns


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
