"""The local stack and the schema: 'hindsight run' starts the stack and serves the MCP URL, ``hindsight
migrate`` applies pending migrations to the configured database, ``hindsight worker`` adds workers to a
running stack."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from hindsight.cli.common import console, err_console, load_settings, resolve_data_dir, run_or_exit
from hindsight.cli.options import DataDir
from hindsight.domain.errors import ConfigurationError, Unavailable


def run(
    port: Annotated[int, typer.Option(help="HTTP port on 127.0.0.1; a free one is used if taken.")] = 8080,
    data_dir: DataDir = None,
    redis_url: Annotated[
        str, typer.Option(help="Use this Redis if it answers, else start one.")
    ] = "redis://127.0.0.1:6379/0",
    log_level: Annotated[
        str, typer.Option(help="Level of the JSON log file (DEBUG adds query text and contents to traces).")
    ] = "INFO",
    emulator: Annotated[
        str, typer.Option(help="AWS emulator: 'moto' (default) or 'localstack' (host mode, no Docker).")
    ] = "moto",
    localstack_python: Annotated[
        str,
        typer.Option(help="With --emulator localstack: a Python ≥ 3.13 with localstack-core installed."),
    ] = ".venv-localstack/bin/python",
) -> None:
    """Start the local stack and serve the MCP URL until Ctrl-C or SIGTERM (both stop it cleanly: exit 0;
    a second one stops waiting for the queues and exits once the services are stopped, still 0; during
    the startup, 130). One stack per data folder: while one runs, another on the same folder is refused
    (exit 3), naming it."""
    from hindsight.local.run_lock import StackAlreadyRunning
    from hindsight.local.serve import exit_now, run_local
    from hindsight.logs import configure_json_log_file, configure_local_logging

    if emulator not in ("moto", "localstack"):
        err_console.print("[red]error:[/] --emulator must be moto or localstack")
        raise typer.Exit(2)
    level = log_level.upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        err_console.print("[red]error:[/] --log-level must be DEBUG, INFO, WARNING or ERROR")
        raise typer.Exit(2)
    os.environ.setdefault("HINDSIGHT_LOG_LEVEL", level)  # DEBUG: traces carry query text and contents
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    configure_local_logging("WARNING")
    log_file = configure_json_log_file(resolve_data_dir(data_dir) / "logs" / "hindsight.log", level)
    console.print(f"JSON logs (requests, retrieval traces): {log_file}")

    try:
        forced = run_local(
            resolve_data_dir(data_dir),
            port,
            redis_url=redis_url,
            console=console,
            localstack_python=localstack_python if emulator == "localstack" else None,
        )
    except (ConfigurationError, Unavailable, StackAlreadyRunning) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(3) from None
    except KeyboardInterrupt:  # a second Ctrl-C/SIGTERM cut the startup short; the services are stopped
        err_console.print("interrupted")
        exit_now(130)  # the startup's own threads are not waited for either
    if forced:  # a second Ctrl-C/SIGTERM: stop now, the services are stopped (serve.run_local)
        exit_now(0)


def migrate(data_dir: DataDir = None) -> None:
    """Apply pending SQL migrations (idempotent; safe to run concurrently)."""
    from hindsight.bootstrap import run_migrations

    async def go() -> list[int]:
        return await run_migrations(load_settings(data_dir))

    applied = run_or_exit(go)
    console.print(f"applied {applied}" if applied else "schema up to date")


def worker(
    data_dir: DataDir = None,
    batch_size: Annotated[int, typer.Option(min=1, max=10_000, help="Messages per worker invocation.")] = 10,
) -> None:
    """Run more embedding and reflection workers against a running local stack, in this process.

    They long-poll the same queues as the ones inside 'hindsight run' (settings from its
    'hindsight.env'), as more concurrent Lambda instances would in AWS. Ctrl-C or SIGTERM stops them
    after the batch in progress; a message received and not finished (a kill) comes back after the
    queue's visibility timeout and is processed by another worker, once (workers are idempotent per job).
    """
    import signal
    import threading

    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.api.sqs_worker import ReflectJobWorker, WriteJobWorker
    from hindsight.local.poller import SqsPoller
    from hindsight.local.stack import job_poller
    from hindsight.logs import configure_local_logging

    configure_local_logging("WARNING")
    settings = load_settings(data_dir)
    if settings.write_queue_url is None:
        err_console.print("[red]error:[/] no write queue configured (start `hindsight run` first)")
        raise typer.Exit(3)
    queues: list[tuple[str, str, type[WriteJobWorker] | type[ReflectJobWorker]]] = [
        ("embed_worker", settings.write_queue_url, WriteJobWorker)
    ]
    if settings.reflect_queue_url:
        queues.append(("reflect_worker", settings.reflect_queue_url, ReflectJobWorker))
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    pollers: list[SqsPoller] = []
    workers: list[WriteJobWorker | ReflectJobWorker] = []
    try:
        for name, url, worker_type in queues:
            client = sqs_client(settings.aws_region, settings.aws_endpoint_url)  # one per thread
            poller, job_workers = job_poller(
                client, settings, worker_type, url, name, region=settings.aws_region, batch_size=batch_size
            )
            workers.extend(job_workers)
            pollers.append(poller.start())
            console.print(f"{name}: polling {url}")
        print(f"workers ready (pid {os.getpid()})", flush=True)
        while not stop.wait(0.5):
            pass
    except Exception as exc:
        err_console.print(f"[red]error:[/] {type(exc).__name__}: {exc}")
        raise typer.Exit(3) from None
    finally:
        for poller in pollers:
            poller.stop()
        for job_worker in workers:
            job_worker.close()
