"""examples/agent_loop.py, run as a program against the test stack's MCP endpoint (the scripted model, no
network) while the workers process the queues as `make run`'s do: what it stored is what the loop says —
a preference and a state as facts on their keys, the new order as an episode naming it, one reflected
episode per task (the first failed on HTTP 429, the second, warned by memory_summarize, succeeded)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import psycopg
import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.support import ChatServer, chat_handler, loopback_http_server

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "agent_loop.py"


async def _run_with_workers(
    command: list[str], pollers: list[SqsPoller], env: dict[str, str] | None = None
) -> Any:
    """Run ``command`` while the pollers feed the workers (one batch each in turn) until it exits."""
    outcome: dict[str, Any] = {}
    finished = anyio.Event()
    base = {k: v for k, v in os.environ.items() if k not in ("AGENT_MODEL", "OPENAI_BASE_URL")}
    env = base | (env or {})  # no AGENT_MODEL: the scripted model, offline

    async def run() -> None:
        outcome["done"] = await anyio.run_process(command, check=False, env=env)
        finished.set()

    async with anyio.create_task_group() as group:
        group.start_soon(run)
        while not finished.is_set():
            for poller in pollers:
                await anyio.to_thread.run_sync(poller.poll_once)
    return outcome["done"]


def _stored(stack: LocalStack, tenant: str) -> list[dict[str, Any]]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        cur = conn.cursor(row_factory=psycopg.rows.dict_row)
        cur.execute(
            """SELECT id::text, layer, key, content, status, entities, task_id, outcome, lessons
               FROM memories WHERE tenant_id = %s ORDER BY created_at""",
            (tenant,),
        )
        return cur.fetchall()


async def test_the_agent_loop_stores_what_the_seeds_say_and_learns_from_its_failure(
    server: BackgroundServer,
    poller: SqsPoller,
    reflect_poller: SqsPoller,
    stack: LocalStack,
    tenant: str,
    token: str,
) -> None:
    command = [sys.executable, str(EXAMPLE), "--url", server.url, "--token", token, "--json"]
    done = await _run_with_workers(command, [poller, reflect_poller])
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    first, second = json.loads(done.stdout.decode().strip().splitlines()[-1])

    # the loop: task 1 had nothing to recall and failed; task 2 read the summary first and succeeded
    assert first["recalled"] == 0
    assert first["hint"] is None
    assert (first["outcome"], second["outcome"]) == ("failure", "success")
    assert "HTTP 429" in first["error"]
    assert second["hint"].startswith("- Failed before: ")
    assert "Retry-After" in second["hint"]
    assert second["recalled"] >= 1

    rows = {r["id"]: r for r in _stored(stack, tenant)}
    # memory_write on a preference, a new entity and a change of state (what each run says it wrote)
    assert set(first["written"]) | set(second["written"]) <= set(rows)
    preference, order = (rows[i] for i in first["written"])
    (shipped,) = (rows[i] for i in second["written"])
    assert (preference["layer"], preference["key"], preference["status"]) == (
        "semantic",
        "maya.invoice_preference",
        "active",
    )
    assert (order["layer"], order["entities"]) == ("episodic", {"order_id": "A-1042"})
    assert (shipped["key"], shipped["content"]) == ("order.a-1042.status", "Order A-1042 has shipped.")
    # task_reflect from the finally: one episode per task, whatever its ending
    failed, succeeded = rows[first["reflection_id"]], rows[second["reflection_id"]]
    assert (failed["task_id"], failed["outcome"]) == (first["task_id"], "failure")
    assert "Retry-After" in failed["lessons"]
    assert (succeeded["task_id"], succeeded["outcome"]) == (second["task_id"], "success")
    assert len(rows) == 5


def _decide(body: dict[str, Any]) -> str:
    """A loopback chat model's decision for one turn: remembers what it is told, waits before paying
    only when the MEMORY it was sent says Retry-After."""
    prompt = body["messages"][1]["content"]
    user = prompt.rsplit("USER: ", 1)[1]
    memory = prompt.split("MEMORY:\n", 1)[1].rsplit("\nUSER: ", 1)[0]
    decision: dict[str, Any] = {"reply": "OK", "step": f"Handled: {user}", "remember": [], "pay": False}
    if "prefer" in user:
        decision["remember"] = [
            {"kind": "preference", "content": "Maya wants e-mailed invoices.", "key": "maya.invoices"}
        ]
    if "pay" in user:
        decision |= {"pay": True, "wait_for_retry_after": "Retry-After" in memory}
    return "Sure:\n```json\n" + json.dumps(decision) + "\n```"


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    state = ChatServer(answer=_decide)
    with loopback_http_server(chat_handler(state)) as state.port:
        yield state


async def test_with_agent_model_set_an_openai_compatible_model_decides_each_turn(
    server: BackgroundServer,
    poller: SqsPoller,
    reflect_poller: SqsPoller,
    stack: LocalStack,
    tenant: str,
    token: str,
    chat_server: ChatServer,
) -> None:
    env = {"AGENT_MODEL": "loop-model", "OPENAI_BASE_URL": chat_server.base_url, "OPENAI_API_KEY": "sk-test"}
    command = [sys.executable, str(EXAMPLE), "--url", server.url, "--token", token, "--json"]
    done = await _run_with_workers(command, [poller, reflect_poller], env)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    first, second = json.loads(done.stdout.decode().strip().splitlines()[-1])
    assert (first["outcome"], second["outcome"]) == ("failure", "success")
    assert len(chat_server.requests) == 5  # one per user turn
    assert {r["model"] for r in chat_server.requests} == {"loop-model"}
    assert all(r["temperature"] == 0 for r in chat_server.requests)
    rows = {r["id"]: r for r in _stored(stack, tenant)}
    (preference,) = (rows[i] for i in first["written"])
    assert (preference["key"], preference["content"]) == ("maya.invoices", "Maya wants e-mailed invoices.")
    assert second["written"] == []
