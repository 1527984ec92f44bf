"""A restore settles the restored fact by the write path's rules, and reads describe it as it now is (trial
08:25 follow-ups), end to end through the MCP client, the SQS emulator and the worker: a restored inference
never retires what the user stated on its key (both kept, linked, flagged), nor silently takes a key whose
user statement is archived; a restored key-less fact is fitted into valid time as a keyed one is (one value
at each instant); a restored hit no longer shows the memory that once superseded it (``superseded_by``);
a conflict's label names the other side's real status."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.integration.test_valid_time_order import _memory, _state, _stored
from tests.support import mcp_client

pytestmark = pytest.mark.integration


async def _search(client: Client, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    """The hits of a search, by id."""
    result = await call(client, "memory_search", {"query": query, **args})
    return {h["memory"]["id"]: h for h in result["results"]}


# ---- L4: a restored memory is no longer superseded ------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("key", ["me.curry", None])
async def test_a_restored_memory_shows_no_superseded_by_beside_superseded_hits(
    server: BackgroundServer, poller: SqsPoller, token: str, key: str | None
) -> None:
    async with mcp_client(server.url, token) as client:
        enjoy = await _stored(client, poller, key=key, content="I really enjoy Thai green curry")
        hate = await _stored(client, poller, key=key, content="I can't stand Thai green curry any more")
        assert (await _memory(client, enjoy))["superseded_by"] == hate
        await call(client, "memory_update", {"id": enjoy, "action": "restore", "reason": "I do"})
        # a search that returns a superseded hit beside it: only that one carries superseded_by
        hits = await _search(client, "Thai green curry", status=["active", "superseded"])
        restored, replaced = hits[enjoy]["memory"], hits[hate]["memory"]
        assert (restored["status"], restored["superseded_by"]) == ("active", None)
        assert (replaced["status"], replaced["superseded_by"]) == ("superseded", enjoy)
        assert (await _memory(client, enjoy))["superseded_by"] is None


# ---- M4: a conflict's label names the other side's real status ------------------------------------------


@pytest.mark.anyio
async def test_the_conflict_label_says_the_other_side_is_an_archived_statement(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        vegan = await _stored(client, poller, key="cy.diet", content="Cy is vegan")
        await call(client, "memory_update", {"id": vegan, "action": "archive", "reason": "not used lately"})
        meat = await _stored(client, poller, key="cy.diet", content="Cy eats meat", source="agent_inferred")
        summary = await call(client, "memory_summarize", {"key": "cy.diet"})
    # the inference's partner is no active fact, and the user's statement line is no active fact either
    assert "another active fact" not in summary["hint"]
    assert summary["hint"].splitlines() == [
        "- Fact cy.diet (archived; possible conflict: an active inference says otherwise; ask the user which "
        "holds): Cy is vegan [1]",
        "- Fact cy.diet (inferred) (possible conflict: what the user stated, now archived, says otherwise; "
        "ask the user which holds): Cy eats meat [2]",
    ]
    lines = {line["ids"][0]: line for line in summary["lines"]}
    assert (lines[meat]["possible_conflict"], lines[meat]["conflict_with"]) == (True, "archived_statement")
    assert (lines[vegan]["possible_conflict"], lines[vegan]["conflict_with"]) == (True, "active_inference")


# ---- a keyed restore follows the write's source rules --------------------------------------------------


def _related(hit: dict[str, Any]) -> list[tuple[str, str]]:
    return [(r["relation"]["kind"], r["memory"]["id"]) for r in hit["related"]]


@pytest.mark.anyio
async def test_a_restored_inference_never_retires_the_users_statement_on_its_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        meat = await _stored(client, poller, key="cy.diet", content="Cy eats meat", source="agent_inferred")
        vegan = await _stored(client, poller, key="cy.diet", content="Cy is vegan")
        assert await _state(client, meat) == ("superseded", (await _memory(client, meat))["valid_to"], vegan)
        restored = await call(client, "memory_update", {"id": meat, "action": "restore"})
        # what the user stated stays the key's fact, untouched; the inference is kept beside it, flagged
        assert not restored["superseded"]
        assert await _state(client, vegan) == ("active", None, None)
        assert await _state(client, meat) == ("active", None, None)
        hits = await _search(client, "what does Cy eat")
        for mine, other in ((meat, vegan), (vegan, meat)):
            assert "possible_conflict" in hits[mine]["flags"], mine
            assert ("contradicts", other) in _related(hits[mine]), mine
        # the user's own restore still takes the key back, as the user's write would
        back = await call(client, "memory_update", {"id": meat, "action": "archive"})
        assert back["memory"]["status"] == "archived"
        await call(client, "memory_update", {"id": vegan, "action": "archive"})
        tofu = await _stored(client, poller, key="cy.diet", content="Cy eats tofu", source="agent_inferred")
        again = await call(client, "memory_update", {"id": vegan, "action": "restore"})
        assert again["superseded"] == [tofu]


@pytest.mark.anyio
async def test_a_restored_inference_is_linked_to_the_users_archived_statement_on_its_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        meat = await _stored(client, poller, key="cy.diet", content="Cy eats meat", source="agent_inferred")
        vegan = await _stored(client, poller, key="cy.diet", content="Cy is vegan")
        await call(client, "memory_update", {"id": vegan, "action": "archive", "reason": "not used lately"})
        await call(client, "memory_update", {"id": meat, "action": "restore"})
        # as a write of the inference would be: linked to what the user stated, which stays archived
        assert await _state(client, vegan) == ("archived", None, None)
        hit = (await _search(client, "what does Cy eat"))[meat]
        assert "possible_conflict" in hit["flags"]
        assert ("contradicts", vegan) in _related(hit)
        summary = str(await call(client, "memory_summarize", {"key": "cy.diet"}))
        assert "Cy is vegan" in summary


# ---- a key-less restore fits the restored fact into valid time as a keyed one --------------------------


@pytest.mark.anyio
async def test_a_restored_keyless_fact_holds_alone_at_every_instant_since_it_began(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:

        async def gym(euros: int) -> str:
            content = f"My gym membership costs {euros} euros per month"
            return await _stored(client, poller, key=None, content=content)

        first = await gym(40)
        second = await gym(55)
        after_second = datetime.now(UTC).isoformat()
        third = await gym(70)
        after_third = datetime.now(UTC).isoformat()
        every = {first, second, third}

        async def held(at: str) -> set[str]:
            hits = await _search(client, "gym membership euros per month", valid_at=at)
            return set(hits) & every

        assert await held(after_second) == {second}
        assert await held(after_third) == {third}
        restored = await call(client, "memory_update", {"id": first, "action": "restore"})
        # as on a key: the values that began after it, inside its period, never held
        for at in (after_second, after_third, datetime.now(UTC).isoformat()):
            assert await held(at) == {first}, at
        assert sorted(restored["superseded"]) == sorted([second, third])
        for later in (second, third):
            memory = await _memory(client, later)
            assert (memory["status"], memory["valid_to"]) == ("superseded", memory["created_at"]), later


# ---- new-user trial F5, F14: a restore from the archive settles with what was written meanwhile ---------


async def _answered(
    client: Client, query: str, summarize: dict[str, Any], holder: tuple[str, str], past: str
) -> None:
    """A default search answers ``holder`` (id, words) and not ``past``; the summary states only the
    holder's words."""
    hits = await _search(client, query)
    assert holder[0] in hits
    assert past not in hits
    hint = (await call(client, "memory_summarize", summarize))["hint"]
    assert holder[1] in hint
    assert (await _memory(client, past))["content"] not in hint


