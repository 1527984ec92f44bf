"""Maintenance rules (decay, consolidation, patterns) and the Maintain use case's cycle on fakes."""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from uuid import UUID

import numpy as np
import pytest

from hindsight.domain.maintenance import (
    CONSOLIDATION_RULE,
    CONTEST_SENTENCES,
    STEPS,
    SUMMARY_MAX_VARIANTS,
    ConsolidationPlan,
    ConsolidationPolicy,
    DecayCounts,
    DecayPolicy,
    Episode,
    KeyCaseCounts,
    MaintenanceState,
    PatternPlan,
    PatternPolicy,
    SessionSweep,
    cluster_episodes,
    contested,
    decay_anchor,
    decay_step,
    decayed_importance,
    find_patterns,
    normalise_statement,
    plan_consolidation,
    preference_statement,
    regroup,
    summary_hides_members,
    summary_misrepresents_members,
    summary_quotes_members,
    summary_span,
)
from hindsight.domain.memory import MemoryStatus, Scope
from hindsight.usecases.maintain import Maintain, MaintenancePolicy
from tests.unit.fakes import FixedClock

pytestmark = pytest.mark.anyio
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SCOPE = Scope(tenant_id="t", agent_id="a")
POLICY = DecayPolicy()


# --- decay -----------------------------------------------------------------------------------------------


def test_importance_halves_after_one_half_life_per_layer() -> None:
    assert decayed_importance(0.8, timedelta(days=30), POLICY.half_life("episodic")) == pytest.approx(0.4)
    assert decayed_importance(0.8, timedelta(days=180), POLICY.half_life("semantic")) == pytest.approx(0.4)
    assert decayed_importance(0.8, timedelta(days=60), POLICY.half_life("episodic")) == pytest.approx(0.2)
    assert decayed_importance(0.8, -timedelta(days=1), POLICY.half_life("episodic")) == 0.8


def test_decay_counts_from_the_latest_of_access_change_and_decay() -> None:
    created = NOW - timedelta(days=90)
    assert decay_anchor(created) == created
    assert decay_anchor(created, NOW - timedelta(days=5), None, NOW - timedelta(days=10)) == NOW - timedelta(
        days=5
    )
    assert decay_anchor(created, None, NOW - timedelta(days=1), NOW - timedelta(days=3)) == NOW - timedelta(
        days=1
    )
    # a fact that holds from a later date is not idle before it holds (new-user trial F7)
    ahead = NOW + timedelta(days=30)
    assert decay_anchor(created, None, None, None, ahead) == ahead
    assert decay_step(0.5, "semantic", "active", ahead, NOW, POLICY) is None


def test_decay_step_is_due_only_when_it_takes_at_least_min_step_off() -> None:
    step = decay_step(0.8, "episodic", "active", NOW - timedelta(days=30), NOW, POLICY)
    assert step is not None
    assert step.after == pytest.approx(0.4)
    assert not step.archive
    # Just decayed: the same interval is never decayed twice.
    assert decay_step(0.4, "episodic", "active", NOW, NOW, POLICY) is None
    assert decay_step(0.4, "episodic", "active", NOW - timedelta(minutes=15), NOW, POLICY) is None


def test_core_and_inactive_memories_are_exempt() -> None:
    old = NOW - timedelta(days=365)
    assert decay_step(0.9, "episodic", "active", old, NOW, POLICY) is None
    assert decay_step(0.95, "semantic", "active", old, NOW, POLICY) is None
    for status in ("archived", "superseded", "forgotten"):
        assert decay_step(0.5, "episodic", status, old, NOW, POLICY) is None  # type: ignore[arg-type]


def test_a_step_that_goes_under_the_cold_threshold_archives() -> None:
    step = decay_step(0.5, "episodic", "active", NOW - timedelta(days=30), NOW, POLICY)
    assert step is not None
    assert step.after == pytest.approx(0.25)
    assert step.archive
    just_above = decay_step(0.62, "episodic", "active", NOW - timedelta(days=30), NOW, POLICY)
    assert just_above is not None
    assert not just_above.archive


