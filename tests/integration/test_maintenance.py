"""Scheduled maintenance against real Postgres+pgvector and Redis: decay and the cold threshold,
consolidation and episodic → semantic on histories built with explicit timestamps, the Lambda handler
with the canonical EventBridge event, and a time budget that stops a run which the next one resumes.

Every test uses a fresh tenant and (except the handler test, which runs the scheduled cycle over the
whole database like the schedule does) limits maintenance to it."""

from __future__ import annotations

import importlib
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import psycopg
import pytest
import redis

from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.rows import tenant_transaction, vector_literal
from hindsight.adapters.redis_working_memory import session_key
from hindsight.bootstrap import Container, build_container, maintenance_policy
from hindsight.client import call
from hindsight.domain.ids import uuid7
from hindsight.domain.memory import content_hash
from hindsight.domain.working_memory import SessionScope
from hindsight.local.poller import LocalLambdaContext
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.maintain import Maintain, MaintenanceReport
from tests.support import load_event, mcp_client, store_id

pytestmark = pytest.mark.integration
DAY = timedelta(days=1)


# ---- helpers ----------------------------------------------------------------------------------------


@asynccontextmanager
async def _container(stack: LocalStack) -> AsyncIterator[Container]:
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        yield container
    finally:
        await container.aclose()


async def _insert(
    container: Container,
    tenant: str,
    content: str,
    *,
    created_at: datetime,
    agent: str = "default",
    layer: str = "episodic",
    importance: float = 0.5,
    **fields: Any,
) -> UUID:
    """One memory row with explicit timestamps and a real embedding, plus its 'created' history row."""
    memory_id = uuid7()
    (embedding,) = await container.embedder.embed_passages([content])
    row = {
        "id": memory_id,
        "tenant_id": tenant,
        "agent_id": agent,
        "layer": layer,
        "content": content,
        "content_hash": content_hash(content),
        "importance": importance,
        "created_at": created_at,
        "updated_at": created_at,
        **fields,
    }
    last_accessed_at = row.pop("last_accessed_at", None)  # memory_access's (migration 018)
    columns = ", ".join([*row, "embedding"])
    values = ", ".join([*(f"%({k})s" for k in row), "%(embedding)s::vector"])
    # the tenant's transaction: row-level security refuses rows of any other tenant (migration 004)
    async with tenant_transaction(container.pool, tenant) as conn:
        await conn.execute(
            f"INSERT INTO memories ({columns}) VALUES ({values})",  # type: ignore[arg-type]
            {**row, "embedding": vector_literal(embedding)},
        )
        await conn.execute(
            """INSERT INTO memory_history (memory_id, tenant_id, action, actor, at)
               VALUES (%s, %s, 'created', 't', %s)""",
            (memory_id, tenant, created_at),
        )
        if last_accessed_at is not None:
            await conn.execute(
                """INSERT INTO memory_access (memory_id, tenant_id, access_count, last_accessed_at)
                   VALUES (%s, %s, 1, %s)""",
                (memory_id, tenant, last_accessed_at),
            )
    return memory_id