@pytest.mark.anyio
async def test_a_value_restored_from_the_archive_is_a_past_value_of_the_one_written_meanwhile(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Trial F5 HIGH: the archived value kept its open period (a write settles only against active values),
    so its restore retired the newer value with an empty period and search answered the old one."""
    async with mcp_client(server.url, token) as client:
        basic = await _stored(client, poller, key="nora.plan", content="Nora's phone plan is Basic 10GB")
        await call(client, "memory_update", {"id": basic, "action": "archive", "reason": "not needed"})
        unlimited = await _stored(
            client, poller, key="nora.plan", content="Nora's phone plan is Unlimited 5G"
        )
        restored = await call(client, "memory_update", {"id": basic, "action": "restore"})
        newer = await _memory(client, unlimited)
        # the value with the latest stated start holds: the newer one keeps its period
        assert not restored["superseded"]
        assert (newer["status"], newer["valid_to"]) == ("active", None)
        assert await _state(client, basic) == ("superseded", newer["valid_from"], unlimited)
        assert restored["memory"]["status"] == "superseded"
        assert f"memory {unlimited} holds key nora.plan" in restored["note"]
        await _answered(client, "Nora phone plan", {"key": "nora.plan"}, (unlimited, "Unlimited 5G"), basic)


@pytest.mark.anyio
async def test_a_value_restored_from_the_archive_holds_again_after_a_bounded_value_written_meanwhile(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        home = await _stored(
            client, poller, key="sam.city", content="Sam lives in Porto", occurred_at="2026-01-01"
        )
        await call(client, "memory_update", {"id": home, "action": "archive"})
        stay = await _stored(
            client, poller, key="sam.city", content="Sam lives in Berlin", occurred_at="2026-03-01"
        )
        change = {"id": stay, "action": "update", "valid_to": "2026-05-01T00:00:00Z"}
        await call(client, "memory_update", change)
        await call(client, "memory_update", {"id": home, "action": "restore"})

        async def held(at: str) -> list[str]:
            found = await call(
                client, "memory_search", {"query": "where does Sam live", "key": "sam.city", "valid_at": at}
            )
            return [h["memory"]["content"] for h in found["results"]]

        assert await held("2026-02-01") == ["Sam lives in Porto"]
        assert await held("2026-04-01") == ["Sam lives in Berlin"]
        assert await held("2026-06-01") == ["Sam lives in Porto"]
        assert (await _memory(client, stay))["valid_to"] == "2026-05-01T00:00:00Z"


@pytest.mark.anyio
async def test_a_keyless_fact_restored_from_the_archive_is_checked_for_contradictions_as_a_write(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Trial F14 MED: restoring an archived key-less fact left it and the contradicting fact written
    meanwhile both active and unflagged."""
    async with mcp_client(server.url, token) as client:
        enjoy = await _stored(client, poller, key=None, content="I really enjoy Thai green curry")
        await call(client, "memory_update", {"id": enjoy, "action": "archive"})
        hate = await _stored(client, poller, key=None, content="I can't stand Thai green curry any more")
        restored = await call(client, "memory_update", {"id": enjoy, "action": "restore"})
        # the later statement holds; the restored one is its past value, as the write would have left it
        assert restored["memory"]["status"] == "superseded"
        assert await _state(client, hate) == ("active", None, None)
        assert (await _state(client, enjoy))[2] == hate
        await _answered(
            client, "Thai green curry", {"query": "Thai green curry"}, (hate, "can't stand"), enjoy
        )
