"""CPU of a search's injection labels (``ranking.flags_for`` on its 10 hits), computed at read (rows
written before migration 027, or by a path that stores none) against stored at write, same run,
interleaved search by search.

    python bench/inject_labels_cpu.py [--searches 100] [--corpus 100000]

The hits are ``bench/latency.py``'s corpus (``synthetic.memories``, seed 7: the texts, metadata and
entities the latency tiers hold), 10 drawn per search from the first ``--corpus`` rows (seed 11). Each
memory is built twice as a read returns it: without stored labels, and with the labels a write stores
(``adapters.postgres.injection_labels.injection_params``). Per search, thread CPU of ``flags_for`` on its
10 hits, A (computed) then B (stored), alternating which goes first; the detector's cache is cleared
before every A (a new query's hits are mostly new texts; the "cold" figure of h-newq2's probe). Checks
that both give the same labels for every memory of the corpus sample. No database, no embedder.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "shared"), str(Path(__file__).resolve().parent)]

import synthetic  # noqa: E402

from hindsight.adapters.postgres.injection_labels import injection_params, jsonb_ordered  # noqa: E402
from hindsight.domain import injection  # noqa: E402
from hindsight.domain.memory import StoredMemory  # noqa: E402
from hindsight.domain.ranking import RankingPolicy, flags_for  # noqa: E402

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def _memory(m: synthetic.SyntheticMemory, stored: bool) -> StoredMemory:
    fields = {
        "id": uuid.uuid4(), "tenant_id": "t", "agent_id": "a", "layer": m.layer, "key": m.key, "query": None,
        "content": m.content, "importance": m.importance, "access_count": 0, "last_accessed_at": None,
        "created_at": m.occurred_at, "occurred_at": m.occurred_at, "metadata": jsonb_ordered(m.metadata),
        "entities": jsonb_ordered(m.entities), "status": "active", "tags": m.tags,
    }  # fmt: skip
    if stored:
        fields |= injection_params(m.content, m.key, None, None, None, (), m.metadata, m.entities)
    return StoredMemory.model_validate(fields)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--searches", type=int, default=100)
    parser.add_argument("--corpus", type=int, default=100_000)
    args = parser.parse_args()
    corpus = synthetic.memories(args.corpus, seed=7)
    r = random.Random(11)
    searches = [[corpus[i] for i in r.sample(range(len(corpus)), 10)] for _ in range(args.searches)]
    a_hits = [[_memory(m, stored=False) for m in s] for s in searches]
    b_hits = [[_memory(m, stored=True) for m in s] for s in searches]
    policy = RankingPolicy()
    same = sum(
        flags_for(a, NOW, policy) == flags_for(b, NOW, policy)
        for sa, sb in zip(a_hits, b_hits, strict=True)
        for a, b in zip(sa, sb, strict=True)
    )
    cpu: dict[str, list[float]] = {"computed": [], "stored": []}
    for n, (sa, sb) in enumerate(zip(a_hits, b_hits, strict=True)):
        order = [("computed", sa), ("stored", sb)]
        for label, hits in order if n % 2 == 0 else order[::-1]:
            injection.injection_signals.cache_clear()
            t = time.thread_time()
            for m in hits:
                flags_for(m, NOW, policy)
            cpu[label].append((time.thread_time() - t) * 1000)
    print(f"labels identical for {same} of {10 * len(searches)} hits")
    for label, values in cpu.items():
        q = statistics.quantiles(values, n=100)
        print(
            f"{label}: flags_for of 10 hits, thread CPU ms per search: p50 {statistics.median(values):.3f} "
            f"p90 {q[89]:.3f} mean {statistics.fmean(values):.3f}"
        )


if __name__ == "__main__":
    main()
