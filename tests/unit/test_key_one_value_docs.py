"""trial4 HIGH-2: where an agent or its developer learns what a ``key`` is — the ``key`` argument's
description in the tool schema, the ``memory_write`` description, the README and docs/tools.md — it is
said that a key holds ONE current value (list-like facts: one key per item, or "also"), and the README's
quickstart does not teach a list-like key (``alex.allergies`` retired the first allergy when a second
was written on it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

from hindsight.domain.limits import MemoryKey

ROOT = Path(__file__).resolve().parents[2]


def test_the_key_argument_says_it_holds_one_value_and_how_to_keep_several() -> None:
    (field,) = [m for m in get_args(MemoryKey) if getattr(m, "description", None)]
    assert "ONE current value" in field.description
    assert "one key per item" in field.description


def test_readme_and_tools_md_say_it_and_the_quickstart_key_is_no_list() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    tools = (ROOT / "docs/tools.md").read_text(encoding="utf-8")
    assert "holds **one** current value" in readme
    assert "holds **one** current value" in tools
    quickstart = readme[readme.index("From Python") :]
    (key,) = re.findall(r'"key": "([^"]+)"', quickstart[: quickstart.index("```\n")])
    assert "allergies" not in key.split("."), key  # a list's name: its second value would retire the first


def test_the_write_tool_description_says_it() -> None:
    source = (ROOT / "shared/hindsight/api/tools_memory.py").read_text(encoding="utf-8")
    assert "a key holds ONE current value" in source
