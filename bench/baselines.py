"""Baseline rankers over the rows Hindsight stored (same text, same vectors), for side-by-side tables.

* ``VectorIndex``: exact cosine top-k over the stored embeddings with numpy (the same vectors pgvector
  holds; exact, so the baseline is not handicapped by approximate search).
* ``Bm25Index``: Okapi BM25 over the stored contents with ``bm25s`` (Lù, 2024), English stop words,
  default k1 = 1.5, b = 0.75.
* ``rrf``: reciprocal rank fusion of the two (Cormack et al., 2009, k = 60): the textbook hybrid.
"""

from __future__ import annotations

from collections.abc import Sequence

import bm25s
import numpy as np


class VectorIndex:
    def __init__(self, labels: Sequence[str], vectors: np.ndarray) -> None:
        self.labels = list(labels)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        self.vectors = (vectors / np.where(norms == 0, 1, norms)).astype(np.float32)

    def search(self, query: Sequence[float], k: int) -> list[str]:
        q = np.asarray(query, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        sims = self.vectors @ q
        order = np.argsort(-sims, kind="stable")[:k]
        return [self.labels[i] for i in order]


class Bm25Index:
    def __init__(self, labels: Sequence[str], texts: Sequence[str]) -> None:
        self.labels = list(labels)
        self.retriever = bm25s.BM25()
        self.retriever.index(
            bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False
        )

    def search(self, query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:  # a query made of stop words only
            return []
        k = min(k, len(self.labels))
        docs, scores = self.retriever.retrieve(tokens, k=k, show_progress=False)
        return [self.labels[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


def rrf(rankings: Sequence[Sequence[str]], k: int = 60, top: int = 25) -> list[str]:
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, label in enumerate(ranking, start=1):
            scores[label] = scores.get(label, 0.0) + 1.0 / (k + rank)
    return [label for label, _ in sorted(scores.items(), key=lambda kv: -kv[1])][:top]
