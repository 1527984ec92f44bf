"""Recall: hybrid retrieval — filters, then vector + full-text candidates fused with RRF, then
re-weighted by importance."""

from __future__ import annotations

from dataclasses import dataclass

from hindsight.domain.auth import Principal
from hindsight.domain.memory import SearchHit, SearchRequest
from hindsight.domain.ranking import rank_candidates
from hindsight.ports import Embedder, MemoryStore


@dataclass(frozen=True)
class RecallTuning:
    """Retrieval constants (see hindsight.config.Settings for their sources)."""

    rrf_k: int = 60
    candidate_pool: int = 100
    relevance_weight: float = 0.7


class Recall:
    """``memory_search``."""

    def __init__(self, store: MemoryStore, embedder: Embedder, tuning: RecallTuning) -> None:
        self._store = store
        self._embedder = embedder
        self._tuning = tuning

    async def __call__(
        self, principal: Principal, agent_id: str | None, request: SearchRequest
    ) -> list[SearchHit]:
        """Best ``request.top_k`` active memories of the scope. Raises Forbidden for a foreign agent."""
        scope = principal.scope(agent_id)
        embedding = await self._embedder.embed_query(request.text)
        pool = max(self._tuning.candidate_pool, request.top_k)
        candidates = await self._store.search_candidates(scope, request, embedding, pool)
        return rank_candidates(
            candidates,
            k=self._tuning.rrf_k,
            relevance_weight=self._tuning.relevance_weight,
            top_k=request.top_k,
        )
