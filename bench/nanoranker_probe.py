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


def score(top_n: int = 30) -> None:
    from nanoranker import rank

    rows: list[dict[str, Any]] = json.loads(EXPORT.read_text())
    figures: dict[str, dict[str, list[float]]] = {}
    seconds = []
    for row in rows:
        if row["category"] == 5:
            continue
        labels = [label for label, _ in row["top"]]
        docs = [text for _, text in row["top"][:top_n]]
        started = time.perf_counter()
        ranked = rank(row["query"], docs, top_n=len(docs))
        seconds.append(time.perf_counter() - started)
        order = [docs.index(r["document"] if isinstance(r, dict) else r[0]) for r in ranked]
        reranked = [labels[i] for i in order] + labels[top_n:]
        for part in (row["split"], "all"):
            bucket = figures.setdefault(part, {"r5": [], "r10": [], "b5": [], "b10": []})
            bucket["r5"].append(_recall(reranked, row["evidence"], 5))
            bucket["r10"].append(_recall(reranked, row["evidence"], 10))
            bucket["b5"].append(_recall(labels, row["evidence"], 5))
            bucket["b10"].append(_recall(labels, row["evidence"], 10))
    for part, b in figures.items():
        n = len(b["r5"])
        print(
            f"{part:>8} ({n} q): shipped R@5 {sum(b['b5']) / n:.3f} R@10 {sum(b['b10']) / n:.3f} | "
            f"+ nanoranker top {top_n}: R@5 {sum(b['r5']) / n:.3f} R@10 {sum(b['r10']) / n:.3f}"
        )
    seconds.sort()
    print(f"nanoranker per query ({top_n} documents): p50 {seconds[len(seconds) // 2] * 1000:.0f} ms")


if __name__ == "__main__":
    if sys.argv[1:2] == ["export"]:
        export()
    else:
        score()
