"""Tenant and agent isolation through every tool: an intruder holding the victim's ids, keys, session
ids, task ids and the filters only the victim uses tries each registered tool, and nothing of the
victim leaks — no content, no id the intruder did not already hold — and the victim's data is unchanged.

Two intruders: a key of another tenant, and a key of the victim's own tenant limited to another agent
(each probe is also tried naming the victim's agent and the victim tenant's other agent). The suite is
exhaustive over ``tools/list``: a registered tool without an isolation case fails it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import drain, mcp_client, mint

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SESSION = "victim-session"
TASK = "victim-task-1"
IDEMPOTENCY_KEY = "victim-idem-1"
# Words that appear only in the victim's data: none may appear in anything an intruder gets back.
SECRETS = {
    "fact": "Bluebird-7",
    "chain": "Quetzal",
    "idem": "Narwhal-5",
    "pending": "Axolotl-3",
    "reflection": "Pangolin-9",
    "working": "Okapi-4",
    "ops": "Tapir-8",
    "shared": "Quokka-22",
}
NOT_FOUND, FORBIDDEN = -32002, -32003


@dataclass
class World:
    """The victim's tenant, its memories (by name → id) and the intruders' tokens."""

    server: BackgroundServer
    stack: LocalStack
    tenant: str
    token: str
    ops_token: str = ""
    ids: dict[str, str] = field(default_factory=dict)
    snapshot: dict[str, Any] = field(default_factory=dict)

    def secrets_for(self, intruder: str) -> list[str]:
        # A memory shared with every agent ('*') is meant to be read by the victim tenant's other agents.
        shared_ok = intruder == "other_agent"
        return [word for name, word in SECRETS.items() if not (shared_ok and name == "shared")]

    def ids_for(self, intruder: str) -> dict[str, str]:
        return {k: v for k, v in self.ids.items() if not (intruder == "other_agent" and k == "shared")}


async def _write(client: Client, **args: Any) -> str:
    return str((await call(client, "memory_write", args))["id"])


async def _snapshot(world: World) -> dict[str, Any]:
    """What the victim sees of its own data (access counters left out: searching bumps them)."""
    out: dict[str, Any] = {}
    async with mcp_client(world.server.url, world.token) as client:
        for name in ("fact", "shared", "a", "b", "c", "idem", "reflection"):
            detail = await call(client, "memory_get", {"id": world.ids[name]})
            memory = {k: v for k, v in detail["memory"].items() if k not in ("access_count",)}
            out[name] = {"memory": memory, "relations": detail["relations"], "history": detail["history"]}
        chain = await call(client, "memory_recall_chain", {"id": world.ids["a"], "depth": 10})
        out["chain"] = [(s["step"], s["memory"]["id"]) for s in chain["chain"]]
        session = await call(client, "working_memory_get", {"session_id": SESSION})
        out["session"] = [(i["key"], i["content"], i["core"]) for i in session["items"]]
        hits = await call(client, "memory_search", {"query": "Bluebird launch code", "top_k": 100})
        # its own memories only: what other agents of the tenant share with it may legitimately grow
        own = set(world.ids.values()) - {world.ids.get("pending")}  # pending: stored by some later drain
        out["search"] = sorted(h["memory"]["id"] for h in hits["results"] if h["memory"]["id"] in own)
    async with mcp_client(world.server.url, world.ops_token) as client:
        detail = await call(client, "memory_get", {"id": world.ids["ops"]})
        out["ops"] = detail["memory"]["content"]
    return out


@pytest.fixture(scope="module")
async def world(
    server: BackgroundServer, poller: SqsPoller, reflect_poller: SqsPoller, stack: LocalStack
) -> World:
    tenant = f"victim-{uuid.uuid4().hex[:10]}"
    w = World(server=server, stack=stack, tenant=tenant, token=await mint(stack, tenant))
    ops_token = await mint(stack, tenant, agent_ids=["ops"])
    async with mcp_client(server.url, w.token) as client:
        w.ids["fact"] = await _write(
            client,
            content="The Bluebird-7 launch code is 4471",
            key="victim.secret",
            tags=["victim-tag"],
            entities={"victim_order": "V-999"},
            importance=0.8,
        )
        w.ids["shared"] = await _write(
            client, content="Team note Quokka-22 for every agent", shared_with=["*"]
        )
        w.ids["a"] = await _write(client, content="Quetzal outage began", layer="episodic", outcome="failure")
        w.ids["idem"] = await _write(client, content="Idempotent Narwhal-5", idempotency_key=IDEMPOTENCY_KEY)
        await drain(poller)
        w.ids["b"] = await _write(
            client, content="Quetzal rollback started", layer="episodic", causal_parent=w.ids["a"]
        )
        await drain(poller)
        w.ids["c"] = await _write(
            client, content="Quetzal recovered", layer="episodic", causal_parent=w.ids["b"]
        )
        await drain(poller)
        await call(client, "memory_link", {"from_id": w.ids["a"], "to_id": w.ids["fact"], "kind": "related"})
        ack = await call(
            client,
            "task_reflect",
            {"task_id": TASK, "goal": "Migrate the Pangolin-9 database", "outcome": "success",
             "steps": ["dumped Pangolin-9", "restored it"]},
        )  # fmt: skip
        w.ids["reflection"] = str(ack["id"])
        await drain(reflect_poller)
        await drain(poller)
        await call(
            client, "working_memory_set", {"session_id": SESSION, "key": "plan", "content": "Okapi-4 rollout"}
        )
    async with mcp_client(server.url, ops_token) as client:
        w.ids["ops"] = await _write(client, content="Ops private Tapir-8 runbook")
        await drain(poller)
        await call(
            client, "working_memory_set", {"session_id": SESSION, "key": "plan", "content": "Tapir-8 on-call"}
        )
    w.ops_token = ops_token
    async with mcp_client(server.url, w.token) as client:
        # Accepted and not stored yet when the probes start (a later drain may store it: either way).
        w.ids["pending"] = await _write(client, content="Pending Axolotl-3 note")
    w.snapshot = await _snapshot(w)
    return w


# ---- the probes, per tool -------------------------------------------------------------------------

Probe = dict[str, Any]
BY_ID = {
    "memory_get",
    "memory_update",
    "memory_forget",
    "memory_link",
    "memory_recall_chain",
    "memory_feedback",
    "working_memory_promote",
}
"""Tools that must answer an intruder's probe with an error (not found; forbidden for a foreign agent)."""


