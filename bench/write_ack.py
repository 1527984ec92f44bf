"""Write acknowledgement against the emulator's own SendMessage, interleaved (issue 15: ack p50 within
1.2x of SendMessage).

Three processes, as in production where the client, the MCP function and SQS are apart: this one (the
MCP client and a boto3 client), the MCP server (uvicorn, a process of its own so the client's Python does
not share its interpreter lock) and the SQS emulator (``common.external_sqs``). Each round sends one raw
SendMessage of a write-sized body, then one ``memory_write`` through the official MCP client (the
headline), then the same write as a raw JSON-RPC POST (``raw_http``: one ``tools/call`` over a kept-alive
httpx connection, the shape of an agent that posts JSON-RPC itself), so all three see the same machine
load; the ratio of the p50s and the median of the per-round ratios are reported for both clients.
No worker runs meanwhile: the acknowledgement is what is measured, not storage.

    python bench/run.py latency  (the write_ack section), or on its own:
    python bench/write_ack.py [--count 200] [--record] [--floor]

``--floor`` adds the write path's floor on this machine in the same rounds: after the raw POST, the same
request to a bare ASGI app under uvicorn (a process of its own) that only parses it and sends one
SendMessage from a kept thread, as the server's queue adapter does (``floor_bare_asgi``: no MCP SDK, no
Starlette, no auth, rate limit, input checks or operation log), then the same write through the official
MCP client to that app (``floor_official_client``: the app also answers ``initialize`` and ``tools/list``
with this server's tools, so the client does its usual work, output-schema check included). What the MCP
app adds over the floor of its client is what can be optimised; what the floor adds over SendMessage
alone (one HTTP round trip, a thread hop, and the client's own work) cannot.

``--record`` merges the result into bench/results/latest.json (then ``make bench-report``); each run also
reports where the server's time goes (``server_parts_p50_ms``: medians of the tool call, the SQS send,
the rate limiter, admission and the operation log, timed inside the server process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import synthetic
from common import bench_tmpdir, external_sqs, log, merge_results, percentiles

from hindsight.client import call, connect
from hindsight.config import Settings

SERVER_PARTS = {
    "call_tool": ("hindsight.api.mcp_server", "HindsightMCP", "call_tool"),
    "sqs_send": ("hindsight.adapters.sqs_queue", "SqsJobQueue", "enqueue"),
    "rate_limit": ("hindsight.usecases.rate_limits", "CheckRateLimit", "__call__"),
    "admit": ("hindsight.usecases.remember", "Remember", "admit"),
    "operation_log": ("hindsight.usecases.remember", "Remember", "_note"),  # beside the SQS send
}
"""The parts of a write timed inside the server: name → (module, class, coroutine method)."""


def _time_server_parts(parts_file: Path) -> None:
    """Wrap SERVER_PARTS' methods to time each call (ms), and write their medians (after the first 20
    calls) to ``parts_file`` when the process is terminated. A method the code under test lacks (an
    older checkout, run with its ``shared/`` first on PYTHONPATH for an A/B) is not timed."""
    import functools
    import importlib
    import os
    import signal

    timings: dict[str, list[float]] = {name: [] for name in SERVER_PARTS}
    for name, (module, cls_name, method) in SERVER_PARTS.items():
        cls = getattr(importlib.import_module(module), cls_name)
        original = getattr(cls, method, None)
        if original is None:
            continue

        def timed(original: Any = original, name: str = name) -> Any:
            @functools.wraps(original)
            async def wrapper(*args: Any, **kwargs: Any) -> Any:
                started = time.perf_counter()
                try:
                    return await original(*args, **kwargs)
                finally:
                    timings[name].append((time.perf_counter() - started) * 1000)

            return wrapper

        setattr(cls, method, timed())

    def dump(*_: object) -> None:
        medians = {k: round(statistics.median(v[20:] or v), 2) for k, v in timings.items() if v}
        parts_file.write_text(json.dumps(medians))
        os._exit(0)

    signal.signal(signal.SIGTERM, dump)


def _serve(settings: Settings, port: int, log_file: Path) -> None:
    """Child process: the MCP HTTP app under uvicorn on 127.0.0.1:port until terminated, logging as
    ``hindsight run`` does (JSON request lines to a file; on Lambda they go to stdout the same way), with
    SERVER_PARTS timed (``_time_server_parts``; written next to the log file on termination)."""
    import uvicorn

    _time_server_parts(log_file.with_name("server-parts.json"))

    from hindsight.api.mcp_server import create_http_app
    from hindsight.bootstrap import build_container
    from hindsight.logs import configure_json_log_file, configure_local_logging

    configure_local_logging("WARNING")
    configure_json_log_file(log_file)

    app = create_http_app(settings, lambda: build_container(settings))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _serve_floor(endpoint: str, port: int, queue_url: str, tools_file: Path) -> None:
    """Child process: the floor of a write acknowledgement over HTTP (``_floor_app``) under uvicorn on
    127.0.0.1:port, served as ``_serve`` serves the MCP app, until terminated."""
    import uvicorn

    app = _floor_app(endpoint, queue_url, json.loads(tools_file.read_text()))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _floor_app(endpoint: str, queue_url: str, tools: list[dict[str, Any]]) -> Any:
    """A bare ASGI app that does for a ``tools/call`` POST only what an acknowledgement cannot skip: read
    the body, parse the JSON-RPC request, one SendMessage of its arguments (to the queue URL the request
    names in ``params.queue_url``, else ``queue_url``) in a kept thread, as ``SqsJobQueue`` sends, and
    answer a ``memory_write``-shaped result (text and structured content) naming the message id. No MCP
    SDK, no Starlette, no auth, no rate limit, no input checks, no operation log: the write path's floor
    on this machine, in the same run (``floor_bare_asgi``). For the official MCP client
    (``floor_official_client``) it also answers ``initialize`` (legacy era), ``tools/list`` (``tools``)
    and notifications (202). ``GET /healthz`` answers 200."""
    import uuid
    from concurrent.futures import ThreadPoolExecutor

    from hindsight.adapters.sqs_queue import sqs_client

    sqs = sqs_client("us-east-1", endpoint)
    threads = ThreadPoolExecutor(4, thread_name_prefix="floor-send")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (message := await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        answer: dict[str, Any] = {"status": "ok"}
        if scope["method"] == "POST":
            request = json.loads(body)
            if "id" not in request:  # a notification (notifications/initialized)
                await send({"type": "http.response.start", "status": 202, "headers": []})
                await send({"type": "http.response.body", "body": b""})
                return
            params = request.get("params") or {}
            result: dict[str, Any]
            if request["method"] == "initialize":
                result = {
                    "protocolVersion": params["protocolVersion"],
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": "floor", "version": "0"},
                }
            elif request["method"] == "tools/list":
                result = {"tools": tools}
            else:
                sent = await asyncio.wrap_future(
                    threads.submit(
                        sqs.send_message,
                        QueueUrl=params.get("queue_url", queue_url),
                        MessageBody=json.dumps(params["arguments"]),
                        MessageAttributes={
                            "kind": {"DataType": "String", "StringValue": "memory.write"},
                            "tenant_id": {"DataType": "String", "StringValue": "floor"},
                        },
                    )
                )
                ack = {
                    "id": str(uuid.UUID(sent["MessageId"])),
                    "status": "queued",
                    "submitted_at": "2026-12-07T00:00:00Z",
                }
                result = {
                    "content": [{"type": "text", "text": json.dumps(ack, indent=2)}],
                    "structuredContent": ack,
                    "isError": False,
                }
            answer = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        data = json.dumps(answer).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": data})

    return app


class ServerProcess:
    """The MCP server in a spawned process (context manager); ``url`` once it answers /healthz."""

    def __init__(self, settings: Settings, log_file: Path, floor_endpoint: str | None = None) -> None:
        """``floor_endpoint``: serve the floor app (``_floor_app``, SQS at that endpoint, the settings'
        write queue, the MCP server's tools) instead."""
        from hindsight.local.ports import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        if floor_endpoint is None:
            target: Any = _serve
            args: tuple[Any, ...] = (settings.replace(http_port=self.port), self.port, log_file)
        else:
            tools_file = log_file.with_name("floor-tools.json")
            tools_file.write_text(json.dumps(_tool_list()))
            target = _serve_floor
            args = (floor_endpoint, self.port, settings.write_queue_url, tools_file)
        self._proc = multiprocessing.get_context("spawn").Process(target=target, args=args, daemon=True)

    def __enter__(self) -> ServerProcess:
        import urllib.request

        self._proc.start()
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return self
            except OSError:
                if time.monotonic() > deadline or not self._proc.is_alive():
                    self._proc.terminate()
                    raise RuntimeError("the MCP server process did not start") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        self._proc.terminate()
        self._proc.join(10)


def _tool_list() -> list[dict[str, Any]]:
    """The MCP server's ``tools/list`` answer (JSON), as the floor app gives it to the official client."""
    from hindsight.api.mcp_context import ContainerHolder
    from hindsight.api.mcp_server import create_mcp_server

    async def factory() -> Any:
        raise RuntimeError("the tool list needs no container")

    tools = asyncio.run(create_mcp_server(ContainerHolder(), Settings(), factory).list_tools())
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]


