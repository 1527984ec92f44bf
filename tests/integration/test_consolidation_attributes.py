"""Consolidation keeps what describes a member besides its words (new-user trial F1), against real
Postgres+pgvector, Redis, the SQS emulator and the MCP app (official client): members whose entities,
metadata or shared_with differ are never merged, and a summary of members that agree carries their
entities, metadata and shared_with — entity search and the agents they are shared with still find it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from psycopg.types.json import Jsonb

from hindsight.adapters.postgres.rows import tenant_transaction
from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_consolidation_truth import _old_rule_summary
from tests.integration.test_maintenance import _container, _insert, _rows, _step
from tests.support import drain, mcp_client

pytestmark = pytest.mark.integration
DAY = timedelta(days=1)
AGENT = "cons"
TEXT = "Order shipped to the customer"


async def _write_three(client: Any, day: datetime, extras: list[dict[str, Any]]) -> None:
    for n, extra in enumerate(extras):
        await call(
            client,
            "memory_write",
            {
                "agent_id": AGENT,
                "content": TEXT,
                "layer": "episodic",
                "occurred_at": (day + n * DAY).isoformat(),
                **extra,
            },
        )


async def _search(client: Any, agent: str, **filters: Any) -> list[dict[str, Any]]:
    found = await call(client, "memory_search", {"agent_id": agent, "query": "order shipped", **filters})
    return [h["memory"] for h in found["results"]]


@pytest.mark.anyio
async def test_orders_that_differ_in_an_entity_stay_apart_and_findable(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """The trial's case: order_id A-1, A-2 (shared with beta), A-3, metadata carrier c0/c1/c2. On main
    they became one summary with entities {"order_id": "A-3"}, and entity search for A-1 or A-2 found
    nothing; beta lost the member shared with it."""
    day = (datetime.now(UTC) - 4 * DAY).replace(hour=10, minute=0, second=0, microsecond=0)
    async with mcp_client(server.url, token) as client:
        await _write_three(
            client,
            day,
            [
                {"entities": {"order_id": "A-1"}, "tags": ["t1"], "metadata": {"carrier": "c0"}},
                {
                    "entities": {"order_id": "A-2"},
                    "tags": ["t2"],
                    "metadata": {"carrier": "c1"},
                    "shared_with": ["beta"],
                },
                {"entities": {"order_id": "A-3"}, "tags": ["t3"], "metadata": {"carrier": "c2"}},
            ],
        )
        await drain(poller)
        async with _container(stack) as c:
            assert c.maintain is not None
            consolidated = _step(await c.maintain.run(tenant_id=tenant), "consolidate")
        assert (consolidated.get("summaries", 0), consolidated.get("archived", 0)) == (0, 0), consolidated
        for order in ("A-1", "A-2", "A-3"):
            hits = await _search(client, AGENT, entities={"order_id": order})
            assert [h["entities"] for h in hits] == [{"order_id": order}], (order, hits)
        assert [h["entities"] for h in await _search(client, "beta")] == [{"order_id": "A-2"}]


@pytest.mark.anyio
async def test_a_summary_carries_its_members_entities_metadata_and_sharing(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """Three repeats alike in entities, metadata and shared_with still become one summary, and it keeps
    them: entity search, metadata and the agent it is shared with find it; tags are unioned."""
    day = (datetime.now(UTC) - 4 * DAY).replace(hour=10, minute=0, second=0, microsecond=0)
    same = {"entities": {"order_id": "A-9"}, "metadata": {"carrier": "c9"}, "shared_with": ["beta"]}
    async with mcp_client(server.url, token) as client:
        await _write_three(client, day, [{**same, "tags": [f"t{n}"]} for n in range(3)])
        await drain(poller)
        async with _container(stack) as c:
            assert c.maintain is not None
            consolidated = _step(await c.maintain.run(tenant_id=tenant), "consolidate")
        assert (consolidated.get("summaries"), consolidated.get("archived")) == (1, 3), consolidated
        (summary,) = await _search(client, AGENT, entities={"order_id": "A-9"})
        assert "consolidation" in summary["metadata"]
        assert summary["metadata"]["carrier"] == "c9"
        assert summary["shared_with"] == ["beta"]
        assert sorted(summary["tags"]) == ["t0", "t1", "t2"]
        assert [h["id"] for h in await _search(client, "beta")] == [summary["id"]]


@pytest.mark.anyio
async def test_a_rule_4_summary_of_members_with_other_entities_is_undone(
    stack: LocalStack, tenant: str
) -> None:
    """Stores consolidated under rule 4 get back the members whose entities the summary hid; a rule 4
    summary that carries its members' entities is kept and marked checked."""
    old = datetime.now(UTC) - 30 * DAY  # outside the window: only the re-check can touch these
    async with _container(stack) as c:
        orders = [
            await _insert(
                c, tenant, TEXT, created_at=old, occurred_at=old, entities=Jsonb({"order_id": f"A-{n}"})
            )
            for n in (1, 2, 3)
        ]
        bad = await _old_rule_summary(c, tenant, f"3 similar events on 2026-10-01: {TEXT}", orders, rule=4)
        alike = [
            await _insert(
                c, tenant, TEXT, created_at=old, occurred_at=old, entities=Jsonb({"order_id": "A-9"})
            )
            for _ in range(3)
        ]
        good = await _old_rule_summary(c, tenant, f"3 similar events on 2026-10-01: {TEXT}", alike, rule=4)
        async with tenant_transaction(c.pool, tenant) as conn:
            for summary, entities in ((bad, {"order_id": "A-3"}), (good, {"order_id": "A-9"})):
                await conn.execute(
                    "UPDATE memories SET entities = %s WHERE id = %s AND tenant_id = %s",
                    (Jsonb(entities), summary, tenant),
                )
        assert c.maintain is not None
        counts = _step(await c.maintain.run(tenant_id=tenant), "consolidate")
    assert (counts.get("summaries_undone"), counts.get("restored"), counts.get("summaries_checked")) == (
        1,
        3,
        1,
    ), counts
    status = dict(
        _rows(stack, "SELECT id, status FROM memories WHERE id = ANY(%s)", [bad, good, *orders, *alike])
    )
    assert [status[i] for i in (bad, good)] == ["archived", "active"]
    assert {status[i] for i in orders} == {"active"}
