"""Small defects a new user meets (trials and review, Dec 7): validators built at import time, an empty
memory_update naming no argument of the tool, a reversed time window that does not say which end is
which, and ``hindsight inspect`` taking its agent otherwise than every other command."""

from __future__ import annotations

import importlib
import pkgutil
import re
import uuid
from datetime import UTC, date, datetime
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import TypeAdapter
from pydantic_core import SchemaValidator
from typer.testing import CliRunner

import hindsight
from hindsight.api.tools_memory import BatchResult
from hindsight.cli import app
from hindsight.domain.auth import Principal
from hindsight.domain.errors import InvalidInput, Unavailable
from hindsight.domain.limits import DEFAULT_AGENT_ID
from hindsight.domain.memory import MemoryChanges, MemoryDraft, Scope, SearchRequest, StoredMemory
from hindsight.domain.planned_words import points_ahead
from hindsight.domain.relative_time import with_inferred_time
from hindsight.domain.unread_time import unread_time_note
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.recall import RecallQuery, resolve
from hindsight.usecases.remember import ItemOutcome, Remember
from hindsight.usecases.summarize import Summarize, SummaryRequest
from tests.schema_cases import tool_schemas
from tests.unit.fakes import FixedClock, ListQueue, memory

ALICE = Principal(tenant_id="acme", key_id="k1")


def test_no_module_builds_a_validator_at_import_time() -> None:
    # house rule: nothing happens at import time (a cold start pays for every module-level validator,
    # whether its request ever needs it or not)
    built = []
    for found in pkgutil.walk_packages(hindsight.__path__, "hindsight."):
        module = importlib.import_module(found.name)
        built += [
            f"{found.name}.{name}"
            for name, value in vars(module).items()
            if isinstance(value, TypeAdapter | SchemaValidator)
        ]
    assert built == []


@pytest.fixture
def update_arguments() -> set[str]:
    """memory_update's arguments, as its schema (``tools/list``) publishes them."""
    return set(tool_schemas()["memory_update"]["properties"])


@pytest.mark.anyio
async def test_an_update_with_nothing_to_change_names_the_tools_own_arguments(
    update_arguments: set[str],
) -> None:
    # it named "changes", which is no argument of memory_update (the use case's model, not the schema)
    arguments = update_arguments
    manage = ManageMemory(None, None, None, None, None, FixedClock())  # type: ignore[arg-type]
    with pytest.raises(InvalidInput) as refused:
        await manage.update(ALICE, None, uuid.uuid4(), "update", MemoryChanges(), None)
    assert refused.value.field in arguments
    named = re.findall(r"\b[a-z]+(?:_[a-z]+)*\b", str(refused.value).split("give at least one of", 1)[1])
    changes = arguments - {"id", "action", "reason", "expected_version", "agent_id", "verified"}
    assert changes <= set(named)  # every change the tool takes …
    assert "verified=true" in str(refused.value)  # … and the confirmation, as the caller writes it
    with pytest.raises(InvalidInput) as supersede:
        await manage.update(ALICE, None, uuid.uuid4(), "supersede", MemoryChanges(), None)
    assert supersede.value.field == "content"


NOW = datetime(2026, 12, 7, 12, tzinfo=UTC)


def test_a_reversed_time_range_says_its_start_is_after_its_end() -> None:
    # it said "the time window is empty: it ends at 2026-11-02…, before it starts at 2026-11-15…": an end
    # the caller never wrote, and no word of which value was which
    with pytest.raises(InvalidInput) as reversed_range:
        resolve(RecallQuery(text="q", time_range="2026-11-15..2026-11-01"), NOW)
    assert reversed_range.value.field == "time_range"
    said = str(reversed_range.value)
    assert "start (2026-11-15" in said
    assert "is after its end (2026-11-01" in said


