"""Where a write acknowledgement's wall-clock time goes (issue 15): timestamps on the client and inside the
server, per request, on the machine's one monotonic clock, so the segments of one ``memory_write`` line up
across the two processes.

    python bench/write_ack_trace.py [--count 300] [--checkout NAME=PATH ...] [--fast-sqs] [--redis]
                                    [--mode legacy|2026-07-28] [--profile]
    python bench/write_ack_trace.py --client-only [--count 500]

Each round: one SendMessage from this process, then for every checkout (its MCP server a process of its own,
``PYTHONPATH=<checkout>/shared:<checkout>:bench``; the order rotates by round) ``memory_write`` through the
official MCP client and the same write as a raw JSON-RPC POST (``write_ack._raw_write``). The client marks
when httpx hands the request over and when the response headers arrive; the server marks the request's
arrival (outermost ASGI), the token check, ``call_tool``, the rate limit, admission, the SQS send (and
inside it when the queue's send thread starts and ends the SendMessage), the operation log, the
response's start and the request's end (``--redis``: also the rate limit's first Redis send and its last
reply). ``--mode``: the official client's protocol era (the raw POST stays 2025-11-25). ``--profile``: each
server's main thread also runs under cProfile (its times then include the profiler's own cost; compare
the profiles, not the times), the top functions by cumulative and own time printed per server and the
whole profile kept next to its marks (``<name>.prof``).

Prints each segment's median, per checkout and client, the server's path from arrival to SendMessage
(everything an acknowledgement waits for before the one call it cannot skip) and from SendMessage's end
to the response, and the end-to-end p50s with their per-round ratios to the first checkout. Medians of
per-request differences: segments do not add up to the total exactly.

``--fast-sqs`` runs moto with the local stack's per-call cost independent of the queue's depth
(``hindsight.local.moto_sqs``); without it moto is as released, as ``write_ack.py`` runs it (its SendMessage
slows down as the rounds fill the queue). ``--client-only``: the official client's own cost per call,
against a stub that answers ``memory_write`` at once (no server work, no SendMessage), beside a raw POST of
the same call: wall (median of per-round differences) and this process's CPU per call.

A probe, not a figure for the docs: on a loaded machine every hop to another process (the server, Redis,
the emulator) waits for a core, and the segments show where those waits fall.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import importlib
import itertools
import json
import os
import pickle
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MARKS: dict[str, float] = {}
ROWS: list[dict[str, Any]] = []
SERVER_MARKS = [
    ("hindsight.api.mcp_context", "ApiKeyVerifier", "verify_token", "s_auth", None),
    ("hindsight.api.mcp_server", "HindsightMCP", "call_tool", "s_call", "s_call_end"),
    ("hindsight.usecases.rate_limits", "CheckRateLimit", "__call__", "s_rl", "s_rl_end"),
    ("hindsight.usecases.remember", "Remember", "admit", "s_admit", "s_admit_end"),
    ("hindsight.adapters.sqs_queue", "SqsJobQueue", "enqueue", "s_send", "s_send_end"),
    ("hindsight.usecases.remember", "Remember", "_note", None, "s_note_end"),
]
"""(module, class, coroutine method, mark at its start, mark at its end) timed inside the server."""
ORDER = [
    "c0", "c_req", "s_in", "s_auth", "s_call", "s_rl", "s_redis_send", "s_redis_read", "s_rl_end",
    "s_admit", "s_admit_end", "s_send", "s_thread", "s_thread_end", "s_send_end", "s_note_end", "s_call_end",
    "s_resp", "s_out",
    "c_resp", "c1",
]  # fmt: skip
"""Marks in the order a write passes them (client c_*, server s_*); segments are between neighbours."""


def _mark(name: str) -> None:
    MARKS[name] = time.perf_counter()


def _timed(original: Any, start: str | None, end: str | None) -> Any:
    @functools.wraps(original)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        if start:
            _mark(start)
        try:
            return await original(*args, **kwargs)
        finally:
            if end:
                _mark(end)

    return wrapper


def _mark_send_thread() -> None:
    """Mark when the queue's send thread starts the SendMessage (``SqsJobQueue.enqueue_sync``) and when
    it is done: ``s_send -> s_thread`` is the wait for the thread (the GIL, a core), apart from the
    SendMessage itself."""
    from hindsight.adapters.sqs_queue import SqsJobQueue

    original = SqsJobQueue.enqueue_sync

    @functools.wraps(original)
    def enqueue_sync(self: Any, *args: Any, **kwargs: Any) -> Any:
        _mark("s_thread")
        try:
            return original(self, *args, **kwargs)
        finally:
            _mark("s_thread_end")

    SqsJobQueue.enqueue_sync = enqueue_sync  # type: ignore[method-assign]


def _mark_redis() -> None:
    """Mark the rate limit's first Redis send and its last reply (redis-py's asyncio connection)."""
    from redis.asyncio.connection import Connection

    send, read = Connection.send_packed_command, Connection.read_response

    def in_rate_limit() -> bool:
        return "s_rl" in MARKS and "s_rl_end" not in MARKS

    async def send_packed_command(self: Any, *args: Any, **kwargs: Any) -> Any:
        if in_rate_limit():
            MARKS.setdefault("s_redis_send", time.perf_counter())
        return await send(self, *args, **kwargs)

    async def read_response(self: Any, *args: Any, **kwargs: Any) -> Any:
        answer = await read(self, *args, **kwargs)
        if in_rate_limit():
            _mark("s_redis_read")
        return answer

    Connection.send_packed_command = send_packed_command  # type: ignore[method-assign]
    Connection.read_response = read_response  # type: ignore[method-assign]


def _traced(app: Any) -> Any:
    """The outermost ASGI app: marks a ``/mcp`` request's arrival, its response's start and its end, and
    keeps the request's marks (``x-trace`` header: which client sent it)."""

    async def traced(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/mcp":
            await app(scope, receive, send)
            return
        MARKS.clear()
        _mark("s_in")

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                _mark("s_resp")
            await send(message)

        await app(scope, receive, sending)
        _mark("s_out")
        ROWS.append({"kind": dict(scope["headers"]).get(b"x-trace", b"client").decode(), **MARKS})

    return traced


def serve_child(port: int, out: Path, settings_file: Path, redis: bool, profile: bool = False) -> None:
    """The checkout's MCP HTTP app under uvicorn on 127.0.0.1:``port``, traced; its requests' marks are
    written to ``out`` (JSON) when it is terminated (``profile``: and its main thread's cProfile to
    ``out`` with the suffix ``.prof``)."""
    import cProfile

    import uvicorn

    from hindsight.api.mcp_server import create_http_app
    from hindsight.bootstrap import build_container
    from hindsight.logs import configure_json_log_file, configure_local_logging

    for module, cls_name, method, start, end in SERVER_MARKS:
        cls = getattr(importlib.import_module(module), cls_name)
        setattr(cls, method, _timed(getattr(cls, method), start, end))
    _mark_send_thread()
    if redis:
        _mark_redis()

    profiler = cProfile.Profile() if profile else None

    def dump(*_: object) -> None:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(out.with_suffix(".prof"))
        out.write_text(json.dumps(ROWS))
        os._exit(0)

    signal.signal(signal.SIGTERM, dump)
    settings = pickle.loads(settings_file.read_bytes())  # noqa: S301 (written by the parent process)
    configure_local_logging("WARNING")
    configure_json_log_file(out.with_name(f"{out.stem}.log"))
    app = create_http_app(settings, lambda: build_container(settings))
    if profiler is not None:
        profiler.enable()
    uvicorn.run(_traced(app), host="127.0.0.1", port=port, log_level="warning")


class Server:
    """One checkout's traced server in a subprocess (context manager); ``url`` once /healthz answers."""

    def __init__(
        self, name: str, checkout: Path, settings: Any, outdir: Path, redis: bool, profile: bool = False
    ) -> None:
        from hindsight.local.ports import free_port

        self.name = name
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.out = outdir / f"{name}.json"
        settings_file = outdir / f"{name}.settings"
        settings_file.write_bytes(pickle.dumps(settings.replace(http_port=self.port)))
        env = {**os.environ, "PYTHONPATH": f"{checkout}/shared:{checkout}:{HERE}"}
        args = [sys.executable, __file__, "--serve", str(self.port), str(self.out), str(settings_file)]
        self._err = (outdir / f"{name}.err").open("w")
        self._proc = subprocess.Popen(
            [*args, *(["--redis"] if redis else []), *(["--profile"] if profile else [])],
            env=env,
            stdout=self._err,
            stderr=self._err,
        )

    def __enter__(self) -> Server:
        import urllib.request

        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return self
            except OSError:
                if time.monotonic() > deadline or self._proc.poll() is not None:
                    self._proc.terminate()
                    raise RuntimeError(f"server {self.name} did not start (see {self._err.name})") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.wait(15)
        self._err.close()

    def rows(self) -> list[dict[str, Any]]:
        """The marks of every /mcp request it served, in order."""
        return list(json.loads(self.out.read_text()))


async def _rounds(
    servers: list[Server], token: str, endpoint: str, queue_url: str, count: int, warmup: int, mode: str
) -> tuple[list[float], dict[str, list[dict[str, dict[str, float]]]]]:
    """SendMessage times (ms) and, per server, each kept round's client marks by client kind."""
    import httpx2
    import synthetic
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from write_ack import RAW_HEADERS, _raw_write, _write_args

    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.client import call

    sqs = sqs_client("us-east-1", endpoint)
    marks: dict[str, float] = {}

    async def on_request(_: Any) -> None:
        marks["c_req"] = time.perf_counter()

    async def on_response(_: Any) -> None:
        marks["c_resp"] = time.perf_counter()

    hooks = {"request": [on_request], "response": [on_response]}
    sends: list[float] = []
    kept: dict[str, list[dict[str, dict[str, float]]]] = {s.name: [] for s in servers}
    async with contextlib.AsyncExitStack() as stack:
        clients = {}
        for server in servers:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {token}"}, timeout=60, event_hooks=hooks
                )
            )
            transport = streamable_http_client(server.url, http_client=http)
            clients[server.name] = await stack.enter_async_context(Client(transport, mode=mode))  # type: ignore[arg-type]
        raw = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers={**RAW_HEADERS, "Authorization": f"Bearer {token}", "x-trace": "raw"},
                timeout=60,
                event_hooks=hooks,
            )
        )
        for i, memory in enumerate(synthetic.memories(count + warmup, seed=99)):
            args = _write_args(memory)
            started = time.perf_counter()
            sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(args))
            sent = (time.perf_counter() - started) * 1000
            turn = i % len(servers)
            for server in servers[turn:] + servers[:turn]:
                marks.clear()
                marks["c0"] = time.perf_counter()
                ack = await call(clients[server.name], "memory_write", args)
                official = {**marks, "c1": time.perf_counter()}
                marks.clear()
                marks["c0"] = time.perf_counter()
                again = await _raw_write(
                    raw, server.url, i, {**args, "content": f"{args['content']} (again)"}
                )
                posted = {**marks, "c1": time.perf_counter()}
                if ack.get("status") != "queued" or again.get("status") != "queued":
                    raise RuntimeError(f"server {server.name}: unexpected ack {ack} / {again}")
                if i >= warmup:
                    kept[server.name].append({"client": official, "raw": posted})
            if i >= warmup:
                sends.append(sent)
    return sends, kept


