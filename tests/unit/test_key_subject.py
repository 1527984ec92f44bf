"""A keyed write about another person on a key of the writer's own value is refused (trial14: "My son is
allergic to eggs" on ``user.allergy`` retired "I'm allergic to peanuts"), through the domain and through
``memory_write``'s use case (the key's values read only for such a write)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput
from hindsight.domain.key_subject import check_other_person_on_key, other_persons_subject
from hindsight.domain.memory import MemoryDraft, Scope
from hindsight.usecases.remember import Remember
from tests.unit.fakes import FixedClock, ListQueue

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)
ALICE = Principal(tenant_id="acme", key_id="k1")


@pytest.mark.parametrize(
    ("content", "key", "subject"),
    [
        ("My son is allergic to eggs", "user.allergy", "my son"),
        ("Our kids are allergic to eggs", "user.allergy", "our kids"),
        ("My sister lives in Portland", "user.home", "my sister"),
        ("My mom lives in Miami", "user.home", "my mom"),  # guard (trial16 M2: still refused)
        ("My husband has a shellfish allergy", "allergy", "my husband"),
    ],
)
def test_a_write_about_another_person_names_its_subject(content: str, key: str, subject: str) -> None:
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject


@pytest.mark.parametrize(
    ("content", "key", "subject"),
    [
        ("My wife works at Globex", "user.employer", "my wife"),
        ("My husband works at Globex", "user.employer", "my husband"),
        ("My sister drives a Prius", "user.car", "my sister"),
        ("My dad takes metformin", "user.meds", "my dad"),
        ("My brother uses Vim", "user.editor", "my brother"),
        ("My wife now works at Globex", "user.employer", "my wife"),
        ("My sister Jess drives a Prius", "user.car", "my sister jess"),
        ("My sister does yoga on Mondays", "user.exercise", "my sister"),
        ("My boss is Dana", "user.job", "my boss"),  # the key names no role of the boss: theirs
        ("My boss is on vacation", "user.manager", "my boss"),  # no person as the value
        ("My brother is my roommate", "user.home", "my brother"),  # a role the key does not name
    ],
)
def test_another_person_before_a_present_tense_verb_is_read_as_the_subject(
    content: str, key: str, subject: str
) -> None:
    """trial16 H1: only "is"/"has"/"lives" were read, so these replaced the writer's value."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My boss is Dana now", "user.manager"),  # the person is the value of the writer's role
        ("My boss is Dana Lee.", "user.supervisor"),
        ("My sister is my emergency contact now", "user.emergency_contact"),
        ("My sister is my emergency contact these days", "user.contact"),
        ("My boss says I'm up for promotion", "user.role"),  # the writer is in it
        ("My wife wants us to move", "user.home"),
        ("My wife and I work at Globex", "user.employer"),
    ],
)
def test_a_person_filling_the_keys_role_or_the_writer_in_the_words_is_the_writers_value(
    content: str, key: str
) -> None:
    """trial16 M2: "My boss is Dana now" on user.manager was refused as another person's words."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) is None


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My wife and I moved to Austin", "user.home"),  # the writer is in the subject: a change
        ("My wife and I live in Austin", "user.home"),
        ("My allergy is peanuts", "user.allergy"),  # "my" + no relation: the writer's
        ("My favourite food is pizza", "user.food"),
        ("My son is also allergic to eggs", "user.allergy"),  # an addition: kept beside (aff0bfb)
        ("My son is allergic to eggs", "user.son.allergy"),  # the key is theirs
        ("Our kids are allergic to eggs", "kids.allergy"),
        ("My wife is a nurse", "user.spouse"),
        ("I'm allergic to eggs", "user.allergy"),
    ],
)
def test_a_write_of_the_writer_or_on_a_key_of_theirs_is_not_read_as_another_persons(
    content: str, key: str
) -> None:
    assert other_persons_subject(MemoryDraft(content=content, key=key)) is None


def test_no_key_or_another_layer_is_not_read_and_a_named_supersede_is() -> None:
    assert other_persons_subject(MemoryDraft(content="My son is allergic to eggs")) is None
    episode = MemoryDraft(content="My son is allergic to eggs", key="user.allergy", layer="episodic")
    assert other_persons_subject(episode) is None
    named = MemoryDraft.model_validate(
        {
            "content": "My son is allergic to eggs",
            "key": "user.allergy",
            "supersedes": "0190a0a0-0000-7000-8000-000000000000",
        }
    )
    # trial23 H1: a supersede retires the memory it names, which the caller gives as the values
    assert other_persons_subject(named) == "my son"


def test_the_refusal_names_the_field_the_key_whose_words_and_a_key_of_theirs() -> None:
    draft = MemoryDraft(content="My son is allergic to eggs", key="user.allergy")
    with pytest.raises(InvalidInput) as refused:
        check_other_person_on_key(draft, "my son", ["I'm allergic to peanuts"])
    message = str(refused.value)
    assert refused.value.field == "content"
    for words in ("another person ('my son')", "'user.allergy'", "'son.allergy'", "without a key"):
        assert words in message, message


@pytest.mark.parametrize(
    "values",
    [
        ["Allergic to penicillin"],
        ["Leo is allergic to milk"],
        ["Allergic to dust", "Leo is allergic to milk"],
    ],
)
def test_a_key_with_no_value_of_the_writers_keeps_its_rule(values: list[str]) -> None:
    # on a key named for the writer ("user.allergy") a value of no one else's is the writer's: test_keys3
    check_other_person_on_key(
        MemoryDraft(content="My son is allergic to eggs", key="allergy"), "my son", values
    )


def test_an_empty_key_not_named_for_the_writer_keeps_its_rule() -> None:
    # an empty key named for the writer ("user.allergy") refuses them: test_trial21_keys
    check_other_person_on_key(MemoryDraft(content="My son is allergic to eggs", key="allergy"), "my son", [])


class _Values:
    def __init__(self, values: list[str]) -> None:
        self.values = values
        self.asked: list[str] = []

    async def __call__(self, scope: Scope, key: str) -> list[str]:
        self.asked.append(key)
        return self.values


@pytest.mark.anyio
async def test_memory_write_refuses_another_persons_words_on_the_users_key_and_queues_nothing() -> None:
    queue, values = ListQueue(), _Values(["I'm allergic to peanuts"])
    remember = Remember(queue, FixedClock(NOW), key_values=values)
    with pytest.raises(InvalidInput) as refused:
        await remember(ALICE, None, MemoryDraft(content="My son is allergic to eggs", key="user.allergy"))
    assert refused.value.field == "content"
    assert queue.jobs == []
    assert values.asked == ["user.allergy"]
    await remember(ALICE, None, MemoryDraft(content="My wife and I moved to Austin", key="user.home"))
    await remember(ALICE, None, MemoryDraft(content="I'm allergic to eggs", key="user.allergy"))
    assert len(queue.jobs) == 2
    assert values.asked == ["user.allergy"]  # no read for the writer's own words


@pytest.mark.anyio
async def test_memory_write_refuses_another_persons_verb_and_queues_a_person_filling_the_role() -> None:
    queue, values = ListQueue(), _Values(["I work at Acme"])
    remember = Remember(queue, FixedClock(NOW), key_values=values)
    with pytest.raises(InvalidInput, match="another person \\('my husband'\\)"):
        await remember(ALICE, None, MemoryDraft(content="My husband works at Globex", key="user.employer"))
    assert queue.jobs == []
    values.values = ["I report to Lee"]
    await remember(ALICE, None, MemoryDraft(content="My boss is Dana now", key="user.manager"))
    assert len(queue.jobs) == 1


@pytest.mark.anyio
async def test_memory_write_refuses_a_plan_of_trial14_on_a_key_and_queues_nothing() -> None:
    queue = ListQueue()
    remember = Remember(queue, FixedClock(NOW))
    for plan in (
        "I'm gonna move to Portland",
        "Next month I'm going to move to Portland",
        "I'm going to work at Globex",
    ):
        with pytest.raises(InvalidInput, match="state a plan"):
            await remember(ALICE, None, MemoryDraft(content=plan, key="user.home"))
    assert queue.jobs == []
    await remember(ALICE, None, MemoryDraft(content="I started at Globex last week", key="user.job"))
    assert len(queue.jobs) == 1


@pytest.mark.parametrize(
    ("content", "key", "subject"),
    [
        ("My son's allergic to eggs", "user.allergy", "my son"),  # a contracted "is" (h-keys12)
        ("My son\u2019s allergic to eggs", "user.allergy", "my son"),
        ("My wife's moving to Austin", "user.home", "my wife"),
        ("Our kids're allergic to eggs", "user.allergy", "our kids"),
        ("My husband's a vegetarian", "user.diet", "my husband"),
        ("My daughter's at Lincoln High", "user.school", "my daughter"),
        ("Alex's son's allergic to eggs", "user.allergy", "alex's son"),
    ],
)
def test_another_persons_contracted_is_names_its_subject(content: str, key: str, subject: str) -> None:
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject


@pytest.mark.parametrize(
    ("content", "key", "subject"),
    [
        ("My wife's dentist is Dr. Lee", "user.dentist", "my wife's dentist"),  # a possessive: hers too
        ("My son's school is Lincoln High", "user.school", "my son's school"),
        ("My son's school is Lincoln High", "son.school", None),  # the key is theirs
        ("My wife and I moved to Austin", "user.home", None),
    ],
)
def test_a_possessive_is_no_contraction(content: str, key: str, subject: str | None) -> None:
    """Guards (as before h-keys12): the possessive's noun is the subject, read up to its verb."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject


@pytest.mark.anyio
async def test_memory_write_refuses_another_persons_contracted_words_on_the_users_key() -> None:
    queue, values = ListQueue(), _Values(["I'm allergic to peanuts"])
    remember = Remember(queue, FixedClock(NOW), key_values=values)
    with pytest.raises(InvalidInput, match=r"'son\.allergy'"):
        await remember(ALICE, None, MemoryDraft(content="My son's allergic to eggs", key="user.allergy"))
    assert queue.jobs == []
    await remember(ALICE, None, MemoryDraft(content="My son's allergic to eggs", key="son.allergy"))
    assert len(queue.jobs) == 1


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My partner works at Globex and I work at Acme", "user.employer"),
        ("My sister works at Globex, and I work at Acme", "user.employer"),
        ("My wife eats meat; I'm vegetarian", "user.diet"),
        ("My parents live in Boston but I live in Denver", "user.home"),
        ("My son's allergic to eggs and I'm allergic to peanuts", "user.allergy"),
        ("My wife is a nurse and I am a teacher", "user.job"),
    ],
)
def test_the_writers_own_clause_after_another_persons_is_the_writers_value(content: str, key: str) -> None:
    """trial17 MED-1: with another person's clause first, the whole write was refused on the user's key."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) is None


@pytest.mark.parametrize(
    ("content", "key", "subject"),
    [
        ("My son is allergic to eggs, so I cook without them", "user.allergy", "my son"),
        ("My wife works at Globex and I love it", "user.employer", "my wife"),
        ("My sister lives in Portland and we visit her", "user.home", "my sister"),
    ],
)
def test_a_writers_clause_with_another_verb_leaves_the_words_another_persons(
    content: str, key: str, subject: str
) -> None:
    """Guards: the writer's clause says nothing of the key's value, so the write is still refused."""
    assert other_persons_subject(MemoryDraft(content=content, key=key)) == subject