def test_decay_policy_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="half-lives"):
        DecayPolicy(episodic_half_life=timedelta(0))
    with pytest.raises(ValueError, match="cold_threshold"):
        DecayPolicy(cold_threshold=0.95)
    with pytest.raises(ValueError, match="min_step"):
        DecayPolicy(min_step=0)


def test_the_number_of_decay_steps_is_bounded_by_min_step() -> None:
    importance, anchor, steps = 0.89, NOW, 0
    for day in range(1, 2000):
        now = NOW + timedelta(days=day)
        step = decay_step(importance, "semantic", "active", anchor, now, POLICY)
        if step is not None:
            importance, anchor, steps = step.after, now, steps + 1
            if step.archive:
                break
    assert importance < 0.3
    assert steps <= math.ceil((0.89 - 0.3) / POLICY.min_step) + 1


# --- consolidation -------------------------------------------------------------------------------------


def _unit(v: np.ndarray) -> list[float]:
    return [float(x) for x in v / np.linalg.norm(v)]


def _direction(seed: int, dim: int = 32) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=dim)


def _near(base: np.ndarray, seed: int, noise: float = 0.05) -> list[float]:
    jitter = _direction(1000 + seed)
    return _unit(base + noise * np.linalg.norm(base) * jitter / np.linalg.norm(jitter))


def _episode(content: str, embedding: Sequence[float] = (), days_ago: float = 1, **fields: object) -> Episode:
    return Episode(
        id=uuid.uuid4(),
        content=content,
        event_time=NOW - timedelta(days=days_ago),
        importance=float(fields.pop("importance", 0.5)),  # type: ignore[arg-type]
        embedding=embedding,
        **fields,  # type: ignore[arg-type]
    )


def test_near_identical_episodes_cluster_and_unrelated_ones_do_not() -> None:
    backup = _direction(1)
    cluster = [
        _episode(text, _near(backup, i), i)
        for i, text in enumerate(
            (
                "Nightly backup finished in 12 minutes",
                "nightly backup finished in 12 minutes.",
                "Nightly backup: finished in 12 minutes",
            )
        )
    ]
    others = [_episode(f"unrelated {i}", _unit(_direction(50 + i)), 2) for i in range(4)]
    found = cluster_episodes([*others, *cluster], ConsolidationPolicy())
    assert [{e.id for e in c} for c in found] == [{e.id for e in cluster}]
    assert [e.event_time for e in found[0]] == sorted(e.event_time for e in cluster)


def test_events_that_differ_in_an_id_a_number_a_status_or_a_name_are_never_merged() -> None:
    base = _direction(6)
    requests = [
        _episode(f"Service request RQ-{5100 + n} from Lisbon: VPN drops. Status: {status}", _near(base, n), 1)
        for n, status in enumerate(["open"] * 6 + ["escalated"], start=1)
    ]
    durations = [_episode(f"Backup finished in {m} minutes", _near(base, 20 + m), 1) for m in (11, 12, 14)]
    people = [_episode(f"{name} approved the refund", _near(base, 40 + i), 1) for i, name in enumerate("ABC")]
    assert cluster_episodes([*requests, *durations, *people], ConsolidationPolicy(cosine=0.5)) == []
    # … but the same words in another case or punctuation are one event repeated
    same = [
        requests[0],
        _episode("service request rq-5101 from Lisbon, VPN drops. STATUS: OPEN", _near(base, 60), 1),
        _episode("Service request RQ-5101 from Lisbon - VPN drops - status open", _near(base, 61), 1),
    ]
    moved = _episode("status: OPEN. Service request RQ-5101 from Lisbon, VPN drops", _near(base, 62), 1)
    (cluster,) = cluster_episodes([*same, moved, *requests[1:]], ConsolidationPolicy(cosine=0.5))
    assert {e.id for e in cluster} == {e.id for e in same}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Charged the customer 50 EUR and refunded 20 EUR",
            "Charged the customer 20 EUR and refunded 50 EUR",
        ),
        ("The build passed, not failed", "The build failed, not passed"),
        ("Alice paid Bob 50 EUR", "Bob paid Alice 50 EUR"),
    ],
)
def test_the_same_words_in_another_order_are_another_event(first: str, second: str) -> None:
    # New-user trial: first, second, first on three days became "3 similar events …: first / Variants:
    # second", the originals archived.
    base = _direction(9)
    texts = [first, second, first, second]
    episodes = [_episode(t, _near(base, i), 4 - i) for i, t in enumerate(texts)]
    assert cluster_episodes(episodes, ConsolidationPolicy(cosine=0.5)) == []
    (cluster,) = cluster_episodes([*episodes, _episode(first, _near(base, 9), 0.5)], ConsolidationPolicy(0.5))
    assert [e.content for e in cluster] == [first] * 3
    assert summary_misrepresents_members(f"3 similar events: {first}\nVariants: {second}", [first, second])
    assert not summary_misrepresents_members(f"3 similar events: {first}", [first, first.upper() + "."])