def _write_args(m: synthetic.Memory) -> dict[str, Any]:
    args: dict[str, Any] = {
        "content": m.content,
        "layer": m.layer,
        "importance": m.importance,
        "tags": m.tags,
        "entities": m.entities,
        "metadata": m.metadata,
    }
    if m.key:
        args["key"] = m.key
    if m.layer == "episodic":
        args["occurred_at"] = m.occurred_at.isoformat()
    return args


RAW_HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": "2025-11-25",
}
"""What a client posting JSON-RPC itself sends (streamable HTTP: both media types accepted)."""


async def _raw_write(http: Any, url: str, rpc_id: int, args: dict[str, Any]) -> dict[str, Any]:
    """One ``memory_write`` as a bare JSON-RPC ``tools/call`` POST; its structured result. Raises
    RuntimeError on anything but a 200 with a result."""
    body = {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "tools/call",
        "params": {"name": "memory_write", "arguments": args},
    }
    response = await http.post(url, json=body)
    answer = response.json() if response.status_code == 200 else {}
    if "result" not in answer:
        raise RuntimeError(f"raw tools/call answered {response.status_code}: {response.text[:300]}")
    return dict(answer["result"].get("structuredContent") or {})


def _row(samples: list[float], sends: list[float]) -> dict[str, Any]:
    """Percentiles of ``samples`` (ms) with their p50 ratio and median per-round ratio to ``sends``."""
    send_p50 = statistics.median(sends)
    return {
        **percentiles(samples),
        "ratio_p50": round(statistics.median(samples) / send_p50, 3),
        "ratio_per_round_median": round(
            statistics.median(a / s for a, s in zip(samples, sends, strict=True)), 3
        ),
    }


