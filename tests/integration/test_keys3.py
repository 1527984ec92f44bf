"""One fact per key, trial22 M2 and M4 and a keyless switch "instead", through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- M2: "My wife is vegetarian, so I cook vegetarian now" on an empty ``user.diet`` was refused: stored now,
  the key's value.
- M4: "My dog's name is Rex" on ``user.name`` holding "Sam" was stored and retired "Sam": refused now,
  naming a key of the dog's; "Sam" stays the key's value.
- Keyless "I now use Wells Fargo instead" over "I use Chase for banking" retired it: linked ``contradicts``
  (flagged) now, the old one kept active, as a switch of a use is (5fc3be8).
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


async def test_the_writers_so_i_cook_now_after_another_persons_words_opens_an_empty_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.diet.{uuid.uuid4().hex[:6]}"  # a key word of food: "diet" whole (h-keys5)
    async with mcp_client(server.url, token) as client:
        cook = await write_stored(client, poller, "My wife is vegetarian, so I cook vegetarian now", key)
        assert await active_among(client, [cook]) == {cook}


async def test_a_pets_name_on_the_writers_name_key_is_refused_and_retires_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    key = f"user.name{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        sam = await write_stored(client, poller, "Sam", key)
        error = await tool_error(client, "memory_write", {"content": "My dog's name is Rex", "key": key})
        assert error["kind"] == "invalid_arguments", error
        assert "about a pet" in error["message"], error
        assert "'dog.name" in error["message"], error
        assert await active_among(client, [sam]) == {sam}


async def test_a_keyless_use_switched_instead_of_an_unnamed_value_is_flagged_not_retired(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old, new, view = await written_in_turn(
            client, poller, "I use Chase for banking", "I now use Wells Fargo instead"
        )
    assert_contradicts(new, old, view, "active")
