"""The tag pattern reads alike in JSON Schema and on the server (h-errs2): it was ``^[\\w.:/-]+$``, whose
``\\w`` is ASCII in ECMA-262, so a client checking the schema refused "café", which the server stores."""

from __future__ import annotations

import re
import sys
from typing import Annotated

import pytest
from pydantic import StringConstraints, TypeAdapter, ValidationError

from hindsight.api.errors import validation_error
from hindsight.domain.limits import NFC_FIRST, NOT_BLANK, TAG_PATTERN, Tag

OLD_TAG = Annotated[
    str,
    StringConstraints(
        strip_whitespace=True, to_lower=True, min_length=1, max_length=64, pattern=r"^[\w.:/-]+$"
    ),
    NOT_BLANK,
    NFC_FIRST,
]


def _takes(adapter: TypeAdapter[str], tag: str) -> bool:
    try:
        adapter.validate_python(tag)
    except ValidationError:
        return False
    return True


def test_the_tag_pattern_has_no_class_escape_a_dialect_reads_otherwise() -> None:
    assert not re.search(r"\\[wWdDbBp]", TAG_PATTERN), TAG_PATTERN
    for tag in ("café", "用户", "project:alpha", "a/b-c_d.e"):  # ECMA-262's \w and \d are ASCII: re.ASCII
        assert re.search(TAG_PATTERN, tag, re.ASCII), tag
    for tag in ("a b", "a,b", "a!", "a\u00a0b"):
        assert not re.search(TAG_PATTERN, tag), tag


@pytest.mark.parametrize("tag", ["a€", "a—b", "a…", "a😀", "a\u200bb"])
def test_a_non_ascii_character_no_word_holds_is_refused_in_words(tag: str) -> None:
    with pytest.raises(ValidationError) as raised:
        TypeAdapter(list[Tag]).validate_python([tag])
    (detail,) = validation_error(raised.value, "tags")["errors"]
    assert detail["message"] == "must be letters, digits and _.:/- only (e.g. project:alpha, v1.2)", detail


def test_the_tag_grammar_takes_exactly_the_tags_it_took_before() -> None:
    # a tag stored, or queued, under the old pattern stays valid, and nothing new is let in: every
    # character of the Basic Multilingual Plane and samples of the others, first, inside and last
    old, new = TypeAdapter(OLD_TAG), TypeAdapter(Tag)
    points = [*range(0xD800), *range(0xE000, 0x10000), *range(0x10000, 0x10000 + 0x2000, 7)]
    points += [*range(0x1F100, 0x1F200), *range(0x20000, 0x20100), *range(0x31350, 0x31400)]  # Ⓐ-like, CJK
    for point in points:
        char = chr(point)
        for tag in ("a_" + char, char + "a", "a" + char + "b", char):
            assert _takes(old, tag) == _takes(new, tag), (hex(point), tag)
    assert sys.maxunicode == 0x10FFFF
