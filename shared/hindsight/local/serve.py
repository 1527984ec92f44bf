"""``hindsight run``: start the local stack, print the MCP URL and token, serve until Ctrl-C or SIGTERM."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from rich.console import Console

from hindsight.api.mcp_server import create_http_app
from hindsight.bootstrap import Container, build_container
from hindsight.config import Settings
from hindsight.local.poller import SqsPoller
from hindsight.local.ports import free_port, port_is_free
from hindsight.local.run_lock import RunLock
from hindsight.local.scheduler import MaintenanceScheduler
from hindsight.local.stack import LocalStack

log = logging.getLogger(__name__)


class BackgroundServer:
    """The MCP ASGI app under uvicorn on 127.0.0.1 in a background thread (``hindsight run``, tests,
    benchmarks). In a thread, uvicorn installs no signal handlers: the caller decides what signals do."""

    def __init__(
        self,
        settings: Settings,
        port: int | None = None,
        factory: Callable[[Settings], Awaitable[Container]] | None = None,
    ) -> None:
        """``factory`` builds the container from the settings (default ``build_container``; tests wire
        an adapter of their own)."""
        import uvicorn

        self.port = port or free_port()
        self.settings = settings.replace(http_port=self.port)
        build = factory or build_container
        app = create_http_app(self.settings, lambda: build(self.settings))
        self._server = uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        )
        self._thread = threading.Thread(target=self._server.run, name="mcp-http", daemon=True)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def start(self, timeout_s: float = 30.0) -> BackgroundServer:
        """Start and wait until it accepts connections. Raises RuntimeError if it does not."""
        self._thread.start()
        deadline = time.monotonic() + timeout_s
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the MCP HTTP server did not start")
            time.sleep(0.02)
        return self

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop accepting connections, let requests in progress finish (at most ``timeout_s``, then
        they are cut short), and wait for the server thread."""
        self._server.should_exit = True
        self._thread.join(timeout_s)
        if self._thread.is_alive():
            self._server.force_exit = True
            self._thread.join(5)


def choose_port(preferred: int) -> int:
    """``preferred`` if free (0 means any), else a free one."""
    if preferred and port_is_free(preferred):
        return preferred
    return free_port()


def client_config(url: str, token: str) -> str:
    """A ready-to-paste MCP client configuration (the common ``mcpServers`` shape)."""
    return json.dumps(
        {
            "mcpServers": {
                "hindsight": {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}
            }
        },
        indent=2,
    )


