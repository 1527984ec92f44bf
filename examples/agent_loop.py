"""A small agent loop on Hindsight's MCP tools, used the way the seeds describe:

- ``memory_search`` at the start of every task (with ``max_tokens``, so recall never floods the context);
- ``memory_summarize`` before a long task: "this approach failed before", what worked, current facts;
- ``memory_write`` when the user states a preference, names a new entity, or something changes state;
- ``task_reflect`` in a ``finally``: success, failure or abort alike, the task leaves one episode;
- ``memory_status`` before moving on, so the next task can rely on what was written.

Two tasks for one user: the first pays an invoice without waiting and hits HTTP 429 (the task fails, and
its reflection says to wait for Retry-After); the second, a longer one, reads the summary first and waits.

Run it against ``make run`` (which prints the MCP URL and a token)::

    .venv/bin/python examples/agent_loop.py --url http://127.0.0.1:8080/mcp --token hsk_…

(or set HINDSIGHT_MCP_URL and HINDSIGHT_TOKEN). Offline by default: a scripted "model" decides each turn.
With ``AGENT_MODEL`` set, an OpenAI-compatible chat model decides instead (the ``openai`` client reads
``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``; e.g. a local vLLM or Ollama server). ``--json`` prints what was
done as JSON at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from mcp import Client

from hindsight.client import call, connect

Kind = Literal["preference", "entity", "state"]


@dataclass
class Note:
    """Something worth remembering that the model noticed in a user turn."""

    kind: Kind
    content: str
    key: str | None = None
    entities: dict[str, str] = field(default_factory=dict)

    def arguments(self, agent_id: str) -> dict[str, Any]:
        """``memory_write`` arguments: preferences and states are facts (one value per key, a new one
        supersedes the old); a new entity is an event that names it."""
        args: dict[str, Any] = {"content": self.content, "agent_id": agent_id}
        args["layer"] = "episodic" if self.kind == "entity" else "semantic"
        if self.key:
            args["key"] = self.key
        if self.entities:
            args["entities"] = self.entities
        if self.kind == "preference":
            args["importance"] = 0.8
        return args


@dataclass
class Decision:
    """The model's answer to one user turn: its reply, what it did (a step for the reflection), what to
    remember, and whether it pays the invoice now (and if so, honouring Retry-After)."""

    reply: str
    step: str
    remember: list[Note] = field(default_factory=list)
    pay: bool = False
    wait_for_retry_after: bool = False


class Model(Protocol):
    """Decides each turn from the goal, the user's words and what memory returned."""

    async def decide(self, goal: str, user: str, memory: str) -> Decision: ...


class PaymentFailed(Exception):
    """The (simulated) payments API refused the call."""


def pay_invoice(wait_for_retry_after: bool) -> str:
    """The world the agent acts in: the payments API rate-limits a client that does not wait."""
    if not wait_for_retry_after:
        raise PaymentFailed("payments API answered HTTP 429 Too Many Requests (Retry-After: 30)")
    return "payment accepted"


class ScriptedModel:
    """A deterministic stand-in for a model: fixed replies, and the memory it acts on is real (it waits
    before paying only when memory says so)."""

    async def decide(self, goal: str, user: str, memory: str) -> Decision:
        text = user.lower()
        if "prefer" in text:
            return Decision(
                reply="Noted: invoices by e-mail, in euros.",
                step="Recorded the invoice preferences",
                remember=[
                    Note(
                        "preference",
                        "Maya prefers invoices by e-mail, in euros.",
                        key="maya.invoice_preference",
                    )
                ],
            )
        if "order" in text and "shipped" not in text:
            return Decision(
                reply="Order A-1042 noted.",
                step="Looked up order A-1042",
                remember=[
                    Note(
                        "entity",
                        "Maya placed order A-1042 (a standing desk).",
                        entities={"order_id": "A-1042"},
                    )
                ],
            )
        if "shipped" in text:
            return Decision(
                reply="Thanks, I updated the order's status.",
                step="Updated order A-1042 to shipped",
                remember=[Note("state", "Order A-1042 has shipped.", key="order.A-1042.status")],
            )
        if "pay" in text:
            careful = "retry-after" in memory.lower()  # what failed before, as memory tells it
            step = (
                "Waited for Retry-After, then called the payments API"
                if careful
                else "Called the payments API"
            )
            return Decision(
                reply="Paying the invoice now.",
                step=step,
                pay=True,
                wait_for_retry_after=careful,
            )
        return Decision(reply="OK.", step=f"Answered: {user[:80]}")