async def _floor_post(http: Any, url: str, rpc_id: int, args: dict[str, Any], queue_url: str) -> None:
    """The raw write's request to the floor app (``_floor_app``). Raises RuntimeError unless queued."""
    body = {
        "jsonrpc": "2.0",
        "id": rpc_id,
        "method": "tools/call",
        "params": {"name": "memory_write", "arguments": args, "queue_url": queue_url},
    }
    response = await http.post(url, json=body)
    answer = response.json() if response.status_code == 200 else {}
    if (answer.get("result") or {}).get("structuredContent", {}).get("status") != "queued":
        raise RuntimeError(f"floor answered {response.status_code}: {response.text[:300]}")


async def interleaved(
    url: str,
    token: str,
    endpoint: str,
    queue_url: str,
    count: int,
    warmup: int,
    floor_url: str | None = None,
) -> dict[str, Any]:
    """``count`` rounds (after ``warmup``) of SendMessage, memory_write through the official client,
    memory_write as a raw JSON-RPC POST and, with ``floor_url``, the raw POST's request to the floor app
    (``_floor_app``) and the same write through the official client to it. Returns the official client's
    percentiles (ms) with its p50 ratio and median per-round ratio, SendMessage's percentiles, and
    ``raw_http``'s, ``floor_bare_asgi``'s and ``floor_official_client``'s rows alike.

    Raises RuntimeError if an acknowledgement is not ``queued``."""
    import httpx2

    from hindsight.adapters.sqs_queue import sqs_client

    sqs = sqs_client("us-east-1", endpoint)
    memories = synthetic.memories(count + warmup, seed=99)
    acks: list[float] = []
    raws: list[float] = []
    floors: list[float] = []
    floor_clients: list[float] = []
    sends: list[float] = []
    headers = {**RAW_HEADERS, "Authorization": f"Bearer {token}"}
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(connect(url, token, mode="legacy"))
        http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers, timeout=60))
        if floor_url is not None:
            floor_client = await stack.enter_async_context(connect(floor_url, token, mode="legacy"))
        for i, m in enumerate(memories):
            args = _write_args(m)
            body = json.dumps(args)
            started = time.perf_counter()
            sqs.send_message(QueueUrl=queue_url, MessageBody=body)
            sent = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            ack = await call(client, "memory_write", args)
            acked = (time.perf_counter() - started) * 1000
            raw_args = {**args, "content": f"{args['content']} (again)"}  # not a duplicate of the first
            started = time.perf_counter()
            raw = await _raw_write(http, url, i, raw_args)
            raw_acked = (time.perf_counter() - started) * 1000
            if ack.get("status") != "queued" or raw.get("status") != "queued":
                raise RuntimeError(f"unexpected ack {ack} / {raw}")
            if floor_url is not None:
                started = time.perf_counter()
                await _floor_post(http, floor_url, i, raw_args, queue_url)
                floors.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                floored = await call(floor_client, "memory_write", raw_args)
                floor_clients.append((time.perf_counter() - started) * 1000)
                if floored.get("status") != "queued":
                    raise RuntimeError(f"floor answered the official client {floored}")
            if i >= warmup:
                sends.append(sent)
                acks.append(acked)
                raws.append(raw_acked)
    floor = (
        {
            "floor_bare_asgi": _row(floors[warmup:], sends),
            "floor_official_client": _row(floor_clients[warmup:], sends),
        }
        if floors
        else {}
    )
    return {
        **_row(acks, sends),
        "sqs_send_message_alone": percentiles(sends),
        "raw_http": _row(raws, sends),
        **floor,
        "protocol": "interleaved rounds: SendMessage, memory_write through the official MCP client, "
        "memory_write as a raw JSON-RPC POST"
        + (
            ", the raw POST to a bare ASGI app doing only its SendMessage (floor), the same write through "
            "the official MCP client to that app"
            if floors
            else ""
        )
        + "; MCP server (and floor app) each in its own process",
    }


