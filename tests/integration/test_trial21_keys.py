"""Findings of trial21 on keyed and keyless changes, through the official MCP client over HTTP with the
real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- H3: "I quit Kaiser and joined Stripe" over "I work at Kaiser as a nurse" was kept beside it ("it takes
  back no value the key holds"): now it supersedes it, as "I left Kaiser for a job at Stripe" did.
- H4: "My son is allergic to peanuts" on an empty ``user.allergy`` was stored, and the writer's "I'm
  allergic to penicillin" retired it: refused now, naming a key of the son's.
- H5: keyless "My bank is Chase" / "I moved my accounts to Wells Fargo" were both active and unflagged:
  now linked ``contradicts`` (flagged), the old one kept active.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import (
    active_among,
    assert_contradicts,
    mcp_client,
    tool_error,
    write_stored,
    written_in_turn,
)

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def test_a_quit_and_a_new_job_on_a_key_supersedes_the_old_job(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H3: the old value is retired, the new one is the key's only active value."""
    key = f"user.job.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        kaiser = await write_stored(client, poller, "I work at Kaiser as a nurse", key)
        stripe = await write_stored(client, poller, "I quit Kaiser and joined Stripe", key)
        assert await active_among(client, [kaiser, stripe]) == {stripe}


async def test_another_persons_words_on_an_empty_key_of_the_writers_are_refused(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H4: a tool error naming the field, the key and a key of theirs; the writer's value is stored."""
    key = f"user.allergy{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        error = await tool_error(
            client, "memory_write", {"content": "My son is allergic to peanuts", "key": key}
        )
        assert error["kind"] == "invalid_arguments", error
        assert f"key {key!r} names the writer ('user') and holds no value yet" in error["message"], error
        assert "'son.allergy" in error["message"], error
        mine = await write_stored(client, poller, "I'm allergic to penicillin", key)
        assert await active_among(client, [mine]) == {mine}


async def test_the_users_switch_against_a_close_fact_is_flagged_not_retired(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H5: linked ``contradicts``, both active."""
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(
            client, poller, "My bank is Chase", "I moved my accounts to Wells Fargo"
        )
    assert_contradicts(new, old, view, "active")
