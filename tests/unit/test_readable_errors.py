"""Errors and notes a model can read (h-errs): counts agree with their words; a refused entity name is
quoted in its message; the entity name pattern reads alike in JSON Schema's dialect and the server's and
takes exactly the names it took before; a key filter outside the grammar is refused unless a memory
holds it. The same through the MCP client: tests/integration/test_readable_errors.py."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import uuid4

import pytest
from pydantic import StringConstraints, TypeAdapter, ValidationError

from hindsight.api.errors import validation_error
from hindsight.domain.counts import agreeing, counted
from hindsight.domain.errors import InvalidInput
from hindsight.domain.experience import HintLine, check_citations, cut_note, off_query_note
from hindsight.domain.limits import (
    ENTITY_NAME_PATTERN,
    KEY_FORMAT,
    NFC_FIRST,
    Entities,
    EntityName,
    in_key_grammar,
)
from hindsight.domain.memory import Scope, SearchRequest
from hindsight.usecases.key_filter import check_key_filter

NOW = datetime(2026, 12, 7, tzinfo=UTC)


def test_a_count_and_its_words_agree() -> None:
    assert [counted(n, "episode") for n in (0, 1, 2)] == ["0 episodes", "1 episode", "2 episodes"]
    assert counted(1, "memory", "memories") == "1 memory"
    assert counted(3, "memory", "memories") == "3 memories"
    assert [agreeing(n, "was", "were") for n in (0, 1, 2)] == ["were", "was", "were"]


def test_a_summary_note_counts_in_the_singular_and_the_plural() -> None:
    assert (
        off_query_note(1, 2) == "1 recalled memory was left out: it shares no word or entity with the query"
    )
    assert (
        off_query_note(2, 1)
        == "2 recalled memories were left out: they share no word or entity with the query"
    )
    assert (
        off_query_note(1, 0) == "no memory matched the query: the 1 recalled shares no word or entity with it"
    )
    assert (
        off_query_note(3, 0) == "no memory matched the query: the 3 recalled share no word or entity with it"
    )
    assert cut_note(13, 12) == (
        "1 less relevant line was left out (a hint keeps at most 12); narrow it with query, key, task_type "
        "or since/until"
    )
    assert (cut_note(14, 12) or "").startswith("2 less relevant lines were left out")


def test_a_refused_citation_counts_its_ids() -> None:
    line = HintLine(kind="fact", text="Deploys happen on Thursdays.", ids=[uuid4(), uuid4()])
    assert check_citations([line], []) == "line 1 cites 2 ids that are not among the memories given"


def _entity_errors(entities: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(ValidationError) as raised:
        TypeAdapter(Entities).validate_python(entities)
    return validation_error(raised.value)


def test_each_refused_entity_name_is_quoted_in_its_message() -> None:
    grammar = "must be a letter, then letters, digits, _ . or - only (e.g. person, order_id)"
    error = _entity_errors({"person": "a", "1st": "b", "x y": "c", "a\x00b": "d", "p" * 70: "e", "": "f"})
    assert [d["message"] for d in error["errors"]] == [
        f"name '1st': {grammar}",
        f"name 'x y': {grammar}",
        f"name 'a\\x00b': {grammar}",  # a control character shows escaped
        f"name '{'p' * 32}'… (70 characters): must be at most 64 characters",
        "name '': must be at least 1 character",
    ]
    assert "p" * 33 not in error["message"]


def test_the_entity_name_pattern_reads_alike_in_json_schema_and_on_the_server() -> None:
    # JSON Schema's ECMA-262 "\w" is ASCII only (as Python's under re.ASCII), pydantic's and Python's are
    # Unicode: the published pattern took "città" for no name, which the server stores
    assert not re.search(r"\\[wWdDbBp]", ENTITY_NAME_PATTERN), ENTITY_NAME_PATTERN
    names = TypeAdapter(EntityName)
    for name in ("person", "order_id", "città", "a用户", "b-2.x", "kαλά", "x\u0301y"):
        assert re.fullmatch(ENTITY_NAME_PATTERN, name, re.ASCII), name
        names.validate_python(name)
    for name in ("1st", "_a", "a b", "a/b", "a:b", "a@b", "a\u3000b", "a\ufeffb", "é", ""):
        assert not re.fullmatch(ENTITY_NAME_PATTERN, name), name  # ECMA's \s is Unicode (not re.ASCII's)
        with pytest.raises(ValidationError):
            names.validate_python(name)


@pytest.mark.parametrize("name", ["a\u20ac", "a\u2014b", "a\U0001f600", "a\u00b2", "a\u202eb"])
def test_a_non_ascii_character_no_word_holds_is_refused_with_the_grammar(name: str) -> None:
    # the published pattern cannot single out a non-ASCII letter in every dialect; the server refuses
    # the rest with the pattern's own words
    (detail,) = _entity_errors({name: "v"})["errors"]
    assert detail["type"] == "string_pattern_mismatch", detail
    assert "must be a letter, then letters" in detail["message"], detail


def test_the_entity_name_grammar_takes_exactly_the_names_it_took_before() -> None:
    # a name stored, or queued, under the old pattern stays valid, and nothing new is let in: every
    # character of the Basic Multilingual Plane and the letters' planes, first, inside and last
    old = TypeAdapter(
        Annotated[
            str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z][\w.-]*$"), NFC_FIRST
        ]
    )
    new = TypeAdapter(EntityName)

    def takes(adapter: TypeAdapter[str], name: str) -> bool:
        try:
            adapter.validate_python(name)
        except ValidationError:
            return False
        return True

    points = [*range(0xD800), *range(0xE000, 0x10000), *range(0x10000, 0x10000 + 0x2000, 7)]
    points += [*range(0x1F100, 0x1F200), *range(0x20000, 0x20100), *range(0x31350, 0x31400)]  # Ⓐ-like, CJK
    for point in points:
        char = chr(point)
        for name in ("a_" + char, char + "a", "a" + char + "b"):
            assert takes(old, name) == takes(new, name), (hex(point), name)
    assert sys.maxunicode == 0x10FFFF


class _Reader:
    """A ``MemoryReader.latest`` over one stored key (the rest of the port is not used here)."""

    def __init__(self, held: str | None) -> None:
        self.held = held
        self.asked: list[SearchRequest] = []

    async def latest(self, scope: Scope, request: SearchRequest, limit: int) -> list[object]:
        self.asked.append(request)
        return [object()] if request.key == self.held else []


@pytest.mark.anyio
async def test_a_key_filter_outside_the_grammar_is_refused_unless_a_memory_holds_it() -> None:
    scope = Scope(tenant_id="t-1")
    assert all(map(in_key_grammar, ["user.home", "order:a-1042", "café.menu", "用户.城市"]))
    assert not any(map(in_key_grammar, ["user..home", "user home", "user/home", ".user", "a\u2014b"]))
    reader = _Reader(held="user city!!")
    await check_key_filter(reader, scope, None, NOW)  # type: ignore[arg-type]
    await check_key_filter(reader, scope, "user.home", NOW)  # type: ignore[arg-type]
    assert reader.asked == []  # a key in the grammar costs no read, held or not
    await check_key_filter(reader, scope, "user city!!", NOW)  # type: ignore[arg-type]  # stored before
    assert reader.asked[-1].statuses == ("active", "superseded", "archived", "forgotten")
    with pytest.raises(InvalidInput) as raised:
        await check_key_filter(reader, scope, "user..home", NOW)  # type: ignore[arg-type]
    assert raised.value.field == "key"
    assert "joined by dots" in str(raised.value)
    assert raised.value.limit == {"format": KEY_FORMAT}
    asked = len(reader.asked)
    await check_key_filter(reader, scope, "user..home", NOW, known_at=NOW)  # type: ignore[arg-type]
    assert len(reader.asked) == asked  # keys of then: today's rows cannot tell, the search answers
