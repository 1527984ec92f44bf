"""A question, a possibility or a plan is no value of a key (trial9 H2: on a key they retired the value of
now, and memory_summarize showed "I might move to Portland next year" as the key's fact)."""

from __future__ import annotations

import pytest

from hindsight.domain.errors import InvalidInput
from hindsight.domain.key_statements import check_value_on_key
from hindsight.domain.memory import MemoryDraft


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("I might move to Portland next year.", "might"),
        ("We're thinking about moving to Portland.", "thinking about"),
        ("Do you think I should move to Austin?", "Do you think"),
        ("Should I switch from iPhone to a Pixel?", "Should I"),
        ("If I get the Globex offer I'll quit Acme.", "If I"),
        ("I'm planning to leave Acme in the spring.", "planning to"),
        ("I’m considering a switch to Verizon", "considering"),
        ("Which phone is better for me?", "?"),
    ],
)
def test_a_question_or_a_plan_on_a_key_is_refused_naming_the_words(content: str, words: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key="user.home"))
    assert refused.value.field == "content"
    assert repr(words) in str(refused.value), refused.value
    assert "'user.home'" in str(refused.value)


@pytest.mark.parametrize(
    "content",
    [
        "I live in Seattle.",
        "I would like my coffee black",  # a preference is a value
        "I'm going to the gym on Mondays",
        "The user plays guitar",  # not "plans to"
        "I moved to Portland in May",
        "The user's favourite film is Mighty Ducks",
        "Questions go to Priya",
    ],
)
def test_a_value_on_a_key_is_not_refused(content: str) -> None:
    check_value_on_key(MemoryDraft(content=content, key="user.home"))


def test_only_a_keyed_semantic_write_without_valid_from_is_checked() -> None:
    check_value_on_key(MemoryDraft(content="I might move to Portland next year."))
    check_value_on_key(MemoryDraft(content="Should I move?", key="user.home", layer="episodic"))
