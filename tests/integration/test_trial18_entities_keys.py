"""Findings of new-user trial18 (main a7de606), through the official MCP client in both protocol eras on
the real stack (Postgres+pgvector, the SQS emulator and the worker): a memory whose entity type holds a
list is found by the entities filter through any one of its values, today and under ``known_at`` (M5)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

LUNCH = {
    "content": "Lunch meeting about the Q1 roadmap",
    "layer": "episodic",
    "entities": {"person": ["Alice Nguyen", "Bob Ferris"], "order_id": 1042},
}
CALL = {"content": "Call about invoice disputes", "layer": "episodic", "entities": {"person": "Carla Diaz"}}


async def _stored(client: Client, poller: SqsPoller, args: dict[str, Any]) -> str:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


async def _found(client: Client, query: str, **args: Any) -> set[str]:
    result = await call(client, "memory_search", {"query": query, "top_k": 50, **args})
    return {h["memory"]["id"] for h in result["results"]}


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_an_entity_filter_finds_a_memory_by_any_one_value_of_its_list(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    # Given a meeting with two people (a list) and a call with one (a scalar)
    async with mcp_client(server.url, token, mode) as client:
        lunch = await _stored(client, poller, LUNCH)
        carla = await _stored(client, poller, CALL)
        stored = (await call(client, "memory_get", {"id": lunch}))["memory"]
        query = "meeting call"
        found = {
            name: await _found(client, query, entities={"person": name})
            for name in ("Alice Nguyen", "Bob Ferris", "Carla Diaz")
        }
        both = await _found(client, query, entities={"person": ["Bob Ferris", "Alice Nguyen"]})
        one_listed = await _found(client, query, entities={"person": ["Carla Diaz"]})
        mixed = await _found(client, query, entities={"person": ["Alice Nguyen", "Carla Diaz"]})
        with_order = await _found(client, query, entities={"person": "Bob Ferris", "order_id": 1042})
        order_as_text = await _found(client, query, entities={"order_id": "1042"})
        nobody = await _found(client, query, entities={"person": "Alice"})
    # Then the list is stored as written, and each of its values finds it
    assert stored["entities"] == LUNCH["entities"]
    assert found == {"Alice Nguyen": {lunch}, "Bob Ferris": {lunch}, "Carla Diaz": {carla}}
    # a list of values finds the memories holding every one of them, whether as a list or alone
    assert both == {lunch}
    assert one_listed == {carla}
    assert mixed == set()
    # types combine (all of them), and values compare as JSON values, whole: 1042 is not "1042"
    assert with_order == {lunch}
    assert order_as_text == set()
    assert nobody == set()


async def test_a_known_at_entity_filter_finds_a_value_of_the_list_held_then(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given a meeting with two people, corrected since to name a third alone
    async with mcp_client(server.url, token) as client:
        lunch = await _stored(client, poller, LUNCH)
        then = str((await call(client, "memory_get", {"id": lunch}))["memory"]["created_at"])
        await call(
            client,
            "memory_update",
            {"id": lunch, "action": "update", "entities": {"person": "Dana Lee"}, "reason": "it was Dana"},
        )
        query = "lunch meeting roadmap"
        then_bob = await _found(client, query, entities={"person": "Bob Ferris"}, known_at=then)
        then_dana = await _found(client, query, entities={"person": "Dana Lee"}, known_at=then)
        today_bob = await _found(client, query, entities={"person": "Bob Ferris"})
        today_dana = await _found(client, query, entities={"person": "Dana Lee"})
    # Then at known_at one value of the list held then finds it, today's value does not; today the reverse
    assert (then_bob, then_dana) == ({lunch}, set())
    assert (today_bob, today_dana) == (set(), {lunch})
