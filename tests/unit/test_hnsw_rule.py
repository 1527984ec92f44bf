"""The search breadth's size rule (adapters/postgres/hnsw.py, issue 15): 200 up to 110k rows, then the square
root of the rows, at most pgvector's 1000; the SQL spelling is checked against a database in
tests/integration/test_hnsw_settings.py."""

from __future__ import annotations

import pytest

from hindsight.adapters.postgres.hnsw import EF_SEARCH_MAX, EF_SEARCH_MIN, ef_search_for


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
