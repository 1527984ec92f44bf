"""Point-in-time recall end to end (issue 18): ``valid_at`` (what was true then, by valid time) and
``known_at`` (what the store held then, by transaction time) on memory_search, memory_get,
memory_recall_chain and include_related, through the official MCP client on the stack's real Postgres,
SQS emulator and worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> str:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


async def _hits(client: Client, query: str, **args: Any) -> dict[str, dict[str, Any]]:
    result = await call(client, "memory_search", {"query": query, **args})
    return {h["memory"]["id"]: h for h in result["results"]}


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


async def test_valid_at_is_half_open_a_fact_that_ended_at_t_is_not_returned_its_successor_is(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        berlin = await _stored(
            client,
            poller,
            content="Office location: the team works from the Berlin office",
            key="team.office",
            occurred_at="2026-01-01T00:00:00Z",
        )
        lisbon = await _stored(
            client,
            poller,
            content="Office location: the team works from the Lisbon office",
            key="team.office",
            occurred_at="2026-03-01T00:00:00Z",
        )
        old = (await call(client, "memory_get", {"id": berlin}))["memory"]
        assert (old["status"], old["valid_to"], old["superseded_by"]) == (
            "superseded",
            "2026-03-01T00:00:00Z",
            lisbon,
        )

        boundary = await _hits(client, "where does the team work?", valid_at="2026-03-01T00:00:00Z")
        assert lisbon in boundary
        assert berlin not in boundary  # it ended exactly then: [from, to) does not hold T

        before = await _hits(client, "where does the team work?", valid_at="2026-02-28T23:59:59.999999Z")
        assert lisbon not in before
        then = before[berlin]["memory"]
        assert (then["status"], then["status_now"], then["superseded_by"]) == ("active", "superseded", lisbon)
        assert "superseded" not in before[berlin]["flags"]  # it was the truth then

        # a partial date is its last instant: "2026-02" is the end of February
        february = await _hits(client, "where does the team work?", valid_at="2026-02")
        assert berlin in february
        assert lisbon not in february
        assert berlin not in await _hits(client, "where does the team work?", valid_at="2025")

        got = await call(client, "memory_get", {"id": berlin, "valid_at": "2026-02-15"})
        assert got["memory"]["status"] == "active"
        missing = await tool_error(client, "memory_get", {"id": berlin, "valid_at": "2026-03-01T00:00:00Z"})
        assert missing["kind"] == "not_found"
        assert "not valid at 2026-03-01T00:00:00" in missing["message"]

        today = await _hits(client, "where does the team work?")  # default: today's active facts
        assert lisbon in today
        assert berlin not in today


async def test_known_at_returns_what_the_store_held_then_in_its_content_and_status_of_then(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        plan = await _stored(client, poller, content="Release plan: ship the billing service on Monday")
        written = _at((await call(client, "memory_get", {"id": plan}))["memory"]["created_at"])
        await call(
            client,
            "memory_update",
            {"id": plan, "action": "update", "content": "Release plan: ship the billing service on Friday"},
        )
        edited = _at((await call(client, "memory_get", {"id": plan}))["history"][-1]["at"])
        assert edited > written

        shipped_day = await _hits(client, "when do we ship billing?", known_at=_iso(written))
        assert shipped_day[plan]["memory"]["content"] == "Release plan: ship the billing service on Monday"
        now = await _hits(client, "when do we ship billing?")
        assert now[plan]["memory"]["content"] == "Release plan: ship the billing service on Friday"
        earlier = await _hits(
            client, "when do we ship billing?", known_at=_iso(written - timedelta(seconds=1))
        )
        assert plan not in earlier  # not stored yet

        got = await call(client, "memory_get", {"id": plan, "known_at": _iso(written)})
        assert got["memory"]["content"] == "Release plan: ship the billing service on Monday"
        assert [h["action"] for h in got["history"]] == ["created"]
        unknown = await tool_error(
            client, "memory_get", {"id": plan, "known_at": _iso(written - timedelta(seconds=1))}
        )
        assert "was not known at" in unknown["message"]

        # a supersede and an archive retire by transaction time: held before, gone after
        old = await _stored(client, poller, content="Deploy window: Tuesdays 10:00", key="ops.deploy_window")
        held = _at((await call(client, "memory_get", {"id": old}))["memory"]["created_at"])
        new = await _stored(client, poller, content="Deploy window: Thursdays 15:00", key="ops.deploy_window")
        at_first = await _hits(client, "deploy window", known_at=_iso(held))
        assert new not in at_first
        then = at_first[old]["memory"]
        assert (then["status"], then["status_now"], then["superseded_by"]) == ("active", "superseded", new)
        after = await _hits(client, "deploy window", known_at=_iso(datetime.now(UTC)))
        assert new in after
        assert old not in after
        history = await _hits(client, "deploy window", known_at=_iso(held), status=["superseded"])
        assert old not in history  # it was not superseded then

        await call(client, "memory_update", {"id": new, "action": "archive"})
        archived = _at((await call(client, "memory_get", {"id": new}))["history"][-1]["at"])
        assert new not in await _hits(client, "deploy window")
        assert new not in await _hits(client, "deploy window", known_at=_iso(datetime.now(UTC)))
        assert new in await _hits(
            client, "deploy window", known_at=_iso(archived - timedelta(microseconds=1))
        )


async def test_recall_chain_and_include_related_respect_the_same_times(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await _stored(
            client,
            poller,
            content="Invoice export job failed with HTTP 429 from the ledger API",
            layer="episodic",
            outcome="failure",
            occurred_at="2026-01-05T10:00:00Z",
        )
        wait = await _stored(
            client,
            poller,
            content="Waited 30 seconds before calling the ledger API again",
            layer="episodic",
            causal_parent=error,
            occurred_at="2026-01-05T10:01:00Z",
        )
        known = _at((await call(client, "memory_get", {"id": wait}))["memory"]["created_at"])
        retry = await _stored(
            client,
            poller,
            content="Retried the invoice export and it succeeded",
            layer="episodic",
            outcome="success",
            causal_parent=wait,
            occurred_at="2026-01-05T10:02:00Z",
        )

        def ids(chain: dict[str, Any]) -> list[str]:
            return [step["memory"]["id"] for step in chain["chain"]]

        assert ids(await call(client, "memory_recall_chain", {"id": error})) == [error, wait, retry]
        then = await call(client, "memory_recall_chain", {"id": error, "known_at": _iso(known)})
        assert ids(then) == [error, wait]  # the retry was not stored yet
        valid = await call(client, "memory_recall_chain", {"id": error, "valid_at": "2026-01-05T10:01:30Z"})
        assert ids(valid) == [error, wait]  # the retry had not happened yet

        hits = await _hits(client, "invoice export failed 429", include_related=True, known_at=_iso(known))
        related = {r["memory"]["id"] for r in hits[error]["related"]}
        assert wait in related
        assert retry not in related
        now = await _hits(client, "invoice export failed 429", include_related=True)
        assert retry in {r["memory"]["id"] for r in now[error]["related"]}


async def test_valid_at_with_known_at_uses_the_validity_the_store_held_then(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """What we held at K about time V: a fact superseded after K was open-ended at K, so it answers for a
    V after its (later) end; its successor, stored after K, does not."""
    async with mcp_client(server.url, token) as client:
        first = await _stored(
            client,
            poller,
            content="Support hours: weekdays 9 to 5",
            key="support.hours",
            occurred_at="2026-01-01",
        )
        held = _at((await call(client, "memory_get", {"id": first}))["memory"]["created_at"])
        second = await _stored(
            client,
            poller,
            content="Support hours: around the clock",
            key="support.hours",
            occurred_at="2026-03-01",
        )
        later = "2026-06-01T00:00:00Z"
        believed = await _hits(client, "support hours", valid_at=later, known_at=_iso(held))
        assert first in believed
        assert second not in believed  # not stored yet at K
        assert believed[first]["memory"]["valid_to"] is None  # open-ended as held then
        today = await _hits(client, "support hours", valid_at=later)
        assert (first in today, second in today) == (False, True)
        got = await call(client, "memory_get", {"id": first, "known_at": _iso(held), "valid_at": later})
        assert got["memory"]["valid_to"] is None
        before = await _hits(client, "support hours", valid_at="2026-02-01", known_at=_iso(held))
        assert first in before


async def test_a_read_before_a_keyless_correction_shows_no_conflict_nor_the_later_memory(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial4 HIGH-4: a read at T judges ``possible_conflict`` by the links and the other memories as
    they stood at T. The correction stored after T supersedes the then-true fact (a ``contradicts`` link
    made after T): at T that fact is neither flagged nor shown beside the later memory. A conflict the
    store already held at T (an inference kept beside the user's statement) is still flagged then."""
    async with mcp_client(server.url, token) as client:
        stated = await _stored(client, poller, content="The user's favourite colour is blue.")
        inferred = await _stored(
            client, poller, content="The user's favourite colour is green.", source="agent_inferred"
        )
        silva = await _stored(client, poller, content="The user's dentist is Dr. Silva")
        moment = _iso(_at((await call(client, "memory_get", {"id": silva}))["memory"]["created_at"]))
        costa = await _stored(client, poller, content="Correction: the user's dentist is Dr. Costa")
        assert (await call(client, "memory_get", {"id": silva}))["memory"]["superseded_by"] == costa

        for point in ({"known_at": moment}, {"valid_at": moment}):
            then = await _hits(client, "who is the user's dentist", **point)
            assert costa not in then, point
            hit = then[silva]
            assert hit["memory"]["status"] == "active", point
            assert "possible_conflict" not in hit["flags"], point
            assert costa not in {r["memory"]["id"] for r in hit["related"]}, point

        colours = await _hits(client, "what is the user's favourite colour?", known_at=moment)
        assert all("possible_conflict" in colours[i]["flags"] for i in (stated, inferred))
        today = await _hits(client, "who is the user's dentist")
        assert silva not in today
        assert "possible_conflict" not in today[costa]["flags"]
