"""The CLI refuses what the MCP tools refuse, before it opens the stack (trial23 M5, L5: ``hindsight
inspect --writes -1`` printed a database traceback; ``hindsight search ""`` answered ten hits where
memory_search refuses an empty query)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from hindsight.cli import app
from tests.support import stack_refused


@pytest.fixture
def no_stack(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Records every attempt to open the stack (none is expected: the input is refused first)."""
    return stack_refused(monkeypatch, "hindsight.cli.memories")


@pytest.mark.parametrize(
    ("count", "limit"), [("-1", "greater than or equal to 0"), ("1001", "less than or equal to 1000")]
)
def test_inspect_refuses_a_count_of_writes_out_of_range(no_stack: list[str], count: str, limit: str) -> None:
    shown = CliRunner().invoke(app, ["inspect", "--agent", "planner", "--writes", count], terminal_width=200)
    assert shown.exit_code == 2, shown.output
    assert "Invalid value for '--writes'" in shown.output, shown.output
    assert limit in shown.output, shown.output
    assert "Traceback" not in shown.output
    assert no_stack == []


@pytest.mark.parametrize("query", ["", "   "])
def test_search_refuses_an_empty_query_as_memory_search_does(no_stack: list[str], query: str) -> None:
    shown = CliRunner().invoke(app, ["search", "--agent", "planner", query])
    assert shown.exit_code == 1, shown.output
    assert "QUERY: " in shown.output, shown.output
    assert no_stack == []


def test_search_refuses_a_query_over_the_tools_limit(no_stack: list[str]) -> None:
    from hindsight.domain.limits import MAX_SEARCH_QUERY_CHARS

    shown = CliRunner().invoke(app, ["search", "x" * (MAX_SEARCH_QUERY_CHARS + 1)])
    assert shown.exit_code == 1, shown.output
    assert "QUERY: " in shown.output, shown.output
    assert str(MAX_SEARCH_QUERY_CHARS) in shown.output, shown.output
    assert no_stack == []
