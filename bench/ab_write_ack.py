"""Same-run A/B of the write acknowledgement (issue 15) between two checkouts of this repository.

    python bench/ab_write_ack.py <baseline checkout> <candidate checkout> [--count 300] [--warmup 20]
                                 [--mode legacy|2026-07-28] [--fast-sqs] [--record] [--note TEXT]

One local stack (Postgres, Redis) and one SQS emulator (moto server, a process of its own:
``common.external_sqs``) serve both sides. Each checkout gets two processes of its own, started with
``PYTHONPATH=<checkout>/shared:<checkout>:<this bench folder>`` (the product code is the checkout's, the
harness is this one) and the settings the SAM template gives the functions (``HINDSIGHT_*`` variables,
rate limits on at a budget no round reaches, so the limiter runs):

* ``http``: the MCP HTTP app under uvicorn (``write_ack._serve``: the parts of a write timed inside it);
  this process is the client of both, ``memory_write`` through the official MCP client (the headline)
  and as a raw JSON-RPC POST over a kept-alive connection (``write_ack._raw_write``);
* ``lambda``: the MCP function's handler (``functions/mcp_http/app.py``) invoked in-process with the
  Function URL event (``tests/events/function_url_memory_write.json``, the body a ``memory_write`` of
  the round's arguments), after a plain SendMessage of a write-sized body from the same process: the
  acknowledgement as the handler sees it (event in, response out: everything we own) against SQS alone.

Every round gives both sides the same write: SendMessage from this process, then each side's HTTP
write (official client, then raw POST), then each side's in-process Lambda round; which side goes first
alternates by round, so both see the same drift of this shared machine's load. No worker runs: the
acknowledgement is measured, not storage. Prints p50/p95/p99 per side and path, each path's p50 over
its SendMessage p50 (``ratio_p50``: the issue's target is 1.2), the medians of per-round B/A ratios,
and the load average; ``--record`` writes the result into ``bench/results/latest.json`` (section
``ab_write_ack``).

``--fast-sqs``: the emulator's per-call cost independent of the queue's depth (``hindsight.local.moto_sqs``,
as the local stack runs it). As released, moto's SendMessage slows down as the rounds fill the queue (from
~30 to ~80 ms over 200 rounds on this machine), so a difference of a millisecond is a few per cent of a
drifting figure; with it, SendMessage stays at a few ms and the A/B sees such differences. The issue's
ratio is against moto as released (the default).
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


# ---- children: one checkout's server or Lambda handler ------------------------------------------


def serve_child(port: int, log_file: Path) -> None:
    """The checkout's MCP HTTP app on 127.0.0.1:``port`` (settings from the environment) until
    terminated; the server parts' medians are written next to ``log_file`` (``write_ack._serve``)."""
    from write_ack import _serve

    from hindsight.config import Settings

    _serve(Settings.load(http_port=port), port, log_file)


def lambda_child() -> None:
    """Answer rounds (JSON lines on stdin: ``{"args", "id", "token"}``) with ``{"send_ms", "ack_ms"}``:
    a SendMessage of the arguments' JSON, then the checkout's MCP function handler on a Function URL
    event of ``memory_write`` with them. Settings come from the environment, as in Lambda."""
    proto = os.fdopen(os.dup(1), "w", buffering=1)  # the protocol owns stdout; the function logs to stderr
    os.dup2(2, 1)
    import logging

    logging.basicConfig(
        level=logging.WARNING
    )  # as the Lambda runtime's root handler: library INFO is dropped
    from functions.mcp_http import app
    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.local.poller import LocalLambdaContext

    template = json.loads((HERE.parent / "tests" / "events" / "function_url_memory_write.json").read_text())
    sqs = sqs_client(os.environ["AWS_DEFAULT_REGION"], os.environ["HINDSIGHT_AWS_ENDPOINT_URL"])
    queue_url = os.environ["HINDSIGHT_WRITE_QUEUE_URL"]
    context = LocalLambdaContext("McpHttpFunction", timeout_s=900)
    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        ask = json.loads(line)
        event = copy.deepcopy(template)
        event["headers"]["authorization"] = f"Bearer {ask['token']}"
        event["requestContext"]["requestId"] = f"ab-{ask['id']}"
        event["body"] = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": ask["id"],
                "method": "tools/call",
                "params": {"name": "memory_write", "arguments": ask["args"]},
            }
        )
        started = time.perf_counter()
        sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(ask["args"]))
        sent = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        response = app.handler(event, context)
        acked = (time.perf_counter() - started) * 1000
        body = json.loads(response.get("body") or "{}")
        status = ((body.get("result") or {}).get("structuredContent") or {}).get("status")
        proto.write(json.dumps({"send_ms": sent, "ack_ms": acked, "status": status}) + "\n")


