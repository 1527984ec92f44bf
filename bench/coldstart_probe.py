"""One Lambda cold start, in a fresh interpreter: import ``functions/<name>/app.py``, invoke it with canonical
events, print the timings as JSON on the last line. Run by bench/latency.py, once per repetition:

    python bench/coldstart_probe.py mcp_http events.json     # events.json: a list of events, in order

The first event is the cold invocation; the others show the first call that loads the model (a search
or a write batch) and a warm one. Nothing but the standard library is imported before the timer starts.
Each call's ``ms`` is wall time; ``cpu_ms`` is this process's CPU time (user + system, all threads) over
the same span, less sensitive to what else runs on a shared machine.
"""

from __future__ import annotations

import time

STARTED = time.perf_counter()

import importlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402


class Context:
    """The attributes of a Lambda context object that handlers and Powertools read."""

    def __init__(self, name: str) -> None:
        self.function_name = name
        self.memory_limit_in_mb = 1024
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{name}"
        self.aws_request_id = str(uuid.uuid4())
        self._deadline = time.monotonic() + 60

    def get_remaining_time_in_millis(self) -> int:
        return int((self._deadline - time.monotonic()) * 1000)


def main() -> None:
    name, events_path = sys.argv[1], Path(sys.argv[2])
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    events = json.loads(events_path.read_text())
    t0, c0 = time.perf_counter(), time.process_time()
    module = importlib.import_module(f"functions.{name}.app")
    t1, c1 = time.perf_counter(), time.process_time()
    calls = []
    for event in events:
        started, cpu_started = time.perf_counter(), time.process_time()
        response = module.handler(event, Context(name))
        elapsed = (time.perf_counter() - started) * 1000
        cpu = (time.process_time() - cpu_started) * 1000
        status = response.get("statusCode", 200) if isinstance(response, dict) else None
        failures = len(response.get("batchItemFailures", [])) if isinstance(response, dict) else None
        calls.append(
            {"ms": round(elapsed, 1), "cpu_ms": round(cpu, 1), "status": status, "batch_failures": failures}
        )
    print(
        json.dumps(
            {
                "function": name,
                "before_import_ms": round((t0 - STARTED) * 1000, 1),
                "import_ms": round((t1 - t0) * 1000, 1),
                "import_cpu_ms": round((c1 - c0) * 1000, 1),
                "calls": calls,
            }
        )
    )


if __name__ == "__main__":
    main()
