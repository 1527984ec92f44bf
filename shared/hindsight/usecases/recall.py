"""Recall (``memory_search``): filters first (scope, layer, key, tags, entities, time, status), then
vector + full-text + entity candidates fused with RRF and re-weighted per layer by recency, frequency and
importance; failed episodes, inferences and stale facts are labelled; an active fact linked
``contradicts`` to another active one is labelled ``possible_conflict`` and shown with it; related
memories on request."""

from __future__ import annotations

import hashlib
import logging
import time
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hindsight.domain.auth import Principal
from hindsight.domain.contradiction import FLAG_CONFLICT
from hindsight.domain.errors import InvalidInput, Unavailable
from hindsight.domain.limits import MAX_CHAIN_DEPTH
from hindsight.domain.memory import (
    Layer,
    MemoryStatus,
    RelatedMemory,
    Relation,
    Scope,
    SearchHit,
    SearchRequest,
)
from hindsight.domain.ranking import RankingPolicy, rank_candidates
from hindsight.domain.text import query_terms
from hindsight.domain.timeparse import detect_time_intent, parse_time_range, resolve_bound
from hindsight.ports import AccessLog, Clock, Embedder, MemoryReader, Metrics, Reranker

trace_log = logging.getLogger("hindsight.retrieval")
"""One line per search: query hash, ids, final scores, latency (content only when debug is on)."""
RELATED_CHAIN_DEPTH = 3
"""Causal hops followed per hit when related memories are asked for (memory_recall_chain goes to 10)."""


class RecallQuery(BaseModel):
    """What the caller asks; times may be ISO 8601 or phrases such as "last week"."""

    model_config = ConfigDict(frozen=True)

    text: str
    top_k: int = 10
    layers: tuple[Layer, ...] = ("episodic", "semantic")
    statuses: tuple[MemoryStatus, ...] = ("active",)
    key: str | None = None
    tags: tuple[str, ...] = ()
    entities: dict[str, JsonValue] = Field(default_factory=dict)
    time_range: str | None = None
    since: str | None = None
    until: str | None = None
    min_importance: float = 0.0
    include_related: bool = False
    as_of: datetime | None = None
    context_window: int = 0


def resolve(query: RecallQuery, now: datetime) -> SearchRequest:
    """Turn phrases into instants against the query time. Raises InvalidInput naming the field."""
    start = end = None
    if query.time_range:
        span = parse_time_range(query.time_range, now, "time_range")
        start, end = span.start, span.end
    if query.since:
        bound = resolve_bound(query.since, now, "since", upper=False)
        start = max(start, bound) if start else bound
    if query.until:
        bound = resolve_bound(query.until, now, "until", upper=True)
        end = min(end, bound) if end else bound
    if start and end and start >= end:
        raise InvalidInput("until", f"the time range is empty ({start.isoformat()} ≥ {end.isoformat()})")
    return SearchRequest(
        text=query.text,
        top_k=query.top_k,
        now=now,
        layers=query.layers,
        statuses=query.statuses,
        key=query.key,
        tags=query.tags,
        entities=query.entities,
        since=start,
        until=end,
        min_importance=query.min_importance,
        include_related=query.include_related,
        query_terms=tuple(query_terms(query.text)),
        time_intent=detect_time_intent(query.text, now),
        context_window=query.context_window,
    )


class TraceRow(BaseModel):
    """One candidate of a retrieval trace: its rank under each signal, its scores, its fused rank."""

    model_config = ConfigDict(frozen=True)

    fused_rank: int
    hit: SearchHit
    vector_rank: int | None = None
    keyword_rank: int | None = None
    entity_rank: int | None = None
    in_top_k: bool = False


class RetrievalTrace(BaseModel):
    """Every candidate the signals returned, ranked as search ranks them (the inspector's debug panel)."""

    model_config = ConfigDict(frozen=True)

    query: str
    top_k: int
    pool: int
    latency_ms: float
    rows: list[TraceRow]


