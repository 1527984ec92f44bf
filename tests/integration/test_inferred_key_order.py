"""A date read from the words does not make the newest statement on a key a past value on a guess
(new-user trial 3 HIGH), end to end through the MCP client, the SQS emulator and the worker (both its
batch path and its one-job path): "moved to Berlin last month" after "lives in Lisbon" from the 15th of
that month, and "manager is Oscar, who joined the company last year" after "manager is Priya", take the
key from when they were said; "lived in Paris two years ago" after "lives in Rome" stays a past value,
as do a write the caller dated and an undated "lived in Lyon in 2019"; a supersede whose words name a
date before the old fact began holds from when it was made."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> dict[str, Any]:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return dict(ack)


async def _memory(client: Client, memory_id: str) -> dict[str, Any]:
    return dict((await call(client, "memory_get", {"id": memory_id}))["memory"])


async def _reason(client: Client, memory_id: str) -> str:
    return str((await call(client, "memory_status", {"ids": [memory_id]}))["writes"][0]["reason"])


async def _current(client: Client, query: str, key: str) -> list[str]:
    hits = await call(client, "memory_search", {"query": query, "key": key})
    return [h["memory"]["id"] for h in hits["results"]]


def _last_month_15th(now: datetime) -> str:
    index = now.year * 12 + now.month - 2
    return f"{index // 12:04d}-{index % 12 + 1:02d}-15"


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_an_inferred_date_inside_the_holders_span_does_not_make_the_new_value_past(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    key = f"user.city.{path}"
    async with mcp_client(server.url, token) as client:
        lisbon = await _stored(
            client,
            poller,
            content="The user lives in Lisbon",
            key=key,
            occurred_at=_last_month_15th(datetime.now(UTC)),
        )
        # a causal parent sends the write down the worker's one-job path (write_batch.needs_own_path)
        own = {"causal_parent": lisbon["id"]} if path == "own" else {}
        berlin = await _stored(client, poller, content="The user moved to Berlin last month", key=key, **own)
        new, old = await _memory(client, berlin["id"]), await _memory(client, lisbon["id"])
        said = berlin["submitted_at"]
        assert new["status"] == "active", (new, await _reason(client, berlin["id"]))
        assert datetime.fromisoformat(new["valid_from"]) == datetime.fromisoformat(said), new
        assert new["occurred_precision"] == "month", new  # its event time stays as the words say
        assert old["status"] == "superseded", old
        assert datetime.fromisoformat(old["valid_to"]) == datetime.fromisoformat(said), old
        assert await _current(client, "where does the user live", key) == [berlin["id"]]
        assert "does not make it a past value" in await _reason(client, berlin["id"])


async def test_a_date_in_a_side_clause_does_not_hide_the_newest_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = "user.manager"
    async with mcp_client(server.url, token) as client:
        priya = await _stored(client, poller, content="The user's manager is Priya", key=key)
        oscar = await _stored(
            client, poller, content="The user's manager is Oscar, who joined the company last year", key=key
        )
        assert (await _memory(client, oscar["id"]))["status"] == "active"
        assert (await _memory(client, priya["id"]))["status"] == "superseded"
        assert await _current(client, "who is the user's manager", key) == [oscar["id"]]


async def test_a_genuinely_past_value_stays_past(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = "user.home"
    async with mcp_client(server.url, token) as client:
        rome = await _stored(client, poller, content="The user lives in Rome", key=key)
        paris = await _stored(client, poller, content="The user lived in Paris two years ago", key=key)
        nice = await _stored(client, poller, content="The user lived in Nice", key=key, occurred_at="2019")
        # Paris is a past value of Rome; Nice (2019) of Paris, the next value on the key
        for past, holder in ((paris, rome), (nice, paris)):
            assert (await _memory(client, past["id"]))["status"] == "superseded"
            assert (await _reason(client, past["id"])).startswith(f"past value: {holder['id']} holds the key")
        assert (await _memory(client, rome["id"]))["status"] == "active"
        assert await _current(client, "where does the user live", key) == [rome["id"]]

        # undated, but a past state in one named year: dated that year, a past value (not today's value)
        key = "user.home.undated"
        rome = await _stored(client, poller, content="The user lives in Rome", key=key)
        lyon = await _stored(client, poller, content="The user lived in Lyon in 2019", key=key)
        past, held = await _memory(client, lyon["id"]), await _memory(client, rome["id"])
        assert (past["status"], past["valid_from"], past["occurred_precision"]) == (
            "superseded",
            "2019-01-01T00:00:00Z",
            "year",
        ), past
        assert past["valid_to"] == held["valid_from"], (past, held)
        reason = await _reason(client, lyon["id"])
        assert reason.startswith("dated 2019 from its words"), reason
        assert f"past value: {rome['id']} holds the key" in reason, reason
        assert await _current(client, "where does the user live", key) == [rome["id"]]
        # a present state beside the year takes the key as any undated value does
        milan = await _stored(
            client, poller, content="The user lives in Milan, where they moved in 2019", key=key
        )
        assert await _current(client, "where does the user live", key) == [milan["id"]]


async def test_a_supersede_dated_by_its_words_before_the_old_fact_keeps_the_old_period(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        lisbon = await _stored(
            client, poller, content="Alex lives in Lisbon", key="alex.city", occurred_at="2026-03"
        )
        moved = await call(
            client,
            "memory_update",
            {"id": lisbon["id"], "action": "supersede", "content": "Alex moved to Porto last year"},
        )
        await drain(poller)
        said = datetime.fromisoformat(moved["queued"]["submitted_at"])
        old, new = await _memory(client, lisbon["id"]), await _memory(client, moved["queued"]["id"])
        assert new["occurred_at"].startswith(f"{said.year - 1}-01-01"), new
        assert datetime.fromisoformat(new["valid_from"]) == said, new
        assert old["valid_from"] == "2026-03-01T00:00:00Z", old
        assert datetime.fromisoformat(old["valid_to"]) == said, old
