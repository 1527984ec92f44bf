"""Scheduled maintenance (spec "Forgetting and maintenance"): decay and archive, consolidation of repeated
events, episodic → semantic patterns, the working-memory sweep and the stuck-work sweep.

One *cycle* runs the steps in ``domain.maintenance.STEPS`` order over every (tenant, agent) scope. A run
is time-boxed: the first unit of work (one decay batch, one scope's clustering, one Redis SCAN page, …)
always runs, so even a tiny budget makes progress; after that the run stops cleanly once the budget is
spent. The cycle's state (step, last scope finished, SCAN cursor) is saved after every scope under a
lease, and the next run resumes there; a unit cut short is simply redone, because every step is
idempotent (decayed rows are not due again, archived originals are not candidates again, patterns have
derived ids). Only one run works on a cycle at a time (the lease); a second one reports itself skipped.

The rules themselves live in ``hindsight.domain.maintenance``; the writes in the ``MaintenanceStore``;
what a run reports in ``hindsight.usecases.maintenance_report``.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta

from hindsight.domain.counts import counted
from hindsight.domain.errors import Unavailable
from hindsight.domain.ids import uuid7
from hindsight.domain.maintenance import (
    STEPS,
    ConsolidationPolicy,
    DecayPolicy,
    MaintenanceState,
    PatternPolicy,
    StepName,
    cluster_episodes,
    find_patterns,
    plan_consolidation,
    summary_misdescribes_members,
    summary_misrepresents_members,
    summary_quotes_members,
)
from hindsight.domain.memory import MemoryDraft, MemoryStatus, Scope
from hindsight.domain.text import passage_text
from hindsight.ports import Clock, Embedder, MaintenanceStore, StuckWorkSweeper, WorkingMemorySweeper
from hindsight.usecases.maintenance_report import MaintenanceReport, StepReport, StepStatus

log = logging.getLogger(__name__)

LEASE_MARGIN = timedelta(seconds=60)
"""Added to the budget for the cycle lease: a run that overruns its budget by a unit still holds it."""
SCOPE_PAGE = 100
"""Scopes listed per query."""
MAX_CONSECUTIVE_ERRORS = 3
"""A scope that fails is counted and skipped until the next cycle; this many failing in a row (the
database went away) stops the step and the run."""


@dataclass(frozen=True)
class MaintenancePolicy:
    """Every constant a run uses; built from Settings (``factories.maintenance_policy``).

    ``budget``: time a run may take (the Lambda timeout minus a margin). ``batch_size``: rows per decay
    statement and consolidation candidates per scope. ``evidence_limit``: episodes read per scope for
    patterns (no embeddings, content cut to 2 000 characters). ``session_ttl_s``: TTL given to a
    working-memory session found without one. ``sessions_per_page``: Redis SCAN COUNT hint.
    ``stuck_after``: age at which a queued job counts as stuck.
    """

    decay: DecayPolicy = field(default_factory=DecayPolicy)
    consolidation: ConsolidationPolicy = field(default_factory=ConsolidationPolicy)
    patterns: PatternPolicy = field(default_factory=PatternPolicy)
    budget: timedelta = timedelta(seconds=240)
    batch_size: int = 500
    evidence_limit: int = 5000
    session_ttl_s: int = 1800
    sessions_per_page: int = 500
    stuck_after: timedelta = timedelta(hours=1)


class _LeaseLost(Exception):
    """Another run took the cycle's lease (ours expired): stop without saving anything more."""


class _Budget:
    """The run's time box, on a monotonic timer (seconds). The first unit is always allowed."""

    def __init__(self, seconds: float, timer: Callable[[], float]) -> None:
        self._timer = timer
        self._deadline = timer() + seconds
        self.units = 0

    def spend(self) -> None:
        self.units += 1

    def exhausted(self) -> bool:
        return self.units > 0 and self._timer() >= self._deadline


