"""Decay and archive: importance fades with time since last access, and a memory that falls under the cold
threshold is archived. Pure: ``now`` is always passed in.

Decay (``DecayPolicy``, ``decay_step``)
    importance ← importance · 0.5 ^ (Δt / half_life(layer)), Δt = now − the memory's *decay anchor*:
    the latest of created_at, last_accessed_at (its last recall), updated_at (its last change by a
    writer: a merge, an edit, feedback, a restore), decayed_at (its last decay step) and valid_from (a
    fact written ahead of the date it holds from — "my parking spot will be P-12 from June" — has not
    been idle before then: it never fades, nor is archived, before it takes effect). Recording
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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta

from hindsight.domain.memory import Layer, MemoryStatus

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
    valid_from: datetime | None = None,
) -> datetime:
    """The instant decay counts from: the latest of the five (None ignored); a ``valid_from`` still ahead
    makes the idle time negative, which decays nothing (``decayed_importance``)."""
    moments = (created_at, last_accessed_at, updated_at, decayed_at, valid_from)
    return max(t for t in moments if t is not None)


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
