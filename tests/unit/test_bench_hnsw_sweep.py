"""bench/hnsw_sweep.py's arithmetic: the exact neighbours recall is counted against, the tie-aware
count, and the generator knob the clustering question varies."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import hnsw_sweep
import report
import synthetic


def _unit(rows: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((rows, 16)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_exact_top_is_brute_force_across_chunks() -> None:
    vectors, queries = _unit(250_000, 1), _unit(3, 2)  # more rows than one 100k chunk
    rows, dist = hnsw_sweep.exact_top(queries, vectors, k=5)
    brute = 1 - queries.astype(np.float64) @ vectors.astype(np.float64).T
    assert np.array_equal(rows, np.argsort(brute, axis=1)[:, :5])
    assert np.allclose(dist, np.sort(brute, axis=1)[:, :5])


def test_recall_counts_the_closest_returned_and_ties_at_the_tenth() -> None:
    truth = set(range(10))
    distance = {i: 0.1 + i / 1000 for i in range(12)}
    distance[10] = distance[9]  # row 10 ties the exact 10th
    # returned out of order (a relaxed-order scan): row 9 comes after two rows outside the top 10
    got = [(i, distance[i]) for i in (*range(9), 10, 11, 9)]
    closest, first, tie_aware = hnsw_sweep._recall(got, truth, distance[9], distance.__getitem__)
    assert closest == 0.9  # rows 0-8 and the tie (10) are the 10 closest returned; 9 is tied out
    assert first == 0.9  # rows 0-8, then 10
    assert tie_aware == 1.0  # row 10 is as close as the exact 10th


def test_gaps_find_a_tie_at_the_tenth() -> None:
    dist = np.tile(np.arange(20, dtype=np.float64) / 100, (3, 1))
    dist[1, 10] = dist[1, 9] + hnsw_sweep.TIE_EPS / 2
    g = hnsw_sweep.gaps(dist)
    assert g["queries_with_a_tie_at_10th"] == 1
    assert np.isclose(g["gap_10_11"][50], 0.01)


def test_perturbed_bases_draw_from_the_first_rows_only() -> None:
    real = _unit(50, 3)
    out = synthetic.perturbed(real, 400, seed=4, scale=0.01, bases=5)
    nearest = np.argmax(out @ real.T, axis=1)
    assert set(nearest.tolist()) <= set(range(5))
    assert np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-5)
    # without the knob the draws (and so the benchmark's data) are as before
    assert np.array_equal(
        synthetic.perturbed(real, 40, seed=4), synthetic.perturbed(real, 40, seed=4, bases=None)
    )


def _sweep_run(
    ef_search: str, recall: float, blocks: int, sweep: Any, tie_aware: float | None = None
) -> dict[str, Any]:
    """A 100k ``hnsw_sweep`` result as bench/hnsw_sweep.py records it; ``sweep(row)`` lays out its
    index definitions around the one measured row."""
    row = {
        "hnsw.iterative_scan": "relaxed_order",
        "hnsw.ef_search": ef_search,
        "hnsw.max_scan_tuples": "20000",
        "recall_at_10": recall,
        "recall_tie_aware": recall if tie_aware is None else tie_aware,
        "probe_ms": {"p50": 5.5},
        "index_blocks_p50": blocks,
        "load_1m": [1.0, 1.2],
    }
    return {
        "size": 100_000,
        "searches": 200,
        "command": "python bench/hnsw_sweep.py --size 100000",
        "gaps": {"gap_10_11": {"5": 3e-5, "50": 4e-4}, "d10_p50": 0.119, "queries_with_a_tie_at_10th": 8},
        "sweep": sweep(row),
    }


def test_report_lists_every_setting_of_a_sweep() -> None:
    run = _sweep_run(
        "400",
        0.983,
        2906,
        lambda row: {"m16_efc64": [row], "m16_efc128": {"build": {"build_s": 142.4}, "sweep": [row]}},
        tie_aware=0.9835,
    )
    out: list[str] = []
    report._hnsw_sweep({"hnsw_sweep": {"100000": run}}, out)
    lines = [line for line in out if line.startswith("| 100,000 |")]
    assert len(lines) == 2
    assert "m16_efc128 (built 142.4 s)" in lines[1]
    assert "**0.983**" in lines[0]
    assert "2906" in lines[0]


def test_report_takes_the_first_sweep_as_the_migrated_index() -> None:
    # since migration 015 the index as migrated is ef_construction 128; 64 is the rebuilt one
    run = _sweep_run(
        "110",
        0.985,
        2028,
        lambda row: {"m16_efc128": [row], "m16_efc64": {"build": {"build_s": 90.0}, "sweep": [row]}},
    )
    out: list[str] = []
    report._hnsw_sweep({"hnsw_sweep": {"100000": run}}, out)
    lines = [line for line in out if line.startswith("| 100,000 |")]
    assert lines[0].startswith("| 100,000 | m16_efc128 | relaxed_order | 110 |")
    assert "m16_efc64 (built 90.0 s)" in lines[1]


def test_limits_are_statement_parameters_not_settings() -> None:
    """``--limits``: each LIMIT a config of its own, passed to the probe as ``pool``, never as a GUC."""
    configs = hnsw_sweep._configs(["relaxed_order", "off"], [1000], [20_000], [100, 1000])
    assert [c.get("pool") for c in configs] == ["100", "1000", "100", "1000"]
    assert hnsw_sweep._configs(["relaxed_order"], [1000], [20_000]) == [
        {"hnsw.iterative_scan": "relaxed_order", "hnsw.ef_search": "1000", "hnsw.max_scan_tuples": "20000"}
    ]