class OpenAIModel:
    """An OpenAI-compatible chat model deciding each turn as JSON (temperature 0)."""

    SYSTEM = (
        "You are an assistant agent with long-term memory. For the user's turn, reply with ONE JSON "
        'object: {"reply": str, "step": str (what you did, one sentence), "remember": [{"kind": '
        '"preference"|"entity"|"state", "content": str, "key": str|null}], "pay": bool (true to call the '
        'payments API now), "wait_for_retry_after": bool}. Remember only preferences, new entities '
        "(orders, people, projects) and changes of state. Use the MEMORY below: if it says an approach "
        "failed before, do not repeat it."
    )

    def __init__(self, model: str) -> None:
        from openai import AsyncOpenAI

        self._client = AsyncOpenAI()
        self._model = model

    async def decide(self, goal: str, user: str, memory: str) -> Decision:
        completion = await self._client.chat.completions.create(
            model=self._model,
            temperature=0,
            response_format={"type": "json_object"},
            messages=[
                {"role": "system", "content": self.SYSTEM},
                {"role": "user", "content": f"GOAL: {goal}\nMEMORY:\n{memory}\nUSER: {user}"},
            ],
        )
        data = _first_json_object(completion.choices[0].message.content or "")
        notes = [
            Note(n.get("kind", "state"), str(n["content"]), n.get("key") or None)
            for n in data.get("remember", [])
            if isinstance(n, dict) and n.get("content") and n.get("kind") in ("preference", "entity", "state")
        ]
        return Decision(
            reply=str(data.get("reply", "")),
            step=str(data.get("step") or f"Answered: {user[:80]}"),
            remember=notes,
            pay=bool(data.get("pay")),
            wait_for_retry_after=bool(data.get("wait_for_retry_after")),
        )


def _first_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a reply (models wrap JSON in prose and code fences); {} if none."""
    decoder = json.JSONDecoder()
    for start in (i for i, c in enumerate(text) if c == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


@dataclass
class Task:
    """A top-level task: its goal and the user's turns. ``long`` tasks read a summary first."""

    goal: str
    turns: list[str]
    long: bool = False
    task_id: str = field(default_factory=lambda: f"task-{uuid.uuid4().hex[:8]}")


@dataclass
class TaskRun:
    """What the loop did for one task (printed, and returned for tests)."""

    task_id: str
    goal: str
    recalled: int = 0
    hint: str | None = None
    written: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    outcome: str = "aborted"
    error: str | None = None
    reflection_id: str | None = None


def memory_context(found: dict[str, Any], hint: str | None) -> str:
    """What the model sees of memory: the summary, then each recalled memory with its notes."""
    lines = [hint] if hint else []
    for hit in found["results"]:
        notes = " ".join(hit["notes"])
        lines.append(f"- {hit['memory']['content']}" + (f" ({notes})" if notes else ""))
    lines += [f"- {c['content']}" for c in found.get("compact", [])]
    return "\n".join(lines) or "(nothing remembered yet)"


