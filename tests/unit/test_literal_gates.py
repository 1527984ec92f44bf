"""Calendar names and redaction run a pattern only on a text holding the literals its matches need
(``domain.regex_literals``, issue 15: these scans were a write acknowledgement's largest own cost): on any
text they answer exactly as every pattern run on it does, and a text without a pattern's literals is not
scanned with it."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hindsight.domain import named_dates, redaction
from hindsight.domain.named_dates import calendar_names, digit_date
from hindsight.domain.redaction import RedactionRule, Redactor
from hindsight.domain.regex_literals import Prefiltered

_KINDS = [
    ("_ANY_DATE", "iso"),
    ("_NAMED", "named"),
    ("_HOLIDAY", "holiday"),
    ("_SHORT_DATE", "short"),
    ("DIGIT_DATE", "digits"),
    ("_ORDINAL_DAY", "ordinal"),
    ("_SEASON", "season"),
    ("_VAGUE", "vague"),
    ("_YEAR", "year"),
]


def _every_pattern(cased: str) -> list[tuple[int, str, str]]:
    """``calendar_names`` as defined before its gates: every pattern run on the text."""
    found: list[tuple[int, str, str]] = []
    for name, kind in _KINDS:
        for m in getattr(named_dates, name).finditer(cased):
            if kind == "digits" and not digit_date(m):
                continue
            found.append((m.start(), m.group(0).strip() if kind == "named" else m.group(0), kind))
    return found


_WORDS = [
    "In", "in", "last", "Last", "March", "May", "may", "I", "Monday", "MONDAYS", "weekend", "a", "fortnight",
    "Christmas", "christmas", "Eve", "Dec", "dec.", "1", "3rd", "21st", "the", "on", "by", "1/12",
    "25.12.2026",
    "2024-05-01", "2019", "back", "summer", "Winter", "of", "few", "days", "ago", "recently", "other", "day",
    "earlier", "this", "week", "past", "couple", "最近", "几天前", "ſummer", "İn", "ın", "K", "Ｍａｒｃｈ",
    "Mother's", "Day", "Labour", ",", ".", "\n",
]  # fmt: skip
_TEXTS = st.lists(st.sampled_from(_WORDS) | st.text(max_size=3), max_size=25).map(" ".join)


@settings(max_examples=500, deadline=None)
@given(_TEXTS)
@example("Last summer, on the 3rd, a few days ago in 2019 — Dec 1, Christmas Eve, 1/12, 2024-05-01 最近")
@example("ſummer of 2019, İn 2024, recently")
def test_calendar_names_are_those_every_pattern_finds(text: str) -> None:
    assert calendar_names(text) == _every_pattern(text)


class _Spy:
    """A compiled pattern that counts its scans."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._compiled = pattern
        self.pattern, self.flags = pattern.pattern, pattern.flags
        self.scans = 0

    def finditer(self, text: str) -> Any:
        self.scans += 1
        return self._compiled.finditer(text)

    def sub(self, repl: Any, text: str) -> str:
        self.scans += 1
        return self._compiled.sub(repl, text)


def test_a_text_without_a_patterns_literals_is_not_scanned_with_it(
    monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    spies = {name: _Spy(getattr(named_dates, name)) for name, _ in _KINDS}
    for name, spy in spies.items():
        monkeypatch.setattr(named_dates, name, spy)
    kinds = tuple((spies[name], kind) for name, kind in _KINDS)
    monkeypatch.setattr(named_dates, "_KINDS", kinds, raising=False)
    gates = getattr(named_dates, "_gates", None)
    if gates is not None:  # built for the spies, then again for the patterns
        gates.cache_clear()
        request.addfinalizer(gates.cache_clear)
    assert calendar_names("Bob fixed the sink and painted the fence") == []
    gated = ("_NAMED", "_HOLIDAY", "_SHORT_DATE", "_ORDINAL_DAY", "_SEASON", "_VAGUE", "_YEAR")
    assert {name: spies[name].scans for name in gated} == dict.fromkeys(gated, 0)
    assert calendar_names("We went hiking last summer") == [(15, "last summer", "season")]
    assert spies["_SEASON"].scans == 1


def _every_rule(redactor: Redactor, value: str, found: set[str]) -> str:
    """``Redactor.text`` as defined before its gates: every rule run, in order, on the text."""
    for rule in redactor.rules:
        value = rule.pattern.sub(lambda m, r=rule: redaction._replacement(r, m, found), value)  # type: ignore[misc]
    return value


_SECRETS = [
    "password:", "Password", "is", "hunter22", "pw=", "s3cret", "api_key", "=", "AKIAIOSFODNN7EXAMPLE",
    "maya@example.com", "+44", "20", "7946", "0958", "(415)", "555-0199", "4111", "1111", "PIN", "4921",
    "postgres://app:s3cr3t@db.internal:5432/x", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "GB82", "WEST",
    "1234", "5698", "7654", "32", "phone", "secret", "ſecret", "PASSWORD", "İs", "token", "ghp_", "K", "-",
]  # fmt: skip


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_SECRETS) | st.text(max_size=3), max_size=20).map(" ".join))
@example("my password is hunter22, mail maya@example.com or call (415) 555-0199; PIN 4921")
def test_redaction_is_every_rule_run_in_order(text: str) -> None:
    redactor = Redactor()
    found: set[str] = set()
    expected: set[str] = set()
    assert redactor.text(text, found) == _every_rule(redactor, text, expected)
    assert found == expected


def test_a_rule_is_not_run_on_a_text_without_its_literals() -> None:
    spy = _Spy(re.compile(r"(?i)\bcodeword\s+\w+"))
    redactor = Redactor(rules=[RedactionRule("codeword", spy)])  # type: ignore[arg-type]
    assert redactor.text("nothing to hide here") == "nothing to hide here"
    assert spy.scans == 0
    assert redactor.text("the CODEWORD bluebird") == "the [REDACTED:codeword]"
    assert spy.scans == 1


def test_a_group_that_switches_only_the_case_is_read_as_its_body() -> None:
    assert Prefiltered(r"(?i:abc)|k", 0).conditions == ((frozenset({"abc"}),), (frozenset({"k"}),))
    assert Prefiltered(r"x(?-i:Yz)", re.IGNORECASE).conditions == ((frozenset({"xyz"}),),)
    assert Prefiltered(r"(?s:a.b)", 0).conditions == ((),)  # another flag: nothing claimed
