"""Findings of trial12 (main 57ca21f) on keyed facts, through the official MCP client over HTTP with the
real stack (Postgres+pgvector, Redis, the SQS emulator and the worker):

- H1: "Turns out I'm not allergic to peanuts after all" left "I'm allergic to peanuts" active (on a key
  and without one, unflagged): confirming words ("Turns out", "after all") name nothing, so it is the
  take-back of peanuts, as "I'm not allergic to peanuts" is; beside "also shellfish" it retires peanuts
  only.
- H2: "I'm going to move to Portland next month", "We plan to move to Portland" on ``user.home`` holding
  "I live in Denver", and "I plan to visit Mars" on ``user.planet`` holding "I like Mars", replaced the
  value of now: a plan is refused on a key (stored on one that names plans), as "I'm planning to …" is.
- M1: "My sister also lives in Portland now" / "My brother is also married now" replaced the user's home
  / marriage: "also … now" of a one-value state replaces only when the writer is its subject.
- M2: "I live in Portland now, maybe" and "I think I also live in Portland now" retired Denver: a hedge
  that ends the write after a comma or opens it ("I think I …") is refused as "Maybe …" is.
- L1: "My son is allergic to peanuts again" on ``user.allergy`` retired the user's values: a re-add about
  another person re-adds none of the writer's values and retires none.
"""

from __future__ import annotations

import uuid

import pytest

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import active_among, drain, mcp_client, stored_memory, write_stored

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


@pytest.mark.parametrize(
    "take_back",
    ["Turns out I'm not allergic to peanuts after all", "I'm not allergic to peanuts after all"],
    ids=["turns-out", "after-all"],
)
async def test_a_take_back_with_confirming_words_retires_the_value(
    server: BackgroundServer, poller: SqsPoller, token: str, take_back: str
) -> None:
    """H1: on a key of one value, the take-back supersedes peanuts."""
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", key)
        back = await write_stored(client, poller, take_back, key)
        assert await active_among(client, [peanuts, back]) == {back}
        assert (await stored_memory(client, peanuts))["superseded_by"] == back


async def test_a_take_back_with_after_all_leaves_the_also_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H1, additive pair: "… not allergic to peanuts after all" retires peanuts; shellfish stays."""
    key = f"user.allergy.{uuid.uuid4().hex[:6]}"
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", key)
        shellfish = await write_stored(client, poller, "I'm also allergic to shellfish", key)
        back = await write_stored(client, poller, "I'm not allergic to peanuts after all", key)
        assert await active_among(client, [peanuts, shellfish, back]) == {shellfish, back}
        assert (await stored_memory(client, peanuts))["superseded_by"] == back


async def test_a_keyless_take_back_with_confirming_words_supersedes_the_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """H1 without a key (both stayed active, unflagged): the same statement negated supersedes it, as
    "I'm not allergic to peanuts" does (contradiction rule 1)."""
    async with mcp_client(server.url, token) as client:
        peanuts = await write_stored(client, poller, "I'm allergic to peanuts", None)
        back = await write_stored(client, poller, "Turns out I'm not allergic to peanuts after all", None)
        assert await active_among(client, [peanuts, back]) == {back}
        assert (await stored_memory(client, peanuts))["superseded_by"] == back


@pytest.mark.parametrize(
    ("key", "value", "plan"),
    [
        ("user.home", "I live in Denver", "I'm going to move to Portland next month"),
        ("user.home", "I live in Denver", "We plan to move to Portland"),
        ("user.planet", "I like Mars", "I plan to visit Mars"),
    ],
    ids=["going-to", "we-plan-to", "plan-to-visit"],
)
async def test_a_plan_on_a_key_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, plan: str
) -> None:
    """H2: refused (invalid_arguments, naming a plan), the value stays active; on a key that names plans
    the same words are stored."""
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": plan, "key": key})
        assert caught.value.code == -32602, caught.value.error
        assert "state a plan" in caught.value.error["message"]
        await drain(poller)
        assert await active_among(client, [held]) == {held}
        stored = await write_stored(client, poller, plan, "user.plans")
        assert await active_among(client, [held, stored]) == {held, stored}


@pytest.mark.parametrize(
    ("key", "value", "other"),
    [
        ("user.home", "I live in Denver", "My sister also lives in Portland now"),
        ("user.marital", "I'm married", "My brother is also married now"),
    ],
    ids=["sister-home", "brother-married"],
)
async def test_also_now_of_another_person_retires_no_value_of_the_writer(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, value: str, other: str
) -> None:
    """M1: the other person's state is added beside the user's, which stays active."""
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, value, key)
        added = await write_stored(client, poller, other, key)
        assert await active_among(client, [held, added]) == {held, added}


@pytest.mark.parametrize(
    "hedged",
    ["I live in Portland now, maybe", "I think I also live in Portland now"],
    ids=["maybe", "i-think"],
)
async def test_a_hedged_value_on_a_key_is_refused_and_the_value_kept(
    server: BackgroundServer, poller: SqsPoller, token: str, hedged: str
) -> None:
    """M2: refused naming a possibility; Denver stays the key's value."""
    async with mcp_client(server.url, token) as client:
        held = await write_stored(client, poller, "I live in Denver", "user.home")
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_write", {"content": hedged, "key": "user.home"})
        assert "state a possibility" in caught.value.error["message"], caught.value.error
        await drain(poller)
        assert await active_among(client, [held]) == {held}


@pytest.mark.parametrize("also", [False, True], ids=["one-value", "additive-pair"])
async def test_again_about_another_person_retires_no_value_of_the_writer(
    server: BackgroundServer, poller: SqsPoller, token: str, also: bool
) -> None:
    """L1: the user's values stay active beside the son's."""
    key = "user.allergy"
    async with mcp_client(server.url, token) as client:
        held = [await write_stored(client, poller, "I'm allergic to peanuts", key)]
        if also:
            held.append(await write_stored(client, poller, "I'm also allergic to shellfish", key))
        son = await write_stored(client, poller, "My son is allergic to peanuts again", key)
        assert await active_among(client, [*held, son]) == {*held, son}


@pytest.mark.parametrize(
    ("key", "values", "again"),
    [
        (
            "user.allergy",
            ["Allergic to penicillin", "Also allergic to shellfish"],
            "My son is allergic to peanuts again",
        ),
        ("user.allergy", ["I'm allergic to peanuts"], "Our kids are allergic to peanuts again"),
        ("alex.allergy", ["Alex is allergic to penicillin"], "Alex's son is allergic to peanuts again"),
    ],
    ids=["subjectless", "our-kids", "named-relation"],
)
async def test_again_about_another_person_retires_no_value_of_another_subject(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str, values: list[str], again: str
) -> None:
    """trial14 H1: subjectless values (the key owner's) and the named person's stay active."""
    async with mcp_client(server.url, token) as client:
        held = [await write_stored(client, poller, value, key) for value in values]
        other = await write_stored(client, poller, again, key)
        assert await active_among(client, [*held, other]) == {*held, other}