# ---- parent ----------------------------------------------------------------------------------------


class Side:
    """One checkout: its HTTP server and its Lambda child."""

    def __init__(self, label: str, checkout: Path, env: dict[str, str], logs: Path) -> None:
        from hindsight.local.ports import free_port

        self.label, self.checkout = label, checkout.resolve()
        self.env = {
            **env,
            "PYTHONPATH": os.pathsep.join([str(self.checkout / "shared"), str(self.checkout), str(HERE)]),
        }
        from common import checkout_sha

        self.sha = checkout_sha(self.checkout)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        (logs / label).mkdir(exist_ok=True)
        self.log_file = logs / label / "server.log"  # server-parts.json goes next to it
        stderr = (logs / f"{label}-http.err").open("w")
        self.http = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(self.port), str(self.log_file)],
            env=self.env,
            stdout=stderr,
            stderr=stderr,
        )
        self.lam = subprocess.Popen(
            [sys.executable, __file__, "--lambda"],
            env={**self.env, "HINDSIGHT_ALLOWED_HOSTS": '["*"]'},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=(logs / f"{label}-lambda.err").open("w"),
            text=True,
        )
        self.acks: list[float] = []
        self.raws: list[float] = []
        self.lambda_acks: list[float] = []
        self.lambda_sends: list[float] = []
        self.cpu_marks: list[tuple[float, float]] = []

    def wait_ready(self) -> None:
        """Until the server answers /healthz and the Lambda child says ready. Raises RuntimeError."""
        import urllib.request

        assert self.lam.stdout is not None
        if not json.loads(self.lam.stdout.readline() or "{}").get("ready"):
            raise RuntimeError(f"side {self.label}: the Lambda child did not start (see its .err log)")
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                if time.monotonic() > deadline or self.http.poll() is not None:
                    raise RuntimeError(f"side {self.label}: the MCP server did not start") from None
                time.sleep(0.2)

    def lambda_round(self, args: dict[str, Any], rpc_id: int, token: str, keep: bool) -> None:
        """One in-process SendMessage + handler round. Raises RuntimeError unless the ack is queued."""
        assert self.lam.stdin is not None
        assert self.lam.stdout is not None
        self.lam.stdin.write(json.dumps({"args": args, "id": rpc_id, "token": token}) + "\n")
        self.lam.stdin.flush()
        answer = json.loads(self.lam.stdout.readline() or "{}")
        if answer.get("status") != "queued":
            raise RuntimeError(f"side {self.label}: Lambda answer {answer}")
        if keep:
            self.lambda_sends.append(answer["send_ms"])
            self.lambda_acks.append(answer["ack_ms"])

    def cpu_mark(self) -> None:
        """Note the CPU time (user + system, all threads) the HTTP server and the Lambda child have used."""
        import psutil

        self.cpu_marks.append(
            tuple(sum(psutil.Process(p.pid).cpu_times()[:2]) for p in (self.http, self.lam))  # type: ignore[misc]
        )

    def cpu_per_round(self, rounds: int) -> dict[str, float] | None:
        """CPU ms per kept round of the HTTP server (one official-client write and one raw POST, with
        their SendMessages in its send thread) and of the Lambda child (a SendMessage and one handler
        invocation): load-independent where wall times are not, on a shared machine."""
        if len(self.cpu_marks) < 2 or not rounds:
            return None
        (http0, lam0), (http1, lam1) = self.cpu_marks[0], self.cpu_marks[-1]
        return {
            "http_server": round((http1 - http0) * 1000 / rounds, 2),
            "lambda_child": round((lam1 - lam0) * 1000 / rounds, 2),
        }

    def parts(self) -> dict[str, float] | None:
        path = self.log_file.with_name("server-parts.json")
        return json.loads(path.read_text()) if path.exists() else None

    def close(self) -> None:
        for proc in (self.http, self.lam):
            if proc.stdin is not None:
                proc.stdin.close()
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


