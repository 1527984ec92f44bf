"""An audit of every error a model reads: through the official MCP client over HTTP, in both protocol eras
(2025-11-25 with ``initialize``, the stateless 2026-07-28 with ``server/discover``), every tool is called
with every bad value of the schema table per field (wrong type, past a bound, unknown enum value, empty,
malformed time, not a uuid, …), null where required, missing, an argument it does not take, an unknown
memory id and another tenant's; with bounds no schema states (``SEMANTIC``); each memory_write field's bad
values inside a memory_write_batch item; from a read-only key and from a key limited to another agent.

Each answer must be a tool result with ``isError`` (never a JSON-RPC error the client raises and the model
never sees; a bad batch item: that item's error), whose text names the field and, for a broken bound, the
limit, says what is expected, does not echo a long rejected value, and holds no Python repr, stack trace
or internal name; another tenant's id is answered exactly as an unknown one (no existence leak); and the
tenant's store (every column of its rows, its Redis keys, the queues) is exactly as before. A bounded
Hypothesis run adds random arguments to any tool. The cases are derived from the live input schemas
(``tests.schema_cases``), so a new tool or field is audited the day it is added; test_bad_input.py sends
the same table over raw HTTP in one era (and NaN/infinity, which the official client writes as null).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest
import redis
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from tests.schema_cases import (
    ANY_JSON,
    RANDOM_FROM_OTHER_THREADS,
    arguments_strategy,
    bad_values,
    non_null,
    resolve,
    tool_schemas,
    valid_arguments,
)
from tests.support import PROTOCOL_ERAS, drain, mcp_client, mint, session_pattern

pytestmark = [pytest.mark.anyio, pytest.mark.integration]

SCHEMAS = tool_schemas()
LEAKS = re.compile(
    r"Traceback|File \"|line \d+, in |<class |<[a-zA-Z_.]+ object at 0x|object at 0x|pydantic|"
    r"errors\.pydantic\.dev|ValidationError|input_value=|input_type=|\[type=|hindsight\.|psycopg|"
    r"asyncpg|botocore|boto3|redis\.|anyio|starlette|mcp\.|NoneType|KeyError|TypeError|AttributeError|"
    r"IndexError|RuntimeError|AssertionError|UnicodeDecodeError|__[a-z]+__|\bself\.|\bdict\[|\blist\[|"
    r"Decimal\(|datetime\.datetime\(|UUID\('|bytes or UUID|UUID object|\[key\]|after validation",
)
"""What a message for the model never holds: a stack trace, a Python repr, pydantic's dump, internal
module or exception names."""
EXPECTS = re.compile(
    r"should|must|expected|one of|at most|at least|not a |valid|between|only|takes|names no|"
    r"no memory|no working-memory item|not found|does not exist|unknown|exceed|too |limit|allowed|"
    r"before|after|required|missing|may act for",
    re.IGNORECASE,
)
"""Words that say what was expected (a form, a bound, what exists): a bare "invalid" does not."""


@dataclass(frozen=True)
class Case:
    """One call: ``field`` the argument it spoils ("" for the whole call), ``limit`` whether it breaks a
    stated bound (the answer must name it), ``kinds`` the error kinds that are right for it."""

    label: str
    arguments: dict[str, Any]
    field: str
    limit: bool = False
    kinds: tuple[str, ...] = ("invalid_arguments",)
    says: str = ""
    """Words the answer must hold besides the field (what to do about it)."""
    key: str = "own"
    """The key that calls: "own" (the tenant's), "read_only", or "agent" (may act only for agent a1)."""


@pytest.fixture(scope="module")
def server(unlimited_server: BackgroundServer) -> BackgroundServer:
    """Rate limits off: hundreds of refused calls from one key are the point (the limiter's own
    "refused" budget would otherwise answer some of them)."""
    return unlimited_server


@dataclass(frozen=True)
class World:
    """The audited tenant (its token, memory ids, working-memory session) and another tenant's memory."""

    tenant: str
    tokens: dict[str, str]
    ids: list[str]
    session: str
    foreign_id: str


@pytest.fixture(scope="module")
async def world(stack: LocalStack, server: BackgroundServer, poller: SqsPoller) -> World:
    tenant, other = f"t-audit-{uuid.uuid4().hex[:8]}", f"t-audit-other-{uuid.uuid4().hex[:8]}"
    token, other_token = await mint(stack, tenant), await mint(stack, other)
    tokens = {
        "own": token,
        "read_only": await mint(stack, tenant, read_only=True),
        "agent": await mint(stack, tenant, agent_ids=["a1"]),
    }
    async with mcp_client(server.url, token) as client:
        first = await call(client, "memory_write", {"content": "Mara leads Lisbon", "key": "mara.role"})
        second = await call(client, "memory_write", {"content": "The Lisbon office opened in 2021"})
        await call(client, "working_memory_set", {"session_id": "s-audit", "key": "plan", "content": "ship"})
    async with mcp_client(server.url, other_token) as client:
        foreign = await call(client, "memory_write", {"content": "Other tenant's secret plan"})
    await drain(poller)
    return World(tenant, tokens, [first["id"], second["id"]], "s-audit", foreign["id"])


def _base(tool: str, world: World) -> dict[str, Any]:
    """Valid arguments for ``tool``, naming the tenant's own memory and session where it takes one."""
    args = valid_arguments(SCHEMAS[tool])
    for name in ("id", "from_id"):
        if name in args:
            args[name] = world.ids[0]
    if "to_id" in args:
        args["to_id"] = world.ids[1]
    if "ids" in args:
        args["ids"] = [world.ids[0]]
    if "session_id" in args:
        args["session_id"] = world.session
    if tool == "memory_update":  # a whole change, so an unknown id is all that is wrong with it
        args["action"] = "archive"
    if tool == "memory_summarize":  # it needs one of query, key, task_type, since, until
        args["query"] = "Lisbon"
    return args


def _uuid_fields(schema: dict[str, Any]) -> list[str]:
    """The arguments that name one memory (a uuid string)."""
    defs = schema.get("$defs")
    return [
        name
        for name, field in schema.get("properties", {}).items()
        if resolve(non_null(field), defs).get("format") == "uuid"
    ]


def cases(tool: str, world: World) -> list[Case]:
    """Every bad call the audit makes to ``tool``."""
    schema = SCHEMAS[tool]
    base = _base(tool, world)
    required = set(schema.get("required", []))
    out: list[Case] = []
    for name, field in schema.get("properties", {}).items():
        seen: set[str] = set()
        for bad in bad_values(field, schema.get("$defs")):
            if bad.label in seen or bad.label in UNSENDABLE:
                continue
            seen.add(bad.label)
            out.append(Case(f"{name}:{bad.label}", {**base, name: bad.value}, name, bad.limit))
        if name in required:
            out.append(Case(f"{name}:null", {**base, name: None}, name, limit=True))
            out.append(
                Case(f"{name}:missing", {k: v for k, v in base.items() if k != name}, name, limit=True)
            )
    out.append(Case("unknown_argument", {**base, "bogus_argument": 1}, "bogus_argument"))
    found = ("not_found", "invalid_arguments")
    for name in _uuid_fields(schema):
        unknown = str(uuid.uuid4())
        out.append(Case(f"{name}:unknown_id", {**base, name: unknown}, name, kinds=found))
        out.append(Case(f"{name}:other_tenant_id", {**base, name: world.foreign_id}, name, kinds=found))
    if tool == "working_memory_promote":
        out.append(Case("key:unknown_key", {**base, "key": "no-such-item"}, "key", kinds=("not_found",)))
    if tool == "memory_write_batch":  # a bad item is that item's error, its fields under items.<i>
        write = SCHEMAS["memory_write"]
        item = valid_arguments(write)
        for name, field in write.get("properties", {}).items():
            if name == "agent_id":  # one agent per batch: not an item's field
                continue
            for bad in bad_values(field, write.get("$defs")):
                if bad.label in UNSENDABLE:
                    continue
                arguments = {"items": [{**item, name: bad.value}]}
                out.append(Case(f"items.0.{name}:{bad.label}", arguments, f"items.0.{name}", bad.limit))
    for label, change, name, extra in SEMANTIC.get(tool, []):
        change = {k: base["from_id"] if v == "<from>" else v for k, v in change.items()}
        out.append(Case(label, {**base, **change}, name, **extra))
    if tool in WRITE_TOOLS:
        out.append(Case("read_only_key", base, "", kinds=("forbidden",), says="read-only", key="read_only"))
    if "agent_id" in schema.get("properties", {}):
        other_agent = {**base, "agent_id": "b2"}
        out.append(Case("agent_not_allowed", other_agent, "agent_id", kinds=("forbidden",), key="agent"))
    return out


STALE: dict[str, Any] = {"kinds": ("version_conflict",)}
GRAMMAR: dict[str, Any] = {"limit": True, "says": "'user.home'"}
"""A key outside the key grammar: the answer states the grammar (its limit) with an example."""
UNSENDABLE = {"nan", "infinite"}
"""Bad values the official client cannot send: it writes NaN and infinity as null (test_bad_input sends
them raw)."""
SEMANTIC: dict[str, list[tuple[str, dict[str, Any], str, dict[str, Any]]]] = {
    "memory_search": [
        ("since:words", {"since": "whenever it was"}, "since", {}),
        ("since:impossible_date", {"since": "2026-02-30"}, "since", {}),
        ("until:before_since", {"since": "2026-05-01", "until": "2026-04-01"}, "until", {}),
        ("time_range:words", {"time_range": "the day after never"}, "time_range", {}),
        ("valid_at:number", {"valid_at": 1700000000}, "valid_at", {}),
    ],
    "memory_update": [
        ("content:supersede_without", {"action": "supersede"}, "content", {}),
        ("content:with_archive", {"action": "archive", "content": "Mara leads Porto"}, "content", {}),
        ("tags:with_restore", {"action": "restore", "tags": ["x"]}, "tags", {}),
        ("valid_to:null_with_archive", {"action": "archive", "valid_to": None}, "valid_to", {}),
        ("valid_to:before_valid_from", {"valid_from": "2026-05-01", "valid_to": "2026-04-01"}, "valid_to",
         {}),
        ("expected_version:stale", {"action": "update", "content": "x", "expected_version": 99},
         "expected_version", STALE),
        ("key:grammar", {"action": "update", "key": "user city!!"}, "key", GRAMMAR),
    ],
    "working_memory_promote": [("memory_key:grammar", {"memory_key": "user city!!"}, "memory_key", GRAMMAR)],
    "memory_link": [
        ("to_id:self", {"to_id": "<from>"}, "to_id", {}),
        ("expected_version:stale", {"expected_version": 99}, "expected_version", STALE),
    ],
    "memory_forget": [
        ("expected_version:stale", {"expected_version": 99}, "expected_version", STALE),
    ],
    "working_memory_set": [
        ("expected_version:stale", {"expected_version": 99}, "expected_version", STALE),
    ],
    "memory_write": [
        ("content:blank", {"content": " \n\t "}, "content", {}),
        ("content:invisible", {"content": "\u200b\u200b"}, "content", {}),
        ("key:email", {"key": "contact.ann@example.com"}, "key", {}),
        ("key:grammar", {"key": "user city!!"}, "key", GRAMMAR),
        ("occurred_at:numeric_string", {"occurred_at": "1700000000"}, "occurred_at", {}),
    ],
    "memory_summarize": [("arguments:none", {"query": None}, "query", {})],
}  # fmt: skip
"""Bounds no schema states, per tool: (label, arguments changed, the field named, Case extras)."""
WRITE_TOOLS = {
    "memory_write",
    "memory_write_batch",
    "memory_update",
    "memory_forget",
    "memory_link",
    "memory_feedback",
    "task_reflect",
    "working_memory_set",
    "working_memory_clear",
    "working_memory_promote",
}


def _long_strings(value: Any) -> list[str]:
    """The long strings (names too) in a bad value: the caller's data, which a message never echoes."""
    if isinstance(value, str):
        return [value] if len(value) >= 30 else []
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _long_strings(k) + _long_strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _long_strings(v)]
    return []


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


