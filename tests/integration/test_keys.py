"""Keys are identifiers, end to end through the official MCP client: a key that redaction would change is
refused on every tool that takes one (redacted, two keys would become one and a write on one would
supersede the other's fact); a promoted working-memory item gets no long-term key unless asked; and the
answers say what redaction replaced and why a write's status is unknown."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from mcp.client.session import ClientSession

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

ALICE = "alice@example.com"
AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def _assert_key_refused(error: dict[str, Any], field: str, kind: str, secret: str) -> None:
    """An argument error on ``field`` that names the kind redaction found, never the text itself."""
    assert error["kind"] == "invalid_arguments", error
    assert [e["field"] for e in error["errors"]] == [field]
    assert kind in error["message"]
    assert "identifier" in error["message"]
    assert "contact.alice" in error["message"]  # what to choose instead
    assert secret not in str(error)


async def test_a_key_redaction_would_change_is_refused_and_keys_keep_their_identity(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given two facts keyed by e-mail address (redacted, both keys read [REDACTED:email])
        for content, key in [("Alice prefers email", ALICE), ("Bob prefers phone", "bob@example.com")]:
            error = await tool_error(client, "memory_write", {"content": content, "key": key})
            _assert_key_refused(error, "key", "email", key)
        error = await tool_error(client, "memory_write", {"content": "deploy", "key": f"deploy.{AWS_KEY}"})
        _assert_key_refused(error, "key", "aws_access_key", AWS_KEY)
        # A batch refuses that item only; the others are queued, as the batch's docs promise
        batch = await call(
            client,
            "memory_write_batch",
            {
                "items": [
                    {"content": "Alice prefers email", "key": "contact.alice"},
                    {"content": "Carol prefers letters", "key": "carol@example.com"},
                    {"content": "Bob prefers phone", "key": "contact.bob"},
                ]
            },
        )
        assert [r["status"] for r in batch["results"]] == ["queued", "error", "queued"]
        _assert_key_refused(batch["results"][1]["error"], "items.1.key", "email", "carol@example.com")
        await drain(poller)
        # Then the valid keys are stored as written, each its own fact
        alice = (await call(client, "memory_search", {"query": "How does Alice like to be contacted?"}))[
            "results"
        ][0]["memory"]
        assert (alice["content"], alice["key"], alice["status"]) == (
            "Alice prefers email",
            "contact.alice",
            "active",
        )
        bob = await call(client, "memory_search", {"query": "contact preference", "key": "contact.bob"})
        assert [h["memory"]["content"] for h in bob["results"]] == ["Bob prefers phone"]
        # memory_update cannot set such a key either, and nothing changes
        error = await tool_error(
            client, "memory_update", {"id": alice["id"], "action": "update", "key": ALICE}
        )
        _assert_key_refused(error, "key", "email", ALICE)
        error = await tool_error(
            client,
            "memory_update",
            {"id": alice["id"], "action": "supersede", "content": "Alice prefers calls", "key": ALICE},
        )
        _assert_key_refused(error, "key", "email", ALICE)
        after = await call(client, "memory_get", {"id": alice["id"]})
        assert (after["memory"]["key"], after["memory"]["version"]) == ("contact.alice", alice["version"])


async def test_working_memory_refuses_keys_redaction_would_change(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        session = f"s-{uuid.uuid4().hex[:8]}"
        for key in (ALICE, "bob@example.com"):  # redacted, both named one item: the second overwrote
            error = await tool_error(
                client, "working_memory_set", {"session_id": session, "key": key, "content": "prefers email"}
            )
            _assert_key_refused(error, "key", "email", key)
        for tool in ("working_memory_get", "working_memory_clear", "working_memory_promote"):
            error = await tool_error(client, tool, {"session_id": session, "key": ALICE})
            _assert_key_refused(error, "key", "email", ALICE)
        await call(
            client, "working_memory_set", {"session_id": session, "key": "contact.alice", "content": "x"}
        )
        error = await tool_error(
            client,
            "working_memory_promote",
            {"session_id": session, "key": "contact.alice", "memory_key": ALICE},
        )
        _assert_key_refused(error, "memory_key", "email", ALICE)
        view = await call(client, "working_memory_get", {"session_id": session})
        assert [(i["key"], i["content"]) for i in view["items"]] == [("contact.alice", "x")]


async def _promote(client: ClientSession, session: str, content: str, **extra: Any) -> dict[str, Any]:
    await call(client, "working_memory_set", {"session_id": session, "key": "goal", "content": content})
    return await call(client, "working_memory_promote", {"session_id": session, "key": "goal", **extra})


async def test_promoting_the_same_item_key_from_two_sessions_keeps_both_memories(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        # Given 'goal' promoted from two sessions (an item's key names it within its session only)
        first = await _promote(client, "sess-a", "Ship the invoice export to the finance team by Friday")
        second = await _promote(client, "sess-b", "Migrate the billing database to Postgres 17 in March")
        assert (first["key"], second["key"]) == (None, None)
        await drain(poller)
        # Then both are stored, and the first is still active (not superseded by the second)
        status = await call(client, "memory_status", {"ids": [first["id"], second["id"]]})
        assert [w["status"] for w in status["writes"]] == ["stored", "stored"]
        for ack in (first, second):
            memory = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
            assert (memory["status"], memory.get("key")) == ("active", None)
        # And memory_key sets a long-term key, said in the answer
        keyed = await _promote(client, "sess-c", "Keep the weekly report short", memory_key="team.report")
        assert keyed["key"] == "team.report"
        await drain(poller)
        memory = (await call(client, "memory_get", {"id": keyed["id"]}))["memory"]
        assert memory["key"] == "team.report"


async def test_memory_update_names_what_redaction_replaced(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": "Maya runs the Lisbon office"})
        await drain(poller)
        changed = await call(
            client,
            "memory_update",
            {"id": ack["id"], "action": "update", "content": "Maya runs the Lisbon office; maya@example.com"},
        )
        assert changed["redacted"] == ["email"]
        assert changed["memory"]["content"] == "Maya runs the Lisbon office; [REDACTED:email]"
        plain = await call(
            client, "memory_update", {"id": ack["id"], "action": "update", "reason": f"key {AWS_KEY}",
                                      "importance": 0.6},
        )  # fmt: skip
        assert plain["redacted"] == ["aws_access_key"]  # the reason is stored in history too
        clean = await call(client, "memory_update", {"id": ack["id"], "action": "update", "importance": 0.7})
        assert clean.get("redacted") is None


async def test_an_unknown_status_says_to_pass_the_agent_id_the_write_was_made_with(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client, "memory_write", {"content": "The planner books trains", "agent_id": "planner"}
        )
        await drain(poller)
        never = str(uuid.uuid4())
        status = await call(client, "memory_status", {"ids": [ack["id"], never]})
        written, unseen = status["writes"]
        assert written["status"] == unseen["status"] == "unknown"
        # the same words for a write of another agent and an id never written: nothing is revealed
        assert written["reason"] == unseen["reason"]
        assert "pass the same agent_id" in written["reason"]
        assert "planner" not in written["reason"]
        mine = await call(client, "memory_status", {"ids": [ack["id"]], "agent_id": "planner"})
        assert mine["writes"][0]["status"] == "stored"
        assert mine["writes"][0].get("reason") is None


async def test_a_slot_key_and_a_prose_value_after_a_label_are_stored_as_written(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # A new-user trial: 'token:5' was refused as a key redaction would change, and "Access token: expires
    # after 1 hour" was stored as "Access token: [REDACTED:password] after 1 hour".
    async with mcp_client(server.url, token) as client:
        prose = await call(
            client, "memory_write", {"content": "Access token: expires after 1 hour", "key": "token:5"}
        )
        assert prose.get("redacted") is None
        secret = await call(client, "memory_write", {"content": "Access token: tk_9fQ2xL7 for the build"})
        assert secret["redacted"] == ["password"]
        await drain(poller)
        memory = (await call(client, "memory_get", {"id": prose["id"]}))["memory"]
        assert (memory["content"], memory["key"]) == ("Access token: expires after 1 hour", "token:5")
        hidden = (await call(client, "memory_get", {"id": secret["id"]}))["memory"]
        assert hidden["content"] == "Access token: [REDACTED:password] for the build"
        error = await tool_error(client, "memory_write", {"content": "x", "key": "pw:hunter22"})
        _assert_key_refused(error, "key", "password", "hunter22")


async def test_a_session_id_redaction_would_change_is_refused_and_promotion_keeps_the_session_id(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # A new-user trial: an e-mail as session_id was accepted, and the promoted memory's metadata read
    # {"session_id": "[REDACTED:email]"}, a provenance two sessions would share. It is an identifier, so
    # it is refused as a key is, on every working-memory tool, before anything is kept.
    async with mcp_client(server.url, token) as client:
        for tool, extra in (
            ("working_memory_set", {"key": "goal", "content": "Ship the export"}),
            ("working_memory_get", {}),
            ("working_memory_clear", {}),
            ("working_memory_promote", {"key": "goal"}),
        ):
            error = await tool_error(client, tool, {"session_id": ALICE, **extra})
            assert [e["field"] for e in error["errors"]] == ["session_id"], error
            assert "session id" in error["message"]
            assert "identifier" in error["message"]
            assert ALICE not in str(error)
        ack = await _promote(client, "chat.alice-42", "Ship the invoice export by Friday")
        await drain(poller)
        memory = (await call(client, "memory_get", {"id": ack["id"]}))["memory"]
        assert memory["metadata"]["session_id"] == "chat.alice-42"


async def test_a_task_id_or_conversation_id_redaction_would_change_is_refused(
    server: BackgroundServer, token: str
) -> None:
    # A new-user trial: an e-mail as task_id was stored as {"task_id": "[REDACTED:email]"} (two tasks one
    # episode's provenance), and one as conversation_id was stored verbatim, unredacted. Both are identifiers.
    async with mcp_client(server.url, token) as client:
        error = await tool_error(
            client, "task_reflect", {"task_id": ALICE, "goal": "Pay", "outcome": "success"}
        )
        assert [e["field"] for e in error["errors"]] == ["task_id"], error
        assert "task id" in error["message"]
        assert "identifier" in error["message"]
        assert ALICE not in str(error)
        turn = {"content": "Alice: see you at noon", "layer": "episodic", "turn_index": 0}
        error = await tool_error(client, "memory_write", {**turn, "conversation_id": ALICE})
        assert [e["field"] for e in error["errors"]] == ["conversation_id"], error
        assert "conversation id" in error["message"]
        assert ALICE not in str(error)
        batch = await call(
            client,
            "memory_write_batch",
            {"items": [{**turn, "conversation_id": "chat-42"}, {**turn, "conversation_id": ALICE}]},
        )
        assert [r["status"] for r in batch["results"]] == ["queued", "error"]
        assert [e["field"] for e in batch["results"][1]["error"]["errors"]] == ["items.1.conversation_id"]
        assert ALICE not in str(batch)


async def test_a_key_filter_no_memory_can_have_is_refused_naming_the_field(
    server: BackgroundServer, token: str
) -> None:
    # Such keys are refused on write, so a search or summary filtered by one answered "nothing found",
    # which reads as "you never stored it" rather than "that key cannot be used".
    async with mcp_client(server.url, token) as client:
        for tool, arguments in (
            ("memory_search", {"query": "contact preference", "key": ALICE}),
            ("memory_summarize", {"key": ALICE}),
        ):
            error = await tool_error(client, tool, arguments)
            _assert_key_refused(error, "key", "email", ALICE)
        found = await call(client, "memory_search", {"query": "contact preference", "key": "contact.nobody"})
        assert found["results"] == []


async def test_a_key_in_another_unicode_form_is_the_same_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    composed, decomposed = "menu.caf\u00e9", "menu.cafe\u0301"  # "menu.café" both, as a user sees it
    async with mcp_client(server.url, token) as client:
        # Given a fact on the composed key, then a new value on the decomposed one
        first = await call(client, "memory_write", {"content": "The café opens at 8", "key": composed})
        await drain(poller)
        later = {"content": "The café opens at 9", "key": decomposed}
        second = (await call(client, "memory_write", later))["id"]
        await drain(poller)
        # Then it is one key: the new value supersedes the old, and it is stored composed (NFC)
        status = (await call(client, "memory_status", {"ids": [second]}))["writes"][0]
        assert status["reason"] == f"supersedes {first['id']}"
        stored = (await call(client, "memory_get", {"id": second}))["memory"]
        assert stored["key"] == composed
        # And a key filter in either form finds it, in search and in memory_summarize
        for key in (composed, decomposed):
            hits = await call(client, "memory_search", {"query": "when does the café open", "key": key})
            assert [h["memory"]["id"] for h in hits["results"]] == [second]
            hint = await call(client, "memory_summarize", {"key": key})
            assert hint["ids"] == [second]
