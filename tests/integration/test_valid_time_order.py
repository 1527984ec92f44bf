"""Valid time orders a key's values (new-user trial, H3), end to end through the MCP client, the SQS
emulator and the worker: a value that began to hold before the fact on its key is stored as a past value
of it (the fact stays current), a future-dated value takes the key but is flagged ``upcoming`` by search
and memory_summarize, a restore that retires it never ends it before it began, and no memory's validity
period ever ends before it starts (migration 019 refuses one). A new value is settled with every active
fact on its key, not only the newest (re-trial H5), and an inference never makes the user's statement a
past value (re-trial H4/H6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
KEY = "team.location"


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> str:
    ack = await call(client, "memory_write", {k: v for k, v in {"key": KEY, **args}.items() if v is not None})
    await drain(poller)
    return str(ack["id"])


async def _reason(client: Client, memory_id: str) -> str:
    return str((await call(client, "memory_status", {"ids": [memory_id]}))["writes"][0]["reason"])


async def _memory(client: Client, memory_id: str) -> dict[str, Any]:
    return dict((await call(client, "memory_get", {"id": memory_id}))["memory"])


async def _hits(client: Client, **args: Any) -> dict[str, dict[str, Any]]:
    result = await call(client, "memory_search", {"query": "where does the team work, which office", **args})
    return {h["memory"]["id"]: h for h in result["results"]}


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_an_older_value_on_a_key_is_stored_as_a_past_value_and_the_holder_stays_current(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        lisbon = await _stored(
            client, poller, content="The team works from the Lisbon office", occurred_at="2026-06-01"
        )
        # a causal parent sends the write down the worker's one-job path (write_batch.needs_own_path)
        own = {"causal_parent": lisbon} if path == "own" else {}
        porto = await _stored(
            client, poller, content="The team works from the Porto office", occurred_at="2026-01-01", **own
        )
        assert (await _reason(client, porto)).startswith(
            f"past value: {lisbon} holds the key from 2026-06-01T00:00:00+00:00; stored superseded by it"
        )
        held, past = await _memory(client, lisbon), await _memory(client, porto)
        assert (held["status"], held["valid_to"]) == ("active", None)
        assert (past["status"], past["valid_from"], past["valid_to"], past["superseded_by"]) == (
            "superseded",
            "2026-01-01T00:00:00Z",
            "2026-06-01T00:00:00Z",
            lisbon,
        )
        # what holds after 2026-06 is Lisbon; Porto only before
        assert set(await _hits(client, valid_at="2026-07-01")) & {lisbon, porto} == {lisbon}
        assert set(await _hits(client, valid_at="2026-03-01")) & {lisbon, porto} == {porto}
        assert set(await _hits(client)) & {lisbon, porto} == {lisbon}


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_contradicting_fact_that_began_earlier_is_a_past_value_of_the_later_one(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        later = await _stored(
            client, poller, key=None, content="I really enjoy Thai green curry", occurred_at="2026-06-01"
        )
        own = {"causal_parent": later} if path == "own" else {}
        earlier = await _stored(
            client,
            poller,
            key=None,
            content="I can't stand Thai green curry any more",
            occurred_at="2026-01-01",
            **own,
        )
        assert (await _reason(client, earlier)).startswith(
            f"past value: contradicted by {later}, which holds from 2026-06-01T00:00:00+00:00; stored"
        )
        kept, past = await _memory(client, later), await _memory(client, earlier)
        assert (kept["status"], kept["valid_to"]) == ("active", None)
        assert (past["status"], past["valid_to"], past["superseded_by"]) == (
            "superseded",
            "2026-06-01T00:00:00Z",
            later,
        )


async def test_a_future_value_is_flagged_upcoming_and_a_restore_never_inverts_its_period(
    server: BackgroundServer, poller: SqsPoller, token: str, stack: LocalStack, tenant: str
) -> None:
    now = datetime.now(UTC)
    start = (now + timedelta(days=400)).replace(hour=0, minute=0, second=0, microsecond=0)
    async with mcp_client(server.url, token) as client:
        porto = await _stored(
            client, poller, content="The team works from the Porto office", occurred_at="2026-01-01"
        )
        madrid = await _stored(
            client, poller, content="The team works from the Madrid office", occurred_at=_iso(start)
        )
        assert await _reason(client, madrid) == (
            f"supersedes {porto} from {start.isoformat()} (upcoming: not valid yet; {porto} holds until then)"
        )
        # the default search does not present Madrid as today's truth without a word
        hit = (await _hits(client))[madrid]
        assert "upcoming" in hit["flags"]
        assert any(note.startswith("Not valid yet") for note in hit["notes"])
        # what holds now is Porto, until Madrid starts
        assert set(await _hits(client, valid_at=_iso(now))) & {porto, madrid} == {porto}
        assert (await _memory(client, porto))["valid_to"] == _iso(start)
        hint = await call(client, "memory_summarize", {"key": KEY})
        assert f"Fact {KEY} (not valid yet: holds from {start.isoformat()})" in hint["hint"]

        # restoring Porto retires Madrid before it began: an empty period at its start, never inverted
        restored = await call(client, "memory_update", {"id": porto, "action": "restore", "reason": "stays"})
        assert restored["superseded"] == [madrid]
        retired = await _memory(client, madrid)
        assert (retired["status"], retired["valid_from"], retired["valid_to"]) == (
            "superseded",
            _iso(start),
            _iso(start),
        )
        # moving a current fact's start into the future is said, not silently accepted
        moved = await call(
            client, "memory_update", {"id": porto, "action": "update", "valid_from": _iso(start)}
        )
        assert moved["note"] is not None
        assert moved["note"].startswith(f"memory {porto} is not valid yet: it holds from {start.isoformat()}")

    # no period of the tenant ends before it starts, and the store refuses one (migration 019)
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        inverted = conn.execute(
            "SELECT count(*) FROM memories WHERE tenant_id = %s AND valid_to < valid_from", (tenant,)
        ).fetchone()
        assert inverted == (0,)
        with pytest.raises(psycopg.errors.CheckViolation):
            conn.execute(
                "UPDATE memories SET valid_to = valid_from - interval '1 day' WHERE id = %s", (madrid,)
            )


# ---- every holder of a key counts, and an inference never decides the user's statement (re-trial H5, H4/H6)


async def _state(client: Client, memory_id: str) -> tuple[str, str | None, str | None]:
    memory = await _memory(client, memory_id)
    return memory["status"], memory["valid_to"], memory["superseded_by"]


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_value_between_an_additive_pair_ends_the_earlier_holder_and_is_a_past_value_of_the_later(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        payroll = await _stored(
            client, poller, key="rowan.role", content="Rowan runs payroll", occurred_at="2026-06-01"
        )
        hiring = await _stored(
            client, poller, key="rowan.role", content="Rowan also runs hiring", occurred_at="2026-01-01"
        )
        own = {"causal_parent": payroll} if path == "own" else {}
        finance = await _stored(
            client,
            poller,
            key="rowan.role",
            content="Rowan runs the finance team",
            occurred_at="2026-03-01",
            **own,
        )
        # the newest holder (hiring, created last) began before March, payroll after it: payroll stays the
        # fact, hiring held until March, finance from March until June
        assert await _state(client, payroll) == ("active", None, None)
        assert await _state(client, hiring) == ("superseded", "2026-03-01T00:00:00Z", finance)
        assert await _state(client, finance) == ("superseded", "2026-06-01T00:00:00Z", payroll)
        reason = await _reason(client, finance)
        assert reason.startswith(f"supersedes {hiring}")
        assert f"past value: {payroll} holds" in reason


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_value_now_replaces_the_holder_of_now_before_a_later_dated_addition(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        payroll = await _stored(client, poller, key="rowan.role", content="Rowan runs payroll")
        hiring = await _stored(
            client, poller, key="rowan.role", content="Rowan also runs hiring", occurred_at="2027-02-01"
        )
        own = {"causal_parent": payroll} if path == "own" else {}
        finance = await _stored(
            client, poller, key="rowan.role", content="Rowan runs the finance team", **own
        )
        status, _, by = await _state(client, payroll)
        assert (status, by) == ("superseded", finance)
        assert await _state(client, finance) == ("superseded", "2027-02-01T00:00:00Z", hiring)
        assert await _state(client, hiring) == ("active", None, None)
        # what holds now is finance (until February 2027)
        hits = await call(
            client, "memory_search", {"query": "what does Rowan run", "valid_at": _iso(datetime.now(UTC))}
        )
        assert {h["memory"]["id"] for h in hits["results"]} & {payroll, hiring, finance} == {finance}


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_far_future_inference_never_makes_the_users_new_statement_a_past_value(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        acme = await _stored(client, poller, key="finn.employer", content="Finn works at Acme")
        globex = await _stored(
            client,
            poller,
            key="finn.employer",
            content="Finn works at Globex",
            source="agent_inferred",
            occurred_at="2099-01-01",
        )
        assert await _state(client, globex) == ("active", None, None)  # beside the user's fact, flagged
        own = {"causal_parent": acme} if path == "own" else {}
        initech = await _stored(client, poller, key="finn.employer", content="Finn works at Initech", **own)
        status, _, by = await _state(client, acme)
        assert (status, by) == ("superseded", initech)  # the user's newest value replaces the user's older
        assert await _state(client, initech) == ("active", None, None)
        assert await _state(client, globex) == ("active", None, None)  # the inference stays, flagged
        assert f"contradicts {globex} (agent_inferred from 2099-01-01" in await _reason(client, initech)


@pytest.mark.parametrize("path", ["batch", "own"])
async def test_a_later_dated_inference_leaves_the_users_statements_to_the_user(
    server: BackgroundServer, poller: SqsPoller, token: str, path: str
) -> None:
    async with mcp_client(server.url, token) as client:
        meat = await _stored(
            client,
            poller,
            key="cy.diet",
            content="Cy eats meat",
            source="agent_inferred",
            occurred_at="2026-11-01",
        )
        own = {"causal_parent": meat} if path == "own" else {}
        vegan = await _stored(
            client, poller, key="cy.diet", content="Cy is vegan", occurred_at="2026-10-01", **own
        )
        assert await _state(client, vegan) == ("active", None, None)  # not a past value of the inference
        assert await _state(client, meat) == ("active", None, None)
        summary = await call(client, "memory_summarize", {"key": "cy.diet"})
        assert "Cy is vegan" in str(summary)
        assert "Cy eats meat" in str(summary)

        lisbon = await _stored(
            client, poller, key="sam.city", content="Sam lives in Lisbon", occurred_at="2026-01-01"
        )
        madrid = await _stored(
            client,
            poller,
            key="sam.city",
            content="Sam lives in Madrid",
            source="agent_inferred",
            occurred_at="2026-06-01",
        )
        porto = await _stored(
            client, poller, key="sam.city", content="Sam lives in Porto", occurred_at="2026-03-01", **own
        )
        assert await _state(client, lisbon) == ("superseded", "2026-03-01T00:00:00Z", porto)
        assert await _state(client, porto) == ("active", None, None)
        assert await _state(client, madrid) == ("active", None, None)