@dataclass
class _Run:
    name: str
    owner: str
    tenant_id: str | None
    budget: _Budget
    lease: timedelta
    state: MaintenanceState


ScopeWork = Callable[[Scope, Counter[str]], Awaitable[bool]]
"""Work on one scope; returns False when the budget ran out before the scope was finished."""


class Maintain:
    """The maintenance use case: ``await maintain.run()`` once per schedule tick."""

    def __init__(
        self,
        store: MaintenanceStore,
        embedder: Embedder,
        clock: Clock,
        policy: MaintenancePolicy,
        sessions: WorkingMemorySweeper | None = None,
        stuck: StuckWorkSweeper | None = None,
        timer: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock
        self._policy = policy
        self._sessions = sessions
        self._stuck = stuck
        self._timer = timer

    async def run(
        self, *, budget: timedelta | None = None, tenant_id: str | None = None
    ) -> MaintenanceReport:
        """Run (or resume) the maintenance cycle for at most ``budget`` (default: the policy's).

        ``tenant_id`` limits the run to one tenant's scopes and working memory, with a cycle state of its
        own (the scheduled cycle is not disturbed); the stuck-work sweep, which is not per tenant, is
        skipped then. Raises only what the lease bookkeeping raises (database unreachable); errors inside
        steps are reported.
        """
        budget = budget if budget is not None else self._policy.budget
        started_at, t0 = self._clock.now(), self._timer()
        owner = str(uuid7())
        name = "cycle" if tenant_id is None else f"tenant:{tenant_id}"
        lease = budget + LEASE_MARGIN
        state = await self._store.acquire(name, owner, lease)

        def report(steps: list[StepReport], finished: bool, resumed: bool) -> MaintenanceReport:
            return MaintenanceReport(
                run_id=owner,
                tenant_id=tenant_id,
                started_at=started_at,
                duration_s=round(self._timer() - t0, 3),
                budget_s=budget.total_seconds(),
                finished=finished,
                resumed=resumed,
                steps=steps,
            )

        if state is None:
            held = "another maintenance run holds the lease of this cycle"
            return report([StepReport(name=s, status="skipped", detail=held) for s in STEPS], False, False)
        resumed = state.step is not None
        if state.step is None:
            state = replace(state, step=STEPS[0], cursor=None, position=None, cycle_started_at=started_at)
        run = _Run(name, owner, tenant_id, _Budget(budget.total_seconds(), self._timer), lease, state)
        steps: list[StepReport] = []
        finished = False
        try:
            if not resumed and not await self._store.save(name, owner, state, lease):
                held = "the lease was lost to another run"
                return report(
                    [StepReport(name=s, status="skipped", detail=held) for s in STEPS], False, False
                )
            steps, finished = await self._cycle(run)
        finally:
            try:
                await self._store.release(name, owner)
            except Exception as exc:  # the lease expires by itself; the report matters more
                log.warning("could not release the maintenance lease: %s", exc)
        result = report(steps, finished, resumed)
        log.info(
            "maintenance run %s: finished=%s in %.2fs; %s",
            owner,
            finished,
            result.duration_s,
            "; ".join(f"{s.name} {s.status} {dict(s.counts)}" for s in steps),
        )
        return result

    # ---- the cycle -------------------------------------------------------------------------------

    async def _cycle(self, run: _Run) -> tuple[list[StepReport], bool]:
        assert run.state.step is not None
        if run.state.step not in STEPS:  # a step of another version (one rolled back): begin the cycle anew
            log.warning("maintenance cycle at unknown step %r: starting a new cycle", run.state.step)
            run.state = replace(run.state, step=STEPS[0], cursor=None, position=None)
        start = STEPS.index(run.state.step)
        reports: list[StepReport] = []
        stopped: str | None = None
        for index, step in enumerate(STEPS):
            if index < start:
                reports.append(StepReport(name=step, status="skipped", detail="done earlier in this cycle"))
                continue
            if stopped is not None:
                reports.append(StepReport(name=step, status="skipped", detail=stopped))
                continue
            began = self._timer()
            try:
                step_report, complete = await self._step(step, run)
            except _LeaseLost:
                reports.append(StepReport(name=step, status="failed", detail="lease lost to another run"))
                stopped = "not reached: the lease was lost"
                continue
            reports.append(step_report.model_copy(update={"duration_s": round(self._timer() - began, 3)}))
            if not complete:
                stopped = "not reached: resumes next run"
                continue
            following = STEPS[index + 1] if index + 1 < len(STEPS) else None
            if following is None:  # the cycle is complete: the next run starts a new one
                run.state = MaintenanceState(changed_since=run.state.cycle_started_at)
            else:
                run.state = replace(run.state, step=following, cursor=None, position=None)
            if not await self._store.save(run.name, run.owner, run.state, run.lease):
                stopped = "not reached: the lease was lost"
        return reports, stopped is None

    async def _step(self, step: StepName, run: _Run) -> tuple[StepReport, bool]:
        """One step from where the cycle stands; ``complete`` False when it must be resumed."""
        if step == "working_memory":
            return await self._working_memory(run)
        if step == "stuck_work":
            return await self._stuck_work(run)
        work: dict[str, Callable[[_Run], ScopeWork]] = {
            "decay": self._decay,
            "consolidate": self._consolidate,
            "extract_patterns": self._extract_patterns,
            "key_case": self._key_case,
            "keyword_stats": self._keyword_stats,
        }
        counts: Counter[str] = Counter()
        try:
            status, detail = await self._walk(run, work[step](run), counts)
        except _LeaseLost:
            raise
        except Exception as exc:
            log.exception("maintenance step %s failed", step)
            return StepReport(name=step, status="failed", counts=dict(counts), detail=_describe(exc)), False
        return StepReport(name=step, status=status, counts=dict(counts), detail=detail), status == "done"

    async def _walk(self, run: _Run, work: ScopeWork, counts: Counter[str]) -> tuple[StepStatus, str | None]:
        """Visit scopes after the cycle's cursor, saving the cursor after each one finished."""
        last_error: str | None = None
        consecutive = 0
        while True:
            page = await self._store.scopes(run.state.cursor, SCOPE_PAGE, run.tenant_id)
            if not page:
                failed = counted(counts["errors"], "scope")
                return "done", last_error and f"{failed} failed; last: {last_error}"
            for scope in page:
                if run.budget.exhausted():
                    return "partial", "out of time: resumes next run"
                try:
                    if not await work(scope, counts):
                        return "partial", "out of time: resumes next run"
                    consecutive = 0
                except Exception as exc:
                    consecutive += 1
                    counts["errors"] += 1
                    last_error = f"{scope.tenant_id}/{scope.agent_id}: {_describe(exc)}"
                    log.warning("maintenance failed on scope %s", last_error)
                    if consecutive >= MAX_CONSECUTIVE_ERRORS:
                        raise
                counts["scopes"] += 1
                run.state = replace(run.state, cursor=scope)
                if not await self._store.save(run.name, run.owner, run.state, run.lease):
                    raise _LeaseLost

    # ---- the scope steps -----------------------------------------------------------------------

    def _decay(self, run: _Run) -> ScopeWork:
        policy, batch = self._policy.decay, self._policy.batch_size

        async def work(scope: Scope, counts: Counter[str]) -> bool:
            while True:
                done = await self._store.decay(scope, policy, self._clock.now(), batch)
                run.budget.spend()
                counts["decayed"] += done.decayed
                counts["archived"] += done.archived
                if done.decayed < batch:
                    return True
                if run.budget.exhausted():
                    return False

        return work

    async def _unchanged(self, run: _Run, scope: Scope, statuses: tuple[MemoryStatus, ...]) -> bool:
        since = run.state.changed_since
        if since is None:
            return False
        changed = await self._store.episodes_changed_since(scope, since, statuses)
        run.budget.spend()
        return not changed

    def _consolidate(self, run: _Run) -> ScopeWork:
        policy = self._policy.consolidation

        async def work(scope: Scope, counts: Counter[str]) -> bool:
            if not await self._recheck_summaries(run, scope, counts):
                return False
            if await self._unchanged(run, scope, ("active",)):
                counts["unchanged"] += 1
                return True
            now = self._clock.now()
            candidates = await self._store.consolidation_candidates(
                scope, now - policy.window, self._policy.batch_size
            )
            run.budget.spend()
            counts["candidates"] += len(candidates)
            for cluster in cluster_episodes(candidates, policy):
                if run.budget.exhausted():
                    return False
                plan = plan_consolidation(scope, cluster)
                if plan is None:  # the summary could not quote every member in full: archive nothing
                    counts["kept_apart"] += 1
                    continue
                if await self._store.consolidate(scope, plan, self._clock.now()):
                    counts["summaries"] += 1
                    counts["archived"] += len(plan.member_ids)
                run.budget.spend()
            return True

        return work

    async def _recheck_summaries(self, run: _Run, scope: Scope, counts: Counter[str]) -> bool:
        """Check the scope's summaries of an earlier merge rule (``domain.maintenance.consolidation``): undo
        those that hide a word of a member or stand for members that say different things
        (``summary_misrepresents_members``), leave a member's wording unquoted (``summary_quotes_members``)
        or do not carry the members' entities, metadata and shared_with (``summary_misdescribes_members``),
        mark the others checked. Runs whether or not the scope
        changed, since these summaries predate the rule; False when the budget ran out first."""
        while True:
            batch = await self._store.unchecked_summaries(scope, self._policy.batch_size)
            run.budget.spend()
            if not batch:
                return True
            kept = []
            for summary, members in batch:
                if members and (
                    summary_misrepresents_members(
                        summary.searchable_text, [m.searchable_text for m in members]
                    )
                    or not summary_quotes_members(summary.content, members)
                    or summary_misdescribes_members(summary, members)
                ):
                    counts["summaries_undone"] += 1
                    counts["restored"] += await self._store.undo_consolidation(
                        scope, summary.id, self._clock.now()
                    )
                else:
                    kept.append(summary.id)
            if kept:
                await self._store.mark_summaries_checked(scope, kept)
                counts["summaries_checked"] += len(kept)
            if len(batch) < self._policy.batch_size:
                return True
            if run.budget.exhausted():
                return False

    def _key_case(self, run: _Run) -> ScopeWork:
        """Keys an older version stored as written during a deploy, brought to their stored form. Only the
        scope's keyed rows written or changed since the last completed cycle are examined (one statement;
        a scope with none counts ``unchanged``), so the step's cost follows what was written, not the size
        of the scope."""

        async def work(scope: Scope, counts: Counter[str]) -> bool:
            done = await self._store.settle_key_case(scope, run.state.changed_since)
            run.budget.spend()
            if done is None:
                counts["unchanged"] += 1
            else:
                counts.update(done.as_counts())
            return True

        return work

    def _keyword_stats(self, run: _Run) -> ScopeWork:
        async def work(scope: Scope, counts: Counter[str]) -> bool:
            lexemes = await self._store.refresh_keyword_stats(scope)
            run.budget.spend()
            if lexemes is None:
                counts["unchanged"] += 1
            else:
                counts["lexemes"] += lexemes
                counts["scopes"] += 1
            return True

        return work

    def _extract_patterns(self, run: _Run) -> ScopeWork:
        policy = self._policy.patterns

        async def work(scope: Scope, counts: Counter[str]) -> bool:
            if await self._unchanged(run, scope, ("active", "archived")):
                counts["unchanged"] += 1
                return True
            now = self._clock.now()
            evidence = await self._store.pattern_evidence(
                scope, now - policy.window, self._policy.evidence_limit
            )
            run.budget.spend()
            plans = find_patterns(scope, evidence, policy)
            if not plans:
                return True
            known = await self._store.statuses(scope, [p.memory_id for p in plans])
            # A preference taken back by a later episode is not inferred (domain.maintenance.patterns).
            if withheld := sum(1 for p in plans if p.contested_by and p.memory_id not in known):
                counts["contested"] += withheld
            new = [p for p in plans if p.memory_id not in known and not p.contested_by]
            if new:
                texts = [
                    passage_text(MemoryDraft(content=p.content, query=p.query, layer="semantic")) for p in new
                ]
                embeddings = await self._embedder.embed_passages(texts)
                for plan, embedding in zip(new, embeddings, strict=True):
                    if await self._store.create_pattern(scope, plan, embedding, now):
                        counts["created"] += 1
            for plan in plans:
                status = known.get(plan.memory_id)
                if status == "active":
                    counts["evidence_linked"] += await self._store.extend_pattern(scope, plan, now)
                elif (
                    status == "archived"
                    and not plan.contested_by
                    and await self._store.reinstate_pattern(scope, plan, now)
                ):
                    counts["reinstated"] += 1  # withdrawn by an edit of its evidence, stated enough again
                elif status is not None:
                    counts["left_alone"] += 1  # forgotten, superseded or archived: never brought back
            run.budget.spend()
            return True

        return work

    # ---- the sweeps ----------------------------------------------------------------------------

    async def _working_memory(self, run: _Run) -> tuple[StepReport, bool]:
        """Give any working-memory session without a TTL the session TTL. Sessions are written with a TTL
        in the same MULTI/EXEC as their items and Redis deletes expired and emptied hashes itself, so
        normally this finds nothing; it repairs sessions written by hand or by an older version. A
        failure (Redis down) is reported and the cycle moves on: the next cycle sweeps again."""
        if self._sessions is None:
            return StepReport(name="working_memory", status="skipped", detail="no working-memory store"), True
        counts: Counter[str] = Counter()
        cursor = int(run.state.position or 0)
        try:
            while True:
                if run.budget.exhausted():
                    return StepReport(
                        name="working_memory",
                        status="partial",
                        counts=dict(counts),
                        detail="out of time: resumes next run",
                    ), False
                page = await self._sessions.sweep_sessions(
                    cursor, self._policy.sessions_per_page, self._policy.session_ttl_s, run.tenant_id
                )
                run.budget.spend()
                counts["scanned"] += page.scanned
                counts["repaired"] += page.repaired
                cursor = page.next_cursor
                if cursor == 0:
                    return StepReport(name="working_memory", status="done", counts=dict(counts)), True
                run.state = replace(run.state, position=str(cursor))
                if not await self._store.save(run.name, run.owner, run.state, run.lease):
                    raise _LeaseLost
        except _LeaseLost:
            raise
        except Unavailable as exc:
            return StepReport(
                name="working_memory", status="failed", counts=dict(counts), detail=str(exc)
            ), True
        except Exception as exc:
            log.exception("working-memory sweep failed")
            detail = _describe(exc)
            return StepReport(
                name="working_memory", status="failed", counts=dict(counts), detail=detail
            ), True

    async def _stuck_work(self, run: _Run) -> tuple[StepReport, bool]:
        """Re-enqueue write jobs queued longer than ``stuck_after`` and never processed (the optional
        ``StuckWorkSweeper``). The queue is shared by every tenant, so one-tenant runs skip it."""
        if run.tenant_id is not None:
            return StepReport(name="stuck_work", status="skipped", detail="not per tenant"), True
        if self._stuck is None:
            return StepReport(name="stuck_work", status="skipped", detail="no sweeper"), True
        run.budget.spend()
        try:
            requeued = await self._stuck.sweep(self._policy.stuck_after)
        except Exception as exc:
            log.warning("stuck-work sweep failed: %s", exc)
            return StepReport(name="stuck_work", status="failed", detail=_describe(exc)), True
        return StepReport(name="stuck_work", status="done", counts={"requeued": requeued}), True


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"[:500]
