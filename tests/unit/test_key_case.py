"""Keys compare case-insensitively (keys15 HIGH): every long-term key a caller gives — written, moved onto,
filtered by, promoted from working memory, imported — is stored and compared in one form
(``domain.limits.key_form``: NFC, then lower case), and migration 029 lowered the keys stored before it
with the same mapping. The key grammar's pattern reads alike in JSON Schema's dialect and in Python's."""

from __future__ import annotations

import functools
import re
import string
import sys
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from hindsight.api.errors import validation_error
from hindsight.domain.limits import KEY_PATTERN, KeyFilter, MemoryKey, NewMemoryKey, key_form
from hindsight.domain.memory import MemoryChanges, MemoryDraft
from hindsight.domain.working_memory import WorkingMemoryKey
from hindsight.usecases.archive import ExportHeader, _ImportState

MIGRATION = Path(__file__).resolve().parents[2] / "infra" / "migrations" / "029_key_case.sql"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("User.Home", "user.home"),
        ("USER.HOME", "user.home"),
        ("order:A-1042", "order:a-1042"),
        ("CAFÉ.Menu", "café.menu"),
        ("Cafe\u0301.menu", "café.menu"),  # the accent written as a combining mark: NFC first
        ("Straße.Nr", "straße.nr"),  # lower case, not casefold: the stored key reads as written
        ("İstanbul.Ev", "istanbul.ev"),  # the simple mapping: one character for one
        ("ΟΔΟΣ.Σ", "οδοσ.σ"),  # no context (final sigma): the migration's table cannot see one
        ("用户.城市", "用户.城市"),
    ],
)
def test_a_key_is_stored_in_one_form_whatever_its_case(given: str, stored: str) -> None:
    assert key_form(given) == stored
    assert MemoryDraft(content="A fact", key=given).key == stored
    assert MemoryChanges(key=given).key == stored
    assert TypeAdapter(NewMemoryKey).validate_python(given) == stored
    assert TypeAdapter(MemoryKey).validate_python(given) == stored
    assert TypeAdapter(KeyFilter).validate_python(given) == stored


def test_a_key_stored_before_the_grammar_is_still_filtered_by_in_its_stored_form() -> None:
    # a key outside the grammar (stored by an older version) keeps working, in lower case like the rest
    assert TypeAdapter(MemoryKey).validate_python("User City!!") == "user city!!"
    assert TypeAdapter(KeyFilter).validate_python("User City!!") == "user city!!"


def test_a_working_memory_item_keeps_its_name_as_written() -> None:
    # a session's scratchpad names its items as the caller does; only a long-term key names a fact
    assert TypeAdapter(WorkingMemoryKey).validate_python("Current_Goal") == "Current_Goal"


@functools.cache
def _migration_table() -> tuple[str, str]:
    """The (from, to) strings of migration 029's translate() for keys with non-ASCII characters."""
    text = MIGRATION.read_text(encoding="utf-8")
    body = text[text.index("translate(normalize(key, NFC),") : text.index("END\n$$;")]
    literals = re.findall(r"'([^']*)'", body)
    half = len(literals) // 2
    return "".join(literals[:half]), "".join(literals[half:])


def _as_migration_029(key: str) -> str:
    """What migration 029's ``pg_temp.key_form`` makes of ``key``: an ASCII key with A-Z lowered, any
    other NFC-normalised then translated by its table."""
    if key.isascii():
        return key.translate(str.maketrans(string.ascii_uppercase, string.ascii_lowercase))
    return unicodedata.normalize("NFC", key).translate(_migration_translation())


@functools.cache
def _migration_translation() -> dict[int, int]:
    upper, lower = _migration_table()
    return str.maketrans(upper, lower)


