"""A question, a possibility or a plan is no value of a key (trial9 H2: on a key they retired the value of
now, and memory_summarize showed "I might move to Portland next year" as the key's fact)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from hindsight.domain.errors import InvalidInput
from hindsight.domain.key_statements import check_value_on_key
from hindsight.domain.memory import MemoryDraft

_LATER = datetime(2027, 6, 1, tzinfo=UTC)
"""A start the caller gives for a value that holds later (``valid_from``)."""


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("I might move to Portland next year.", "I might"),
        ("We're thinking about moving to Portland.", "We're thinking about"),
        ("Do you think I should move to Austin?", "Do you think"),
        ("Should I switch from iPhone to a Pixel?", "Should I"),
        ("If I get the Globex offer I'll quit Acme.", "If I get the Globex offer I'll"),
        ("I'm planning to leave Acme in the spring.", "I'm planning to"),
        ("I’m considering a switch to Verizon", "I'm considering"),
        # trial10 H2: other openings of a possibility
        ("I may move to Portland next year", "I may"),
        ("Maybe we'll move to Portland someday", "Maybe"),
        ("I could take the job at Globex if the offer is good", "I could"),
        ("I'm weighing an offer from Globex", "I'm weighing"),
        ("Can I keep my Chase account?", "Can I keep my Chase account?"),
        # trial12 H2: other openings of a plan
        ("I'm going to move to Portland next month", "I'm going to"),
        ("We plan to move to Portland", "We plan to"),
        ("I plan to visit Mars", "I plan to"),
        ("We intend to sell the house", "We intend to"),
        ("I hope to retire in Lisbon", "I hope to"),
        ("I want to move to Portland", "I want to move"),
        # trial12 M2: a hedge that opens ("I think I …") or ends (", maybe") the write
        ("I think I also live in Portland now", "I think I"),
        ("I live in Portland now, maybe", ", maybe"),
        ("I live in Portland now, I think.", ", I think."),
        ("We live in Portland now, perhaps", ", perhaps"),
        # trial14 H3: other hedges that open or end the write
        ("I guess I live in Portland now", "I guess I"),
        ("I believe that we live in Portland now", "I believe that we"),
        ("I suppose I live in Portland now", "I suppose I"),
        ("Probably we live in Portland now", "Probably we"),
        ("I live in Portland now, probably", ", probably"),
        ("I live in Portland now, I believe", ", I believe"),
        ("I live in Portland now, I suppose.", ", I suppose."),
        ("I live in Portland now, I guess", ", I guess"),
        ("I live in Portland now (maybe)", "(maybe)"),
        ("I live in Portland now (probably)", "(probably)"),
        # trial14: plans said with "gonna", "will / 'll", a present progressive, after a time ahead
        ("I'm gonna move to Portland", "I'm gonna"),
        ("I'll move to Portland next month", "I'll move"),
        ("We will be moving to Portland", "We will be moving"),
        ("I'm moving to Portland next month", "I'm moving"),
        ("I'm moving to Portland", "I'm moving"),  # ambiguous (under way?): not where the user lives yet
        ("Next month I'm going to move to Portland", "Next month I'm going to"),
        ("In two weeks we're relocating to Austin", "In two weeks we're relocating"),
        ("I'm going to work at Globex", "I'm going to work"),
        ("I'm going to work as a nurse", "I'm going to work"),
        ("I'm starting at Globex next week", "I'm starting"),
        ("I'm leaving Acme on Friday", "I'm leaving"),
        ("I'm starting at Globex in June", "I'm starting"),
        ("Tomorrow, I'll start at Globex", "Tomorrow, I'll start"),
        ("I'd like to move to Portland", "I'd like to move"),
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
        # trial10 M1: refused by the first version (a hedge, a title or an instruction after the opening)
        "If I'm late, text me instead of calling",
        "If we order pizza, I want the vegetarian one",
        'My favourite book is "Who Moved My Cheese?"',
        "The company motto is 'What if we did it better?'",
        "My favourite song is 'You Might Think' by The Cars",
        "I work at Might & Main Ltd",
        "I volunteer at the Hoping to Help food bank on Saturdays",
        "I prefer aisle seats, considering my bad knee",
        "I'm vegetarian, though I might eat fish at restaurants",
        "Mia's allergist says she might outgrow the peanut allergy, but she is allergic now",
        "I help families with planning to retire",
        "When I'm thinking about work, I listen to lo-fi",
        "Favourite film: What If (2013)",
        # trial12 H2: "going to" a place, "want" a preference, a present progressive (ambiguous: kept)
        "I'm going to bed at 11 these days",
        "We're going to Lisbon every summer",
        "I want to be called Sam",
        # trial12 M2: an opinion is a value; a comma that is no hedge
        "I think pineapple on pizza is great",
        "I live in Portland, Maine",
        # trial14: an opinion or rule after "I think we", a title's capitalised "Maybe" at the end
        "I think we should always squash commits",
        "I think I must keep Sundays free",
        "My favourite song is Call Me, Maybe",
        "I believe in God",
        # trial14: past and present facts, routines and dispositions beside the plans now refused
        "I work at Globex",
        "I moved to Portland last month",
        "I started at Globex last week",
        "In May I moved to Portland",
        "I'm working at Globex",
        "I'm working at Globex these days",
        "I'm working at Globex, which will open an office in Lisbon",  # the time ahead is another clause's
        "I'm going to work by bike",
        "I'm going to work at 8 every day",
        "I'm leaving work at 5 on Fridays",
        "I'm starting to like jazz",
        "I'll try anything once",
        "I will not move",
        "My wife and I moved to Austin",
    ],
)
def test_a_value_on_a_key_is_not_refused(content: str) -> None:
    check_value_on_key(MemoryDraft(content=content, key="user.home"))


def test_only_a_keyed_semantic_write_without_valid_from_is_checked() -> None:
    check_value_on_key(MemoryDraft(content="I might move to Portland next year."))
    check_value_on_key(MemoryDraft(content="Should I move?", key="user.home", layer="episodic"))


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("We are planning to have no more kids", "state a plan ('We are planning to')"),
        ("We're planning to have no more kids", 'state a plan ("We\'re planning to")'),
        ("Should I switch to a Pixel?", "ask a question ('Should I')"),
        ("I might move to Portland next year.", "state a possibility ('I might')"),
        ("If I get the offer I'll quit Acme.", "say what would happen under a condition"),
    ],
)
def test_the_refusal_names_the_kind_of_words_and_the_rule(content: str, says: str) -> None:
    """trial11 finding 6: "We are planning to have no more kids" was refused as "a question or … a
    possibility or plan": the error names which, and why it is no value of now."""
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key="user.kids"))
    assert f"the words {says}" in str(refused.value), refused.value
    assert "a key holds the value that holds now" in str(refused.value), refused.value


