"""What every command shares at run time: the consoles, and reaching the stack — settings from the
environment and the local stack's env file, one container per command, Hindsight errors turned into a
message and an exit code. The options commands share are in ``hindsight.cli.options``."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console

from hindsight.config import Settings
from hindsight.domain.errors import (
    ConfigurationError,
    Forbidden,
    HindsightError,
    InvalidInput,
    NotFound,
    RateLimited,
    Unavailable,
)

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


_KINDS: tuple[tuple[type[HindsightError], str], ...] = (
    (InvalidInput, "invalid_input"),
    (NotFound, "not_found"),
    (Forbidden, "forbidden"),
    (RateLimited, "rate_limited"),
    (Unavailable, "unavailable"),
    (ConfigurationError, "configuration"),
)
"""Error class → the ``kind`` a ``--json`` error object names (the first that matches; else "error")."""


def error_object(exc: HindsightError) -> dict[str, Any]:
    """A Hindsight error as the ``error`` object ``--json`` prints: ``kind``, ``message``, ``field``,
    ``line``, ``limit`` (None when they do not apply) and ``retryable`` (a transient failure: a dependency
    down or a rate limit; the same command may pass later)."""
    kind = next((name for cls, name in _KINDS if isinstance(exc, cls)), "error")
    return {
        "kind": kind,
        "message": str(exc),
        "field": getattr(exc, "field", None),
        "line": getattr(exc, "line", None),
        "limit": getattr(exc, "limit", None),
        "retryable": isinstance(exc, Unavailable | RateLimited),
    }


def exit_code(exc: HindsightError) -> int:
    """3 for a configuration problem or an unreachable dependency, else 1 (the request or the data)."""
    return 3 if isinstance(exc, ConfigurationError | Unavailable) else 1


def fail(
    message: str,
    *,
    as_json: bool,
    code: int = 1,
    error: dict[str, Any] | None = None,
    document: dict[str, Any] | None = None,
) -> NoReturn:
    """Stop the command: ``error: message`` on stderr and exit ``code``; with ``--json`` also one JSON
    document on stdout, ``{**document, "error": error}`` (``error`` defaults to ``{"kind":
    "invalid_input", "message": message}``; its ``field``, ``line``, ``limit`` default to None), so a
    script reading stdout sees every outcome, failures included."""
    err_console.print(f"error: {message}", markup=False, highlight=False, soft_wrap=True)
    if as_json:
        body = {"kind": "invalid_input", "message": message, "field": None, "line": None, "limit": None}
        print_json({**(document or {}), "error": {**body, **(error or {})}})
    raise typer.Exit(code)


def run_or_exit(
    coro_factory: Callable[[], Awaitable[T]], *, as_json: bool = False, document: dict[str, Any] | None = None
) -> T:
    """Run a coroutine, turning Hindsight errors into a message (stderr) and an exit code; with
    ``as_json`` (the command's ``--json``) also the error object on stdout, in ``document`` (``fail``)."""
    try:
        return asyncio.run(coro_factory())  # type: ignore[arg-type]
    except HindsightError as exc:
        fail(str(exc), as_json=as_json, code=exit_code(exc), error=error_object(exc), document=document)


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