def _memory_ids(w: World, intruder: str) -> list[str]:
    ids = w.ids_for(intruder)
    return [
        ids[k] for k in ("fact", "shared", "a", "b", "c", "idem", "reflection", "ops", "pending") if k in ids
    ]


CASES: dict[str, Callable[[World, str], list[Probe]]] = {
    "memory_write": lambda w, i: [
        {"content": "An intruder's event", "layer": "episodic", "causal_parent": w.ids["a"]},
        {"content": "An intruder's fact on the victim's key", "key": "victim.secret"},
        {"content": "An intruder's retry", "idempotency_key": IDEMPOTENCY_KEY},
        {"content": "An intruder's shared note", "shared_with": ["*", "default", "ops"]},
    ],
    "memory_write_batch": lambda w, i: [
        {
            "items": [
                {"content": "An intruder's batched event", "layer": "episodic", "causal_parent": w.ids["a"]},
                {"content": "An intruder's batched fact on the victim's key", "key": "victim.secret"},
                {"content": "An intruder's retry", "idempotency_key": IDEMPOTENCY_KEY},
                {"content": "An intruder's batched shared note", "shared_with": ["*", "default", "ops"]},
            ]
        },
    ],
    "memory_search": lambda w, i: [
        {
            "query": "Bluebird-7 launch code",
            "top_k": 100,
            "status": ["active", "superseded", "archived", "forgotten"],
            "include_related": True,
        },
        {"query": "launch code", "key": "victim.secret"},
        {"query": "anything", "tags": ["victim-tag"]},
        {"query": "order V-999", "entities": {"victim_order": "V-999"}},
        {
            "query": "Quetzal outage rollback recovered",
            "layer": "episodic",
            "time_range": "today",
            "include_related": True,
        },
        {"query": "Tapir-8 runbook Quokka-22 Narwhal-5 Axolotl-3 Pangolin-9", "top_k": 100},
    ],
    "memory_summarize": lambda w, i: [
        {"query": "Bluebird-7 launch code", "max_memories": 50},
        {"key": "victim.secret"},
        {"query": "Quetzal outage rollback recovered", "since": "2000", "until": "2100"},
        {"task_type": "other", "since": "2000"},
    ],
    "memory_status": lambda w, i: [{"ids": _memory_ids(w, i)}],
    "memory_get": lambda w, i: [{"id": m} for m in _memory_ids(w, i)],
    "memory_update": lambda w, i: [
        {"id": w.ids["fact"], "action": "update", "content": "hijacked", "reason": "intrusion"},
        {"id": w.ids["fact"], "action": "update", "shared_with": ["*"]},
        {"id": w.ids["fact"], "action": "supersede", "content": "hijacked"},
        {"id": w.ids["fact"], "action": "archive"},
        {"id": w.ids["c"], "action": "restore"},
        {"id": w.ids["ops"], "action": "update", "importance": 0.0},
    ],
    "memory_forget": lambda w, i: [
        {"id": w.ids["fact"]},
        {"id": w.ids["a"], "hard": True},
        {"id": w.ids["ops"], "hard": True},
    ],
    "memory_link": lambda w, i: [
        {"from_id": w.ids["a"], "to_id": w.ids["c"], "kind": "caused_by"},
        {"from_id": w.ids["fact"], "to_id": w.ids["ops"], "kind": "related"},
        {"from_id": w.ids["idem"], "to_id": w.ids["b"], "kind": "contradicts"},
    ],
    "memory_recall_chain": lambda w, i: [
        {"id": w.ids["b"], "depth": 10, "direction": "both"},
        {"id": w.ids["a"], "direction": "effects"},
        {"id": w.ids["ops"]},
    ],
    "memory_feedback": lambda w, i: [
        {"id": w.ids["fact"], "useful": False},
        {"id": w.ids["ops"], "useful": True},
    ],
    "task_reflect": lambda w, i: [
        {"task_id": TASK, "goal": "An intruder's goal", "outcome": "failure", "error": "boom"},
    ],
    "working_memory_get": lambda w, i: [
        {"session_id": SESSION},
        {"session_id": SESSION, "key": "plan"},
    ],
    "working_memory_set": lambda w, i: [
        {"session_id": SESSION, "key": "intruder-note", "content": "an intruder's note", "core": True},
    ],
    "working_memory_clear": lambda w, i: [
        {"session_id": SESSION, "key": "plan"},
        {"session_id": SESSION},
    ],
    "working_memory_promote": lambda w, i: [
        {"session_id": SESSION, "key": "plan", "keep": False},
    ],
}