@pytest.mark.parametrize("key", ["user.plans", "family.plans.kids", "user.goals", "travel_plan"])
def test_a_plan_on_a_key_that_names_plans_is_its_value_a_question_is_not(key: str) -> None:
    check_value_on_key(MemoryDraft(content="We are planning to have no more kids", key=key))
    for content in ("Should I move to Austin?", "I might move to Portland"):
        with pytest.raises(InvalidInput):
            check_value_on_key(MemoryDraft(content=content, key=key))


@pytest.mark.parametrize(
    "content",
    ["I'm gonna move to Portland", "I'll move to Portland next month", "I'm starting at Globex next week"],
)
def test_a_plan_of_trial14_is_stored_on_a_key_that_names_plans_and_its_refusal_says_what_to_do(
    content: str,
) -> None:
    check_value_on_key(MemoryDraft(content=content, key="user.plans"))
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key="user.home"))
    message = str(refused.value)
    assert refused.value.field == "content"
    assert "the words state a plan" in message, message
    assert all(words in message for words in ("without a key", "'user.plans'", "once it holds")), message


@pytest.mark.parametrize(
    ("key", "content"),
    [
        # trial16: refused as plans by 8fd0036 (accepted on b16988d): a habit, a discourse opening, a
        # standing arrangement
        ("user.commute", "I'm going to work at Acme by bike these days"),
        ("user.employer", "I'm going to work at Acme by bike these days"),
        ("user.home", "I'm gonna be honest, I still live in Denver"),
        ("user.home", "I'm going to be honest, I still live in Denver"),
        ("user.home", "To be honest: I live in Denver now"),
        ("user.schedule", "I will work from home on Fridays"),
        ("user.schedule", "I'll work from home on weekends"),
        ("user.schedule", "I will work from home every Monday"),
    ],
)
def test_a_habit_or_a_discourse_opening_is_a_value_not_a_plan(key: str, content: str) -> None:
    check_value_on_key(MemoryDraft(content=content, key=key))


