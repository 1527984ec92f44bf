"""The CLI's help is read on a terminal: no reStructuredText markup from the docstrings it is made of
(trial21 LOW: ``hindsight search --help`` showed "``--as-of``")."""

from __future__ import annotations

from typing import Any

import typer
from typer.testing import CliRunner

from hindsight.cli import app


def _command_paths(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's words under ``command`` (``("token", "create")``), groups included."""
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += _command_paths(sub, (*path, name))
    return paths


def test_no_command_help_shows_rst_markup() -> None:
    paths = _command_paths(typer.main.get_command(app))
    assert len(paths) > 10, paths
    runner = CliRunner()
    for path in paths:
        shown = runner.invoke(app, [*path, "--help"], terminal_width=200)
        assert shown.exit_code == 0, (path, shown.output)
        assert "``" not in shown.output, (path, shown.output)
