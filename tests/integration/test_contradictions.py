"""Key-less contradiction detection end to end (issue 12, item 4): through the official MCP client in both
protocol eras, the SQS emulator, the worker and Postgres — a contradicting fact supersedes the old one
without any key; an inference that contradicts the user is kept beside it and both come back flagged
``possible_conflict``; an additive fact never retires one, with or without a key. The conflict judge is
tested against a loopback chat-completions server with the real writer and database."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from hindsight.adapters.reflection.openai_chat import OpenAIChatConflictJudge, OpenAIChatModel
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.store_memories import StoreMemories
from tests.support import PROTOCOL_ERAS, drain, loopback_http_server, mcp_client, send_json

pytestmark = [pytest.mark.anyio, pytest.mark.integration]


async def _write(client: Any, poller: SqsPoller, **arguments: Any) -> str:
    ack = await call(client, "memory_write", arguments)
    await drain(poller)
    return str(ack["id"])


async def _get(client: Any, memory_id: str) -> dict[str, Any]:
    return await call(client, "memory_get", {"id": memory_id})


async def _write_two(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> list[dict[str, Any]]:
    """``first`` then ``second``, each its own worker batch (so the first is stored when the second is
    checked); their ``memory_get`` views in that order."""
    async with mcp_client(server.url, token) as client:
        old = await _write(client, poller, content=first)
        new = await _write(client, poller, content=second)
        return [await _get(client, memory_id) for memory_id in (old, new)]


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_contradiction_without_a_key_supersedes_the_old_fact(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode=mode) as client:
        old = await _write(client, poller, content="I really enjoy Thai green curry")
        new = await _write(client, poller, content="I can't stand Thai green curry any more")
        hits = (await call(client, "memory_search", {"query": "Thai green curry"}))["results"]
        old_view = await _get(client, old)
    assert [h["memory"]["id"] for h in hits if "curry" in h["memory"]["content"]] == [new]
    assert old_view["memory"]["status"] == "superseded"
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in old_view["relations"]}
    assert {(new, old, "contradicts"), (new, old, "supersedes")} <= kinds
    assert "possible_conflict" not in hits[0]["flags"]


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_an_inference_against_the_user_is_kept_and_both_are_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode=mode) as client:
        stated = await _write(client, poller, content="The user's favourite colour is blue.")
        inferred = await _write(
            client, poller, content="The user's favourite colour is green.", source="agent_inferred"
        )
        hits = (await call(client, "memory_search", {"query": "favourite colour"}))["results"]
    by_id = {h["memory"]["id"]: h for h in hits}
    assert {stated, inferred} <= set(by_id)
    for mine, other in ((stated, inferred), (inferred, stated)):
        hit = by_id[mine]
        assert hit["memory"]["status"] == "active"
        assert "possible_conflict" in hit["flags"]
        assert any(note.startswith("Possible conflict") for note in hit["notes"])
        shown = [(r["relation"]["kind"], r["memory"]["id"]) for r in hit["related"]]
        assert ("contradicts", other) in shown  # both shown, without asking for related memories


async def test_additive_facts_never_retire_a_true_one_with_or_without_a_key(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        payroll = await _write(client, poller, content="Rowan runs payroll", key="rowan.duties")
        invoicing = await _write(client, poller, content="Rowan also runs invoicing", key="rowan.duties")
        french = await _write(client, poller, content="The user speaks French.")
        german = await _write(client, poller, content="The user also speaks German.")
        # the same slot changed on the key: still a replacement
        lisbon = await _write(client, poller, content="Rowan's desk is in Lisbon", key="rowan.desk")
        porto = await _write(client, poller, content="Rowan's desk is in Porto", key="rowan.desk")
        statuses = {
            i: (await _get(client, i))["memory"]["status"] for i in (payroll, invoicing, french, german)
        }
        assert set(statuses.values()) == {"active"}
        assert (await _get(client, lisbon))["memory"]["status"] == "superseded"
        assert (await _get(client, porto))["memory"]["status"] == "active"
        relations = (await _get(client, invoicing))["relations"]
        assert {(r["to_id"], r["kind"]) for r in relations} == {(payroll, "related")}


async def test_facts_on_two_different_keys_are_never_compared(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Keys are the agent's word that two facts are about different things: a value that differs between
    ``order:A-1`` and ``order:A-2`` is no contradiction. Without a key on either side the rules apply."""
    async with mcp_client(server.url, token) as client:
        first = await _write(client, poller, content="The order ships on Tuesday", key="order:A-1")
        second = await _write(client, poller, content="The order ships on Friday", key="order:A-2")
        for memory_id in (first, second):
            view = await _get(client, memory_id)
            assert view["memory"]["status"] == "active"
            assert not [r for r in view["relations"] if r["kind"] in ("contradicts", "supersedes")]
        keyless = await _write(client, poller, content="The order ships on Monday")
        kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in (await _get(client, keyless))["relations"]}
    assert {k for _, _, k in kinds} & {"contradicts", "supersedes"}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "Interactive fact A-0: the widget A0 weighs 1 grams",
            "Interactive fact B-0: the widget B0 weighs 1 grams",
        ),
        # the polarity rule: a negated statement about another code is no contradiction either
        ("The user's server db-1 is in use.", "The user's server db-2 is no longer in use."),
        # new-user trial, finding 1: a name or number inside the subject names another thing
        ("My daughter Emma is allergic to peanuts", "My daughter Sofia is allergic to peanuts"),
        ("Our client Globex pays invoices in euros", "Our client Initech pays invoices in euros"),
        ("The user's order 1042 has shipped", "The user's order 1043 has shipped"),
    ],
)
async def test_facts_on_two_codes_that_name_two_things_stay_apart(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 0825, H5: the same statement about widget A0 and widget B0 is two facts, not a changed value,
    and a negated one about db-2 does not contradict db-1's."""
    views = await _write_two(server, poller, token, first, second)
    for view in views:
        assert view["memory"]["status"] == "active"
        assert not [r for r in view["relations"] if r["kind"] in ("contradicts", "supersedes")]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user met Ana", "The user met Ben"),
        ("The user visited Paris", "The user visited Rome"),
        ("The user flew to Berlin last week", "The user flew to Oslo last week"),
        # a plural noun or an adjective after a possessive is no verb: the name after it is the subject's
        ("The user's cats Tom and Tibbles eat dry food", "The user's cats Tom and Felix eat dry food"),
        ("My retired colleague Ana lives in Faro", "My retired colleague Rui lives in Faro"),
    ],
)
async def test_two_past_events_both_stay_while_a_changed_state_supersedes(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Meeting Ben does not undo meeting Ana: a past event verb with another object is a second event,
    stored beside the first, neither linked ``contradicts`` nor superseded; a present state with another
    value ("lives in Paris" / "lives in Rome") still retires the old one."""
    views = await _write_two(server, poller, token, first, second)
    for view in views:
        assert view["memory"]["status"] == "active"
        assert not [r for r in view["relations"] if r["kind"] in ("contradicts", "supersedes")]
    old, new = await _write_two(server, poller, token, "The user lives in Paris", "The user lives in Rome")
    assert (old["memory"]["status"], new["memory"]["status"]) == ("superseded", "active")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I can't eat gluten any more", "I can't eat dairy any more"),
        ("Maya no longer drinks coffee", "Maya no longer drinks alcohol"),
        ("I can't stand okra any more", "I can't stand tripe any more"),
    ],
)
async def test_two_negative_facts_about_different_things_both_hold(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 2, N0c: a second restriction or dislike is another fact, not a new value of the first; the
    older one stays active (at most flagged), without a judge."""
    views = await _write_two(server, poller, token, first, second)
    for view in views:
        assert view["memory"]["status"] == "active"
        assert not [r for r in view["relations"] if r["kind"] == "supersedes"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # trial 2, HIGH 1: a changed name after a verb that can hold several values
        ("The user is allergic to Penicillin", "The user is allergic to Amoxicillin"),
        ("The user takes Lisinopril 10 mg daily", "The user takes Metformin 500 mg daily"),
        ("The user owes Tom 50 dollars", "The user owes Anna 20 dollars"),
        ("The user works with Tom", "The user works with Anna"),
        ("My colleague is Anna", "My new colleague is Tom"),  # "new": one more colleague, not another
        # ... and an identifier in the subject that changes with the value
        ("The user's flight UA 123 departs at 9am", "The user's flight UA 456 departs at 3pm"),
        ("The user's room 101 costs 90 euros", "The user's room 202 costs 120 euros"),
    ],
)
async def test_a_changed_name_the_user_can_have_several_of_retires_nothing(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 2, HIGH 1: two allergies, medications, debts, colleagues, flights or rooms are two facts: the
    old one stays active (at most flagged ``possible_conflict``), never superseded."""
    views = await _write_two(server, poller, token, first, second)
    for view in views:
        assert view["memory"]["status"] == "active"
        assert not [r for r in view["relations"] if r["kind"] == "supersedes"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("The user lives in Paris", "The user moved to Rome"),
        ("The user's phone number is 555-1234", "The user's new phone number is 555-9876"),
        ("The user drinks coffee", "The user quit coffee"),
        ("The user's manager is Tom", "Sarah is the user's manager now"),
        ("The user works at Google", "The user works at Microsoft"),
        # trial 2, H2: another day that the new text says is a change
        ("The user goes to yoga on Wednesdays", "The user now goes to yoga on Saturdays"),
    ],
)
async def test_a_change_of_a_single_valued_fact_supersedes_it(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 2, MED 5: a move, a "new" number, quitting, a manager named first — and a changed employer
    (one value at a time) — retire the old fact."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("superseded", "active")
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in old["relations"]}
    assert (new["memory"]["id"], old["memory"]["id"], "supersedes") in kinds


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # trials, HIGH: another qualifier on either side — both may hold
        ("The user works at Google", "The user works at Meta on Fridays"),
        ("School starts at 8:15 on weekdays", "School starts at 9:00 on Saturdays"),
        ("Priya's standup is at 9:30 on weekdays", "Priya's standup is at 11:00 on Saturdays"),
        # trial 2, H2: another day alone, no word saying it changed — maybe a second day
        ("Priya works at Google on Mondays", "Priya works at Google on Fridays"),
        ("The user goes to the gym on Mondays", "The user goes to the gym on Fridays"),
        # trials, MED: the user may have several alarms and appointments at different times
        ("The user's alarm is set for 7am", "The user's alarm is set for 9pm"),
        ("The user's appointment is at 3pm", "The user's appointment is at 5pm"),
        # new-user trials: two undated past states (two past measurements) each held at its own time
        ("The user lived in Paris", "The user lived in Rome"),
        ("The user's run was 5 km", "The user's run was 10 km"),
    ],
)
async def test_statements_that_may_both_hold_are_flagged_never_superseded(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """New-user trials: a fact with another qualifier, another alarm or appointment time, or another past
    state stays active beside the old one, linked ``contradicts`` (shown flagged), never superseded."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in old["relations"]}
    assert kinds == {(new["memory"]["id"], old["memory"]["id"], "contradicts")}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # trial 3, finding 1: the "any more" is about the son's football, in another clause
        (
            "Lena plays tennis on Tuesdays",
            "Lena plays tennis on Thursdays; her son doesn't play football any more",
        ),
        # finding 2: a new class may be one more, not another in place of the old one
        ("Emma's yoga class is at 7am", "Emma's new yoga class is at 6pm"),
        ("Emma's yoga class is on Tuesdays", "Emma's new yoga class is on Thursdays"),
        # finding 4: an admission of a mistake does not say which fact was wrong
        ("I am allergic to peanuts", "Sorry, I was wrong: I am allergic to cats"),
        # finding 5: a day and a time changed together, without a word saying they changed
        ("Emma's swim class is on Tuesdays at 7pm", "Emma's swim class is on Thursdays at 6pm"),
    ],
)
async def test_a_change_word_elsewhere_or_a_new_thing_retires_no_true_fact(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """New-user trial 3, findings 1, 2, 4, 5: the old fact stays active beside the new one (at most linked
    ``contradicts`` and flagged), never superseded."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    assert not [r for r in old["relations"] if r["kind"] == "supersedes"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # new-user trial 5, HIGH-1/HIGH-5: a bounded or one-off move, or a question, only asks
        ("The yoga class is on Tuesdays", "The yoga class moved to Thursdays for the holidays"),
        ("The yoga class is on Tuesdays", "The yoga class moved to Thursday on 2026-12-10"),
        ("Emma has piano on Tuesdays", "Does Emma have piano on Fridays now?"),
    ],
)
async def test_a_bounded_move_or_a_question_keeps_the_standing_schedule(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 5, HIGH-1: "moved to Thursdays for the holidays" retired "The yoga class is on Tuesdays"; now
    both stay active, at most linked ``contradicts`` (flagged), never ``supersedes``."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    assert {r["kind"] for r in old["relations"]} <= {"contradicts"}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # new-user trial 6, H0/H3: "instead of Y" that is not the same standing fact changed only asks
        ("The user uses LastPass", "The user might try Bitwarden instead of LastPass"),
        ("The user drinks coffee in the morning", "The user drinks tea instead of coffee in the evening"),
    ],
)
async def test_a_hedged_or_qualified_replacement_keeps_the_old_fact(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 6, H0/H3: "might try Bitwarden instead of LastPass" retired "The user uses LastPass"; now
    both stay active, at most linked ``contradicts`` (flagged), never ``supersedes``."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    assert {r["kind"] for r in old["relations"]} <= {"contradicts"}


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # trial 3, finding 3: the same subject's time changed, however the change is written
        ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson moved to Thursdays"),
        ("Emma's piano lesson is on Tuesdays", "Emma's piano lesson has moved to Thursdays"),
        ("The book club meets on Tuesdays", "The book club switched to Thursdays"),
        ("Emma has piano on Tuesdays", "Emma has piano on Fridays now"),
        ("The recycling is collected on Tuesdays", "The recycling is now collected on Wednesdays"),
        ("Emma's swim class is on Tuesdays", "Emma's swim class isn't on Tuesdays, it's on Thursdays"),
        # finding 4: the statement after the preface is read; a time changed on one flight
        ("The user's flight lands at 18:40", "Sorry, I was wrong: the user's flight lands at 20:15"),
        # finding 5: a day and a time said to have changed
        ("Emma's swim class is on Tuesdays at 7pm", "Emma's swim class is now on Thursdays at 6pm"),
    ],
)
async def test_a_time_change_of_the_same_subject_supersedes(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """New-user trial 3, finding 3: "moved to", "switched to", "… now", "isn't A, it's B" retire the old
    time of the same subject (docs/detectors.md)."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("superseded", "active")
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in old["relations"]}
    assert (new["memory"]["id"], old["memory"]["id"], "supersedes") in kinds


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # new-user trial 4, HIGH-1: everyday words that say a state ended or changed, without a key
        ("The user is married to Tom", "The user divorced Tom"),
        ("The user owns a Honda Civic", "The user sold the Honda Civic"),
        ("The user smokes", "The user quit smoking"),
        ("The user's rent is 900 euros", "The user's rent went up to 950 euros"),
        ("The user's password manager is LastPass", "The user now uses Bitwarden instead of LastPass"),
    ],
)
async def test_an_everyday_change_of_state_supersedes_the_old_fact(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    """Trial 4, HIGH-1: both stayed active and unlinked; the old fact is now retired by the new one."""
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("superseded", "active")
    kinds = {(r["from_id"], r["to_id"], r["kind"]) for r in old["relations"]}
    assert (new["memory"]["id"], old["memory"]["id"], "supersedes") in kinds


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # new-user trial 4, MED-2: another object of a verb that holds several, or another thing at
        # another time, with no word saying anything changed: both hold, nothing to ask the user
        ("The user is allergic to peanuts", "The user is allergic to shellfish"),
        ("Maria works at Globex on weekdays", "Maria works at a bakery on weekends"),
        ("The user works at Google on Mondays", "The user works at Meta on Fridays"),
    ],
)
async def test_facts_that_both_hold_are_neither_linked_nor_flagged(
    server: BackgroundServer, poller: SqsPoller, token: str, first: str, second: str
) -> None:
    old, new = await _write_two(server, poller, token, first, second)
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    assert not old["relations"]
    assert not new["relations"]