def query_digest(text: str) -> str:
    """The first 16 hex digits of the query's SHA-256: correlates searches without logging the query."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Recall:
    """``memory_search``."""

    def __init__(
        self,
        reader: MemoryReader,
        embedder: Embedder,
        clock: Clock,
        access: AccessLog,
        policy: RankingPolicy,
        candidate_pool: int = 100,
        metrics: Metrics | None = None,
        trace_content: bool = False,
        reranker: Reranker | None = None,
        rerank_top_n: int = 30,
    ) -> None:
        self._reranker = reranker
        self._rerank_top_n = rerank_top_n
        self._reader = reader
        self._embedder = embedder
        self._clock = clock
        self._access = access
        self._policy = policy
        self._pool = candidate_pool
        self._metrics = metrics
        self._trace_content = trace_content

    async def __call__(
        self, principal: Principal, agent_id: str | None, query: RecallQuery
    ) -> list[SearchHit]:
        """Best ``top_k`` memories of the scope. Raises Forbidden (foreign agent) or InvalidInput (time)."""
        scope = principal.scope(agent_id)
        request = resolve(query, query.as_of or self._clock.now())
        return await self.search(scope, request)

    async def search(
        self, scope: Scope, request: SearchRequest, *, record_access: bool = True
    ) -> list[SearchHit]:
        """The retrieval itself, for callers that built a SearchRequest (benchmarks, the CLI).
        ``record_access=False``: an operator's look, not counted as a recall."""
        started = time.perf_counter()
        embedding = await self._embedder.embed_query(request.text)
        candidates = await self._reader.search_candidates(
            scope, request, embedding, max(self._pool, request.top_k)
        )
        hits = rank_candidates(
            candidates,
            policy=self._policy,
            now=request.now,
            top_k=max(request.top_k, self._rerank_top_n) if self._reranker else request.top_k,
            intent=request.time_intent,
            request=request,
        )
        if self._reranker is not None and hits:
            hits = (await self._rerank(self._reranker, request.text, hits))[: request.top_k]
        if request.include_related and hits:
            hits = await self._with_related(scope, hits)
        if request.context_window > 0 and hits:
            hits = await self._with_context(scope, hits, request.context_window)
        hits = await self._with_conflicts(scope, hits)
        if record_access:
            self._access.note(scope, [h.memory.id for h in hits], self._clock.now())
        self._observe(scope, request, hits, len(candidates), (time.perf_counter() - started) * 1000)
        return hits

    async def trace(self, scope: Scope, request: SearchRequest) -> RetrievalTrace:
        """Every candidate with its per-signal ranks and scores and its fused rank, ranked by the same
        code as ``search`` (so the top ``top_k`` rows are exactly what search returns). Records no access."""
        started = time.perf_counter()
        embedding = await self._embedder.embed_query(request.text)
        pool = max(self._pool, request.top_k)
        candidates = await self._reader.search_candidates(scope, request, embedding, pool)
        ranked = rank_candidates(
            candidates,
            policy=self._policy,
            now=request.now,
            top_k=max(len(candidates), 1),
            intent=request.time_intent,
            request=request,
        )
        by_id = {c.memory.id: c for c in candidates}
        rows = [
            TraceRow(
                fused_rank=position,
                hit=hit,
                vector_rank=by_id[hit.memory.id].vector_rank,
                keyword_rank=by_id[hit.memory.id].keyword_rank,
                entity_rank=by_id[hit.memory.id].entity_rank,
                in_top_k=position <= request.top_k,
            )
            for position, hit in enumerate(ranked, start=1)
        ]
        latency = (time.perf_counter() - started) * 1000
        return RetrievalTrace(
            query=request.text, top_k=request.top_k, pool=pool, latency_ms=round(latency, 2), rows=rows
        )

    def _observe(
        self, scope: Scope, request: SearchRequest, hits: list[SearchHit], candidates: int, latency_ms: float
    ) -> None:
        """The retrieval-trace log line and the search metrics."""
        if self._metrics is not None:
            self._metrics.count("Searches")
            self._metrics.count("SearchHits", len(hits))
            if not hits:
                self._metrics.count("EmptySearches")
            self._metrics.timing("SearchLatency", latency_ms)
        if not trace_log.isEnabledFor(logging.INFO):
            return
        fields: dict[str, object] = {
            "tenant_id": scope.tenant_id,
            "agent_id": scope.agent_id,
            "query_sha256": query_digest(request.text),
            "top_k": request.top_k,
            "candidates": candidates,
            "ids": [str(h.memory.id) for h in hits],
            "scores": [round(h.scores.final, 4) for h in hits],
            "latency_ms": round(latency_ms, 2),
        }
        if self._trace_content:
            fields["query"] = request.text
            fields["contents"] = [h.memory.content for h in hits]
        trace_log.info("retrieval trace", extra=fields)

    async def _rerank(self, reranker: Reranker, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The first ``rerank_top_n`` hits re-ordered by the reranker's score (the rest follow as they
        were). A reranker that is down costs the rerank, not the search: the first-stage order stays."""
        head, tail = hits[: self._rerank_top_n], hits[self._rerank_top_n :]
        try:
            scores = await reranker.rerank(query, [h.memory.content for h in head])
        except Unavailable as exc:
            trace_log.warning("rerank skipped: %s", exc)
            if self._metrics is not None:
                self._metrics.count("RerankFailures")
            return hits
        scored = [
            h.model_copy(update={"scores": h.scores.model_copy(update={"rerank": s})})
            for h, s in zip(head, scores, strict=True)
        ]
        order = sorted(range(len(scored)), key=lambda i: -scores[i])  # stable: ties keep first-stage order
        return [scored[i] for i in order] + tail

    async def _with_context(self, scope: Scope, hits: list[SearchHit], window: int) -> list[SearchHit]:
        """Each hit of a conversation with the turns said within ``window`` positions of it, in order."""
        turns = await self._reader.conversation_turns(scope, [h.memory for h in hits], window)
        out = []
        for hit in hits:
            position = hit.memory.position
            if position is None:
                out.append(hit)
                continue
            around = sorted(
                (
                    t
                    for t in turns
                    if t.position is not None
                    and t.id != hit.memory.id
                    and t.position[:2] == position[:2]
                    and abs(t.position[2] - position[2]) <= window
                ),
                key=lambda t: (t.position or position)[2],
            )
            out.append(hit.model_copy(update={"context_turns": around}))
        return out

    async def _with_conflicts(self, scope: Scope, hits: list[SearchHit]) -> list[SearchHit]:
        """Label every active semantic hit linked ``contradicts`` to another active memory
        ``possible_conflict`` and put that memory beside it in ``related``, so both are always shown.
        One relations query when a hit is semantic (none for episodic-only results)."""
        ids = {h.memory.id for h in hits if h.memory.layer == "semantic" and h.memory.status == "active"}
        if not ids:
            return hits
        relations = [r for r in await self._reader.relations(scope, list(ids)) if r.kind == "contradicts"]
        if not relations:
            return hits
        known = {h.memory.id: h.memory for h in hits}
        missing = {i for r in relations for i in (r.from_id, r.to_id)} - set(known)
        known |= {m.id: m for m in await self._reader.get_many(scope, list(missing))}
        out = []
        for hit in hits:
            mine = hit.memory.id
            partners = [
                RelatedMemory(relation=r, memory=known[other])
                for r in relations
                if mine in (r.from_id, r.to_id)
                and (other := r.to_id if r.from_id == mine else r.from_id) in known
                and known[other].status == "active"
            ]
            if mine not in ids or not partners:
                out.append(hit)
                continue
            shown = {(r.relation.kind, r.memory.id) for r in hit.related}
            extra = [p for p in partners if (p.relation.kind, p.memory.id) not in shown]
            flags = [*hit.flags, FLAG_CONFLICT] if FLAG_CONFLICT not in hit.flags else hit.flags
            out.append(hit.model_copy(update={"flags": flags, "related": [*hit.related, *extra]}))
        return out

    async def _with_related(self, scope: Scope, hits: list[SearchHit]) -> list[SearchHit]:
        ids = [h.memory.id for h in hits]
        relations = await self._reader.relations(scope, ids)
        others = {r.to_id if r.from_id in ids else r.from_id for r in relations} - set(ids)
        by_id = {m.id: m for m in await self._reader.get_many(scope, list(others))}
        out = []
        for hit in hits:
            related: list[RelatedMemory] = []
            for rel in relations:
                other = (
                    rel.to_id
                    if rel.from_id == hit.memory.id
                    else rel.from_id
                    if rel.to_id == hit.memory.id
                    else None
                )
                if other is not None and other in by_id and by_id[other].status != "forgotten":
                    related.append(RelatedMemory(relation=rel, memory=by_id[other]))
            chain = await self._reader.causal_chain(
                scope, hit.memory.id, min(RELATED_CHAIN_DEPTH, MAX_CHAIN_DEPTH), "both"
            )
            seen = {r.memory.id for r in related} | {hit.memory.id}
            for link in chain:
                if link.memory.id in seen:
                    continue
                seen.add(link.memory.id)
                edge = (
                    Relation(
                        from_id=hit.memory.id,
                        to_id=link.memory.id,
                        kind="caused_by",
                        strength=1.0,
                        reason=f"causal chain, {-link.step} step(s) back",
                    )
                    if link.step < 0
                    else Relation(
                        from_id=link.memory.id,
                        to_id=hit.memory.id,
                        kind="caused_by",
                        strength=1.0,
                        reason=f"causal chain, {link.step} step(s) on",
                    )
                )
                related.append(RelatedMemory(relation=edge, memory=link.memory))
            out.append(hit.model_copy(update={"related": related}))
        return out
