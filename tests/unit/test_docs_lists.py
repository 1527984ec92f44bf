"""Lists in the docs that must name everything the code has: docs/configuration.md every setting — each
field of the settings model by the variable it is read from, and every other ``HINDSIGHT_*`` variable the
code names (trial4 MED-4: the chat-model settings a new user needs for the contradiction judge were in no
list) —, and docs/tools.md every default redaction rule name a write can answer (trial4 LOW-5: ``pin``)."""

from __future__ import annotations

import re
from pathlib import Path

from hindsight.config import Settings
from hindsight.domain.redaction import DEFAULT_RULES

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED = set(re.findall(r"HINDSIGHT_[A-Z0-9_]*[A-Z0-9]", (ROOT / "docs/configuration.md").read_text()))
PAGE = (ROOT / "docs/configuration.md").read_text()


def _variables(name: str) -> list[str]:
    """The variables a settings field is read from: ``HINDSIGHT_<NAME>``, or its own alias."""
    alias = Settings.model_fields[name].validation_alias
    return [str(alias)] if isinstance(alias, str) else [f"HINDSIGHT_{name.upper()}"]


def test_every_settings_field_is_documented() -> None:
    missing = [name for name in Settings.model_fields if not any(v in PAGE for v in _variables(name))]
    assert missing == []


def test_every_hindsight_variable_the_code_names_is_documented() -> None:
    named = set()
    for path in (ROOT / "shared/hindsight").rglob("*.py"):
        named |= set(re.findall(r"HINDSIGHT_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(encoding="utf-8")))
    assert sorted(named - DOCUMENTED) == []


def test_every_default_redaction_rule_is_named_in_tools_md() -> None:
    text = (ROOT / "docs/tools.md").read_text(encoding="utf-8")
    listed = text[text.index("(rule names:") :].split(")", 1)[0]
    assert sorted({r.name for r in DEFAULT_RULES if f"`{r.name}`" not in listed}) == []