class ShutdownSignals:
    """SIGINT (Ctrl-C) and SIGTERM both ask ``hindsight run`` for a clean stop.

    The first signal sets ``requested`` (the main thread then stops serving, drains, stops the
    services); a second one, before the services are being stopped, raises KeyboardInterrupt to cut
    short what is in progress (startup, the drain: jobs left on the queue are re-enqueued at the next
    start). Once ``stopping()`` is called, further signals are ignored, so the services are always
    stopped. Install from the main thread only (Python delivers signals there).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self, console: Console) -> None:
        self.requested = threading.Event()
        self._console = console
        self._stopping = False
        self._previous: dict[int, Any] = {}

    def install(self) -> ShutdownSignals:
        for sig in self.SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous.clear()

    def stopping(self) -> None:
        """From now on, ignore signals: the services are being stopped."""
        self._stopping = True

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if self._stopping:
            self._console.print(f"{name}: already stopping the services …", style="yellow")
            return
        if not self.requested.is_set():
            log.info("%s received: stopping", name)
            self.requested.set()
            return
        log.warning("%s received again: not waiting any longer", name)
        raise KeyboardInterrupt


def drain_pollers(pollers: list[SqsPoller], timeout_s: float = 30.0) -> bool:
    """Stop the pollers' threads, then process what is still on their queues through the workers. True
    when every queue is empty. Never raises: a failed drain (the emulator unreachable) is a warning, and
    the jobs are still listed as queued in the operation log, so the next start re-enqueues them."""
    for poller in pollers:
        try:
            poller.stop()
        except Exception:
            log.warning("could not stop the %s poller", poller.function_name, exc_info=True)
    drained = True
    for poller in pollers:
        try:
            if not poller.drain(timeout_s=timeout_s):
                drained = False
                log.warning(
                    "the %s queue is not empty after %g s; the jobs left are re-enqueued at the next start",
                    poller.function_name,
                    timeout_s,
                )
        except Exception as exc:
            drained = False
            log.warning(
                "could not drain the %s queue (%s: %s); the jobs left are re-enqueued at the next start",
                poller.function_name,
                type(exc).__name__,
                exc,
            )
    return drained


def run_local(
    data_dir: Path,
    port: int,
    *,
    redis_url: str | None,
    console: Console,
    localstack_python: str | None = None,
) -> bool:
    """Start everything, serve the MCP app with uvicorn, stop everything cleanly on SIGINT or SIGTERM.

    On shutdown the HTTP server stops first (no new writes), then the pollers drain what is still queued
    through the workers (the SQS emulator keeps messages in memory only; it runs in its own process
    group, so Ctrl-C does not kill it first), then the services stop; Postgres data stays on disk. A
    second signal stops waiting for the drain: the batch a worker was handling is abandoned (its
    transaction never commits: stopping Postgres rolls it back; a batch already committed is only not
    deleted from the queue, and its redelivery is a no-op, the worker being idempotent per job), and
    every job left queued is re-enqueued at the next start from the operation log, as are any a crash
    left behind. Returns after a signal: True when a second signal cut the drain short — the caller
    must then exit without waiting for threads, since the abandoned work's threads never finish (anyio
    stops its worker threads only when their invocation ends, and it never will) —, else False;
    KeyboardInterrupt when a second signal cut the startup short. While serving, a service that dies
    (Postgres, Redis, the SQS emulator) is restarted on its port (``LocalStack.heal``).

    Raises:
        StackAlreadyRunning: another ``hindsight run`` serves this data folder (``run_lock``); nothing
            was started and its ``hindsight.env`` is left alone.
    """
    started = time.monotonic()
    lock = RunLock(data_dir).acquire()  # before anything: a second stack must not touch the first's files
    try:
        return _run_locked(
            data_dir,
            port,
            lock,
            started,
            redis_url=redis_url,
            console=console,
            localstack_python=localstack_python,
        )
    finally:
        lock.release()


def _run_locked(
    data_dir: Path,
    port: int,
    lock: RunLock,
    started: float,
    *,
    redis_url: str | None,
    console: Console,
    localstack_python: str | None,
) -> bool:
    console.print(f"[bold]Hindsight[/] local stack in {data_dir} …")
    chosen = choose_port(port)
    if port and chosen != port:
        console.print(f"[yellow]port {port} is taken; using {chosen}[/]")
    shutdown = ShutdownSignals(console).install()
    stack = LocalStack(data_dir, redis_url=redis_url, localstack_python=localstack_python, http_port=chosen)
    scheduler: MaintenanceScheduler | None = None
    server: BackgroundServer | None = None
    pollers: list[SqsPoller] = []
    forced = False
    try:
        stack.start()
        if stack.requeued_at_start:
            console.print(
                f"re-enqueued {stack.requeued_at_start} write(s) left queued by the previous run",
                style="yellow",
            )
        if not shutdown.requested.is_set():
            settings = stack.require_settings()
            token = stack.dev_token()
            env_file = stack.write_env_file()
            pollers = [stack.start_write_poller(), stack.start_reflect_poller()]
            scheduler = MaintenanceScheduler.for_settings(settings).start()  # plays the EventBridge schedule
            server = BackgroundServer(settings, chosen).start()
            lock.update(url=server.url)  # a second `hindsight run` on this folder names it
            # soft_wrap: a long URL or path stays on its label's line, whatever the terminal's width
            console.print(f"Postgres: {settings.require_database_url()}", soft_wrap=True)
            emulator = "LocalStack (host mode)" if localstack_python else "SQS emulator"
            console.print(
                f"Redis: {settings.redis_url}   {emulator}: {settings.aws_endpoint_url}", soft_wrap=True
            )
            console.print(f"CLI settings: {env_file}", soft_wrap=True)
            console.print(f"Maintenance: every {settings.maintenance_interval_s:g} s")
            console.print("MCP client configuration:")
            print(client_config(server.url, token), flush=True)  # plain print: rich would wrap the token
            # Plain lines of their own, so scripts can read them.
            print(f"MCP URL: {server.url}", flush=True)
            print(f"Token: {token}", flush=True)
            console.print(
                f"ready in {time.monotonic() - started:.1f}s — Ctrl-C stops everything", style="green"
            )
            while not shutdown.requested.wait(0.5):
                if not server.alive:
                    log.error("the HTTP server stopped unexpectedly; stopping")
                    break
                for service in stack.heal():  # a service that died (crash, kill) comes back on its port
                    console.print(f"{service} had stopped; restarted it", style="yellow")
        try:
            console.print("stopping: the HTTP server, then draining the queues (Ctrl-C again: don't wait) …")
            if server is not None:
                server.stop()
            if scheduler is not None:
                scheduler.stop()
            drain_pollers(pollers)
        except KeyboardInterrupt:
            forced = True
            console.print(
                "not waiting for the queues: the batch in progress is abandoned; it and what is left are "
                "re-enqueued at the next start (a job is never stored twice)"
            )
    finally:
        shutdown.stopping()
        try:
            if scheduler is not None:
                scheduler.stop()
            if forced:  # the abandoned work's threads fail as the services go: expected, not reported
                _log_main_thread_only()
            stack.stop(abandon_work=forced)
        finally:
            shutdown.restore()
        console.print("stopped; data kept in", str(data_dir))
    return forced


class _MainThread(logging.Filter):
    """Lets through only the records the main thread logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread == threading.main_thread().ident


def _log_main_thread_only() -> None:
    """From now on, the log shows only what the main thread logs (the stop itself): after a second
    signal, the threads of abandoned work (a poller's batch, its receives) fail as the services stop
    under them, and their errors say nothing about the stop."""
    for logger in (logging.getLogger(), logging.getLogger("hindsight")):  # ours do not propagate
        for handler in logger.handlers:
            handler.addFilter(_MainThread())


def exit_now(code: int) -> NoReturn:
    """End the process at once with ``code``, after flushing the output and the log files, without
    waiting for threads (``run_local`` after a second signal: the services are stopped, and the
    abandoned work's threads would keep the interpreter from exiting for ever). Skips atexit handlers:
    call it only once every service is stopped."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(code)
