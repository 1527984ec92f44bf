"""Findings of trial11 (main 576664e) on a key's additive values, through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- H1: a restore of a forgotten "also" value retired the value it was added to and cut that value's
  validity back to the instant the "also" value was written; a restore puts a value back beside the
  values it stood beside, and rewrites no other value's period.
- H2: "… allergic to peanuts again" after "no longer allergic to peanuts but still to shellfish"
  retired the take-back *and* shellfish; it reverses only the take-back.
- K7: "Turns out I am allergic to peanuts after all" with peanuts and "also shellfish" active retired
  both; a restatement of a value the key holds replaces that statement only.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, mcp_client, stored_memory, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize("edited", [False, True], ids=["as-written", "edited-since"])
async def test_a_restored_also_value_goes_back_beside_the_value_it_was_added_to(
    server: BackgroundServer, poller: SqsPoller, token: str, edited: bool
) -> None:
    """H1: peanuts, "also shellfish" (both active), forget shellfish, restore it: both active again, the
    restore supersedes nothing, and peanuts keeps its period (no end, none before its edit)."""
    key = f"pat.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "Pat is allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "Pat is also allergic to shellfish", key)
        if edited:  # peanuts edited after shellfish was written
            await call(
                client,
                "memory_update",
                {"id": peanuts, "action": "update", "content": "Pat is allergic to peanuts and peanut oil"},
            )
        before = await stored_memory(client, peanuts)
        await call(client, "memory_forget", {"id": shellfish})
        restored = await call(client, "memory_update", {"id": shellfish, "action": "restore"})
        assert not restored.get("superseded"), restored
        assert await active_among(client, [peanuts, shellfish]) == {peanuts, shellfish}
        after = await stored_memory(client, peanuts)
        assert after["valid_to"] is None, after
        assert after["superseded_by"] is None
        assert after["valid_from"] == before["valid_from"]


async def test_a_restored_value_leaves_the_also_value_written_beside_it(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H1, the other way round: forget peanuts (shellfish, added to it, stays), restore peanuts: the
    "also" value that stood beside it is neither retired nor given an end."""
    key = f"pat.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "Pat is allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "Pat is also allergic to shellfish", key)
        await call(client, "memory_forget", {"id": peanuts})
        restored = await call(client, "memory_update", {"id": peanuts, "action": "restore"})
        assert not restored.get("superseded"), restored
        assert await active_among(client, [peanuts, shellfish]) == {peanuts, shellfish}
        assert (await stored_memory(client, shellfish))["valid_to"] is None


async def test_a_restored_also_value_retires_the_value_that_replaced_it(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """What a restore is for stays: "also shellfish" taken back ("no longer allergic to shellfish"),
    then restored, retires the take-back that replaced it; peanuts, beside it throughout, stays."""
    key = f"pat.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "Pat is allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "Pat is also allergic to shellfish", key)
        back = await write_stored(client, poller, "Pat is no longer allergic to shellfish", key)
        assert await active_among(client, [peanuts, shellfish, back]) == {peanuts, back}
        restored = await call(client, "memory_update", {"id": shellfish, "action": "restore"})
        assert restored["superseded"] == [back], restored
        assert await active_among(client, [peanuts, shellfish, back]) == {peanuts, shellfish}
        assert (await stored_memory(client, peanuts))["valid_to"] is None


async def test_a_re_add_after_a_take_back_with_still_keeps_the_value_still_held(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H2: the re-add reverses the take-back only; shellfish, said to still hold, stays active."""
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "I'm also allergic to shellfish", key)
        back = await write_stored(
            client, poller, "I'm no longer allergic to peanuts but still to shellfish", key
        )
        assert await active_among(client, [peanuts, shellfish, back]) == {shellfish, back}
        again = await write_stored(client, poller, "I'm allergic to peanuts again", key)
        assert await active_among(client, [peanuts, shellfish, back, again]) == {shellfish, again}
        assert (await stored_memory(client, back))["superseded_by"] == again


async def test_a_restatement_of_one_value_keeps_the_other(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """K7: "Turns out I am allergic to peanuts after all" restates peanuts: it replaces that statement
    only; shellfish stays active beside it, linked ``related``."""
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "I'm also allergic to shellfish", key)
        again = await write_stored(client, poller, "Turns out I am allergic to peanuts after all", key)
        assert await active_among(client, [peanuts, shellfish, again]) == {shellfish, again}
        assert (await stored_memory(client, peanuts))["superseded_by"] == again
        status = (await call(client, "memory_status", {"ids": [again]}))["writes"][0]
        assert f"leaves {shellfish} active" in status["reason"], status["reason"]
