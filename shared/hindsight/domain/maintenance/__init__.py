"""Scheduled maintenance rules: decay and archive, consolidation of repeated events, episodic → semantic
pattern extraction, and the resumable state of a maintenance cycle. Pure: no I/O, no clock (``now`` is
always passed in).

The spec ("Forgetting and maintenance"): importance fades with time since last access (exponential,
configurable half-life); below 0.3 a memory goes to cold storage — out of search, still reachable by id
and in causal chains; repeated near-identical events merge into one summary memory; recurring patterns
across recent episodes become semantic memories. Nothing is hard-deleted: originals are archived.

The rules, one module per concept (every name is re-exported here): ``decay`` (decay and archive),
``consolidation`` (clustering repeated events into summaries), ``patterns`` (episodic → semantic),
``episodes`` (the episode as maintenance reads it, metadata keys, derived ids) and ``cycle`` (the steps'
order, a cycle's resumable state, the sweep page, the history actor).
"""

from hindsight.domain.maintenance.consolidation import (
    CONSOLIDATION_COSINE,
    CONSOLIDATION_MIN_SIZE,
    CONSOLIDATION_RULE,
    CONSOLIDATION_WINDOW,
    SUMMARY_MAX_CHARS,
    SUMMARY_MAX_VARIANTS,
    ConsolidationPlan,
    ConsolidationPolicy,
    cluster_episodes,
    plan_consolidation,
    summary_hides_members,
    summary_keeps_members,
    summary_misdescribes_members,
    summary_misrepresents_members,
    summary_quotes_members,
    summary_span,
    summary_text,
)
from hindsight.domain.maintenance.cycle import (
    MAINTENANCE_ACTOR,
    STEPS,
    MaintenanceState,
    SessionSweep,
    StepName,
)
from hindsight.domain.maintenance.decay import (
    COLD_THRESHOLD,
    CORE_IMPORTANCE,
    DECAY_MIN_STEP,
    EPISODIC_HALF_LIFE,
    IMPORTANCE_EPSILON,
    SEMANTIC_HALF_LIFE,
    DecayCounts,
    DecayPolicy,
    DecayStep,
    decay_anchor,
    decay_step,
    decayed_importance,
)
from hindsight.domain.maintenance.episodes import (
    PATTERN_CONTENT_CHARS,
    PATTERN_METADATA_KEY,
    SUMMARY_METADATA_KEY,
    Episode,
)
from hindsight.domain.maintenance.patterns import (
    PATTERN_MAX_IMPORTANCE,
    PATTERN_MIN_EPISODES,
    PATTERN_MIN_IMPORTANCE,
    PATTERN_WINDOW,
    PatternKind,
    PatternPlan,
    PatternPolicy,
    find_patterns,
    normalise_statement,
    preference_statement,
)

__all__ = [
    "COLD_THRESHOLD",
    "CONSOLIDATION_COSINE",
    "CONSOLIDATION_MIN_SIZE",
    "CONSOLIDATION_RULE",
    "CONSOLIDATION_WINDOW",
    "CORE_IMPORTANCE",
    "DECAY_MIN_STEP",
    "EPISODIC_HALF_LIFE",
    "IMPORTANCE_EPSILON",
    "MAINTENANCE_ACTOR",
    "PATTERN_CONTENT_CHARS",
    "PATTERN_MAX_IMPORTANCE",
    "PATTERN_METADATA_KEY",
    "PATTERN_MIN_EPISODES",
    "PATTERN_MIN_IMPORTANCE",
    "PATTERN_WINDOW",
    "SEMANTIC_HALF_LIFE",
    "STEPS",
    "SUMMARY_MAX_CHARS",
    "SUMMARY_MAX_VARIANTS",
    "SUMMARY_METADATA_KEY",
    "ConsolidationPlan",
    "ConsolidationPolicy",
    "DecayCounts",
    "DecayPolicy",
    "DecayStep",
    "Episode",
    "MaintenanceState",
    "PatternKind",
    "PatternPlan",
    "PatternPolicy",
    "SessionSweep",
    "StepName",
    "cluster_episodes",
    "decay_anchor",
    "decay_step",
    "decayed_importance",
    "find_patterns",
    "normalise_statement",
    "plan_consolidation",
    "preference_statement",
    "summary_hides_members",
    "summary_keeps_members",
    "summary_misdescribes_members",
    "summary_misrepresents_members",
    "summary_quotes_members",
    "summary_span",
    "summary_text",
]
