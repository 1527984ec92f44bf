"""A repeat write that merges keeps what it carries (new-user trial F4): its entities and tags join the
memory, another value of an entity type keeps the write apart, its differing metadata and time are named,
and the caller reads what happened in the write's reason and the memory's history — through the official
MCP client over HTTP, the worker (batch path and single-job path) and Postgres."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from hindsight.client import ToolCallError, call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
CAR = "Lee drives a red car"


async def _write(client: Client, **args: Any) -> str:
    return str((await call(client, "memory_write", args))["id"])


async def _status(client: Client, write: str) -> dict[str, Any]:
    (status,) = (await call(client, "memory_status", {"ids": [write]}))["writes"]
    return dict(status)


async def _found(client: Client, **filters: Any) -> list[str]:
    hits = (await call(client, "memory_search", {"query": "what car", **filters}))["results"]
    return [h["memory"]["id"] for h in hits]


async def test_a_repeat_adds_its_entities_and_tags_and_says_what_it_added(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        first = await _write(client, content=CAR)
        await drain(poller)
        repeat = await _write(
            client,
            content=CAR,
            entities={"person": "Lee"},
            tags=["vehicles"],
            metadata={"source_doc": "crm-17"},
        )
        await drain(poller)
        status = await _status(client, repeat)
        assert (status["status"], status["memory_id"]) == ("merged", first)
        assert status["reason"] == (
            f"repeat of {first}: added entities person; added tags vehicles; added metadata source_doc"
        )
        detail = await call(client, "memory_get", {"id": first, "include_history": True})
        memory = detail["memory"]
        assert (memory["entities"], memory["tags"]) == ({"person": "Lee"}, ["vehicles"])
        assert memory["metadata"] == {"source_doc": "crm-17"}
        merged = detail["history"][-1]
        assert merged["action"] == "merged"
        assert merged["changes"]["added"] == {
            "entities": {"person": "Lee"},
            "tags": ["vehicles"],
            "metadata": {"source_doc": "crm-17"},
        }
        assert await _found(client, entities={"person": "Lee"}) == [first]
        assert await _found(client, tags=["vehicles"]) == [first]

        # a near-duplicate (cosine < 1), through the single-job path (a causal parent takes it there)
        near = await _write(
            client, content="lee drives a red car.", tags=["vehicles", "cars"], causal_parent=first
        )
        await drain(poller)
        status = await _status(client, near)
        assert (status["status"], status["memory_id"]) == ("merged", first)
        assert status["reason"] == f"repeat of {first}: added tags cars"
        detail = await call(client, "memory_get", {"id": first, "include_history": True})
        assert detail["memory"]["tags"] == ["vehicles", "cars"]
        assert detail["history"][-1]["changes"]["similarity"] < 1
        assert await _found(client, tags=["cars"]) == [first]


async def test_another_value_of_an_entity_type_is_stored_apart_and_says_why(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        lee = await _write(client, content=CAR, entities={"person": "Lee"})
        await drain(poller)
        ana = await _write(client, content="lee drives a red car", entities={"person": "Ana"})
        await drain(poller)
        status = await _status(client, ana)
        assert (status["status"], status["memory_id"]) == ("stored", ana)
        assert status["reason"].startswith(f'not merged into {lee} (same words): its entity person is "Lee"')
        assert (await call(client, "memory_get", {"id": lee}))["memory"]["entities"] == {"person": "Lee"}
        assert await _found(client, entities={"person": "Ana"}) == [ana]
        # a later repeat naming Ana merges into the memory that names her, not into Lee's
        again = await _write(client, content=CAR, entities={"person": "Ana"})
        await drain(poller)
        assert (await _status(client, again))["memory_id"] == ana
        # a value the memory holds among its list adds nothing and merges
        both = await _write(
            client, content="Kim and Joe share a blue van", entities={"person": ["Kim", "Joe"]}
        )
        await drain(poller)
        joe = await _write(client, content="Kim and Joe share a blue van", entities={"person": "Joe"})
        await drain(poller)
        status = await _status(client, joe)
        assert (status["status"], status["memory_id"], status["reason"]) == ("merged", both, None)


async def test_a_repeats_differing_metadata_and_time_are_named_not_silently_dropped(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        fact = await _write(
            client,
            content="The warehouse code is W-17",
            metadata={"source_doc": "crm-1"},
            occurred_at="2026-03-01",
        )
        await drain(poller)
        repeat = await _write(
            client,
            content="The warehouse code is W-17",
            metadata={"source_doc": "crm-2"},
            occurred_at="2026-11-20",
        )
        await drain(poller)
        status = await _status(client, repeat)
        assert (status["status"], status["memory_id"]) == ("merged", fact)
        assert "kept its own metadata source_doc" in status["reason"]
        assert "kept its own occurred_at (this write's, 2026-11-20T00:00:00+00:00" in status["reason"]
        detail = await call(client, "memory_get", {"id": fact, "include_history": True})
        assert detail["memory"]["metadata"] == {"source_doc": "crm-1"}
        assert detail["memory"]["occurred_at"].startswith("2026-03-01")
        assert detail["history"][-1]["changes"]["not_taken"] == {
            "metadata": {"source_doc": "crm-2"},
            "occurred_at": "2026-11-20T00:00:00+00:00",
        }
        # an episodic repeat at another time is another event: its own memory
        day1 = await _write(
            client, layer="episodic", content="The nightly backup failed", occurred_at="2026-11-01"
        )
        await drain(poller)
        day2 = await _write(
            client, layer="episodic", content="The nightly backup failed", occurred_at="2026-11-02"
        )
        await drain(poller)
        assert (await _status(client, day2))["status"] == "stored"
        assert day1 != day2


async def test_a_repeat_that_shares_the_memory_wider_says_so(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """A merge that only widened ``shared_with`` answered reason null: the caller could not tell that the
    memory it merged into is now readable by more agents."""
    async with mcp_client(server.url, token) as client:
        first = await _write(client, content=CAR)
        await drain(poller)
        repeat = await _write(client, content=CAR, shared_with=["planner"])
        await drain(poller)
        status = await _status(client, repeat)
        assert (status["status"], status["reason"]) == (
            "merged",
            f"repeat of {first}: added shared_with planner",
        )
        detail = await call(client, "memory_get", {"id": first, "include_history": True})
        assert detail["memory"]["shared_with"] == ["planner"]
        assert detail["history"][-1]["changes"]["added"] == {"shared_with": ["planner"]}
        # the single-job path says the same; an agent it is already shared with adds nothing
        near = await _write(client, content=CAR, shared_with=["planner", "*"], causal_parent=first)
        await drain(poller)
        assert (await _status(client, near))["reason"] == f"repeat of {first}: added shared_with *"
        again = await _write(client, content=CAR, shared_with=["planner"])
        await drain(poller)
        assert (await _status(client, again))["reason"] is None


async def test_repeats_in_one_write_batch_keep_what_they_carry(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        answer = await call(
            client,
            "memory_write_batch",
            {
                "items": [
                    {"content": CAR},
                    {"content": CAR, "entities": {"person": "Lee"}},
                    {"content": CAR, "entities": {"person": "Ana"}},  # after Lee's merge: apart
                    {"content": CAR, "entities": {"person": "Lee"}, "tags": ["vehicles"]},
                ]
            },
        )
        ids = [r["id"] for r in answer["results"]]
        await drain(poller)
        statuses = (await call(client, "memory_status", {"ids": ids}))["writes"]
        outcomes = [(s["status"], s["memory_id"]) for s in statuses]
        assert outcomes == [("stored", ids[0]), ("merged", ids[0]), ("stored", ids[2]), ("merged", ids[0])]
        memory = (await call(client, "memory_get", {"id": ids[0]}))["memory"]
        assert (memory["entities"], memory["tags"]) == ({"person": "Lee"}, ["vehicles"])
        ana = (await call(client, "memory_get", {"id": ids[2]}))["memory"]
        assert ana["entities"] == {"person": "Ana"}
        assert await _found(client, entities={"person": "Ana"}) == [ids[2]]


async def test_a_malformed_id_is_refused_without_echoing_it(server: BackgroundServer, token: str) -> None:
    async with mcp_client(server.url, token) as client:
        with pytest.raises(ToolCallError) as refused:
            await call(client, "memory_get", {"id": "not-a-uuid"})
    message = refused.value.error["message"]
    assert message == (
        "Invalid arguments: id: must be a UUID string, like '0193a5c2-7d1e-7f3a-9b2c-4d5e6f708192'"
    )