def judge(case: Case, result: CallToolResult | MCPError) -> list[str]:
    """What is wrong with the answer to ``case`` (nothing: an empty list)."""
    if isinstance(result, MCPError):
        return [f"a JSON-RPC error ({result.error.code}: {result.error.message[:200]}), not a tool result"]
    text = _text(result)
    if not result.is_error:
        items = (result.structured_content or {}).get("results")
        if isinstance(items, list) and items and all(i.get("status") == "error" for i in items):
            text = json.dumps(items)  # memory_write_batch: a bad item is that item's error, in the result
        else:
            return [f"accepted: {text[:200]}"]
    problems: list[str] = []
    error = (result.structured_content or {}).get("error") if result.is_error else None
    kind = error.get("kind") if isinstance(error, dict) else None
    if result.is_error and kind not in case.kinds:
        problems.append(f"kind {kind!r} not in {case.kinds}")
    if case.says and case.says not in text:
        problems.append(f"does not say {case.says!r}: {text[:200]}")
    if case.field not in text:
        problems.append(f"the text does not name {case.field!r}: {text[:200]}")
    if case.limit and '"limit"' not in text:
        problems.append(f"no limit named: {text[:200]}")
    if not EXPECTS.search(text):
        problems.append(f"does not say what is expected: {text[:200]}")
    echoable = case.label.endswith("_id")  # an id the caller sent may be named back ("memory … not found")
    if not echoable and any(s in text for s in _long_strings(case.arguments.get(case.field))):
        problems.append(f"echoes the rejected value: {text[:200]}")
    leak = LEAKS.search(text)
    if leak:
        problems.append(f"leaks {leak.group(0)!r}: {text[max(0, leak.start() - 80) : leak.end() + 80]}")
    return problems


