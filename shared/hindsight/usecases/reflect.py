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

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hindsight.domain.auth import Principal
from hindsight.domain.errors import JudgeFailed
from hindsight.domain.limits import MAX_RECALL_HINT_CHARS, ensure_job_fits
from hindsight.domain.memory import MemoryDraft, Outcome, canonical_digest, check_outcome_time
from hindsight.domain.redaction import Redactor, ensure_key_unredacted, redact_model
from hindsight.domain.reflection import EpisodeRecord, ReflectJob, TaskReport
from hindsight.domain.trust import importance_cap
from hindsight.domain.write_filter import Role, WriteDecision, decide
from hindsight.ports import (
    Clock,
    IdempotencyRecords,
    JobQueue,
    OperationLog,
    Reflector,
    WriteJudge,
)
from hindsight.usecases.remember import claim_first, reflection_id, trusted_as_first

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
    """The answer to task_reflect: the id the episodic memory will have, and that it is queued. The
    optional fields mean what ``remember.WriteAck``'s do (memory_write's answer)."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: Literal["queued"] = "queued"
    submitted_at: datetime
    importance_capped_from: float | None = Field(
        default=None,
        description="The importance the outcome gives an episode, when it is lowered to 0.5: a reflection is "
        "an agent_inferred memory, and the key is not trusted.",
    )
    redacted: list[str] | None = Field(
        default=None,
        description="What redaction replaced in the report before anything was queued (e.g. ['email']): the "
        "stored episode reads [REDACTED:<kind>] there.",
    )
    replayed: bool | None = Field(
        default=None,
        description="True when this task_id was already reported with the same report: this is the first "
        "call's answer, and the episode is stored once.",
    )


REPORT_TEXT_FIELDS = ("goal", "steps", "error", "entities")
"""TaskReport fields redacted before the report is queued; ``task_id`` is an identifier, refused rather
than rewritten (``ensure_key_unredacted``)."""


def report_fingerprint(report: TaskReport) -> str:
    """SHA-256 hex of a task report as canonical JSON (sorted keys, defaults filled in): two reports with
    the same fingerprint are the same report. Bound to the task id at its first report."""
    return canonical_digest(report.model_dump(mode="json"))


class SubmitReflection:
    """``task_reflect``: redact the report and queue it for the reflection worker; answer at once.

    The memory id is derived from the task id (``remember.reflection_id``, a namespace of its own: no
    memory_write ``idempotency_key`` names it), so reporting the same task twice (a retried ``finally``)
    yields one episode. The task id is the report's idempotency key: bound to the
    report's fingerprint at its first use (``IdempotencyRecords``, as memory_write binds its
    idempotency_key), a repeat of the same report is answered as the first (``replayed``), a different
    report under the same task id is refused (``IdempotencyKeyReused`` on ``task_id``): the first
    report's episode is the one stored, so a second one would otherwise be dropped unsaid.

    A reflection is an ``agent_inferred`` memory, so from an untrusted key its importance is capped as
    any untrusted inference's (``domain.trust``; the worker applies ``admit_draft`` to the draft, the
    answer says ``importance_capped_from``). A replay, from whichever key, is admitted with the first
    report's trust: it answers the first call's cap, and its job, should the first be lost, is stored
    as the first would have been.
    """

    def __init__(
        self,
        queue: JobQueue,
        clock: Clock,
        redactor: Redactor,
        operations: OperationLog | None = None,
        idempotency: IdempotencyRecords | None = None,
    ) -> None:
        self._operations = operations
        self._queue = queue
        self._clock = clock
        self._redactor = redactor
        self._idempotency = idempotency

    async def __call__(self, principal: Principal, agent_id: str | None, report: TaskReport) -> ReflectionAck:
        """Raises Forbidden (read-only key, agent not allowed), InvalidInput (a task_id redaction would
        change; the job would be over MAX_JOB_BYTES), IdempotencyKeyReused (the task_id was reported with
        a different report) or Unavailable (queue down)."""
        principal.require_write("task_reflect")
        scope = principal.scope(agent_id)
        ensure_key_unredacted(self._redactor, report.task_id, "task_id", "task id", "deploy-9")
        fingerprint = report_fingerprint(report)  # the caller's report, before we change it
        redacted: set[str] = set()
        report = redact_model(self._redactor, report, REPORT_TEXT_FIELDS, redacted)
        now = self._clock.now()
        check_outcome_time(report.outcome, report.occurred_at, now, "occurred_at")  # trial7 M4
        job = ReflectJob(
            id=reflection_id(scope.tenant_id, scope.agent_id, report.task_id),
            tenant_id=scope.tenant_id,
            agent_id=scope.agent_id,
            submitted_at=now,
            report=report,
            trusted=principal.trusted,
        )
        ensure_job_fits(job.model_dump_json(), report.model_dump(mode="json", exclude_none=True))
        first = await claim_first(
            self._idempotency, job.tenant_id, job.id, fingerprint, now, "task_id", principal.trusted
        )
        trusted = trusted_as_first(first, principal.trusted)  # a replay repeats the first call's cap
        if first is not None:
            job = job.model_copy(update={"submitted_at": first.submitted_at, "trusted": trusted})
        try:
            await self._queue.enqueue(job)  # a replay too: the first may be lost; the worker stores once
        except Exception:
            if first is None and self._idempotency is not None:
                await self._idempotency.release(job.tenant_id, job.id)
            raise
        if self._operations is not None:
            await self._operations.record_queued(job)
        asked = OUTCOME_IMPORTANCE[report.outcome]
        cap = importance_cap("agent_inferred", (), trusted)  # an inference: capped whatever the text
        return ReflectionAck(
            id=job.id,
            submitted_at=job.submitted_at,
            importance_capped_from=asked if cap is not None and asked > cap else None,
            redacted=sorted(redacted) or None,
            replayed=True if first else None,
        )