async def _attempt(client: Client, tool: str, args: Probe) -> dict[str, Any]:
    try:
        result = await client.call_tool(tool, args)
    except MCPError as exc:  # a protocol error (none expected): still checked for leaks
        return {"error": {"code": exc.code, "message": exc.message, "data": exc.data}}
    content = [c.model_dump() for c in result.content]
    if result.is_error:  # the model reads the text content: it is checked for leaks with the rest
        assert isinstance(result.structured_content, dict), content  # a crash has no structured error
        return {"error": result.structured_content["error"], "content": content}
    return {"result": result.structured_content, "content": content}


def _assert_no_leak(world: World, intruder: str, tool: str, probe: Probe, outcome: dict[str, Any]) -> None:
    text = json.dumps(outcome, default=str)
    asked = json.dumps(probe)
    for word in world.secrets_for(intruder):
        assert word not in text, f"{tool} {probe} leaked {word!r}: {text[:500]}"
    for name, memory_id in world.ids_for(intruder).items():
        if memory_id not in asked:  # an id the intruder sent may be echoed ("memory … not found")
            assert memory_id not in text, f"{tool} {probe} leaked the id of {name}: {text[:500]}"


def _variants(intruder: str, probe: Probe) -> list[tuple[Probe, set[int] | None]]:
    """The probe as is, naming the victim's agent, and naming the victim tenant's other agent; with the
    errors each may end in (None: any outcome, as long as nothing leaks)."""
    limited = intruder == "other_agent"  # its key may act only for agent "spy"
    return [
        (probe, None),
        ({**probe, "agent_id": "default"}, {FORBIDDEN} if limited else None),
        ({**probe, "agent_id": "ops"}, {FORBIDDEN} if limited else None),
    ]


