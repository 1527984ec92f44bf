"""Errors and notes a model can read, through the official MCP client in both protocol eras (h-errs):

1. A ``key`` filter outside the key grammar on ``memory_search`` / ``memory_summarize`` answered with a
   silent empty result; it is refused (isError) naming ``key`` and the grammar, as ``memory_write``
   refuses the key — while a mixed-case filter is a valid key and finds the memory (keys compare without
   case), and a key in the grammar that holds nothing is still an empty answer, not an error.
2. An entity type's name outside its grammar was refused without saying which name: each refusal now
   quotes its name (escaped, cut short), so a model that gave several knows which to fix.
3. "1 recalled memories were left out" in a summary's note: the count and its words agree.
4. The entity name pattern the tool schema publishes reads in JSON Schema's dialect (ECMA-262, where
   ``\\w`` is ASCII) as the server reads it: "città" is a name for a client checking the schema too.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from tests.support import PROTOCOL_ERAS, drain, ecma_matches, mcp_client, tool_error

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

BAD_KEY_FILTERS = ["sam..city", "sam/city", "sam city", ".sam", "sam#1", "sam.city!"]
"""Key filters no write can set (each breaks the grammar another way) and no memory holds."""


def _assert_key_grammar_refusal(error: dict[str, Any]) -> None:
    """An argument error on ``key`` stating the key grammar in words, with an example and its limit."""
    assert error["kind"] == "invalid_arguments", error
    assert error["message"].startswith("Invalid arguments: key: must be words of letters"), error
    (detail,) = error["errors"]
    assert detail["field"] == "key", detail
    assert "joined by dots" in detail["message"], detail
    assert "'user.home'" in detail["message"], detail
    assert "joined by dots" in detail["limit"]["format"], detail


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_key_filter_outside_the_grammar_is_refused_and_a_mixed_case_one_matches(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    async with mcp_client(server.url, token, mode) as client:
        ack = await call(client, "memory_write", {"content": "Sam lives in Lisbon", "key": "sam.city"})
        await drain(poller)
        for key in BAD_KEY_FILTERS:
            search = await tool_error(client, "memory_search", {"query": "Where does Sam live?", "key": key})
            _assert_key_grammar_refusal(search)
            summary = await tool_error(client, "memory_summarize", {"key": key})
            _assert_key_grammar_refusal(summary)
        # a key in the grammar, in any case, is a key: it finds the memory
        for key in ("Sam.City", "SAM.CITY", "sam.city"):
            found = await call(client, "memory_search", {"query": "Where does Sam live?", "key": key})
            assert [h["memory"]["id"] for h in found["results"]] == [ack["id"]], key
            hint = await call(client, "memory_summarize", {"key": key})
            assert hint["ids"] == [ack["id"]], key
        # one no memory holds is an empty answer, not an error
        nothing = await call(client, "memory_search", {"query": "Where does Sam work?", "key": "Sam.Job"})
        assert nothing["results"] == []
        assert (await call(client, "memory_summarize", {"key": "sam.job"}))["ids"] == []


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_each_refused_entity_name_is_named_in_its_message(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    grammar = "must be a letter, then letters, digits, _ . or - only (e.g. person, order_id)"
    long_name = "n" * 40 + "!" + "x" * 59  # 100 characters
    entities = {"person": "Ana", "first name": "Ana", 'we"ird': "x", "a\u202eb": "y", long_name: "z"}
    async with mcp_client(server.url, token, mode) as client:
        write = await tool_error(client, "memory_write", {"content": "Lunch with Ana", "entities": entities})
        search = await tool_error(client, "memory_search", {"query": "lunch", "entities": entities})
        batch = await call(
            client, "memory_write_batch", {"items": [{"content": "Lunch with Ana", "entities": entities}]}
        )
        await drain(poller)
        stored = await call(client, "memory_search", {"query": "Lunch with Ana"})
    assert stored["results"] == []  # nothing stored
    (item,) = batch["results"]
    assert item["status"] == "error", item
    for error, field in ((write, "entities"), (search, "entities"), (item["error"], "items.0.entities")):
        messages = [d["message"] for d in error["errors"]]
        assert [d["field"] for d in error["errors"]] == [field] * 4, error
        assert messages[:3] == [
            f"entity type name 'first name': {grammar}",
            f"entity type name 'we\"ird': {grammar}",  # quoted as Python quotes it: the ' stays plain
            f"entity type name 'a\\u202eb': {grammar}",  # an invisible (bidi) character shows escaped
        ], messages
        # a long name is cut short: enough to find it, not all of it
        assert messages[3].startswith(f"entity type name '{'n' * 32}'… (100 characters): "), messages
        assert long_name not in error["message"]
        assert error["message"] == "Invalid arguments: " + "; ".join(f"{field}: {m}" for m in messages)


async def test_a_summary_says_one_memory_left_out_in_the_singular(
    server: BackgroundServer, poller: SqsPoller, token: str
) -> None:
    async with mcp_client(server.url, token) as client:
        for content in ("We are planning a trip to Kyoto in April.", "The user drinks oolong tea."):
            await call(client, "memory_write", {"content": content})
        await drain(poller)
        recalled = await call(client, "memory_search", {"query": "Kyoto trip"})
        hint = await call(client, "memory_summarize", {"query": "Kyoto trip"})
    assert recalled["count"] == 2  # both recalled, one shares no word with the query
    assert hint["considered"] == 1
    assert hint["note"] == "1 recalled memory was left out: it shares no word or entity with the query"


@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_the_entity_name_pattern_reads_in_json_schema_as_the_server_reads_it(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    names = ["person", "order_id", "città", "a用户", "b-2.x", "1st", 'we"ird', "a b", "a\u3000b", "a/b"]
    server_takes = [True, True, True, True, True, False, False, False, False, False]
    async with mcp_client(server.url, token, mode) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        for tool in ("memory_write", "memory_search"):
            (pattern,) = tools[tool].input_schema["properties"]["entities"]["anyOf"][0]["patternProperties"]
            # ECMA-262's \w and \d are ASCII, as Python's under re.ASCII; its \s is Unicode, as Python's
            # without it (the name with U+3000 is read so below)
            ascii_read = [re.search(pattern, n, re.ASCII) is not None for n in names if n != "a\u3000b"]
            assert ascii_read == [t for n, t in zip(names, server_takes, strict=True) if n != "a\u3000b"]
            assert [re.search(pattern, n) is not None for n in names] == server_takes, pattern
            ecma = ecma_matches(pattern, names)
            assert ecma is None or ecma == server_takes, (pattern, ecma)
        ack = await call(client, "memory_write", {"content": "Dinner in Rome", "entities": {"città": "Roma"}})
        await drain(poller)
        found = await call(client, "memory_search", {"query": "dinner", "entities": {"città": "Roma"}})
        for name, takes in zip(names, server_takes, strict=True):
            if not takes:
                await tool_error(client, "memory_write", {"content": "Dinner", "entities": {name: "v"}})
    assert [h["memory"]["id"] for h in found["results"]] == [ack["id"]]
