"""Fusion and re-weighting of retrieval signals.

1. Relevance. With a learned ranker (``domain.learned_ranker``, the default) a small model scores each
   candidate from its features (``domain.ranking_features``: every signal's rank and score, its
   neighbouring turns' scores, overlap with the query, …) and relevance = exp((score − best score) / T)
   (LEARNED_TEMPERATURE), so the best candidate has 1. Without one (``HINDSIGHT_RANKER=rrf``), the
   hand-set fusion below: reciprocal rank fusion of the signals that found a memory (vector, keyword, entity):
   Cormack, Clarke and Büttcher, "Reciprocal Rank Fusion outperforms Condorcet and individual Rank
   Learning Methods", SIGIR 2009 — rrf(d) = Σ_s w_s / (k + rank_s(d)); the paper uses k = 60 and
   equal weights, we use k = 10 and per-signal weights measured on LoCoMo dev (constants below).
2. Per-layer blend of time, relevance (as above, 0–1) and access frequency.
   Weights from the seed documents (../shared/SPEC.md, "Retrieval"): episodic memories weigh time 0.3,
   similarity 0.5, frequency 0.2; semantic memories 0.05 / 0.8 / 0.15. "Time" is how well the memory's
   time fits what the query says about time: recency when it asks for the latest or current state, the
   distance to a window it names ("last week", "in May 2023"), and neutral (1 for every memory) when
   it says nothing about time. A plain recency prior on every query cost 15 points of LoCoMo recall@5
   (bench/locomo_eval.py, conv-26: 0.493 → 0.143 additive, 0.430 multiplicative), because long-term
   questions are as often about old events as about new ones.
3. Importance: final = w·layer_score + (1 − w)·importance with w = 0.7 (the seeds' 0.7·similarity +
   0.3·importance).
4. Trust: ``agent_inferred`` memories are multiplied by ``inferred_penalty`` and labelled; returned hits
   labelled ``possible_injection`` are multiplied by ``injection_penalty`` and re-ordered within the
   page (``demote_injections``); failed
   episodes are labelled (never hidden: "this approach failed before" is the point); semantic facts
   not verified for ``stale_after`` are labelled possibly stale; text that reads like instructions to
   the model is labelled ``possible_injection`` (``domain.injection``; labels are computed for the
   returned hits only, so the detector never runs over the whole candidate pool).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple, overload

import numpy as np

from hindsight.domain.injection import FLAG_INJECTION, memory_injection_signals
from hindsight.domain.learned_ranker import LearnedRanker
from hindsight.domain.memory import (
    FAILED_OUTCOMES,
    Candidate,
    CandidateMemory,
    Scores,
    SearchHit,
    SearchRequest,
    StoredMemory,
)
from hindsight.domain.pool_columns import PoolColumns, pool_columns
from hindsight.domain.ranking_features import PoolTexts, pool_features
from hindsight.domain.timeparse import TimeIntent
from hindsight.domain.timetravel import is_upcoming
from hindsight.domain.trusted import trusted

Flag = str
FLAG_FAILED = "failed_before"
FLAG_INFERENCE = "inference"
FLAG_STALE = "possibly_stale"
FLAG_UPCOMING = "upcoming"
"""A fact not valid yet (``timetravel.is_upcoming``): it holds its key from a later valid_from."""


@dataclass(frozen=True)
class LayerWeights:
    """How a layer's score blends recency, similarity (fused relevance) and access frequency."""

    recency: float
    similarity: float
    frequency: float


DEFAULT_RRF_K = 10
"""Cormack et al. use k = 60; on LoCoMo dev (7 conversations, bench/locomo_eval.py) k = 10 ranked better
(recall@10 0.632 → 0.645 with the weights below): a smaller k lets the top ranks of each signal count more."""
DEFAULT_SIGNAL_WEIGHTS = (0.4, 1.0, 0.3)
"""(vector, keyword, entity) weights of the fusion, measured on LoCoMo dev: plain RRF 0.539 / 0.615
recall@5/@10, these 0.580 / 0.660. Full text carries dialogue recall; the 4-bit e5 vectors add paraphrase
matches; entities add exact names and ids."""

