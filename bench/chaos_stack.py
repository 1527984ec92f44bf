"""The processes of the chaos soak and the faults it injects into them (bench/chaos.py).

Everything here is started by the soak itself, on 127.0.0.1, in a throw-away data folder: ``hindsight
run`` (embedded Postgres, a private Redis, the SQS emulator, the in-process workers, the MCP server) and
extra ``hindsight worker`` processes polling the same queues (what more Lambda instances are in AWS).
Faults only ever target these processes, found through that data folder — never the machine's own
Postgres or Redis.

Fault kinds (``FAULT_KINDS``) and what restores the service:

- ``kill_worker``: SIGKILL a ``hindsight worker`` mid-batch; the soak starts a new one after a short
  outage. Its messages come back after the visibility timeout.
- ``pause_worker`` / ``pause_run``: SIGSTOP a worker (or ``hindsight run`` itself) for longer than the
  queues' visibility timeout, then SIGCONT: its messages were delivered again meanwhile, and it resumes
  committing what another worker may already have stored.
- ``kill_run``: SIGKILL ``hindsight run``; the soak starts it again on the same port and data folder (as a
  supervisor would) and restarts the workers, whose queue endpoint changed.
- ``restart_postgres``: stop the postmaster (SIGINT fast, SIGQUIT immediate — a crash — or SIGKILL);
  ``hindsight run`` restarts it (``LocalStack.heal``).
- ``restart_redis``: SIGTERM the private redis-server (it syncs its append-only file); ``hindsight run``
  restarts it on the same port.
- ``restart_sqs``: SIGKILL the SQS emulator (its queues live in memory); ``hindsight run`` restarts it on
  the same port and re-enqueues every job still listed as queued.
- ``poison``: send malformed job bodies to the write and reflection queues; they must end in the DLQs
  without stopping the good jobs.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parents[1]
HINDSIGHT = str(Path(sys.executable).parent / "hindsight")
FAULT_KINDS = (
    "kill_worker",
    "pause_worker",
    "pause_run",
    "kill_run",
    "restart_postgres",
    "restart_redis",
    "restart_sqs",
    "poison",
)
POISON_MARK = "chaos-poison"


def emulator_sqs(env: dict[str, str]) -> Any:
    """A boto3 SQS client of the stack's emulator (``env``: its ``hindsight.env``)."""
    import boto3

    return boto3.client(
        "sqs",
        region_name="us-east-1",
        endpoint_url=env["HINDSIGHT_AWS_ENDPOINT_URL"],
        aws_access_key_id="hindsight-local",
        aws_secret_access_key="hindsight-local",  # noqa: S106 - the emulator takes any key
    )


def read_env_file(data_dir: Path) -> dict[str, str]:
    """``hindsight.env`` of a running stack as {VARIABLE: value}."""
    out = {}
    for line in (data_dir / "hindsight.env").read_text().splitlines():
        name, _, value = line.partition("=")
        if name:
            out[name] = value
    return out


