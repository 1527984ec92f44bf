"""``bench/run.py latency --keep-stack``: a kept stack holding the tier asked for is reused (no load, the
searches' access counters reset), any other tier — or a load cut short, or an index rebuilt — is loaded
again. A small tier (50 memories beside 10 of other tenants) on a stack of its own: a load truncates
``memories`` and rebuilds its indexes, which the session's shared stack must not see."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest

from hindsight.local.stack import LocalStack

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import latency
import synthetic

pytestmark = pytest.mark.integration

SIZE, OTHERS = 50, 10


def _dataset(seed: int) -> latency.Dataset:
    rows = latency.BASE_SIZE + OTHERS
    memories = synthetic.memories(SIZE, seed=7)
    # rows between the tier and the background are never loaded: any memory will do
    memories += [memories[0]] * (latency.BASE_SIZE - SIZE) + synthetic.memories(OTHERS, seed=8)
    vectors = np.random.default_rng(seed).standard_normal((rows, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return latency.Dataset(memories, vectors, [], [], vectors[:1], {})


def _count(url: str, table: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    assert row is not None
    return int(row[0])


@pytest.fixture(autouse=True)
def small_background(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(latency, "OTHER_ROWS", OTHERS)
    monkeypatch.setattr(latency, "BACKGROUND_ROWS", range(latency.BASE_SIZE, latency.BASE_SIZE + OTHERS))


def test_a_kept_tier_is_reused_and_anything_else_is_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[int] = []
    real_load = latency.load_tier

    def counting_load(url: str, data: Any, size: int) -> dict[str, Any]:
        loads.append(size)
        return real_load(url, data, size)

    monkeypatch.setattr(latency, "load_tier", counting_load)
    folder = tmp_path / "kept"
    data = _dataset(1)
    with LocalStack(folder, embedder="hash") as stack:
        url = stack.require_settings().require_database_url()
        first = latency.load_or_reuse(url, data, SIZE, folder)
        assert loads == [SIZE]
        assert "reused_stack" not in first
        assert _count(url, "memories") == SIZE + OTHERS
        with psycopg.connect(url, autocommit=True) as conn:  # a search's access bump
            conn.execute(
                "INSERT INTO memory_access (memory_id, tenant_id, access_count, last_accessed_at) "
                "VALUES (%s, %s, 1, %s)",
                (latency.row_id(0), latency.TENANT, datetime.now(UTC)),
            )
    # the next run: a new process, the same folder
    with LocalStack(folder, embedder="hash") as stack:
        url = stack.require_settings().require_database_url()
        again = latency.load_or_reuse(url, data, SIZE, folder)
        assert loads == [SIZE], "the kept tier was loaded again"
        assert again["reused_stack"]["folder"] == str(folder)
        assert again["copy_s"] == first["copy_s"]  # the load's own figures, from the mark
        assert _count(url, "memory_access") == 0, "the searches' counters were kept"
        # other vectors (another generator or seed): another tier
        latency.load_or_reuse(url, _dataset(2), SIZE, folder)
        assert loads == [SIZE, SIZE]
        # an index rebuilt by hnsw_sweep --builds: forgotten, loaded again
        latency.forget_kept_tier(folder)
        latency.load_or_reuse(url, _dataset(2), SIZE, folder)
        assert loads == [SIZE, SIZE, SIZE]
        # rows changed under the mark (a run that wrote memories): loaded again
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("DELETE FROM memories WHERE id = %s", (latency.row_id(1),))
        latency.load_or_reuse(url, _dataset(2), SIZE, folder)
        assert loads == [SIZE, SIZE, SIZE, SIZE]
        assert _count(url, "memories") == SIZE + OTHERS


def test_the_fingerprint_follows_the_data_and_the_size() -> None:
    data = _dataset(1)
    base = latency.tier_fingerprint(data, SIZE)
    assert latency.tier_fingerprint(data, SIZE) == base
    assert latency.tier_fingerprint(data, SIZE - 1) != base
    assert latency.tier_fingerprint(_dataset(2), SIZE) != base
