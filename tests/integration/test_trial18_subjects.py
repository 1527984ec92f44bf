"""Findings of trial18 on another person's words on the writer's key, through the official MCP client over
HTTP with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- H1: "My sister moved to Denver last spring" (user.home), "My brother-in-law works at Initech"
  (user.employer), "My kids went vegan in October" (user.diet) superseded the writer's value: refused as
  another person's words, the writer's value stays.
- H2: the husband's take-back kept beside "I started at Globex on Monday" switched the check off, so "My
  boss at Globex is Hank Scorpio" retired both; "My wife and I moved to Sacramento" (the writer's, opening
  with another person) was retired by "My in-laws live in Reno": both refused, the writer's values stay.
- M2: "My husband got a job in Seattle so we moved there in August" was refused: the writer's move, it
  replaces "I live in Boise".
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, tool_error, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    ("key", "value", "theirs", "subject"),
    [
        ("user.home", "I live in Fremont, California", "My sister moved to Denver last spring", "my sister"),
        ("user.employer", "I work at Globex", "My brother-in-law works at Initech", "my brother-in-law"),
        ("user.diet", "I'm vegetarian", "My kids went vegan in October", "my kids"),
    ],
    ids=["past-verb", "in-law", "went"],
)
async def test_another_persons_words_on_the_writers_key_are_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, theirs: str, subject: str
) -> None:
    """H1: refused as a tool error naming the field and the person; the writer's value stays active."""
    key = f"{key}.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        error = await tool_error(client, "memory_write", {"content": theirs, "key": key})
        assert error["kind"] == "invalid_arguments", error
        assert f"content: the words are about another person ({subject!r})" in error["message"], error
        await drain(poller)
        assert await active_among(client, [held]) == {held}


async def test_another_persons_value_beside_the_writers_does_not_switch_the_check_off(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H2 (employer): the husband's take-back is kept beside; the boss's words are refused after it."""
    key = f"user.employer.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        globex = await write_stored(client, poller, "I started at Globex on Monday", key)
        husband = await write_stored(client, poller, "My husband just quit his job at Initech", key)
        assert await active_among(client, [globex, husband]) == {globex, husband}
        error = await tool_error(
            client, "memory_write", {"content": "My boss at Globex is Hank Scorpio", "key": key}
        )
        assert "holds the writer's own value ('I started at Globex on Monday')" in error["message"], error
        await drain(poller)
        assert await active_among(client, [globex, husband]) == {globex, husband}


async def test_the_writers_value_opening_with_another_person_is_not_retired_by_anothers_words(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H2 (home): "My wife and I moved …" is the writer's; the in-laws' and the daughter's are refused."""
    key = f"user.home.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        ours = await write_stored(client, poller, "My wife and I moved to Sacramento over the summer", key)
        for theirs in ("My in-laws live in Reno", "Our daughter lives in the dorms at UC Davis"):
            error = await tool_error(client, "memory_write", {"content": theirs, "key": key})
            assert "another person" in error["message"], error
        await drain(poller)
        assert await active_among(client, [ours]) == {ours}


async def test_the_writers_move_after_another_persons_news_replaces_the_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """M2: "… so we moved there in August" is the writer's new home: "I live in Boise" superseded."""
    key = f"user.home.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        boise = await write_stored(client, poller, "I live in Boise", key)
        moved = await write_stored(
            client, poller, "My husband got a job in Seattle so we moved there in August", key
        )
        assert await active_among(client, [boise, moved]) == {moved}
        assert (await stored_memory(client, boise))["superseded_by"] == moved