class _Output:
    """Copies a child's merged stdout/stderr to a log file; lines are also queued for the start phase."""

    def __init__(self, process: subprocess.Popen[str], log_path: Path) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self._log = log_path.open("a", buffering=1)
        self._thread = threading.Thread(target=self._pump, args=(process,), daemon=True)
        self._thread.start()

    def _pump(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            self._log.write(f"{time.strftime('%H:%M:%S')} {line}")
            self.lines.put(line)
        self._log.close()

    def wait_for(self, pattern: str, process: subprocess.Popen[str], timeout_s: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout_s
        seen: list[str] = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                if process.poll() is not None:
                    break
                continue
            seen.append(line.rstrip())
            if m := re.search(pattern, line):
                return m
        raise RuntimeError(f"no line matching {pattern!r} within {timeout_s:g} s:\n" + "\n".join(seen[-40:]))


@dataclass
class RunProcess:
    """``hindsight run`` in a process of its own (its own session: our signals only reach it on purpose)."""

    data_dir: Path
    port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[str] | None = None
    url: str = ""
    token: str = ""
    starts: int = 0

    def start(self, timeout_s: float = 240.0) -> RunProcess:
        command = [
            HINDSIGHT,
            "run",
            "--port",
            str(self.port),
            "--data-dir",
            str(self.data_dir),
            "--redis-url",
            "redis://127.0.0.1:1/0",  # never a shared Redis: it starts its own
            "--log-level",
            "INFO",
        ]
        self.process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
            cwd=ROOT,
            start_new_session=True,
        )
        out = _Output(self.process, self.log_path)
        self.url = out.wait_for(r"MCP URL: (\S+)", self.process, timeout_s).group(1)
        self.token = out.wait_for(r"Token: (\S+)", self.process, timeout_s).group(1)
        self.starts += 1
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def signal(self, sig: int) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, sig)

    def kill(self) -> None:
        """SIGKILL and reap it (its emulator exits with it; Postgres and Redis stay, as after a crash)."""
        self.signal(signal.SIGKILL)
        assert self.process is not None
        self.process.wait(30)

    def stop(self) -> None:
        """As Ctrl-C would (drain, stop the services); SIGKILL after 120 s."""
        if self.process is None or self.process.poll() is not None:
            return
        self.signal(signal.SIGCONT)  # in case a pause fault was cut short
        self.signal(signal.SIGINT)
        try:
            self.process.wait(120)
        except subprocess.TimeoutExpired:
            self.kill()

    def children(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.pid).children(recursive=True)
        except psutil.Error:
            return []


@dataclass
class WorkerProcess:
    """One ``hindsight worker`` (embedding + reflection pollers) against the run's queues."""

    data_dir: Path
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[str] | None = None

    def start(self, timeout_s: float = 120.0) -> WorkerProcess:
        self.process = subprocess.Popen(
            [HINDSIGHT, "worker", "--data-dir", str(self.data_dir)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=self.env,
            cwd=ROOT,
            start_new_session=True,
        )
        _Output(self.process, self.log_path).wait_for(r"workers ready", self.process, timeout_s)
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def signal(self, sig: int) -> None:
        assert self.process is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, sig)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGTERM)
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            self.process.wait(10)


@dataclass
class Fault:
    """One injected fault, as logged. Times are seconds since the soak started."""

    seq: int
    kind: str
    started: float
    detail: dict[str, Any] = field(default_factory=dict)
    ended: float | None = None
    """When the fault itself was over: the kill (crash kinds), the SIGCONT, the restart we did."""
    recovered: float | None = None
    """When a probe write was acknowledged, stored and found again after ``ended``."""

    @property
    def recovery_s(self) -> float | None:
        if self.ended is None or self.recovered is None:
            return None
        return round(self.recovered - self.ended, 2)

    def window(self, horizon: float) -> tuple[float, float]:
        """The interval during which errors are excused: start → recovered (or ``horizon``)."""
        return self.started, self.recovered if self.recovered is not None else horizon


