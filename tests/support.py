"""Test helpers shared by the integration tests: MCP clients, event files, direct database checks."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import psycopg
from mcp import Client
from mcp_types import TextContent

from hindsight.client import call, connect
from hindsight.domain.memory import Layer, MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.stack import LocalStack

EVENTS = Path(__file__).parent / "events"
PROTOCOL_ERAS = ["legacy", "2026-07-28"]
"""The two client eras: 2025-11-25 with `initialize`, and the stateless 2026-07-28 with `server/discover`."""


def stack_refused(monkeypatch: Any, module: str) -> list[str]:
    """Make ``module``'s ``with_container`` (a CLI command module, "hindsight.cli.memories") fail the test
    if it is called, and record each call: a command that refuses its input must do so before it opens the
    stack. Returns the record (empty while nothing opened it)."""
    opened: list[str] = []

    async def with_container(data_dir: Any, body: Any) -> Any:
        opened.append("opened")
        raise AssertionError("the stack was opened for a refused input")

    monkeypatch.setattr(f"{module}.with_container", with_container)
    return opened


def load_event(name: str) -> dict[str, Any]:
    """A canonical event from tests/events (the same files `sam local invoke -e` takes)."""
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


mcp_client = connect


def keyed_jobs(tenant: str, texts: list[str], layer: Layer) -> list[WriteJob]:
    """One write job per text for the tenant's default agent, each under its own key (``note.<i>``), so
    that neither the write-time merge nor key-less contradiction rules fold near-identical texts."""
    return [
        WriteJob(
            id=uuid.uuid4(),
            tenant_id=tenant,
            agent_id="default",
            submitted_at=datetime.now(UTC),
            draft=MemoryDraft(content=text, layer=layer, key=f"note.{i}"),
        )
        for i, text in enumerate(texts)
    ]


def count_memories(stack: LocalStack, tenant: str, status: str | None = None) -> int:
    """Rows stored for a tenant (optionally with one status), straight from Postgres."""
    query = "SELECT count(*) FROM memories WHERE tenant_id = %s" + (" AND status = %s" if status else "")
    params = (tenant, status) if status else (tenant,)
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(query, params).fetchone()  # type: ignore[arg-type]
    return int(row[0]) if row else 0


def store_id(stack: LocalStack) -> str:
    """The stack database's identity (``hindsight_meta.store_id``): the prefix of its Redis keys."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute("SELECT value FROM hindsight_meta WHERE name = 'store_id'").fetchone()
    return str(row[0]) if row else ""


def session_pattern(stack: LocalStack, tenant: str) -> str:
    """A SCAN pattern of every working-memory session of ``tenant`` in the stack's store."""
    from hindsight.adapters.redis_working_memory import session_prefix

    return session_prefix(store_id(stack), tenant) + "*"


async def drain(poller: SqsPoller, timeout_s: float = 60.0) -> None:
    """Let the worker store everything queued (from an async test: the worker runs its own loop)."""
    assert await anyio.to_thread.run_sync(poller.drain, timeout_s), "the write queue did not drain"