def test_a_summary_spans_its_members_from_the_first_start_to_the_last_end() -> None:
    day = timedelta(days=1)
    at = [_episode("x", days_ago=d) for d in (3, 2, 1)]
    assert summary_span(at) == (at[0].event_time, at[2].event_time + timedelta(microseconds=1))
    # a partial member (occurred_at "2026-11-29", precision day) ends with its span
    partial = replace(at[1], event_end=at[2].event_time + day)
    assert summary_span([at[0], partial, at[2]]) == (at[0].event_time, at[2].event_time + day)
    same = [replace(at[0], id=uuid.uuid4()) for _ in range(3)]
    assert summary_span(same) == (at[0].event_time, None)  # one instant: no span


def test_a_summary_that_cannot_quote_every_member_archives_nothing() -> None:
    base = _direction(7)
    long_text = " ".join(f"step{i}" for i in range(600))  # ~4 800 characters: clipped in the summary
    members = [_episode(long_text, _near(base, i), i) for i in range(3)]
    assert plan_consolidation(SCOPE, members) is None
    assert summary_hides_members("3 similar events: RQ-5101 open", ["RQ-5101 open", "RQ-5102 open"])
    assert not summary_hides_members("3 similar events: RQ-5101 open", ["rq-5101: OPEN", "the RQ-5101 open"])


def test_two_repeats_are_not_enough_and_outcomes_are_never_merged() -> None:
    base = _direction(2)
    two = [_episode("deploy failed", _near(base, i), i, outcome="failure") for i in range(2)]
    other = [_episode("deploy failed", _near(base, 10 + i), i, outcome="success") for i in range(2)]
    assert cluster_episodes([*two, *other], ConsolidationPolicy()) == []
    three = [*two, _episode("deploy failed", _near(base, 7), 3, outcome="failure")]
    assert [len(c) for c in cluster_episodes([*three, *other], ConsolidationPolicy())] == [3]


def test_a_drifting_chain_is_pruned_to_members_near_its_centre() -> None:
    a, b = _direction(3), _direction(4)
    # a → … → b in small steps: each neighbour is similar, the ends are not.
    steps = [_unit((1 - t) * a / np.linalg.norm(a) + t * b / np.linalg.norm(b)) for t in np.linspace(0, 1, 9)]
    episodes = [_episode(f"step {i}", v, i) for i, v in enumerate(steps)]
    policy = ConsolidationPolicy(cosine=0.92)
    for c in cluster_episodes(episodes, policy):
        unit = np.asarray([e.embedding for e in c])
        centre = unit.mean(axis=0) / np.linalg.norm(unit.mean(axis=0))
        assert all(float(v @ centre) >= 0.92 for v in unit)


def test_the_summary_is_deterministic_and_carries_the_cluster() -> None:
    base = _direction(5)
    members = [
        _episode("Backup finished in 12 minutes", _near(base, 1), 3, importance=0.4, tags=("ops",)),
        _episode("backup: finished in 12 minutes!", _near(base, 2), 2, importance=0.7, tags=("db",)),
        _episode("Backup finished in 12 minutes", _near(base, 3), 1, importance=0.5, source="agent_inferred"),
    ]
    plan = plan_consolidation(SCOPE, members)
    again = plan_consolidation(SCOPE, list(members))
    other = plan_consolidation(Scope(tenant_id="t2", agent_id="a"), members)
    assert plan is not None
    assert again is not None
    assert other is not None
    assert plan.summary_id == again.summary_id
    assert plan.summary_id != other.summary_id
    assert plan.content.startswith(f"3 similar events from {members[0].event_time.date()} to ")
    assert "backup: finished in 12 minutes!" in plan.content
    assert plan.metadata["consolidation"]["rule"] == CONSOLIDATION_RULE  # type: ignore[index]
    assert plan.importance == 0.7
    assert plan.source == "agent_inferred"
    assert plan.tags == ["db", "ops"]
    # the span of the members: a time filter that finds one finds the summary (new-user trial M2)
    assert plan.occurred_at == members[0].event_time
    assert plan.occurred_end == members[-1].event_time + timedelta(microseconds=1)
    assert np.linalg.norm(plan.embedding) == pytest.approx(1.0)
    assert plan.metadata["consolidation"]["members"] == 3  # type: ignore[index]
    assert set(plan.member_ids) == {m.id for m in members}


