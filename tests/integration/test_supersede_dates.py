"""A ``memory_update`` supersede is a new fact (new-user trial 2 HIGH, 7 MED), end to end through the MCP
client, the SQS emulator and the worker: it holds from its own date — the one given, or the one its own
words name, read from when the supersede was made — else from the moment of the supersede, never from the
old fact's ``occurred_at``, so the old fact keeps the period it was true; and it keeps the old fact's
entities except the values the old words named and the new words no longer do (the value replaced)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
INFERRED = "occurred_at_inferred"


async def _memory(client: Client, memory_id: str) -> dict[str, Any]:
    return dict((await call(client, "memory_get", {"id": memory_id}))["memory"])


async def _found(client: Client, **args: Any) -> list[str]:
    hits = await call(client, "memory_search", {"query": "where does Alex live", **args})
    return [h["memory"]["id"] for h in hits["results"]]


async def test_a_supersede_holds_from_now_and_the_old_fact_keeps_its_period(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client,
            "memory_write",
            {
                "content": "Alex lives in Lisbon",
                "key": "alex.city.home",
                "occurred_at": "2025-03",
                "entities": {"person": "Alex", "city": "Lisbon", "user": "maya"},
            },
        )
        await drain(poller)
        lisbon = str(ack["id"])
        before = datetime.now(UTC)
        moved = await call(
            client,
            "memory_update",
            {"id": lisbon, "action": "supersede", "content": "Alex moved to Porto", "reason": "moved"},
        )
        await drain(poller)
        porto = str(moved["queued"]["id"])
        old, new = await _memory(client, lisbon), await _memory(client, porto)
        assert new["occurred_at"] is None, new
        start = datetime.fromisoformat(new["valid_from"])
        assert start >= before - timedelta(seconds=1), new
        assert old["status"] == "superseded", old
        assert old["valid_from"] == "2025-03-01T00:00:00Z", old
        assert datetime.fromisoformat(old["valid_to"]) == start, old  # Lisbon held until Porto began
        assert await _found(client, valid_at="2025-06-01") == [lisbon]
        assert porto in await _found(client)

        # entities: the replaced value goes, the subject and the caller's context stay (trial 7)
        assert new["entities"] == {"person": "Alex", "user": "maya"}, new
        assert await _found(client, entities={"city": "Lisbon"}) == []


async def test_a_supersede_dates_its_own_words_from_when_it_was_made(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # the old words were dated from a moment long past: "Yesterday" of 2025-03-10
        ack = await call(
            client,
            "memory_write",
            {
                "content": "Alex lives in Lisbon",
                "key": "alex.city.home",
                "occurred_at": "2025-03-09",
                "metadata": {INFERRED: {"expression": "yesterday", "anchor": "2025-03-10T09:00:00+00:00"}},
            },
        )
        await drain(poller)
        lisbon = str(ack["id"])
        moved = await call(
            client,
            "memory_update",
            {"id": lisbon, "action": "supersede", "content": "Yesterday Alex moved to Porto"},
        )
        await drain(poller)
        new = await _memory(client, str(moved["queued"]["id"]))
        said = datetime.fromisoformat(moved["queued"]["submitted_at"])
        yesterday = (said - timedelta(days=1)).date().isoformat()
        assert new["occurred_at"] == f"{yesterday}T00:00:00Z", new
        assert new["metadata"][INFERRED] == {"expression": "yesterday", "anchor": said.isoformat()}, new
        old = await _memory(client, lisbon)
        assert old["valid_from"] == "2025-03-09T00:00:00Z", old
        assert old["valid_to"] == f"{yesterday}T00:00:00Z", old

        # a given occurred_at is the new fact's date (today: after Porto began)
        today = said.date().isoformat()
        dated = await call(
            client,
            "memory_update",
            {
                "id": str(moved["queued"]["id"]),
                "action": "supersede",
                "content": "Alex lives in Braga",
                "occurred_at": today,
                "entities": {"city": "Braga"},
            },
        )
        await drain(poller)
        braga = await _memory(client, str(dated["queued"]["id"]))
        assert (braga["occurred_at"], braga["entities"]) == (f"{today}T00:00:00Z", {"city": "Braga"}), braga


async def test_a_supersede_that_names_the_old_value_as_left_does_not_keep_it(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # trial 2 MED 6: "moved from Paris to Rome" still names Paris, but only as what Alex left
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client,
            "memory_write",
            {
                "content": "Alex lives in Paris",
                "key": "alex.city.left",
                "entities": {"city": "Paris", "user": "maya"},
            },
        )
        await drain(poller)
        moved = await call(
            client,
            "memory_update",
            {
                "id": ack["id"],
                "action": "supersede",
                "content": "Alex moved from Paris to Rome",
                "reason": "moved",
            },
        )
        await drain(poller)
        rome = str(moved["queued"]["id"])
        assert (await _memory(client, rome))["entities"] == {"user": "maya"}
        assert rome not in await _found(client, entities={"city": "Paris"})
        assert await _found(client, entities={"user": "maya"}) == [rome]


async def test_a_supersede_keeps_a_value_its_words_still_hold(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # trial 3 MED 10: a bare "from" is no leaving — "Alex from Paris" is still from Paris
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client,
            "memory_write",
            {
                "content": "Alex from Paris works at Acme",
                "key": "alex.job.from",
                "entities": {"city": "Paris"},
            },
        )
        await drain(poller)
        moved = await call(
            client,
            "memory_update",
            {
                "id": ack["id"],
                "action": "supersede",
                "content": "Alex from Paris now works at Globex",
                "reason": "new job",
            },
        )
        await drain(poller)
        globex = str(moved["queued"]["id"])
        assert (await _memory(client, globex))["entities"] == {"city": "Paris"}
        assert globex in await _found(client, entities={"city": "Paris"})