@pytest.mark.parametrize(
    ("window", "start_field", "end_field"),
    [
        ({"since": "2026-11-25", "until": "2026-11-20"}, "since", "until"),
        ({"time_range": "last week", "until": "2026-10-01"}, "time_range's start", "until"),
        ({"time_range": "last month", "since": "2026-12-02"}, "since", "time_range's end"),
    ],
)
def test_a_window_whose_start_is_after_its_end_names_the_field_of_each(
    window: dict[str, str], start_field: str, end_field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        resolve(RecallQuery(text="q", **window), NOW)
    said = str(refused.value)
    assert "its start, " in said
    assert f"({start_field}), is after its end" in said
    assert f"({end_field}); {end_field} must be later than {start_field}" in said


def test_inspect_takes_the_agent_as_write_and_search_do(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[Scope] = []

    class _Inspect:
        async def overview(self, scope: Scope, **_: Any) -> None:
            asked.append(scope)
            raise Unavailable("stopped here: the agent is what this test reads")

    async def with_container(data_dir: Any, body: Any) -> Any:
        return await body(None)

    monkeypatch.setattr("hindsight.cli.memories.with_container", with_container)
    monkeypatch.setattr(
        "hindsight.operator_tools.operator_tools", lambda _: SimpleNamespace(inspect=_Inspect())
    )
    spellings = [
        (["--agent", "planner"], "planner"),  # as write and search take it
        (["planner"], "planner"),  # the older spelling still works
        (["planner", "--agent", "planner"], "planner"),
        ([], DEFAULT_AGENT_ID),
    ]
    for words, agent in spellings:
        asked.clear()
        shown = CliRunner().invoke(app, ["inspect", *words, "--tenant", "acme"])
        assert "stopped here" in shown.output, (words, shown.output)
        assert asked == [Scope(tenant_id="acme", agent_id=agent)], words


def test_inspect_refuses_two_different_agents() -> None:
    shown = CliRunner().invoke(app, ["inspect", "planner", "--agent", "coder"])
    assert shown.exit_code == 2, shown.output
    assert "two agents given" in shown.output


WEDNESDAY = datetime(2026, 12, 9, 12, tzinfo=UTC)


def _episode(text: str) -> tuple[date | None, str]:
    """The day an episode's words place it on, said on ``WEDNESDAY`` (None: not placed), and the write's
    ``time_not_read`` ("" when none)."""
    draft = MemoryDraft(content=text, layer="episodic")
    placed = with_inferred_time(draft, WEDNESDAY).occurred_at
    return (placed.date() if placed else None), unread_time_note(draft, WEDNESDAY) or ""


@pytest.mark.parametrize("spaces", ["  ", " \t ", "\t"])
def test_a_count_in_two_words_is_read_whatever_the_space_between(spaces: str) -> None:
    # "twenty  one days ago" was read as "one days ago": the look-behind that keeps a count's last word
    # from being read alone knew one space only
    assert _episode(f"I quit smoking twenty{spaces}one days ago") == (date(2026, 11, 18), "")
    assert _episode(f"Twenty{spaces}one weeks ago Sunday I moved")[0] == date(
        2026, 7, 12
    )  # last Sunday (12-06) less 21 weeks


@pytest.mark.parametrize(
    "text",
    [
        "I quit smoking forty  one days ago",
        "I quit smoking one hundred twenty  one days ago",
        "We moved here a hundred and  two days ago",
    ],
)
def test_the_last_word_of_a_count_not_read_is_never_read_alone(text: str) -> None:
    placed, note = _episode(text)
    assert placed is None
    assert "days ago" in note


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("I saw Dana the week before last Monday", "the week before last Monday"),
        ("The week before last Monday I saw Dana", "The week before last Monday"),
        ("I saw Dana two days before last Monday", "two days before last Monday"),
        ("I saw Dana a week after last Friday", "a week after last Friday"),
    ],
)
def test_a_time_counted_from_last_monday_is_not_last_monday(text: str, named: str) -> None:
    # "the week before last Monday" was stored on last Monday (2026-12-07)
    placed, note = _episode(text)
    assert placed is None
    assert f"'{named}'" in note, note
    assert not points_ahead(text)  # a time named and not read, not one ahead (no "planned" label)
    assert _episode("I saw Dana the week before last") == (date(2026, 11, 23), "")  # alone, still read


@pytest.mark.anyio
async def test_an_episodic_write_with_a_key_says_it_is_not_the_keys_value() -> None:
    # it was stored beside the key's fact, superseding nothing, and the answer said nothing of it
    remember = Remember(ListQueue(), FixedClock())
    event = MemoryDraft(content="Called the bank about the card", layer="episodic", key="Bank.Card")
    ack = await remember(ALICE, None, event)
    assert ack.key_note is not None
    assert "supersedes nothing on 'bank.card'" in ack.key_note
    assert "layer 'semantic'" in ack.key_note
    batch = BatchResult.of([ItemOutcome(ack=ack)])
    assert batch.results[0].key_note == ack.key_note  # memory_write_batch says it too
    fact = MemoryDraft(content="The bank card ends in 4242", key="bank.card")
    assert (await remember(ALICE, None, fact)).key_note is None
    keyless = MemoryDraft(content="Called the bank", layer="episodic")
    assert (await remember(ALICE, None, keyless)).key_note is None


class _Latest:
    """A reader whose latest memories are ``memories`` (no relations among them)."""

    def __init__(self, memories: list[StoredMemory]) -> None:
        self.memories = memories

    async def latest(self, scope: Scope, request: SearchRequest, limit: int) -> list[StoredMemory]:
        return self.memories[:limit]

    async def relations(self, scope: Scope, ids: Any) -> list[Any]:
        return []


@pytest.mark.anyio
async def test_a_summary_over_a_time_window_names_its_undated_memories() -> None:
    # undated facts (written this week, no occurred_at) filled a `since` summary as if they had happened
    # in the window, and nothing said which they were
    undated = memory("Dana is vegetarian")
    dated = memory("Dana ran the Lisbon half marathon").model_copy(
        update={"layer": "episodic", "occurred_at": WEDNESDAY}
    )
    summarize = Summarize(None, _Latest([dated, undated]), FixedClock())  # type: ignore[arg-type]
    window = await summarize(ALICE, None, SummaryRequest(since=datetime(2026, 12, 1, tzinfo=UTC)))
    at = window.ids.index(undated.id) + 1
    assert window.note is not None
    assert f"undated ([{at}])" in window.note
    assert f"[{window.ids.index(dated.id) + 1}]" not in window.note
    summarize = Summarize(None, _Latest([dated, undated]), FixedClock())  # type: ignore[arg-type]
    no_window = await summarize(ALICE, None, SummaryRequest(query=None, key=None, task_type="other"))
    assert "undated" not in (no_window.note or "")
