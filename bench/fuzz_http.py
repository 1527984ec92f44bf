"""Coverage-guided fuzzing of the HTTP layer with atheris (libFuzzer), bounded in time (issue 16).

    .venv/bin/python bench/fuzz_http.py --seconds 60        # what `make bench-chaos` runs after the soak

Each input becomes one POST to ``/mcp`` of the real ASGI app (``create_http_app``: the request guard,
the MCP SDK's JSON-RPC parsing, the tools' argument models and the use cases behind them), in process
through httpx's ASGI transport, with a valid API key of a throw-away embedded stack (hash embeddings,
rate limits off). The fuzz data picks one of three shapes: raw body bytes; a ``tools/call`` of a real
tool with JSON arguments decoded from the data; or a JSON-RPC envelope with a method and params from the
data. Coverage is collected over ``hindsight.*`` (``atheris.instrument_imports``).

A *crash* is any answer a client could not trust: an exception out of the app, an HTTP 5xx, a 200 whose
body is not JSON-RPC, or a tool result with ``isError`` and no structured error (the SDK's wrapping of an
unexpected exception). Crashing inputs are saved under ``--crashes``; the run continues. Reported:
executions, executions per second, crashes by kind, coverage features (libFuzzer's ``cov``). The fuzzer
runs in a child process (libFuzzer ends its process when time is up); the parent owns the stack.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "fuzz_http.json"
TOOLS = [
    "memory_write", "memory_search", "memory_status", "memory_get", "memory_update", "memory_forget",
    "memory_link", "memory_recall_chain", "memory_feedback", "task_reflect", "working_memory_set",
    "working_memory_get", "working_memory_clear", "working_memory_promote",
]  # fmt: skip
METHODS = ["tools/call", "tools/list", "initialize", "ping", "server/discover", "resources/list", "x"]
SEEDS = [
    b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_write",'
    b'"arguments":{"content":"Ana prefers tea","importance":0.7}}}',
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_search",'
    b'"arguments":{"query":"tea","top_k":3}}}',
    b'[{"jsonrpc":"2.0","id":4,"method":"ping"}]',
]


# ---- the child: the fuzz target ------------------------------------------------------------------


def child(settings_json: Path, token: str, crashes: Path, stats: Path, seconds: int, corpus: Path) -> None:
    import atheris

    with atheris.instrument_imports(include=["hindsight"]):
        from hindsight.api.mcp_server import create_http_app
        from hindsight.bootstrap import build_container
        from hindsight.config import Settings

    import httpx2
    from asgi_lifespan import LifespanManager

    settings = Settings.load(**json.loads(settings_json.read_text()))
    app = create_http_app(settings, lambda: build_container(settings))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)

    async def setup() -> httpx2.AsyncClient:  # inside the loop: both look up the running async library
        manager = LifespanManager(app, startup_timeout=120)
        await manager.__aenter__()
        transport = httpx2.ASGITransport(app=manager.app)
        return httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=60)

    client = loop.run_until_complete(setup())
    headers = {
        "authorization": f"Bearer {token}",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
    }
    counts: Counter[str] = Counter()

    def body_from(data: bytes) -> bytes:
        fdp = atheris.FuzzedDataProvider(data)
        shape = fdp.ConsumeIntInRange(0, 2)
        if shape == 0:
            return fdp.ConsumeBytes(fdp.remaining_bytes())
        if shape == 1:
            tool = TOOLS[fdp.ConsumeIntInRange(0, len(TOOLS) - 1)]
            text = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
            try:
                arguments: Any = json.loads(text)
            except ValueError:
                arguments = {"content": text, "query": text}
            params = {"name": tool, "arguments": arguments}
            return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode()
        method = METHODS[fdp.ConsumeIntInRange(0, len(METHODS) - 1)]
        text = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
        try:
            params = json.loads(text)
        except ValueError:
            params = text
        return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()

    def crash(kind: str, data: bytes, detail: str) -> None:
        counts[kind] += 1
        name = hashlib.sha256(data).hexdigest()[:16]
        (crashes / f"{kind}-{name}").write_bytes(data)
        (crashes / f"{kind}-{name}.txt").write_text(detail[:4000])

    def target(data: bytes) -> None:
        counts["executions"] += 1
        body = body_from(data)
        try:
            response = loop.run_until_complete(client.post("/mcp", content=body, headers=headers))
        except Exception as exc:
            crash("exception", body, f"{type(exc).__name__}: {exc}")
            return
        if response.status_code >= 500:
            crash(f"http{response.status_code}", body, response.text)
        elif response.status_code == 200 and response.content:
            try:
                message = response.json()
            except ValueError:
                crash("not_json", body, response.text)
                return
            result = message.get("result") if isinstance(message, dict) else None
            if isinstance(result, dict) and result.get("isError"):
                structured = result.get("structuredContent")
                if not (isinstance(structured, dict) and isinstance(structured.get("error"), dict)):
                    crash("unstructured_error", body, json.dumps(result)[:4000])
        else:
            counts[f"http{response.status_code}"] += 1
        if counts["executions"] % 200 == 0:
            stats.write_text(json.dumps(counts))

    corpus.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(SEEDS):
        (corpus / f"seed-{i}").write_bytes(seed)
    atheris.Setup(
        [sys.argv[0], f"-max_total_time={seconds}", "-print_final_stats=1", "-timeout=60", str(corpus)],
        target,
    )
    import atexit

    atexit.register(lambda: stats.write_text(json.dumps(counts)))
    atheris.Fuzz()


# ---- the parent: a stack, the child, the report -----------------------------------------------------


def fuzz(seconds: int, crashes: Path) -> dict[str, Any]:
    """Run the fuzzer for ``seconds`` against a throw-away stack; the report (executions, crashes, …)."""
    from hindsight.local.stack import LocalStack

    try:
        import atheris  # noqa: F401 - in the [bench] extra, x86_64 CPython 3.11 only
    except ImportError:
        return {"seconds": seconds, "skipped": "atheris is not installed (pip install -e '.[bench]')",
                "executions": 0, "crashes": 0}  # fmt: skip
    crashes.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="hindsight-fuzz-") as tmp:
        work = Path(tmp)
        stack = LocalStack(work / "stack", ephemeral=True, embedder="hash", rate_limit_per_minute=0,
                           rate_limit_writes_per_minute=0)  # fmt: skip
        with stack:
            token = stack.mint_token("fuzz")
            settings = stack.require_settings()
            values = {
                k: (v.get_secret_value() if hasattr(v, "get_secret_value") else v)
                for k, v in settings.model_dump().items()
                if v is not None
            }
            (work / "settings.json").write_text(json.dumps(values, default=str))
            stats = work / "stats.json"
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    str(work / "settings.json"),
                    token,
                    str(crashes),
                    str(stats),
                    str(seconds),
                    str(work / "corpus"),
                ],
                capture_output=True,
                text=True,
                timeout=seconds + 300,
                cwd=ROOT,
                env={**os.environ, "POWERTOOLS_TRACE_DISABLED": "true"},
            )
    log = done.stderr
    (crashes / "fuzzer.log").write_text(log)
    counts = json.loads(stats.read_text()) if stats.exists() else {}
    executed = _stat(log, "stat::number_of_executed_units") or counts.get("executions", 0)
    crash_kinds = {k: v for k, v in counts.items() if k in ("exception", "not_json", "unstructured_error")
                   or (k.startswith("http5"))}  # fmt: skip
    cov = re.findall(r"cov: (\d+)", log)
    return {
        "seconds": seconds,
        "executions": executed,
        "executions_per_s": round(executed / seconds, 1) if seconds else 0,
        "coverage_features": int(cov[-1]) if cov else None,
        "crashes": sum(crash_kinds.values()),
        "crashes_by_kind": crash_kinds,
        "answers": {k: v for k, v in counts.items() if k.startswith("http4")},
        "child_exit": done.returncode,
        "crash_inputs": str(crashes),
        "log_tail": log.splitlines()[-5:],
    }


def _stat(log: str, name: str) -> int:
    found = re.findall(rf"{re.escape(name)}:\s*(\d+)", log)
    return int(found[-1]) if found else 0


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        settings_json, token, crashes, stats, seconds, corpus = sys.argv[2:8]
        sys.argv = sys.argv[:1]
        child(Path(settings_json), token, Path(crashes), Path(stats), int(seconds), Path(corpus))
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--crashes", type=Path, default=ROOT / "bench" / "results" / "fuzz-crashes")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    result = fuzz(args.seconds, args.crashes)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 1 if result["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
