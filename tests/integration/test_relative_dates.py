"""Relative dates inside content (issue 12, item 2) through the official MCP client, the SQS emulator, the
worker and Postgres: "Yesterday I renewed my passport" happened the day before the write was
acknowledged, and a search over that day finds it. Copied into a consolidation summary, each member's
"yesterday" says which day it was."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from hindsight.client import call
from hindsight.domain.ids import uuid7
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _rows, _step
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_yesterday_in_the_content_is_the_day_before_the_acknowledgement(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": "Yesterday I renewed my passport"})
        plain = await call(client, "memory_write", {"content": "I keep my passport in the top drawer"})
        chinese = await call(client, "memory_write", {"content": "我上个月去了成都出差", "layer": "episodic"})
        await drain(poller)
        acked = datetime.fromisoformat(ack["submitted_at"])
        yesterday = (acked - timedelta(days=1)).date()

        got = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
        assert got["content"] == "Yesterday I renewed my passport"
        assert datetime.fromisoformat(got["occurred_at"]).date() == yesterday
        assert got["occurred_precision"] == "day"
        assert got["metadata"]["occurred_at_inferred"] == {
            "expression": "yesterday",
            "anchor": acked.isoformat(),
        }
        assert (await call(client, "memory_get", {"id": plain["id"]}))["memory"]["occurred_at"] is None
        month = (await call(client, "memory_get", {"id": chinese["id"]}))["memory"]
        assert month["occurred_precision"] == "month"

        async def found(**window: str) -> list[str]:
            hits = await call(client, "memory_search", {"query": "passport", **window})
            return [h["memory"]["id"] for h in hits["results"]]

        assert ack["id"] in await found(since=yesterday.isoformat(), until=yesterday.isoformat())
        assert ack["id"] in await found(time_range=yesterday.isoformat())
        assert ack["id"] not in await found(time_range=acked.date().isoformat())


async def test_a_summary_of_members_written_on_different_days_says_which_day_each_was(
    stack: LocalStack, tenant: str
) -> None:
    """A new-user trial: "Yesterday I deployed …" written on three days became one summary quoting
    "Yesterday I deployed …" once — read weeks later, about none of those days. The members go through
    the worker (acknowledged 4, 3 and 2 days ago, so each gets its own occurred_at), then one maintenance
    run consolidates them."""
    now = datetime.now(UTC)
    english = "Yesterday I deployed the billing service to production"
    chinese = "我昨天把账单服务部署到了生产环境"
    async with _container(stack) as c:
        jobs = [
            WriteJob(
                id=uuid7(),
                tenant_id=tenant,
                agent_id="default",
                submitted_at=now - days * timedelta(days=1),
                draft=MemoryDraft(content=text, layer="episodic"),
            )
            for text in (english, chinese)
            for days in (4, 3, 2)
        ]
        assert [r.outcome for r in await c.store_memories(jobs)] == ["stored"] * 6
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
        assert _step(report, "consolidate")["summaries"] == 2
        assert _step(report, "consolidate")["archived"] == 6
        summaries = [
            row[0]
            for row in _rows(
                stack,
                "SELECT content FROM memories WHERE tenant_id = %s AND metadata ? 'consolidation' "
                "AND status = 'active' ORDER BY content",
                tenant,
            )
        ]
    days = [(now - (d + 1) * timedelta(days=1)).date().isoformat() for d in (4, 3, 2)]
    (summary_en,) = [s for s in summaries if "billing" in s]
    (summary_zh,) = [s for s in summaries if "账单" in s]
    for day in days:
        assert f"Yesterday ({day}) I deployed the billing service to production" in summary_en
        assert f"{chinese}（昨天 = {day}）" in summary_zh
    assert "Yesterday I" not in summary_en


async def test_n_months_ago_in_a_turn_is_found_by_a_search_for_n_months_ago(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """New-user trial 6: a turn said on 2026-03-01 "… 2 months ago" is stored as January 2026; a search for
    "2 months ago" asked at that moment looked at 2025-12-31 (60 days back) and found nothing."""
    async with mcp_client(server.url, token) as client:
        turn = {
            "content": "I adopted a greyhound 2 months ago",
            "layer": "episodic",
            "conversation_id": "pets",
            "turn_index": 0,
            "session_at": "2026-03-01T12:00:00Z",
        }
        ack = await call(client, "memory_write", turn)
        await drain(poller)
        got = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
        assert (got["occurred_at"], got["occurred_precision"]) == ("2026-01-01T00:00:00Z", "month"), got
        window = {"query": "greyhound", "time_range": "2 months ago", "as_of": "2026-03-01T12:00:00Z"}
        hits = await call(client, "memory_search", window)
        assert ack["id"] in [h["memory"]["id"] for h in hits["results"]], hits
        # and a window that does not hold January does not find it
        window["time_range"] = "3 months ago"
        hits = await call(client, "memory_search", window)
        assert ack["id"] not in [h["memory"]["id"] for h in hits["results"]], hits


async def test_yesterday_counts_from_the_local_day_of_the_offset_given(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """New-user trial 5: a turn of a session at 21:00 on 10 February at UTC−5 (02:00 UTC on the 11th)
    saying "Yesterday I renewed my passport." was stored as the 10th; the speaker's yesterday is the 9th.
    A search asked at that local time for "yesterday" looks at the 9th."""
    async with mcp_client(server.url, token) as client:
        turn = {
            "content": "Yesterday I renewed my passport.",
            "layer": "episodic",
            "conversation_id": "errands",
            "turn_index": 0,
            "session_at": "2026-02-10T21:00:00-05:00",
        }
        ack = await call(client, "memory_write", turn)
        await drain(poller)
        got = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
        assert (got["occurred_at"], got["occurred_precision"]) == ("2026-02-09T00:00:00Z", "day"), got
        assert got["metadata"]["occurred_at_inferred"]["anchor"] == "2026-02-10T21:00:00-05:00", got
        window = {"query": "passport", "time_range": "yesterday", "as_of": "2026-02-10T21:00:00-05:00"}
        hits = await call(client, "memory_search", window)
        assert ack["id"] in [h["memory"]["id"] for h in hits["results"]], hits
        window["as_of"] = "2026-02-11T02:00:00Z"  # the same instant read as a UTC day: yesterday is the 10th
        hits = await call(client, "memory_search", window)
        assert ack["id"] not in [h["memory"]["id"] for h in hits["results"]], hits