@pytest.mark.parametrize(
    ("key", "content", "words"),
    [
        # guards: a plan after a discourse opening, a habit with a time ahead, no habit
        ("user.home", "I'm gonna be honest, I'm moving to Portland", "I'm moving"),
        ("user.schedule", "I'll work from home on Fridays from next month", "I'll work"),
        ("user.employer", "I'm going to work at Globex by the summer", "I'm going to work"),
    ],
)
def test_a_plan_beside_a_habit_word_or_after_a_discourse_opening_is_still_refused(
    key: str, content: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key=key))
    assert f"state a plan ({words!r})" in str(refused.value), refused.value


@pytest.mark.parametrize(
    ("key", "content", "says"),
    [
        # trial16: plans inside 8fd0036's scope that still retired the value
        ("user.editor", "I'm switching to Neovim next week", 'state a plan ("I\'m switching")'),
        ("team.db", "We're switching to Postgres next quarter", 'state a plan ("We\'re switching")'),
        ("team.db", "We're switching to Postgres in Q3", 'state a plan ("We\'re switching")'),
        ("team.db", "We're switching to Postgres later this year", 'state a plan ("We\'re switching")'),
        ("team.db", "We're migrating to Postgres next week", 'state a plan ("We\'re migrating")'),
        # trial16: a value that starts holding only at a time ahead
        ("user.home", "I'll be living in Lisbon from June", 'state a value from a time ahead ("I\'ll be")'),
        ("user.phone", "I'll get a Pixel next month", 'state a value from a time ahead ("I\'ll get")'),
        (
            "team.standup",
            "From next week the standup is at 10",
            "state a value from a time ahead ('From next week')",
        ),
        ("team.standup", "Starting tomorrow, the standup is at 10", "state a value from a time ahead"),
        ("user.age", "I will be 40 in March", "state a value from a time ahead ('I will be')"),
        ("user.location", "I'll be in Lisbon tomorrow", 'state a value from a time ahead ("I\'ll be")'),
    ],
)
def test_a_plan_or_a_value_from_a_time_ahead_is_refused_and_the_refusal_names_occurred_at(
    key: str, content: str, says: str
) -> None:
    """The refusal says to write it without a key, on a plans key, or once it holds (with occurred_at when
    it starts: memory_write's mechanism for a future value, trial18 M3 — it named valid_from, which
    memory_write does not take); on user.plans it is stored."""
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key=key))
    message = str(refused.value)
    assert refused.value.field == "content"
    assert says in message, message
    assert all(
        words in message for words in ("without a key", "'user.plans'", "once it holds", "occurred_at")
    ), message
    check_value_on_key(MemoryDraft(content=content, key="user.plans"))
    check_value_on_key(MemoryDraft(content=content, key=key, valid_from=_LATER))


@pytest.mark.parametrize(
    ("key", "content"),
    [
        # keys15: the date of a day that comes back is a value of now, whichever way round it is said
        ("user.birthday", "Tomorrow is my birthday"),
        ("user.birthday", "Tomorrow will be my birthday!"),
        ("user.anniversary", "Next Friday is our 10th anniversary"),
        ("user.birthday", "My birthday is tomorrow"),
    ],
)
def test_a_time_ahead_that_dates_a_birthday_or_an_anniversary_is_a_value_of_now(
    key: str, content: str
) -> None:
    check_value_on_key(MemoryDraft(content=content, key=key))


