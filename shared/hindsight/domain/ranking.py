"""Fusion and re-weighting of retrieval signals.

Reciprocal rank fusion: Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet
and individual Rank Learning Methods", SIGIR 2009 — score(d) = Σ_signals 1 / (k + rank_s(d)), k = 60.
The final blend ``w·relevance + (1 − w)·importance`` with w = 0.7 is the weighting the seed documents
quote for memory recall (see ../shared/SPEC.md, "Retrieval").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hindsight.domain.memory import Candidate, Scores, SearchHit


def reciprocal_rank_fusion(ranks: Iterable[int | None], k: int) -> float:
    """Σ 1/(k + rank) over the signals that ranked the item (rank 1 = best; None = not returned).

    Raises:
        ValueError: if k < 1 or a rank < 1.
    """
    if k < 1:
        raise ValueError("k must be ≥ 1")
    total = 0.0
    for rank in ranks:
        if rank is None:
            continue
        if rank < 1:
            raise ValueError("ranks start at 1")
        total += 1.0 / (k + rank)
    return total


def rank_candidates(
    candidates: Sequence[Candidate],
    *,
    k: int,
    relevance_weight: float,
    signals: int = 2,
    top_k: int,
) -> list[SearchHit]:
    """Fuse each candidate's signal ranks with RRF, blend with importance and return the best ``top_k``.

    ``relevance`` is RRF divided by the best possible fused score (rank 1 under all ``signals``), so it
    lies in 0–1 and is comparable with importance. Ties are broken by vector similarity, then id, so
    the order is deterministic.
    """
    best_possible = signals / (k + 1)
    hits: list[SearchHit] = []
    for cand in candidates:
        rrf = reciprocal_rank_fusion((cand.vector_rank, cand.keyword_rank), k)
        relevance = rrf / best_possible
        importance = cand.memory.importance
        final = relevance_weight * relevance + (1.0 - relevance_weight) * importance
        hits.append(
            SearchHit(
                memory=cand.memory,
                scores=Scores(
                    vector=cand.vector_similarity,
                    keyword=cand.keyword_score,
                    rrf=rrf,
                    relevance=relevance,
                    importance=importance,
                    final=final,
                ),
            )
        )
    hits.sort(key=lambda h: (-h.scores.final, -(h.scores.vector or 0.0), str(h.memory.id)))
    return hits[:top_k]
