"""Session fixtures: one embedded stack (Postgres+pgvector, a private Redis, the SQS emulator) for
the whole run, the MCP app on loopback, and a fresh tenant per test so tests never see each other."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack


@pytest.fixture(scope="session")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    data_dir: Path = tmp_path_factory.mktemp("stack")
    with LocalStack(data_dir, ephemeral=True) as local:
        yield local


@pytest.fixture(scope="session")
def server(stack: LocalStack) -> Iterator[BackgroundServer]:
    srv = BackgroundServer(stack.require_settings()).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def poller(stack: LocalStack) -> SqsPoller:
    """The embedding worker behind a poller that tests drive explicitly with ``drain()``."""
    return stack.start_write_poller(background=False)


@pytest.fixture(scope="session")
def reflect_poller(stack: LocalStack) -> SqsPoller:
    """The reflection worker behind a poller that tests drive explicitly with ``drain()``."""
    return stack.start_reflect_poller(background=False)


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def token(stack: LocalStack, tenant: str) -> str:
    return stack.mint_token(tenant)


@pytest.fixture(scope="session")
def unlimited_server(stack: LocalStack) -> Iterator[BackgroundServer]:
    """The MCP app with rate limits off, for suites that send hundreds of calls a minute from one key
    (bad-input table, fuzzing); the limiter has its own tests."""
    settings = stack.require_settings().replace(rate_limit_per_minute=0, rate_limit_writes_per_minute=0)
    srv = BackgroundServer(settings).start()
    yield srv
    srv.stop()