LEARNED_TEMPERATURE = 10.0
"""Scale of the learned ranker's scores in relevance = exp((score − best) / T). The model's scores are
logits of a softmax over the pool (a gap of 1 is a factor e in odds); T spreads them over the range the
RRF ratios had, so the priors after relevance — time fit, frequency, importance, the 0.85 penalty of
inferences — keep the weight the seeds give them instead of being swamped by a steep exponential. Order
among candidates with equal priors does not depend on T."""

EPISODIC_WEIGHTS = LayerWeights(recency=0.3, similarity=0.5, frequency=0.2)
SEMANTIC_WEIGHTS = LayerWeights(recency=0.05, similarity=0.8, frequency=0.15)


@dataclass(frozen=True)
class RankingPolicy:
    """Every constant ranking uses; built from Settings."""

    rrf_k: int = DEFAULT_RRF_K
    relevance_weight: float = 0.7
    episodic: LayerWeights = EPISODIC_WEIGHTS
    semantic: LayerWeights = SEMANTIC_WEIGHTS
    recency_half_life: timedelta = timedelta(days=30)
    frequency_saturation: float = 10.0
    """Access count at which the frequency signal reaches 1 − 1/e."""
    inferred_penalty: float = 0.85
    injection_penalty: float = 0.5
    """Score factor for a returned hit labelled possible_injection (``demote_injections``). Injected text is
    written to be retrieved: it repeats the topic's words, so its relevance can beat the user's statement it
    imitates. At 0.85 (the inference penalty) a new-user trial still saw it first for 2 of 3 queries
    (0.642 against 0.606 after the factor); at 0.5 it ranks below any hit with half its score."""
    stale_after: timedelta = timedelta(days=90)
    signal_weights: tuple[float, float, float] = DEFAULT_SIGNAL_WEIGHTS
    """Weighted RRF: how much the vector, keyword and entity ranks count (1, 1, 1 is plain RRF)."""
    learned: LearnedRanker | None = None
    """The learned ranker that gives relevance; None: the weighted RRF above."""
    weights: dict[str, LayerWeights] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "weights", {"episodic": self.episodic, "semantic": self.semantic})


def reciprocal_rank_fusion(
    ranks: Iterable[int | None], k: int, weights: Iterable[float] | None = None
) -> float:
    """Σ w/(k + rank) over the signals that ranked the item (rank 1 = best; None = not returned;
    weights default to 1, which is plain RRF).

    Raises:
        ValueError: if k < 1 or a rank < 1.
    """
    if k < 1:
        raise ValueError("k must be ≥ 1")
    ranks = list(ranks)
    total = 0.0
    for rank, weight in zip(ranks, weights if weights is not None else [1.0] * len(ranks), strict=False):
        if rank is None:
            continue
        if rank < 1:
            raise ValueError("ranks start at 1")
        total += weight / (k + rank)
    return total


def recency(memory: StoredMemory | CandidateMemory, now: datetime, half_life: timedelta) -> float:
    """0.5 ** (age / half_life) of the event time (occurred_at, else created_at; a partial date counts
    from the middle of its span, not its first day); 1 for future events."""
    age = (now - memory.event_span.middle).total_seconds()
    return 1.0 if age <= 0 else 0.5 ** (age / half_life.total_seconds())


def time_fit(
    memory: StoredMemory | CandidateMemory, intent: TimeIntent | None, now: datetime, half_life: timedelta
) -> float:
    """1 when the query says nothing about time; recency for "latest/current" queries; for a named
    window, 1 when the memory's time is inside it — a partial date (occurred_at "2026", precision year)
    when its span overlaps the window — and halving with every window-length of distance outside it."""
    if intent is None:
        return 1.0
    if intent.kind == "recent":
        return recency(memory, now, half_life)
    when = memory.event_span
    first, last = when.start, when.last
    start, end = intent.start, intent.end
    if (start is None or last >= start) and (end is None or first < end):
        return 1.0
    span = (end - start) if start and end else timedelta(days=1)
    distance = (start - last) if start and last < start else (first - end) if end else timedelta(0)
    return float(0.5 ** (distance / max(span, timedelta(hours=1))))


