"""memory_search with valid_at through the official MCP client (real Postgres): archiving is no retraction,
so a fact archived since (cold from disuse, or on request) is returned for an instant its period holds,
with its status ``archived``; archived episodes stay out (trial F6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _insert, _step
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_valid_at_returns_facts_archived_since_labelled_archived(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    long_ago = datetime.now(UTC) - timedelta(days=400)
    async with _container(stack) as c:
        cold = await _insert(
            c,
            tenant,
            "Dave's team works from the Lisbon office",
            created_at=long_ago,
            layer="semantic",
            key="team.office",
        )
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "decay")["archived"] == 1
    async with mcp_client(server.url, token) as client:
        asked = await call(client, "memory_write", {"content": "Dave's team parks in the Lisbon garage"})
        event = await call(
            client,
            "memory_write",
            {"content": "Dave's team visited the Lisbon office for a workshop", "layer": "episodic"},
        )
        await drain(poller)
        for memory in (asked, event):
            await call(client, "memory_update", {"id": memory["id"], "action": "archive"})
        then = (datetime.now(UTC) - timedelta(days=1)).isoformat()
        now = datetime.now(UTC).isoformat()
        at_then = await call(client, "memory_search", {"query": "Dave team Lisbon", "valid_at": then})
        at_now = await call(client, "memory_search", {"query": "Dave team Lisbon", "valid_at": now})
        held_now = await call(
            client,
            "memory_search",
            {"query": "Dave team Lisbon", "valid_at": now, "known_at": datetime.now(UTC).isoformat()},
        )
        today = await call(client, "memory_search", {"query": "Dave team Lisbon"})
        superseded_only = await call(
            client, "memory_search", {"query": "Dave team Lisbon", "valid_at": now, "status": ["superseded"]}
        )

    found_then = {h["memory"]["id"]: h["memory"]["status"] for h in at_then["results"]}
    assert found_then == {str(cold): "archived"}  # the garage fact and the event began after `then`
    found_now = {h["memory"]["id"]: h["memory"]["status"] for h in at_now["results"]}
    assert found_now == {str(cold): "archived", asked["id"]: "archived"}  # never the archived episode
    found_held = {h["memory"]["id"]: h["memory"]["status"] for h in held_now["results"]}
    assert found_held == found_now  # the same under known_at (statuses as held then)
    assert today["results"] == []  # the default search still shows active memories only
    assert superseded_only["results"] == []  # archived facts come with "active", not with any status


async def test_valid_at_leaves_out_an_archived_value_of_a_key_written_again_since(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """An archived keyed value keeps its open period (writes settle with active values only): from the
    start of the value written on its key since, that value holds, not the archived one."""
    async with mcp_client(server.url, token) as client:
        old = await call(
            client, "memory_write", {"content": "Nora's phone plan is Basic 5GB", "key": "nora.plan"}
        )
        await drain(poller)
        await call(client, "memory_update", {"id": old["id"], "action": "archive"})
        between = datetime.now(UTC).isoformat()
        new = await call(
            client, "memory_write", {"content": "Nora's phone plan is Unlimited", "key": "nora.plan"}
        )
        await drain(poller)
        now = datetime.now(UTC).isoformat()
        at_now = await call(client, "memory_search", {"query": "Nora phone plan", "valid_at": now})
        at_between = await call(client, "memory_search", {"query": "Nora phone plan", "valid_at": between})

    assert {h["memory"]["id"]: h["memory"]["status"] for h in at_now["results"]} == {new["id"]: "active"}
    assert {h["memory"]["id"]: h["memory"]["status"] for h in at_between["results"]} == {
        old["id"]: "archived"
    }


async def test_an_archived_value_of_a_key_written_again_since_is_not_valid_by_any_read(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """Trial N1: the archived old value was left out only by a ``valid_at`` search of today asking for
    ``active``; with ``known_at``, with ``status`` naming ``archived``, and by ``memory_get`` it still
    read as valid beside the value written on its key since. Before that value began it still holds."""
    async with mcp_client(server.url, token) as client:
        old = await call(
            client, "memory_write", {"content": "Nora's phone plan is Basic 5GB", "key": "nora.plan"}
        )
        await drain(poller)
        await call(client, "memory_update", {"id": old["id"], "action": "archive"})
        between = datetime.now(UTC).isoformat()
        new = await call(
            client, "memory_write", {"content": "Nora's phone plan is Unlimited", "key": "nora.plan"}
        )
        await drain(poller)
        now = datetime.now(UTC).isoformat()

        async def found(**point: Any) -> dict[str, str]:
            answer = await call(client, "memory_search", {"query": "Nora phone plan"} | point)
            return {h["memory"]["id"]: h["memory"]["status"] for h in answer["results"]}

        both = ["active", "archived"]
        at_now = {
            "known_at": await found(valid_at=now, known_at=now),
            "status": await found(valid_at=now, status=both),
            "known_at and status": await found(valid_at=now, known_at=now, status=both),
            "archived only": await found(valid_at=now, status=["archived"]),
        }
        at_between = {
            "known_at": await found(valid_at=between, known_at=now),
            "status": await found(valid_at=between, status=both),
        }
        got_between = await call(client, "memory_get", {"id": old["id"], "valid_at": between})
        missing = await tool_error(client, "memory_get", {"id": old["id"], "valid_at": now})
        missing_known = await tool_error(
            client, "memory_get", {"id": old["id"], "valid_at": now, "known_at": now}
        )

    assert at_now == {
        "known_at": {new["id"]: "active"},
        "status": {new["id"]: "active"},
        "known_at and status": {new["id"]: "active"},
        "archived only": {},
    }
    assert at_between == {"known_at": {old["id"]: "archived"}, "status": {old["id"]: "archived"}}
    assert got_between["memory"]["status"] == "archived"
    for error in (missing, missing_known):
        assert error["kind"] == "not_found"
        assert error["field"] == "valid_at", error
        assert "key 'nora.plan'" in error["message"], error


async def test_a_live_value_written_from_before_an_archived_one_holds_alone_over_it(
    stack: LocalStack, server: BackgroundServer, poller: SqsPoller, tenant: str, token: str
) -> None:
    """Trial 2 MED 4 (the opposite order of N1): Oslo from May archived, then Bonn from January written on
    the key (a write settles only with live values: Bonn is open, Oslo keeps its open period). From May
    both periods hold; every ``valid_at`` read answers the live Bonn alone — one value of a key at each
    instant — and Oslo's ``memory_get`` there is ``not_found``."""
    async with mcp_client(server.url, token) as client:
        oslo = await call(
            client,
            "memory_write",
            {"content": "The user lives in Oslo", "key": "user.city", "occurred_at": "2025-05-01"},
        )
        await drain(poller)
        await call(client, "memory_update", {"id": oslo["id"], "action": "archive"})
        bonn = await call(
            client,
            "memory_write",
            {"content": "The user lives in Bonn", "key": "user.city", "occurred_at": "2025-01-01"},
        )
        await drain(poller)
        now = datetime.now(UTC).isoformat()

        async def found(**point: Any) -> dict[str, str]:
            answer = await call(client, "memory_search", {"query": "where does the user live"} | point)
            return {h["memory"]["id"]: h["memory"]["status"] for h in answer["results"]}

        both = ["active", "archived"]
        seen = {
            (at, how): await found(valid_at=at, **point)
            for at in ("2025-03-01", "2025-06-01", now)
            for how, point in (
                ("implied", {}),
                ("status", {"status": both}),
                ("known_at", {"known_at": now}),
                ("known_at and status", {"known_at": now, "status": both}),
            )
        }
        missing = await tool_error(client, "memory_get", {"id": oslo["id"], "valid_at": "2025-06-01"})
        missing_known = await tool_error(
            client, "memory_get", {"id": oslo["id"], "valid_at": "2025-06-01", "known_at": now}
        )

    assert seen == {key: {bonn["id"]: "active"} for key in seen}
    for error in (missing, missing_known):
        assert error["kind"] == "not_found"
        assert error["field"] == "valid_at", error
        assert "key 'user.city'" in error["message"], error
