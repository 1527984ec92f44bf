"""What the detector benchmarks share (``bench/injection.py``, ``bench/contradictions.py``): the labelled
corpora in ``tests/data``, rates with their counts, and writing a run's figures into its section of
``docs/detectors.md`` (between ``<!-- name:start -->`` and ``<!-- name:end -->``), so the page only ever
shows figures a run produced, with the command and the load average it ran under."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
PAGE = ROOT / "docs" / "detectors.md"


def load_jsonl(name: str) -> list[dict[str, Any]]:
    """The records of ``tests/data/<name>``, one JSON object a line."""
    with (DATA / name).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def rate(hits: int, total: int) -> str:
    """``"0.912 (104/114)"``; ``"–"`` for an empty denominator."""
    return f"{hits / total:.3f} ({hits}/{total})" if total else "–"


def stamp(command: str) -> str:
    """The line under a section's table: when, the command, the load average."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with `{command}` (load average {load})."


def write_section(name: str, body: str) -> None:
    """Replace the text between the section's markers in ``docs/detectors.md``.

    Raises:
        ValueError: the page has no markers for ``name``.
    """
    page = PAGE.read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(page):
        raise ValueError(f"{PAGE} has no {start} … {end} markers")
    PAGE.write_text(pattern.sub(lambda _: f"{start}\n{body.strip()}\n{end}", page), encoding="utf-8")
