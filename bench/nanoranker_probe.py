"""Does ``nanoranker`` (PyPI 1.2, MIT: the one offline "reranker" whose weights ship inside a wheel) help as
a second stage? Measured honestly, in two steps and two virtualenvs (the project does not depend on it):

    python bench/nanoranker_probe.py export   # project venv: the shipped ranking's top 30 per question
    python3 -m venv /tmp/nr && /tmp/nr/bin/pip install numpy onnxruntime onnxruntime_extensions \\
        && /tmp/nr/bin/pip install --no-deps nanoranker==1.2
    /tmp/nr/bin/python bench/nanoranker_probe.py score  # rerank the top N with nanoranker, recall per split

nanoranker is not a cross-encoder: it embeds query and document separately (Universal Sentence Encoder
multilingual, ONNX, plus 64 hashed character n-grams) and an MLP scores the pair of embeddings.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXPORT = ROOT / "var" / "bench-cache" / "nanoranker-top30.json"
TOP = 30


def export() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pools import load_pools
    from train_ranker import request_for

    from hindsight.domain.learned_ranker import load_ranker
    from hindsight.domain.ranking import RankingPolicy, rank_candidates

    pools = load_pools()
    policy = RankingPolicy(learned=load_ranker())
    rows = []
    for q in pools.questions:
        request = request_for(q)
        hits = rank_candidates(
            q.pool, policy=policy, now=q.asked_at, top_k=TOP, intent=request.time_intent, request=request
        )
        rows.append(
            {
                "split": q.split,
                "category": q.category,
                "evidence": list(q.evidence),
                "query": q.text,
                "top": [[pools.label(h.memory), h.memory.content] for h in hits],
            }
        )
    EXPORT.write_text(json.dumps(rows))
    print(f"{len(rows)} questions → {EXPORT}")


def _recall(labels: list[str], evidence: list[str], k: int) -> float:
    return sum(1 for e in evidence if e in labels[:k]) / len(evidence)


SCORES = ROOT / "var" / "bench-cache" / "nanoranker-scores.json"
WEIGHTS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
"""Fusion weights tried on tune: final = 1 / (60 + shipped rank) * 60 + w * nanoranker score."""


def _scores(rows: list[dict[str, Any]], top_n: int) -> tuple[list[list[float]], list[float]]:
    """nanoranker's score of each of the top ``top_n`` documents per question (cached in SCORES)."""
    from nanoranker import rank

    if SCORES.exists():
        cached = json.loads(SCORES.read_text())
        if cached["top_n"] == top_n and len(cached["scores"]) == len(rows):
            return cached["scores"], cached["seconds"]
    scores, seconds = [], []
    for row in rows:
        docs = [text for _, text in row["top"][:top_n]]
        started = time.perf_counter()
        ranked = rank(row["query"], docs, top_n=len(docs))
        seconds.append(time.perf_counter() - started)
        by_doc = {doc: float(value) for doc, value in ranked}
        scores.append([by_doc[d] for d in docs])
    SCORES.write_text(json.dumps({"top_n": top_n, "scores": scores, "seconds": seconds}))
    return scores, seconds


def _fused(labels: list[str], nano: list[float], weight: float | None) -> list[str]:
    """``weight`` None: nanoranker alone over its top N; else shipped rank fused with its score."""
    n = len(nano)
    if weight is None:
        order = sorted(range(n), key=lambda i: -nano[i])
    else:
        order = sorted(range(n), key=lambda i: -(60 / (60 + i + 1) + weight * nano[i]))
    return [labels[i] for i in order] + labels[n:]


def score(top_n: int = 30) -> None:
    """Recall per split of the shipped ranking, nanoranker alone over its top N, and the fusion whose
    weight is chosen on tune (R@10) and then read on validate; categories 1-4."""
    rows = [r for r in json.loads(EXPORT.read_text()) if r["category"] != 5]
    scores, seconds = _scores(rows, top_n)

    def board(weight: float | None, variant: str) -> dict[str, tuple[float, float, int]]:
        parts: dict[str, list[tuple[float, float]]] = {}
        for row, nano in zip(rows, scores, strict=True):
            labels = [label for label, _ in row["top"]]
            ranked = labels if variant == "shipped" else _fused(labels, nano, weight)
            pair = (_recall(ranked, row["evidence"], 5), _recall(ranked, row["evidence"], 10))
            for part in (row["split"], "all"):
                parts.setdefault(part, []).append(pair)
        return {
            p: (sum(a for a, _ in v) / len(v), sum(b for _, b in v) / len(v), len(v))
            for p, v in parts.items()
        }

    shipped = board(None, "shipped")
    alone = board(None, "alone")
    fused = {w: board(w, "fused") for w in WEIGHTS}
    best = max(WEIGHTS, key=lambda w: fused[w]["tune"][1])
    for name, b in (
        ("shipped", shipped),
        (f"nanoranker alone, top {top_n}", alone),
        (f"fused w={best}", fused[best]),
    ):
        print(
            name
            + ": "
            + "; ".join(
                f"{p} ({b[p][2]} q) R@5 {b[p][0]:.3f} R@10 {b[p][1]:.3f}" for p in ("validate", "tune", "all")
            )
        )
    print("tune R@10 by weight: " + ", ".join(f"{w}: {fused[w]['tune'][1]:.3f}" for w in WEIGHTS))
    seconds.sort()
    print(f"nanoranker per query ({top_n} documents): p50 {seconds[len(seconds) // 2] * 1000:.0f} ms")


if __name__ == "__main__":
    if sys.argv[1:2] == ["export"]:
        export()
    else:
        score()