def snapshot(stack: LocalStack, tenant: str, session: str) -> dict[str, str]:
    """A digest of everything the tenant has: every column of its rows, its working memory and queued
    write statuses (Redis), the queues' depths."""
    digests = {}
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        for table in ("memories", "memory_relations", "memory_history", "write_results"):
            rows = conn.execute(
                f"SELECT row_to_json(t)::text FROM {table} t WHERE tenant_id = %s ORDER BY 1", (tenant,)
            ).fetchall()
            digests[table] = hashlib.sha256("\n".join(r[0] for r in rows).encode()).hexdigest()
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:
        keys = sorted(
            key
            for pattern in (session_pattern(stack, tenant), f"hs:*op:{tenant}:*")
            for key in client.scan_iter(match=pattern, count=1000)
        )
        digests["redis"] = hashlib.sha256(
            b"".join(key + repr(client.dump(key)).encode() for key in keys)
        ).hexdigest()
    finally:
        client.close()
    sqs, settings = stack.sqs_client(), stack.require_settings()
    for url in (settings.require_write_queue_url(), settings.bulk_queue_url, settings.reflect_queue_url):
        assert url is not None, "the local stack has every queue"
        names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
        attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=names)["Attributes"]
        digests[f"queue {url.rsplit('/', 1)[-1]}"] = str(sum(int(attrs[n]) for n in names))
    return digests


