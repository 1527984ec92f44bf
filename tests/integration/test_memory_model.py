"""The memory model end to end through the official MCP client: the spec's scenarios, every by-id tool,
and tenant isolation on ids. Real Postgres+pgvector, the SQS emulator and the worker behind a poller."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from mcp import Client

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.remember import job_id
from tests.support import count_memories, drain, mcp_client, mint

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
NOW = datetime.now(UTC)


async def _write(client: Client, **args: Any) -> str:
    ack = await call(client, "memory_write", args)
    return str(ack["id"])


async def _search(client: Client, query: str, **args: Any) -> list[dict[str, Any]]:
    result = await call(client, "memory_search", {"query": query, **args})
    hits: list[dict[str, Any]] = result["results"]
    return hits


async def test_a_changed_preference_supersedes_the_old_one(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        dark = await _write(client, content="The user prefers dark mode", key="user.display_preference")
        await drain(poller)
        light = await _write(client, content="The user now prefers light mode", key="user.display_preference")
        await drain(poller)
        status = await call(client, "memory_status", {"ids": [light]})
        assert status["writes"][0]["reason"] == f"supersedes {dark}"

        hits = await _search(client, "display preference")
        assert hits[0]["memory"]["id"] == light
        assert dark not in [h["memory"]["id"] for h in hits]

        history = await _search(client, "display preference", status=["active", "superseded"])
        old = next(h for h in history if h["memory"]["id"] == dark)
        assert old["flags"] == ["superseded"]
        assert old["memory"]["valid_to"] is not None

        detail = await call(client, "memory_get", {"id": light})
        assert {(r["kind"], r["to_id"]) for r in detail["relations"]} == {("supersedes", dark)}
        old_detail = await call(client, "memory_get", {"id": dark})
        assert [h["action"] for h in old_detail["history"]] == ["created", "superseded"]


async def test_the_whole_429_wait_retry_chain_is_recalled(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        error = await _write(
            client,
            layer="episodic",
            outcome="failure",
            importance=0.7,
            content="Calling the payments API failed with HTTP 429 Too Many Requests",
            occurred_at=(NOW - timedelta(minutes=3)).isoformat(),
        )
        wait = await _write(
            client,
            layer="episodic",
            causal_parent=error,
            content="Waited 30 seconds for the rate limit window to reset",
            occurred_at=(NOW - timedelta(minutes=2)).isoformat(),
        )
        retry = await _write(
            client,
            layer="episodic",
            causal_parent=wait,
            outcome="success",
            content="Retried the payments API call and it succeeded",
            occurred_at=(NOW - timedelta(minutes=1)).isoformat(),
        )
        await drain(poller)

        chain = await call(client, "memory_recall_chain", {"id": error, "direction": "effects"})
        assert [(s["step"], s["memory"]["id"]) for s in chain["chain"]] == [(0, error), (1, wait), (2, retry)]
        back = await call(client, "memory_recall_chain", {"id": retry, "direction": "causes"})
        assert [s["memory"]["id"] for s in back["chain"]] == [error, wait, retry]

        hits = await _search(client, "calling a rate limited API", include_related=True, top_k=1)
        top = hits[0]
        story = {top["memory"]["id"]} | {r["memory"]["id"] for r in top["related"]}
        assert story == {error, wait, retry}
        if top["memory"]["id"] == error:
            assert "failed_before" in top["flags"]


def _hold_job(stack: LocalStack, write_id: str) -> str:
    """Take a queued write's message off the write queue (it stays acknowledged and queued in the
    operation log, but is not stored until ``_send_job``); other messages are put back at once."""
    sqs, url = stack.sqs_client(), stack.require_settings().require_write_queue_url()
    for _ in range(30):
        for message in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get(
            "Messages", []
        ):
            if write_id in message["Body"]:
                sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
                return str(message["Body"])
            sqs.change_message_visibility(
                QueueUrl=url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
    raise AssertionError(f"the write {write_id} is not on the write queue")


def _send_job(stack: LocalStack, body: str) -> None:
    stack.sqs_client().send_message(
        QueueUrl=stack.require_settings().require_write_queue_url(), MessageBody=body
    )


async def test_a_child_stored_before_its_queued_parent_is_linked_when_the_parent_arrives(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        parent_id = await _write(
            client,
            layer="episodic",
            idempotency_key="deploy-started",
            content="Deployment of billing v2 started",
        )
        held = await anyio.to_thread.run_sync(_hold_job, stack, parent_id)  # the queue delays the parent
        child = await _write(
            client, layer="episodic", causal_parent=parent_id, content="Deployment of billing v2 finished"
        )
        await drain(poller)
        assert (await call(client, "memory_get", {"id": child}))["memory"]["causal_parent"] is None
        await anyio.to_thread.run_sync(_send_job, stack, held)
        await drain(poller)
        assert (await call(client, "memory_get", {"id": child}))["memory"]["causal_parent"] == parent_id


async def test_a_similar_sentence_with_a_new_value_supersedes_and_a_true_repeat_merges(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # The two sentences are near-duplicates for the embedder (cosine ≈ 0.97) but say different things.
    async with mcp_client(server.url, token) as client:
        tuesday = await _write(
            client, content="The meeting with Acme is on Tuesday at 10:00", key="acme.meeting"
        )
        await drain(poller)
        thursday = await _write(
            client, content="The meeting with Acme is on Thursday at 15:00", key="acme.meeting"
        )
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [thursday]}))["writes"]
        assert (status["status"], status["reason"]) == ("stored", f"supersedes {tuesday}")
        hits = await _search(client, "when is the Acme meeting")
        assert hits[0]["memory"]["id"] == thursday
        assert tuesday not in [h["memory"]["id"] for h in hits]

        repeat = await _write(
            client, content="the meeting with Acme is on Thursday at 15:00.", key="acme.meeting"
        )
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [repeat]}))["writes"]
        assert (status["status"], status["memory_id"]) == ("merged", thursday)


async def test_a_child_of_a_merged_write_is_linked_to_the_memory_it_merged_into(
    server: BackgroundServer, poller: SqsPoller, token: str, tenant: str
) -> None:
    at = (NOW - timedelta(hours=2)).isoformat()
    event = {"layer": "episodic", "content": "The nightly backup of orders-db failed", "occurred_at": at}
    repeat_id = str(job_id(tenant, "default", "backup-failed-again"))
    async with mcp_client(server.url, token) as client:
        original = await _write(client, **event)
        await drain(poller)
        # one child names the repeat while it is queued (not processed yet), one after
        repeat = await _write(client, idempotency_key="backup-failed-again", **event)
        assert repeat == repeat_id
        early = await _write(
            client, layer="episodic", causal_parent=repeat_id, content="Paged the on-call engineer"
        )
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [repeat]}))["writes"]
        assert (status["status"], status["memory_id"]) == ("merged", original)
        late = await _write(
            client, layer="episodic", causal_parent=repeat, content="Restarted the backup by hand"
        )
        await drain(poller)
        for child in (early, late):
            assert (await call(client, "memory_get", {"id": child}))["memory"]["causal_parent"] == original
        chain = await call(client, "memory_recall_chain", {"id": late})
        assert original in [step["memory"]["id"] for step in chain["chain"]]


async def test_an_order_mentioned_days_ago_is_recalled_through_its_entity(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        order = await _write(
            client,
            layer="episodic",
            entities={"order_id": "A-1042", "customer": "maya"},
            content="Maya bought a standing desk; payment confirmed",
            occurred_at=(NOW - timedelta(days=3)).isoformat(),
        )
        for i, text in enumerate(
            [
                "Maya asked about the weather in Lisbon",
                "The team discussed the quarterly roadmap",
                "Maya said her cat is called Pixel",
                "Delivery trucks are delayed by snow in the north",
            ]
        ):
            await _write(
                client,
                layer="episodic",
                content=text,
                occurred_at=(NOW - timedelta(days=1, hours=i)).isoformat(),
            )
        await drain(poller)
        hits = await _search(client, "is that order delivered?", top_k=3)
        assert hits[0]["memory"]["id"] == order
        assert hits[0]["scores"]["entity"] >= 1
        by_value = await _search(client, "what happened with A-1042?", top_k=1)
        assert by_value[0]["memory"]["id"] == order


async def test_an_inference_never_silently_overrides_what_the_user_stated(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        stated = await _write(client, content="The user is vegetarian", key="user.diet")
        await drain(poller)
        guess = await _write(
            client, content="The user probably eats fish", key="user.diet", source="agent_inferred"
        )
        await drain(poller)
        hits = await _search(client, "what does the user eat?")
        ids = [h["memory"]["id"] for h in hits]
        assert ids.index(stated) < ids.index(guess)
        inferred = hits[ids.index(guess)]
        # both stay active, linked contradicts: flagged as a possible conflict, each shown beside the other
        assert inferred["flags"] == ["inference", "possible_conflict"]
        assert "possible_conflict" in hits[ids.index(stated)]["flags"]
        assert [r["memory"]["id"] for r in inferred["related"]] == [stated]
        assert "not something the user stated" in inferred["notes"][0]
        detail = await call(client, "memory_get", {"id": guess})
        assert [(r["kind"], r["to_id"]) for r in detail["relations"]] == [("contradicts", stated)]


async def test_the_user_stating_what_the_agent_inferred_makes_it_the_users_word(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # New-user re-trial: the user's repeat merged into the inference, which stayed agent_inferred
    # (importance 0.5, flagged "inference"), so a later inference superseded what the user had said.
    async with mcp_client(server.url, token) as client:
        guess = await _write(
            client,
            content="The user's favourite colour is green",
            key="user.colour",
            source="agent_inferred",
            importance=0.3,
        )
        await drain(poller)
        said = await _write(
            client, content="the user's favourite colour is green.", key="user.colour", importance=0.8
        )
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [said]}))["writes"]
        assert (status["status"], status["memory_id"]) == ("merged", guess)
        detail = await call(client, "memory_get", {"id": guess})
        assert (detail["memory"]["source"], detail["memory"]["importance"]) == ("user_stated", 0.8)
        merged = detail["history"][-1]
        assert merged["action"] == "merged"
        assert merged["changes"]["source"] == {"from": "agent_inferred", "to": "user_stated"}
        hits = await _search(client, "favourite colour")
        assert "inference" not in next(h for h in hits if h["memory"]["id"] == guess)["flags"]
        # a later inference no longer replaces what the user said
        await _write(
            client, content="The user's favourite colour is blue", key="user.colour", source="agent_inferred"
        )
        await drain(poller)
        assert (await call(client, "memory_get", {"id": guess}))["memory"]["status"] == "active"


async def test_time_filters_resolve_relative_phrases_against_the_query_time(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old = await _write(
            client,
            layer="episodic",
            content="Reviewed the invoice for the Lisbon offsite",
            occurred_at=(NOW - timedelta(days=10)).isoformat(),
        )
        recent = await _write(
            client,
            layer="episodic",
            content="Reviewed the invoice for the Porto offsite",
            occurred_at=(NOW - timedelta(days=2)).isoformat(),
        )
        await drain(poller)
        week = await _search(client, "invoice review", time_range="past 7 days")
        assert [h["memory"]["id"] for h in week] == [recent]
        earlier = await _search(client, "invoice review", until="7 days ago")
        assert [h["memory"]["id"] for h in earlier] == [old]
        as_of = (NOW - timedelta(days=5)).isoformat()
        then = await _search(client, "invoice review", time_range="past 7 days", as_of=as_of)
        assert [h["memory"]["id"] for h in then] == [old]
        with pytest.raises(ToolCallError) as caught:
            await _search(client, "invoice review", time_range="the other day")
        assert caught.value.code == -32602
        assert "time_range" in caught.value.error["message"]


async def test_update_archive_restore_feedback_and_forget(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mid = await _write(
            client, content="Standup is at 9:30 every weekday", key="team.standup", importance=0.5
        )
        await drain(poller)
        updated = await call(
            client,
            "memory_update",
            {
                "id": mid,
                "action": "update",
                "reason": "moved",
                "content": "Standup is at 10:15 every weekday",
            },
        )
        assert updated["memory"]["content"] == "Standup is at 10:15 every weekday"
        assert (await _search(client, "when is standup?", top_k=1))[0]["memory"]["id"] == mid

        await call(client, "memory_update", {"id": mid, "action": "archive", "reason": "team disbanded"})
        assert mid not in [h["memory"]["id"] for h in await _search(client, "when is standup?")]
        assert (await call(client, "memory_get", {"id": mid}))["memory"]["status"] == "archived"
        await call(client, "memory_update", {"id": mid, "action": "restore"})

        up = await call(client, "memory_feedback", {"id": mid, "useful": True})
        assert up["importance"] == pytest.approx(0.6)
        down = await call(client, "memory_feedback", {"id": mid, "useful": False})
        assert down["importance"] == pytest.approx(0.55)

        soft = await call(client, "memory_forget", {"id": mid, "reason": "user asked"})
        assert soft["status"] == "forgotten"
        assert mid not in [h["memory"]["id"] for h in await _search(client, "when is standup?")]
        actions = [h["action"] for h in (await call(client, "memory_get", {"id": mid}))["history"]]
        assert actions == ["created", "updated", "archived", "restored", "feedback", "feedback", "forgotten"]

        other = await _write(client, content="Retro is on Fridays")
        await drain(poller)
        await call(client, "memory_link", {"from_id": other, "to_id": mid, "kind": "related"})
        hard = await call(client, "memory_forget", {"id": mid, "hard": True, "reason": "delete my data"})
        assert hard["status"] == "deleted"
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_get", {"id": mid})
        assert caught.value.code == -32002
        assert (await call(client, "memory_get", {"id": other}))["relations"] == []
    assert count_memories(stack, tenant) == 1


async def _active_on(client: Client, key: str, ids: list[str]) -> set[str]:
    """Those of ``ids`` that are active on ``key`` (by id: a search ranks and may cut)."""
    memories = [(await call(client, "memory_get", {"id": mid}))["memory"] for mid in ids]
    return {m["id"] for m in memories if m["status"] == "active" and m["key"] == key}


async def test_an_update_that_moves_a_memory_onto_a_key_supersedes_the_fact_there(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        plant = await _write(client, content="The office plant is a ficus", key="office.plant")
        printer = await _write(client, content="The office printer is an HP LaserJet", key="office.printer")
        await drain(poller)
        moved = await call(
            client, "memory_update", {"id": printer, "action": "update", "key": "office.plant"}
        )
        assert moved["memory"]["key"] == "office.plant"
        assert moved["superseded"] == [plant]
        # one active fact per key, as after a memory_write with that key
        assert await _active_on(client, "office.plant", [plant, printer]) == {printer}
        hits = await _search(client, "office", key="office.plant", top_k=20)
        assert [h["memory"]["id"] for h in hits] == [printer]
        old = await call(client, "memory_get", {"id": plant})
        assert old["memory"]["status"] == "superseded"
        assert old["memory"]["superseded_by"] == printer
        assert old["memory"]["valid_to"] is not None
        assert [h["action"] for h in old["history"]] == ["created", "superseded"]
        summary = await call(client, "memory_summarize", {"key": "office.plant"})
        assert plant not in str(summary)

        # a later write on the key replaces the one fact there: nothing stays behind without an end
        later = await _write(client, content="The office plant is now a monstera", key="office.plant")
        await drain(poller)
        status = await call(client, "memory_status", {"ids": [later]})
        assert status["writes"][0]["reason"] == f"supersedes {printer}"
        assert await _active_on(client, "office.plant", [plant, printer, later]) == {later}
        # moving a memory back onto a key nobody holds, or within the same key, supersedes nothing
        again = await call(
            client, "memory_update", {"id": later, "action": "update", "key": "office.plant", "reason": "x"}
        )
        assert again["superseded"] is None


async def test_concurrent_moves_onto_one_key_leave_one_active_fact(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ids = [
            await _write(client, content=text, key=key)
            for text, key in (
                ("The office plant is a ficus", "office.plant"),
                ("The office printer is an HP LaserJet", "office.printer"),
                ("The office kettle is a Bosch", "office.kettle"),
            )
        ]
        await drain(poller)
        ids.append(await _write(client, content="The office plant is a cactus", key="office.plant"))

        async def move(mid: str) -> None:
            await call(client, "memory_update", {"id": mid, "action": "update", "key": "office.plant"})

        async with anyio.create_task_group() as tg:  # two moves and the worker storing a write on the key
            tg.start_soon(move, ids[1])
            tg.start_soon(move, ids[2])
            tg.start_soon(drain, poller)
        assert len(await _active_on(client, "office.plant", ids)) == 1


async def test_restoring_a_superseded_fact_makes_it_the_fact_on_its_key_again(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ficus = await _write(client, content="The office plant is a ficus", key="office.plant")
        await drain(poller)
        cactus = await _write(client, content="The office plant is a cactus", key="office.plant")
        await drain(poller)
        before = await call(client, "memory_get", {"id": ficus})
        assert before["memory"]["status"] == "superseded"
        ended = before["memory"]["valid_to"]
        assert ended is not None
        restored = await call(
            client, "memory_update", {"id": ficus, "action": "restore", "reason": "the cactus was a mistake"}
        )
        # the restored fact holds the key again: its successor is superseded by it, as a write would be
        assert restored["memory"]["status"] == "active"
        assert restored["superseded"] == [cactus]
        assert await _active_on(client, "office.plant", [ficus, cactus]) == {ficus}
        # valid again: the end its supersede gave it is removed (and kept in its history)
        assert restored["memory"]["valid_to"] is None
        detail = await call(client, "memory_get", {"id": ficus})
        assert [h["action"] for h in detail["history"]] == ["created", "superseded", "restored"]
        assert detail["history"][-1]["changes"]["valid_to"]["to"] is None
        successor = (await call(client, "memory_get", {"id": cactus}))["memory"]
        assert (successor["status"], successor["superseded_by"]) == ("superseded", ficus)
        assert successor["valid_to"] is not None
        hits = await _search(client, "office plant", key="office.plant", top_k=20)
        assert [h["memory"]["id"] for h in hits] == [ficus]
        # what the store held before the restore is still read as it was
        known_at = before["history"][-1]["at"]  # when it was superseded
        then = await call(client, "memory_get", {"id": ficus, "known_at": known_at})
        assert (then["memory"]["status"], then["memory"]["valid_to"]) == ("superseded", ended)

        # an archived fact whose key was taken meanwhile is a past value of the value written since (the
        # latest stated start holds: new-user trial F5); restoring that one is restoring what is active
        kettle = await _write(client, content="The office kettle is a Bosch", key="office.kettle")
        await drain(poller)
        await call(client, "memory_update", {"id": kettle, "action": "archive"})
        smeg = await _write(client, content="The office kettle is a Smeg", key="office.kettle")
        await drain(poller)
        back = await call(client, "memory_update", {"id": kettle, "action": "restore"})
        assert (back["superseded"], back["memory"]["status"]) == (None, "superseded")
        assert await _active_on(client, "office.kettle", [kettle, smeg]) == {smeg}
        # restoring what is active already changes nothing
        again = await call(client, "memory_update", {"id": smeg, "action": "restore"})
        assert (again["superseded"], again["replaced_version"]) == (None, again["memory"]["version"])


async def test_a_supersedes_link_supersedes_its_target_and_answers_when_it_was_made(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        old = await _write(client, content="The wifi password rotates every month")
        new = await _write(client, content="The wifi password rotates every quarter since March")
        retro = await _write(client, content="Retro is on Fridays")
        await drain(poller)
        linked = await call(
            client, "memory_link", {"from_id": new, "to_id": old, "kind": "supersedes", "reason": "policy"}
        )
        assert linked["created_at"] is not None
        assert linked["superseded"] == [old]
        # the target is superseded as by a write: out of default search, an end, history, superseded_by
        target = await call(client, "memory_get", {"id": old})
        assert target["memory"]["status"] == "superseded"
        assert target["memory"]["superseded_by"] == new
        assert target["memory"]["valid_to"] is not None
        assert [h["action"] for h in target["history"]] == ["created", "superseded"]
        assert old not in [h["memory"]["id"] for h in await _search(client, "wifi password rotates")]
        flagged = await _search(client, "wifi password rotates", status=["active", "superseded"])
        assert next(h for h in flagged if h["memory"]["id"] == old)["flags"] == ["superseded"]
        # the same link again changes nothing and still says when it was made
        again = await call(client, "memory_link", {"from_id": new, "to_id": old, "kind": "supersedes"})
        assert (again["created_at"], again["superseded"]) == (linked["created_at"], None)
        other = await call(client, "memory_link", {"from_id": retro, "to_id": new, "kind": "related"})
        assert other["created_at"] is not None
        assert other["superseded"] is None
        # a memory that is no longer current cannot retire one that is
        with pytest.raises(ToolCallError) as caught:
            await call(client, "memory_link", {"from_id": old, "to_id": retro, "kind": "supersedes"})
        assert caught.value.code == -32602
        assert f"memory {old} is superseded" in str(caught.value)
        assert (await call(client, "memory_get", {"id": retro}))["memory"]["status"] == "active"


async def test_idempotency_key_makes_a_retried_write_one_memory(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str, tenant: str
) -> None:
    async with mcp_client(server.url, token) as client:
        first = await _write(client, content="Invoice 881 was paid", idempotency_key="inv-881-paid")
        again = await _write(client, content="Invoice 881 was paid", idempotency_key="inv-881-paid")
        await drain(poller)
    assert first == again
    assert count_memories(stack, tenant) == 1


async def test_search_counts_accesses_once_per_session(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mid = await _write(client, content="The VPN config lives in the ops wiki")
        await drain(poller)
        await _search(client, "where is the VPN config?")
        await _search(client, "VPN configuration")
        for _ in range(50):  # the counter is bumped just after the answer, off the response path
            memory = (await call(client, "memory_get", {"id": mid}))["memory"]
            if memory["access_count"] >= 1:
                break
        # Two searches within the debounce window are one access; last access is recorded either way.
        assert memory["access_count"] == 1


async def test_another_tenants_ids_are_not_found(
    server: BackgroundServer, poller: SqsPoller, stack: LocalStack, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        mine = await _write(client, content="Secret project codename is Bluebird")
        await drain(poller)
    intruder = await mint(stack, "tenant-intruder")
    async with mcp_client(server.url, intruder) as client:
        own = await _write(client, content="Intruder's own note")
        await drain(poller)
        attempts: list[tuple[str, dict[str, Any]]] = [
            ("memory_get", {"id": mine}),
            ("memory_update", {"id": mine, "action": "update", "content": "hijacked"}),
            ("memory_update", {"id": mine, "action": "archive"}),
            ("memory_update", {"id": mine, "action": "supersede", "content": "hijacked"}),
            ("memory_forget", {"id": mine}),
            ("memory_forget", {"id": mine, "hard": True}),
            ("memory_feedback", {"id": mine, "useful": False}),
            ("memory_recall_chain", {"id": mine}),
            ("memory_link", {"from_id": own, "to_id": mine, "kind": "related"}),
            ("memory_link", {"from_id": mine, "to_id": own, "kind": "caused_by"}),
        ]
        for tool, args in attempts:
            with pytest.raises(ToolCallError) as caught:
                await call(client, tool, args)
            assert caught.value.code == -32002, tool
            assert "Bluebird" not in caught.value.error["message"]
        status = await call(client, "memory_status", {"ids": [mine]})
        assert status["writes"][0]["status"] == "unknown"  # never reveals another tenant's write
    async with mcp_client(server.url, token) as client:
        detail = await call(client, "memory_get", {"id": mine})
    assert detail["memory"]["content"] == "Secret project codename is Bluebird"
    assert detail["memory"]["status"] == "active"
    assert detail["relations"] == []


BAD_CALLS = [
    ("memory_get", {"id": "not-a-uuid"}, "id"),
    ("memory_update", {"id": "00000000-0000-0000-0000-000000000000", "action": "rewrite"}, "action"),
    ("memory_update", {"id": "00000000-0000-0000-0000-000000000000", "action": "update"}, "action"),
    (
        "memory_update",
        {"id": "00000000-0000-0000-0000-000000000000", "action": "update", "importance": 2},
        "importance",
    ),
    ("memory_forget", {"id": "00000000-0000-0000-0000-000000000000", "reason": "x" * 501}, "reason"),
    (
        "memory_link",
        {
            "from_id": "00000000-0000-0000-0000-000000000000",
            "to_id": "00000000-0000-0000-0000-000000000000",
            "kind": "related",
        },
        "to_id",
    ),
    (
        "memory_link",
        {
            "from_id": "00000000-0000-0000-0000-000000000000",
            "to_id": "00000000-0000-0000-0000-000000000001",
            "kind": "likes",
        },
        "kind",
    ),
    ("memory_recall_chain", {"id": "00000000-0000-0000-0000-000000000000", "depth": 11}, "depth"),
    ("memory_feedback", {"id": "00000000-0000-0000-0000-000000000000"}, "useful"),
    ("memory_search", {"query": "x", "time_range": "fortnight ago"}, "time_range"),
    ("memory_search", {"query": "x", "status": ["deleted"]}, "status"),
    ("memory_search", {"query": "x", "status": []}, "status"),  # not silently ["active"] (trial 8)
    ("memory_write", {"content": "x", "key_decisions": ["a", "b", "c", "d"]}, "key_decisions"),
    ("memory_write", {"content": "x", "tags": ["has space"]}, "tags"),
    ("memory_write", {"content": "x", "entities": {"9bad": "x"}}, "entities"),
    ("memory_write", {"content": "x", "causal_parent": "nope"}, "causal_parent"),
    ("memory_status", {"ids": []}, "ids"),
]


@pytest.mark.parametrize(("tool", "args", "field"), BAD_CALLS)
async def test_bad_input_to_every_tool_names_the_field(
    server: BackgroundServer, token: str, tool: str, args: dict[str, Any], field: str
) -> None:
    async with mcp_client(server.url, token) as client:
        with pytest.raises(ToolCallError) as caught:
            await call(client, tool, args)
    assert caught.value.code == -32602
    assert field in caught.value.error["message"]


async def test_the_same_words_in_another_order_are_another_fact_not_a_repeat(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # New-user trial: the embedder puts each pair at cosine ≈ 0.995, and the lexical check compared word
    # sets, so the second statement merged into the first and was stored nowhere.
    pairs = [
        ("Alice reports to Bob", "Bob reports to Alice"),
        ("The flight leaves Berlin for Paris", "The flight leaves Paris for Berlin"),
        (
            "Charged the customer 50 EUR and refunded 20 EUR",
            "Charged the customer 20 EUR and refunded 50 EUR",
        ),
    ]
    async with mcp_client(server.url, token) as client:
        for first, second in pairs:
            first_id = await _write(client, content=first)
            await drain(poller)
            second_id = await _write(client, content=second)
            repeat_id = await _write(client, content=f"{second.lower()}.")
            await drain(poller)
            second_status, repeat_status = (
                await call(client, "memory_status", {"ids": [second_id, repeat_id]})
            )["writes"]
            assert (second_status["status"], second_status["memory_id"]) == ("stored", second_id)
            # a true repeat (case, punctuation) still merges
            assert (repeat_status["status"], repeat_status["memory_id"]) == ("merged", second_id)
            assert (await call(client, "memory_get", {"id": second_id}))["memory"]["content"] == second
            assert (await call(client, "memory_get", {"id": first_id}))["memory"]["status"] == "active"


async def test_a_changed_sign_symbol_or_preposition_is_another_fact_not_a_repeat(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    # New-user re-trial: the lexical check kept only letter/digit runs and dropped prepositions, so each
    # second value, written on the first's key, came back "merged" and the key still held the first.
    pairs = [
        ("Dana's blood type is A+", "Dana's blood type is A-"),
        ("The team's time zone is UTC+2", "The team's time zone is UTC-2"),
        ("Alert when p99 latency > 500 ms", "Alert when p99 latency < 500 ms"),
        ("The spare key is in the mailbox", "The spare key is on the mailbox"),
    ]
    async with mcp_client(server.url, token) as client:
        for n, (first, second) in enumerate(pairs):
            key = f"user.fact_{n}"
            await _write(client, content=first, key=key)
            await drain(poller)
            second_id = await _write(client, content=second, key=key)
            await drain(poller)
            (status,) = (await call(client, "memory_status", {"ids": [second_id]}))["writes"]
            assert (status["status"], status["memory_id"]) == ("stored", second_id), second
            assert (await call(client, "memory_get", {"id": second_id}))["memory"]["content"] == second
        # without a key too
        first_id = await _write(client, content="Alex's exam grade was B+")
        await drain(poller)
        second_id = await _write(client, content="Alex's exam grade was B-")
        await drain(poller)
        (status,) = (await call(client, "memory_status", {"ids": [second_id]}))["writes"]
        assert (status["status"], status["memory_id"]) == ("stored", second_id)
        assert first_id != second_id