async def run_task(client: Client, model: Model, task: Task, agent_id: str) -> TaskRun:
    """One task through the loop; the reflection is submitted whatever happens (``finally``)."""
    run = TaskRun(task.task_id, task.goal)
    steps: list[str] = []
    try:
        if task.long:  # before a long task: what failed and what worked, in a few lines
            summary = await call(client, "memory_summarize", {"query": task.goal, "agent_id": agent_id})
            run.hint = summary["hint"] or None
        found = await call(
            client, "memory_search", {"query": task.goal, "max_tokens": 1500, "agent_id": agent_id}
        )
        run.recalled = found["count"] + len(found.get("compact", []))
        memory = memory_context(found, run.hint)
        for user in task.turns:
            decision = await model.decide(task.goal, user, memory)
            run.replies.append(decision.reply)
            steps.append(decision.step)
            for note in decision.remember:  # a preference, a new entity, a change of state
                ack = await call(client, "memory_write", note.arguments(agent_id))
                run.written.append(ack["id"])
            if decision.pay:
                steps.append(pay_invoice(decision.wait_for_retry_after))
        run.outcome = "success"
    except PaymentFailed as exc:  # the approach failed: the task ends, the loop goes on
        run.outcome, run.error = "failure", str(exc)
        steps.append(f"Failed: {exc}")
    except BaseException as exc:  # anything else ends the task too, and is reported before it propagates
        stopped = isinstance(exc, KeyboardInterrupt | asyncio.CancelledError)
        run.outcome, run.error = ("aborted" if stopped else "failure"), repr(exc)[:1000]
        raise
    finally:
        report: dict[str, Any] = {
            "task_id": task.task_id,
            "goal": task.goal,
            "steps": steps or ["Started the task"],
            "outcome": run.outcome,
            "agent_id": agent_id,
        }
        if run.error:
            report["error"] = run.error
        ack = await call(client, "task_reflect", report)
        run.reflection_id = ack["id"]
    return run


async def wait_until_stored(client: Client, ids: list[str], agent_id: str, timeout_s: float = 120.0) -> None:
    """Poll ``memory_status`` until no write is still queued (the worker stores within seconds)."""
    deadline = time.monotonic() + timeout_s
    while ids:
        status = await call(client, "memory_status", {"ids": ids, "agent_id": agent_id})
        if all(w["status"] != "queued" for w in status["writes"]):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"writes still queued after {timeout_s} s: is the worker running?")
        await asyncio.sleep(0.25)


TASKS = [
    Task(
        "Set up Maya's account and pay her open invoice",
        [
            "I prefer invoices by e-mail, in euros.",
            "My order number is A-1042.",
            "Please pay the open invoice now.",
        ],
    ),
    Task(
        "Pay Maya's open invoice for order A-1042 and confirm the delivery",
        ["Good news: order A-1042 has shipped.", "Please pay the open invoice now."],
        long=True,
    ),
]


async def run_demo(url: str, token: str, model: Model, agent_id: str = "default") -> list[TaskRun]:
    """Both tasks, one after the other, each waiting until what it wrote is stored."""
    runs = []
    async with connect(url, token) as client:
        for task in TASKS:
            run = await run_task(client, model, task, agent_id)
            runs.append(run)
            written = [*run.written, *([run.reflection_id] if run.reflection_id else [])]
            await wait_until_stored(client, written, agent_id)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=os.environ.get("HINDSIGHT_MCP_URL", "http://127.0.0.1:8080/mcp"))
    parser.add_argument("--token", default=os.environ.get("HINDSIGHT_TOKEN"))
    parser.add_argument("--agent-id", default="default")
    parser.add_argument("--json", action="store_true", help="print what was done as JSON at the end")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is needed: --token or HINDSIGHT_TOKEN (make run prints one)")
    name = os.environ.get("AGENT_MODEL")
    model: Model = OpenAIModel(name) if name else ScriptedModel()
    runs = asyncio.run(run_demo(args.url, args.token, model, args.agent_id))
    for run in runs:
        print(f"\n== {run.goal} ({run.task_id}): {run.outcome}" + (f" — {run.error}" if run.error else ""))
        print(
            f"   recalled {run.recalled} memories; wrote {len(run.written)}; reflection {run.reflection_id}"
        )
        if run.hint:
            lines = "\n".join(f"     {line}" for line in run.hint.splitlines())
            print(f"   summary before the task:\n{lines}")
        for reply in run.replies:
            print(f"   agent: {reply}")
    if args.json:
        print(json.dumps([asdict(r) for r in runs]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
