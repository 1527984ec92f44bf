"""New-user trial 11: changes that were silently kept or silently retired by the key-less contradiction
rules (``domain.contradiction.compare_facts``)."""

from __future__ import annotations

import pytest

from hindsight.domain.contradiction import compare_facts


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # finding 4: who the user's one dentist (doctor) is, or a one-value attribute written in several
        # words, replaced with "now" — as "My landlord is now Greystar" was
        ("My dentist is Dr. Lee", "My dentist is now Dr. Costa", "contradiction"),
        ("The user's doctor is Dr. Smith.", "The user's doctor is now Dr. Jones.", "contradiction"),
        ("My address is 5 Elm Road", "My address is now 12 Oak Street", "contradiction"),
        ("The user's home address is 5 Elm Road.", "The user's home address is 9 Oak Lane.", "contradiction"),
        ("My landlord is Mr. Brown", "My landlord is now Greystar", "contradiction"),
        # … not a relation often held several times, a number, "new", no change word, another attribute
        ("My friend is Tom", "My friend is now Anna", "possible_conflict"),
        ("My cousin is Dr. Lee", "My cousin is now Dr. Costa", "possible_conflict"),
        ("My son is 8", "My son is now 9", "possible_conflict"),
        ("My dentist is Dr. Lee", "My new dentist is Dr. Costa", "possible_conflict"),
        ("The user's doctor is Dr. Smith.", "The user's doctor is Dr. Jones.", "possible_conflict"),
        ("My dentist is Dr. Lee", "My dentist's partner is now Dr. Costa", "possible_conflict"),
        ("My work address is 5 Elm Road", "My home address is now 12 Oak Street", "unrelated"),
    ],
)
def test_a_one_value_relation_or_attribute_changed_now_is_replaced(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # finding 3: the same thing named with more or fewer words, its value said to have changed:
        # flagged (maybe another meeting), never retired
        ("The meeting is on Mondays", "Our meeting is now on Thursdays", "possible_conflict"),
        ("The weekly meeting is on Mondays", "The meeting is now on Thursdays", "possible_conflict"),
        ("The meeting is on Mondays", "The team meeting is now on Thursdays", "possible_conflict"),
        ("Our standup is at 9am", "The standup is now at 10am", "possible_conflict"),
        # … not another thing of the same kind, nor without a change word
        ("Our team meeting is on Mondays", "The board meeting is now on Thursdays", "unrelated"),
        ("The weekly meeting is on Mondays", "The meeting is on Thursdays", "unrelated"),
        ("The meeting is on Mondays", "The meeting room is now on the third floor", "unrelated"),
    ],
)
def test_a_change_of_the_same_thing_named_in_other_words_is_flagged(
    old: str, new: str, relation: str
) -> None:
    assert compare_facts(new, old).relation == relation


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # finding 8: changes said in a shape the frame rules do not compare — flagged, never retired
        ("My phone number is 555-1234", "New number: 555-9876", "possible_conflict"),
        ("Rex is our dog", "Rex passed away", "possible_conflict"),
        ("Tom is the team lead", "Priya is now the team lead", "possible_conflict"),
        ("Tom is our manager", "Priya became our manager", "possible_conflict"),
        ("My friend Chris works at Acme", "Chris got fired", "possible_conflict"),
        ("Chris is an engineer at Acme", "Chris was laid off", "possible_conflict"),
        ("I am vegetarian", "I started eating meat again", "possible_conflict"),
        ("The user is vegetarian", "The user started eating meat again", "possible_conflict"),
        ("Lena is vegan", "Lena is eating cheese again", "possible_conflict"),
        # … not someone else, another role, no change word, another attribute, a denial
        ("I am vegetarian", "My husband started eating meat again", "unrelated"),
        ("I am vegetarian", "I don't eat meat again", "unrelated"),
        ("Tom is the team lead", "Priya is the team lead on the mobile project", "unrelated"),
        ("Tom is the team lead", "Priya is now the design lead", "unrelated"),
        ("My phone number is 555-1234", "New hobby: pottery", "unrelated"),
        ("My dog Rex is 5", "My neighbour's dog died", "unrelated"),
    ],
)
def test_a_change_in_a_shape_of_its_own_is_flagged_never_retired(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # finding 7: a country, US state or continent where the old home was a town: maybe the same home
        # said more broadly — flagged, not retired
        ("The user lives in Paris", "The user lives in France", "possible_conflict"),
        ("I live in Seattle", "I live in the US", "possible_conflict"),
        ("I live in St. Louis", "I live in the U.S.", "possible_conflict"),
        ("The user lives in Seattle", "The user now lives in California", "possible_conflict"),
        ("The user lives in Paris.", "The user moved to Spain.", "possible_conflict"),
        # … a country for another, a town for a country, a town for another still supersede
        ("The user lives in France", "The user lives in Spain", "contradiction"),
        ("The user lives in France", "The user lives in Lyon", "contradiction"),
        ("The user lives in Lisbon.", "The user lives in Porto.", "contradiction"),
    ],
)
def test_a_broader_place_only_flags_the_home_it_may_contain(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        # trial18 L3: a dose of the user's changed by a verb of change, by whoever changed it — two active
        # doses of one medicine, neither flagged, is a silently wrong memory: flagged (never retired: the
        # rule reads a shape, not which dose is current)
        (
            "I take 500mg of metformin twice a day",
            "My doctor upped my metformin to 1000mg twice a day",
            "possible_conflict",
        ),
        (
            "I take 20mg of lisinopril every morning",
            "I lowered my lisinopril dose to 10mg",
            "possible_conflict",
        ),
        (
            "The user takes 50mg of sertraline daily",
            "My psychiatrist raised my sertraline to 100mg",
            "possible_conflict",
        ),
        # … not another person's, not the amount already stated, not another medicine, not a fact
        # without an amount, not a relation's fact
        (
            "I take 500mg of metformin twice a day",
            "My sister upped her metformin to 1000mg twice a day",
            "unrelated",
        ),
        (
            "I take 500mg of metformin twice a day",
            "My doctor upped my metformin to 500mg twice a day",
            "unrelated",
        ),
        ("I take 500mg of metformin twice a day", "My doctor upped my lisinopril to 20mg", "unrelated"),
        ("I take metformin", "My doctor upped my metformin to 1000mg", "unrelated"),
        ("My sister takes 500mg of metformin", "My doctor upped my metformin to 1000mg", "unrelated"),
    ],
)
def test_a_changed_dose_of_the_users_medicine_is_flagged(old: str, new: str, relation: str) -> None:
    assert compare_facts(new, old).relation == relation


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another person's amount, named by a relation c5f84f8's list lacked (a partner, someone the writer
        # works or lives with), after a word ("best friend") or with "'s" / "-in-law"
        ("My wife takes 500mg of metformin", "My doctor upped my metformin to 1000mg"),
        ("My husband takes 500mg of metformin twice a day", "My doctor upped my metformin to 1000mg"),
        ("My partner takes 20mg of lisinopril", "I lowered my lisinopril dose to 10mg"),
        ("My spouse takes 20mg of lisinopril", "I lowered my lisinopril dose to 10mg"),
        ("My boyfriend pays 900 of the rent", "Our landlord raised our rent to 2000"),
        ("My boss takes 50mg of sertraline daily", "My psychiatrist raised my sertraline to 100mg"),
        ("My hubby takes 500mg of metformin", "My doctor upped my metformin to 1000mg"),
        ("My best friend takes 500mg of metformin", "My doctor upped my metformin to 1000mg"),
        ("My wife's metformin dose is 500mg", "My doctor upped my metformin to 1000mg"),
        ("My mother-in-law takes 500mg of metformin", "My doctor upped my metformin to 1000mg"),
        # a year is no amount: the old fact states none
        ("I have taken metformin since 2019", "My doctor upped my metformin to 1000mg"),
        ("I started metformin in March 2021", "My doctor upped my metformin to 1000mg"),
        ("I've been on lisinopril from 2018", "I lowered my lisinopril dose to 10mg"),
    ],
)
def test_another_persons_amount_or_a_year_is_no_changed_amount(old: str, new: str) -> None:
    """c5f84f8 read these as the user's amount changed: flagged possible_conflict. Not flagged now."""
    assert compare_facts(new, old).relation == "unrelated"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I have taken 500mg of metformin since 2019", "My doctor upped my metformin to 1000mg"),
        ("Since 2019 I take 500mg of metformin", "My doctor upped my metformin to 1000mg"),
        ("I take 2000 IU of vitamin D", "My doctor lowered my vitamin D to 1000 IU"),
    ],
)
def test_an_amount_beside_a_year_is_still_read(old: str, new: str) -> None:
    """Guards: the amount stated beside a year, and an amount that could be a year's number, still count."""
    assert compare_facts(new, old).relation == "possible_conflict"
