"""A ``known_at`` search filters by the values its memories had then (new-user trial F3), through the
official MCP client on the stack's real Postgres, SQS emulator and worker: a memory whose key, tags,
entities, importance or event time changed since is found by the values of then, and not by today's —
whether an edit or the merge of a repeat changed them."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> str:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


async def _found(client: Client, query: str, **args: Any) -> set[str]:
    result = await call(client, "memory_search", {"query": query, "top_k": 50, **args})
    return {h["memory"]["id"] for h in result["results"]}


async def test_a_known_at_search_filters_by_the_values_held_then(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        office = await _stored(
            client,
            poller,
            content="The Lisbon office opens at 9:00 on weekdays",
            key="office.lisbon",
            tags=["ops"],
            entities={"city": "Lisbon"},
            importance=0.7,
        )
        trip = await _stored(
            client,
            poller,
            content="Team offsite in the Lisbon office",
            layer="episodic",
            occurred_at="2026-03-10",
        )
        then = str((await call(client, "memory_get", {"id": trip}))["memory"]["created_at"])
        await call(
            client,
            "memory_update",
            {
                "id": office,
                "action": "update",
                "key": "office.porto",
                "tags": ["travel"],
                "entities": {"city": "Porto"},
                "importance": 0.2,
                "reason": "it was about Porto all along",
            },
        )
        await call(client, "memory_update", {"id": trip, "action": "update", "occurred_at": "2026-06-10"})
        query = "office opening hours offsite"
        at = {"known_at": then}

        assert office in await _found(client, query, key="office.lisbon", **at)
        assert office not in await _found(client, query, key="office.porto", **at)
        assert office in await _found(client, query, tags=["ops"], **at)
        assert office not in await _found(client, query, tags=["travel"], **at)
        assert office in await _found(client, query, entities={"city": "Lisbon"}, **at)
        assert office not in await _found(client, query, entities={"city": "Porto"}, **at)
        assert office in await _found(client, query, min_importance=0.5, **at)
        assert trip in await _found(client, query, since="2026-03-01", until="2026-04-01", **at)
        assert trip not in await _found(client, query, since="2026-06-01", until="2026-07-01", **at)
        # today's values, today
        assert office in await _found(client, query, key="office.porto")
        assert office not in await _found(client, query, min_importance=0.5)
        assert trip in await _found(client, query, since="2026-06-01", until="2026-07-01")


async def test_a_known_at_search_does_not_find_a_memory_by_what_a_later_repeat_added(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        fact = await _stored(client, poller, content="Maya's desk is by the north window")
        then = str((await call(client, "memory_get", {"id": fact}))["memory"]["created_at"])
        repeat = {"content": "Maya's desk is by the north window", "tags": ["seating"]}
        await _stored(client, poller, **repeat, entities={"person": "Maya"})  # merges into it
        view = await call(client, "memory_get", {"id": fact})
        assert view["memory"]["tags"] == ["seating"]
        query = "where does Maya sit"

        assert fact not in await _found(client, query, tags=["seating"], known_at=then)
        assert fact not in await _found(client, query, entities={"person": "Maya"}, known_at=then)
        assert fact in await _found(client, query, known_at=then)
        assert fact in await _found(client, query, tags=["seating"])