def _rows(stack: LocalStack, query: str, *params: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        return conn.execute(query, params).fetchall()  # type: ignore[arg-type]


def _memory(stack: LocalStack, memory_id: UUID) -> dict[str, Any]:
    with (
        psycopg.connect(stack.require_settings().require_database_url()) as conn,
        conn.cursor(row_factory=psycopg.rows.dict_row) as cur,
    ):
        row = cur.execute("SELECT * FROM memories WHERE id = %s", (memory_id,)).fetchone()
    assert row is not None
    return row


def _history(stack: LocalStack, memory_id: UUID) -> list[tuple[str, str | None]]:
    rows = _rows(
        stack, "SELECT action, actor FROM memory_history WHERE memory_id = %s ORDER BY at, id", memory_id
    )
    return [(r[0], r[1]) for r in rows]


def _step(report: MaintenanceReport, name: str) -> dict[str, int]:
    return next(s for s in report.steps if s.name == name).counts


# ---- decay and the cold threshold ---------------------------------------------------------------------


@pytest.mark.anyio
async def test_decay_halves_importance_after_one_half_life_and_is_idempotent(
    stack: LocalStack, tenant: str
) -> None:
    now = datetime.now(UTC)
    async with _container(stack) as c:
        episode = await _insert(
            c, tenant, "Ran the weekly billing export", created_at=now - 30 * DAY, importance=0.8
        )
        fact = await _insert(
            c,
            tenant,
            "Alex works in the Lisbon office",
            created_at=now - 180 * DAY,
            importance=0.8,
            layer="semantic",
        )
        recalled = await _insert(
            c,
            tenant,
            "Checked the staging deploy",
            created_at=now - 30 * DAY,
            importance=0.8,
            last_accessed_at=now - timedelta(hours=1),
        )
        core = await _insert(
            c, tenant, "Never email the CFO directly", created_at=now - 365 * DAY, importance=0.95
        )
        assert c.maintain is not None

        first = await c.maintain.run(tenant_id=tenant)
        assert first.finished
        assert _step(first, "decay") == {"decayed": 2, "archived": 0, "scopes": 1}
        for memory_id in (episode, fact):
            row = _memory(stack, memory_id)
            assert row["importance"] == pytest.approx(0.4, abs=1e-3)
            assert row["status"] == "active"
            assert row["decayed_at"] is not None
            assert _history(stack, memory_id) == [("created", "t"), ("decayed", "maintenance")]
        assert _memory(stack, recalled)["importance"] == pytest.approx(0.8)  # recalled an hour ago
        assert _memory(stack, core)["importance"] == pytest.approx(0.95)  # core never decays
        (changes,) = _rows(
            stack, "SELECT changes FROM memory_history WHERE memory_id = %s AND action = 'decayed'", episode
        )
        assert changes[0]["importance"]["from"] == pytest.approx(0.8)
        assert changes[0]["importance"]["to"] == pytest.approx(0.4, abs=1e-3)

        second = await c.maintain.run(tenant_id=tenant)
        assert second.finished
        assert _step(second, "decay").get("decayed") == 0
        assert _memory(stack, episode)["importance"] == pytest.approx(0.4, abs=1e-3)
        assert _history(stack, episode) == [("created", "t"), ("decayed", "maintenance")]


@pytest.mark.anyio
async def test_a_memory_under_the_cold_threshold_is_archived_out_of_search_but_reachable(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    now = datetime.now(UTC)
    async with _container(stack) as c:
        cause = await _insert(
            c,
            tenant,
            "The payments API answered HTTP 429 Too Many Requests during the billing deploy",
            created_at=now - 30 * DAY,
            occurred_at=now - 30 * DAY,
            importance=0.5,
        )
        effect = await _insert(
            c,
            tenant,
            "Added exponential backoff to the payments client after the 429s",
            created_at=now - 30 * DAY,
            occurred_at=now - 30 * DAY + timedelta(hours=1),
            importance=0.9,
            causal_parent=cause,
        )
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
    assert _step(report, "decay") == {"decayed": 1, "archived": 1, "scopes": 1}
    row = _memory(stack, cause)
    assert row["status"] == "archived"
    assert row["importance"] == pytest.approx(0.25, abs=1e-3)
    assert _history(stack, cause) == [
        ("created", "t"),
        ("decayed", "maintenance"),
        ("archived", "maintenance"),
    ]

    async with mcp_client(server.url, token) as client:
        hits = await call(client, "memory_search", {"query": "payments API HTTP 429 rate limit"})
        ids = [h["memory"]["id"] for h in hits["results"]]
        assert str(effect) in ids
        assert str(cause) not in ids
        cold = await call(
            client, "memory_search", {"query": "payments API HTTP 429 rate limit", "status": ["archived"]}
        )
        assert [h["memory"]["id"] for h in cold["results"]] == [str(cause)]
        got = await call(client, "memory_get", {"id": str(cause)})
        assert got["memory"]["status"] == "archived"
        assert [h["action"] for h in got["history"]][-2:] == ["decayed", "archived"]
        chain = await call(client, "memory_recall_chain", {"id": str(effect), "direction": "causes"})
        assert [(s["step"], s["memory"]["id"]) for s in chain["chain"]] == [
            (-1, str(cause)),
            (0, str(effect)),
        ]


# ---- consolidation -------------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_near_identical_events_become_one_summary_once(stack: LocalStack, tenant: str) -> None:
    now = datetime.now(UTC)
    async with _container(stack) as c:
        repeats = [
            await _insert(
                c,
                tenant,
                text,
                created_at=now - days * DAY,
                occurred_at=now - days * DAY,
                importance=importance,
                outcome="success",
            )
            for text, days, importance in (
                ("The nightly backup of the orders database finished in 12 minutes", 3, 0.5),
                ("the nightly backup of the orders database: finished in 12 minutes.", 2, 0.6),
                ("The nightly backup of the orders database finished in 12 minutes", 1, 0.4),
            )
        ]
        # The same event with another duration is another event: never merged into the summary.
        other_duration = await _insert(
            c,
            tenant,
            "The nightly backup of the orders database finished in 14 minutes",
            created_at=now - 2 * DAY,
            occurred_at=now - 2 * DAY,
            outcome="success",
        )
        unrelated = await _insert(
            c,
            tenant,
            "Maya said her cat is called Pixel",
            created_at=now - 2 * DAY,
            occurred_at=now - 2 * DAY,
        )
        too_old = await _insert(
            c,
            tenant,
            "The nightly backup of the orders database finished in 12 minutes",
            created_at=now - 10 * DAY,
            occurred_at=now - 10 * DAY,
            outcome="success",
        )
        assert c.maintain is not None
        first = await c.maintain.run(tenant_id=tenant)
        assert _step(first, "consolidate")["summaries"] == 1
        assert _step(first, "consolidate")["archived"] == 3

        (summary_row,) = _rows(
            stack,
            "SELECT id FROM memories WHERE tenant_id = %s AND metadata ? 'consolidation'",
            tenant,
        )
        summary = _memory(stack, summary_row[0])
        assert summary["layer"] == "episodic"
        assert summary["status"] == "active"
        assert summary["content"].startswith("3 similar events from ")
        assert "orders database" in summary["content"]
        assert summary["metadata"]["consolidation"]["members"] == 3
        # the members' highest importance (after this run's decay step, which comes first)
        assert summary["importance"] == pytest.approx(max(_memory(stack, m)["importance"] for m in repeats))
        assert summary["outcome"] == "success"
        # the members' span, first start to last end (an instant's end: just after it)
        assert summary["occurred_at"] == _memory(stack, repeats[0])["occurred_at"]
        assert summary["occurred_end"] == _memory(stack, repeats[-1])["occurred_at"] + timedelta(
            microseconds=1
        )
        assert summary["occurred_precision"] is None
        links = _rows(
            stack,
            "SELECT from_id FROM memory_relations WHERE to_id = %s AND kind = 'part_of' AND tenant_id = %s",
            summary["id"],
            tenant,
        )
        assert {r[0] for r in links} == set(repeats)
        for memory_id in repeats:
            assert _memory(stack, memory_id)["status"] == "archived"
            assert _history(stack, memory_id)[-1] == ("archived", "maintenance")
        assert _history(stack, summary["id"]) == [("created", "maintenance")]
        assert _memory(stack, unrelated)["status"] == "active"
        assert _memory(stack, other_duration)["status"] == "active"
        assert _memory(stack, too_old)["status"] == "active"  # outside the 7-day window

        # The summary is found by search; the originals stay reachable through it.
        view = await c.manage.get(_principal(tenant), None, summary["id"])
        assert {r.from_id for r in view.relations if r.kind == "part_of"} == set(repeats)

        rows_before = _rows(stack, "SELECT count(*) FROM memories WHERE tenant_id = %s", tenant)
        second = await c.maintain.run(tenant_id=tenant)
        assert second.finished
        assert _step(second, "consolidate").get("summaries", 0) == 0
        assert _rows(stack, "SELECT count(*) FROM memories WHERE tenant_id = %s", tenant) == rows_before


def _principal(tenant: str) -> Any:
    from hindsight.domain.auth import Principal

    return Principal(tenant_id=tenant, key_id="test")


# ---- episodic → semantic -------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_lesson_seen_in_three_failures_becomes_one_inferred_semantic_memory(
    stack: LocalStack, tenant: str
) -> None:
    now = datetime.now(UTC)
    lesson = "Back off and retry when the payments API returns HTTP 429"
    failures = [
        ("Deploying billing-service v2.3 failed: the payments API rate-limited the migration", 5),
        ("Bulk refund of March orders aborted halfway through, too many requests", 3),
        ("Nightly invoice sync to the ledger failed after a burst of calls", 1),
    ]
    async with _container(stack) as c:
        evidence = [
            await _insert(
                c,
                tenant,
                text,
                created_at=now - days * DAY,
                occurred_at=now - days * DAY,
                task_type="modify",
                outcome="failure",
                lessons=lesson if i != 1 else lesson.lower() + ".",
                task_id=f"task-{i}",
            )
            for i, (text, days) in enumerate(failures)
        ]
        other_type = await _insert(
            c,
            tenant,
            "Created a new payments webhook; the API throttled the setup calls",
            created_at=now - 2 * DAY,
            task_type="create",
            outcome="failure",
            lessons=lesson,
        )
        assert c.maintain is not None
        first = await c.maintain.run(tenant_id=tenant)
        assert _step(first, "extract_patterns")["created"] == 1

        (pattern_row,) = _rows(
            stack, "SELECT id FROM memories WHERE tenant_id = %s AND layer = 'semantic'", tenant
        )
        pattern = _memory(stack, pattern_row[0])
        assert pattern["source"] == "agent_inferred"
        assert pattern["status"] == "active"
        assert pattern["key"].startswith("lesson:modify:")
        assert lesson in pattern["content"]
        assert pattern["metadata"]["inferred_from"]["episodes"] == 3
        links = _rows(
            stack,
            "SELECT to_id FROM memory_relations WHERE from_id = %s AND kind = 'related'",
            pattern["id"],
        )
        assert {r[0] for r in links} == set(evidence)
        assert other_type not in {r[0] for r in links}
        assert _history(stack, pattern["id"]) == [("created", "maintenance")]
        for memory_id in evidence:  # the evidence itself is untouched
            assert _memory(stack, memory_id)["status"] == "active"

        second = await c.maintain.run(tenant_id=tenant)
        assert _step(second, "extract_patterns").get("created", 0) == 0
        assert (
            len(_rows(stack, "SELECT id FROM memories WHERE tenant_id = %s AND layer = 'semantic'", tenant))
            == 1
        )

        # A fourth episode later: linked to the same inference, never a second one.
        fourth = await _insert(
            c,
            tenant,
            "Re-running the ledger backfill failed: HTTP 429 from payments",
            created_at=datetime.now(UTC),
            task_type="modify",
            outcome="failure",
            lessons=lesson,
        )
        third = await c.maintain.run(tenant_id=tenant)
        assert _step(third, "extract_patterns") == {"evidence_linked": 1, "scopes": 1}
        assert (
            len(_rows(stack, "SELECT id FROM memories WHERE tenant_id = %s AND layer = 'semantic'", tenant))
            == 1
        )
        assert _memory(stack, pattern["id"])["metadata"]["inferred_from"]["episodes"] == 4
        assert fourth in {
            r[0] for r in _rows(stack, "SELECT to_id FROM memory_relations WHERE from_id = %s", pattern["id"])
        }


# ---- the Lambda handler with the canonical event ---------------------------------------------------------


@pytest.fixture
def lambda_env(stack: LocalStack, monkeypatch: pytest.MonkeyPatch) -> None:
    """The environment the SAM template gives the maintenance function, pointed at the embedded stack."""
    settings = stack.require_settings()
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", settings.require_database_url())
    monkeypatch.setenv("HINDSIGHT_REDIS_URL", settings.redis_url)
    monkeypatch.setenv("HINDSIGHT_EMBEDDER", settings.embedder)
    monkeypatch.setenv("HINDSIGHT_EMBEDDING_DIM", str(settings.embedding_dim))


def _insert_sync(stack: LocalStack, tenant: str, importance: float, created_at: datetime) -> UUID:
    """A row whose embedding does not matter (decay only): a constant unit vector."""
    memory_id = uuid7()
    dim = stack.require_settings().embedding_dim
    vector = vector_literal([1.0] + [0.0] * (dim - 1))
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        conn.execute(
            """INSERT INTO memories (id, tenant_id, agent_id, layer, content, content_hash, importance,
                                     created_at, updated_at, embedding)
               VALUES (%s, %s, 'default', 'episodic', 'x', 'x', %s, %s, %s, %s::vector)""",
            (memory_id, tenant, importance, created_at, created_at, vector),
        )
    return memory_id


def test_the_maintenance_function_runs_with_the_scheduled_event(
    lambda_env: None, stack: LocalStack, tenant: str
) -> None:
    due = _insert_sync(stack, tenant, 0.8, datetime.now(UTC) - 30 * DAY)
    scope = SessionScope(tenant_id=tenant, agent_id="default", session_id="left-behind")
    orphan = session_key(scope, store_id(stack))
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    client.hset(orphan, "goal", "{}")  # a session without a TTL (written by hand)
    module = importlib.import_module("functions.maintenance.app")
    module._handler = None
    event = load_event("scheduled_maintenance.json")
    try:
        report = module.handler(event, LocalLambdaContext("MaintenanceFunction", timeout_s=120))
        assert report["finished"] is True
        assert report["event_id"] == event["id"]
        assert report["scheduled_at"] == event["time"]
        assert report["tenant_id"] is None
        assert 0 < report["budget_s"] <= 100  # the 120 s timeout minus the 20 s margin
        steps = {s["name"]: s for s in report["steps"]}
        assert list(steps) == [
            "decay",
            "consolidate",
            "extract_patterns",
            "key_case",
            "keyword_stats",
            "working_memory",
            "stuck_work",
        ]
        assert steps["decay"]["counts"]["decayed"] >= 1
        assert steps["working_memory"]["status"] == "done"
        assert steps["working_memory"]["counts"]["repaired"] >= 1
        assert (steps["stuck_work"]["status"], steps["stuck_work"]["detail"]) == ("skipped", "no sweeper")
        assert _memory(stack, due)["importance"] == pytest.approx(0.4, abs=1e-3)
        assert 0 < client.ttl(orphan) <= stack.require_settings().working_memory_ttl_s

        # A warm second invocation: nothing left to decay here, the session keeps its TTL.
        again = module.handler(event, LocalLambdaContext("MaintenanceFunction", timeout_s=120))
        assert again["finished"] is True
        assert _memory(stack, due)["importance"] == pytest.approx(0.4, abs=1e-3)

        with pytest.raises(ValueError, match="not an EventBridge scheduled event"):
            module.handler({"Records": []}, LocalLambdaContext("MaintenanceFunction"))
    finally:
        client.delete(orphan)
        client.close()
        module._handler.close()
        module._handler = None


# ---- the time budget -----------------------------------------------------------------------------------


@pytest.mark.anyio
async def test_a_run_out_of_time_stops_cleanly_and_the_next_run_resumes(
    stack: LocalStack, tenant: str
) -> None:
    now = datetime.now(UTC)
    async with _container(stack) as c:
        ids = [
            await _insert(
                c, tenant, f"event {agent} {n}", agent=agent, created_at=now - 30 * DAY, importance=0.8
            )
            for agent in ("agent-a", "agent-b", "agent-c")
            for n in range(3)
        ]
        store = PostgresMaintenanceStore(c.pool)
        maintain = Maintain(
            store,
            c.embedder,
            c.clock,
            replace(maintenance_policy(stack.require_settings()), batch_size=2),
            sessions=None,
        )

        # While another run holds the cycle's lease, a run is skipped and changes nothing.
        assert await store.acquire(f"tenant:{tenant}", "someone-else", timedelta(minutes=5)) is not None
        held = await maintain.run(budget=timedelta(0), tenant_id=tenant)
        assert not held.finished
        assert {s.status for s in held.steps} == {"skipped"}
        await store.release(f"tenant:{tenant}", "someone-else")

        runs: list[MaintenanceReport] = []
        while not runs or not runs[-1].finished:
            runs.append(await maintain.run(budget=timedelta(0), tenant_id=tenant))
            assert len(runs) < 40, "maintenance never finished"
        assert len(runs) > 3
        assert not runs[0].finished
        assert runs[0].steps[0].status == "partial"
        assert runs[0].steps[0].counts["decayed"] == 2  # exactly one unit: one batch of two
        assert all(s.status == "skipped" for s in runs[0].steps[1:])
        assert all(r.resumed for r in runs[1:])
        assert sum(_step(r, "decay").get("decayed", 0) for r in runs) == 9
        for memory_id in ids:  # every memory decayed exactly once, however often the run was cut
            assert _memory(stack, memory_id)["importance"] == pytest.approx(0.4, abs=1e-3)
            assert _history(stack, memory_id).count(("decayed", "maintenance")) == 1


def test_tenants_are_isolated(stack: LocalStack) -> None:
    """A one-tenant run touches no other tenant's memories."""
    import asyncio

    mine, theirs = f"t-{uuid.uuid4().hex[:12]}", f"t-{uuid.uuid4().hex[:12]}"
    old = datetime.now(UTC) - 30 * DAY
    a, b = _insert_sync(stack, mine, 0.8, old), _insert_sync(stack, theirs, 0.8, old)

    async def go() -> None:
        async with _container(stack) as c:
            assert c.maintain is not None
            await c.maintain.run(tenant_id=mine)

    asyncio.run(go())
    assert _memory(stack, a)["importance"] == pytest.approx(0.4, abs=1e-3)
    assert _memory(stack, b)["importance"] == pytest.approx(0.8)
