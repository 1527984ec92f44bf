"""Reflect on a finished task, and decide whether a text is worth remembering.

``Reflect``: a ``TaskReport`` → an ``EpisodeRecord`` (through the configured ``Reflector``) → one
``MemoryDraft`` for the episodic layer, ready to be queued like any other write.

``ShouldRemember``: the spec's rules-first write filter: ``domain.write_filter.decide`` first, and the
``WriteJudge`` (an LLM) only when the rules are unsure.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, JsonValue

from hindsight.domain.auth import Principal
from hindsight.domain.errors import JudgeFailed
from hindsight.domain.limits import MAX_RECALL_HINT_CHARS, ensure_job_fits
from hindsight.domain.memory import MemoryDraft, Outcome
from hindsight.domain.redaction import Redactor, redact_model
from hindsight.domain.reflection import EpisodeRecord, ReflectJob, TaskReport
from hindsight.domain.write_filter import Role, WriteDecision, decide
from hindsight.ports import Clock, JobQueue, OperationLog, Reflector, WriteJudge
from hindsight.usecases.remember import job_id

log = logging.getLogger(__name__)

OUTCOME_IMPORTANCE: dict[Outcome, float] = {"success": 0.6, "partial": 0.7, "aborted": 0.8, "failure": 0.9}
"""Importance of an episode by outcome. Failures must be recalled ("this approach failed before", the
spec), so they rank highest: 0.9 is the memory model's "critical" (``domain.limits.Importance``);
a plain success sits just above the ordinary 0.5."""

EPISODE_KEY_PREFIX = "task:"
"""Episode keys are ``task:<task_type>`` (``task:query``, ``task:modify``…): near-duplicate episodes
of the same kind of task merge (dedup works within a key)."""


class Reflection(BaseModel):
    """What ``Reflect`` produced: the record and the memory to store."""

    model_config = ConfigDict(frozen=True)

    record: EpisodeRecord
    draft: MemoryDraft


def episode_content(record: EpisodeRecord) -> str:
    """The memory's text: one readable paragraph with summary, outcome, key decisions and lesson."""
    parts = [record.summary.rstrip()]
    if not parts[0].endswith((".", "!", "?", "…")):
        parts[0] += "."
    outcome = f"Outcome: {record.outcome}"
    if record.failed:
        outcome += " (this approach failed)"
    parts.append(outcome + ".")
    if record.key_decisions:
        decisions = "; ".join(d.rstrip(" .;") for d in record.key_decisions)
        parts.append(f"Key decisions: {decisions}.")
    lesson = record.lesson.rstrip()
    parts.append(f"Lesson: {lesson}" + ("" if lesson.endswith((".", "!", "?", "…", '"')) else "."))
    return " ".join(parts)


def episode_draft(report: TaskReport, record: EpisodeRecord) -> MemoryDraft:
    """The episodic memory for one reflected task.

    ``metadata`` carries ``task_id``, ``task_type``, ``outcome``, ``key_decisions``, ``lesson``,
    ``entities`` and ``failed`` (True for failure and aborted); the memory model's own episodic fields
    are filled too. ``query`` (when to recall it) is "Before a task like: <goal>".
    ``source`` is ``agent_inferred``: the record is the agent's account and a reflection, not
    something the user stated.

    Raises:
        pydantic.ValidationError: only if the limits of ``domain.reflection`` and ``domain.limits``
            drift apart (the record's bounds are chosen so that the draft always fits).
    """
    metadata: dict[str, JsonValue] = {
        "task_id": report.task_id,
        "task_type": record.task_type,
        "outcome": record.outcome,
        "key_decisions": list(record.key_decisions),
        "lesson": record.lesson,
        "entities": record.model_dump(mode="json")["entities"],
        "failed": record.failed,
    }
    goal = " ".join(report.goal.split())
    hint = f"Before a task like: {goal}"
    if len(hint) > MAX_RECALL_HINT_CHARS:
        hint = hint[: MAX_RECALL_HINT_CHARS - 1] + "…"
    return MemoryDraft(
        content=episode_content(record),
        layer="episodic",
        key=f"{EPISODE_KEY_PREFIX}{record.task_type}",
        query=hint,
        importance=OUTCOME_IMPORTANCE[record.outcome],
        metadata=metadata,
        occurred_at=report.occurred_at,
        source="agent_inferred",
        tags=["task", f"task:{record.task_type}", f"outcome:{record.outcome}"],
        entities=dict(record.entities),
        task_id=report.task_id,
        task_type=record.task_type,
        outcome=record.outcome,
        summary=record.summary,
        key_decisions=list(record.key_decisions),
        lessons=record.lesson,
    )