def test_the_migration_lowers_stored_keys_as_key_form_does() -> None:
    upper, lower = _migration_table()
    assert len(upper) == len(lower) == len(set(upper))
    # every character alone (the table was generated from this Python's Unicode database: a newer one
    # that gives more characters a case says so here), then keys as the stored ones are written
    characters = (chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    differ = [c for c in characters if _as_migration_029(c) != key_form(c)]
    assert not differ, (unicodedata.unidata_version, [f"U+{ord(c):04X}" for c in differ[:10]])
    for key in ("User.Home", "CAFÉ.Menu", "Cafe\u0301.Menu", "ΆΛΦΑ.Ω", "İstanbul", "用户.城市", "Ǆ.ǅ"):
        assert _as_migration_029(key) == key_form(key), key


def test_the_key_pattern_is_written_alike_for_json_schema_and_python() -> None:
    # JSON Schema's ECMA-262 "\w" is ASCII only, Python's and pydantic's are Unicode: the schema refused
    # "café.menu", which the server took. No class escape whose meaning differs between the dialects.
    assert not re.search(r"\\[wWdDbBp]", KEY_PATTERN), KEY_PATTERN
    accepted = ["user.home", "User.Home", "order:A-1042", "café.menu", "用户.城市", "a_b@c-d:e", "x1.2y"]
    refused = ["user city!!", "user..city", ".user", "user.", "user/city", "user#1", "a\u00a0b", "a b"]
    keys = TypeAdapter(NewMemoryKey)
    for key in accepted:
        assert re.fullmatch(KEY_PATTERN, key), key
        keys.validate_python(key)
    for key in refused:
        assert not re.fullmatch(KEY_PATTERN, key), key
        with pytest.raises(ValidationError):
            keys.validate_python(key)


@pytest.mark.parametrize("key", ["a\u2014b", "user.home\u2026", "mood.\U0001f600", "a\u00b7b"])
def test_non_ascii_punctuation_in_a_key_is_refused_with_the_grammar(key: str) -> None:
    # the schema's pattern cannot tell a non-ASCII letter from other non-ASCII characters in every dialect;
    # the server refuses what is no letter, mark or digit with the grammar's own message
    with pytest.raises(ValidationError) as raised:
        TypeAdapter(NewMemoryKey).validate_python(key)
    (detail,) = validation_error(raised.value)["errors"]
    assert detail["type"] == "string_pattern_mismatch", detail
    assert "joined by dots" in detail["message"], detail


def _import_state() -> _ImportState:
    state = _ImportState("t-1", remap_ids=False)
    state.header = ExportHeader(
        exported_at=datetime(2026, 1, 1, tzinfo=UTC),
        tenant_id="t-1",
        embedding_model="m",
        embedding_dim=3,
        with_embeddings=False,
    )
    return state


def test_an_import_stores_keys_of_an_older_export_in_their_stored_form() -> None:
    state = _import_state()
    memory: dict[str, Any] = {
        "id": "7d1f7a52-8a63-4a4f-9f0e-2f1d1c0b9a01",
        "tenant_id": "t-0",
        "key": "User.Home",
    }
    prepared = state.prepare({"kind": "memory", "row": memory}, 2)
    assert prepared is not None
    assert prepared["row"]["key"] == "user.home"
    history = {"memory_id": memory["id"], "changes": {"key": {"from": "Work.Place", "to": None}}}
    prepared = state.prepare({"kind": "history", "row": history}, 3)
    assert prepared is not None
    assert prepared["row"]["changes"]["key"] == {
        "from": "work.place",
        "to": None,
        "written": {"from": "Work.Place", "to": None},
    }


def test_the_maintenance_function_lowers_keys_with_029s_table() -> None:
    """Migration 030's ``hindsight_key_form`` (what the maintenance step ``key_case`` lowers keys with) is
    029's function under a lasting name: the same CASE and translate() table, character for character."""

    def key_form_body(name: str) -> str:
        text = (MIGRATION.parent / name).read_text(encoding="utf-8")
        start = text.index("    SELECT CASE WHEN octet_length(key) = char_length(key)")
        return text[start : text.index("END\n$$;", start)]

    assert key_form_body("030_key_case_settle.sql") == key_form_body("029_key_case.sql")
