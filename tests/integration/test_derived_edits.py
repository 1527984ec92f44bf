"""An edit of a memory maintenance derived something from is followed by what was derived (new-user trial
F12, F13), against real Postgres+pgvector and the MCP app (official client): a corrected member of a
consolidation summary leaves it (the summary derived again from the others, or undone), and a corrected
evidence episode of an inferred preference is no longer counted (the inference recounted, or withdrawn)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from uuid import UUID

import pytest

from hindsight.client import call
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_forgetting import _consolidated, _repeats
from tests.integration.test_maintenance import _container, _insert, _rows, _step
from tests.support import mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
DAY = timedelta(days=1)
PASSED = "The staging smoke test passed"
FAILED = "The staging smoke test failed: login page returned HTTP 500"
AISLE = "I prefer aisle seats on long flights"
WINDOW = "Again for Boston: I prefer window seats on long flights"


def _status(stack: LocalStack, *ids: str) -> list[str]:
    found = dict(_rows(stack, "SELECT id::text, status FROM memories WHERE id::text = ANY(%s)", list(ids)))
    return [found[i] for i in ids]


async def _search(client: Any, query: str) -> list[dict[str, Any]]:
    return [h["memory"] for h in (await call(client, "memory_search", {"query": query}))["results"]]


async def test_a_corrected_member_of_a_three_event_summary_undoes_it(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """The trial's case: on main the edited member stayed archived and search and summarize kept
    answering "3 similar events … passed"."""
    summary, members = await _consolidated(stack, tenant, PASSED)
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client,
            "memory_update",
            {"id": members[0], "action": "update", "content": FAILED, "reason": "the user corrected it"},
        )
        hits = await _search(client, "staging smoke test")
        assert sorted(h["id"] for h in hits) == sorted(members)
        assert not any("similar events" in h["content"] for h in hits)
        hint = (await call(client, "memory_summarize", {"query": "staging smoke test"}))["hint"]
        assert "HTTP 500" in hint, hint
        assert "similar events" not in hint, hint
        view = await call(client, "memory_get", {"id": summary})
        assert view["memory"]["status"] == "archived"
        assert members[0] in view["history"][-1]["reason"]
        assert answer["memory"]["status"] == "active"
        assert f"summary {summary} undone" in answer["note"]
    assert _status(stack, *members) == ["active"] * 3


async def test_a_corrected_member_leaves_and_the_summary_stands_for_the_others(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """Four repeats, one corrected: three still repeat the event, so the summary (same id) is derived
    again from them and says so in its history; the corrected one is found by search on its own."""
    summary, members = await _consolidated(stack, tenant, PASSED, 4)
    async with mcp_client(server.url, token) as client:
        before = (await call(client, "memory_get", {"id": summary}))["memory"]
        assert before["content"].startswith("4 similar events")
        answer = await call(
            client,
            "memory_update",
            {"id": members[0], "action": "update", "content": FAILED, "reason": "the user corrected it"},
        )
        hits = {h["id"]: h for h in await _search(client, "staging smoke test")}
        assert set(hits) == {summary, members[0]}
        assert hits[summary]["content"].startswith("3 similar events")
        assert hits[summary]["metadata"]["consolidation"]["members"] == 3
        assert hits[members[0]]["content"] == FAILED
        view = await call(client, "memory_get", {"id": summary})
        last = view["history"][-1]
        assert (last["action"], last["changes"]["members"]["to"]) == ("updated", sorted(members[1:]))
        assert last["changes"]["content"]["from"] == before["content"]
        assert f"taken out of summary {summary}" in answer["note"]
        # the member that left is no longer one of it: forgetting it leaves the summary alone
        forgot = await call(client, "memory_forget", {"id": members[0]})
        assert forgot.get("also_forgotten") is None
    assert _status(stack, summary, *members) == ["active", "forgotten", "archived", "archived", "archived"]
    links = _rows(stack, "SELECT from_id::text FROM memory_relations WHERE to_id::text = %s", summary)
    assert sorted(r[0] for r in links) == sorted(members[1:])


async def test_a_member_edit_that_keeps_the_event_rewrites_the_summary_in_place(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """A new tag on a member is a tag of the summary (their union); the member stays archived in it."""
    summary, members = await _consolidated(stack, tenant, PASSED)
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client, "memory_update", {"id": members[0], "action": "update", "tags": ["release-42"]}
        )
        (hit,) = await _search(client, "staging smoke test")
        assert (hit["id"], hit["tags"]) == (summary, ["release-42"])
        assert answer["memory"]["status"] == "archived"
        assert f"summary {summary} derived again" in answer["note"]


async def _inferred(stack: LocalStack, tenant: str, texts: list[str]) -> tuple[UUID, list[str]]:
    """One episode per text, a week or more apart (never consolidated), one trip each, latest last; one
    maintenance run infers the preference: its id and the episodes'."""
    now = datetime.now(UTC)
    async with _container(stack) as c:
        episodes = [
            str(
                await _insert(
                    c, tenant, text, created_at=now - d * DAY, occurred_at=now - d * DAY, task_id=f"trip-{d}"
                )
            )
            for d, text in zip((22, 15, 8, 1), texts, strict=False)
        ]
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "extract_patterns")["created"] == 1
    semantic = "SELECT id FROM memories WHERE tenant_id = %s AND layer = 'semantic'"
    ((pattern,),) = _rows(stack, semantic, tenant)
    return pattern, episodes


