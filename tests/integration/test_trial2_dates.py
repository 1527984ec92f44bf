"""ISO dates in a memory's words after trial2 (H3, H4, M1), through the official MCP client over HTTP with
the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker).

A lone ``YYYY-MM-DD`` is read as the memory's day only when "on" introduces it as the event's day, and a
day after the write's is read only when the words point ahead, never as a fact's start. Otherwise it is
left unread: the memory is placed at the write time and the write answer says ``time_not_read``.

- H3: "Sam's passport expires on <future>" / keyed "lease ends on <future>" held from that day, so not
  valid now; trial 3 (LOW): "Sam's lease ends on <past day>" held from that past day — a fact's end day
  is never its start, past or not. H4: "firmware version 2026-10-03", "ticket ID 2026-10-03", "the
  2026-10-03 release notes" placed on that day. M1: "had surgery on <future>" stored as upcoming,
  "appointment on <future> was cancelled" placed then. Future days are counted from the current year, so
  they stay ahead.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

AHEAD = datetime.now(UTC).year + 4
"""A year after any write of the test run."""

UNREAD: list[tuple[str, dict[str, Any], str]] = [
    ("H3 passport keyless", {"content": f"Sam's passport expires on {AHEAD}-01-01"}, f"{AHEAD}-01-01"),
    (
        "H3 passport keyed",
        {"content": f"Sam's passport expires on {AHEAD}-01-01", "key": "passport_expiry"},
        f"{AHEAD}-01-01",
    ),
    (
        "H3 lease keyed",
        {"content": f"Sam's lease ends on {AHEAD}-06-30", "key": "lease_end"},
        f"{AHEAD}-06-30",
    ),
    (
        "H3 lease keyed, words pointing ahead",
        {"content": f"Sam's lease will end on {AHEAD}-06-30", "key": "lease_end"},
        f"{AHEAD}-06-30",
    ),
    (
        "H3 passport episodic",
        {"content": f"Sam's passport expires on {AHEAD}-01-01", "layer": "episodic"},
        f"{AHEAD}-01-01",
    ),
    (
        "H4 firmware version",
        {"content": "Sam installed firmware version 2026-10-03 on the router", "layer": "episodic"},
        "2026-10-03",
    ),
    ("H4 ticket ID", {"content": "Sam closed ticket ID 2026-10-03", "layer": "episodic"}, "2026-10-03"),
    (
        "H4 release notes",
        {"content": "Sam read the 2026-10-03 release notes", "layer": "episodic"},
        "2026-10-03",
    ),
    (
        "H4 firmware keyed",
        {"content": "Sam uses firmware version 2026-10-03 on the router", "key": "router_firmware"},
        "2026-10-03",
    ),
    (
        "M1 past words",
        {"content": f"Sam had surgery on {AHEAD}-03-01", "layer": "episodic"},
        f"{AHEAD}-03-01",
    ),
    (
        "M1 cancelled",
        {"content": f"Sam's appointment on {AHEAD}-12-20 was cancelled", "layer": "episodic"},
        f"{AHEAD}-12-20",
    ),
    # trial 3, LOW: a past day a fact's words say something ends on is its end, not when it holds from
    ("trial3 lease ends, past", {"content": "Sam's lease ends on 2026-10-03"}, "2026-10-03"),
    (
        "trial3 lease ends, past, keyed",
        {"content": "Sam's lease ends on 2026-10-03", "key": "lease_end"},
        "2026-10-03",
    ),
    ("trial3 passport expired", {"content": "Sam's passport expired on 2026-10-03"}, "2026-10-03"),
    (
        "trial3 name after on",
        {"content": "Sam worked on 2026-10-03 migration all week", "layer": "episodic"},
        "2026-10-03",
    ),
    (
        "trial3 present words",
        {"content": "Sam is working on 2026-10-03 release", "layer": "episodic"},
        "2026-10-03",
    ),
    (
        "trial3 of the app",
        {"content": "Sam released version on 2026-10-03 of the app", "layer": "episodic"},
        "2026-10-03",
    ),
]

READ: list[tuple[str, dict[str, Any], str]] = [
    ("on a past day", {"content": "Sam had surgery on 2026-10-03", "layer": "episodic"}, "2026-10-03"),
    ("On <day>, first", {"content": "On 2026-10-03, Sam had surgery", "layer": "episodic"}, "2026-10-03"),
    (
        "on <day> in <place>",
        {"content": "Sam had surgery on 2026-10-03 in Lisbon", "layer": "episodic"},
        "2026-10-03",
    ),
    ("On <day> <Name>", {"content": "On 2026-11-20 Sam moved to Porto", "layer": "episodic"}, "2026-11-20"),
    # an episode's end is the day it tells of (trial 3, LOW: only a fact's end is not its start)
    ("an ending episode", {"content": "Sam's lease ended on 2026-10-03", "layer": "episodic"}, "2026-10-03"),
    (
        "a later day, words pointing ahead",
        {"content": f"Sam will fly to Rome on {AHEAD}-05-01", "layer": "episodic"},
        f"{AHEAD}-05-01",
    ),
]


async def _write(
    server: BackgroundServer, poller: SqsPoller, token: str, args: dict[str, Any]
) -> dict[str, Any]:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", args)
    await drain(poller)
    return dict(ack)


@pytest.mark.parametrize(("args", "day"), [pytest.param(a, d, id=i) for i, a, d in UNREAD])
async def test_a_date_not_introduced_as_the_days_or_ahead_in_past_words_is_not_read(
    server: BackgroundServer, poller: SqsPoller, token: str, args: dict[str, Any], day: str
) -> None:
    # Given a write whose ISO date is a name, a later day in words that do not point ahead, or a fact's end
    ack = await _write(server, poller, token, args)
    today = datetime.now(UTC).date().isoformat()
    async with mcp_client(server.url, token) as client:
        memory = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
        query = {"query": args["content"], "valid_at": today} | (
            {"key": args["key"]} if "key" in args else {}
        )
        now = await call(client, "memory_search", query)
    # Then the date is not read: no occurred_at, held from the write (valid now), and the answer says so
    assert memory["occurred_at"] is None, memory
    assert memory["valid_from"] is None or memory["valid_from"][:10] <= today, memory
    assert ack["id"] in {h["memory"]["id"] for h in now["results"]}, now
    assert f"'{day}'" in ack["time_not_read"], ack
    assert "give occurred_at" in ack["time_not_read"], ack


@pytest.mark.parametrize(("args", "day"), [pytest.param(a, d, id=i) for i, a, d in READ])
async def test_a_date_introduced_as_the_events_day_is_read(
    server: BackgroundServer, poller: SqsPoller, token: str, args: dict[str, Any], day: str
) -> None:
    # Given an episode whose words give its day after "on" (a later day only with words pointing ahead)
    ack = await _write(server, poller, token, args)
    async with mcp_client(server.url, token) as client:
        memory = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
    # Then that day places it, and the answer has no time_not_read
    assert memory["occurred_at"].startswith(f"{day}T00:00:00"), memory
    assert memory["occurred_precision"] == "day"
    assert ack.get("time_not_read") is None, ack
