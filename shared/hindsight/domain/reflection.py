"""Reflection models: the task report an agent submits when a top-level task ends, and the one
episodic record a reflection turns it into.

The spec ("Write path", reflection): after a top-level task ends — success, failure, timeout or
exception alike — a retrospective turns goal/steps/outcome into one episodic record with task_type,
outcome, key_decisions (≤ 3), one lesson and entities. The enums and the key-decision bound are the
memory model's own (``domain.memory.TaskType``/``Outcome``, ``domain.limits.MAX_KEY_DECISIONS``) so a
record always fits a memory row.

Every field is bounded. The bounds are chosen so that an episode's metadata (task id, decisions,
lesson, entities) always fits ``MAX_METADATA_BYTES`` (8 KiB) even at four UTF-8 bytes per character:
128 (ASCII id) + 3 · 200 · 4 + 400 · 4 + 2 048 + JSON punctuation ≈ 6.4 KiB.
No I/O.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from hindsight.domain.isotime import StartTime, Timestamp
from hindsight.domain.limits import (
    MAX_KEY_DECISIONS,
    MAX_SHORT_TEXT_CHARS,
    NOT_BLANK,
    PRINTABLE_ASCII,
    AgentId,
    Entities,
    Identifier,
)
from hindsight.domain.limits import _clean_text as _refuse_control_characters
from hindsight.domain.memory import FAILED_OUTCOMES, Outcome, TaskType

# --- limits ------------------------------------------------------------------------------------------

MAX_TASK_ID_CHARS = 128
"""Same bound as agent ids and idempotency keys: a caller-chosen name."""
MAX_GOAL_CHARS = MAX_SHORT_TEXT_CHARS
MAX_TASK_STEPS = 100
"""Enough for long agent runs; the reflection prompt stays under ~30 k tokens at the step bound."""
MAX_STEP_CHARS = 1_000
MAX_ERROR_CHARS = 4_000
"""Room for an exception message and the last frames of a traceback."""
MAX_SUMMARY_CHARS = 1_000
MAX_DECISION_CHARS = 200
MAX_LESSON_CHARS = 400
MAX_EPISODE_ENTITIES_BYTES = 2_048
"""Entities of one task, as UTF-8 JSON; keeps an episode's metadata under 8 KiB (see the module doc)."""
MAX_REFLECTION_TEMPERATURE = 0.1
"""The spec: the reflection LLM runs at temperature ≤ 0.1 with a fixed JSON schema."""


def _fits_entity_budget(value: dict[str, Any]) -> dict[str, Any]:
    size = entities_size(value)
    if size > MAX_EPISODE_ENTITIES_BYTES:
        raise ValueError(f"{size} bytes as JSON; the limit is {MAX_EPISODE_ENTITIES_BYTES}")
    return value


def entities_size(entities: dict[str, Any]) -> int:
    """Size of ``entities`` in bytes as UTF-8 JSON, measured as ``domain.limits`` measures metadata."""
    return len(json.dumps(entities, ensure_ascii=False).encode())


TaskId = Annotated[
    str,
    Identifier("task id", "deploy-9"),  # the reflection's idempotency key: never rewritten by redaction
    StringConstraints(
        strip_whitespace=True, min_length=1, max_length=MAX_TASK_ID_CHARS, pattern=PRINTABLE_ASCII
    ),
    NOT_BLANK,
    Field(description=f"The agent's id for the task (printable ASCII, ≤ {MAX_TASK_ID_CHARS} characters)."),
]
Goal = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_GOAL_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"What the task set out to do (≤ {MAX_GOAL_CHARS} characters)."),
]
Step = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_STEP_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"One thing the agent did or observed (≤ {MAX_STEP_CHARS} characters)."),
]
ErrorText = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ERROR_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"The error or exception that ended the task (≤ {MAX_ERROR_CHARS} characters)."),
]
Summary = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_SUMMARY_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"What happened, in one or two sentences (≤ {MAX_SUMMARY_CHARS} characters)."),
]
Decision = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_DECISION_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"A choice that shaped the result, one short sentence (≤ {MAX_DECISION_CHARS} chars)."),
]
Lesson = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_LESSON_CHARS),
    NOT_BLANK,
    AfterValidator(_refuse_control_characters),
    Field(description=f"One actionable sentence for next time (≤ {MAX_LESSON_CHARS} characters)."),
]
EpisodeEntities = Annotated[
    Entities,
    AfterValidator(_fits_entity_budget),
    Field(
        description='Named things the task was about, e.g. {"order_id": "A-1042", "user": "maya"} '
        f"(flat: values are strings, numbers, booleans or lists of them; ≤ {MAX_EPISODE_ENTITIES_BYTES} "
        "bytes as JSON)."
    ),
]


class TaskReport(BaseModel):
    """What an agent submits when a top-level task ends, whatever the ending (the spec's ``finally``).

    ``outcome`` is as the agent reports it: a timeout or an exception is ``failure`` (or ``aborted``
    when the agent or user stopped it) with the message in ``error``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_id: TaskId
    goal: Goal
    steps: list[Step] = Field(
        default_factory=list,
        max_length=MAX_TASK_STEPS,
        description=f"What the agent did, in order (≤ {MAX_TASK_STEPS} steps).",
    )
    outcome: Outcome
    error: ErrorText | None = None
    entities: EpisodeEntities = Field(default_factory=dict)
    occurred_at: StartTime | None = Field(default=None, description="When the task ended (UTC).")


class EpisodeRecord(BaseModel):
    """The one episodic record a reflection produces (also the JSON schema the reflection LLM fills).

    Every field is required so the schema given to the model lists them all; ``key_decisions`` may
    be empty and ``entities`` may be ``{}``. Unknown fields are refused.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_type: TaskType = Field(
        description="query: look something up; modify: change existing things; create: make something "
        "new; analyze: compare, explain or diagnose; other: none of these."
    )
    outcome: Outcome = Field(description="success | partial | failure | aborted, as the task ended.")
    summary: Summary
    key_decisions: list[Decision] = Field(
        max_length=MAX_KEY_DECISIONS,
        description=f"At most {MAX_KEY_DECISIONS} choices that shaped the result (waits, retries, "
        "switches of approach), most important first.",
    )
    lesson: Lesson
    entities: EpisodeEntities

    @property
    def failed(self) -> bool:
        """True for ``failure`` and ``aborted``: recall must say "this approach failed before"."""
        return self.outcome in FAILED_OUTCOMES


class ReflectJob(BaseModel):
    """The SQS message body for one task reflection; ``id`` becomes the episodic memory's id."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["task.reflect"] = "task.reflect"
    id: UUID
    tenant_id: str = Field(min_length=1, max_length=128)
    agent_id: AgentId
    submitted_at: Timestamp
    report: TaskReport
    trusted: bool = False
    """The submitting key was trusted (``Principal.trusted``): the episode may keep the importance its
    outcome gives it; else it is capped as any untrusted inference is (``domain.trust.admit_draft``).
    Absent (a job queued before this field existed) reads as untrusted: the safe side."""
