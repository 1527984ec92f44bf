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
    python bench/write_ack.py [--count 200] [--record]

``--record`` merges the result into bench/results/latest.json (then ``make bench-report``); each run also
reports where the server's time goes (``server_parts_p50_ms``: medians of the tool call, the SQS send, the
rate limiter, admission and the operation log, timed inside the server process).
"""

from __future__ import annotations

import argparse
import asyncio
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


class ServerProcess:
    """The MCP server in a spawned process (context manager); ``url`` once it answers /healthz."""

    def __init__(self, settings: Settings, log_file: Path) -> None:
        from hindsight.local.ports import free_port

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._proc = multiprocessing.get_context("spawn").Process(
            target=_serve, args=(settings.replace(http_port=self.port), self.port, log_file), daemon=True
        )

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


async def interleaved(
    url: str, token: str, endpoint: str, queue_url: str, count: int, warmup: int
) -> dict[str, Any]:
    """``count`` rounds (after ``warmup``) of SendMessage, memory_write through the official client, and
    memory_write as a raw JSON-RPC POST. Returns the official client's percentiles (ms) with its p50
    ratio and median per-round ratio, SendMessage's percentiles, and ``raw_http``'s row alike.

    Raises RuntimeError if an acknowledgement is not ``queued``."""
    import httpx2

    from hindsight.adapters.sqs_queue import sqs_client

    sqs = sqs_client("us-east-1", endpoint)
    memories = synthetic.memories(count + warmup, seed=99)
    acks: list[float] = []
    raws: list[float] = []
    sends: list[float] = []
    headers = {**RAW_HEADERS, "Authorization": f"Bearer {token}"}
    async with (
        connect(url, token, mode="legacy") as client,
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
    ):
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
            if i >= warmup:
                sends.append(sent)
                acks.append(acked)
                raws.append(raw_acked)
    return {
        **_row(acks, sends),
        "sqs_send_message_alone": percentiles(sends),
        "raw_http": _row(raws, sends),
        "protocol": "interleaved rounds: SendMessage, memory_write through the official MCP client, "
        "memory_write as a raw JSON-RPC POST; MCP server in its own process",
    }


def measure(
    settings: Settings, token: str, count: int, warmup: int, no_rate_limit: dict[str, int]
) -> dict[str, Any]:
    """The interleaved measurement with a fresh emulator and server process (see the module doc)."""
    with external_sqs() as (endpoint, queues):
        server_settings = settings.replace(
            write_queue_url=queues.writes, aws_endpoint_url=endpoint, **no_rate_limit
        )
        log_file = bench_tmpdir("write-ack-logs") / "server.log"
        with ServerProcess(server_settings, log_file) as server:
            result = asyncio.run(interleaved(server.url, token, endpoint, queues.writes, count, warmup))
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
    args = parser.parse_args()
    from latency import NO_RATE_LIMIT, TENANT

    with LocalStack(bench_tmpdir("write-ack"), ephemeral=True) as stack:
        result = measure(
            stack.require_settings(),
            stack.mint_token(TENANT, "bench"),
            args.count,
            args.warmup,
            NO_RATE_LIMIT,
        )
    log(json.dumps(result, indent=1))
    if args.record:
        command = "python bench/write_ack.py " + " ".join(sys.argv[1:])
        merge_results("write_ack", result, command)
        merge_results("write_ack_p50_ms", result["p50"], command)


if __name__ == "__main__":
    main()