async def _rounds(
    a: Side,
    b: Side,
    token: str,
    endpoint: str,
    queue_url: str,
    count: int,
    warmup: int,
    mode: str = "legacy",
) -> list[float]:
    """Run the rounds (see the module doc); returns SendMessage's times (ms) from this process. ``mode``:
    the protocol era the official client speaks (``hindsight.client.connect``); the raw POST and the
    Lambda event stay 2025-11-25 requests."""
    import httpx2
    import synthetic
    from write_ack import RAW_HEADERS, _raw_write, _write_args

    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.client import call, connect

    sqs = sqs_client("us-east-1", endpoint)
    sends: list[float] = []
    headers = {**RAW_HEADERS, "Authorization": f"Bearer {token}"}
    async with (
        connect(a.url, token, mode=mode) as client_a,
        connect(b.url, token, mode=mode) as client_b,
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
    ):
        clients = {a.label: client_a, b.label: client_b}
        for i, m in enumerate(synthetic.memories(count + warmup, seed=99)):
            keep = i >= warmup
            if i == warmup:
                for side in (a, b):
                    side.cpu_mark()
            args = _write_args(m)
            started = time.perf_counter()
            sqs.send_message(QueueUrl=queue_url, MessageBody=json.dumps(args))
            if keep:
                sends.append((time.perf_counter() - started) * 1000)
            order = (a, b) if i % 2 == 0 else (b, a)
            for side in order:
                started = time.perf_counter()
                ack = await call(clients[side.label], "memory_write", args)
                acked = (time.perf_counter() - started) * 1000
                raw_args = {**args, "content": f"{args['content']} (again)"}
                started = time.perf_counter()
                raw = await _raw_write(http, side.url, i, raw_args)
                raw_acked = (time.perf_counter() - started) * 1000
                if ack.get("status") != "queued" or raw.get("status") != "queued":
                    raise RuntimeError(f"side {side.label}: unexpected ack {ack} / {raw}")
                if keep:
                    side.acks.append(acked)
                    side.raws.append(raw_acked)
            for side in order:
                side.lambda_round(args, i, token, keep)
    for side in (a, b):
        side.cpu_mark()
    return sends


def _row(samples: list[float], sends: list[float]) -> dict[str, Any]:
    """Percentiles (ms), the p50 over SendMessage's p50, and ``over_send_p50_ms``: the median of the
    per-round differences to that round's SendMessage (what the path adds; steadier than the ratio when
    the machine's load slows the emulator down)."""
    from common import percentiles

    return {
        **percentiles(samples),
        "ratio_p50": round(statistics.median(samples) / statistics.median(sends), 3),
        "over_send_p50_ms": round(statistics.median(x - s for x, s in zip(samples, sends, strict=True)), 2),
    }


def _b_over_a(b: list[float], a: list[float]) -> dict[str, float]:
    return {
        "p50_ratio": round(statistics.median(b) / statistics.median(a), 3),
        "per_round_median_ratio": round(statistics.median(y / x for x, y in zip(a, b, strict=True)), 3),
    }


def summarise(a: Side, b: Side, sends: list[float]) -> dict[str, Any]:
    """Per side and path: percentiles and ratio to its SendMessage; B/A per path."""
    from common import percentiles

    result: dict[str, Any] = {"sqs_send_message_alone": percentiles(sends)}
    for side in (a, b):
        result[side.label] = {
            "sha": side.sha,
            "checkout": str(side.checkout),
            "mcp_client": _row(side.acks, sends),
            "raw_http": _row(side.raws, sends),
            "lambda_handler": _row(side.lambda_acks, side.lambda_sends),
            "lambda_send_message_alone": percentiles(side.lambda_sends),
            "server_parts_p50_ms": side.parts(),
            "cpu_ms_per_round": side.cpu_per_round(len(sends)),
        }
    result["b_over_a"] = {
        "mcp_client": _b_over_a(b.acks, a.acks),
        "raw_http": _b_over_a(b.raws, a.raws),
        "lambda_handler": _b_over_a(b.lambda_acks, a.lambda_acks),
    }
    result["b_minus_a_over_send_p50_ms"] = {
        path: round(result["b"][path]["over_send_p50_ms"] - result["a"][path]["over_send_p50_ms"], 2)
        for path in ("mcp_client", "raw_http", "lambda_handler")
    }
    return result