def _without_ids(text: str) -> str:
    return re.sub(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<id>", text)


async def _answer(client: Client, tool: str, arguments: dict[str, Any]) -> CallToolResult | MCPError:
    try:
        return await client.call_tool(tool, arguments)
    except MCPError as exc:
        return exc


@pytest.mark.parametrize("era", PROTOCOL_ERAS)
@pytest.mark.parametrize("tool", sorted(SCHEMAS))
async def test_every_bad_argument_is_an_error_the_model_can_read_and_changes_nothing(
    stack: LocalStack, server: BackgroundServer, world: World, tool: str, era: str
) -> None:
    findings: list[str] = []
    before = snapshot(stack, world.tenant, world.session)
    answers: dict[str, str] = {}
    async with AsyncExitStack() as opened:
        clients: dict[str, Client] = {}
        for case in cases(tool, world):
            if case.key not in clients:
                client = mcp_client(server.url, world.tokens[case.key], era)
                clients[case.key] = await opened.enter_async_context(client)
            result = await _answer(clients[case.key], tool, case.arguments)
            findings += [f"{tool} {case.label}: {p}" for p in judge(case, result)]
            if case.label.endswith(("unknown_id", "other_tenant_id")) and isinstance(result, CallToolResult):
                answers[case.label] = _without_ids(_text(result))
    for label, text in answers.items():  # another tenant's memory is answered as one that does not exist
        unknown = answers[label.replace("other_tenant_id", "unknown_id")]
        if label.endswith("other_tenant_id") and text != unknown:
            findings.append(f"{tool} {label}: answered unlike an unknown id: {text[:200]}")
    after = snapshot(stack, world.tenant, world.session)
    changed = [name for name in before if before[name] != after[name]]
    if changed:
        findings.append(f"{tool}: the bad calls changed {changed}")
    assert not findings, "\n".join(findings)


FUZZ = settings(
    max_examples=50,
    deadline=None,
    derandomize=os.environ.get("CI") == "true",
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
"""Bounded: 50 random calls an era (a few seconds); in CI derandomised, so a run is reproducible."""
FUZZ_KINDS = {"invalid_arguments", "not_found", "version_conflict"}


def read_problems(result: CallToolResult | MCPError, sent: Iterable[str] = ()) -> list[str]:
    """What a model could not use in the answer to random arguments: a JSON-RPC error (the arguments are
    always an object), an error of an unexpected kind, a bad field the text does not name, internals.
    ``sent``: the argument names the caller sent, which the answer may name ("__a__: not an argument of
    …") without leaking anything: they are left out of the search for internals."""
    if isinstance(result, MCPError):
        return [f"a JSON-RPC error ({result.error.code}: {result.error.message[:200]})"]
    if not result.is_error:
        return []
    error = (result.structured_content or {}).get("error")
    if not isinstance(error, dict) or error.get("kind") not in FUZZ_KINDS:
        return [f"an unexpected error: {_text(result)[:300]}"]
    text = _text(result)
    problems = [f"does not name {e['field']!r}" for e in error.get("errors", []) if e["field"] not in text]
    searched = text
    for name in sent:  # as a whole word only: a name "a" must not hide a "Traceback"
        searched = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", "", searched)
    leak = LEAKS.search(searched)
    if leak:
        shown = searched[max(0, leak.start() - 80) : leak.end() + 80]
        problems.append(f"leaks {leak.group(0)!r}: {shown}")
    return problems


def test_an_argument_name_the_caller_sent_is_no_leak_but_internals_are() -> None:
    """The fuzz sent an unknown argument named "__a__" and the answer named it back (failed in a fresh-clone
    run): the caller's own words are no internals; a dunder the caller did not send still is."""
    answer = CallToolResult(
        content=[
            TextContent(type="text", text="Invalid arguments: __a__: not an argument of memory_feedback")
        ],
        structured_content={"error": {"kind": "invalid_arguments", "errors": [{"field": "__a__"}]}},
        is_error=True,
    )
    assert read_problems(answer, {"__a__": 1}) == []
    assert read_problems(answer, {"a": 1, "_": 2}) != []  # other names hide nothing
    assert read_problems(answer) == [
        "leaks '__a__': Invalid arguments: __a__: not an argument of memory_feedback"
    ]


@RANDOM_FROM_OTHER_THREADS
@pytest.mark.parametrize("era", PROTOCOL_ERAS)
def test_random_arguments_are_answered_in_words_a_model_can_use(
    stack: LocalStack, server: BackgroundServer, era: str
) -> None:
    """Random arguments (schema-shaped, off by one, unknown fields, any JSON), any tool: every error is a
    tool result whose text names each bad field and holds no internals."""
    token = stack.mint_token(f"t-audit-fuzz-{uuid.uuid4().hex[:8]}")
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(mcp_client(server.url, token, era)) as client,
    ):

        @FUZZ
        @given(data=st.data())
        def answered(data: st.DataObject) -> None:
            tool = data.draw(st.sampled_from(sorted(SCHEMAS)), label="tool")
            arguments = data.draw(arguments_strategy(SCHEMAS[tool]), label="arguments")
            problems = read_problems(portal.call(_answer, client, tool, arguments), arguments)
            assert not problems, (tool, problems)

        answered()


_JSON_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "array": list,
               "object": dict, "null": type(None)}  # fmt: skip


