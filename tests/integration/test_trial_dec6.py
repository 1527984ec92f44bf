"""Findings of the new-user trial of 2026-12-06 (main 18e6c4e), through the official MCP client over HTTP
with the real stack (Postgres+pgvector, Redis, the SQS emulator and the worker): planned episodes are not
summarized as past (H2), an ISO date in the words places the memory (M1) and a time not read is said in
the write's answer, a forget that empties a key names the value to restore (M3), tags are stored once (L1),
and a search refuses an empty tag list (L2) and a blank entity value (L3). Trial8 H5: a forget of a keyless
correction names the memories it had superseded and the restore call."""

from __future__ import annotations

from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

PLANNED = [
    "Sam has a dentist appointment next Tuesday at 10:00",
    "Sam will visit his mother in 3 weeks",
    "Sam's MRI is in 2 weeks",
    "This Friday Sam has a job interview",
]
PAST = "Sam renewed his passport at the town hall"


async def _write_all(
    server: BackgroundServer, token: str, poller: SqsPoller, writes: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    async with mcp_client(server.url, token) as client:
        acks = [await call(client, "memory_write", args) for args in writes]
    await drain(poller)
    return acks


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_summary_never_says_a_planned_episode_happened(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    # Given episodes whose words say they lie ahead (no time is read from them) and one that happened
    acks = await _write_all(
        server, token, poller, [{"content": c, "layer": "episodic"} for c in [*PLANNED, PAST]]
    )
    async with mcp_client(server.url, token, mode) as client:
        hint = await call(
            client, "memory_summarize", {"query": "Sam appointment visit MRI interview passport"}
        )
    # Then each planned one is labelled planned, time not read, and only the past one "Happened"
    kinds = {line["text"]: line["kind"] for line in hint["lines"]}
    assert {c: kinds.get(c) for c in PLANNED} == {c: "planned" for c in PLANNED}, hint["hint"]
    assert kinds[PAST] == "event"
    for line in hint["hint"].splitlines():
        if any(c in line for c in PLANNED):
            assert line.startswith("- Planned (time not read): "), line
        else:
            assert line.startswith("- Happened: " + PAST), line
    assert {a["id"] for a in acks} == set(hint["ids"])


async def test_an_iso_date_in_the_words_places_the_episode(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # Given an episode naming its day as an ISO date, and ones naming two dates or a bound
    surgery, two, until = await _write_all(
        server,
        token,
        poller,
        [
            {"content": "Sam had surgery on 2026-10-03", "layer": "episodic"},
            {"content": "Sam flew out on 2026-10-01 and back on 2026-10-09", "layer": "episodic"},
            {"content": "Sam was on sick leave until 2026-10-20", "layer": "episodic"},
        ],
    )
    async with mcp_client(server.url, token) as client:
        got = await call(client, "memory_get", {"id": surgery["id"]})
        others = [await call(client, "memory_get", {"id": a["id"]}) for a in (two, until)]
        october = await call(
            client, "memory_search", {"query": "Sam surgery", "since": "2026-10", "until": "2026-10"}
        )
        recent = await call(client, "memory_search", {"query": "Sam surgery", "time_range": "past 2 days"})
    # Then the one date is the event's day; the others are not guessed (placed at the write time)
    memory = got["memory"]
    assert memory["occurred_at"].startswith("2026-10-03T00:00:00"), memory
    assert memory["occurred_precision"] == "day"
    assert [o["memory"]["occurred_at"] for o in others] == [None, None]
    assert surgery["id"] in {h["memory"]["id"] for h in october["results"]}
    assert surgery["id"] not in {h["memory"]["id"] for h in recent["results"]}
    # and the answers say which time was not read; the read one says nothing
    assert surgery.get("time_not_read") is None
    assert "'2026-10-01'" in two["time_not_read"]
    assert "give occurred_at" in two["time_not_read"]
    assert "2026-10-20" in until["time_not_read"]


async def test_a_write_answer_says_when_a_time_in_the_words_was_not_read(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        march = await call(
            client, "memory_write", {"content": "Sam went to Rome last March", "layer": "episodic"}
        )
        ahead = await call(
            client, "memory_write", {"content": "Sam's MRI is in 2 weeks", "layer": "episodic"}
        )
        read = await call(client, "memory_write", {"content": "Sam renewed his passport yesterday"})
        given = await call(
            client,
            "memory_write",
            {"content": "Sam went to Rome last March", "occurred_at": "2026-03", "layer": "episodic"},
        )
        plain = await call(client, "memory_write", {"content": "Sam likes espresso"})
    assert "'last March'" in march["time_not_read"]
    assert "the write time" in march["time_not_read"]
    assert "'in 2 weeks'" in ahead["time_not_read"]
    assert [a.get("time_not_read") for a in (read, given, plain)] == [None, None, None]


@pytest.mark.parametrize("hard", [False, True])
async def test_forgetting_a_keys_current_value_names_the_value_to_restore(
    server: BackgroundServer, poller: SqsPoller, token: str, hard: bool
) -> None:
    # Given a key whose true value was superseded by a wrong one
    (acme,) = await _write_all(
        server, token, poller, [{"content": "Lena's employer is Acme", "key": "lena.employer"}]
    )
    (globex,) = await _write_all(
        server, token, poller, [{"content": "Lena's employer is Globex", "key": "lena.employer"}]
    )
    async with mcp_client(server.url, token) as client:
        # When the wrong one is forgotten
        forgot = await call(client, "memory_forget", {"id": globex["id"], "reason": "wrong", "hard": hard})
        # Then the answer says the key has no current value, names Acme and the call that restores it
        note = forgot["note"]
        assert "key 'lena.employer' now has no current value" in note
        assert acme["id"] in note
        assert "Lena's employer is Acme" in note
        assert "superseded" in note
        assert f'{{"id": "{acme["id"]}", "action": "restore"}}' in note
        assert "the forgotten memory had superseded" not in note  # the key's note alone names Acme
        restored = await call(client, "memory_update", {"id": acme["id"], "action": "restore"})
        assert restored["memory"]["status"] == "active"
        # and forgetting a value that is not the current one says nothing of the kind
        (extra,) = [await call(client, "memory_write", {"content": "Sam likes tea", "key": "sam.drink"})]
    await drain(poller)
    async with mcp_client(server.url, token) as client:
        quiet = await call(client, "memory_forget", {"id": extra["id"]})
    assert quiet["note"] is None


@pytest.mark.parametrize("hard", [False, True])
async def test_forgetting_a_keyless_correction_names_what_it_superseded_and_the_restore(
    server: BackgroundServer, poller: SqsPoller, token: str, hard: bool
) -> None:
    # Given a keyless fact retired by a correction that contradicts it (trial8 H5)
    (seattle,) = await _write_all(server, token, poller, [{"content": "Tom lives in Seattle"}])
    (tacoma,) = await _write_all(server, token, poller, [{"content": "Tom is now living in Tacoma"}])
    async with mcp_client(server.url, token) as client:
        retired = await call(client, "memory_get", {"id": seattle["id"]})
        assert retired["memory"]["status"] == "superseded"
        # When the correction is forgotten ("scratch that, he never moved")
        forgot = await call(
            client,
            "memory_forget",
            {"id": tacoma["id"], "reason": "user: scratch that, he never moved", "hard": hard},
        )
        # Then Seattle is not restored behind the agent's back, but the answer names it and the call
        note = forgot["note"]
        assert "the forgotten memory had superseded" in note
        assert seattle["id"] in note
        assert "Tom lives in Seattle" in note
        assert "still superseded" in note
        assert f'{{"id": "{seattle["id"]}", "action": "restore"}}' in note
        still = await call(client, "memory_get", {"id": seattle["id"]})
        assert still["memory"]["status"] == "superseded"
        # and that call makes it current again
        restored = await call(client, "memory_update", {"id": seattle["id"], "action": "restore"})
        assert restored["memory"]["status"] == "active"
        found = await call(client, "memory_search", {"query": "where does Tom live"})
    assert seattle["id"] in {h["memory"]["id"] for h in found["results"]}


async def test_tags_are_stored_once_and_a_search_refuses_empty_tags_and_blank_entities(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    (ack,) = await _write_all(
        server,
        token,
        poller,
        [
            {
                "content": "Quarterly planning notes",
                "tags": ["Work", "work", "WORK", "wörk", "wo\u0308rk", "plan"],
            }
        ],
    )
    async with mcp_client(server.url, token) as client:
        got = await call(client, "memory_get", {"id": ack["id"]})
        found = await call(client, "memory_search", {"query": "planning", "tags": ["WORK", "work"]})
        empty_tags = await tool_error(client, "memory_search", {"query": "planning", "tags": []})
        blank = await tool_error(client, "memory_search", {"query": "planning", "entities": {"person": ""}})
        spaces = await tool_error(
            client, "memory_search", {"query": "planning", "entities": {"person": ["Sam", " "]}}
        )
    assert got["memory"]["tags"] == ["work", "wörk", "plan"]
    assert [h["memory"]["id"] for h in found["results"]] == [ack["id"]]
    assert empty_tags["errors"][0]["field"] == "tags"
    assert "give at least one tag, or leave tags out" in empty_tags["message"]
    for error in (blank, spaces):
        assert error["errors"][0]["field"].startswith("entities"), error
        assert "entity 'person' has a blank or empty value" in error["message"]
