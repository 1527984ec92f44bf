"""The embedded Postgres runs with hindsight's settings (``local/postgres.py``): ``shared_buffers`` a
quarter of the machine's memory within [128 MB, 8 GB], written once into the data folder's
postgresql.conf before the server's first start, and again when it changed."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from hindsight.local.postgres import SETTINGS_MARK, shared_buffers_mb, write_settings
from hindsight.local.stack import LocalStack

pytestmark = pytest.mark.integration


def test_the_stack_runs_with_the_shared_buffers_of_this_machine(stack: LocalStack) -> None:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            "SELECT setting::bigint * current_setting('block_size')::bigint / 1048576 FROM pg_settings "
            "WHERE name = 'shared_buffers'"
        ).fetchone()
    assert row is not None
    assert row[0] == shared_buffers_mb()
    assert 128 <= shared_buffers_mb() <= 8192


def test_the_settings_are_written_once(tmp_path: Path) -> None:
    conf = tmp_path / "postgresql.conf"
    conf.write_text("max_connections = 100\n")
    write_settings(tmp_path)
    write_settings(tmp_path)
    text = conf.read_text()
    assert text.count(SETTINGS_MARK) == 1
    assert f"shared_buffers = {shared_buffers_mb()}MB" in text
    assert text.startswith("max_connections = 100\n")


def test_a_folder_made_with_another_value_gets_this_one(tmp_path: Path) -> None:
    conf = tmp_path / "postgresql.conf"
    conf.write_text(f"max_connections = 100\n\n{SETTINGS_MARK}\nshared_buffers = 1MB\n")
    write_settings(tmp_path)
    text = conf.read_text()
    assert text.count(SETTINGS_MARK) == 1
    assert text.count("shared_buffers") == 1
    assert text.endswith(f"shared_buffers = {shared_buffers_mb()}MB\n")
    assert text.startswith("max_connections = 100\n")
