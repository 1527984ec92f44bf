"""The Reflect and ShouldRemember use cases (the rules Reflector is real; the judge is a scripted port)."""

from __future__ import annotations

import json

import pytest

from hindsight.adapters.reflection import make_reflector, make_write_judge
from hindsight.adapters.reflection.rules import RulesReflector
from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError, JudgeFailed
from hindsight.domain.limits import MAX_METADATA_BYTES
from hindsight.domain.reflection import (
    MAX_DECISION_CHARS,
    MAX_EPISODE_ENTITIES_BYTES,
    MAX_LESSON_CHARS,
    MAX_SUMMARY_CHARS,
    EpisodeRecord,
    TaskReport,
    entities_size,
)
from hindsight.usecases.reflect import OUTCOME_IMPORTANCE, Reflect, ShouldRemember, episode_draft

pytestmark = pytest.mark.anyio


async def test_reflect_turns_a_report_into_an_episodic_draft() -> None:
    report = TaskReport(
        task_id="task-1",
        goal="Export the October invoices",
        steps=["Got HTTP 429", "Waited 30 s", "Retried the export", "Saved invoices.csv"],
        outcome="success",
        entities={"customer_id": "C-88"},
        occurred_at="2026-11-30T10:00:00Z",  # type: ignore[arg-type]
    )
    reflection = await Reflect(RulesReflector())(report)
    draft = reflection.draft
    assert draft.layer == "episodic"
    assert draft.key == "task:create"
    assert draft.query == "Before a task like: Export the October invoices"
    assert draft.importance == OUTCOME_IMPORTANCE["success"]
    assert draft.occurred_at == report.occurred_at
    assert draft.content == (
        "Export the October invoices: succeeded after 4 steps, recovering from HTTP 429 (rate limit) by "
        "waiting and retrying. Outcome: success. Key decisions: Waited 30 s; Retried the export. "
        'Lesson: On HTTP 429 (rate limit), wait 30 s and retry: that recovered "Export the October invoices".'
    )
    assert draft.metadata == {
        "task_id": "task-1",
        "task_type": "create",
        "outcome": "success",
        "key_decisions": ["Waited 30 s", "Retried the export"],
        "lesson": reflection.record.lesson,
        "entities": {"customer_id": "C-88"},
        "failed": False,
    }
    # The memory model's own episodic fields carry the same record.
    assert (draft.task_id, draft.task_type, draft.outcome) == ("task-1", "create", "success")
    assert draft.key_decisions == ["Waited 30 s", "Retried the export"]
    assert draft.lessons == reflection.record.lesson
    assert draft.entities == {"customer_id": "C-88"}
    assert draft.source == "agent_inferred"
    assert draft.tags == ["task", "task:create", "outcome:success"]


async def test_failures_are_flagged_and_rank_above_successes() -> None:
    failed = await Reflect(RulesReflector())(
        TaskReport(
            task_id="t", goal="Cancel order A-1042", outcome="failure", error="HTTP 409: already shipped"
        )
    )
    assert failed.draft.metadata["failed"] is True
    assert failed.draft.importance == 0.9
    assert "Outcome: failure (this approach failed)." in failed.draft.content
    assert "Key decisions" not in failed.draft.content  # none were made
    assert (
        OUTCOME_IMPORTANCE["failure"]
        > OUTCOME_IMPORTANCE["aborted"]
        > OUTCOME_IMPORTANCE["partial"]
        > OUTCOME_IMPORTANCE["success"]
    )
    aborted = await Reflect(RulesReflector())(TaskReport(task_id="t", goal="Sync", outcome="aborted"))
    assert aborted.draft.metadata["failed"] is True


def test_the_largest_possible_record_still_fits_the_metadata_limit() -> None:
    wide = "😀"  # four bytes in UTF-8
    entities: dict[str, object] = {}
    for i in range(40):
        candidate = {**entities, f"k{i}": wide * 40}
        if entities_size(candidate) > MAX_EPISODE_ENTITIES_BYTES:
            break
        entities = candidate
    record = EpisodeRecord(
        task_type="analyze",
        outcome="failure",
        summary=wide * MAX_SUMMARY_CHARS,
        key_decisions=[wide * MAX_DECISION_CHARS] * 3,
        lesson=wide * MAX_LESSON_CHARS,
        entities=entities,  # type: ignore[arg-type]
    )
    report = TaskReport(task_id="t" * 128, goal=wide * 2000, outcome="failure")
    draft = episode_draft(report, record)
    assert len(json.dumps(draft.metadata, ensure_ascii=False).encode()) <= MAX_METADATA_BYTES
    assert draft.query is not None
    assert len(draft.query) == 1000


class ScriptedJudge:
    def __init__(self, answer: bool | None) -> None:
        self.answer = answer
        self.asked: list[str] = []

    async def judge(self, text: str) -> bool:
        self.asked.append(text)
        if self.answer is None:
            raise JudgeFailed("model down")
        return self.answer


async def test_rules_decide_without_the_judge_when_they_are_sure() -> None:
    judge = ScriptedJudge(answer=False)
    should = ShouldRemember(judge)
    yes = await should("From now on, answer in French", role="user")
    no = await should("thanks!", role="user")
    assert (yes.remember, yes.decided_by) == (True, "rules")
    assert (no.remember, no.decided_by) == (False, "rules")
    assert judge.asked == []


async def test_the_judge_is_asked_only_when_the_rules_are_unsure() -> None:
    judge = ScriptedJudge(answer=False)
    verdict = await ShouldRemember(judge)("My daughter starts school in September")
    assert verdict.rules.remember is None
    assert (verdict.remember, verdict.decided_by) == (False, "judge")
    assert judge.asked == ["My daughter starts school in September"]


async def test_unsure_without_a_working_judge_takes_the_default() -> None:
    text = "My daughter starts school in September"
    failing = await ShouldRemember(ScriptedJudge(answer=None))(text)
    assert (failing.remember, failing.decided_by) == (True, "default")
    none = await ShouldRemember(None, when_unsure=False)(text)
    assert (none.remember, none.decided_by) == (False, "default")


def test_factories_build_the_configured_providers() -> None:
    from hindsight.adapters.reflection.openai_chat import OpenAIChatReflector, OpenAIChatWriteJudge

    rules = Settings.load(reflection_provider="rules")
    assert isinstance(make_reflector(rules), RulesReflector)
    assert make_write_judge(rules) is None
    chat = Settings.load(
        reflection_provider="openai",
        chat_model="m",
        chat_base_url="http://127.0.0.1:9/v1",
        chat_temperature=0.1,
    )
    assert isinstance(make_reflector(chat), OpenAIChatReflector)
    assert isinstance(make_write_judge(chat), OpenAIChatWriteJudge)


def test_chat_settings_are_validated_at_load() -> None:
    with pytest.raises(ConfigurationError, match="HINDSIGHT_CHAT_TEMPERATURE"):
        Settings.load(chat_temperature=0.5)
    with pytest.raises(ConfigurationError, match="HINDSIGHT_CHAT_MODEL"):
        Settings.load(reflection_provider="openai", chat_base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ConfigurationError, match="HINDSIGHT_CHAT_API_KEY"):
        Settings.load(reflection_provider="openai", chat_model="m", openai_api_key=None)