def frequency(access_count: int, saturation: float) -> float:
    """1 − exp(−access_count / saturation): 0 for never recalled, → 1 for often recalled."""
    return 1.0 - math.exp(-max(0, access_count) / saturation)


def flags_for(memory: StoredMemory, now: datetime, policy: RankingPolicy) -> list[Flag]:
    """Labels a caller must see: failed episode, inference, possibly stale, possible prompt injection,
    a fact not valid yet at ``now`` (upcoming), non-active status."""
    flags: list[Flag] = []
    if memory.outcome in FAILED_OUTCOMES or memory.metadata.get("failed") is True:
        flags.append(FLAG_FAILED)
    if memory.source == "agent_inferred":
        flags.append(FLAG_INFERENCE)
    if memory.layer == "semantic":
        verified = memory.last_verified_at or memory.created_at
        if now - verified > policy.stale_after:
            flags.append(FLAG_STALE)
    if memory_injection_signals(memory):
        flags.append(FLAG_INJECTION)
    if is_upcoming(memory, now):
        flags.append(FLAG_UPCOMING)
    if memory.status != "active":
        flags.append(memory.status)
    return flags


class ScoredCandidate(NamedTuple):
    """A candidate with its scores (``Scores`` fields but the flags, computed for returned hits only).
    ``score_candidates`` builds one for each place of its ranking that is read (``ScoredPool``)."""

    candidate: Candidate
    rrf: float
    model: float | None
    relevance: float
    time: float
    frequency: float
    final: float

    def hit(self, memory: StoredMemory, now: datetime, policy: RankingPolicy) -> SearchHit:
        """The search hit of this candidate, given its full stored memory; labels computed here. Built
        as validation would build it (``trusted``: each score a ``float`` — the model's is a numpy one —,
        the hit's lists new, the same fields set) without validating values ranking computed itself."""
        cand = self.candidate
        scores = {
            "vector": cand.vector_similarity,
            "keyword": cand.keyword_score,
            "entity": cand.entity_matches,
            "rrf": float(self.rrf),
            "model": None if self.model is None else float(self.model),
            "relevance": float(self.relevance),
            "rerank": None,
            "time": float(self.time),
            "frequency": float(self.frequency),
            "importance": float(memory.importance),
            "final": float(self.final),
        }
        hit = {
            "memory": memory,
            "scores": trusted(Scores, scores, set(_SCORES_SET)),
            "flags": flags_for(memory, now, policy),
            "related": [],
            "context_turns": [],
        }
        return trusted(SearchHit, hit, set(_HIT_SET))


_SCORES_SET = frozenset(Scores.model_fields) - {"rerank"}
"""The fields ``ScoredCandidate.hit`` gives a hit's scores (the rerank score is set by the reranker)."""
_HIT_SET = ("memory", "scores", "flags")
"""The fields ``ScoredCandidate.hit`` gives a hit (related memories and turns are added on request)."""
_BUILT = (
    ("vector", "keyword", "entity", "rrf", "model", "relevance", "rerank", "time", "frequency", "importance",
     "final"),
    ("memory", "scores", "flags", "related", "context_turns"),
)  # fmt: skip
if (tuple(Scores.model_fields), tuple(SearchHit.model_fields)) != _BUILT:  # pragma: no cover
    # a change of the models that ScoredCandidate.hit, which builds them field by field, must follow
    raise RuntimeError("ScoredCandidate.hit builds Scores and SearchHit field by field: update it")