async def test_a_corrected_evidence_episode_withdraws_an_inference_it_no_longer_supports(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """The trial's case: on main "Preference stated in 3 episodes: … aisle seats" stood after one of the
    three was corrected to "window seats", and memory_summarize served it."""
    pattern, episodes = await _inferred(stack, tenant, [AISLE, AISLE, AISLE])
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client,
            "memory_update",
            {"id": episodes[2], "action": "update", "content": WINDOW, "reason": "the user said window"},
        )
        hint = (await call(client, "memory_summarize", {"query": "seat preference on flights"}))["hint"]
        assert "Preference stated in" not in hint, hint
        view = await call(client, "memory_get", {"id": str(pattern)})
        assert view["memory"]["status"] == "archived"
        assert episodes[2] in view["history"][-1]["reason"]
        assert f"inferred memory {pattern} withdrawn" in answer["note"]


async def test_a_corrected_evidence_episode_is_no_longer_counted(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """Four episodes state it, one is corrected: the inference states three, cites three."""
    pattern, episodes = await _inferred(stack, tenant, [AISLE] * 4)
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client,
            "memory_update",
            {"id": episodes[0], "action": "update", "content": WINDOW, "reason": "the user said window"},
        )
        view = await call(client, "memory_get", {"id": str(pattern)})
        assert view["memory"]["status"] == "active"
        assert view["memory"]["content"].startswith("Preference stated in 3 episodes")
        assert view["memory"]["metadata"]["inferred_from"]["episodes"] == 3
        assert "3 episodes still state it" in answer["note"]
    cited = _rows(
        stack, "SELECT to_id::text FROM memory_relations WHERE from_id = %s AND kind = 'related'", pattern
    )
    assert sorted(r[0] for r in cited) == sorted(episodes[1:])


