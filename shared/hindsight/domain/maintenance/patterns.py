"""Episodic → semantic: a lesson or a preference that recurs across recent episodes becomes one inferred
semantic memory. Pure: no I/O.

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
    (a hard-deleted one comes back while its evidence stays in the window). The text quotes the latest
    episode's lesson or statement, its relative expressions dated from that episode's own anchor
    ("since last week (2026-W45)", ``Episode.dated``): an inferred memory has no anchor of its own.

    A preference the user has since taken back is not inferred (new-user trial: "I prefer aisle seats
    on flights" ×3, then "I no longer prefer aisle seats on flights, I prefer window seats" became the
    active inference "aisle", unflagged): when an episode later than the pattern's latest evidence
    states a preference that ``domain.contradiction.compare_facts`` finds contradicts it, or may
    (``possible_conflict``: "no longer", a changed value), the pattern is withheld (``contested``) —
    the latest word of the user is the only evidence of what they prefer now; one inferred before that
    episode is linked ``contradicts`` to it, so recall flags both ``possible_conflict``. A contradicting
    *fact* (a semantic memory) is the store's check when the inference is written (the write path's
    rule: a ``user_stated`` fact is never replaced by an ``agent_inferred`` one; both are linked
    ``contradicts`` and recall flags them ``possible_conflict``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Literal
from uuid import UUID

from hindsight.domain.contradiction import compare_facts
from hindsight.domain.maintenance.episodes import (
    PATTERN_CONTENT_CHARS,
    PATTERN_METADATA_KEY,
    Episode,
    derived_id,
)
from hindsight.domain.memory import Scope
from hindsight.domain.text import plain_quotes
from hindsight.domain.write_filter import RULES

PATTERN_MIN_EPISODES = 3
PATTERN_WINDOW = timedelta(days=30)
PATTERN_MAX_IMPORTANCE = 0.8
"""An inference never starts as core (< 0.9, so it decays like any memory) …"""
PATTERN_MIN_IMPORTANCE = 0.5
"""… and starts at least at the default importance: recurring is itself evidence of relevance."""

PatternKind = Literal["lesson", "preference"]
WITHDRAWN_AT = "withdrawn_at"
"""Key of an inferred memory's ``PATTERN_METADATA_KEY`` metadata: when an edit of its evidence left fewer
than ``min_episodes`` stating it and it was archived (``rederive_pattern``). Such an inference, unlike
one the user or decay archived, is made active again when enough episodes state it again."""


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
    statement: str = ""
    """The lesson or preference it states, as quoted in ``content``: what a fact is compared with."""
    contested_by: tuple[UUID, ...] = ()
    """Later episodes that take it back (``contested``): then it is not created, and one created
    before is linked ``contradicts`` to them, so recall flags it."""
    evidence_versions: tuple[int, ...] = ()
    """The evidence's versions as the plan read them (aligned with ``evidence_ids``): an episode edited
    since does not count for an inference of its old words (trial N0b)."""


_TRAILING = re.compile(r"[\s.!?;:,\"'`)\]]+$")
_LEADING = re.compile(r"^(?:[\s\"'`(\[]|-(?!\d))+")
"""Quotes, brackets and list dashes before a statement; never the minus of a number ("-5 % fee")."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_PREFERENCE_RULES = tuple(rule for rule in RULES if rule.trigger == "preference")


def normalise_statement(text: str) -> str:
    """Case-folded, whitespace collapsed, surrounding quotes and end punctuation removed, typographic
    apostrophes made ASCII: "Back off on HTTP 429." and "back off on HTTP 429" are the same lesson."""
    text = plain_quotes(text)
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


def preference_sentences(text: str) -> list[str]:
    """Every sentence of ``text`` (its first ``PATTERN_CONTENT_CHARS``) where a ``preference`` rule fires,
    whole — "I no longer prefer aisle seats, I prefer window seats" keeps its "no longer", which
    ``preference_statement`` (from the rule's match on) may cut off."""
    return [
        cleaned
        for sentence in _SENTENCE.split(text[:PATTERN_CONTENT_CHARS])
        if any(rule.pattern.search(sentence) for rule in _PREFERENCE_RULES)
        and (cleaned := _TRAILING.sub("", _LEADING.sub("", sentence)))
    ]


CONTEST_SENTENCES = 50
"""Distinct later preference sentences compared with one pattern, the most recent first: bounds the
work (``compare_facts`` ≈ 80 µs a pair on one core; a scope of 5 000 preference episodes in ≥ 1 600
patterns would otherwise cost minutes) while the user's latest words are always read."""