def _takes(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value``'s JSON type is one ``schema`` allows (bounds aside); a boolean is no number."""
    options = schema.get("anyOf", [schema])
    for option in options:
        kind = option.get("type") or ("string" if "enum" in option else None)
        if kind is None:
            return True  # a schema without a type takes anything
        if isinstance(value, bool) and kind in ("integer", "number"):
            continue
        if isinstance(value, _JSON_TYPES[kind]):
            return True
    return False


def _sendable(value: Any) -> bool:
    """Whether the official client sends ``value`` as it is (it writes NaN and infinity as null)."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


@RANDOM_FROM_OTHER_THREADS
@pytest.mark.parametrize("era", PROTOCOL_ERAS)
def test_a_value_of_the_wrong_type_is_answered_with_what_the_field_takes(
    stack: LocalStack, server: BackgroundServer, era: str
) -> None:
    """Any tool, any argument, a random JSON value of another type than the field takes: the answer is
    an argument error naming the field with its limit (the type and bounds it takes), no internals."""
    token = stack.mint_token(f"t-audit-types-{uuid.uuid4().hex[:8]}")
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(mcp_client(server.url, token, era)) as client,
    ):

        @FUZZ
        @given(data=st.data())
        def answered(data: st.DataObject) -> None:
            tool = data.draw(st.sampled_from(sorted(SCHEMAS)), label="tool")
            schema = SCHEMAS[tool]
            field = data.draw(st.sampled_from(sorted(schema["properties"])), label="field")
            field_schema = schema["properties"][field]
            wrong = ANY_JSON.filter(lambda v: not _takes(field_schema, v) and _sendable(v))
            value = data.draw(wrong, label="value")
            result = portal.call(_answer, client, tool, {**valid_arguments(schema), field: value})
            assert isinstance(result, CallToolResult), (tool, field, result)
            assert result.is_error, (tool, field, result)
            assert not read_problems(result), (tool, field, read_problems(result))
            error = (result.structured_content or {})["error"]
            named = [e for e in error["errors"] if e["field"] == field]
            assert named, (tool, field, error)
            assert all("limit" in e for e in named), (tool, field, error)

        answered()
