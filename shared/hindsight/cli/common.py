"""What every command shares at run time: the consoles, and reaching the stack — settings from the
environment and the local stack's env file, one container per command, Hindsight errors turned into a
message and an exit code. The options commands share are in ``hindsight.cli.options``."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import typer
from rich.console import Console

from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError, HindsightError, InvalidInput, Unavailable

console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")


def resolve_data_dir(data_dir: Path | None) -> Path:
    """The data folder given, else the local stack's default one."""
    from hindsight.local.stack import default_data_dir

    return data_dir or default_data_dir()


def load_settings(data_dir: Path | None) -> Settings:
    """Environment first; the local stack's env file fills what the environment does not set."""
    from hindsight.local.stack import ENV_FILE

    env_file = resolve_data_dir(data_dir) / ENV_FILE
    if env_file.exists():
        for line in env_file.read_text().splitlines():
            name, _, value = line.partition("=")
            if name and value and name not in os.environ:
                os.environ[name] = value
    settings = Settings.load()
    endpoint = settings.aws_endpoint_url or ""
    if endpoint.startswith(("http://127.0.0.1:", "http://localhost:")):
        from hindsight.local.sqs_emulator import use_dummy_aws_credentials

        use_dummy_aws_credentials()  # the local SQS emulator takes any key; never real ones
    return settings


START_HINT = (
    "hint: is the local stack running? Start it with `make run` (or `hindsight run`) in another terminal "
    "and keep it running"
)
"""Added to "database not reachable" errors of the CLI."""


def run_or_exit(coro_factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine, turning Hindsight errors into a message and an exit code."""
    try:
        return asyncio.run(coro_factory())  # type: ignore[arg-type]
    except InvalidInput as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None
    except (ConfigurationError, Unavailable) as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(3) from None
    except HindsightError as exc:
        err_console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(1) from None


async def with_container(data_dir: Path | None, body: Callable[[Any], Awaitable[T]]) -> T:
    """Build a container from the settings, run ``body`` with it, and close it."""
    from hindsight.bootstrap import build_container

    settings = load_settings(data_dir)
    try:
        container = await build_container(settings, with_queue=settings.write_queue_url is not None)
    except Unavailable as exc:
        if not str(exc).startswith("database not reachable"):
            raise
        # the usual cause for a new user: no local stack is running
        raise Unavailable(f"{exc}\n{START_HINT}") from exc
    try:
        return await body(container)
    finally:
        await container.aclose()


def operator_principal(tenant: str) -> Any:
    """The caller the CLI acts as in ``tenant`` (key id ``cli``)."""
    from hindsight.domain.auth import Principal

    return Principal(tenant_id=tenant, key_id="cli", trusted=True)  # the operator: importance as given


def print_json(value: Any) -> None:
    """JSON on stdout (plain print: rich would wrap long lines)."""
    print(json.dumps(value, default=str, ensure_ascii=False))