def contested(statement: str, group: Sequence[Episode], episodes: Sequence[Episode]) -> tuple[UUID, ...]:
    """The episodes of ``episodes`` later than every episode of ``group`` that state a preference that
    contradicts ``statement``, or may (``compare_facts``: contradiction or possible_conflict); at most
    ``CONTEST_SENTENCES`` distinct sentences are compared, from the most recent episode back."""
    latest = max(ep.event_time for ep in group)
    members = {ep.id for ep in group}
    verdicts: dict[str, bool] = {}
    found: list[UUID] = []
    for ep in sorted(episodes, key=lambda e: (e.event_time, str(e.id)), reverse=True):
        if ep.event_time <= latest:
            break
        if ep.id in members:
            continue
        for sentence in preference_sentences(ep.content):
            if sentence not in verdicts:
                if len(verdicts) >= CONTEST_SENTENCES:
                    return tuple(found)
                relation = compare_facts(sentence, statement).relation
                verdicts[sentence] = relation in ("contradiction", "possible_conflict")
            if verdicts[sentence]:
                found.append(ep.id)
                break
    return tuple(found)


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


def pattern_key_label(key: str) -> str | None:
    """A reader's name for the key ``find_patterns`` gives an inference ("lesson:create:d6e35f94d8a6" →
    "lesson for create tasks", "preference:b9bb…" → "preference"), or None for any other key: the digest
    only keeps the id stable and means nothing to a reader (trial L7)."""
    kind, _, rest = key.partition(":")
    if kind == "lesson" and rest.count(":") == 1:
        return f"lesson for {rest.split(':')[0]} tasks"
    if kind == "preference" and rest and ":" not in rest:
        return "preference"
    return None


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
        latest_text = " ".join((evidence[0].dated(evidence[0].lessons) or lesson).split())
        outcomes = Counter(ep.outcome or "unknown" for ep in evidence)
        outcome_text = ", ".join(f"{o} ×{n}" for o, n in sorted(outcomes.items()))
        plans.append(
            PatternPlan(
                kind="lesson",
                memory_id=derived_id("pattern", scope.tenant_id, scope.agent_id, "lesson", digest),
                key=f"lesson:{task_type}:{digest}",
                content=f"Lesson from {len(evidence)} {task_type} tasks ({outcome_text}): {latest_text}",
                query=f"before starting a {task_type} task like these again",
                importance=_importance(evidence),
                evidence_ids=tuple(ep.id for ep in evidence),
                evidence_versions=tuple(ep.version for ep in evidence),
                metadata=_span_metadata("lesson", evidence, task_type=task_type, outcomes=dict(outcomes)),
                statement=latest_text,
            )
        )
    stated = [ep for ep in episodes if preference_statement(ep.content)]
    for norm, group in sorted(preferences.items()):
        evidence = _distinct_episodes(group)
        if len(evidence) < policy.min_episodes:
            continue
        said = preference_statement(evidence[0].content) or norm
        digest = _short_hash(norm)
        statement = evidence[0].dated(said) or norm
        plans.append(
            PatternPlan(
                kind="preference",
                memory_id=derived_id("pattern", scope.tenant_id, scope.agent_id, "preference", digest),
                key=f"preference:{digest}",
                content=f"Preference stated in {len(evidence)} episodes: {statement}",
                query="when the user's preferences or choices matter",
                importance=_importance(evidence),
                evidence_ids=tuple(ep.id for ep in evidence),
                evidence_versions=tuple(ep.version for ep in evidence),
                metadata=_span_metadata("preference", evidence),
                statement=statement,
                contested_by=contested(said, group, stated),
            )
        )
    return plans


def rederive_pattern(
    scope: Scope, memory_id: UUID, evidence: Sequence[Episode], policy: PatternPolicy
) -> PatternPlan | None:
    """The inferred memory ``memory_id`` derived again from ``evidence`` — the episodes it cites, as they
    are after one of them was edited (new-user trial F13: "Preference stated in 3 episodes: aisle seats"
    stood after one of the three was corrected to "window seats"): its plan (``find_patterns``: the
    episodes that still state it, the count and text they give, ``contested_by`` a cited episode that now
    takes it back), or None when fewer than ``policy.min_episodes`` still state it."""
    return next((p for p in find_patterns(scope, evidence, policy) if p.memory_id == memory_id), None)