@pytest.mark.parametrize(
    ("key", "content"),
    [
        # guards: a time ahead that opens a one-off day, or a value that starts then, is still refused
        ("user.employer", "Tomorrow is my last day at Acme"),
        ("user.employer", "Tomorrow is my first day at Globex"),
        ("user.rent", "Starting tomorrow my rent is $2000"),
    ],
)
def test_a_time_ahead_before_another_day_or_value_is_still_refused(key: str, content: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key=key))
    assert "state a value from a time ahead" in str(refused.value), refused.value


@pytest.mark.parametrize(
    ("key", "content"),
    [
        # guards beside the trial16 refusals: no time ahead, a past opening, a value of now
        ("user.editor", "I'm switching to Neovim"),
        ("user.music", "I'm starting to like jazz"),
        ("user.diet", "I'll always be vegetarian"),
        ("user.coffee", "I'll take my coffee black"),
        ("user.home", "In June I moved to Denver"),
        ("user.age", "I am 39"),
        ("user.location", "I'm in Berlin this week"),
        ("user.employer", "I'm working at Globex, which will open an office next year"),
    ],
)
def test_a_value_of_now_beside_the_trial16_refusals_is_not_refused(key: str, content: str) -> None:
    check_value_on_key(MemoryDraft(content=content, key=key))


@pytest.mark.parametrize(
    ("key", "content", "says"),
    [
        # trial17: a change in the present simple from a time ahead retired the value of now
        ("user.employer", "I start at Globex next Monday", "state a value from a time ahead ('I start')"),
        (
            "user.employer",
            "I start my new job at Globex next week",
            "state a value from a time ahead ('I start')",
        ),
        ("user.employer", "Starting in January I work at Globex", "('Starting in January')"),
        ("user.employer", "I've accepted an offer from Globex and start in January", 'and start")'),
        (
            "user.home",
            "We close on the Denver house next month",
            "state a value from a time ahead ('We close')",
        ),
        (
            "user.employer",
            "In January I join Globex",
            "state a value from a time ahead ('In January I join')",
        ),
        ("user.employer", "I join Globex on Monday", "state a value from a time ahead ('I join')"),
        ("user.employer", "I quit Acme next month", "state a value from a time ahead ('I quit')"),
    ],
)
def test_a_change_in_the_present_simple_from_a_time_ahead_is_refused(
    key: str, content: str, says: str
) -> None:
    """As "I will …" with a time ahead (trial16), the refusal names occurred_at (trial18 M3); on user.plans
    it is stored."""
    with pytest.raises(InvalidInput) as refused:
        check_value_on_key(MemoryDraft(content=content, key=key))
    message = str(refused.value)
    assert refused.value.field == "content"
    assert says in message, message
    assert "occurred_at" in message, message
    assert "valid_from" not in message, message
    check_value_on_key(MemoryDraft(content=content, key="user.plans"))
    check_value_on_key(MemoryDraft(content=content, key=key, valid_from=_LATER))


@pytest.mark.parametrize(
    ("key", "content"),
    [
        # guards beside the trial17 refusals: a habit, a past change, a recurring time
        ("user.schedule", "I start work at 9 every day"),
        ("user.schedule", "I start at 8 on weekdays"),
        ("user.schedule", "I start at 9 on Mondays"),
        ("user.employer", "I started at Globex in January"),
        ("user.employer", "In January I started at Globex"),
        ("user.employer", "Starting in January I worked at Globex"),
        ("user.employer", "I joined Globex last week"),
        ("user.schedule", "I leave work at 5"),
        ("user.schedule", "I close the store on Sundays"),
        ("user.travel", "I leave for Florida every January"),
        # "quit" is its own past: only a time that can only lie ahead makes it one ahead
        ("user.employer", "I quit Acme in January"),
        ("user.habits", "I quit smoking on Monday"),
    ],
)
def test_a_habit_or_a_past_change_beside_the_trial17_refusals_is_a_value(key: str, content: str) -> None:
    check_value_on_key(MemoryDraft(content=content, key=key))
