"""Key-less contradiction rules (domain.contradiction): the issue's cases, additive statements, values,
subjects and identifiers, Chinese, the source rules, and the labelled corpus against its published floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hindsight.domain.contradiction import (
    CONFLICT_COSINE,
    compare_facts,
    conflict_floor,
    gated,
    is_additive,
    resolve,
)


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
        ("The sync is on Tuesdays at 10:00.", "The sync is now on Thursdays at 15:00.", "contradiction"),
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
        # a name, number or noun inside the subject phrase, before the verb, is another thing, wherever
        # it stands in the phrase (new-user trial, finding 1: "Sofia" superseded "Emma")
        ("My daughter Emma is allergic to peanuts", "My daughter Sofia is allergic to peanuts", "unrelated"),
        ("The user's order 1042 has shipped", "The user's order 1043 has shipped", "unrelated"),
        (
            "Our client Globex pays invoices in euros",
            "Our client Initech pays invoices in euros",
            "unrelated",
        ),
        ("Meeting room 101 is booked for Friday", "Meeting room 102 is booked for Friday", "unrelated"),
        ("Invoice number 2024-117 has been paid", "Invoice number 2024-118 has been paid", "unrelated"),
        ("The billing team's standup is at 10:00", "The billing team's retro is now at 10:00", "unrelated"),
        (
            "Project Apollo's staging database runs on Postgres 16",
            "Project Apollo's production database now runs on Postgres 16",
            "unrelated",
        ),
        (
            "The user's landlord in Lisbon is Mr. Costa.",
            "The user's landlord in Porto is Mr. Costa.",
            "unrelated",
        ),
        (
            "The user's manager's assistant Priya books flights.",
            "The user's manager's assistant Omar books flights.",
            "unrelated",
        ),
        ("The user's daughter Emma can swim.", "The user's daughter Sofia can swim.", "unrelated"),
        (
            "My daughter Emma is allergic to peanuts.",
            "My daughter Sofia is not allergic to peanuts.",
            "unrelated",
        ),
        ("The user's partner Alex no longer eats meat.", "The user's partner Sam eats meat.", "unrelated"),
        # in Chinese: a Latin name or a number right after a noun it stands in apposition to
        ("我女儿Emma对花生过敏", "我女儿Sofia对花生过敏", "unrelated"),
        ("用户的订单1042已经发货", "用户的订单1043已经发货", "unrelated"),
        ("会议室101周五被预订了", "会议室102周五被预订了", "unrelated"),
        ("用户的女儿Emma今年7岁", "用户的女儿Emma今年8岁", "contradiction"),
        ("仓库晚上6点关门", "仓库晚上8点关门", "contradiction"),
        # ... while the same subject with another value after the verb still supersedes
        (
            "My daughter Emma is allergic to peanuts",
            "My daughter Emma is no longer allergic to peanuts",
            "contradiction",
        ),
        # another day alone, no word saying it changed: maybe a second day (trial 2, H2) — unless it says so
        (
            "The user's order 1042 ships on Monday.",
            "The user's order 1042 ships on Thursday.",
            "possible_conflict",
        ),
        (
            "The user's order 1042 ships on Monday.",
            "The user's order 1042 now ships on Thursday.",
            "contradiction",
        ),
        ("The user's son Leo is 7 years old.", "The user's son Leo is 8 years old.", "contradiction"),
        (
            "Our client Globex pays invoices in euros.",
            "Our client Globex now pays invoices in dollars.",
            "contradiction",
        ),
        ("I leave work at 17:00.", "I leave work at 18:00 now.", "contradiction"),
        ("The user drove a diesel car.", "The user drove an electric car instead.", "contradiction"),
        # two dated statements with two values are two periods: both may be true (trial, finding 9)
        ("The user lived in Paris in 2019", "The user lived in Rome in 2021", "possible_conflict"),
        ("The user worked at Globex in 2018.", "The user worked at Initech in 2022.", "possible_conflict"),
        ("The project deadline is 2026-12-15.", "The project deadline is 2027-01-10.", "contradiction"),
        ("用户喜欢喝咖啡。", "用户的同事不喜欢喝咖啡。", "unrelated"),
        # a past event with another object is a second event: both happened, neither retires the other
        ("The user met Ana.", "The user met Ben.", "unrelated"),
        ("The user visited Paris.", "The user visited Rome.", "unrelated"),
        ("The user bought a bike.", "The user bought a car.", "unrelated"),
        ("The user called the bank.", "The user called the dentist.", "unrelated"),
        ("The user met Ana for lunch.", "Actually, the user met Ben for lunch.", "contradiction"),
        ("The user met Ana.", "The user met Ben instead of Ana.", "contradiction"),
        # two undated past states both held, each at its own time (new-user trials): flagged, never superseded
        ("The user lived in Paris.", "The user lived in Rome.", "possible_conflict"),
        ("The user met Clara on Tuesday.", "The user met Clara on Wednesday.", "possible_conflict"),
        # ... while a state with another value still supersedes
        ("The user lives in Paris.", "The user lives in Rome.", "contradiction"),
        ("The user's favourite colour is blue.", "The user's favourite colour is green.", "contradiction"),
        # a plural noun or an adjective after a possessive is no verb: the name after it is in the subject
        (
            "The user's cats Tom and Tibbles eat dry food.",
            "The user's cats Tom and Felix eat dry food.",
            "unrelated",
        ),
        ("My retired colleague Ana lives in Faro.", "My retired colleague Rui lives in Faro.", "unrelated"),
        (
            "The user's retired father Tom lives in York.",
            "The user's retired father Tom now lives in Leeds.",
            "contradiction",
        ),
        # unsure: flagged, never superseded
        ("The user likes Muse.", "The user likes Radiohead.", "possible_conflict"),
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


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # trial 2, HIGH 1: a changed name after a verb that can hold several is unsure, never a supersede
        ("The user is allergic to Penicillin", "The user is allergic to Amoxicillin", "possible_conflict"),
        (
            "The user takes Lisinopril 10 mg daily",
            "The user takes Metformin 500 mg daily",
            "unrelated",  # trial11 M2: another drug taken is one more, both hold (not even a flag)
        ),
        (
            "The user pays Netflix 15 dollars a month",
            "The user pays Spotify 10 dollars a month",
            "possible_conflict",
        ),
        ("The user owes Tom 50 dollars", "The user owes Anna 20 dollars", "possible_conflict"),
        ("The user works with Tom", "The user works with Anna", "possible_conflict"),
        ("The user is friends with Tom", "The user is friends with Anna", "possible_conflict"),
        (
            "The user meets Sarah at 10am",
            "The user meets John at 2pm",
            "unrelated",
        ),  # trial11 M2: two meetings
        (
            "The user gives Emma 10 dollars pocket money",
            "The user gives Noah 5 dollars pocket money",
            "possible_conflict",
        ),
        (
            "The user booked a table at Nobu for 8pm",
            "The user booked a table at Zuma for 9pm",
            "unrelated",  # two past events (the past-event rule)
        ),
        ("The user is on Metoprolol.", "The user is on Warfarin.", "possible_conflict"),
        ("The user's friend is Tom.", "The user's friend is Anna.", "possible_conflict"),
        # ... and an identifier in the subject that changes with the value names another thing
        ("The user's flight UA 123 departs at 9am", "The user's flight UA 456 departs at 3pm", "unrelated"),
        ("The user's flight UA123 departs at 9am", "The user's flight UA456 departs at 3pm", "unrelated"),
        ("The user's room 101 costs 90 euros", "The user's room 202 costs 120 euros", "unrelated"),
        # a slot known to hold one value still supersedes on a changed name
        ("The user works at Google.", "The user works at Microsoft.", "contradiction"),
        ("The user's manager is Tom.", "The user's manager is Sarah.", "contradiction"),
        # trial 3 HIGH 1: a dentist is one of several (two dentists, a second opinion): unsure
        ("The user's dentist is Dr. Lee.", "The user's dentist is Dr. Nguyen.", "possible_conflict"),
        ("The user is married to Daniel.", "The user is married to Marcus.", "contradiction"),
        ("The user reports to Tom.", "The user reports to Anna.", "contradiction"),
        # trial 3: the user may have two dogs (a pet is a relation of several): unsure
        ("The user's dog is called Biscuit.", "The user's dog is called Pretzel.", "possible_conflict"),
        # ... so do a correction marker and a changed number of the same thing
        ("The user works with Tom.", "The user now works with Anna.", "contradiction"),
        ("The user takes Lisinopril 10 mg daily.", "The user takes Lisinopril 20 mg daily.", "contradiction"),
        # trial 2, MED 5: true changes written as an event, with "new", another order, another spelling
        ("The user lives in Paris", "The user moved to Rome", "contradiction"),
        ("The user lives in Paris", "The user has moved to Rome", "contradiction"),
        ("The user lives in Paris", "The user relocated to Rome", "contradiction"),
        ("The user's phone number is 555-1234", "The user's new phone number is 555-9876", "contradiction"),
        ("The user drinks coffee", "The user quit coffee", "contradiction"),
        # ... but a move or birthday dated to a year may be older than the statement: unsure
        ("The user lives in Paris.", "The user moved to Rome in 2015.", "possible_conflict"),
        ("The user is 34.", "The user turned 30 in 2020.", "possible_conflict"),
        # "new" before a relation the user has several of adds one; before a one-value slot it replaces
        ("My colleague is Anna.", "My new colleague is Tom.", "possible_conflict"),
        ("The user's friend is Anna.", "The user's new friend is Tom.", "possible_conflict"),
        ("My manager is Anna.", "My new manager is Tom.", "contradiction"),
        ("The user's manager is Tom", "Sarah is the user's manager now", "contradiction"),
        ("Tom is the user's manager", "Tom is no longer the user's manager", "contradiction"),
        ("The user's favourite colour is blue", "The user's favorite color is green now", "contradiction"),
        ("The user is 34", "The user turned 35", "contradiction"),
        # a thing moved is not a person's move: its date is still the changed value
        (
            "The user's dentist appointment is on 3 December.",
            "The user's dentist appointment was moved to 10 December.",
            "contradiction",
        ),
    ],
)
def test_trial2_pairs(old: str, new: str, relation: str) -> None:
    """New-user trial 2: HIGH 1 (a changed name after a verb that can hold several values, or an
    identifier changing with the value, retired a true fact) and MED 5 (true changes missed)."""
    assert compare_facts(new, old).relation == relation


_MAY_BE_SEVERAL = [
    # trial 3, HIGH 1-3, 5, 6: "is" holds one value only after an attribute that does (value_slots)
    ("The user's grandmother is Maria", "The user's grandmother is Rosa"),
    ("The user's doctor is Dr. Smith", "The user's doctor is Dr. Jones"),
    ("Tom is the user's doctor", "Anna is the user's doctor"),
    ("The user's business partner is Tom", "The user's business partner is Anna"),
    ("The user's former boss is Tom", "The user's former boss is Ben"),
    ("The user's ex-wife is Anna", "The user's ex-wife is Maria"),
    ("The user's allergy is Penicillin", "The user's allergy is Peanuts"),
    ("The user's medication is Lisinopril", "The user's medication is Metformin"),
    ("The user's pets are Rex and Bella", "The user's pets are Rex and Luna"),
    ("The user's team is Tom and Anna", "The user's team is Tom and Ben"),
    # a relation the user has several of, whatever follows: names and numbers
    ("The user's son is named Tom", "The user's son is named Ben"),
    ("The user's son is called Tom", "The user's son is called Ben"),
    ("The user's sister's name is Anna", "The user's sister's name is Maria"),
    ("The user's son is 8 years old", "The user's son is 5 years old"),
    ("The user's friend is 30", "The user's friend is 45"),
    ("The user's daughter's birthday is May 3", "The user's daughter's birthday is July 9"),
    ("The user's kid goes to school at 8am", "The user's kid goes to school at 9am"),
    ("The user's sister lives in Paris", "The user's sister lives in Rome"),
    ("The user's parents live in Paris", "The user's parents live in Rome"),
    ("The user has a card ending in 1234", "The user has a card ending in 5678"),
    # "lives with" and the bare copula hold several
    ("The user lives with Tom", "The user lives with Anna"),
    ("The user lives in Paris with Tom", "The user lives in Paris with Anna"),
    ("The user is French", "The user is German"),
    ("The user is a Python developer", "The user is a Rust developer"),
    ("The user is Catholic", "The user is Buddhist"),
    ("The user is from France", "The user is from Germany"),
]


@pytest.mark.parametrize(("old", "new"), _MAY_BE_SEVERAL)
def test_a_value_that_may_be_one_of_several_is_unsure(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user lives in Paris", "The user lives in Rome"),
        ("The user works at Google", "The user works at Microsoft"),
        ("The user's manager is Tom", "The user's manager is Sarah"),
        ("The user's favourite colour is blue", "The user's favourite colour is green"),
        ("The user's favorite band is Radiohead", "The user's favorite band is Muse"),
        ("The user's preferred airline is TAP", "The user's preferred airline is Lufthansa"),
        ("The user is 34", "The user is 35"),
        ("The user's email is a@x.com", "The user's email is b@x.com"),
        ("The user's phone number is 555-1234", "The user's phone number is 555-9876"),
        ("The user is married to Tom", "The user is married to Anna"),
        ("The user's wife is Anna", "The user's wife is Maria"),
        ("The user's team lead is Ravi", "Nina is the user's team lead now"),
        ("The user's sister Clara lives in Madrid", "The user's sister Clara now lives in Valencia"),
        ("The user's son Leo is 7 years old", "The user's son Leo is 8 years old"),
        (
            "The user's dentist appointment is on 3 December",
            "The user's dentist appointment was moved to 10 December",
        ),
        ("The user's doctor is Dr. Smith", "Actually, the user's doctor is Dr. Jones"),
    ],
)
def test_a_one_value_attribute_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


_BOTH_HOLD = [
    # trials, HIGH: a qualifier (day, time of day, season, place, project) on either side: both may hold
    # (another thing at another, non-overlapping time on both sides holds for sure: test_state_change)
    ("The user works at Google on Mondays", "The user works at Meta", "other_qualifier"),
    ("The user works at Google", "The user works at Meta on Fridays", "other_qualifier"),
    ("The user works at Google on Mondays", "The user works at Meta on Fridays now", "other_qualifier"),
    ("The user's manager is Tom", "The user's manager is Anna on weekends", "other_qualifier"),
    ("The user lives in Paris", "The user lives in Rome on weekends", "other_qualifier"),
    # ... and a time with another day: the time of each day (trial report H1), not a moved one
    ("School starts at 8:15 on weekdays", "School starts at 9:00 on Saturdays", "other_qualifier"),
    ("The gym is open until 22:00 on weekdays", "The gym is open until 18:00 on weekends", "other_qualifier"),
    (
        "Omar coaches football on Tuesdays at 18:00",
        "Omar coaches football on Saturdays at 10:00",
        "other_qualifier",
    ),
    (
        "Priya's yoga class is at 7am on Tuesdays",
        "Priya's yoga class is at 6pm on Thursdays",
        "other_qualifier",
    ),
    ("The gym opens at 6am", "The gym opens at 8am on weekends", "other_qualifier"),
    # trial 2, H2: another day or part of the week alone, without a word saying it changed
    ("Priya works at Google on Mondays", "Priya works at Google on Fridays", "other_qualifier"),
    ("The user goes to the gym on Mondays", "The user goes to the gym on Fridays", "other_qualifier"),
    ("Priya works from home on Mondays", "Priya works from home on Fridays", "other_qualifier"),
    ("The user goes to yoga on Wednesdays", "The user goes to yoga on Saturdays", "other_qualifier"),
    ("The user runs in the mornings", "The user runs in the evenings", "other_qualifier"),
    ("The weekly sync is on Tuesdays", "The weekly sync is on Thursdays", "other_qualifier"),
    # trial 3, finding 5: a day and a time changed together, without a word saying they changed — a
    # second session at another time is as likely as a moved one (decided: flagged, as a day alone is)
    (
        "The weekly sync is on Tuesdays at 10:00",
        "The weekly sync is on Thursdays at 15:00",
        "other_qualifier",
    ),
    (
        "Emma's swim class is on Tuesdays at 7pm",
        "Emma's swim class is on Thursdays at 6pm",
        "other_qualifier",
    ),
    ("Emma's swim class is Tuesdays at 7pm", "Emma's swim class is Thursdays at 6pm", "other_qualifier"),
    (
        "The staging database is reset every Sunday",
        "The staging database is reset every Wednesday",
        "other_qualifier",
    ),
    # trial 2, H1: a time with another day
    ("Priya's standup is at 9:30 on weekdays", "Priya's standup is at 11:00 on Saturdays", "other_qualifier"),
    (
        "Priya goes to the gym at 7:00 on Mondays",
        "Priya goes to the gym at 18:00 on Thursdays",
        "other_qualifier",
    ),
    # trials, MED: alarms, appointments, reminders at another time: the user may have both
    ("The user's alarm is set for 7am", "The user's alarm is set for 9pm", "several"),
    ("The user set an alarm for 7am", "The user set an alarm for 9pm", "several"),
    ("My alarm is set for 7am", "My alarm is set for 8am", "several"),
    ("The user's appointment is at 3pm", "The user's appointment is at 5pm", "several"),
    ("The user's next appointment is at 3pm", "The user's next appointment is at 5pm", "several"),
    ("The user's reminder is at 8am", "The user's reminder is at 6pm", "several"),
    (
        "The user's dentist appointment is on 3 December",
        "The user's dentist appointment is on 10 December",
        "several",
    ),
    # new-user trials: two undated past states, two past measurements
    ("The user lived in Paris", "The user lived in Rome", "past"),
    ("The user worked at Globex", "The user worked at Initech", "past"),
    ("The user's run was 5 km", "The user's run was 10 km", "past"),
]


@pytest.mark.parametrize(("old", "new", "signal"), _BOTH_HOLD)
def test_statements_that_may_both_hold_are_at_most_a_possible_conflict(
    old: str, new: str, signal: str
) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict"
    assert signal in verdict.signals


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the same qualifier on both sides: the value changed
        ("The user works at Google on Mondays", "The user works at Meta on Mondays"),
        # a day that is the value itself ("the day off is Monday"); a day and time said to have changed
        ("The user's day off is Monday", "The user's day off is Friday"),
        ("The weekly sync is on Tuesdays at 10:00", "The weekly sync was moved to Thursdays at 15:00"),
        # another day said to be a change: "now", "actually", "instead", "moved", "changed"
        ("The user goes to yoga on Wednesdays", "The user now goes to yoga on Saturdays"),
        ("Priya works at Google on Mondays", "Actually, Priya works at Google on Fridays"),
        ("The user goes to the gym on Mondays", "The user goes to the gym on Fridays instead"),
        ("The weekly sync is on Tuesdays", "The weekly sync was moved to Thursdays"),
        ("The weekly sync is on Tuesdays", "The weekly sync is now on Thursdays"),
        ("The kickoff call is at 9:30 on Monday", "The kickoff call is at 11:00 on Monday"),
        ("The store closes at 9pm on weekdays", "The store closes at 10pm on weekdays"),
        # an alarm or appointment said to be moved, or corrected
        ("The user's alarm is set for 7am", "The user's alarm was moved to 9am"),
        ("The user's appointment is at 3pm", "The user's appointment was rescheduled to 5pm"),
        ("The user's appointment is at 3pm", "Actually, the user's appointment is at 5pm"),
        # a preference for a reminder is one value
        (
            "The user wants a reminder 15 minutes before meetings",
            "The user wants a reminder 30 minutes before meetings",
        ),
        # a present state, a corrected past state, a birth place, a dated past state (ordered in valid time)
        ("The user lives in Paris", "The user lives in Rome"),
        ("The user lived in Paris", "Actually, the user lived in Rome"),
        ("The user was born in Paris", "The user was born in Rome"),
        ("The user lived in Rome", "The user lived in Paris since two years ago"),
        ("The meeting is at 3pm", "The meeting is at 4pm"),
    ],
)
def test_a_change_without_a_reason_for_both_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # new-user trials: one value written another way is the same statement, not a new value
        ("The meeting is at 3pm", "The meeting is at 15:00"),
        ("The meeting is at 3 pm.", "The meeting is at 3pm"),
        ("The user's flight lands at 9:30 p.m.", "The user's flight lands at 21:30"),
        ("The standup is at 9am", "The standup is at 09:00"),
        ("The user lives in NYC", "The user lives in New York City"),
        ("The user lives in the USA", "The user lives in the United States of America"),
        ("The user works at IBM", "The user works at International Business Machines"),
    ],
)
def test_a_value_written_another_way_is_the_same(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "same"
    assert compare_facts(old, new).relation == "same"


def test_long_texts_are_not_compared() -> None:
    notes = "Meeting notes. " + "The team discussed the roadmap at length. " * 40
    assert compare_facts(
        notes + "The user is not vegetarian.", notes + "The user is vegetarian."
    ).relation == ("unrelated")


def test_combining_accents_are_read_composed() -> None:
    # new-user trial, finding 10: a repeat in NFD is the same information, and a value written with a
    # combining accent is the same value
    nfd = "The user lives in Sa\u0303o Paulo."
    assert compare_facts(nfd, "The user lives in S\u00e3o Paulo.").relation == "same"
    verdict = compare_facts("The user now lives in Bogota\u0301.", "The user lives in S\u00e3o Paulo.")
    assert verdict.relation == "contradiction"


def test_a_subject_change_names_its_signal() -> None:
    verdict = compare_facts(
        "My son Max plays football on Saturdays", "My son Leo plays football on Saturdays"
    )
    assert verdict.reason == "unrelated (other_subject)"
    dated = compare_facts("The user lived in Rome in 2021", "The user lived in Paris in 2019")
    assert dated.reason == "possible_conflict (other_time)"


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


@pytest.mark.parametrize(
    ("text", "additive"),
    [
        # trial7 M2: on a key, these replaced nothing ("adds to … (same key, both active)")
        ("Also, I work at Globex now", False),  # a sentence-initial "Also,"
        ("I've also switched to a Pixel 8", False),
        ("Also, I work at Globex", False),  # a sentence-initial "Also,": one more thing said
        ("Also I work at Globex", False),
        ("My sister moved to Denver and I moved there too", False),  # "too" of another subject
        ("My sister lives in Denver, and I live there too", False),
        # one more value of the same subject
        ("I also work at Globex", True),
        ("I work at Globex too", True),
        ("I work at Acme and I also work at Globex", True),
        ("Rowan runs HR and also runs payroll", True),
        ("Rowan now also runs payroll", True),  # "now also": in addition from now on
        ("The user also speaks German.", True),
        # trial9 H1: "also … now" is one more value from now on, not a change
        ("Turns out I'm also allergic to latex now.", True),
        ("We also have a cat now.", True),
        ("I also work at a bakery on weekends now.", True),
        ("I also speak French now.", True),
        # trial10 H1: an ending verb beside "also … now" is a change
        ("I also closed my Chase account, I'm with Ally now", False),
        ("We also sold the Civic, I drive a Model 3 now", False),
        ("I also got a new phone now, a Pixel 9", False),
        ("Ben also left Stripe now and joined Plaid", False),
        # trial11 finding 1: a change word in a reason about someone else is no change of the value
        ("I also use Outlook now, since work moved to Microsoft 365", True),
        ("I also use Outlook now because the company switched to Microsoft 365", True),
        ("I also use Outlook now, as my team moved to Microsoft 365", True),
        ("I also use Outlook now, now that the office moved to Microsoft 365", True),
        # … but a reason that is the writer's own doing, or a change in the statement, still replaces
        ("I also work at Globex now, since I left Acme", False),
        ("I also switched to Outlook now, since work moved to Microsoft 365", False),
        # trial11 finding 5: "now" of a state held one at a time is a change of it, whatever "also" says
        ("I'm also married now!", False),
        ("I’m also married now!", False),
        ("I also live in Portland now", False),
        ("We also got engaged now", False),
        ("Tom is also based in Berlin now", False),
        ("I also live in Portland now, since my company moved there", False),
        # trial12 M1: … of the writer, not of another person named by a relation
        ("My sister also lives in Portland now", True),
        ("My brother is also married now", True),
        ("Our son is also based in Berlin now", True),
        ("We also live in Portland now", False),
        ("My sister and I also live in Portland now", False),
        # … not a second home without "now", nor what the user may hold several of
        ("I also live in Portland", True),
        ("I also live with my parents now", True),
        ("I also work at Globex now", True),
    ],
)
def test_an_also_beside_a_change_or_about_another_subject_adds_no_value(text: str, additive: bool) -> None:
    assert is_additive(text) is additive


def test_the_labelled_pairs_meet_the_published_floor() -> None:
    """tests/data/contradiction_pairs.jsonl with the rules alone (bench/contradictions.py --no-gate; the
    similarity gate can only remove supersedes): the false-supersede rate stays under 2 %, as the issue
    requires, and supersedes stay precise. Supersede recall is held at 0.68, what docs/detectors.md
    publishes (0.688 with the gate, 0.691 rules alone, on 923 pairs): labelled contradictions the rules
    only flag — as the house rule wants of an unsure change, e.g. trial18's "My doctor upped my metformin
    to 1000mg twice a day" — count as not recalled here, so they are kept in the corpus and this floor
    was lowered from 0.70 rather than leaving them out; what it may not lose is a contradiction caught
    at all (superseded or flagged): at least 97 %."""
    path = Path(__file__).parents[1] / "data" / "contradiction_pairs.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) >= 200
    assert {r["label"] for r in records} == {"contradiction", "paraphrase", "addition", "unrelated"}
    found = [(r["label"], compare_facts(r["new"], r["old"]).relation) for r in records]
    negatives = [v for label, v in found if label != "contradiction"]
    supersedes = [label for label, v in found if v == "contradiction"]
    assert sum(v == "contradiction" for v in negatives) / len(negatives) < 0.02
    assert supersedes.count("contradiction") / len(supersedes) >= 0.95
    contradictions = [v for label, v in found if label == "contradiction"]
    assert supersedes.count("contradiction") / len(contradictions) >= 0.68
    caught = [v for v in contradictions if v in ("contradiction", "possible_conflict")]
    assert len(caught) / len(contradictions) >= 0.97


_TRIAL3_NEVER_SUPERSEDED = [
    # finding 1: a change word in another clause is about that clause, not the compared statement
    ("Lena plays tennis on Tuesdays", "Lena plays tennis on Thursdays; her son no longer plays football"),
    ("Lena plays tennis on Tuesdays", "Lena plays tennis on Thursdays - her son no longer plays football"),
    ("Lena plays tennis on Tuesdays", "Lena plays tennis on Thursdays; she doesn't play football any more"),
    ("Lena plays tennis on Tuesdays", "Lena plays tennis on Thursdays because her son now plays on Tuesdays"),
    # finding 2: a new thing may be one more, not another in place of the old one
    ("Emma's yoga class is at 7am", "Emma's new yoga class is at 6pm"),
    ("Emma's yoga class is on Tuesdays", "Emma's new yoga class is on Thursdays"),
    ("My yoga class is on Tuesdays", "My new yoga class is on Thursdays"),
    ("The user takes a yoga class on Tuesdays", "The user started a new yoga class on Thursdays"),
    # finding 3: a move of another subject, or of the user, or one still ahead
    ("Emma plays tennis on Tuesdays", "Emma's tennis moved to Thursdays"),
    ("Emma has piano on Tuesdays", "Emma's piano moved to Fridays"),
    ("The user goes to yoga on Tuesdays", "The user switched to Thursdays"),
    ("Emma's piano lesson is on Tuesdays", "Emma's swim class moved to Thursdays"),
    ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson will be moved to Thursdays"),
    ("Emma has piano on Tuesdays", "Emma has piano on Fridays"),  # no change word: maybe a second day
    ("The user has a meeting at 3pm", "The user has a meeting at 5pm"),
    # finding 4: an admission of a mistake does not say which fact was wrong
    ("The user's gym is open until 10pm", "Sorry, I was wrong: the user's dentist is Dr. Kim"),
    ("I am allergic to peanuts", "Sorry, I was wrong: I am allergic to cats"),
    ("The user's appointment is at 3pm", "Sorry, I was wrong: the user's appointment is at 4pm"),
    # finding 5 (decided): a day and a time changed together without a change word
    ("Emma's swim class is on Tuesdays at 7pm", "Emma's swim class is on Thursdays at 6pm"),
    ("Emma has swimming on Tuesdays at 7pm", "Emma has swimming on Thursdays at 6pm"),
]


@pytest.mark.parametrize(("old", "new"), _TRIAL3_NEVER_SUPERSEDED)
def test_trial3_a_true_fact_is_never_retired(old: str, new: str) -> None:
    """New-user trial 3, findings 1-5: a change word in another clause, a new additional thing, a move of
    another subject, an admission of a mistake about something else, or a day and time changed together
    without a change word retire nothing (at most a possible conflict)."""
    assert compare_facts(new, old).relation in ("possible_conflict", "unrelated")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # finding 3: a change of the same subject's time, however it is written
        ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson moved to Thursdays"),
        ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson has moved to Thursdays"),
        ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson switched to Thursdays"),
        ("The book club meets on Tuesdays", "The book club moved to Thursdays"),
        ("The book club meets on Tuesdays", "The book club has been rescheduled to Thursdays"),
        ("The team standup is at 9:30", "The team standup moved to 10:00"),
        ("The sync is at 10:00 on Tuesdays", "The sync was pushed back to 11:00 on Tuesdays"),
        ("Emma has piano on Tuesdays", "Emma has piano on Fridays now"),
        ("The recycling is collected on Tuesdays", "The recycling is now collected on Wednesdays"),
        ("Emma's swim class is on Tuesdays", "Emma's swim class isn't on Tuesdays, it's on Thursdays"),
        ("Emma's swim class is on Tuesdays", "Emma's swim class is not on Tuesdays but on Thursdays"),
        # ... and a change word in the compared statement still counts, whatever follows it
        ("Lena plays tennis on Tuesdays", "Lena now plays tennis on Thursdays; her son plays football"),
        # a person's move is still a move; "new" before an attribute holding one value still replaces it
        ("The user lives in Paris", "The user has moved to Rome"),
        ("My manager is Anna.", "My new manager is Tom."),
        # finding 4: the preface no longer hides the statement; a slot holding one value changes
        ("The user lives in Paris", "Sorry, I was wrong: the user lives in Rome"),
        ("The flight lands at 18:40.", "Correction - the flight lands at 20:15."),
        # finding 5: a day and a time said to have changed
        ("Emma's swim class is on Tuesdays at 7pm", "Emma's swim class is now on Thursdays at 6pm"),
    ],
)
def test_trial3_a_change_of_the_same_subject_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


def test_trial3_signals_name_the_rule() -> None:
    assert (
        "moved"
        in compare_facts("The book club moved to Thursdays", "The book club meets on Tuesdays").signals
    )
    assert (
        "new_thing" in compare_facts("Emma's new yoga class is at 6pm", "Emma's yoga class is at 7am").signals
    )
    admitted = compare_facts("Sorry, I was wrong: I am allergic to cats", "I am allergic to peanuts")
    assert admitted.relation == "possible_conflict"


_YOGA = "The yoga class is on Tuesdays"


@pytest.mark.parametrize(
    ("old", "new", "signal"),
    [
        # trial 5 HIGH-5: a question asks, it states nothing
        ("Emma has piano on Tuesdays", "Does Emma have piano on Fridays now?", "question"),
        # HIGH-1/HIGH-3: a one-off, bounded or partial move of a standing schedule
        (_YOGA, "The yoga class moved to Thursday this week", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays for the holidays", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays in December", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays for the summer", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays in July and August", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday on 2026-12-10", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday, 2026-12-10", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday on 10 December", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday because the teacher is sick", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday after the teacher got sick", "bounded_move"),
        (_YOGA, "The yoga class was moved to Thursday once", "bounded_move"),
        (_YOGA, "The yoga class was moved to Thursday today", "bounded_move"),
        (_YOGA, "The yoga class was rescheduled to Thursday for this week", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays for Emma", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays for beginners", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursdays for now", "bounded_move"),
        (_YOGA, "The yoga class moved to Thursday", "bounded_move"),  # one Thursday, maybe
        (_YOGA, "Update: the yoga class is on Thursdays this week", "bounded"),
        (_YOGA, "For now the yoga class is on Thursdays", "bounded"),
        # the same bounds without a move verb
        (_YOGA, "The yoga class is now on Thursdays in December", "bounded"),
        (_YOGA, "The yoga class is now on Thursday", "one_day"),
        ("Emma has piano on Tuesdays", "Emma has piano on Friday now", "one_day"),
        # HIGH-2: one dated occurrence, no change word
        (_YOGA, "The yoga class is on Thursday on 2026-12-10", "dated_occurrence"),
        (_YOGA, "The yoga class is on Thursday, 2026-12-10", "dated_occurrence"),
        # MED-1: the move does not repeat the day: the day would be lost
        ("The team meeting is on Mondays at 10:00", "The team meeting moved to 11:00", "bounded_move"),
        ("Emma's piano lesson is on Tuesdays at 5pm", "Emma's piano lesson moved to 6pm", "bounded_move"),
        ("The yoga class is on Tuesday mornings", "The yoga class moved to evenings", "bounded_move"),
    ],
)
def test_trial5_a_question_or_bounded_move_is_only_flagged(old: str, new: str, signal: str) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict"
    assert signal in verdict.signals


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # trial 5 HIGH-4: another subject's switch leaves the user's own fact alone
        ("The user's password manager is LastPass", "The user's company switched from LastPass to 1Password"),
        ("The user's password manager is LastPass", "The user's sister switched from LastPass to Bitwarden"),
        ("The user uses LastPass", "The user's employer now uses Okta instead of LastPass"),
        ("The user's phone is an Android", "The user's son switched from Android to an iPhone"),
        ("The user uses Jira", "The user's team switched from Jira to Linear"),
    ],
)
def test_trial5_another_subjects_switch_does_not_retire(old: str, new: str) -> None:
    assert compare_facts(new, old).relation in ("possible_conflict", "unrelated")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (_YOGA, "The yoga class moved to Thursdays"),
        (_YOGA, "The yoga class has been moved to Thursdays."),
        (_YOGA, "The yoga class moved to Thursdays from now on"),
        (_YOGA, "The yoga class moved to Thursday evenings"),
        ("The team meeting is on Mondays at 10:00", "The team meeting moved to Tuesdays at 11:00"),
        ("The team meeting is on 2026-12-10", "The team meeting was rescheduled to 2026-12-15"),
        ("The user's flight is at 18:40", "The user's flight was pushed back to 20:15"),
        ("The user's password manager is LastPass", "The user switched from LastPass to 1Password"),
        (
            "The user's password manager is LastPass",
            "The user's password manager switched from LastPass to 1Password",
        ),
        ("The user uses LastPass", "The user now uses Bitwarden instead of LastPass"),
    ],
)
def test_trial5_a_standing_change_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


@pytest.mark.parametrize(
    ("old", "new", "signal"),
    [
        # trial 6 H0: a possibility, a plan or advice is not what holds now
        ("The user uses LastPass", "The user might try Bitwarden instead of LastPass", "other_verb"),
        ("The user uses LastPass", "The user would use Bitwarden instead of LastPass", "other_verb"),
        ("The user uses LastPass", "The user considered Bitwarden instead of LastPass", "other_verb"),
        ("The user uses LastPass", "The user will use Bitwarden instead of LastPass", "other_verb"),
        ("The user uses LastPass", "The user recommends Bitwarden instead of LastPass", "other_verb"),
        ("The user uses LastPass", "The user now uses Bitwarden instead of LastPass, maybe", "hedged"),
        # one-off acts against a standing fact
        ("The user drinks coffee", "The user ordered tea instead of coffee", "other_verb"),
        ("The user flies with TAP", "The user booked Ryanair instead of TAP", "other_verb"),
        ("The user drinks coffee", "The user drank tea instead of coffee", "one_off"),
        ("The user drinks coffee", "The user is buying tea for the office, not coffee", "other_verb"),
        ("The user works at Globex", "The user applied to Initech instead of Globex", "other_verb"),
        # another verb
        ("The user lives in Paris", "The user works in Rome, not Paris", "other_verb"),
        ("The user drinks coffee", "The user likes tea, not coffee", "other_verb"),
        ("The user lives in Paris", "The user spends summers in Rome instead of Paris", "other_verb"),
        # H0/H3: a qualifier the old fact lacks
        ("The user lives in Paris", "The user lives in Rome during the week instead of Paris", "qualified"),
        ("The user uses LastPass", "The user uses Bitwarden at work instead of LastPass", "qualified"),
        ("The user drinks coffee", "The user drinks decaf instead of coffee after 6pm", "qualified"),
        ("The user uses LastPass", "The user switched from LastPass to Bitwarden at work", "qualified"),
        (
            "The user drinks coffee in the morning",
            "The user drinks tea instead of coffee in the evening",
            "other_value",
        ),
        (
            "The user takes the bus to work",
            "The user takes the train instead of the bus on Fridays",
            "other_value",
        ),
        (
            "The user works from home",
            "The user works from the office instead of home on Tuesdays",
            "other_value",
        ),
        ("The user eats meat", "The user eats fish instead of meat on Fridays", "other_value"),
        ("The user commutes by car", "The user commutes by bike instead of by car in summer", "other_value"),
        (
            "The user reads the news on a tablet",
            "The user reads the news on paper instead of the tablet at weekends",
            "other_value",
        ),
    ],
)
def test_trial6_a_replacement_not_surely_of_the_standing_fact_only_flags(
    old: str, new: str, signal: str
) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict"
    assert signal in verdict.signals


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user uses LastPass", "The user now uses Bitwarden instead of LastPass"),
        ("The user uses LastPass", "The user uses Bitwarden instead of LastPass"),
        ("The user uses LastPass", "The user switched from LastPass to Bitwarden"),
        ("The user uses LastPass", "The user has switched from LastPass to Bitwarden"),
        ("The user drinks coffee", "The user now drinks tea instead of coffee"),
        ("The user drinks coffee", "The user drinks tea now, not coffee"),
        ("The user lives in Paris", "The user now lives in Rome instead of Paris"),
        ("The user lives in Paris", "The user moved from Paris to Rome"),
        ("The user commutes by car", "The user commutes by bike instead of by car"),
        ("The user visited Paris", "The user visited Rome, not Paris"),  # a past fact corrected
    ],
)
def test_trial6_the_same_standing_fact_changed_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user drinks coffee", "The user no longer drinks coffee after 6pm"),
        ("The user plays tennis on Mondays and Fridays", "The user no longer plays tennis on Mondays"),
        ("The user drinks coffee", "The user doesn't drink coffee in the evening any more"),
        ("Sam works from home", "Sam no longer works from home on Fridays"),
        ("Sam eats meat", "Sam stopped eating meat at work"),
    ],
)
def test_a_take_back_of_part_of_a_fact_only_flags(old: str, new: str) -> None:
    # the rest of the old fact (coffee before 6pm, tennis on Fridays) may still hold: a flag, not a retire
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict"
    assert "polarity" in verdict.signals


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Maya drinks coffee", "Maya no longer drinks coffee"),
        ("The user plays tennis on Mondays", "The user no longer plays tennis on Mondays"),
        ("The user works at home", "The user no longer works at home"),
        ("Sam has a dog named Rex", "Sam no longer has a dog"),
        ("The user smokes", "The user quit smoking"),
    ],
)
def test_a_take_back_of_the_whole_fact_still_supersedes(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "contradiction"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("The user is dating Marco", "The user broke up with Marco for a week"),
        ("The user lives in Paris", "The user moved to Rome for a few months"),
        ("The yoga class is on Tuesdays", "The yoga class is now on Thursdays for two weeks"),
    ],
)
def test_a_change_for_a_stated_while_only_flags(old: str, new: str) -> None:
    # trial 6: the old state may hold again after the while
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict"


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # trial6 A: a move in other words, a job lost — at least flagged
        ("The user lives in Lisbon", "The user moved to Rome in March", "possible_conflict"),
        # how long a home has held, no change word: maybe the broader place (trial8 H3), only flagged
        ("The user lives in Lisbon", "The user has been living in Rome since March", "possible_conflict"),
        ("The user lives in Lisbon", "The user has lived in Rome since 2019", "possible_conflict"),
        ("The user lives in Lisbon", "The user has now been living in Rome since March", "contradiction"),
        ("The user works at Acme", "The user has been working at Globex since May", "contradiction"),
        ("The user lives in Lisbon", "The user has lived in Rome for two years", "possible_conflict"),
        ("The user lives in Lisbon", "The user has been living in Rome for two weeks", "possible_conflict"),
        ("The user works at Acme", "The user got fired", "possible_conflict"),
        ("The user works as an engineer at Acme", "The user got laid off last week", "possible_conflict"),
        ("The user's employer is Acme", "The user lost his job", "possible_conflict"),
        # someone else's job, an experience, another state
        ("The user works at Acme", "The user's wife got fired", "unrelated"),
        ("The user works at Acme", "The user's brother lost his job", "unrelated"),
        ("The user doesn't work at Acme", "The user got fired", "unrelated"),
        ("The user lives in Lisbon", "The user has lived in Rome", "unrelated"),
        ("The user works at Acme", "The user is working on a novel", "unrelated"),
        ("The user lives in Lisbon", "The user is living with her parents", "unrelated"),
    ],
)
def test_a_move_or_a_lost_job_in_other_words_is_at_least_flagged(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


def test_a_change_statement_is_compared_below_the_gate_and_there_only_flags() -> None:
    assert conflict_floor("The user moved to Rome in March") == pytest.approx(CONFLICT_COSINE - 0.05)
    assert conflict_floor("The user got fired", 0.9) == pytest.approx(0.85)
    assert conflict_floor("The user lives in Rome") == CONFLICT_COSINE
    assert (
        conflict_floor("The meeting moved to Thursdays") == CONFLICT_COSINE
    )  # a thing's time: no person's move
    sure = compare_facts("The user moved to Rome", "The user lives in an apartment in Lisbon")
    assert sure.relation == "contradiction"
    assert gated(sure, 0.821).relation == "possible_conflict"
    assert "below_gate" in gated(sure, 0.821).signals
    assert gated(sure, 0.86) == sure


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # trial7 M1: an everyday change in the user's own words, with another subject token ("we", none,
        # "Sam and I"), a clause before the statement, or a verb no rule knew — at least flagged
        ("I live in Denver", "We just moved to Austin"),
        ("I live in Denver", "Just moved to Austin!"),
        ("I live in Denver", "My family and I moved to Austin"),
        ("I live in Denver", "Finally settled in Austin after the move"),
        ("My manager is Tom Reyes", "Tom Reyes left the company; my new manager is Priya"),
        ("My manager is Tom Reyes", "Tom Reyes retired, so Priya is my manager now"),
        ("My manager is Tom Reyes", "Since Tom left, my manager is Priya"),
        ("My daughter Mia is 7", "Mia turned 8 last week"),
        ("I'm training for the Boston marathon", "I dropped out of the Boston marathon"),
        ("I'm on a keto diet", "I gave up keto"),
        ("I have a gym membership at FitLife", "I cancelled my FitLife membership"),
        ("I'm engaged to Sam", "Sam and I called off the engagement"),
        ("I drive a 2015 Honda Civic", "I traded in the Civic for a Tesla Model 3"),
        ("I take metformin every morning", "My doctor took me off metformin"),
        ("My favourite restaurant is Nopa", "Nopa closed down, so my favourite is Zuni now"),
        ("The user is training for a half marathon", "The user dropped out of the half marathon"),
        ("My daughter Mia lives in Denver", "Mia moved to Austin"),
    ],
)
def test_an_everyday_change_in_other_words_is_flagged_not_retired(old: str, new: str) -> None:
    verdict = compare_facts(new, old)
    assert verdict.relation == "possible_conflict", verdict
    # "I'm on a keto diet" is "I am on …" since trial8 M2: "gave up keto" is a take-back of it (polarity)
    assert verdict.signals in (("changed", "loose"), ("polarity",)), verdict


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another person's change, another identifier, a day shared only
        ("I live in Denver", "My sister moved to Austin"),
        ("I live in Denver", "My sister and her husband moved to Austin"),
        ("I'm on a keto diet", "My wife gave up keto"),
        ("I take metformin every morning", "My doctor took my dad off metformin"),
        ("My daughter Mia is 7", "My son Leo turned 8 last week"),
        ("Ticket INC-4417 is open.", "Ticket INC-4418 is closed."),
        ("The user booked a table at Nola for Friday.", "The user moved the dentist appointment to Friday."),
        ("I don't drive a car", "I sold my car"),
        ("I'm engaged to Sam", "Sam moved to Paris"),  # the value moving ends nothing
    ],
)
def test_someone_elses_change_or_a_shared_day_is_not_flagged(old: str, new: str) -> None:
    assert compare_facts(new, old).relation == "unrelated"


def test_settling_somewhere_is_compared_below_the_gate() -> None:
    assert conflict_floor("Finally settled in Austin after the move") == pytest.approx(CONFLICT_COSINE - 0.05)
    assert conflict_floor("I settled into the new job") == CONFLICT_COSINE


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # trial8 H2: "now" says something is new, not that the old value went: another object of an
        # additive predicate, or a value of another kind after "is", never retires
        ("Mia is allergic to peanuts", "Mia is now allergic to shellfish", "possible_conflict"),
        ("Our house is blue", "Our house is now paid off", "possible_conflict"),
        ("Alex is my roommate", "Alex is now my best friend", "unrelated"),
        ("Jen is my manager", "Jen is now a director", "unrelated"),
        # the same one-value attribute, or a value of the same kind: replaced
        ("My landlord is Mr. Brown", "My landlord is now Greystar", "contradiction"),
        ("My phone number is 555-0123", "My phone number is now 555-0199", "contradiction"),
        ("Our house is blue", "Our house is now green", "contradiction"),
        ("Mia is allergic to peanuts", "Actually, Mia is allergic to shellfish", "contradiction"),
        # trial8 H3: how long a home has held is as often the broader place as a move: only flagged
        ("I live in Brooklyn", "I have been living in New York since 2010", "possible_conflict"),
        ("Lena lives in Paris", "Lena has lived in France for a decade", "possible_conflict"),
        ("Lena lives in Paris", "Lena has been living in France since 2015", "possible_conflict"),
        ("Lena lives in Paris", "I've lived in France for a decade", "unrelated"),
        ("Lena lives in Paris", "Lena has lived in Rome for two weeks", "possible_conflict"),
        ("Lena lives in Paris", "Lena moved to Rome", "contradiction"),
        # trial8 M2: no flag on another allergy written "I'm", on the same city dated, on someone else
        ("I'm allergic to peanuts", "I'm allergic to cats", "unrelated"),
        ("Lena lives in Paris", "Lena moved to Paris in 2019", "addition"),
        ("Lena lives in Paris", "Lena moved to Rome in 2019", "possible_conflict"),
        ("Sarah lives in Denver", "Sarah's parents moved to Austin in March", "unrelated"),
        ("The user lives in Denver", "The user's sister lives in Austin", "unrelated"),
    ],
)
def test_now_or_how_long_a_home_held_retires_only_one_attribute(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation
