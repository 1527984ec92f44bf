"""The README's Python client example runs as pasted: saved as a file and run with HINDSIGHT_URL and
HINDSIGHT_TOKEN set, against the MCP app, it writes, waits for the worker and searches."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import draining_in_background

pytestmark = pytest.mark.integration
README = Path(__file__).resolve().parents[2] / "README.md"


def _example() -> str:
    """The first ```python block after "From Python" in the README."""
    text = README.read_text(encoding="utf-8")
    found = re.search(r"```python\n(.*?)```", text[text.index("From Python") :], re.S)
    assert found is not None, "no Python example in the README"
    return found.group(1)


@pytest.fixture
def draining(poller: SqsPoller) -> Iterator[None]:
    """The embedding worker processes what is queued while the example runs."""
    with draining_in_background(poller):
        yield


def test_the_readme_python_example_runs_as_pasted(
    server: BackgroundServer, token: str, draining: None, tmp_path: Path
) -> None:
    script = tmp_path / "quickstart.py"
    script.write_text(_example())
    done = subprocess.run(
        [sys.executable, str(script)],
        env={**os.environ, "HINDSIGHT_URL": server.url, "HINDSIGHT_TOKEN": token},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"write [0-9a-f-]{36} queued", lines[0]), done.stdout
    status = lines[1].rpartition(" ")[2]
    assert status in ("queued", "stored"), done.stdout  # queued: the worker was slower than its wait
    if status == "stored":  # no timed assertion: under load the worker may be slower than the example
        assert "Alex is allergic to peanuts" in done.stdout, done.stdout