@pytest.fixture(scope="module")
async def intruders(world: World) -> dict[str, str]:
    return {
        "other_tenant": await mint(world.stack, f"intruder-{uuid.uuid4().hex[:10]}"),
        "other_agent": await mint(world.stack, world.tenant, agent_ids=["spy"]),
    }


async def test_every_registered_tool_has_an_isolation_case(server: BackgroundServer, world: World) -> None:
    async with mcp_client(server.url, world.token) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
    assert tools == set(CASES), (
        f"tools without an isolation case: {sorted(tools - set(CASES))}; "
        f"cases for tools that are gone: {sorted(set(CASES) - tools)}"
    )


@pytest.mark.parametrize("intruder", ["other_tenant", "other_agent"])
@pytest.mark.parametrize("tool", sorted(CASES))
async def test_an_intruder_gets_nothing_of_the_victim_through(
    tool: str,
    intruder: str,
    world: World,
    intruders: dict[str, str],
    poller: SqsPoller,
    reflect_poller: SqsPoller,
) -> None:
    async with mcp_client(world.server.url, intruders[intruder]) as client:
        for probe in CASES[tool](world, intruder):
            for args, allowed_errors in _variants(intruder, probe):
                outcome = await _attempt(client, tool, args)
                _assert_no_leak(world, intruder, tool, args, outcome)
                error = outcome.get("error")
                code = error["code"] if error is not None else None
                if allowed_errors is not None:
                    assert code in allowed_errors, (tool, args, outcome)
                elif tool in BY_ID and args is probe:
                    assert code in (NOT_FOUND, FORBIDDEN), (tool, args, outcome)
                if tool == "memory_status" and error is None:
                    assert {w["status"] for w in outcome["result"]["writes"]} == {"unknown"}
                if tool == "working_memory_get" and error is None:
                    assert outcome["result"]["items"] == []
                if tool == "working_memory_clear" and error is None and "key" in args:
                    assert outcome["result"]["cleared"] == 0
        await drain(poller)
        await drain(reflect_poller)
        await drain(poller)
        # What the intruder wrote stays its own: nothing it stored is linked to the victim's memories.
        everything = await _attempt(
            client,
            "memory_search",
            {"query": "intruder event fact retry note goal", "top_k": 100, "include_related": True,
             "status": ["active", "superseded", "archived", "forgotten"]},
        )  # fmt: skip
        _assert_no_leak(world, intruder, tool, {}, everything)
        for hit in (everything.get("result") or {}).get("results", []):
            chain = await _attempt(client, "memory_recall_chain", {"id": hit["memory"]["id"], "depth": 10})
            _assert_no_leak(world, intruder, tool, {}, chain)
            assert hit["memory"]["causal_parent"] not in world.ids.values()


async def test_writes_by_intruders_never_touch_the_victims_ids(
    world: World, intruders: dict[str, str]
) -> None:
    async with mcp_client(world.server.url, intruders["other_tenant"]) as client:
        # the arguments of the memory_write probe: a key is bound to its first write's arguments (a replay
        # answers the first write), and the probes may have used it in this tenant already
        retry = await call(
            client, "memory_write", {"content": "An intruder's retry", "idempotency_key": IDEMPOTENCY_KEY}
        )
        # and the task_reflect probe's: a task_id is bound to its first report the same way
        probe = {"task_id": TASK, "goal": "An intruder's goal", "outcome": "failure", "error": "boom"}
        reflection = await call(client, "task_reflect", probe)
    assert retry["id"] != world.ids["idem"]  # idempotency keys are per tenant and agent
    assert reflection["id"] != world.ids["reflection"]  # so are task ids


async def test_the_victims_data_is_unchanged_afterwards(world: World) -> None:
    """Runs after the probes (file order): every memory, relation, history entry, chain, session item
    and search result of the victim is as it was before the intruders came."""
    assert await _snapshot(world) == world.snapshot
