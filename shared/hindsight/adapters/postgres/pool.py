"""The async connection pool: pgvector types registered on every connection, retries while the
database is still starting (a pitfall the seeds list: "DB not ready at start")."""

from __future__ import annotations

import logging
import select
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from weakref import WeakKeyDictionary

from pgvector.psycopg import register_vector_async
from psycopg import AsyncConnection, OperationalError
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from hindsight.adapters.postgres.vectors import register_vector_rows
from hindsight.domain.errors import ConfigurationError, Unavailable

log = logging.getLogger(__name__)


async def _configure(conn: AsyncConnection) -> None:
    try:
        await register_vector_async(conn)
        register_vector_rows(conn)  # vector[] parameters in binary (``vectors``)
    except Exception:
        # Before `hindsight migrate` the vector type may not exist yet; the schema check reports it.
        log.debug("pgvector type not registered on this connection", exc_info=True)
    await conn.set_autocommit(True)


TRUSTED_IDLE_S = 1.0
"""A connection back in the pool for less than this, whose socket has nothing to read, is handed out
without the checkout round trip (see ``HindsightPool``)."""


class HindsightPool(AsyncConnectionPool):
    """AsyncConnectionPool whose connections are checked on checkout (a server restart leaves broken
    ones behind) and whose connection failures are ``Unavailable`` — "retry later" to a caller, a
    failed batch that SQS redelivers to a worker — instead of driver errors.

    The check is a round trip (an empty query), one per read: a search makes three reads one after
    the other (issue 15). It is skipped for a connection returned less than ``TRUSTED_IDLE_S`` ago
    whose socket has nothing to read: a server that ends a session (restart, terminated backend,
    idle timeout) sends an error and closes the socket, which makes it readable, and then the full
    check runs and the pool replaces the connection. What only the round trip would find — a peer
    gone silently, e.g. after a Lambda instance was frozen — takes longer than that to happen; if it
    does within it, that one read fails ``Unavailable`` and the broken connection is discarded.

    Only lost or refused connections are translated (``OperationalError``, pool timeouts); constraint
    violations and SQL errors pass unchanged.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._returned_at: WeakKeyDictionary[AsyncConnection, float] = WeakKeyDictionary()
        super().__init__(*args, check=self._check_unless_fresh, **kwargs)

    async def putconn(self, conn: AsyncConnection) -> None:
        self._returned_at[conn] = time.monotonic()
        await super().putconn(conn)

    async def _check_unless_fresh(self, conn: AsyncConnection) -> None:
        returned = self._returned_at.get(conn)
        if returned is None or time.monotonic() - returned >= TRUSTED_IDLE_S or _has_input(conn):
            await AsyncConnectionPool.check_connection(conn)

    @asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[AsyncConnection]:  # noqa: ASYNC109 - psycopg_pool's signature
        try:
            async with super().connection(timeout) as conn:
                yield conn
        except (PoolTimeout, OperationalError) as exc:
            raise Unavailable(f"the database is unavailable ({type(exc).__name__})") from exc


def _has_input(conn: AsyncConnection) -> bool:
    """Whether an idle connection's socket is readable (the server said something, or closed it)."""
    try:
        poller = select.poll()  # not select(): descriptors past 1023 are fine
        poller.register(conn.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except (OperationalError, OSError, ValueError):  # closed: no descriptor any more
        return True


async def open_pool(
    url: str,
    *,
    min_size: int,
    max_size: int,
    timeout_s: float,
    session_settings: dict[str, str] | None = None,
    role: str | None = None,
) -> AsyncConnectionPool:
    """Open a pool, waiting up to ``timeout_s`` for the database to accept connections.

    ``session_settings`` are GUCs set on every connection at connect time (libpq ``options``),
    e.g. ``{"hnsw.ef_search": "100"}``: no extra round trip per query. ``role`` (e.g. ``hindsight_app``,
    migration 004) is set the same way: every statement then runs as that role, under row-level
    security, whoever the login user is; ``RESET ROLE`` returns to it, not to the login user.

    Raises:
        Unavailable: the database did not answer in time.
        ConfigurationError: ``role`` does not exist or the login user may not use it.
    """
    kwargs = _connect_kwargs(timeout_s, {**(session_settings or {}), **({"role": role} if role else {})})
    pool = HindsightPool(
        url,
        min_size=min_size,
        max_size=max_size,
        open=False,
        configure=_configure,
        kwargs=kwargs,
        timeout=timeout_s,
        reconnect_timeout=timeout_s,
    )
    started = time.monotonic()
    try:
        await pool.open(wait=min_size > 0, timeout=timeout_s)
    except (PoolTimeout, OperationalError) as exc:
        await pool.close()
        if role:
            await _explain_role_failure(url, kwargs, role)
        raise Unavailable(f"database not reachable after {time.monotonic() - started:.1f}s: {exc}") from exc
    return pool


async def _explain_role_failure(url: str, kwargs: dict[str, object], role: str) -> None:
    """After a failed open: one direct attempt, to turn a refused role into a ConfigurationError that
    says what to do (the pool itself only reports a timeout)."""
    try:
        conn = await AsyncConnection.connect(url, **kwargs)  # type: ignore[arg-type]
    except OperationalError as exc:
        message = str(exc)
        if f'role "{role}"' in message or "permission denied to set role" in message:
            raise ConfigurationError(
                f"cannot run as the database role '{role}' ({message.strip().splitlines()[-1]}): run "
                "`hindsight migrate` (migration 004 creates it and grants it to the migrating user), grant "
                "it to this login user, or set HINDSIGHT_DB_APP_ROLE to another role (empty: none)"
            ) from None
        return
    await conn.close()


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
