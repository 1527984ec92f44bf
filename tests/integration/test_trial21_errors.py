"""What a new user met (trial21) and follow-ups of h-errs, through the official MCP client:

A. A key filter naming a family of keys ("alex.allergy" over "alex.allergy.peanuts") answered empty with
   no note, read as "no allergies": the note names the keys below it.
B. memory_summarize with a key and a query sharing no word with the key's fact dropped the fact.
C. memory_search with a max_tokens no hit fits in answered ``results: []``: refused, naming the budget that
   returns the first hit.
D. A blank entity value was stored on write (and carried on by a merge): refused on every write path.
1. The tag pattern the schema publishes reads in JSON Schema's dialect as the server reads it ("café").
2. The entity schema refuses a bad entity name to a schema-checking client (``propertyNames``).
4. A name over 64 characters is refused in our words, naming the name and the limit.
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema
import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, ecma_matches, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]
NOT_FOUND_ID = "0193a5c2-7d1e-7f3a-9b2c-4d5e6f708192"


async def test_a_key_with_keys_below_it_says_which_in_search_and_summary(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for item, content in (
            ("peanuts", "Alex is allergic to peanuts."),
            ("shellfish", "Alex can't eat shellfish."),
        ):
            await call(client, "memory_write", {"content": content, "key": f"alex.allergy.{item}"})
        await call(
            client, "memory_write", {"content": "Alex's allergy nurse is Dana.", "key": "alex.allergyx"}
        )
        await drain(poller)
        search = await call(
            client, "memory_search", {"query": "what is Alex allergic to", "key": "Alex.Allergy"}
        )
        budgeted = await call(
            client,
            "memory_search",
            {"query": "what is Alex allergic to", "key": "alex.allergy", "max_tokens": 2000},
        )
        summary = await call(client, "memory_summarize", {"key": "alex.allergy"})
        held = await call(client, "memory_search", {"query": "peanuts", "key": "alex.allergy.peanuts"})
        nothing = await call(
            client, "memory_search", {"query": "what is Sam allergic to", "key": "sam.allergy"}
        )
    expected = (
        "no memory holds key 'alex.allergy' itself, but 2 keys below it are held: 'alex.allergy.peanuts', "
        "'alex.allergy.shellfish'; pass one of them as key, or leave key out and name the subject in the "
        "query"
    )
    assert (search["results"], search["count"]) == ([], 0)
    assert search["note"] == expected
    assert budgeted["note"] == expected
    assert summary["ids"] == []
    assert expected in summary["note"]
    # a key that matches carries no note; nor does one with nothing below it
    assert held["count"] == 1
    assert "note" not in held
    assert nothing["results"] == []
    assert "note" not in nothing


async def test_a_summary_by_key_keeps_the_keys_fact_whatever_the_query_says(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"content": "I live in Seattle", "key": "user.home"})
        await call(client, "memory_write", {"content": "My home office has a standing desk"})
        await drain(poller)
        hint = await call(client, "memory_summarize", {"key": "user.home", "query": "home"})
    assert hint["ids"] == [ack["id"]], hint
    assert "Seattle" in hint["hint"]
    assert "no memory matched the query" not in (hint.get("note") or "")


async def test_a_budget_no_hit_fits_in_is_refused_naming_the_smallest_that_returns_one(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    subjects = ["database migrations", "feature flags", "canary hosts", "rollback scripts", "on-call pages"]
    async with mcp_client(server.url, token) as client:
        for n, subject in enumerate(subjects):
            content = (
                f"The payments deployment checklist item {n} covers {subject} for every region we serve. "
                f"Before each release the team reviews {subject} with the owner of step {n} and notes it. "
                f"After the release, {subject} are checked again and any surprise goes to the incident log."
            )
            await call(client, "memory_write", {"content": content})
        await drain(poller)
        args = {"query": "payments deployment checklist"}
        refusals = [await tool_error(client, "memory_search", args | {"max_tokens": m}) for m in (100, 150)]
        needed = refusals[0]["errors"][0]["limit"]["ge"]
        fits = await call(client, "memory_search", args | {"max_tokens": needed})
        one_less = await tool_error(client, "memory_search", args | {"max_tokens": needed - 1})
    for refused, budget in zip(refusals, (100, 150), strict=True):
        assert refused["kind"] == "invalid_arguments", refused
        (detail,) = refused["errors"]
        assert detail["field"] == "max_tokens"
        assert detail["limit"] == {"ge": needed}
        assert detail["message"] == (
            f"max_tokens: 5 hits were found, but none fits in {budget} tokens, even in compact form: "
            f"give max_tokens {needed} or more to get the first"
        )
    assert needed > 150
    assert (fits["budget"]["whole"] + fits["budget"]["compacted"], fits["budget"]["tokens"] <= needed) == (
        1,
        True,
    )
    assert one_less["errors"][0]["limit"] == {"ge": needed}


async def test_a_blank_entity_value_is_refused_on_every_write_path(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    message = "entity 'person' has a blank or empty value: give its value, or leave the entity out"
    async with mcp_client(server.url, token) as client:
        ack = await call(
            client, "memory_write", {"content": "Lunch with Ana on Friday", "entities": {"person": "Ana"}}
        )
        await drain(poller)
        errors = [
            await tool_error(
                client, "memory_write", {"content": "Lunch with Bo", "entities": {"person": ""}}
            ),
            await tool_error(
                client, "memory_write", {"content": "Lunch", "entities": {"person": ["Bo", " "]}}
            ),
            await tool_error(
                client, "memory_update", {"id": ack["id"], "action": "update", "entities": {"person": "  "}}
            ),
        ]
        batch = await call(
            client,
            "memory_write_batch",
            {"items": [{"content": "Lunch with Bo", "entities": {"person": ""}}]},
        )
        await drain(poller)
        found = await call(client, "memory_search", {"query": "lunch"})
    (item,) = batch["results"]
    assert item["status"] == "error"
    for error, field in zip([*errors, item["error"]], ["entities"] * 3 + ["items.0.entities"], strict=True):
        assert error["kind"] == "invalid_arguments", error
        assert [(d["field"], d["message"]) for d in error["errors"]] == [(field, message)], error
    assert [h["memory"]["entities"] for h in found["results"]] == [{"person": "Ana"}]


def _schemas(tools: Any, *names: str) -> dict[str, dict[str, Any]]:
    return {t.name: t.input_schema for t in tools.tools if t.name in names}


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_the_tag_pattern_reads_in_json_schema_as_the_server_reads_it(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    tags = ["café", "project:alpha", "v1.2", "a/b-c_d", "用户", "a b", "a,b", "a€", "a—b", "a\u3000b"]
    server_takes = [True, True, True, True, True, False, False, False, False, False]
    async with mcp_client(server.url, token, mode) as client:
        schemas = _schemas(await client.list_tools(), "memory_write", "memory_search")
        for name, schema in schemas.items():
            pattern = schema["properties"]["tags"]["anyOf"][0]["items"]["pattern"]
            # ECMA-262's \w is ASCII (Python's under re.ASCII): the old pattern refused "café" there. Its
            # \s is Unicode (Python's without re.ASCII): the tag with U+3000 is left out of the ASCII read
            schema_takes = [True] * 5 + [False, False, True, True, False]  # "a€", "a—b": the server refuses
            ascii_read = [re.search(pattern, t, re.ASCII) is not None for t in tags[:-1]]
            assert ascii_read == schema_takes[:-1], (name, pattern)
            assert [re.search(pattern, t) is not None for t in tags] == schema_takes, (name, pattern)
            ecma = ecma_matches(pattern, tags)
            assert ecma is None or ecma == schema_takes, (name, ecma)
        ack = await call(client, "memory_write", {"content": "Pastries at the corner shop", "tags": ["Café"]})
        await drain(poller)
        found = await call(client, "memory_search", {"query": "pastries", "tags": ["café"]})
        for tag, takes in zip(tags, server_takes, strict=True):
            if not takes:
                error = await tool_error(client, "memory_write", {"content": "Pastries", "tags": [tag]})
                assert error["errors"][0]["message"].startswith("must be letters, digits and _.:/- only"), (
                    error
                )
    assert [h["memory"]["id"] for h in found["results"]] == [ack["id"]]
    assert found["results"][0]["memory"]["tags"] == ["café"]


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_schema_checking_client_refuses_a_bad_entity_name_as_the_server_does(
    server: BackgroundServer, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        schemas = _schemas(await client.list_tools(), "memory_write", "memory_search", "memory_update")
    assert len(schemas) == 3
    for name, schema in schemas.items():
        validator = jsonschema.Draft202012Validator(schema)
        base = {"id": NOT_FOUND_ID, "action": "update"} if name == "memory_update" else {"query": "q"}
        base |= {"content": "c"} if name == "memory_write" else {}
        for good in ("person", "order_id", "città"):
            assert validator.is_valid(base | {"entities": {good: "x"}}), (name, good)
        for bad in ("first name", "1st", 'we"ird', "n" * 65, ""):
            assert not validator.is_valid(base | {"entities": {bad: "x"}}), (name, bad)


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_name_over_the_limit_is_refused_in_our_words(
    server: BackgroundServer, token: str, mode: str
) -> None:
    name = "n" * 70
    async with mcp_client(server.url, token, mode) as client:
        write = await tool_error(client, "memory_write", {"content": "Lunch", "entities": {name: "x"}})
        search = await tool_error(client, "memory_search", {"query": "lunch", "entities": {name: "x"}})
    for error in (write, search):
        (detail,) = error["errors"]
        assert detail["field"] == "entities"
        assert (
            detail["message"]
            == f"entity type name '{'n' * 32}'… (70 characters): must be at most 64 characters"
        )
        assert detail["limit"] == {"max_length": 64}
        assert "String should" not in error["message"]