class Reflect:
    """Post-task retrospective: report → episode record → episodic memory draft.

    Call it from a ``finally`` when a top-level task ends, whatever the ending. Queue the draft like
    any other write (this use case stores nothing itself).
    """

    def __init__(self, reflector: Reflector) -> None:
        self._reflector = reflector

    async def __call__(self, report: TaskReport) -> Reflection:
        """Raises ReflectionFailed when the reflector cannot produce a valid record."""
        record = await self._reflector.reflect(report)
        return Reflection(record=record, draft=episode_draft(report, record))


class WriteVerdict(BaseModel):
    """Whether to remember a text, and who decided: the rules, the judge, or the default when the
    rules were unsure and no judge answered."""

    model_config = ConfigDict(frozen=True)

    remember: bool
    decided_by: Literal["rules", "judge", "default"]
    rules: WriteDecision


class ShouldRemember:
    """The rules-first write filter: rules decide; the judge is asked only when they return None.

    ``when_unsure`` is the answer when the rules are unsure and there is no judge, or the judge fails
    (``JudgeFailed`` is logged, not raised). It defaults to True: a missed fact cannot be recalled,
    while an extra memory is merged by dedup or fades by decay.
    """

    def __init__(self, judge: WriteJudge | None = None, *, when_unsure: bool = True) -> None:
        self._judge = judge
        self._when_unsure = when_unsure

    async def __call__(self, text: str, role: Role | None = None) -> WriteVerdict:
        """Decide for ``text`` written by ``role`` (if known). Never raises for judge failures."""
        rules = decide(text, role)
        if rules.remember is not None:
            return WriteVerdict(remember=rules.remember, decided_by="rules", rules=rules)
        if self._judge is not None:
            try:
                verdict = await self._judge.judge(text)
            except JudgeFailed as exc:
                log.warning("write judge failed, using the default (%s): %s", self._when_unsure, exc)
            else:
                return WriteVerdict(remember=verdict, decided_by="judge", rules=rules)
        return WriteVerdict(remember=self._when_unsure, decided_by="default", rules=rules)


class ReflectionAck(BaseModel):
    """The answer to task_reflect: the id the episodic memory will have, and that it is queued."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: Literal["queued"] = "queued"
    submitted_at: datetime


REPORT_TEXT_FIELDS = ("task_id", "goal", "steps", "error", "entities")


class SubmitReflection:
    """``task_reflect``: redact the report and queue it for the reflection worker; answer at once.

    The memory id is derived from the task id (``remember.job_id``), so reporting the same task twice
    (a retried ``finally``) yields one episode.
    """

    def __init__(
        self, queue: JobQueue, clock: Clock, redactor: Redactor, operations: OperationLog | None = None
    ) -> None:
        self._operations = operations
        self._queue = queue
        self._clock = clock
        self._redactor = redactor

    async def __call__(self, principal: Principal, agent_id: str | None, report: TaskReport) -> ReflectionAck:
        """Raises Forbidden (read-only key, agent not allowed), InvalidInput (the job would be over
        MAX_JOB_BYTES) or Unavailable (queue down)."""
        principal.require_write()
        scope = principal.scope(agent_id)
        report = redact_model(self._redactor, report, REPORT_TEXT_FIELDS)
        now = self._clock.now()
        job = ReflectJob(
            id=job_id(scope.tenant_id, scope.agent_id, f"task:{report.task_id}"),
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            submitted_at=now,
            report=report,
        )
        ensure_job_fits(job.model_dump_json(), report.model_dump(mode="json", exclude_none=True))
        await self._queue.enqueue(job)
        if self._operations is not None:
            await self._operations.record_queued(job)
        return ReflectionAck(id=job.id, submitted_at=now)
