"""Dates and a key's timeline: leftovers of the new-user trials that left memories silently wrong, end to
end through the MCP client, the SQS emulator, the worker and Postgres (the conflict judge: the worker's
store with the real writer and a loopback chat-completions server).

- A supersede by words that state only a past state ("The user lived in Rome" for "The user lives in
  Paris"), or such a keyed write while a value of now holds the key, is refused naming ``content``: it
  would retire the fact of now with no date; with no key, a contradiction the rules find between the two
  is only a possible conflict (both kept, flagged).
- A dated past state as the first value of a key ("In 2019 the user lived in Oslo") is given the period
  its words name, not held from the write on as the key's value of now.
- A contradiction the judge confirms is ordered by when the new fact's words were said when the date read
  from them may not make it a past value ("moved to Berlin last month" after "lives in Lisbon" from the
  15th of last month is the newer fact), as the write path orders a contradiction the rules found.
- ``session_at`` written with a UTC offset or in UTC names one instant: a replay with the other form is
  the same write.
- "since" meaning "because" does not make a keyed past-tense sentence refused as an undated past state.
- A ``time_range`` whose N is not read ("forty-two", "zero", fullwidth digits) is refused naming it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hindsight.adapters.reflection.openai_chat import OpenAIChatConflictJudge, OpenAIChatModel
from hindsight.bootstrap import build_container
from hindsight.client import ToolCallError, call
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.store_memories import StoreMemories
from tests.support import ChatServer, Reply, chat_handler, drain, loopback_http_server, mcp_client

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _memory(client: Any, memory_id: str) -> dict[str, Any]:
    return dict((await call(client, "memory_get", {"id": memory_id}))["memory"])


async def _held(client: Any, key: str, valid_at: str) -> list[str]:
    args = {"query": "where does the user live", "key": key, "valid_at": valid_at}
    return [h["memory"]["id"] for h in (await call(client, "memory_search", args))["results"]]


async def _refusal(client: Any, tool: str, arguments: dict[str, Any]) -> str:
    with pytest.raises(ToolCallError) as caught:
        await call(client, tool, arguments)
    assert caught.value.code == -32602, caught.value.error
    return str(caught.value.error["message"])


async def test_a_supersede_by_an_undated_past_state_is_refused(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        paris = str((await call(client, "memory_write", {"content": "The user lives in Paris"}))["id"])
        acme = await call(client, "memory_write", {"content": "The user works at Acme", "key": "user.job"})
        await drain(poller)
        for old, content, words in (
            (paris, "The user lived in Rome", "lived"),
            (str(acme["id"]), "The user's employer was Globex", "was"),
        ):
            message = await _refusal(
                client, "memory_update", {"id": old, "action": "supersede", "content": content}
            )
            assert "content: the new words state a past state" in message, message
            assert f"({words!r})" in message, message
            assert "Give occurred_at" in message, message
            assert (await _memory(client, old))["status"] == "active"
        # a keyed write of such words takes its key as of now: refused while a value of now holds it
        message = await _refusal(
            client, "memory_write", {"content": "The user worked at Globex", "key": "user.job"}
        )
        assert "content: the words state a past state ('worked') with no date read" in message, message
        assert (await _memory(client, str(acme["id"])))["status"] == "active"
        # with no key, a contradiction the rules find is only a possible conflict: both kept, flagged
        porto = await call(client, "memory_write", {"content": "The user's home city is Porto"})
        await drain(poller)
        braga = await call(client, "memory_write", {"content": "The user's home city was Braga"})
        await drain(poller)
        assert (await _memory(client, str(porto["id"])))["status"] == "active"
        (status,) = (await call(client, "memory_status", {"ids": [str(braga["id"])]}))["writes"]
        assert f"possible conflict with {porto['id']} (the new fact states a past state" in status["reason"]
        hits = await call(client, "memory_search", {"query": "the user's home city"})
        flagged = {h["memory"]["id"] for h in hits["results"] if "possible_conflict" in h["flags"]}
        assert {str(porto["id"]), str(braga["id"])} <= flagged, hits
        # a state change in a passive past, a past state correcting a past state, a dated one: superseded
        order = await call(client, "memory_write", {"content": "The order is pending"})
        born = await call(client, "memory_write", {"content": "The user was born in Lyon"})
        await drain(poller)
        for old, content, extra in (
            (str(order["id"]), "The order was shipped", {}),
            (str(born["id"]), "The user was born in Lille", {}),
            (paris, "The user lived in Rome", {"occurred_at": "2019"}),
        ):
            await call(
                client, "memory_update", {"id": old, "action": "supersede", "content": content, **extra}
            )
            await drain(poller)
            assert (await _memory(client, old))["status"] == "superseded", content
        # on a key: a past state after a past state, and a first value, take the key as before
        lyon = await call(
            client, "memory_write", {"content": "The user was born in Lyon", "key": "user.birthplace"}
        )
        await drain(poller)
        nice = await call(
            client, "memory_write", {"content": "The user was born in Nice", "key": "user.birthplace"}
        )
        first = await call(client, "memory_write", {"content": "The user lived in Milan", "key": "user.city"})
        await drain(poller)
        assert (await _memory(client, str(lyon["id"])))["status"] == "superseded"
        assert (await _memory(client, str(nice["id"])))["status"] == "active"
        assert (await _memory(client, str(first["id"])))["status"] == "active"


async def test_a_dated_past_state_as_a_keys_first_value_holds_only_its_period(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for n, (content, start, end, words) in enumerate(
            (
                ("In 2019 the user lived in Oslo", "2019-01-01", "2020-01-01", "2019"),
                ("The user lived in Lyon from 2015 to 2019", "2015-01-01", "2020-01-01", "2015 to 2019"),
            )
        ):
            key = f"user.city.first{n}"
            ack = await call(client, "memory_write", {"content": content, "key": key})
            await drain(poller)
            got = await _memory(client, str(ack["id"]))
            assert (got["valid_from"], got["valid_to"]) == (f"{start}T00:00:00Z", f"{end}T00:00:00Z"), got
            (status,) = (await call(client, "memory_status", {"ids": [str(ack["id"])]}))["writes"]
            assert status["reason"].startswith(f"period {start} to {end} read from its words ({words})"), (
                status
            )
            assert await _held(client, key, datetime.now(UTC).isoformat()) == []
            assert await _held(client, key, "2019-06-01T00:00:00Z") == [str(ack["id"])]
            # the value of now written after it takes the key; the past state keeps its period
            rome = await call(client, "memory_write", {"content": "The user lives in Rome", "key": key})
            await drain(poller)
            assert await _held(client, key, datetime.now(UTC).isoformat()) == [str(rome["id"])]
            assert (await _memory(client, str(ack["id"])))["valid_to"] == f"{end}T00:00:00Z"


@pytest.fixture
def judge() -> Iterator[ChatServer]:
    server = ChatServer(script=[Reply(content=json.dumps({"relation": "contradiction"}))])
    with loopback_http_server(chat_handler(server)) as server.port:
        yield server


async def test_a_judged_contradiction_orders_a_date_read_from_the_words_as_the_write_path_does(
    stack: LocalStack, tenant: str, judge: ChatServer
) -> None:
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        chat = OpenAIChatModel(model="judge", base_url=judge.base_url, api_key="k", max_retries=0)
        store = StoreMemories(
            container.writer, container.embedder, 0.95, conflict_judge=OpenAIChatConflictJudge(chat)
        )
        now = datetime.now(UTC)
        this_month = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        mid_last_month = (this_month - timedelta(days=1)).replace(day=15)

        def job(content: str, **fields: Any) -> WriteJob:
            draft = MemoryDraft(content=content, **fields)
            return WriteJob(
                id=uuid.uuid4(), tenant_id=tenant, agent_id="default", submitted_at=now, draft=draft
            )

        lisbon = job("The user lives in Lisbon.", occurred_at=mid_last_month)
        berlin = job("The user moved to Berlin last month.")  # the rules are unsure: the judge is asked
        for one in (lisbon, berlin):
            (result,) = await store([one])
            assert result.outcome == "stored", result
        assert len(judge.requests) == 1
        got = {m.id: m for m in await container.reader.get_many(lisbon.scope, [lisbon.id, berlin.id])}
        # "last month" ends after Lisbon began: it may not make Berlin a past value — Berlin holds from
        # when it was said and supersedes Lisbon there
        assert (got[lisbon.id].status, got[berlin.id].status) == ("superseded", "active")
        assert got[berlin.id].valid_from == now, got[berlin.id]
        assert got[lisbon.id].valid_to == now, got[lisbon.id]
        inferred = got[berlin.id].occurred_at  # "last month" stays what search's time filters read
        assert inferred is not None
        assert inferred < mid_last_month
    finally:
        await container.aclose()


async def test_a_replay_with_session_at_in_another_offset_form_is_the_same_write(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        turn = {"content": "Mia: I adopted a cat", "layer": "episodic", "conversation_id": "chat-7"}
        first = await call(
            client,
            "memory_write",
            {**turn, "session_at": "2026-03-01T10:00:00+02:00", "idempotency_key": "turn-1"},
        )
        again = await call(
            client,
            "memory_write",
            {**turn, "session_at": "2026-03-01T08:00:00Z", "idempotency_key": "turn-1"},
        )
        assert (again["id"], again.get("replayed")) == (first["id"], True), again
        # the same instant on another local day: its relative words name another day, another write
        said = {**turn, "content": "Mia: yesterday I adopted a cat", "idempotency_key": "turn-2"}
        await call(client, "memory_write", {**said, "session_at": "2026-03-01T01:00:00+02:00"})
        message = await _refusal(client, "memory_write", {**said, "session_at": "2026-02-28T23:00:00Z"})
        assert "idempotency_key: " in message, message
        await drain(poller)
        (stored,) = (await call(client, "memory_status", {"ids": [str(first["id"])]}))["writes"]
        assert stored["status"] == "stored", stored


async def test_since_meaning_because_is_no_undated_past_state(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for n, content in enumerate(
            (
                "The user lived in Lyon, since the rent there was low",
                "The user lived in Lyon since it was close to work",
            )
        ):
            ack = await call(client, "memory_write", {"content": content, "key": f"user.city.because{n}"})
            await drain(poller)
            assert (await _memory(client, str(ack["id"])))["status"] == "active"
        for content in (
            "The user lived in Lyon since childhood",
            "The user lived in Lyon since he was a kid",
        ):
            message = await _refusal(client, "memory_write", {"content": content, "key": "user.city.since"})
            assert "no date read ('since')" in message, message


async def test_a_time_range_whose_count_is_not_read_is_refused_naming_it(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for phrase, count in (
            ("past forty-two days", "forty-two"),
            ("zero days ago", "zero"),
            ("past \uff13 days", "\uff13"),
        ):
            message = await _refusal(client, "memory_search", {"query": "cat", "time_range": phrase})
            assert "time_range: " in message, message
            assert f"is not read from {count!r}" in message, message
            assert "ASCII digits" in message, message
