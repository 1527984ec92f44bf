"""trial21 (new user, 19:40): keyed and keyless changes.

- H3: "I quit Kaiser and joined Stripe" over "I work at Kaiser as a nurse" (``user.job``) was stored beside
  it ("it takes back no value the key holds"), as "Maria quit Stripe and joined Figma" over "My wife Maria
  got a job at Stripe" (``wife.job``): a take-back followed by the value taken up is the key's new value.
- H4: "My son is allergic to peanuts" on an empty ``user.allergy`` was accepted, and "I'm allergic to
  penicillin" later retired it: another person's words on a key named for the writer are refused even
  while it holds nothing.
- H5: keyless, "My bank is Chase" / "I moved my accounts to Wells Fargo" and "I drink tea every morning" / "I
  switched to coffee in the mornings" were both active and unflagged: the user's switch against a close
  fact of the user's naming another value is a possible conflict (never a supersede without a key).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.contradiction import compare_facts
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft, Scope
from hindsight.domain.take_back import TakeBack, taken_back
from hindsight.usecases.remember import Remember
from tests.unit.fakes import FixedClock, ListQueue

from .key_refusals import other_person_refusal as _refusal

NOW = datetime(2026, 12, 7, 19, 40, tzinfo=UTC)
JOB = "I work at Kaiser as a nurse"
WIFE = "My wife Maria got a job at Stripe"


@pytest.mark.parametrize(
    ("content", "value"),
    [
        ("I quit Kaiser and joined Stripe", JOB),
        ("I quit Kaiser and started at Stripe", JOB),
        ("I quit Kaiser and I joined Stripe last week", JOB),
        ("I quit Kaiser and now work at Stripe", JOB),
        ("I left Kaiser and got a job at Stripe", JOB),
        ("Maria quit Stripe and joined Figma", WIFE),
        ("She quit Stripe and joined Figma", WIFE),
        ("She quit Stripe and then started at Figma", WIFE),
    ],
)
def test_a_take_back_then_the_value_taken_up_is_the_keys_new_value(content: str, value: str) -> None:
    """H3: replaces the key's value (None: the key's rule), as "I left Kaiser for a job at Stripe" did."""
    assert taken_back(content, [value]) is None


def test_a_take_back_with_no_value_taken_up_still_settles_as_before() -> None:
    """Guards: a take-back of one of two values retires it only; one naming no held value retires none."""
    values = ["I'm allergic to peanuts", "I'm also allergic to shellfish"]
    assert taken_back("I'm no longer allergic to peanuts", values) == TakeBack(retired=(0,), left=(1,))
    # retires none; peanuts, which the key-less rules read as possibly taken back, is flagged (trial23 H3)
    assert taken_back("I'm no longer allergic to peanuts and I feel great", values) == TakeBack(
        retired=(), left=(0, 1), unsure=((0, "possible_conflict (polarity, correction)"),)
    )
    assert taken_back("I'm no longer allergic to kiwi", values) == TakeBack(retired=(), left=(0, 1))
    assert taken_back("I'm no longer allergic to peanuts but still to shellfish", values) == TakeBack(
        retired=(0,), left=(1,)
    )


@pytest.mark.parametrize(
    ("content", "key", "theirs"),
    [
        ("My son is allergic to peanuts", "user.allergy", "son.allergy"),
        ("My wife works at Stripe", "user.job", "wife.job"),
        ("Mom lives in Tampa", "user.home", "mom.home"),
        ("My son is allergic to eggs, so I cook without them", "user.allergy", "son.allergy"),
        ("My sister moved to Reno, so I visit her now", "user.home", "sister.home"),
        ("My son is no longer allergic to eggs", "user.allergy", "son.allergy"),
        ("My daughter is vegan, I'm not", "me.diet", "daughter.diet"),
    ],
)
def test_another_persons_words_on_an_empty_key_of_the_writers_are_refused(
    content: str, key: str, theirs: str
) -> None:
    """H4: refused as on a key holding the writer's value, naming the key, that it is the writer's and
    empty, and a key of theirs; no "say it is one more" (an addition alone on the key would still be
    retired by the writer's next value)."""
    refusal = _refusal(content, key, [])
    assert refusal is not None
    for words in ("field content:", "another person", f"key {key!r} names the writer", repr(theirs)):
        assert words in refusal
    assert "also" not in refusal


@pytest.mark.parametrize(
    ("content", "key"),
    [
        ("My son is allergic to peanuts", "allergy"),
        ("My son is allergic to peanuts", "user.son.allergy"),
        ("My kids go to Lincoln Elementary", "user.kids_school"),
        ("My wife and I live in Denver", "user.home"),
        ("My husband got a job in Seattle so we moved there in August", "user.home"),
        ("My husband got transferred, so we live in Omaha now", "user.home"),
        ("My ex kept the house, so I rent in Reno now", "user.home"),
        ("My partner works at Globex and I work at Acme", "user.job"),
        ("My boss is Dana now", "user.manager"),
        ("My sister is my emergency contact now", "user.emergency_contact"),
        ("My wife works at Stripe", "user.family"),
        ("My son is also allergic to eggs", "user.allergy"),
    ],
)
def test_an_empty_key_not_the_writers_alone_or_the_writers_words_are_stored(content: str, key: str) -> None:
    """Guards: a key not named for the writer, or naming a relation or group; the writer's own clause
    saying a change or a value of now; a person filling the key's role; an addition: no refusal."""
    assert _refusal(content, key, []) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My bank is Chase", "I moved my accounts to Wells Fargo"),
        ("My bank is Chase", "I now use Wells Fargo instead"),
        ("I drink tea every morning", "I switched to coffee in the mornings"),
        ("I use Spotify for music", "I changed to Apple Music"),
    ],
)
def test_the_users_switch_against_a_close_fact_of_theirs_is_a_possible_conflict(old: str, new: str) -> None:
    """H5: flagged (both kept, linked), in either order of writing, never a supersede."""
    assert compare_facts(new, old).relation == "possible_conflict"
    assert compare_facts(old, new).relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My bank is Chase", "I moved my accounts to Chase"),
        ("My bank is Chase", "I moved my laptop to Ubuntu"),
        ("My sister uses Spotify", "I use Apple Music instead"),
        ("I drink coffee", "My sister switched to tea"),
        ("I drink tea every morning", "I switched my phone to a Pixel"),
        ("I use Slack for chat", "I changed to Linear for tickets"),
    ],
)
def test_a_switch_to_the_value_held_another_thing_or_person_is_no_conflict(old: str, new: str) -> None:
    """Guards: the value already held, another thing moved, another person's switch or fact, another
    purpose: not flagged."""
    assert compare_facts(new, old).relation == "unrelated"


class _NoValues:
    """The key's stored values: none."""

    async def __call__(self, scope: Scope, key: str) -> list[str]:
        return []


@pytest.mark.anyio
async def test_memory_write_refuses_another_persons_words_on_an_empty_key_of_the_writers() -> None:
    """H4 through the use case: nothing queued; a key of theirs, or the writer's words, are queued."""
    queue = ListQueue()
    remember = Remember(queue, FixedClock(NOW), key_values=_NoValues())
    alice = Principal(tenant_id="acme", key_id="k1")
    with pytest.raises(InvalidInput) as refused:
        await remember(alice, None, MemoryDraft(content="My son is allergic to peanuts", key="user.allergy"))
    assert refused.value.field == "content"
    assert queue.jobs == []
    await remember(alice, None, MemoryDraft(content="My son is allergic to peanuts", key="son.allergy"))
    await remember(alice, None, MemoryDraft(content="I'm allergic to penicillin", key="user.allergy"))
    assert len(queue.jobs) == 2
