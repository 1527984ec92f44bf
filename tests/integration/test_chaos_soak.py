"""The short chaos soak (issue 16) in the suite: bench/chaos.py with a fixed seed, every fault kind once,
4 agents of 2 tenants, against its own ``hindsight run`` subprocess (about two minutes).

Pass or fail is decided by counts only — lost, duplicated, leaked, unapplied, working-memory mismatches,
server errors, errors outside a fault window, unexplained dead letters, unrecovered faults, each 0 —
never by a time: the run's timings vary with the machine, its invariants do not. The long soak with its
figures is ``make bench-chaos`` (docs/reliability.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
KINDS = [
    "kill_worker",
    "pause_worker",
    "kill_run",
    "restart_postgres",
    "restart_redis",
    "restart_sqs",
    "poison",
]
"""Every kind but ``pause_run`` (the long soak has it: a paused server only delays answers, and it is the
slowest to recover from)."""  # fmt: skip


def test_short_chaos_soak_loses_duplicates_and_leaks_nothing(tmp_path: Path) -> None:
    out = tmp_path / "chaos.json"
    command = [
        sys.executable, str(ROOT / "bench" / "chaos.py"),
        "--seed", "16", "--duration", "30", "--agents", "4", "--tenants", "2", "--workers", "1",
        "--visibility", "3", "--gap", "1", "2", "--overlap", "0", "--quiet-tail", "0",
        "--recovery-timeout", "120", "--settle-timeout", "120", "--fuzz-seconds", "0",
        "--faults", ",".join(KINDS), "--out", str(out), "--tmp", str(tmp_path),
        "--logs", str(tmp_path / "logs"),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT, check=False)
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr[-3000:]
    assert done.returncode == 0, "\n".join(lines[-40:]) + done.stderr[-3000:]
    assert lines[-1].startswith("chaos OK:"), lines[-1]
    result = json.loads(out.read_text())
    assert sorted(result["faults_by_kind"]) == sorted(KINDS), result["faults_by_kind"]
    counts = result["counts"]
    assert counts["acknowledged"] > 20
    for key in ("lost", "duplicated", "leaked", "unapplied", "wm_mismatch", "server_errors",
                "errors_outside_faults", "dlq_unexplained", "dlq_poison_missing", "unrecovered",
                "violations"):  # fmt: skip
        assert counts[key] == 0, (key, result["problems"][:10])
    assert result["run_starts"] == 2  # kill_run restarted it once
    assert result["poison_sent"] > counts["final_poison"] > 0
    assert counts["dlq_poison"] >= counts["final_poison"]  # the redrive path ran after the last restart
    assert sum(result["probes"].values()) > 0