def _stack_env(settings: Any, endpoint: str, queue_url: str) -> dict[str, str]:
    """What the SAM template gives the MCP function, pointed at the local stack and the emulator."""
    from latency import NO_RATE_LIMIT

    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(
        {
            "HINDSIGHT_DATABASE_URL": settings.require_database_url(),
            "HINDSIGHT_REDIS_URL": settings.redis_url,
            "HINDSIGHT_WRITE_QUEUE_URL": queue_url,
            "HINDSIGHT_AWS_ENDPOINT_URL": endpoint,
            "HINDSIGHT_RATE_LIMIT_PER_MINUTE": str(NO_RATE_LIMIT["rate_limit_per_minute"]),
            "HINDSIGHT_RATE_LIMIT_WRITES_PER_MINUTE": str(NO_RATE_LIMIT["rate_limit_writes_per_minute"]),
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", type=Path, nargs="?")
    parser.add_argument("candidate", type=Path, nargs="?")
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--record", action="store_true", help="merge into bench/results/latest.json")
    parser.add_argument("--note", default="", help="what the pair isolates, for the report")
    parser.add_argument(
        "--mode",
        default="legacy",
        choices=["legacy", "2026-07-28"],
        help="the official client's protocol era: legacy = 2025-11-25 with initialize (default), "
        "2026-07-28 = stateless with server/discover",
    )
    parser.add_argument(
        "--fast-sqs", action="store_true", help="moto's per-call cost independent of the queue's depth"
    )
    parser.add_argument("--out", type=Path, help="also write the result (JSON) to this file")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "LOG_FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--lambda", dest="lambda_", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve_child(int(args.serve[0]), Path(args.serve[1]))
        return
    if args.lambda_:
        lambda_child()
        return
    if args.baseline is None or args.candidate is None:
        parser.error("give the baseline and the candidate checkouts")

    from common import bench_tmpdir, external_sqs, log, merge_results
    from latency import TENANT

    from hindsight.local.sqs_emulator import use_dummy_aws_credentials
    from hindsight.local.stack import LocalStack

    use_dummy_aws_credentials()
    logs = bench_tmpdir("ab-write-ack")
    log(f"child logs in {logs}")
    with LocalStack(bench_tmpdir("ab-write-ack-stack"), ephemeral=True) as stack:
        token = stack.mint_token(TENANT, "bench")
        with external_sqs(speed_up=args.fast_sqs) as (endpoint, queues):
            env = _stack_env(stack.require_settings(), endpoint, queues.writes)
            a = Side("a", args.baseline, env, logs)
            b = Side("b", args.candidate, env, logs)
            try:
                a.wait_ready()
                b.wait_ready()
                load_before = os.getloadavg()
                sends = asyncio.run(
                    _rounds(a, b, token, endpoint, queues.writes, args.count, args.warmup, args.mode)
                )
                load_after = os.getloadavg()
            finally:
                a.close()
                b.close()
    result = summarise(a, b, sends)
    result["rounds"] = args.count
    result["client_mode"] = args.mode
    result["sqs_emulator"] = "moto, depth-independent (--fast-sqs)" if args.fast_sqs else "moto as released"
    result["note"] = args.note
    result["load_1_5_15_before"] = [round(x, 2) for x in load_before]
    result["load_1_5_15_after"] = [round(x, 2) for x in load_after]
    log(json.dumps(result, indent=1))
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=1))
    if args.record:
        merge_results("ab_write_ack", result, "python " + shlex.join(sys.argv))


if __name__ == "__main__":
    main()