def score_candidates(
    candidates: Sequence[Candidate],
    *,
    policy: RankingPolicy,
    now: datetime,
    intent: TimeIntent | None = None,
    request: SearchRequest | None = None,
    texts: PoolTexts | None = None,
) -> ScoredPool:
    """Every candidate scored, best first (ties: similarity, then id). ``request`` (the query) is what
    the learned ranker's features read; without it, or without a learned ranker in the policy, relevance
    is the weighted RRF. ``texts``: content features computed already (``ranking_features.PoolTexts``).
    SearchHit models are built by ``ScoredCandidate.hit``, for returned hits only.

    The pool's columns are read (``pool_columns``: a store's ``CandidatePool`` hands them over) and the
    priors and final scores are computed column-wise: numpy's +, −, ×, ÷ on float64 round as Python's
    float operations do, in the same order (``_finals``), so every score is the same float as the
    per-candidate formula gives. Each ``ScoredCandidate`` is built when it is read (``ScoredPool``)."""
    pool = pool_columns(candidates)
    n = len(pool.ids)
    rrfs = _fused(pool, policy)
    model: list[float | None]
    if policy.learned is not None and request is not None and n:
        scores = policy.learned.score(pool_features(pool, request, texts), candidates, pool.positions)
        model = list(scores)
        top = max(scores)
        exp, temperature = math.exp, LEARNED_TEMPERATURE
        relevances = [exp((v - top) / temperature) for v in scores]
    else:
        model = [None] * n
        best = max(rrfs, default=0.0) or 1.0
        relevances = [rrf / best for rrf in rrfs]
    half_life = policy.recency_half_life
    times = (
        [1.0] * n
        if intent is None
        else [time_fit(c.memory, intent, now, half_life) for c in candidates]  # builds every model
    )
    # frequency by access count, computed once per count of the pool (most memories share a few counts)
    by_count = {count: frequency(count, policy.frequency_saturation) for count in set(pool.access_count)}
    frequencies = [by_count[count] for count in pool.access_count]
    finals = _finals(pool, policy, relevances, times, frequencies)
    # the id's integer orders as its text does (fixed-width hex), without formatting every id
    keys = list(
        zip(
            (-finals).tolist(),
            [-(v or 0.0) for v in pool.vector_similarity],
            [i.int for i in pool.ids],
            strict=True,
        )
    )
    order = sorted(range(n), key=keys.__getitem__)
    return ScoredPool(candidates, order, (rrfs, model, relevances, times, frequencies, finals.tolist()))


class ScoredPool(Sequence[ScoredCandidate]):
    """``score_candidates``' result: the candidates' scores, best first. The ``ScoredCandidate`` at a
    place, and the candidate model it holds (``pool_columns.CandidatePool``), are built when it is first
    read, then kept: a search reads its ``top_k`` of a pool of ~210 (a trace reads them all)."""

    __slots__ = ("_built", "_candidates", "_order", "_scores")

    def __init__(
        self,
        candidates: Sequence[Candidate],
        order: list[int],
        scores: tuple[list[float], list[float | None], list[float], list[float], list[float], list[float]],
    ) -> None:
        """``order``: the candidates' indexes, best first; ``scores``: (rrf, model, relevance, time,
        frequency, final), one list each, in the candidates' order."""
        self._candidates = candidates
        self._order = order
        self._scores = scores
        self._built: list[ScoredCandidate | None] = [None] * len(order)

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> ScoredCandidate: ...
    @overload
    def __getitem__(self, index: slice) -> list[ScoredCandidate]: ...
    def __getitem__(self, index: int | slice) -> ScoredCandidate | list[ScoredCandidate]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._order)))]
        built = self._built[index]  # IndexError past the end, as a list
        if built is None:
            i = self._order[index]
            rrf, model, relevance, time, frequency, final = self._scores
            built = ScoredCandidate(
                self._candidates[i], rrf[i], model[i], relevance[i], time[i], frequency[i], final[i]
            )
            self._built[index] = built
        return built

    def __iter__(self) -> Iterator[ScoredCandidate]:
        return (self[i] for i in range(len(self._order)))


def _finals(
    pool: PoolColumns,
    policy: RankingPolicy,
    relevances: Sequence[float],
    times: Sequence[float],
    frequencies: Sequence[float],
) -> np.ndarray:
    """Each candidate's final score: relevance × its layer's prior / the layer's weight sum, blended with
    importance, × the inference penalty for an inferred memory. Time and frequency are priors: they scale
    relevance (and so re-order near-ties) but cannot lift an irrelevant memory — an additive frequency
    term let often-recalled memories crowd every result list (LoCoMo conv-26 recall@5 0.494 → 0.422,
    bench/locomo_eval.py).

    Raises:
        KeyError: a candidate's layer has no weights in the policy.
    """
    # per layer: its weights and their sum, the same floats for every candidate of the layer
    names = list(policy.weights)
    weights = np.array(
        [
            (w.similarity, w.recency, w.frequency, w.similarity + w.recency + w.frequency)
            for w in policy.weights.values()
        ],
        dtype=np.float64,
    )
    index = {name: i for i, name in enumerate(names)}
    similarity, recency_weight, frequency_weight, total = weights[[index[layer] for layer in pool.layer]].T
    prior = similarity + recency_weight * np.array(times) + frequency_weight * np.array(frequencies)
    layer_score = np.array(relevances) * prior / total
    keep = 1.0 - policy.relevance_weight
    final: np.ndarray = policy.relevance_weight * layer_score + keep * np.array(
        pool.importance, dtype=np.float64
    )
    inferred = np.array([source == "agent_inferred" for source in pool.source], dtype=bool)
    final[inferred] *= policy.inferred_penalty
    return final