def measure(
    settings: Settings,
    token: str,
    count: int,
    warmup: int,
    no_rate_limit: dict[str, int],
    floor: bool = False,
) -> dict[str, Any]:
    """The interleaved measurement with a fresh emulator and server process (see the module doc).
    ``floor``: also the floor app's row (``floor_bare_asgi``). Its SendMessage goes to the same queue,
    so a run with it queues four messages a round instead of three; moto as released takes longer per
    send the deeper the queue, so compare ratios only between runs with the same setting."""
    with external_sqs() as (endpoint, queues):
        server_settings = settings.replace(
            write_queue_url=queues.writes, aws_endpoint_url=endpoint, **no_rate_limit
        )
        log_file = bench_tmpdir("write-ack-logs") / "server.log"
        with contextlib.ExitStack() as stack:
            server = stack.enter_context(ServerProcess(server_settings, log_file))
            floor_url = None
            if floor:
                floor_url = stack.enter_context(ServerProcess(server_settings, log_file, endpoint)).url
            result = asyncio.run(
                interleaved(server.url, token, endpoint, queues.writes, count, warmup, floor_url)
            )
        parts = log_file.with_name("server-parts.json")
        if parts.exists():
            result["server_parts_p50_ms"] = json.loads(parts.read_text())
        return result


def main() -> None:
    from hindsight.local.stack import LocalStack

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--record", action="store_true", help="merge into bench/results/latest.json")
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also post each raw write to a bare ASGI app doing only its SendMessage (floor_bare_asgi)",
    )
    args = parser.parse_args()
    from latency import NO_RATE_LIMIT, TENANT

    with LocalStack(bench_tmpdir("write-ack"), ephemeral=True) as stack:
        result = measure(
            stack.require_settings(),
            stack.mint_token(TENANT, "bench"),
            args.count,
            args.warmup,
            NO_RATE_LIMIT,
            floor=args.floor,
        )
    log(json.dumps(result, indent=1))
    if args.record:
        command = "python bench/write_ack.py " + " ".join(sys.argv[1:])
        merge_results("write_ack", result, command)
        merge_results("write_ack_p50_ms", result["p50"], command)


if __name__ == "__main__":
    main()