def _written(content: str, days_ago: int, embedding: Sequence[float]) -> Episode:
    """An episode as the write path stores it: "yesterday" in its words, written ``days_ago`` days before
    NOW, so it happened the day before that (``Episode.anchor``: its words' own write time)."""
    at = NOW - timedelta(days=days_ago)
    return _episode(content, embedding, days_ago + 1, anchor=at)


@pytest.mark.parametrize(
    ("content", "note"),
    [
        ("Yesterday I deployed the billing service to production", "Yesterday ({}) I deployed"),
        ("我昨天把账单服务部署到了生产环境", "我昨天把账单服务部署到了生产环境（昨天 = {}）"),
    ],
)
def test_a_summary_of_members_written_on_different_days_says_which_day_each_was(
    content: str, note: str
) -> None:
    base = _direction(8)
    members = [_written(content, days_ago, _near(base, days_ago)) for days_ago in (3, 2, 1)]
    (cluster,) = cluster_episodes(members, ConsolidationPolicy())
    plan = plan_consolidation(SCOPE, cluster)
    assert plan is not None  # every word of every member is still in the summary
    for member in members:
        assert note.format(member.event_time.date().isoformat()) in plan.content
    # each quote carries its own date: three quotes, three dates (before, the one quote said "yesterday")
    assert len(re.findall(r"\d{4}-\d\d-\d\d(?=\)|）)", plan.content)) == 3


def test_a_summary_dates_the_representatives_hint_and_context_and_leaves_unanchored_words() -> None:
    base = _direction(9)
    members = [
        replace(
            _written("Restarted the API gateway after the outage", d, _near(base, d)),
            context="the outage last night",
            query="after an outage like yesterday's",
        )
        for d in (3, 2, 1)
    ]
    plan = plan_consolidation(SCOPE, members)
    assert plan is not None
    representative = next(m for m in members if m.id == plan.representative_id)
    day = (representative.anchor - timedelta(days=1)).date().isoformat()  # type: ignore[operator]
    assert plan.context == f"the outage last night ({day})"
    assert plan.query == f"after an outage like yesterday's ({day})"
    # without a certain anchor (a caller-given occurred_at) the words are quoted as written
    unanchored = [
        _episode("Yesterday I deployed the billing service", _near(base, 10 + d), d) for d in (3, 2, 1)
    ]
    plan = plan_consolidation(SCOPE, unanchored)
    assert plan is not None
    assert plan.content.endswith(": Yesterday I deployed the billing service")


# --- episodic → semantic -------------------------------------------------------------------------------


def test_statements_are_normalised_for_comparison() -> None:
    assert normalise_statement("  Back off on HTTP 429. ") == normalise_statement("back off on http 429")
    assert normalise_statement("“Use the staging DB first!”") == "use the staging db first"
    assert normalise_statement("- Retry on 429") == "retry on 429"
    # a value is never normalised away: two lessons that differ in a number are two patterns
    assert normalise_statement("-5 % fee on refunds") != normalise_statement("5 % fee on refunds")


def test_a_preference_statement_is_the_sentence_that_states_it() -> None:
    text = "Booked the flight to Lisbon. I prefer aisle seats. Paid by card."
    assert preference_statement(text) == "I prefer aisle seats"
    assert preference_statement("Booked the flight to Lisbon.") is None
    assert preference_statement("Changed the seat: I prefer aisle seats!") == "I prefer aisle seats"


