"""Optimistic concurrency end to end (issue 18): every memory and working-memory item has a version that
every change bumps; a change that names ``expected_version`` is refused (isError, kind version_conflict,
with the current version and content) when the object moved on. Concurrent agents through the official
MCP client over HTTP, on the stack's real Postgres, Redis, SQS emulator and worker."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
AGENTS = 12


async def _stored(client: Client, poller: SqsPoller, **args: Any) -> str:
    ack = await call(client, "memory_write", args)
    await drain(poller)
    return str(ack["id"])


async def _version(client: Client, memory_id: str) -> int:
    detail = await call(client, "memory_get", {"id": memory_id, "include_history": False})
    return int(detail["memory"]["version"])


async def test_every_change_bumps_the_version_and_a_stale_one_is_refused_with_the_current_content(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mid = await _stored(client, poller, content="Deploys are frozen on Fridays", key="team.freeze")
        other = await _stored(client, poller, content="The release train leaves on Tuesdays")
        assert await _version(client, mid) == 1
        hits = (await call(client, "memory_search", {"query": "when are deploys frozen?"}))["results"]
        assert next(h for h in hits if h["memory"]["id"] == mid)["memory"]["version"] == 1
        assert await _version(client, mid) == 1  # being recalled is not a change

        updated = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "content": "Deploys are frozen on Fridays and Saturdays"},
        )
        assert (updated["memory"]["version"], updated["replaced_version"]) == (2, 1)
        same = await call(client, "memory_update", {"id": mid, "action": "update", "tags": []})
        assert (same["memory"]["version"], same["replaced_version"]) == (2, 2)  # nothing changed

        error = await tool_error(
            client,
            "memory_update",
            {"id": mid, "action": "update", "content": "Deploys are never frozen", "expected_version": 1},
        )
        assert (error["kind"], error["code"], error["retryable"]) == ("version_conflict", -32009, False)
        assert (error["current_version"], error["expected_version"]) == (2, 1)
        assert error["current"]["content"] == "Deploys are frozen on Fridays and Saturdays"
        assert "expected_version=2" in error["message"]
        assert await _version(client, mid) == 2  # refused: nothing changed

        linked = await call(
            client,
            "memory_link",
            {"from_id": mid, "to_id": other, "kind": "related", "expected_version": 2},
        )
        assert (linked["version"], linked["replaced_version"]) == (3, 2)
        again = await call(client, "memory_link", {"from_id": mid, "to_id": other, "kind": "related"})
        assert again["version"] == 3  # the same link again changes nothing
        stale_link = await tool_error(
            client, "memory_link", {"from_id": mid, "to_id": other, "kind": "part_of", "expected_version": 2}
        )
        assert stale_link["current_version"] == 3

        feedback = await call(client, "memory_feedback", {"id": mid, "useful": True})
        assert feedback["importance"] > 0
        assert await _version(client, mid) == 4

        archived = await call(
            client, "memory_update", {"id": mid, "action": "archive", "expected_version": 4}
        )
        assert (archived["memory"]["version"], archived["replaced_version"]) == (5, 4)
        stale_forget = await tool_error(client, "memory_forget", {"id": mid, "expected_version": 4})
        assert stale_forget["current"]["status"] == "archived"
        forgotten = await call(client, "memory_forget", {"id": mid, "expected_version": 5})
        assert (forgotten["status"], forgotten["version"], forgotten["replaced_version"]) == (
            "forgotten",
            6,
            5,
        )
        stale_delete = await tool_error(
            client, "memory_forget", {"id": mid, "hard": True, "expected_version": 5}
        )
        assert stale_delete["current_version"] == 6
        deleted = await call(client, "memory_forget", {"id": mid, "hard": True, "expected_version": 6})
        assert (deleted["status"], deleted["replaced_version"]) == ("deleted", 6)


async def test_a_supersede_is_checked_when_asked_and_again_when_the_worker_stores_it(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mid = await _stored(client, poller, content="The office wifi password rotates monthly")
        stale = await tool_error(
            client,
            "memory_update",
            {"id": mid, "action": "supersede", "content": "It rotates weekly", "expected_version": 2},
        )
        assert stale["current_version"] == 1

        queued = await call(
            client,
            "memory_update",
            {"id": mid, "action": "supersede", "content": "It rotates weekly now", "expected_version": 1},
        )
        assert queued["replaced_version"] == 1
        # a change lands between the call and the worker: the queued supersede must not overwrite it
        await call(client, "memory_update", {"id": mid, "action": "update", "importance": 0.9})
        await drain(poller)
        status = await call(client, "memory_status", {"ids": [queued["queued"]["id"]]})
        write = status["writes"][0]
        assert write["status"] == "skipped", write
        assert "version conflict" in write["reason"]
        detail = await call(client, "memory_get", {"id": mid})
        assert (detail["memory"]["status"], detail["memory"]["version"]) == ("active", 2)


async def test_of_concurrent_agents_exactly_one_update_per_version_wins_and_none_is_lost(
    unlimited_server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """AGENTS clients update one memory at once, each with the version it read; every round exactly one
    wins and the others get version_conflict naming the new version; each loser merges (re-reads) and
    retries until all have landed. The history then holds every winner's content, in version order."""
    async with mcp_client(unlimited_server.url, token) as client:
        mid = await _stored(client, poller, content="Shared plan: nothing decided yet", key="team.plan")

    wins: dict[int, int] = {}  # replaced version → agent
    conflicts: list[dict[str, Any]] = []

    async def agent(n: int) -> None:
        async with mcp_client(unlimited_server.url, token) as client:
            while True:
                version = await _version(client, mid)
                answer = await client.call_tool(
                    "memory_update",
                    {
                        "id": mid,
                        "action": "update",
                        "content": f"Shared plan: step {n} decided by agent {n}",
                        "expected_version": version,
                    },
                )
                result = answer.structured_content or {}
                if answer.is_error:
                    conflicts.append(result["error"])
                    continue
                assert result["replaced_version"] == version
                assert result["memory"]["version"] == version + 1
                assert version not in wins, f"two agents replaced version {version}"
                wins[version] = n
                return

    async with anyio.create_task_group() as tg:
        for n in range(AGENTS):
            tg.start_soon(agent, n)

    assert sorted(wins) == list(range(1, AGENTS + 1))  # exactly one winner per version
    assert sorted(wins.values()) == list(range(AGENTS))  # every agent landed once
    assert conflicts, "no agent ever lost a race: the test did not test concurrency"
    assert {c["kind"] for c in conflicts} == {"version_conflict"}
    assert all(c["current_version"] > c["expected_version"] for c in conflicts)
    async with mcp_client(unlimited_server.url, token) as client:
        detail = await call(client, "memory_get", {"id": mid})
    assert detail["memory"]["version"] == AGENTS + 1
    updates = [h["changes"]["content"]["to"] for h in detail["history"] if h["action"] == "updated"]
    assert updates == [f"Shared plan: step {wins[v]} decided by agent {wins[v]}" for v in sorted(wins)]
    assert detail["memory"]["content"] == updates[-1]


