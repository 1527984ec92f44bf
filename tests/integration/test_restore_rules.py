"""A restore settles the restored fact by the write path's rules, and reads describe it as it now is (trial
08:25 follow-ups), end to end through the MCP client, the SQS emulator and the worker: a restored hit no
longer shows the memory that once superseded it (``superseded_by``)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.integration.test_valid_time_order import _memory, _stored
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