async def written_in_turn(
    client: Client, poller: SqsPoller, first: str, second: str, **args: Any
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """``memory_write`` of ``first``, then of ``second`` (each with ``args``, e.g. a ``key``), each stored
    before the next: the two acknowledgements and ``memory_get`` of the first afterwards (its memory and
    relations)."""
    old: dict[str, Any] = await call(client, "memory_write", {"content": first, **args})
    await drain(poller)
    new: dict[str, Any] = await call(client, "memory_write", {"content": second, **args})
    await drain(poller)
    return old, new, await call(client, "memory_get", {"id": old["id"]})


async def write_stored(
    client: Client, poller: SqsPoller, content: str, key: str | None = None, **args: Any
) -> str:
    """``memory_write`` of ``content`` (on ``key`` when one is given, with ``args``, e.g. a ``layer``), then
    the wait until the worker stored it: the memory's id."""
    ack = await call(client, "memory_write", {"content": content, **({"key": key} if key else {}), **args})
    await drain(poller)
    return str(ack["id"])


async def written_together(
    client: Client, poller: SqsPoller, writes: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``memory_write`` of each of ``writes`` (its arguments) in turn, then one wait until the worker stored
    them all: their acknowledgements and, read afterwards, their memories (``memory_get``'s ``memory``)."""
    acks = [await call(client, "memory_write", args) for args in writes]
    await drain(poller)
    return acks, [await stored_memory(client, ack["id"]) for ack in acks]


async def stored_memory(client: Client, memory_id: str) -> dict[str, Any]:
    """``memory_get``'s ``memory`` of ``memory_id`` (its relations left out)."""
    memory: dict[str, Any] = (await call(client, "memory_get", {"id": memory_id}))["memory"]
    return memory


async def active_among(client: Client, ids: list[str]) -> set[str]:
    """Those of ``ids`` whose memory is active now."""
    return {i for i in ids if (await stored_memory(client, i))["status"] == "active"}


def assert_contradicts(new: dict[str, Any], old: dict[str, Any], view: dict[str, Any], status: str) -> None:
    """``written_in_turn``'s answers: the second write (``new``) is linked ``contradicts`` to the first
    (``old``), whose ``memory_get`` ``view`` has ``status`` (``active``: flagged only; ``superseded``:
    retired as well)."""
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in view["relations"]}
    assert (str(new["id"]), str(old["id"]), "contradicts") in kinds, view
    assert view["memory"]["status"] == status, view


def assert_left_alone(view: dict[str, Any]) -> None:
    """``memory_get``'s ``view`` of a memory that a later write neither retired nor linked to anything."""
    assert view["memory"]["status"] == "active", view
    assert view["relations"] == [], view


@contextmanager
def draining_in_background(poller: SqsPoller) -> Iterator[None]:
    """The embedding worker stores what is queued, in a thread, while the block runs (for tests that call
    synchronous code, such as the CLI or a subprocess, that waits for its writes)."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            poller.drain(timeout_s=2)
            stop.wait(0.1)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(10)


async def mint(stack: LocalStack, tenant: str, **kwargs: Any) -> str:
    """stack.mint_token from an async test (it runs its own event loop)."""
    token: str = await anyio.to_thread.run_sync(lambda: stack.mint_token(tenant, **kwargs))
    return token


@contextmanager
def loopback_http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[int]:
    """A threaded HTTP server on 127.0.0.1 (a free port) serving ``handler``; yields the port."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1]
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def send_json(
    handler: BaseHTTPRequestHandler, status: int, payload: Any, headers: Mapping[str, str] | None = None
) -> None:
    """Answer a request of a loopback test server with a JSON body."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)


async def tool_error(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must fail as a tool result a model can read (MCP 2025-11-25, SEP-1303): asserts
    ``isError``, that the text content carries the message and the whole error object, and returns the
    structured error (``kind``, ``code``, ``message``, ``retryable`` and its details)."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool} succeeded: {result.structured_content}"
    assert isinstance(result.structured_content, dict), result.content
    error: dict[str, Any] = result.structured_content["error"]
    text = " ".join(block.text for block in result.content if isinstance(block, TextContent))
    assert error["message"] in text, (text, error)
    assert json.loads(text.split("\n", 1)[1]) == {"error": error}
    return error


@dataclass
class Reply:
    """One scripted answer of ``ChatServer``: an HTTP status, the reply text, extra headers."""

    status: int = 200
    content: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    finish_reason: str = "stop"


@dataclass
class ChatServer:
    """Answers POST /v1/chat/completions from a script (the last reply repeats) and records requests."""

    script: list[Reply] = field(default_factory=list)
    answer: Callable[[dict[str, Any]], str] | None = None
    """When set, the reply text is computed from the request body (e.g. to cite ids it was sent)."""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def next_reply(self) -> Reply:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]


def chat_handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    """The request handler of a loopback OpenAI-compatible chat-completions server (``ChatServer``)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append({"path": self.path, **body})
            server.headers.append({k.lower(): v for k, v in self.headers.items()})
            reply = server.next_reply() if server.answer is None else Reply(content=server.answer(body))
            if reply.status == 200:
                payload: dict[str, Any] = {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": reply.finish_reason,
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                }
            else:
                payload = {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
            send_json(self, reply.status, payload, reply.headers)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def ecma_matches(pattern: str, names: list[str]) -> list[bool] | None:
    """Whether JavaScript's RegExp (the dialect JSON Schema names), with and without the u flag, matches
    each name: one list per flag, which must agree; None without node."""
    node = shutil.which("node")
    if node is None:
        return None
    script = (
        "const [p, names] = JSON.parse(process.argv[1]);"
        "const out = ['', 'u'].map(f => names.map(n => new RegExp(p, f).test(n)));"
        "console.log(JSON.stringify(out));"
    )
    done = subprocess.run(
        [node, "-e", script, json.dumps([pattern, names])],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    plain, unicode = json.loads(done.stdout)
    assert plain == unicode, (plain, unicode)
    return list(plain)
