"""One fact per key, trial23 H3 and M2, through the official MCP client over HTTP with the real stack
(Postgres+pgvector, Redis, the SQS emulator and the worker):

- H3: "I no longer have a peanut allergy" on ``user.allergies`` holding "I'm allergic to peanuts" left it
  active and unflagged: retired now (the same words by their roots). A take-back the keyless rules read as a
  possible one of the value ("I no longer have a severe peanut allergy") links it ``contradicts``: kept,
  flagged in search.
- M2: "Yesterday I flew to Porto for a conference" on ``user.city`` retired "I live in Lisbon": refused now,
  naming an episodic write without the key; Lisbon stays the key's value.
- M1: "Tom is no longer allergic to shellfish, he outgrew it" after "My son Tom is allergic to shellfish"
  (no keys) was neither superseded nor flagged: linked ``contradicts`` now, both kept.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import (
    active_among,
    assert_contradicts,
    call,
    mcp_client,
    tool_error,
    write_stored,
    written_in_turn,
)

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_keyed_take_back_in_other_words_retires_the_value_it_names(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.allergies{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        _, new, view = await written_in_turn(
            client, poller, "I'm allergic to peanuts", "I no longer have a peanut allergy", key=key
        )
        assert view["memory"]["status"] == "superseded", view
        assert await active_among(client, [str(new["id"])]) == {str(new["id"])}


async def test_a_keyed_possible_take_back_flags_the_value_it_leaves(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.allergies{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(
            client, poller, "I'm allergic to peanuts", "I no longer have a severe peanut allergy", key=key
        )
        assert_contradicts(new, old, view, "active")
        found = await call(client, "memory_search", {"query": "am I allergic to peanuts?"})
        hit = next(h for h in found["results"] if h["memory"]["id"] == str(old["id"]))
        assert "possible_conflict" in hit["flags"], hit


async def test_a_dated_one_off_event_on_a_facts_key_is_refused_and_retires_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.city{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        lisbon = await write_stored(client, poller, "I live in Lisbon", key)
        arguments = {"content": "Yesterday I flew to Porto for a conference", "key": key}
        error = await tool_error(client, "memory_write", arguments)
        assert error["kind"] == "invalid_arguments", error
        assert "one-off event" in error["message"], error
        assert "layer 'episodic'" in error["message"], error
        moved = await write_stored(client, poller, "Yesterday I moved to Porto", key)
        assert await active_among(client, [lisbon, moved]) == {moved}


async def test_a_take_back_of_a_person_named_by_name_only_flags_their_fact_named_by_relation(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(
            client,
            poller,
            "My son Tom is allergic to shellfish",
            "Tom is no longer allergic to shellfish, he outgrew it",
        )
    assert_contradicts(new, old, view, "active")