async def test_an_inference_withdrawn_by_an_edit_comes_back_when_stated_enough_again(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """Withdrawn because the corrected episode left two, the inference is active again (same id) once a
    new episode states the preference a third time; one the user archived would stay archived."""
    pattern, episodes = await _inferred(stack, tenant, [AISLE, AISLE, AISLE])
    async with mcp_client(server.url, token) as client:
        await call(client, "memory_update", {"id": episodes[1], "action": "update", "content": WINDOW})
    async with _container(stack) as c:
        now = datetime.now(UTC)
        await _insert(c, tenant, AISLE, created_at=now, occurred_at=now, task_id="trip-0")
        assert c.maintain is not None
        counts = _step(await c.maintain.run(tenant_id=tenant), "extract_patterns")
    assert (counts.get("reinstated"), counts.get("created", 0)) == (1, 0), counts
    async with mcp_client(server.url, token) as client:
        view = await call(client, "memory_get", {"id": str(pattern)})
        assert view["memory"]["status"] == "active"
        assert view["memory"]["content"].startswith("Preference stated in 3 episodes")
        assert "withdrawn_at" not in view["memory"]["metadata"]["inferred_from"]
        assert view["history"][-1]["action"] == "restored"


async def test_an_undone_summary_is_not_restored_with_words_its_members_no_longer_say(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """Trial N4: undone by a member's correction, the summary came back active on a restore, saying "3
    similar events … passed" beside the corrected member. Refused, naming ``id``: its members are active
    memories again, and maintenance summarises them again while enough repeat one event."""
    summary, members = await _consolidated(stack, tenant, PASSED)
    async with mcp_client(server.url, token) as client:
        await call(client, "memory_update", {"id": members[0], "action": "update", "content": FAILED})
        refused = await tool_error(client, "memory_update", {"id": summary, "action": "restore"})
        assert (refused["kind"], refused["errors"][0]["field"]) == ("invalid_arguments", "id"), refused
        assert "undone" in refused["message"], refused
        hits = await _search(client, "staging smoke test")
        assert not any("similar events" in h["content"] for h in hits), hits
    assert _status(stack, summary, *members) == ["archived", "active", "active", "active"]


async def test_a_withdrawn_inference_is_not_restored_with_a_count_its_episodes_no_longer_support(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """Trial N5: withdrawn because only two episodes still state it, the inference came back active on a
    restore, "Preference stated in 3 episodes", and memory_summarize served it. Refused, naming ``id``;
    one the user archived is restored as before."""
    pattern, episodes = await _inferred(stack, tenant, [AISLE, AISLE, AISLE])
    async with mcp_client(server.url, token) as client:
        await call(client, "memory_update", {"id": episodes[2], "action": "update", "content": WINDOW})
        refused = await tool_error(client, "memory_update", {"id": str(pattern), "action": "restore"})
        assert (refused["kind"], refused["errors"][0]["field"]) == ("invalid_arguments", "id"), refused
        assert "withdrawn" in refused["message"], refused
        hint = (await call(client, "memory_summarize", {"query": "seat preference on flights"}))["hint"]
        assert "Preference stated in" not in hint, hint
        restored = await call(client, "memory_update", {"id": episodes[0], "action": "restore"})
        assert restored["memory"]["status"] == "active"  # an ordinary memory: nothing to refuse
    assert _status(stack, str(pattern)) == ["archived"]


# ---- an edit racing maintenance (re-trial N0, N0b) -------------------------------------------------


def _edit_after_read(
    container: Any, read: str, edit: Callable[[], Awaitable[Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Make the maintenance store's ``read`` step run ``edit`` once right after it read its rows: the edit
    lands between the plan's read and its write, as a user's correction racing a maintenance run."""
    store = container.maintain._store
    original = getattr(store, read)

    async def read_then_edit(*args: Any, **kwargs: Any) -> Any:
        rows = await original(*args, **kwargs)
        await edit()
        return rows

    monkeypatch.setattr(store, read, read_then_edit)


async def test_a_member_edited_while_maintenance_plans_its_summary_stays_active(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-trial N0: the edit answered ``active``, then maintenance archived it under a summary quoting
    the old words. Now the cluster is skipped this run (re-planned from fresh rows by the next)."""
    async with _container(stack) as c, mcp_client(server.url, token) as client:
        members = [str(m) for m in await _repeats(c, tenant, PASSED)]

        async def edit() -> None:
            answer = await call(
                client,
                "memory_update",
                {"id": members[0], "action": "update", "content": FAILED, "reason": "the user corrected it"},
            )
            assert answer["memory"]["status"] == "active"

        _edit_after_read(c, "consolidation_candidates", edit, monkeypatch)
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
    assert _step(report, "consolidate").get("summaries", 0) == 0
    summaries = "SELECT id FROM memories WHERE tenant_id = %s AND metadata ? 'consolidation'"
    assert _rows(stack, summaries, tenant) == []
    assert _status(stack, *members) == ["active"] * 3


async def test_an_evidence_episode_edited_while_maintenance_plans_an_inference_is_not_counted(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-trial N0b: "Preference stated in 3 episodes: I prefer aisle seats" was created from an episode
    corrected to "window seats" after maintenance read it. Now the inference is not created this run."""
    now = datetime.now(UTC)
    async with _container(stack) as c, mcp_client(server.url, token) as client:
        episodes = [
            str(
                await _insert(
                    c, tenant, AISLE, created_at=now - d * DAY, occurred_at=now - d * DAY, task_id=f"t{d}"
                )
            )
            for d in (15, 8, 1)
        ]

        async def edit() -> None:
            await call(
                client,
                "memory_update",
                {"id": episodes[2], "action": "update", "content": WINDOW, "reason": "the user said window"},
            )

        _edit_after_read(c, "pattern_evidence", edit, monkeypatch)
        assert c.maintain is not None
        report = await c.maintain.run(tenant_id=tenant)
    assert _step(report, "extract_patterns").get("created", 0) == 0
    assert _rows(stack, "SELECT id FROM memories WHERE tenant_id = %s AND layer = 'semantic'", tenant) == []
    assert _status(stack, *episodes) == ["active"] * 3