def _failure(lesson: str, task_type: str = "modify", **fields: object) -> Episode:
    return _episode(
        f"task {uuid.uuid4().hex[:6]} failed",
        task_type=task_type,
        outcome="failure",
        lessons=lesson,
        **fields,
    )


def test_the_same_lesson_three_times_is_a_pattern() -> None:
    lesson = "Back off and retry when the payments API returns HTTP 429"
    episodes = [_failure(lesson), _failure(lesson.lower() + "."), _failure(lesson, importance=0.7)]
    plans = find_patterns(SCOPE, episodes, PatternPolicy())
    assert len(plans) == 1
    plan = plans[0]
    assert plan.kind == "lesson"
    assert plan.key.startswith("lesson:modify:")
    assert set(plan.evidence_ids) == {e.id for e in episodes}
    assert "3 modify tasks (failure ×3)" in plan.content
    assert plan.importance == 0.7
    assert find_patterns(SCOPE, list(reversed(episodes)), PatternPolicy())[0].memory_id == plan.memory_id


def test_too_few_episodes_other_task_types_and_the_same_task_twice_are_no_pattern() -> None:
    lesson = "Check the schema before migrating"
    assert find_patterns(SCOPE, [_failure(lesson), _failure(lesson)], PatternPolicy()) == []
    mixed = [_failure(lesson, "modify"), _failure(lesson, "create"), _failure(lesson, "modify")]
    assert find_patterns(SCOPE, mixed, PatternPolicy()) == []
    same_task = [_failure(lesson, task_id="T-1"), _failure(lesson, task_id="T-1"), _failure(lesson)]
    assert find_patterns(SCOPE, same_task, PatternPolicy()) == []


def test_the_same_preference_in_three_episodes_is_a_pattern() -> None:
    episodes = [
        _episode("Booked LIS-JFK. I prefer aisle seats.", days_ago=3),
        _episode("i prefer aisle seats", days_ago=2),
        _episode("Changed the seat: I prefer aisle seats!", days_ago=1),
    ]
    (plan,) = find_patterns(SCOPE, episodes, PatternPolicy())
    assert plan.kind == "preference"
    assert plan.content == "Preference stated in 3 episodes: I prefer aisle seats"
    assert plan.key.startswith("preference:")


def test_a_preference_an_agent_wrote_down_in_the_third_person_is_a_pattern() -> None:
    """Agents record what a user prefers in the third person; the first-person rules alone never fired."""
    episodes = [
        _episode("The user prefers invoices by e-mail.", days_ago=3),
        _episode("Sent the March invoice. The user prefers invoices by e-mail.", days_ago=2),
        _episode("the user prefers invoices by e-mail", days_ago=1),
    ]
    (plan,) = find_patterns(SCOPE, episodes, PatternPolicy())
    assert plan.kind == "preference"
    assert plan.content == "Preference stated in 3 episodes: the user prefers invoices by e-mail"
    assert preference_statement("Yesterday the user said they prefer tea.") == "they prefer tea"
    assert preference_statement("Dana would rather fly early.") == "Dana would rather fly early"
    assert preference_statement("The team prefers Fridays off. Which do you prefer?") is None


# --- the Maintain use case on an in-memory store ---------------------------------------------------------


