"""The search breadth's size rule (adapters/postgres/hnsw.py, issue 15): 200 up to 110k rows, then the square
root of the rows, at most pgvector's 1000; the SQL spelling is checked against a database in
tests/integration/test_hnsw_settings.py. The setting's description and the README say the rule and the
build options hnsw.py has."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight.adapters.postgres.hnsw import (
    EF_SEARCH_MAX,
    EF_SEARCH_MIN,
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    ROWS_AT_MIN,
    ef_search_for,
)
from hindsight.config import Settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("rows", "expected"),
    [(-1, 200), (0, 200), (110_000, 200), (220_000, 283), (310_000, 336), (1_010_000, 607), (10**8, 1000)],
)
def test_the_breadth_grows_with_the_square_root_of_the_rows(rows: float, expected: int) -> None:
    assert ef_search_for(rows) == expected


def test_the_breadth_never_shrinks_as_the_store_grows() -> None:
    sizes = range(0, 3_000_000, 7_919)
    breadths = [ef_search_for(r) for r in sizes]
    assert breadths == sorted(breadths)
    assert breadths[0] == EF_SEARCH_MIN
    assert breadths[-1] == EF_SEARCH_MAX


def test_the_settings_description_says_the_rule_of_hnsw_py() -> None:
    description = Settings.model_fields["hnsw_ef_search"].description or ""
    assert f"{EF_SEARCH_MIN} up to {ROWS_AT_MIN // 1000}k memories in the store" in description
    assert f"then {EF_SEARCH_MIN} × √(memories / {ROWS_AT_MIN // 1000}k)" in description
    assert f"at most {EF_SEARCH_MAX}" in description
    assert "adapters/postgres/hnsw.py" in description


def test_the_readme_names_the_build_options_of_hnsw_py() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"HNSW cosine (m {HNSW_M}, ef_construction {HNSW_EF_CONSTRUCTION})" in readme