@dataclass
class ChaosStack:
    """The run and the workers, and the fault actions on them."""

    data_dir: Path
    port: int
    env: dict[str, str]
    workers: int
    logs: Path
    run: RunProcess = field(init=False)
    worker_procs: list[WorkerProcess] = field(default_factory=list)
    poisoned: list[str] = field(default_factory=list)
    """Bodies of the poison messages sent (they must be the only unexplained DLQ content)."""

    def __post_init__(self) -> None:
        self.logs.mkdir(parents=True, exist_ok=True)
        self.run = RunProcess(self.data_dir, self.port, self.env, self.logs / "run.log")

    def start(self) -> None:
        self.run.start()
        self.start_workers()

    def start_workers(self) -> None:
        for proc in self.worker_procs:
            proc.stop()
        self.worker_procs = [
            WorkerProcess(self.data_dir, self.env, self.logs / f"worker-{i}.log").start()
            for i in range(self.workers)
        ]

    def stop(self) -> None:
        for proc in self.worker_procs:
            proc.stop()
        self.run.stop()

    def settings_env(self) -> dict[str, str]:
        return read_env_file(self.data_dir)

    # ---- targets ---------------------------------------------------------------------------------

    def postmaster_pid(self) -> int | None:
        try:
            return int((self.data_dir / "pgdata" / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def redis_pid(self) -> int | None:
        try:
            return int(json.loads((self.data_dir / "redis" / "owner.json").read_text())["redis_pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def emulator_pid(self) -> int | None:
        for child in self.run.children():
            with contextlib.suppress(psutil.Error):
                if any("moto.server" in part for part in child.cmdline()):
                    return child.pid
        return None

    # ---- fault actions (each returns the detail to log) -------------------------------------------

    def kill_worker(self, index: int, down_s: float) -> dict[str, Any]:
        proc = self.worker_procs[index]
        pid = proc.pid
        proc.signal(signal.SIGKILL)
        assert proc.process is not None
        proc.process.wait(30)
        time.sleep(down_s)
        self.worker_procs[index] = WorkerProcess(self.data_dir, self.env, proc.log_path).start()
        return {"worker": index, "pid": pid, "down_s": round(down_s, 2)}

    def pause(self, target: str, index: int, pause_s: float) -> dict[str, Any]:
        proc: RunProcess | WorkerProcess = self.run if target == "run" else self.worker_procs[index]
        pid = proc.pid
        proc.signal(signal.SIGSTOP)
        try:
            time.sleep(pause_s)
        finally:
            proc.signal(signal.SIGCONT)
        return {
            "target": target,
            "worker": index if target == "worker" else None,
            "pid": pid,
            "paused_s": round(pause_s, 2),
        }

    def kill_run(self, down_s: float) -> dict[str, Any]:
        pid = self.run.pid
        before = self.settings_env()
        self.run.kill()
        time.sleep(down_s)
        self.run.start()
        # The run starts its emulator and Redis on their previous ports when free, so the workers keep
        # their endpoints; if one moved, they are restarted to read hindsight.env again.
        moved = self.settings_env() != before
        if moved:
            self.start_workers()
        return {"pid": pid, "down_s": round(down_s, 2), "new_pid": self.run.pid, "workers_restarted": moved}

    def restart_postgres(self, mode: str) -> dict[str, Any]:
        sig = {"fast": signal.SIGINT, "immediate": signal.SIGQUIT, "kill": signal.SIGKILL}[mode]
        pid = self.postmaster_pid()
        if pid is None:
            return {"skipped": "no postmaster"}
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        return {"pid": pid, "mode": mode}

    def restart_redis(self) -> dict[str, Any]:
        pid = self.redis_pid()
        if pid is None:
            return {"skipped": "no redis owner file"}
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        return {"pid": pid}

    def restart_sqs(self) -> dict[str, Any]:
        pid = self.emulator_pid()
        if pid is None:
            return {"skipped": "no emulator found"}
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        return {"pid": pid}

    def poison(self, count: int, seq: int) -> dict[str, Any]:
        """Malformed bodies of several shapes to both queues (they can never be stored)."""
        env = self.settings_env()
        sqs = emulator_sqs(env)
        shapes = [
            lambda n: f"{POISON_MARK} {seq}-{n}: not json at all",
            lambda n: json.dumps({"kind": "memory.write", "id": f"{POISON_MARK}-{seq}-{n}"}),
            lambda n: json.dumps({"kind": "memory.write", "note": f"{POISON_MARK}-{seq}-{n}", "draft": []}),
            lambda n: "{" + f'"{POISON_MARK}": {seq}{n}',
        ]
        sent = 0
        for n in range(count):
            body = shapes[n % len(shapes)](n)
            url = env["HINDSIGHT_WRITE_QUEUE_URL"] if n % 3 else env["HINDSIGHT_REFLECT_QUEUE_URL"]
            try:
                sqs.send_message(QueueUrl=url, MessageBody=body)
            except Exception as exc:  # the emulator may be restarting: fewer poison messages
                return {"sent": sent, "error": f"{type(exc).__name__}"}
            self.poisoned.append(body)
            sent += 1
        return {"sent": sent}
