"""An episode's validity period never ends before it starts (trial MED-3), on every way in: an episode
without valid_from holds from its occurred_at (else from when it was written: ``coalesce(valid_from,
occurred_at, created_at)``, what ``valid_at`` reads use), and a ``valid_to`` at or before that start —
``memory_update`` (update and supersede), an ``ingest`` line — is refused naming ``valid_to`` and the start,
as a tool result with isError over the official MCP client, or with the file; nothing changes.
(``memory_write`` and ``hindsight write`` take no valid_to; ``hindsight import`` carries rows as the store
held them.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_operator_cli import _queued_messages, cli  # noqa: F401 (the fixture)
from tests.support import drain, mcp_client, tool_error

pytestmark = pytest.mark.integration
JUNE = "2026-06-01T00:00:00+00:00"


async def _event(client: Client, poller: SqsPoller, **args: Any) -> dict[str, Any]:
    ack = await call(client, "memory_write", {"layer": "episodic", **args})
    await drain(poller)
    return dict((await call(client, "memory_get", {"id": str(ack["id"])}))["memory"])


def _refused_naming_valid_to(error: dict[str, Any], start: str, source: str) -> None:
    assert error["kind"] == "invalid_arguments", error
    [detail] = error["errors"]
    assert (detail["field"], detail["limit"]) == ("valid_to", start), error
    assert f"must be after its start {start}" in error["message"], error
    assert f"an event holds from {source}" in error["message"], error


@pytest.mark.anyio
async def test_an_episodes_valid_to_before_it_happened_is_refused_naming_the_field_and_the_start(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        deploy = await _event(
            client, poller, content="Deploy of billing v3 started", occurred_at="2026-06-01"
        )
        mid = deploy["id"]
        error = await tool_error(
            client, "memory_update", {"id": mid, "action": "update", "valid_to": "2026-03"}
        )
        _refused_naming_valid_to(error, JUNE, "occurred_at")
        # at the start itself: an empty period, refused the same way
        error = await tool_error(client, "memory_update", {"id": mid, "action": "update", "valid_to": JUNE})
        _refused_naming_valid_to(error, JUNE, "occurred_at")
        # a supersede's new event keeps the old one's occurred_at: the same start, the same refusal
        error = await tool_error(
            client,
            "memory_update",
            {
                "id": mid,
                "action": "supersede",
                "content": "Deploy of billing v3.1 started",
                "valid_to": "2026-03",
            },
        )
        _refused_naming_valid_to(error, JUNE, "occurred_at")
        unchanged = (await call(client, "memory_get", {"id": mid}))["memory"]
        assert (unchanged["version"], unchanged["status"], unchanged["valid_to"]) == (
            deploy["version"],
            "active",
            None,
        )

        # an end after it happened is a period; so is one with a valid_from before it
        ended = await call(client, "memory_update", {"id": mid, "action": "update", "valid_to": "2026-07"})
        assert ended["memory"]["valid_to"] == "2026-08-01T00:00:00Z", ended
        moved = await call(
            client,
            "memory_update",
            {"id": mid, "action": "update", "valid_from": "2026-01", "valid_to": "2026-03"},
        )
        assert (moved["memory"]["valid_from"], moved["memory"]["valid_to"]) == (
            "2026-01-01T00:00:00Z",
            "2026-04-01T00:00:00Z",
        )

        # without occurred_at an event holds from when it was written
        note = await _event(client, poller, content="Checked the billing dashboard")
        created = note["created_at"].replace("Z", "+00:00")
        error = await tool_error(
            client,
            "memory_update",
            {"id": note["id"], "action": "update", "valid_to": "2026-01-01T00:00:00Z"},
        )
        _refused_naming_valid_to(error, created, "created_at")


def test_an_ingest_line_of_an_episode_ending_before_it_happened_is_refused_with_the_file(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(
        '{"content":"Deploy of billing v3 started","layer":"episodic","occurred_at":"2026-06-01",'
        '"valid_to":"2026-03"}\n'
        '{"content":"Deploy of billing v3 finished","layer":"episodic","occurred_at":"2026-06-02"}\n'
    )
    before = _queued_messages(stack)
    result = cli("ingest", str(path), "--tenant", tenant, "--json")
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    refusal = "line 1: valid_to: the validity period is empty: valid_to 2026-04-01T00:00:00+00:00 must be"
    assert f"{refusal} after its start {JUNE}" in output, output
    assert "(no valid_from given: an event holds from occurred_at;" in output, output
    assert "nothing was ingested" in output, output
    assert _queued_messages(stack) == before


@pytest.mark.anyio
async def test_a_supersede_never_ends_an_episode_before_it_happened(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """A supersede ends the old memory at the new one's start, never before the old one's own start; an
    episode's start without valid_from is its occurred_at (else created_at), not "none": a correction
    dated before it happened left it ending in January and beginning in June."""
    async with mcp_client(server.url, token) as client:
        deploy = await _event(client, poller, content="Deploy of billing v3 started", occurred_at=JUNE)
        queued = await call(
            client,
            "memory_update",
            {
                "id": deploy["id"],
                "action": "supersede",
                "content": "Deploy of billing v3 started, as planned in January",
                "valid_from": "2026-01-01",
            },
        )
        await drain(poller)
        old = (await call(client, "memory_get", {"id": deploy["id"]}))["memory"]
        assert (old["status"], old["valid_to"], old["superseded_by"]) == (
            "superseded",
            "2026-06-01T00:00:00Z",  # it never held: an empty period at its start, never an inverted one
            str(queued["queued"]["id"]),
        )
        # an episode dated in the future, superseded by a link now, ends where it begins too
        later = await _event(client, poller, content="Deploy of billing v4 starts", occurred_at="2099-01-01")
        replacement = await _event(client, poller, content="Deploy of billing v4 is cancelled")
        await call(
            client, "memory_link", {"from_id": replacement["id"], "to_id": later["id"], "kind": "supersedes"}
        )
        ended = (await call(client, "memory_get", {"id": later["id"]}))["memory"]
        assert (ended["status"], ended["valid_to"]) == ("superseded", "2099-01-01T00:00:00Z")


@pytest.mark.anyio
async def test_an_episode_supersede_keeps_its_task_record(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """An episode's supersede corrects the words of the same event: its task, how it ended, its decisions,
    lessons and causal parent stay (a superseded task record lost its outcome, so "Failed before" went
    from memory_summarize)."""
    async with mcp_client(server.url, token) as client:
        cause = await _event(client, poller, content="The billing queue backed up", occurred_at=JUNE)
        failed = await _event(
            client,
            poller,
            content="The billing deploy failed with a lock timeout",
            occurred_at=JUNE,
            task_id="deploy-billing-7",
            task_type="modify",
            outcome="failure",
            key_decisions=["ran the migration inside the deploy"],
            lessons="Run long migrations before the deploy, not inside it",
            causal_parent=cause["id"],
        )
        queued = await call(
            client,
            "memory_update",
            {
                "id": failed["id"],
                "action": "supersede",
                "content": "The billing deploy failed with a deadlock",
            },
        )
        await drain(poller)
        new = (await call(client, "memory_get", {"id": str(queued["queued"]["id"])}))["memory"]
        fields = (
            "task_id",
            "task_type",
            "outcome",
            "key_decisions",
            "lessons",
            "causal_parent",
            "occurred_at",
        )
        assert {f: new.get(f) for f in fields} == {f: failed.get(f) for f in fields}, (new, failed)
        assert new["outcome"] == "failure", new
        assert new["content"].endswith("deadlock"), new
        summary = await call(client, "memory_summarize", {"task_type": "modify"})
        assert "deadlock" in summary["hint"], summary
        assert "lock timeout" not in summary["hint"], summary