async def test_a_take_back_retires_the_fact_it_names_and_leaves_the_other(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """Trial 4, MED-2b: "Sam no longer has a dog" flagged both the dog and the cat and retired neither;
    it now retires the dog (named Rex: detail the take-back need not repeat) and leaves the cat alone."""
    async with mcp_client(server.url, token) as client:
        dog = await _write(client, poller, content="Sam has a dog named Rex")
        cat = await _write(client, poller, content="Sam has a cat named Milo")
        back = await _write(client, poller, content="Sam no longer has a dog")
        dog_view, cat_view = await _get(client, dog), await _get(client, cat)
        hits = (await call(client, "memory_search", {"query": "Sam's pets"}))["results"]
    assert dog_view["memory"]["status"] == "superseded"
    assert (back, dog, "supersedes") in {(r["from_id"], r["to_id"], r["kind"]) for r in dog_view["relations"]}
    assert cat_view["memory"]["status"] == "active"
    assert not cat_view["relations"]
    assert all("possible_conflict" not in hit["flags"] for hit in hits)


async def test_a_value_written_another_way_is_no_new_value(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """New-user trials: "15:00" after "3pm" retires nothing and links nothing (cosine 0.92: below the dedup
    threshold, stored as its own memory); "New York City" after "NYC" (cosine 0.99) is a repeat, merged
    into the memory it repeats."""
    old, new = await _write_two(server, poller, token, "The meeting is at 3pm", "The meeting is at 15:00")
    assert (old["memory"]["status"], new["memory"]["status"]) == ("active", "active")
    assert not old["relations"]
    assert not new["relations"]
    async with mcp_client(server.url, token) as client:
        city = await _write(client, poller, content="The user lives in NYC")
        repeat = await _write(client, poller, content="The user lives in New York City")
        (status,) = (await call(client, "memory_status", {"ids": [repeat]}))["writes"]
        view = await _get(client, city)
    assert (status["status"], status["memory_id"]) == ("merged", city)
    assert view["memory"]["status"] == "active"
    assert view["memory"]["content"] == "The user lives in NYC"


async def test_an_unsure_pair_stays_flagged_without_a_judge(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        first = await _write(client, poller, content="The user likes Muse.")
        second = await _write(client, poller, content="The user likes Radiohead.")
        hits = (await call(client, "memory_search", {"query": "which bands does the user like"}))["results"]
    by_id = {h["memory"]["id"]: h for h in hits}
    assert {first, second} <= set(by_id)
    assert all("possible_conflict" in by_id[i]["flags"] for i in (first, second))
    assert all(by_id[i]["memory"]["status"] == "active" for i in (first, second))


async def test_an_edit_that_contradicts_another_fact_flags_both_and_retires_neither(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """New-user trial, finding 4: an in-place content edit is checked as a write is, but only flagged —
    an edit names one memory and never silently supersedes another."""
    async with mcp_client(server.url, token) as client:
        milk = await _write(client, poller, content="The user drinks oat milk")
        bike = await _write(client, poller, content="The user owns a red bike")
        answer = await call(
            client,
            "memory_update",
            {"id": bike, "action": "update", "content": "The user no longer drinks oat milk"},
        )
        hits = (await call(client, "memory_search", {"query": "does the user drink oat milk?"}))["results"]
        views = [await _get(client, i) for i in (milk, bike)]
    assert milk in answer["note"]
    assert "possible conflict" in answer["note"]
    assert not answer.get("superseded")
    by_id = {h["memory"]["id"]: h for h in hits}
    assert {milk, bike} <= set(by_id)
    assert all("possible_conflict" in by_id[i]["flags"] for i in (milk, bike))
    assert [v["memory"]["status"] for v in views] == ["active", "active"]
    assert {(r["from_id"], r["to_id"], r["kind"]) for r in views[1]["relations"]} == {
        (bike, milk, "contradicts")
    }
    # an edit that ends the conflict ends its link and its flag
    async with mcp_client(server.url, token) as client:
        back = await call(
            client, "memory_update", {"id": bike, "action": "update", "content": "The user owns a red bike"}
        )
        hits = (await call(client, "memory_search", {"query": "does the user drink oat milk?"}))["results"]
        view = await _get(client, milk)
    assert f"no longer in conflict with {milk}" in back["note"]
    assert not [r for r in view["relations"] if r["kind"] == "contradicts"]
    assert not [h for h in hits if "possible_conflict" in h["flags"]]
    # an edit that contradicts nothing links nothing
    async with mcp_client(server.url, token) as client:
        plain = await _write(client, poller, content="The user's bike is red")
        again = await call(
            client, "memory_update", {"id": plain, "action": "update", "content": "The user's bike is blue"}
        )
        view = await _get(client, plain)
    assert not again.get("note")
    assert not [r for r in view["relations"] if r["kind"] == "contradicts"]


# ---- the conflict judge (the chat model asked where the rules are unsure) -------------------------------


class _Judge:
    """A loopback chat-completions server that answers each request with the next scripted relation."""

    def __init__(self) -> None:
        self.answers: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.port = 0

    def handler(self) -> type[BaseHTTPRequestHandler]:
        judge = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                judge.requests.append(body)
                content = json.dumps({"relation": judge.answers.pop(0)})
                send_json(
                    self,
                    200,
                    {
                        "id": "chatcmpl-1",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                    },
                )

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


@pytest.fixture
def judge_server() -> Iterator[_Judge]:
    judge = _Judge()
    with loopback_http_server(judge.handler()) as judge.port:
        yield judge


def _job(tenant: str, content: str) -> WriteJob:
    return WriteJob(
        id=uuid.uuid4(),
        tenant_id=tenant,
        agent_id="default",
        submitted_at=datetime.now(UTC),
        draft=MemoryDraft(content=content),
    )


async def test_the_judge_settles_what_the_rules_were_unsure_of(
    stack: LocalStack, tenant: str, judge_server: _Judge
) -> None:
    container = await build_container(stack.require_settings(), with_queue=False)
    try:
        chat = OpenAIChatModel(
            model="judge", base_url=f"http://127.0.0.1:{judge_server.port}/v1", api_key="k", max_retries=0
        )
        store = StoreMemories(
            container.writer, container.embedder, 0.95, conflict_judge=OpenAIChatConflictJudge(chat)
        )
        muse, radiohead = _job(tenant, "The user likes Muse."), _job(tenant, "The user likes Radiohead.")
        # "switched from Jira to Linear" names the old value: the rules are sure of it (trial 4), no judge
        jira, linear = _job(tenant, "The team uses Jira."), _job(tenant, "The team uses Linear.")
        judge_server.answers = ["addition", "contradiction"]
        for job in (muse, radiohead, jira, linear):
            (result,) = await store([job])
            assert result.outcome == "stored"
        assert len(judge_server.requests) == 2
        asked = json.loads(judge_server.requests[0]["messages"][1]["content"].removeprefix("Facts:\n"))
        assert asked == {"OLD": "The user likes Muse.", "NEW": "The user likes Radiohead."}
        memories = {
            m.id: m
            for m in await container.reader.get_many(muse.scope, [muse.id, radiohead.id, jira.id, linear.id])
        }
        assert [memories[j.id].status for j in (muse, radiohead, jira, linear)] == [
            "active",
            "active",
            "superseded",
            "active",
        ]
        links = {
            (r.from_id, r.to_id, r.kind) for r in await container.reader.relations(muse.scope, [radiohead.id])
        }
        assert (radiohead.id, muse.id, "contradicts") not in links  # the judge said addition: unlinked
    finally:
        await container.aclose()


async def test_a_changed_dose_without_a_key_flags_both_doses(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    """trial18 L3: two active doses of one medicine, neither flagged, let an agent repeat the old dose —
    the change is flagged on both (the official MCP client; neither retired: the rule reads a shape)."""
    async with mcp_client(server.url, token) as client:
        old = await _write(client, poller, content="I take 500mg of metformin twice a day")
        new = await _write(client, poller, content="My doctor upped my metformin to 1000mg twice a day")
        hits = (await call(client, "memory_search", {"query": "how much metformin do I take"}))["results"]
        old_view = await _get(client, old)
    by_id = {h["memory"]["id"]: h for h in hits}
    assert {old, new} <= set(by_id)
    assert all("possible_conflict" in by_id[i]["flags"] for i in (old, new))
    assert all(by_id[i]["memory"]["status"] == "active" for i in (old, new))
    assert (new, old, "contradicts") in {(r["from_id"], r["to_id"], r["kind"]) for r in old_view["relations"]}
