"""Key-less contradiction rules (domain.contradiction): the issue's cases, additive statements, values,
subjects and identifiers, Chinese, the source rules, and the labelled corpus against its published floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight.domain.contradiction import compare_facts, is_additive, resolve


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # the pairs
        ("I really enjoy Thai green curry", "I can't stand Thai green curry any more", "contradiction"),
        ("Rowan runs payroll", "Rowan also runs payroll", "addition"),
        ("Rowan runs payroll", "Rowan also runs invoicing", "addition"),
        # polarity, changed values, explicit corrections
        ("The user is vegetarian.", "The user is not vegetarian.", "contradiction"),
        ("The flight lands at 18:40.", "Correction: the flight lands at 20:15.", "contradiction"),
        ("The sync is on Tuesdays at 10:00.", "The sync is on Thursdays at 15:00.", "contradiction"),
        ("The user prefers tea.", "The user prefers coffee, not tea.", "contradiction"),
        ("我很喜欢吃泰式绿咖喱。", "我不再喜欢吃泰式绿咖喱了。", "contradiction"),
        ("用户的生日是5月3日。", "用户的生日是6月9日。", "contradiction"),
        # two negative statements about different things are two facts, not a changed value (trial 2, N0c)
        ("I can't eat gluten any more", "I can't eat dairy any more", "possible_conflict"),
        ("Maya no longer drinks coffee", "Maya no longer drinks alcohol", "possible_conflict"),
        ("I can't stand okra any more", "I can't stand tripe any more", "possible_conflict"),
        (
            "The user doesn't work at Globex any more.",
            "The user doesn't work at Initech now.",
            "possible_conflict",
        ),
        # ... while flipping a statement still does, and a negated bound can still move
        ("I can eat gluten", "I can't eat gluten any more", "contradiction"),
        ("Maya drinks coffee", "Maya no longer drinks coffee", "contradiction"),
        ("I like okra", "I can't stand okra any more", "contradiction"),
        (
            "The user doesn't start before 9:00.",
            "Actually the user doesn't start before 10:00.",
            "contradiction",
        ),
        # additions never supersede
        ("The user speaks French.", "The user also speaks German.", "addition"),
        ("用户会说法语。", "用户也会说德语。", "addition"),
        # another subject or another identifier is another thing
        ("Maya lives in Lisbon.", "Tom lives in Porto.", "unrelated"),
        ("Order A-1042 shipped on Monday.", "Order A-1043 shipped on Monday.", "unrelated"),
        # a code naming the subject is no value, even when the rest is the same (trial 0825, H5)
        ("The widget A0 weighs 1 gram.", "The widget B0 weighs 1 gram.", "unrelated"),
        (
            "Interactive fact A-0: the widget A0 weighs 1 grams",
            "Interactive fact B-0: the widget B0 weighs 1 grams",
            "unrelated",
        ),
        ("The user's server db-1 has 16 GB of RAM.", "The user's server db-2 has 16 GB of RAM.", "unrelated"),
        ("Fact A-3: widget A3 weighs 10 grams", "Fact A-3: widget A3 weighs 12 grams", "contradiction"),
        ("The user sits in row B12.", "The user sits in row B14.", "contradiction"),
        # ... and in the polarity rule: another code negated is another thing too
        ("The user's server db-1 is in use.", "The user's server db-2 is no longer in use.", "unrelated"),
        ("The user's server db-1 is not in use.", "The user's server db-2 is now in use.", "unrelated"),
        ("server db-1 is in use", "Actually server db-2 is not in use", "unrelated"),
        ("The widget A0 weighs 1 gram.", "The widget B0 no longer weighs 1 gram.", "unrelated"),
        ("Order A-1042 is not shipped any more.", "Order A-1043 is shipped now.", "unrelated"),
        ("The user's server db-1 is in use.", "The user's server db-1 is no longer in use.", "contradiction"),
        ("The user likes jazz.", "The user's partner dislikes jazz.", "unrelated"),
        ("用户喜欢喝咖啡。", "用户的同事不喜欢喝咖啡。", "unrelated"),
        # unsure: flagged, never superseded
        ("The user speaks French.", "The user speaks German.", "possible_conflict"),
        ("The office has a cafeteria.", "The office now has a gym.", "possible_conflict"),
        ("The invoice portal is billing.example.org", "Invoice portal login page moved", "possible_conflict"),
        # repeats, paraphrases and the same words in another order (domain.text.same_information)
        ("The user's manager is Dana Wu.", "the user's manager is Dana Wu", "same"),
        ("The user's manager is Dana Wu.", "Dana Wu is the user's manager.", "unrelated"),
        ("The user prefers coffee, not tea.", "The user prefers tea, not coffee.", "contradiction"),
        ("The user is vegetarian.", "The user doesn't eat meat.", "unrelated"),
    ],
)
def test_pairs(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


def test_long_texts_are_not_compared() -> None:
    notes = "Meeting notes. " + "The team discussed the roadmap at length. " * 40
    assert compare_facts(
        notes + "The user is not vegetarian.", notes + "The user is vegetarian."
    ).relation == ("unrelated")


def test_the_verdict_names_its_signals() -> None:
    verdict = compare_facts("I can't stand Thai green curry any more", "I really enjoy Thai green curry")
    assert verdict.signals == ("polarity", "correction")
    assert verdict.reason == "contradiction (polarity, correction)"


def test_source_rules_and_additive_markers() -> None:
    assert resolve("user_stated", "user_stated") == "supersede"
    assert resolve("user_stated", "agent_inferred") == "supersede"
    assert resolve("agent_inferred", "agent_inferred") == "supersede"
    assert resolve("agent_inferred", "user_stated") == "keep_both"
    assert is_additive("Rowan also runs payroll")
    assert is_additive("用户还会说德语")
    assert not is_additive("Rowan runs payroll")


def test_the_labelled_pairs_meet_the_published_floor() -> None:
    """tests/data/contradiction_pairs.jsonl with the rules alone (bench/contradictions.py --no-gate; the
    similarity gate can only remove supersedes): the false-supersede rate stays under 2 %, as the issue
    requires, and supersedes stay precise."""
    path = Path(__file__).parents[1] / "data" / "contradiction_pairs.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) >= 200
    assert {r["label"] for r in records} == {"contradiction", "paraphrase", "addition", "unrelated"}
    found = [(r["label"], compare_facts(r["new"], r["old"]).relation) for r in records]
    negatives = [v for label, v in found if label != "contradiction"]
    supersedes = [label for label, v in found if v == "contradiction"]
    assert sum(v == "contradiction" for v in negatives) / len(negatives) < 0.02
    assert supersedes.count("contradiction") / len(supersedes) >= 0.95
    assert supersedes.count("contradiction") / sum(label == "contradiction" for label, _ in found) >= 0.7