class FakeStore:
    """Scopes with a number of due decay rows each; the state row and its lease in memory."""

    def __init__(self, due: dict[Scope, int], held: bool = False) -> None:
        self.due = dict(due)
        self.held = held
        self.state = MaintenanceState()
        self.saves = 0

    async def acquire(self, name: str, owner: str, lease: timedelta) -> MaintenanceState | None:
        return None if self.held else self.state

    async def save(self, name: str, owner: str, state: MaintenanceState, lease: timedelta) -> bool:
        self.state, self.saves = state, self.saves + 1
        return True

    async def release(self, name: str, owner: str) -> None:
        return None

    async def scopes(self, after: Scope | None, limit: int, tenant_id: str | None = None) -> list[Scope]:
        ordered = sorted(self.due, key=lambda s: (s.tenant_id, s.agent_id))
        key = (after.tenant_id, after.agent_id) if after else None
        return [s for s in ordered if key is None or (s.tenant_id, s.agent_id) > key][:limit]

    async def episodes_changed_since(
        self, scope: Scope, since: datetime, statuses: Sequence[MemoryStatus]
    ) -> bool:
        return False

    async def decay(self, scope: Scope, policy: DecayPolicy, now: datetime, limit: int) -> DecayCounts:
        n = min(limit, self.due[scope])
        self.due[scope] -= n
        return DecayCounts(decayed=n)

    async def consolidation_candidates(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        return []

    async def consolidate(self, scope: Scope, plan: ConsolidationPlan, now: datetime) -> bool:
        return False

    async def unchecked_summaries(self, scope: Scope, limit: int) -> list[tuple[Episode, list[Episode]]]:
        return []

    async def mark_summaries_checked(self, scope: Scope, summary_ids: list[UUID]) -> None:
        return None

    async def undo_consolidation(self, scope: Scope, summary_id: UUID, now: datetime) -> int:
        return 0

    async def pattern_evidence(self, scope: Scope, since: datetime, limit: int) -> list[Episode]:
        return []

    async def statuses(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, MemoryStatus]:
        return {}

    async def create_pattern(
        self, scope: Scope, plan: PatternPlan, embedding: list[float], now: datetime
    ) -> bool:
        return False

    async def extend_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> int:
        return 0

    async def reinstate_pattern(self, scope: Scope, plan: PatternPlan, now: datetime) -> bool:
        return False

    async def settle_key_case(self, scope: Scope, since: datetime | None) -> KeyCaseCounts | None:
        return KeyCaseCounts()


class NoEmbedder:
    dim = 4
    model_name = "none"

    async def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("no embedding expected")

    async def embed_query(self, text: str) -> list[float]:
        raise AssertionError("no embedding expected")

    def passage_window(self) -> None:
        return None


class Sessions:
    def __init__(self) -> None:
        self.calls = 0

    async def sweep_sessions(
        self, cursor: int, count: int, ttl_s: int, tenant_id: str | None
    ) -> SessionSweep:
        self.calls += 1
        return SessionSweep(next_cursor=0 if cursor else 7, scanned=3, repaired=1 if cursor else 0)


def _maintain(store: FakeStore, sessions: Sessions | None = None, batch: int = 10) -> Maintain:
    policy = replace(MaintenancePolicy(), batch_size=batch)
    return Maintain(store, NoEmbedder(), FixedClock(NOW), policy, sessions=sessions)


async def test_a_whole_cycle_reports_every_step_and_says_there_is_no_sweeper() -> None:
    scopes = {Scope(tenant_id="t", agent_id=a): 3 for a in ("a", "b")}
    store, sessions = FakeStore(scopes), Sessions()
    report = await _maintain(store, sessions).run()
    assert report.finished
    assert [s.name for s in report.steps] == list(STEPS)
    by_name = {s.name: s for s in report.steps}
    assert by_name["decay"].counts == {"decayed": 6, "archived": 0, "scopes": 2}
    assert by_name["working_memory"].counts == {"scanned": 6, "repaired": 1}
    assert (by_name["stuck_work"].status, by_name["stuck_work"].detail) == ("skipped", "no sweeper")
    assert store.state == MaintenanceState(changed_since=NOW)


async def test_a_cycle_saved_at_a_step_this_version_does_not_know_starts_anew() -> None:
    # Given a cycle left at a step of a newer version (rolled back since), two scopes past its cursor
    scopes = {Scope(tenant_id="t", agent_id=a): 3 for a in ("a", "b")}
    store = FakeStore(scopes)
    earlier = NOW - timedelta(days=1)
    store.state = MaintenanceState(
        step="a_newer_step",  # type: ignore[arg-type]
        cursor=Scope(tenant_id="t", agent_id="b"),
        position="7",
        cycle_started_at=earlier,
        changed_since=earlier,
    )
    # When maintenance runs, Then the cycle runs from its first step, every scope, and completes
    report = await _maintain(store).run()
    assert report.finished
    assert [(s.name, s.status) for s in report.steps][:1] == [("decay", "done")]
    assert report.steps[0].counts == {"decayed": 6, "archived": 0, "scopes": 2}
    assert store.state == MaintenanceState(changed_since=earlier)  # the cycle's start kept: nothing missed
    # and the next run starts a new cycle as usual
    assert (await _maintain(store).run()).finished


async def test_a_held_lease_skips_the_run() -> None:
    report = await _maintain(FakeStore({}, held=True)).run()
    assert not report.finished
    assert {s.status for s in report.steps} == {"skipped"}


async def test_a_zero_budget_still_progresses_and_the_next_run_resumes() -> None:
    scopes = {Scope(tenant_id="t", agent_id=a): 25 for a in ("a", "b", "c")}
    store = FakeStore(scopes)
    maintain = _maintain(store, batch=10)
    runs = []
    while True:
        report = await maintain.run(budget=timedelta(0))
        runs.append(report)
        assert len(runs) < 50
        if report.finished:
            break
    assert len(runs) > 3
    assert all(n == 0 for n in store.due.values())
    assert sum(r.steps[0].counts.get("decayed", 0) for r in runs) == 75
    assert runs[1].resumed
    assert runs[0].steps[0].status == "partial"
    assert runs[-1].steps[0].status in ("done", "skipped")


# --- the local stand-in for the EventBridge schedule ---------------------------------------------------


def test_the_local_schedule_sends_the_canonical_event_on_an_interval_and_stops() -> None:
    import json
    import threading
    from pathlib import Path

    from hindsight.local.scheduler import MaintenanceScheduler, scheduled_event

    canonical = json.loads((Path(__file__).parents[1] / "events" / "scheduled_maintenance.json").read_text())
    assert set(scheduled_event(NOW)) == set(canonical)
    assert scheduled_event(NOW)["time"] == "2026-11-30T12:00:00Z"

    fired = threading.Event()
    events: list[dict[str, object]] = []
    closed: list[bool] = []

    def handler(event: dict[str, object], context: object) -> dict[str, object]:
        events.append(event)
        if len(events) >= 2:
            fired.set()
        return {"finished": True}

    scheduler = MaintenanceScheduler(handler, 0.05, first_after_s=0.01, close=lambda: closed.append(True))
    scheduler.start()
    assert fired.wait(5)
    scheduler.stop()
    assert closed == [True]
    assert all(e["detail-type"] == "Scheduled Event" and e["source"] == "aws.events" for e in events)
    assert scheduler.last_report == {"finished": True}
    count = len(events)
    fired.clear()
    assert not fired.wait(0.2)
    assert len(events) == count  # stopped: no more ticks


def test_an_inferred_pattern_dates_the_words_it_quotes_from_their_own_episode() -> None:
    lesson = "Renew the TLS certificate that expired yesterday before deploying"
    episodes = [_failure(lesson, days_ago=d, anchor=NOW - timedelta(days=d)) for d in (5, 3, 1)]
    (plan,) = find_patterns(SCOPE, episodes, PatternPolicy())
    expected = (NOW - timedelta(days=2)).date().isoformat()  # the latest episode's yesterday
    assert plan.content.endswith(f"expired yesterday ({expected}) before deploying")
    preferences = [
        _episode(
            "Booked LIS-JFK. I prefer aisle seats since last week.",
            days_ago=d,
            anchor=NOW - timedelta(days=d),
        )
        for d in (9, 8, 7)
    ]
    (plan,) = find_patterns(SCOPE, preferences, PatternPolicy())
    year, week, _ = ((NOW - timedelta(days=7)).date() - timedelta(weeks=1)).isocalendar()
    assert (
        plan.content
        == f"Preference stated in 3 episodes: I prefer aisle seats since last week ({year}-W{week:02d})"
    )


def test_events_that_differ_in_a_sign_or_an_identifiers_case_are_never_merged() -> None:
    # New-user re-trial: seven readings became one summary quoting five of them, all seven archived.
    base = _direction(11)
    readings = [
        _episode(f"Cold room sensor reading was {v} C", _near(base, i), 7 - i)
        for i, v in enumerate(["-5", "+5", "5", "−5", "~5", "±5", "5."])
    ]
    assert cluster_episodes(readings, ConsolidationPolicy(cosine=0.5)) == []
    tags = [
        _episode(f"Build tag {t}", _near(base, 20 + i), 3 - i) for i, t in enumerate(["aB3xK9", "AB3XK9"] * 2)
    ]
    assert cluster_episodes(tags, ConsolidationPolicy(cosine=0.5)) == []
    # a rule-3 summary of such readings is undone
    assert summary_misrepresents_members(
        "3 similar events: Cold room sensor reading was -5 C\nVariants: Cold room sensor reading was 5 C",
        ["Cold room sensor reading was -5 C", "Cold room sensor reading was 5 C"],
    )


def test_a_summary_archives_only_members_whose_wording_it_quotes() -> None:
    base = _direction(12)
    endings = [".", "!", "?", ";", " …", "!!", ""]  # the same words: one event, seven wordings
    members = [
        _episode(f"Backup finished in 12 minutes{e}", _near(base, i), 7 - i) for i, e in enumerate(endings)
    ]
    (cluster,) = cluster_episodes(members, ConsolidationPolicy(cosine=0.5))
    assert len(cluster) == 7
    assert len(endings) > SUMMARY_MAX_VARIANTS + 1  # the cap leaves one wording out …
    assert plan_consolidation(SCOPE, cluster) is None  # … so nothing is archived
    assert not summary_quotes_members("3 similar events: Backup finished in 12 minutes.", cluster)
    six = cluster[: SUMMARY_MAX_VARIANTS + 1]
    plan = plan_consolidation(SCOPE, six)
    assert plan is not None
    assert summary_quotes_members(plan.content, six)


def test_a_preference_is_contested_only_by_later_sentences_and_within_the_bound() -> None:
    """``contested``: a later "no longer" contests the pattern, an earlier one does not; at most
    ``CONTEST_SENTENCES`` distinct later sentences are compared, the most recent first."""
    t0 = datetime(2026, 11, 20, 10, tzinfo=UTC)

    def ep(text: str, hours: int) -> Episode:
        return Episode(id=uuid.uuid4(), content=text, event_time=t0 + timedelta(hours=hours), importance=0.5)

    group = [ep("I prefer aisle seats on flights", h) for h in (0, 1, 2)]
    back = "I no longer prefer aisle seats on flights, I prefer window seats"
    earlier, later = ep(back, -1), ep(back, 3)
    statement = "I prefer aisle seats on flights"
    assert contested(statement, group, [*group, earlier, later]) == (later.id,)
    noise = [ep(f"I prefer meeting room {n} for reviews", 10 + n) for n in range(CONTEST_SENTENCES)]
    assert contested(statement, group, [*group, later, *noise]) == ()  # past the bound: not read
    assert contested(statement, group, [*group, later, *noise[1:]]) == (later.id,)


def _summarised(n: int, **fields: object) -> list[Episode]:
    base = _direction(7)
    return [_episode("The staging smoke test passed", _near(base, i), n - i, **fields) for i in range(n)]


def test_an_edited_member_that_no_longer_repeats_the_event_leaves_its_summary() -> None:
    """Trial F12: the corrected member leaves; four members less one still make a summary of three, three
    less one do not (undone); an edit that keeps the words keeps the member in it."""
    four = _summarised(4)
    corrected = replace(four[3], content="The staging smoke test failed: login page returned HTTP 500")
    outcome = regroup(SCOPE, [*four[:3], corrected], corrected.id, 3)
    assert outcome.leaving == (corrected.id,)
    assert outcome.plan is not None
    assert outcome.plan.member_ids == tuple(m.id for m in four[:3])
    assert outcome.plan.content.startswith("3 similar events")
    assert regroup(SCOPE, [*four[:2], corrected], corrected.id, 3).plan is None
    tagged = replace(four[0], tags=("release-42",))
    kept = regroup(SCOPE, [tagged, *four[1:]], tagged.id, 3)
    assert kept.leaving == ()
    assert kept.plan is not None
    assert kept.plan.tags == ["release-42"]
    moved = replace(four[0], entities={"env": "prod"})  # what consolidation requires equal
    assert regroup(SCOPE, [moved, *four[1:]], moved.id, 3).leaving == (moved.id,)
    with pytest.raises(ValueError, match="one of the summary's members"):
        regroup(SCOPE, four[1:], four[0].id, 3)
