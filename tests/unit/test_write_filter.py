"""The rules-first write filter and the rule-based entity extractor (pure functions, no fakes)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hindsight.domain.write_filter import (
    MAX_VALUES_PER_KIND,
    REMEMBER_AT,
    RULES,
    decide,
    extract_entities,
)


@pytest.mark.parametrize(
    "text",
    [
        "thanks!",
        "ok",
        "lol",
        "Thank you so much!",
        "ok thanks 👍",
        "Great, thanks a lot :)",
        "never mind",
        "hi",
        "",
    ],
)
def test_chit_chat_is_not_remembered(text: str) -> None:
    decision = decide(text)
    assert decision.remember is False
    assert decision.triggers == ()
    assert decision.confidence >= 0.9


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("I prefer answers in bullet points", "preference"),
        ("I'd rather fly in the morning", "preference"),
        ("My favourite tea is sencha", "preference"),
        ("The user prefers invoices by e-mail", "preference"),
        ("Dana would rather fly in the morning", "preference"),
        ("The customer's usual order is a flat white", "preference"),
        ("From now on, reply in French.", "constraint"),
        ("Remember that my sister is vegan", "constraint"),
        ("Always use metric units", "constraint"),
        ("Never book flights with a layover over 3 hours", "constraint"),
        ("Don't email me after 6pm", "constraint"),
        ("I'm allergic to peanuts", "constraint"),
        ("My name is Dana Wu", "entity"),
        ("Send the invoice to billing@example.com", "entity"),
        ("Please look at ticket #48213 for context", "entity"),
        ("My order A-1042 has shipped", "state_change"),
        ("The office moved to Berlin last month", "state_change"),
        ("Sam is now the team lead", "state_change"),
        ("That's wrong, the meeting is on Friday", "correction"),
        ("No, I meant the blue one", "correction"),
        ("You misunderstood: it is the staging server", "correction"),
        ("The migration task is done", "task_done"),
        ("I've deployed the fix to production", "task_done"),
        ("Session summary: we fixed login and agreed on the schema", "summary"),
        ("To summarize, the budget stays at 40k", "summary"),
    ],
)
def test_each_trigger_fires_and_decides(text: str, trigger: str) -> None:
    decision = decide(text, role="user")
    assert decision.remember is True, decision
    assert trigger in decision.triggers
    assert decision.confidence >= REMEMBER_AT


def test_unsure_cases_return_none_for_the_judge() -> None:
    weak = decide("I like it")
    assert weak.remember is None
    assert weak.triggers == ("preference",)
    assert weak.confidence < REMEMBER_AT
    plain = decide("Can you help me write a poem about the sea and the mountains")
    assert plain.remember is None
    assert plain.triggers == ()


def test_short_texts_and_plain_questions_without_triggers_are_skipped() -> None:
    assert decide("I don't know").remember is False
    assert decide("hello there").remember is False
    assert decide("What is the weather like in Paris today?").remember is False


def test_do_you_remember_is_a_question_not_an_instruction() -> None:
    decision = decide("Do you remember what we said?")
    assert "constraint" not in decision.triggers
    assert decision.remember is False


def test_the_assistants_own_preferences_count_less_than_the_users() -> None:
    text = "I prefer the second option"
    assert decide(text, role="user").remember is True
    assert decide(text, role="assistant").remember is None
    # A finished task counts whoever reports it.
    assert decide("The export task is complete", role="assistant").remember is True


def test_triggers_are_listed_strongest_first_and_entities_are_returned() -> None:
    decision = decide("Order #12345 was cancelled")
    assert decision.triggers == ("state_change", "entity")
    assert decision.entities == {"ids": ["12345"]}
    assert decision.confidence == pytest.approx(1 - (1 - 0.75) * (1 - 0.65))


def test_typographic_apostrophes_match_like_ascii_ones() -> None:
    assert decide("Don\u2019t call me before 9").remember is True
    assert decide("That\u2019s wrong").triggers == ("correction",)


def test_every_rule_has_a_weight_in_range() -> None:
    for rule in RULES:
        assert 0 < rule.weight <= 1, rule


@given(st.text(max_size=400), st.sampled_from([None, "user", "assistant", "system", "tool"]))
def test_decide_never_raises_and_is_consistent(text: str, role: str | None) -> None:
    decision = decide(text, role)  # type: ignore[arg-type]
    assert 0.0 <= decision.confidence <= 1.0
    if decision.remember is True:
        assert decision.triggers
        assert decision.confidence >= REMEMBER_AT
    if decision.remember is None:
        assert decision.confidence < REMEMBER_AT
    json.dumps(decision.entities)


# --- entity extraction ---------------------------------------------------------------------------------


def test_ids_in_their_usual_shapes() -> None:
    found = extract_entities("Order A-1042, refund #12345, INV-2024-0042 and ticket no. 98765; order 554433.")
    assert found == {"ids": ["A-1042", "INV-2024-0042", "12345", "98765", "554433"]}


def test_emails_urls_and_iso_dates() -> None:
    text = (
        "Mail dana.wu@example.co.uk the link (https://shop.example.com/o/A-77?x=1). "
        "See https://en.wikipedia.org/wiki/Foo_(bar), due 2026-03-01 or 2026-03-01T09:30:00Z; not 2026-02-30."
    )
    found = extract_entities(text)
    assert found["emails"] == ["dana.wu@example.co.uk"]
    assert found["urls"] == ["https://shop.example.com/o/A-77?x=1", "https://en.wikipedia.org/wiki/Foo_(bar)"]
    assert found["dates"] == ["2026-03-01", "2026-03-01T09:30:00Z"]
    assert "ids" not in found  # A-77 is part of a URL, not an id of its own


def test_people_projects_and_capitalised_names() -> None:
    found = extract_entities(
        "Thanks Alex Smith. My manager Dana Wu owns project Phoenix; Bank of America is the client. "
        "Searched Skyscanner Flights. The API said Too Many Requests."
    )
    assert found["people"] == ["Dana Wu"]
    assert found["projects"] == ["Phoenix"]
    assert found["names"] == ["Alex Smith", "Bank of America", "Skyscanner Flights"]


def test_nothing_found_is_an_empty_dict_and_output_is_json() -> None:
    assert extract_entities("nothing to see here") == {}
    found = extract_entities("write to a@b.io about A-1 2026-01-01")
    assert json.loads(json.dumps(found)) == found


def test_values_per_kind_are_capped_and_deduplicated() -> None:
    text = " ".join(f"A-{1000 + i} A-{1000 + i}" for i in range(MAX_VALUES_PER_KIND + 5))
    ids = extract_entities(text)["ids"]
    assert len(ids) == MAX_VALUES_PER_KIND
    assert len(set(ids)) == len(ids)