async def test_without_expected_version_every_update_lands_and_says_which_version_it_replaced(
    unlimited_server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(unlimited_server.url, token) as client:
        mid = await _stored(client, poller, content="Lunch order: undecided")
    replaced: list[int] = []

    async def agent(n: int) -> None:
        async with mcp_client(unlimited_server.url, token) as client:
            result = await call(
                client, "memory_update", {"id": mid, "action": "update", "content": f"Lunch order: dish {n}"}
            )
            replaced.append(result["replaced_version"])

    async with anyio.create_task_group() as tg:
        for n in range(AGENTS):
            tg.start_soon(agent, n)
    assert sorted(replaced) == list(range(1, AGENTS + 1))  # each replaced a different version


async def test_working_memory_set_compares_and_sets_one_winner_per_version(
    unlimited_server: BackgroundServer, token: str
) -> None:
    session = "shared-session"
    wins: dict[int, int] = {}
    conflicts: list[dict[str, Any]] = []

    async def agent(n: int) -> None:
        async with mcp_client(unlimited_server.url, token) as client:
            expected = 0  # first try: only if nobody set the key yet
            while True:
                answer = await client.call_tool(
                    "working_memory_set",
                    {
                        "session_id": session,
                        "key": "plan",
                        "content": f"plan by agent {n}",
                        "expected_version": expected,
                    },
                )
                result = answer.structured_content or {}
                if answer.is_error:
                    conflicts.append(result["error"])
                    expected = result["error"]["current_version"]
                    continue
                assert result["item"]["version"] == expected + 1
                assert expected not in wins
                wins[expected] = n
                return

    async with anyio.create_task_group() as tg:
        for n in range(AGENTS):
            tg.start_soon(agent, n)
    assert sorted(wins) == list(range(AGENTS))
    assert sorted(wins.values()) == list(range(AGENTS))
    # at least every agent but the first lost the race for version 0
    assert len(conflicts) >= AGENTS - 1
    assert {c["kind"] for c in conflicts} == {"version_conflict"}
    assert all(c["current"]["content"].startswith("plan by agent") for c in conflicts)
    async with mcp_client(unlimited_server.url, token) as client:
        view = await call(client, "working_memory_get", {"session_id": session, "key": "plan"})
        assert view["items"][0]["version"] == AGENTS
        assert view["items"][0]["content"] == f"plan by agent {wins[AGENTS - 1]}"
        unversioned = await call(
            client, "working_memory_set", {"session_id": session, "key": "plan", "content": "overwrite"}
        )
        assert unversioned["item"]["version"] == AGENTS + 1


async def test_a_loose_version_or_an_empty_validity_period_is_refused_and_changes_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mid = await _stored(client, poller, content="Alex is allergic to peanuts", key="alex.allergy")
        for loose in ("1", True):  # a string or a boolean is not a version the agent read
            error = await tool_error(
                client,
                "memory_update",
                {"id": mid, "action": "update", "tags": ["x"], "expected_version": loose},
            )
            assert error["kind"] == "invalid_arguments", error
            assert "expected_version" in str(error), error
        error = await tool_error(
            client,
            "working_memory_set",
            {"session_id": "s", "key": "goal", "content": "g", "expected_version": "0"},
        )
        assert "expected_version" in str(error), error
        for start, end in (("2026-12-05", "2026-12-01"), ("2026-12", "2026-11")):  # reversed, and empty
            error = await tool_error(
                client, "memory_update", {"id": mid, "action": "update", "valid_from": start, "valid_to": end}
            )
            assert error["kind"] == "invalid_arguments", error
            assert "valid_to" in str(error), error
            assert "empty" in error["message"], error
        # one end moved against the stored other end: refused naming the end given, nothing changed
        bounded = await call(
            client, "memory_update", {"id": mid, "action": "update", "valid_from": "2026-01-01"}
        )
        version = bounded["memory"]["version"]
        error = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "valid_to": "2025-06-01"}
        )
        assert (error["kind"], "valid_to" in error["message"], "empty" in error["message"]) == (
            "invalid_arguments",
            True,
            True,
        ), error
        await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": "2026-06-01"})
        error = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "valid_from": "2026-07-01"}
        )
        assert error["kind"] == "invalid_arguments", error
        assert "valid_from" in error["message"], error
        assert await _version(client, mid) == version + 1  # only the valid change landed
        # a version the memory never had is named as such, not as a change since it was read
        never = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "tags": ["y"], "expected_version": 99}
        )
        assert "never been at version 99" in never["message"], never
        await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": "2100-01-01"})
        now = datetime.now(UTC).isoformat()
        hits = await call(client, "memory_search", {"query": "peanut allergy", "valid_at": now})
        assert mid in [h["memory"]["id"] for h in hits["results"]]
