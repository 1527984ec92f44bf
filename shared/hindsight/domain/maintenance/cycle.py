"""The maintenance cycle: its steps in order, the state a cycle keeps between runs so it can resume, one
page of the working-memory sweep, and the actor maintenance writes its history rows as."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from hindsight.domain.memory import Scope

MAINTENANCE_ACTOR = "maintenance"
"""The ``actor`` of every history row maintenance writes (schema 002: API key id, "worker" or this)."""

StepName = Literal[
    "decay", "consolidate", "extract_patterns", "key_case", "keyword_stats", "working_memory", "stuck_work"
]
STEPS: tuple[StepName, ...] = (
    "decay",
    "consolidate",
    "extract_patterns",
    "key_case",
    "keyword_stats",
    "working_memory",
    "stuck_work",
)
"""The order of a cycle: decay first (archives what went cold, so it is not consolidated), then
consolidation, then patterns (which also read the archived originals), then keys not in their stored form
(``key_case``: written by an older version during a deploy), then the keyword statistics of the scopes that
changed, then the Redis and queue sweeps."""


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
