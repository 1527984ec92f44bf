"""memory_summarize through the official MCP client: the offline extractive hint over memories chosen by
query, key, task type or time window (failures first, each fact's current value, only cited ids), its
argument errors, and — with a chat model configured, served by a loopback OpenAI-compatible server — the
model's hint, replaced by the extractive one when the reply cites ids it was not given or is not JSON."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from hindsight.client import call
from hindsight.domain.context_budget import split_sentences
from hindsight.domain.reflection import MAX_REFLECTION_TEMPERATURE
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.integration.test_maintenance import _container, _insert, _step
from tests.support import (
    PROTOCOL_ERAS,
    ChatServer,
    chat_handler,
    drain,
    loopback_http_server,
    mcp_client,
    tool_error,
)

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

FAILED = {
    "content": "Deployed the billing service at 14:00 while customers were paying. The schema migration "
    "locked the invoices table for 9 minutes and checkout timed out.",
    "layer": "episodic",
    "task_type": "modify",
    "outcome": "failure",
    "lessons": "Never run the billing migration during business hours.",
    "occurred_at": "2026-10-05T14:00:00Z",
}
WORKED = {
    "content": "Deployed the billing service at 02:00 with the migration split into batches of 500 rows. "
    "No lock lasted more than a second.",
    "layer": "episodic",
    "task_type": "modify",
    "outcome": "success",
    "lessons": "Split long migrations into batches of 500 rows.",
    "occurred_at": "2026-11-10T02:00:00Z",
}
REPORT = {
    "content": "Compared the billing service's error rates for October and November.",
    "layer": "episodic",
    "task_type": "analyze",
    "outcome": "success",
    "occurred_at": "2026-11-12T09:00:00Z",
}
OLD_WINDOW = {"content": "Billing deploys are allowed on Tuesdays.", "key": "billing.deploy_window"}
NEW_WINDOW = {"content": "Billing deploys are allowed on Thursdays at 02:00.", "key": "billing.deploy_window"}


async def _remember(server: BackgroundServer, token: str, poller: SqsPoller) -> dict[str, str]:
    """Writes the memories (the new deploy window after the old one, so it supersedes it); their ids."""
    ids: dict[str, str] = {}
    async with mcp_client(server.url, token) as client:
        for name, args in [("failed", FAILED), ("worked", WORKED), ("report", REPORT), ("old", OLD_WINDOW)]:
            ids[name] = (await call(client, "memory_write", args))["id"]
        await drain(poller)
        ids["new"] = (await call(client, "memory_write", NEW_WINDOW))["id"]
    await drain(poller)
    return ids


def _drawn_from_cited(hint: dict[str, Any], contents: dict[str, str]) -> None:
    """Every sentence of every line is in a memory the line cites (content or lesson)."""
    for line in hint["lines"]:
        cited = " ".join(contents[i] for i in line["ids"])
        for sentence in split_sentences(line["text"]) + split_sentences(line["lesson"] or ""):
            assert sentence in cited, (sentence, line["ids"])


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_the_offline_hint_says_what_failed_what_worked_and_the_current_facts(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    ids = await _remember(server, token, poller)
    contents = {
        ids[n]: f"{a['content']} {a.get('lessons', '')}"
        for n, a in [("failed", FAILED), ("worked", WORKED), ("report", REPORT), ("new", NEW_WINDOW)]
    }
    async with mcp_client(server.url, token, mode) as client:
        hint = await call(client, "memory_summarize", {"query": "deploying the billing service"})
    assert hint["method"] == "extractive"
    assert ids["old"] not in hint["ids"]  # superseded: not the current value
    kinds = {line["kind"]: line for line in hint["lines"]}
    assert kinds["failed"]["ids"] == [ids["failed"]]
    assert kinds["failed"]["lesson"] == FAILED["lessons"]
    assert kinds["worked"]["ids"] in ([ids["worked"]], [ids["report"]])
    assert kinds["fact"]["key"] == "billing.deploy_window"
    assert kinds["fact"]["text"] == NEW_WINDOW["content"]
    assert hint["lines"][0]["kind"] == "failed"  # what to avoid comes first
    # the episode's given time is named beside its words (trial21 M4)
    assert (
        hint["hint"]
        .splitlines()[0]
        .startswith("- Failed before (2026-10-05T14:00:00+00:00): Deployed the billing service at 14:00")
    )
    assert hint["lines"][0]["occurred_at"] == "2026-10-05T14:00:00Z"
    assert re.search(r"\[\d+\]$", hint["hint"].splitlines()[0])
    assert set(hint["ids"]) <= set(contents)
    _drawn_from_cited(hint, contents)


async def test_memories_are_chosen_by_key_task_type_and_time_window(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    ids = await _remember(server, token, poller)
    async with mcp_client(server.url, token) as client:
        by_key = await call(client, "memory_summarize", {"key": "billing.deploy_window"})
        by_type = await call(client, "memory_summarize", {"task_type": "modify"})
        november = await call(client, "memory_summarize", {"since": "2026-11", "until": "2026-11"})
        october_modify = await call(
            client, "memory_summarize", {"task_type": "modify", "until": "2026-10-31"}
        )
    assert by_key["ids"] == [ids["new"]]
    assert by_key["considered"] == 1  # only the active value is read
    assert [line["kind"] for line in by_type["lines"]] == ["failed", "worked"]
    assert by_type["ids"] == [ids["failed"], ids["worked"]]
    assert set(november["ids"]) == {ids["worked"], ids["report"]}  # November, the whole month
    assert october_modify["ids"] == [ids["failed"]]


async def test_a_summary_without_a_selector_or_with_bad_times_is_refused(
    server: BackgroundServer, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        nothing = await tool_error(client, "memory_summarize", {})
        empty = await tool_error(client, "memory_summarize", {"since": "2026-11-10", "until": "2026-11-01"})
        phrase = await tool_error(client, "memory_summarize", {"since": "yesterday"})
        unix = await tool_error(client, "memory_summarize", {"until": 1700000000})
        too_many = await tool_error(client, "memory_summarize", {"query": "x", "max_memories": 51})
    assert nothing["errors"][0]["field"] == "query"
    assert "at least one of query, key, task_type, since or until" in nothing["message"]
    assert empty["errors"][0]["field"] == "until"
    assert phrase["errors"][0]["field"] == "since"
    assert unix["errors"][0]["field"] == "until"
    assert too_many["errors"][0] == {
        "field": "max_memories",
        "limit": {"le": 50},
        "message": "Input should be less than or equal to 50",
        "type": "less_than_equal",
    }


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    state = ChatServer()
    with loopback_http_server(chat_handler(state)) as state.port:
        yield state


@pytest.fixture
def chat_mcp(stack: LocalStack, chat_server: ChatServer) -> Iterator[BackgroundServer]:
    """The MCP app with the loopback chat model configured (writes still go to the stack's rules worker)."""
    settings = stack.require_settings().replace(
        reflection_provider="openai",
        chat_model="hint-model",
        chat_base_url=chat_server.base_url,
        chat_api_key="sk-test",
        chat_max_retries=0,
    )
    srv = BackgroundServer(settings).start()
    yield srv
    srv.stop()


NOT_GIVEN = "00000000-0000-7000-8000-00000000beef"


def _sent_ids(body: dict[str, Any], outcome: str | None = None) -> list[str]:
    """The ids of the memories a chat request carried (only those with ``outcome`` when given)."""
    memories = json.loads(body["messages"][1]["content"])["memories"]
    return [m["id"] for m in memories if outcome is None or m.get("outcome") == outcome]


async def test_a_configured_chat_model_writes_the_hint_and_bad_replies_fall_back(
    server: BackgroundServer,
    chat_mcp: BackgroundServer,
    chat_server: ChatServer,
    poller: SqsPoller,
    token: str,
) -> None:
    ids = await _remember(server, token, poller)
    args = {"task_type": "modify"}

    def citing(cited: list[str]) -> str:
        line = {"kind": "failed", "key": None, "text": "Daytime billing deploys locked invoices."}
        reply = {"lines": [{**line, "lesson": None, "inferred": False, "ids": cited}]}
        return "Here is the hint:\n```json\n" + json.dumps(reply) + "\n```"  # wrapped: parsed defensively

    async with mcp_client(chat_mcp.url, token) as client:
        chat_server.answer = lambda body: citing(_sent_ids(body, "failure"))  # cites what it was given
        written = await call(client, "memory_summarize", args)
        chat_server.answer = lambda body: citing([NOT_GIVEN])  # an id it was not given
        foreign = await call(client, "memory_summarize", args)
        chat_server.answer = lambda body: "The billing deploys failed; try nights."  # no JSON
        prose = await call(client, "memory_summarize", args)

    assert written["method"] == "model"
    assert written["hint"] == "- Failed before: Daytime billing deploys locked invoices. [1]"
    assert written["ids"] == [ids["failed"]]
    offline = await _offline(server, token, args)
    assert offline["method"] == "extractive"
    assert offline["note"] is None
    for fallback in (foreign, prose):
        assert fallback["note"]
        assert fallback | {"note": None} == offline
    assert "cites 1 id that is not among the memories given" in foreign["note"]
    request = chat_server.requests[0]
    assert request["temperature"] <= MAX_REFLECTION_TEMPERATURE
    assert request["response_format"]["json_schema"]["name"] == "experience_hint"
    assert sorted(_sent_ids(request)) == sorted([ids["failed"], ids["worked"]])
    assert len(chat_server.requests) == 3


async def _offline(server: BackgroundServer, token: str, args: dict[str, Any]) -> dict[str, Any]:
    async with mcp_client(server.url, token) as client:
        return await call(client, "memory_summarize", args)


KYOTO_TURNS = [
    "Mika: We are planning a trip to Kyoto in April, for the cherry blossoms.",
    "Sam: For the Kyoto trip, book the ryokan near Gion two months ahead.",
    "Mika: The Kyoto trip needs a day at Fushimi Inari before the crowds arrive.",
    "Sam: On our Kyoto trip the bullet train from Tokyo took two hours and fifteen minutes.",
]
UNRELATED_FACTS = [
    ("user.drink", "The user drinks oolong tea without sugar."),
    ("user.editor", "The user writes code in Neovim with the default keymap."),
    ("billing.currency", "Invoices are issued in euros."),
    ("team.standup", "The team standup is at 09:30 every weekday."),
    ("infra.region", "Production runs in the eu-west-1 region."),
    ("user.pet", "The user has a cat called Miso."),
    ("ci.runner", "Continuous integration runs on self-hosted runners with 8 cores."),
    ("user.language", "The user prefers answers in British English."),
    ("db.version", "The database is PostgreSQL 16 with pgvector."),
    ("user.birthday", "The user's birthday is on 3 March."),
    ("support.hours", "Customer support answers between 08:00 and 18:00."),
]


async def test_a_query_summary_draws_only_on_the_memories_about_the_query(
    server: BackgroundServer, poller: SqsPoller, reflect_poller: SqsPoller, token: str
) -> None:
    """The trial's store: a conversation about a Kyoto trip among unrelated facts and a failed task. The
    hint is built from the Kyoto turns only (before, the failure and 11 unrelated facts filled its 12
    lines); a query no memory is about gives an empty hint that says so."""
    turns = [
        {"content": c, "layer": "episodic", "conversation_id": "chat-7", "turn_index": i}
        for i, c in enumerate(KYOTO_TURNS)
    ]
    facts = [{"content": c, "key": k} for k, c in UNRELATED_FACTS]
    async with mcp_client(server.url, token) as client:
        written = await call(client, "memory_write_batch", {"items": turns + facts})
        failed = {
            "task_id": "t-1",
            "goal": "Rotate the API keys of the staging cluster",
            "outcome": "failure",
        }
        reflection = await call(client, "task_reflect", failed)
        await drain(poller)
        await drain(reflect_poller)
        recalled = await call(client, "memory_search", {"query": "Kyoto trip", "top_k": 50})
        kyoto = await call(client, "memory_summarize", {"query": "Kyoto trip"})
        physics = await call(client, "memory_summarize", {"query": "quantum chromodynamics lattice gauge"})
        nonsense = await call(
            client, "memory_summarize", {"query": "xylophone quartz zeppelin", "max_memories": 3}
        )
    turn_ids = {r["id"] for r in written["results"][: len(turns)]}
    assert reflection["id"] in [r["memory"]["id"] for r in recalled["results"]]  # recalled, left out
    assert set(kyoto["ids"]) == turn_ids
    assert [line["kind"] for line in kyoto["lines"]] == ["event"] * len(turns)
    assert kyoto["considered"] == len(turns)
    left_out = recalled["count"] - len(turns)
    assert left_out > 0
    assert kyoto["note"] == (
        "1 recalled memory was left out: it shares no word or entity with the query"
        if left_out == 1
        else f"{left_out} recalled memories were left out: they share no word or entity with the query"
    )
    assert (physics["hint"], physics["ids"], physics["considered"]) == ("", [], 0)
    assert physics["note"].startswith("no memory matched the query: the ")
    assert nonsense["ids"] == []
    assert nonsense["note"] == "no memory matched the query: the 3 recalled share no word or entity with it"


async def test_facts_kept_as_a_conflict_are_both_shown_and_labelled(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """The new-user trial: the user stated "Dana's manager is Priya", an agent inferred "… Oscar" (kept
    beside it, both flagged possible_conflict in search); the key's hint showed only the inference."""
    async with mcp_client(server.url, token) as client:
        stated = (
            await call(client, "memory_write", {"content": "Dana's manager is Priya", "key": "dana.manager"})
        )["id"]
        await drain(poller)
        inferred = (
            await call(
                client,
                "memory_write",
                {"content": "Dana's manager is Oscar", "key": "dana.manager", "source": "agent_inferred"},
            )
        )["id"]
        await drain(poller)
        blue = (await call(client, "memory_write", {"content": "The user's favourite colour is blue."}))["id"]
        await drain(poller)
        green = (
            await call(
                client,
                "memory_write",
                {"content": "The user's favourite colour is green.", "source": "agent_inferred"},
            )
        )["id"]
        await drain(poller)
        search = await call(client, "memory_search", {"query": "Dana's manager", "key": "dana.manager"})
        assert all("possible_conflict" in h["flags"] for h in search["results"])
        keyed = await call(client, "memory_summarize", {"key": "dana.manager"})
        keyless = await call(client, "memory_summarize", {"query": "favourite colour"})
    lines = keyed["lines"]
    assert [line["ids"] for line in lines] == [[stated], [inferred]]  # the user's own statement first
    assert all(line["possible_conflict"] for line in lines)
    assert (
        keyed["hint"]
        .splitlines()[0]
        .startswith("- Fact dana.manager (possible conflict: another active fact says otherwise")
    )
    assert "Dana's manager is Priya" in keyed["hint"].splitlines()[0]
    colour = {line["ids"][0]: line for line in keyless["lines"] if line["kind"] == "fact"}
    assert set(colour) == {blue, green}
    assert all(line["possible_conflict"] for line in colour.values())
    assert keyless["hint"].count("(possible conflict:") == 2


async def test_a_key_whose_fact_was_archived_says_so_in_the_note(
    stack: LocalStack, server: BackgroundServer, tenant: str, token: str
) -> None:
    """The new-user trial: a user's keyed fact archived by decay gave hint "" and note null, as if nothing
    were known about the key."""
    long_ago = datetime.now(UTC) - timedelta(days=400)
    async with _container(stack) as c:
        fact = await _insert(
            c,
            tenant,
            "Alex is allergic to peanuts",
            created_at=long_ago,
            layer="semantic",
            key="alex.allergies",
        )
        assert c.maintain is not None
        assert _step(await c.maintain.run(tenant_id=tenant), "decay")["archived"] == 1
    async with mcp_client(server.url, token) as client:
        summary = await call(client, "memory_summarize", {"key": "alex.allergies"})
        nothing = await call(client, "memory_summarize", {"key": "alex.birthday"})
    assert summary["hint"] == ""
    assert summary["note"] is not None
    assert "alex.allergies" in summary["note"]
    assert f"1 archived one does ({fact})" in summary["note"]
    assert 'memory_search status ["archived"] or memory_get' in summary["note"]
    assert nothing["note"] is None  # a key nothing ever held: nothing to say
