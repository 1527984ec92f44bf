"""Recall (``memory_search``): filters first (scope, layer, key, tags, entities, time, status), then
vector + full-text + entity candidates fused with RRF and re-weighted per layer by recency, frequency and
importance; failed episodes, inferences and stale facts are labelled; an active fact linked
``contradicts`` to another active one is labelled ``possible_conflict`` and shown with it; related
memories on request.

Point in time (``domain.timetravel``): ``valid_at`` keeps what was true then, ``known_at`` what this store
held then (status and content of then, from the history); the store filters before ranking, then each
candidate is shown as it stood, and related memories and causal chains follow the same times. A hit
superseded today carries ``superseded_by``. Without them nothing of this runs (one query, as before)."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import partial
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hindsight.domain.auth import Principal
from hindsight.domain.contradiction import FLAG_CONFLICT
from hindsight.domain.errors import InvalidInput, Unavailable
from hindsight.domain.limits import MAX_CHAIN_DEPTH
from hindsight.domain.memory import (
    Candidate,
    HistoryEntry,
    Layer,
    MemoryStatus,
    RelatedMemory,
    Relation,
    Scope,
    SearchHit,
    SearchRequest,
    StoredMemory,
)
from hindsight.domain.ranking import RankingPolicy, ScoredCandidate, demote_injections, score_candidates
from hindsight.domain.ranking_features import PoolTexts
from hindsight.domain.text import query_terms
from hindsight.domain.timeparse import detect_time_intent, parse_time_range, resolve_bound
from hindsight.domain.timetravel import (
    NOW,
    PointInTime,
    archived_facts_only,
    at_point,
    point_of,
    readable_by,
    search_statuses,
)
from hindsight.ports import AccessLog, ChainLink, Clock, Embedder, MemoryReader, Metrics, Reranker
from hindsight.usecases.key_filter import check_key_filter

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
    valid_at: datetime | None = None
    known_at: datetime | None = None


def empty_window(start: datetime, start_field: str, end: datetime, end_field: str) -> str:
    """Why the time window (time_range, since, until together) holds no instant at all, naming the
    argument each end came from (``start_field``, ``end_field``)."""
    if start == end:
        return (
            f"the time window is empty: it starts and ends at {start.isoformat()} (its end is exclusive; "
            f"{end_field} must be later than {start_field})"
        )
    return (
        f"the time window is empty: its start, {start.isoformat()} ({start_field}), is after its end, "
        f"{end.isoformat()} ({end_field}); {end_field} must be later than {start_field}"
    )


def resolve(query: RecallQuery, now: datetime) -> SearchRequest:
    """Turn phrases into instants against the query time. Raises InvalidInput naming the field."""
    start = end = None
    start_field, end_field = "time_range's start", "time_range's end"
    if query.time_range:
        span = parse_time_range(query.time_range, now, "time_range")
        start, end = span.start, span.end
    if query.since:
        bound = resolve_bound(query.since, now, "since", upper=False)
        if start is None or bound > start:
            start, start_field = bound, "since"
    if query.until:
        bound = resolve_bound(query.until, now, "until", upper=True)
        if end is None or bound < end:
            end, end_field = bound, "until"
    if start and end and start >= end:  # the field that closed the window: time_range alone, or the bound
        raise InvalidInput(
            "until" if query.until else "since" if query.since else "time_range",
            empty_window(start, start_field, end, end_field),
        )
    point = PointInTime(valid_at=query.valid_at, known_at=query.known_at)
    return SearchRequest(
        text=query.text,
        top_k=query.top_k,
        now=now,
        layers=query.layers,
        statuses=search_statuses(point, query.statuses),
        archived_facts_only=archived_facts_only(point, query.statuses),
        valid_at=query.valid_at,
        known_at=query.known_at,
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
        """Best ``top_k`` memories of the scope. Raises Forbidden (foreign agent) or InvalidInput (time; a
        ``key`` outside the key grammar that no memory holds: ``usecases.key_filter``)."""
        scope = principal.scope(agent_id)
        request = resolve(query, query.as_of or self._clock.now())
        await check_key_filter(self._reader, scope, request.key, request.now, request.known_at)
        return await self.search(scope, request)

    async def search(
        self, scope: Scope, request: SearchRequest, *, record_access: bool = True
    ) -> list[SearchHit]:
        """The retrieval itself, for callers that built a SearchRequest (benchmarks, the CLI).
        ``record_access=False``: an operator's look, not counted as a recall."""
        started = time.perf_counter()
        point = point_of(request)
        candidates, scored, later = await self._scored(scope, request, max(self._pool, request.top_k), point)
        top = max(request.top_k, self._rerank_top_n) if self._reranker else request.top_k
        found, relations = await self._hits_and_relations(scope, request, scored[:top], point, later)
        hits = demote_injections(found, self._policy, request.top_k)
        if self._reranker is not None and hits:
            hits = (await self._rerank(self._reranker, request.text, hits))[: request.top_k]
        if request.include_related and hits:
            hits = await self._with_related(scope, hits, point)
        if any(
            "superseded" in (h.memory.status, h.memory.status_now) and h.memory.superseded_by is None
            for h in hits
        ):
            hits = await self._with_successors(scope, hits)
        if request.context_window > 0 and hits:
            hits = await self._with_context(scope, hits, request.context_window)
        hits = await self._with_conflicts(scope, hits, relations, point)
        if record_access:
            self._access.note(scope, [h.memory.id for h in hits], self._clock.now())
        self._observe(scope, request, hits, len(candidates), (time.perf_counter() - started) * 1000)
        return hits

    async def trace(self, scope: Scope, request: SearchRequest) -> RetrievalTrace:
        """Every candidate with its per-signal ranks and scores and its fused rank, ranked by the same
        code as ``search`` (so the top ``top_k`` rows are exactly what search returns). Records no access."""
        started = time.perf_counter()
        pool = max(self._pool, request.top_k)
        point = point_of(request)
        candidates, scored, later = await self._scored(scope, request, pool, point)
        hits = await self._hits(scope, request, scored, point=point, later=later)
        ranked = demote_injections(hits, self._policy, request.top_k)
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

    async def _scored(
        self, scope: Scope, request: SearchRequest, pool: int, point: PointInTime
    ) -> tuple[Sequence[Candidate], Sequence[ScoredCandidate], dict[UUID, list[HistoryEntry]]]:
        """The store's candidates (as they stood at ``point``: ``_candidates_at``), all of them scored, best
        first, and the history after ``known_at`` read for them. With a learned ranker their texts' content
        features are computed as each statement returns (``PoolTexts``: while the other statements or the
        model still run), not after the last one."""
        texts = PoolTexts(request.text) if self._policy.learned is not None else None
        candidates = await self._reader.search_candidates(
            scope,
            request,
            partial(self._embedder.embed_query, request.text),
            pool,
            texts.add if texts is not None else None,
        )
        candidates, later = await self._candidates_at(scope, request, candidates, point)
        scored = score_candidates(
            candidates,
            policy=self._policy,
            now=request.now,
            intent=request.time_intent,
            request=request,
            texts=texts,
        )
        return candidates, scored, later

    async def _full(self, scope: Scope, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates with their full stored rows (one query for those the search SQL returned only
        what ranking reads of); a memory gone in between is dropped."""
        missing = [c.memory.id for c in candidates if not isinstance(c.memory, StoredMemory)]
        if not missing:
            return candidates
        rows = {m.id: m for m in await self._reader.get_many(scope, missing)}
        return [
            c if isinstance(c.memory, StoredMemory) else c.model_copy(update={"memory": rows[c.memory.id]})
            for c in candidates
            if isinstance(c.memory, StoredMemory) or c.memory.id in rows
        ]

    async def _hits_and_relations(
        self,
        scope: Scope,
        request: SearchRequest,
        scored: Sequence[ScoredCandidate],
        point: PointInTime,
        later: Mapping[UUID, Sequence[HistoryEntry]],
    ) -> tuple[list[SearchHit], tuple[set[UUID], list[Relation]] | None]:
        """``_hits``, and with the rows the relations of the semantic ones among them (one round trip
        for both, instead of a second one in ``_with_conflicts``): (the ids asked about, their
        relations), or None when no row had to be fetched (then ``_with_conflicts`` asks itself)."""
        missing = [s.candidate.memory.id for s in scored if not isinstance(s.candidate.memory, StoredMemory)]
        if not missing:
            return await self._hits(scope, request, scored, point=point, later=later), None
        semantic = {s.candidate.memory.id for s in scored if s.candidate.memory.layer == "semantic"}
        fetched, relations = await self._reader.get_many_with_relations(scope, missing, list(semantic))
        hits = await self._hits(scope, request, scored, fetched, point, later)
        return hits, (semantic, relations)

    async def _hits(
        self,
        scope: Scope,
        request: SearchRequest,
        scored: Sequence[ScoredCandidate],
        fetched: list[StoredMemory] | None = None,
        point: PointInTime = NOW,
        later: Mapping[UUID, Sequence[HistoryEntry]] | None = None,
    ) -> list[SearchHit]:
        """Hits of the scored candidates, in order, with their full stored rows: the search SQL returns
        only what ranking reads for its whole pool, so the rows of the few returned are fetched here (one
        query, unless ``fetched`` brings them), each as a read at ``point`` sees it (``memories_at``, with
        ``later`` the history after ``known_at`` read for the candidates). A memory whose status changed in
        between to one the request does not ask for, or that is gone, is left out."""
        memories: dict[UUID, StoredMemory] = {}
        missing = []
        for s in scored:
            if isinstance(s.candidate.memory, StoredMemory):
                memories[s.candidate.memory.id] = s.candidate.memory
            else:
                missing.append(s.candidate.memory.id)
        if missing:
            if fetched is None:
                fetched = await self._reader.get_many(scope, missing)
            if not point.is_now:
                fetched = list((await memories_at(self._reader, scope, fetched, point, later)).values())
            memories |= {m.id: m for m in fetched if m.status in request.statuses}
        return [
            s.hit(memories[s.candidate.memory.id], request.now, self._policy)
            for s in scored
            if s.candidate.memory.id in memories
        ]

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

    async def _with_conflicts(
        self,
        scope: Scope,
        hits: list[SearchHit],
        prefetched: tuple[set[UUID], list[Relation]] | None = None,
        point: PointInTime = NOW,
    ) -> list[SearchHit]:
        """Label every active semantic hit linked ``contradicts`` to another active memory
        ``possible_conflict`` and put that memory beside it in ``related``, so both are always shown
        (``conflict_partners``, as the link and the other memory stood at ``point``: the hits are already
        seen at it). One relations query when a hit is semantic (none for episodic-only
        results), unless ``prefetched`` (ids, the relations touching any of them) covers every such hit:
        those touching the hits are then exactly what the query would return, in its order."""
        ids = {h.memory.id for h in hits if h.memory.layer == "semantic" and h.memory.status == "active"}
        if not ids:
            return hits
        covered = prefetched[1] if prefetched is not None and ids <= prefetched[0] else None
        partners = await conflict_partners(self._reader, scope, [h.memory for h in hits], covered, point)
        out = []
        for hit in hits:
            mine = partners.get(hit.memory.id)
            if not mine:
                out.append(hit)
                continue
            shown = {(r.relation.kind, r.memory.id) for r in hit.related}
            extra = [p for p in mine if (p.relation.kind, p.memory.id) not in shown]
            flags = [*hit.flags, FLAG_CONFLICT] if FLAG_CONFLICT not in hit.flags else hit.flags
            out.append(hit.model_copy(update={"flags": flags, "related": [*hit.related, *extra]}))
        return out

    async def _candidates_at(
        self, scope: Scope, request: SearchRequest, candidates: Sequence[Candidate], point: PointInTime
    ) -> tuple[Sequence[Candidate], dict[UUID, list[HistoryEntry]]]:
        """The candidates a read at ``point`` ranks, and the history after ``known_at`` of each that has
        one (by id; empty without ``known_at``).

        The store's filter kept only the memories the point sees, by the values they had then
        (``memory_reads._filters``). A candidate whose history records no change since ``known_at`` (each
        one without it) had then the values ranking reads, so it ranks on what the store returned, as a
        search of today does, and its full row is read only if it is returned (``_hits`` views it at the
        point). Why (issue 15): the full rows of the whole pool (~200), read and validated to be rewound
        before ranking, made a ``valid_at`` search ~1.4x the default one at 100k memories. The others
        (changed since: their text or importance may have been other) are read in full and rewound before
        ranking, and dropped when the point does not see them; so is every candidate when the request
        asks for forgotten memories, which the store returns and a point in time never sees. With
        ``archived_facts_only`` a rewound candidate that was then an archived episode is dropped too (the
        store's filter could only judge today's status of those)."""
        if point.is_now:
            return candidates, {}
        ids = [c.memory.id for c in candidates]
        later = (
            await self._reader.history_after(scope, ids, point.known_at)
            if point.known_at is not None and ids
            else {}
        )
        rewind = [c for c in candidates if c.memory.id in later or "forgotten" in request.statuses]
        if not rewind:
            return candidates, later
        full = await self._full(scope, rewind)
        rows = [c.memory for c in full if isinstance(c.memory, StoredMemory)]  # all: _full read them
        seen = await memories_at(self._reader, scope, rows, point, later)
        then = {
            c.memory.id: c.model_copy(update={"memory": m})
            for c in full
            if (m := seen.get(c.memory.id))
            and not (request.archived_facts_only and m.status == "archived" and m.layer != "semantic")
        }
        rewound = {c.memory.id for c in rewind}
        return [
            then[c.memory.id] if c.memory.id in rewound else c
            for c in candidates
            if c.memory.id in then or c.memory.id not in rewound
        ], later

    async def _with_successors(self, scope: Scope, hits: list[SearchHit]) -> list[SearchHit]:
        """Each hit superseded (today, or at the point read) with ``superseded_by``: the memory that
        replaced it. Only those: a restored memory keeps the ``supersedes`` link of the fact that once
        replaced it (its history), but it is no longer superseded, so it shows none."""
        superseded = [h.memory.id for h in hits if "superseded" in (h.memory.status, h.memory.status_now)]
        successors = await self._reader.successors(scope, superseded)
        return [
            h.model_copy(
                update={"memory": h.memory.model_copy(update={"superseded_by": successors[h.memory.id]})}
            )
            if h.memory.id in successors
            else h
            for h in hits
        ]

    async def _with_related(self, scope: Scope, hits: list[SearchHit], point: PointInTime) -> list[SearchHit]:
        ids = [h.memory.id for h in hits]
        relations = await self._reader.relations(scope, ids)
        if point.known_at is not None:
            relations = [r for r in relations if r.created_at is None or r.created_at <= point.known_at]
        others = {r.to_id if r.from_id in ids else r.from_id for r in relations} - set(ids)
        by_id = {m.id: m for m in await self._reader.get_many(scope, list(others))}
        if not point.is_now:
            by_id = await memories_at(self._reader, scope, list(by_id.values()), point)
        chains = await self._reader.causal_chains(
            scope, ids, min(RELATED_CHAIN_DEPTH, MAX_CHAIN_DEPTH), "both"
        )
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
            chain = chains.get(hit.memory.id, [])
            if not point.is_now:
                chain = await links_at(self._reader, scope, chain, point)
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


async def conflict_partners(
    reader: MemoryReader,
    scope: Scope,
    memories: Sequence[StoredMemory],
    relations: Sequence[Relation] | None = None,
    point: PointInTime = NOW,
) -> dict[UUID, list[RelatedMemory]]:
    """The one definition of ``possible_conflict`` (search's flag, summarize's label): for each active
    semantic memory of ``memories`` linked ``contradicts`` to another active memory (the write path keeps
    both when an ``agent_inferred`` fact contradicts a ``user_stated`` one, or the rules are unsure) — or,
    for an inference, to an archived user statement (``_stands_beside``) —, those
    other memories with the relation, in relation order; memories without any are left out. ``relations``:
    relations already read that include every one touching these memories (else one query).

    ``point``: a read in the past (``memories`` already seen at it) judges the link as it stood then —
    a relation made after ``known_at`` is left out, and the other memory is seen at ``point``
    (``memories_at``: left out when the point does not see it, its status of then) — so a memory
    superseded since by a correction is not flagged, nor shown beside the later memory (trial4 HIGH-4;
    tools.md "Point in time")."""
    ids = {m.id for m in memories if m.layer == "semantic" and m.status == "active"}
    if not ids:
        return {}
    found = relations if relations is not None else await reader.relations(scope, list(ids))
    contradicts = [
        r
        for r in found
        if r.kind == "contradicts"
        and (r.from_id in ids or r.to_id in ids)
        and (point.known_at is None or r.created_at is None or r.created_at <= point.known_at)
    ]
    if not contradicts:
        return {}
    known = {m.id: m for m in memories}
    missing = {i for r in contradicts for i in (r.from_id, r.to_id)} - set(known)
    others = await reader.get_many(scope, list(missing)) if missing else []
    if not point.is_now and others:
        known |= await memories_at(reader, scope, others, point)
    else:
        known |= {m.id: m for m in others}
    out: dict[UUID, list[RelatedMemory]] = {}
    for memory in memories:
        if memory.id not in ids:
            continue
        mine = memory.id
        partners = [
            RelatedMemory(relation=r, memory=known[other])
            for r in contradicts
            if mine in (r.from_id, r.to_id)
            and (other := r.to_id if r.from_id == mine else r.from_id) in known
            and _stands_beside(memory, known[other])
        ]
        if partners:
            out[mine] = partners
    return out


def _stands_beside(memory: StoredMemory, other: StoredMemory) -> bool:
    """Whether ``other``, linked ``contradicts`` to the active ``memory``, is shown beside it: when it is
    active, or when it is what the user stated, archived (never contradicted by the user) and ``memory``
    an inference — an inference never silently takes the place of the user's statement."""
    if other.status == "active":
        return True
    return other.status == "archived" and other.source == "user_stated" and memory.source == "agent_inferred"


async def memories_at(
    reader: MemoryReader,
    scope: Scope,
    memories: Sequence[StoredMemory],
    point: PointInTime,
    later: Mapping[UUID, Sequence[HistoryEntry]] | None = None,
) -> dict[UUID, StoredMemory]:
    """``memories`` as a read at ``point`` by the scope's agent sees them, by id; those it does not see are
    left out — also another agent's memory whose version at ``known_at`` was not shared with this agent, or
    was forgotten (``readable_by``). One history query under ``known_at`` (none when ``later`` brings
    the history after it, by id: a memory not in it has none), one relations query when some are
    superseded today, and under ``valid_at`` one query when some were archived keyed facts then (left
    out when a later value of their key holds at ``valid_at``: ``MemoryReader.replaced_on_key``)."""
    if point.is_now:
        return {m.id: m for m in memories}
    if later is None:
        later = (
            await reader.history_after(scope, [m.id for m in memories], point.known_at)
            if point.known_at is not None and memories
            else {}
        )
    superseded = [m.id for m in memories if m.status == "superseded"]
    successors = await reader.successors(scope, superseded) if superseded else {}
    out: dict[UUID, StoredMemory] = {}
    for memory in memories:
        seen = at_point(memory, point, later.get(memory.id, []), successors.get(memory.id))
        if seen is not None and readable_by(seen, scope.agent_id):
            out[memory.id] = seen
    # an archived keyed fact keeps the open period it had when archived: a value of its key that began
    # since holds from its start (trial N1: memory_get with valid_at answered the archived old value)
    archived = [m.id for m in out.values() if m.status == "archived" and m.layer == "semantic" and m.key]
    if archived and point.valid_at is not None:
        for gone in await reader.replaced_on_key(scope, archived, point.valid_at, point.known_at):
            del out[gone]
    return out


async def links_at(
    reader: MemoryReader, scope: Scope, links: Sequence[ChainLink], point: PointInTime
) -> list[ChainLink]:
    """The steps of a causal chain a read at ``point`` sees, as they stood then."""
    seen = await memories_at(reader, scope, [link.memory for link in links], point)
    return [
        ChainLink(step=link.step, memory=seen[link.memory.id]) for link in links if link.memory.id in seen
    ]