def _summary(server: Server, rounds: list[dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Segment medians (ms) per client kind, the server's pre- and post-send paths, and the totals."""
    served = server.rows()[-2 * len(rounds) :]  # the kept rounds' requests: official, then raw, each round
    result: dict[str, Any] = {}
    for offset, kind in enumerate(("client", "raw")):
        segments: dict[str, list[float]] = {}
        totals, pre, post = [], [], []
        for k, client_marks in enumerate(rounds):
            row = served[2 * k + offset]
            if row["kind"] != kind:
                raise RuntimeError(f"request {2 * k + offset} of {server.name} was {row['kind']}, not {kind}")
            both = {**client_marks[kind], **{n: t for n, t in row.items() if n != "kind"}}
            present = [n for n in ORDER if n in both]
            for a, b in itertools.pairwise(present):
                segments.setdefault(f"{a} -> {b}", []).append((both[b] - both[a]) * 1000)
            totals.append((both["c1"] - both["c0"]) * 1000)
            pre.append((both["s_send"] - both["s_in"]) * 1000)
            post.append((both["s_resp"] - both["s_send_end"]) * 1000)
        result[kind] = {
            "p50_ms": round(statistics.median(totals), 3),
            "totals": totals,
            "arrival_to_send_p50_ms": round(statistics.median(pre), 3),
            "send_end_to_response_p50_ms": round(statistics.median(post), 3),
            "segments_p50_ms": {n: round(statistics.median(v), 3) for n, v in segments.items()},
        }
    return result


def trace(
    checkouts: list[tuple[str, Path]],
    count: int,
    warmup: int,
    fast_sqs: bool,
    redis: bool,
    mode: str = "legacy",
    profile: bool = False,
) -> None:
    """Run the rounds against every checkout's server and print the breakdown (see the module doc)."""
    from common import bench_tmpdir, external_sqs
    from latency import NO_RATE_LIMIT, TENANT

    from hindsight.local.stack import LocalStack

    with LocalStack(bench_tmpdir("write-ack-trace"), ephemeral=True) as stack:
        token = stack.mint_token(TENANT, "bench")
        with external_sqs(speed_up=fast_sqs) as (endpoint, queues):
            settings = stack.require_settings().replace(
                write_queue_url=queues.writes, aws_endpoint_url=endpoint, **NO_RATE_LIMIT
            )
            outdir = bench_tmpdir("write-ack-trace-out")
            with contextlib.ExitStack() as running:
                servers = [
                    running.enter_context(Server(name, path, settings, outdir, redis, profile))
                    for name, path in checkouts
                ]
                load_before = os.getloadavg()
                sends, kept = asyncio.run(
                    _rounds(servers, token, endpoint, queues.writes, count, warmup, mode)
                )
                load_after = os.getloadavg()
            summaries = {s.name: _summary(s, kept[s.name]) for s in servers}
    if profile:
        import pstats

        for server in servers:
            stats = pstats.Stats(str(server.out.with_suffix(".prof")))
            print(f"{server.name}: server main-thread profile, {server.out.with_suffix('.prof')}")
            stats.sort_stats("cumulative").print_stats(45)
            stats.sort_stats("tottime").print_stats(30)
    send_p50 = statistics.median(sends)
    print(
        f"mode {mode}; SendMessage alone p50 {send_p50:.2f} ms, n={len(sends)}, "
        f"load {load_before[:2]} -> {load_after[:2]}"
    )
    first = checkouts[0][0]
    for name, summary in summaries.items():
        for kind in ("client", "raw"):
            row = summary[kind]
            ratio = statistics.median(
                x / y for x, y in zip(row["totals"], summaries[first][kind]["totals"], strict=True)
            )
            print(
                f"{name} {'official client' if kind == 'client' else 'raw POST'}: p50 {row['p50_ms']:.2f} ms "
                f"(x{row['p50_ms'] / send_p50:.3f} SendMessage; per round x{ratio:.3f} {first}); server: "
                f"arrival -> SendMessage {row['arrival_to_send_p50_ms']:.3f} ms, SendMessage end -> response "
                f"{row['send_end_to_response_p50_ms']:.3f} ms"
            )
            for segment, value in row["segments_p50_ms"].items():
                print(f"    {segment:28s} {value:8.3f}")


def _stub_app(tools: list[dict[str, Any]]) -> Any:
    """A bare ASGI app answering the MCP client at once: ``initialize``, ``tools/list`` (``tools``), and a
    ``memory_write`` acknowledgement for any ``tools/call``; notifications get 202."""
    ack = {
        "id": "0190f5a0-0000-7000-8000-000000000001",
        "status": "queued",
        "submitted_at": "2026-12-06T11:00:00Z",
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        request = json.loads(body or b"{}")
        if "id" not in request:
            await send({"type": "http.response.start", "status": 202, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": json.dumps(ack, indent=2)}],
            "structuredContent": ack,
            "isError": False,
        }
        if request["method"] == "initialize":
            result = {
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "stub", "version": "0"},
            }
        elif request["method"] == "tools/list":
            result = {"tools": tools}
        data = json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    return app


def stub_child(port: int, tools_file: Path) -> None:
    """The stub (``_stub_app``) under uvicorn on 127.0.0.1:``port``."""
    import uvicorn

    uvicorn.run(
        _stub_app(json.loads(tools_file.read_text())), host="127.0.0.1", port=port, log_level="warning"
    )


async def _client_rounds(url: str, count: int, warmup: int) -> dict[str, list[float]]:
    import httpx2
    import synthetic
    from write_ack import RAW_HEADERS, _write_args

    from hindsight.client import call, connect

    out: dict[str, list[float]] = {"official": [], "raw": [], "official_cpu": [], "raw_cpu": []}
    async with (
        connect(url, "stub", mode="legacy") as client,
        httpx2.AsyncClient(headers={**RAW_HEADERS, "Authorization": "Bearer stub"}, timeout=60) as http,
    ):
        for i, memory in enumerate(synthetic.memories(count + warmup, seed=99)):
            args = _write_args(memory)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            ack = await call(client, "memory_write", args)
            wall1, cpu1 = time.perf_counter(), time.process_time()
            body = {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "memory_write", "arguments": args},
            }
            answer = (await http.post(url, json=body)).json()
            wall2, cpu2 = time.perf_counter(), time.process_time()
            if ack.get("status") != "queued" or answer["result"]["structuredContent"]["status"] != "queued":
                raise RuntimeError(f"stub answered {ack} / {answer}")
            if i >= warmup:
                out["official"].append((wall1 - wall0) * 1000)
                out["raw"].append((wall2 - wall1) * 1000)
                out["official_cpu"].append((cpu1 - cpu0) * 1000)
                out["raw_cpu"].append((cpu2 - cpu1) * 1000)
    return out


def client_only(count: int, warmup: int) -> None:
    """The official client's own cost per ``memory_write`` (see the module doc), printed."""
    import urllib.error
    import urllib.request

    from common import bench_tmpdir

    from hindsight.api.mcp_context import ContainerHolder
    from hindsight.api.mcp_server import create_mcp_server
    from hindsight.config import Settings
    from hindsight.local.ports import free_port

    async def factory() -> Any:
        raise RuntimeError("the stub needs no container")

    from hindsight.logs import configure_local_logging

    configure_local_logging("WARNING")  # before the SDK would install its rich INFO handler (per request)
    mcp = create_mcp_server(ContainerHolder(), Settings(), factory)
    tools = asyncio.run(mcp.list_tools())
    tools_file = bench_tmpdir("write-ack-client") / "tools.json"
    tools_file.write_text(
        json.dumps([t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools])
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    proc = subprocess.Popen([sys.executable, __file__, "--stub", str(port), str(tools_file)])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(urllib.request.Request(url, data=b"{}", method="POST"), timeout=2)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        out = asyncio.run(_client_rounds(url, count, warmup))
    finally:
        proc.terminate()
        proc.wait(10)
    difference = statistics.median(a - b for a, b in zip(out["official"], out["raw"], strict=True))
    p50, cpu = statistics.median, statistics.fmean
    print(
        f"n={len(out['raw'])}, load {os.getloadavg()[:2]}: "
        f"official client p50 {p50(out['official']):.3f} ms, CPU {cpu(out['official_cpu']):.3f} ms a call; "
        f"raw POST p50 {p50(out['raw']):.3f} ms, "
        f"CPU {cpu(out['raw_cpu']):.3f} ms; official - raw per round, median {difference:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--checkout", action="append", default=[], metavar="NAME=PATH", help="default: this checkout"
    )
    parser.add_argument("--fast-sqs", action="store_true", help="moto's per-call cost independent of depth")
    parser.add_argument(
        "--redis", action="store_true", help="also mark the rate limit's Redis send and reply"
    )
    parser.add_argument("--client-only", action="store_true", help="the official client's own cost")
    parser.add_argument(
        "--mode", choices=["legacy", "2026-07-28"], default="legacy", help="official client's era"
    )
    parser.add_argument("--profile", action="store_true", help="cProfile each server's main thread")
    parser.add_argument("--serve", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--stub", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_child(int(args.serve[0]), Path(args.serve[1]), Path(args.serve[2]), args.redis, args.profile)
    elif args.stub:
        stub_child(int(args.stub[0]), Path(args.stub[1]))
    elif args.client_only:
        client_only(args.count, args.warmup)
    else:
        checkouts = [(c.split("=", 1)[0], Path(c.split("=", 1)[1]).resolve()) for c in args.checkout]
        for name, path in checkouts:
            if not (path / "shared" / "hindsight").is_dir():  # else the venv's own install would be traced
                parser.error(f"--checkout {name}={path}: no shared/hindsight there")
        trace(
            checkouts or [("this", HERE.parent)],
            args.count,
            args.warmup,
            args.fast_sqs,
            args.redis,
            args.mode,
            args.profile,
        )


if __name__ == "__main__":
    main()
