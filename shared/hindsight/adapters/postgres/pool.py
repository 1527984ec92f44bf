"""The async connection pool: pgvector types registered on every connection, retries while the
database is still starting (a pitfall the seeds list: "DB not ready at start")."""

from __future__ import annotations

import logging
import time

from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection, OperationalError
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from hindsight.domain.errors import ConfigurationError, Unavailable

log = logging.getLogger(__name__)


async def _configure(conn: AsyncConnection) -> None:
    try:
        await register_vector_async(conn)
    except Exception:
        # Before `hindsight migrate` the vector type may not exist yet; the schema check reports it.
        log.debug("pgvector type not registered on this connection", exc_info=True)
    await conn.set_autocommit(True)


async def open_pool(
    url: str,
    *,
    min_size: int,
    max_size: int,
    timeout_s: float,
    session_settings: dict[str, str] | None = None,
) -> AsyncConnectionPool:
    """Open a pool, waiting up to ``timeout_s`` for the database to accept connections.

    ``session_settings`` are GUCs set on every connection at connect time (libpq ``options``),
    e.g. ``{"hnsw.ef_search": "100"}``: no extra round trip per query.

    Raises:
        Unavailable: the database did not answer in time.
    """
    pool = AsyncConnectionPool(
        url,
        min_size=min_size,
        max_size=max_size,
        open=False,
        configure=_configure,
        kwargs=_connect_kwargs(timeout_s, session_settings),
        timeout=timeout_s,
        reconnect_timeout=timeout_s,
    )
    started = time.monotonic()
    try:
        await pool.open(wait=min_size > 0, timeout=timeout_s)
    except (PoolTimeout, OperationalError) as exc:
        await pool.close()
        raise Unavailable(f"database not reachable after {time.monotonic() - started:.1f}s: {exc}") from exc
    return pool


def _connect_kwargs(timeout_s: float, session_settings: dict[str, str] | None) -> dict[str, object]:
    kwargs: dict[str, object] = {"connect_timeout": max(1, int(timeout_s))}
    if session_settings:
        kwargs["options"] = " ".join(f"-c {name}={value}" for name, value in session_settings.items())
    return kwargs


async def one_connection(url: str) -> AsyncConnection:
    """A single autocommit connection (migrations, CLI). Raises ConfigurationError if unreachable."""
    try:
        conn = await AsyncConnection.connect(url, autocommit=True, connect_timeout=10)
    except OperationalError as exc:
        raise ConfigurationError(f"cannot connect to the database: {exc}") from exc
    return conn