def _fused(pool: PoolColumns, policy: RankingPolicy) -> list[float]:
    """``reciprocal_rank_fusion`` of each candidate's (vector, keyword, entity) ranks with the policy's k
    and weights, the same sum in the same order, without a call and a list per candidate.

    Raises:
        ValueError: as ``reciprocal_rank_fusion``.
    """
    k, weights = policy.rrf_k, tuple(policy.signal_weights)
    columns = (pool.vector_rank, pool.keyword_rank, pool.entity_rank)
    if len(weights) != 3:
        return [reciprocal_rank_fusion(ranks, k, weights) for ranks in zip(*columns, strict=True)]
    if k < 1:
        raise ValueError("k must be ≥ 1")
    vector, keyword, entity = weights
    out = []
    for vector_rank, keyword_rank, entity_rank in zip(*columns, strict=True):
        total = 0.0
        if vector_rank is not None:
            total += vector / (k + _checked(vector_rank))
        if keyword_rank is not None:
            total += keyword / (k + _checked(keyword_rank))
        if entity_rank is not None:
            total += entity / (k + _checked(entity_rank))
        out.append(total)
    return out


def _checked(rank: int) -> int:
    if rank < 1:
        raise ValueError("ranks start at 1")
    return rank


def demote_injections(hits: Sequence[SearchHit], policy: RankingPolicy, window: int) -> list[SearchHit]:
    """The hits with those of the first ``window`` labelled ``possible_injection`` scored ×
    ``policy.injection_penalty`` and the window re-sorted by final score (stable; hits past the window keep
    their place). Scraped text that orders the model about reads, to a ranker, much like the user's own
    statement it imitates; this keeps it below an equally relevant statement. Only the returned window is
    re-ordered because the detector runs on returned hits only (about 1 ms per 400 characters: too slow
    for a 300-candidate pool), so a flagged memory can fall within the page, never out of it."""
    if not any(FLAG_INJECTION in h.flags for h in hits[:window]):
        return list(hits)
    head = [
        h.model_copy(
            update={
                "scores": h.scores.model_copy(update={"final": h.scores.final * policy.injection_penalty})
            }
        )
        if FLAG_INJECTION in h.flags
        else h
        for h in hits[:window]
    ]
    return sorted(head, key=lambda h: -h.scores.final) + list(hits[window:])


def rank_candidates(
    candidates: Sequence[Candidate],
    *,
    policy: RankingPolicy,
    now: datetime,
    top_k: int,
    intent: TimeIntent | None = None,
    request: SearchRequest | None = None,
) -> list[SearchHit]:
    """Score every candidate and return the best ``top_k`` as hits, best first (``score_candidates``).
    The candidates' memories must be full ``StoredMemory`` rows; a search that fetched only what ranking
    reads scores first and builds hits from the rows it then fetches (``ScoredCandidate.hit``).

    Raises:
        TypeError: a returned candidate's memory is not a StoredMemory.
    """
    scored = score_candidates(candidates, policy=policy, now=now, intent=intent, request=request)
    hits = []
    for s in scored[:top_k]:
        memory = s.candidate.memory
        if not isinstance(memory, StoredMemory):
            raise TypeError(
                "rank_candidates needs full memories: use score_candidates and ScoredCandidate.hit"
            )
        hits.append(s.hit(memory, now, policy))
    return demote_injections(hits, policy, top_k)
