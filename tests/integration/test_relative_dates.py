"""Relative dates inside content (issue 12, item 2) through the official MCP client, the SQS emulator, the
worker and Postgres: "Yesterday I renewed my passport" happened the day before the write was
acknowledged, and a search over that day finds it."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
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
