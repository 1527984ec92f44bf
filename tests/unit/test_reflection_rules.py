"""The reflection models' limits and the embedded rules Reflector (real components, no fakes)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hindsight.adapters.reflection.rules import (
    RulesReflector,
    merge_entities,
    pick_key_decisions,
    reflect_by_rules,
    task_type_of,
)
from hindsight.domain.reflection import (
    MAX_EPISODE_ENTITIES_BYTES,
    MAX_LESSON_CHARS,
    MAX_TASK_STEPS,
    EpisodeRecord,
    TaskReport,
    entities_size,
)

pytestmark = pytest.mark.anyio

RATE_LIMITED = TaskReport(
    task_id="task-7f3a",
    goal="Export the October invoices from the billing API for dana@example.com",
    steps=[
        "Called GET /v1/invoices?month=2026-10",
        "The API answered HTTP 429 Too Many Requests with Retry-After: 30",
        "Waited 30 s as Retry-After asked",
        "Retried the request; it returned 200 with 1 204 invoices",
        "Wrote invoices-2026-10.csv",
    ],
    outcome="success",
    entities={"customer_id": "C-88"},
)


async def test_spec_scenario_429_then_wait_and_retry_succeeds() -> None:
    record = await RulesReflector().reflect(RATE_LIMITED)
    assert record.outcome == "success"
    assert record.task_type == "create"  # "export" makes a file
    assert record.key_decisions == [
        "Waited 30 s as Retry-After asked",
        "Retried the request; it returned 200 with 1 204 invoices",
    ]
    assert "429" in record.lesson
    assert "wait 30 s" in record.lesson
    assert "retry" in record.lesson
    assert "429" in record.summary
    assert record.entities["customer_id"] == "C-88"  # the report's own
    assert record.entities["emails"] == ["dana@example.com"]  # extracted
    assert not record.failed


def test_a_failure_gives_a_lesson_on_handling_its_error() -> None:
    record = reflect_by_rules(
        TaskReport(
            task_id="t2",
            goal="Cancel order A-1042 for Maya Lin",
            steps=["Looked up order A-1042", "Called POST /orders/A-1042/cancel"],
            outcome="failure",
            error="HTTP 409 Conflict: order already shipped",
        )
    )
    assert record.task_type == "modify"
    assert record.failed
    assert record.lesson.startswith('"Cancel order A-1042 for Maya Lin" failed on HTTP 409 (conflict)')
    assert "check the current state" in record.lesson
    assert "HTTP 409 Conflict" in record.summary
    assert record.entities == {"ids": ["A-1042"], "names": ["Maya Lin"]}


DEPLOY_FAILED = TaskReport(  # trial24 M2: the stored memory said "failed after 2 steps" but not which
    task_id="deploy-1",
    goal="Deploy billing service to prod",
    steps=["ran migration at 14:00", "checkout timed out"],
    outcome="failure",
    error="timeout: migration locked invoices table for 9 minutes",
)


def test_a_failures_summary_names_the_steps_it_took_before_the_error() -> None:
    record = reflect_by_rules(DEPLOY_FAILED)
    assert record.summary == (
        "Deploy billing service to prod: failed after 2 steps: ran migration at 14:00 → checkout timed out "
        "(timeout: migration locked invoices table for 9 minutes)."
    )
    assert record.key_decisions == []  # routine steps are no decisions, whatever the outcome


def test_a_long_failure_is_told_by_its_first_steps_and_the_last_where_it_stopped() -> None:
    report = TaskReport(
        task_id="t",
        goal="Rotate the API keys",
        steps=["Listed the keys", "Created key K2", "Updated 3 of 7 services", "Service billing crashed"],
        outcome="aborted",
    )
    record = reflect_by_rules(report)
    path = "Listed the keys → Created key K2 → … → Service billing crashed"
    assert record.summary == f"Rotate the API keys: was aborted after 4 steps: {path}."
    assert record.lesson == (
        f'This approach to "Rotate the API keys" (tried: {path}) was aborted without an error message; '
        "try another approach and record the error."
    )


def test_a_step_that_only_repeats_the_error_is_not_told_as_what_was_tried() -> None:
    error = "payments API answered HTTP 429 Too Many Requests (Retry-After: 30)"
    report = TaskReport(
        task_id="t",
        goal="Pay the open invoice",
        steps=[
            "Recorded the preferences",
            "Looked up order A-1042",
            "Called the payments API",
            f"Failed: {error}",
        ],
        outcome="failure",
        error=error,
    )
    assert reflect_by_rules(report).summary == (
        "Pay the open invoice: failed after 4 steps: Recorded the preferences → Looked up order A-1042 → "
        f"Called the payments API ({error})."
    )
    short = report.model_copy(
        update={"steps": ["Ran the export", "Export hit a timeout at row 9 000"], "error": "timeout"}
    )
    assert "Ran the export → Export hit a timeout at row 9 000 (timeout)" in reflect_by_rules(short).summary


def test_an_unknown_errors_lesson_names_the_approach_to_avoid() -> None:
    report = DEPLOY_FAILED.model_copy(
        update={"steps": ["edited settings.yaml", "restarted the service"], "error": "ValueError: bad config"}
    )
    assert reflect_by_rules(report).lesson == (
        'Avoid repeating this approach to "Deploy billing service to prod" (tried: edited settings.yaml → '
        'restarted the service): it failed with "ValueError: bad config"; '
        "handle that error or try another way."
    )


def test_a_lesson_naming_long_steps_keeps_its_advice_within_the_limit() -> None:
    report = TaskReport(
        task_id="t", goal="g" * 500, steps=["s" * 900] * 5, outcome="failure", error="KeyError " + "e" * 900
    )
    lesson = reflect_by_rules(report).lesson
    assert len(lesson) <= MAX_LESSON_CHARS
    assert "(tried: sss" in lesson
    assert lesson.endswith('"; handle that error or try another way.')


@pytest.mark.parametrize(
    ("error", "advice"),
    [
        ("TimeoutError: gave up after 300 s", "longer timeout"),
        ("lock timeout: invoices table locked 9 minutes during ALTER TABLE", "hold locks briefly"),
        ("ERROR: deadlock detected", "hold locks briefly"),
        ("canceling statement due to lock timeout", "hold locks briefly"),
        ("HTTP 401 Unauthorized", "credentials"),
        ("404 Not Found: /users/42", "exists"),
        ("503 Service Unavailable", "backoff"),
        ("ConnectionRefusedError: connection refused", "HTTP"),  # error text names no status …
        ("KeyError: 'price'", 'with "KeyError'),  # … an unknown error is quoted
    ],
)
def test_failure_lessons_by_error_kind(error: str, advice: str) -> None:
    report = TaskReport(task_id="t", goal="Summarize the incident", outcome="aborted", error=error)
    record = reflect_by_rules(report)
    assert record.outcome == "aborted"
    if advice == "HTTP":
        assert "HTTP" not in record.lesson
        assert "network" in record.lesson
    else:
        assert advice in record.lesson


def test_failure_without_error_text_still_has_one_lesson() -> None:
    record = reflect_by_rules(TaskReport(task_id="t", goal="Book a table", outcome="failure"))
    assert "without an error message" in record.lesson
    assert record.key_decisions == []


def test_partial_and_plain_success_lessons() -> None:
    partial = reflect_by_rules(
        TaskReport(task_id="t", goal="Migrate 3 tables", outcome="partial", error="table events skipped")
    )
    assert "only partly done (table events skipped)" in partial.lesson
    plain = reflect_by_rules(
        TaskReport(
            task_id="t",
            goal="Find the cheapest flight to Lisbon",
            steps=["Searched", "Compared"],
            outcome="success",
        )
    )
    assert plain.task_type == "query"
    assert (
        plain.lesson == 'This approach worked for "Find the cheapest flight to Lisbon": Searched → Compared.'
    )


def test_success_after_switching_approach_names_the_switch() -> None:
    record = reflect_by_rules(
        TaskReport(
            task_id="t",
            goal="Get the exchange rate for EUR/USD",
            steps=["Rates API failed with 503", "Switched to the ECB daily feed instead", "Read 1.0842"],
            outcome="success",
        )
    )
    assert record.key_decisions == ["Switched to the ECB daily feed instead"]
    assert record.lesson.startswith("On HTTP 503 (server error), switching worked")


@pytest.mark.parametrize(
    ("goal", "task_type"),
    [
        ("Find the order placed by Maya last week", "query"),
        ("What is the status of ticket #4411?", "query"),
        ("Cancel order A-1042", "modify"),
        ("Update the shipping address", "modify"),
        ("Write a welcome e-mail for new users", "create"),
        ("Set up a nightly backup", "create"),  # "set up" beats "set" at the same position
        ("Compare the Q3 and Q4 churn", "analyze"),
        ("Investigate why the build is slow and fix it", "analyze"),  # earliest keyword wins
        ("Say hi to the team", "other"),
    ],
)
def test_task_type_from_the_goal_keywords(goal: str, task_type: str) -> None:
    assert task_type_of(goal) == task_type


def test_at_most_three_key_decisions_in_step_order_highest_scores_first() -> None:
    steps = [
        "Read the config",  # routine: never picked
        "Chose the EU region",  # decision: 2
        "Waited 10 s and retried",  # wait + retry: 3.5
        "Skipped the optional step",  # decision: 2
        "Fell back to the cached copy",  # switch: 3
        "Retried once more",  # retry: 3
    ]
    assert pick_key_decisions(steps) == [2, 4, 5]
    assert pick_key_decisions(["Read the config", "Wrote the file"]) == []


def test_long_steps_are_clipped_to_the_decision_limit() -> None:
    long_step = "Retried " + "x" * 500
    record = reflect_by_rules(TaskReport(task_id="t", goal="Sync", steps=[long_step], outcome="success"))
    (decision,) = record.key_decisions
    assert len(decision) == 200
    assert decision.endswith("…")


def test_merge_keeps_reported_entities_and_trims_extracted_ones_to_budget() -> None:
    found = {
        "names": [f"Name Number{i}" for i in range(10)],
        "ids": ["A-1"],
        "urls": ["https://x.io/" + "a" * 250],
    }
    reported = {"order_id": "A-1042", "ids": "kept as reported", "big": "y" * 1700}
    merged = merge_entities(found, reported)
    assert merged["order_id"] == "A-1042"
    assert merged["ids"] == "kept as reported"
    assert merged["big"] == "y" * 1700
    assert entities_size(merged) <= MAX_EPISODE_ENTITIES_BYTES
    assert "names" not in merged or len(merged["names"]) < 10  # names go first …
    assert "urls" not in merged or "names" not in merged  # … entirely, before any url


def test_rules_output_always_validates_even_at_the_limits() -> None:
    report = TaskReport(
        task_id="t" * 128,
        goal="Retry " + "g" * 1990,
        steps=[
            f"Waited 1 s and retried A-{i} https://example.com/{i} {'é' * 900}" for i in range(MAX_TASK_STEPS)
        ],
        outcome="failure",
        error="E" * 4000,
    )
    record = reflect_by_rules(report)
    assert len(record.key_decisions) == 3
    assert entities_size(record.entities) <= MAX_EPISODE_ENTITIES_BYTES


# --- the models' limits ----------------------------------------------------------------------------------


def _record(**changes: object) -> dict[str, object]:
    return {
        "task_type": "query",
        "outcome": "success",
        "summary": "s",
        "key_decisions": [],
        "lesson": "l",
        "entities": {},
        **changes,
    }


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"key_decisions": ["a", "b", "c", "d"]}, "key_decisions"),
        ({"key_decisions": ["x" * 201]}, "key_decisions.0"),
        ({"lesson": "   "}, "lesson"),
        ({"lesson": "l" * 401}, "lesson"),
        ({"summary": "bad\x00text"}, "summary"),
        ({"task_type": "chat"}, "task_type"),
        ({"outcome": "timeout"}, "outcome"),
        ({"entities": {"blob": "z" * 3000}}, "entities"),
        ({"entities": {"nested": {"a": 1}}}, "entities.nested"),
        ({"confidence": 0.9}, "confidence"),
    ],
)
def test_episode_record_refuses_out_of_bounds_fields(changes: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        EpisodeRecord.model_validate(_record(**changes))
    locs = {".".join(str(p) for p in err["loc"]) for err in info.value.errors()}
    assert any(loc.startswith(field) for loc in locs), locs


def test_every_episode_field_is_required() -> None:
    with pytest.raises(ValidationError) as info:
        EpisodeRecord.model_validate({})
    assert {err["loc"][0] for err in info.value.errors()} == {
        "task_type",
        "outcome",
        "summary",
        "key_decisions",
        "lesson",
        "entities",
    }


@pytest.mark.parametrize(
    "changes",
    [
        {"steps": ["s"] * (MAX_TASK_STEPS + 1)},
        {"steps": ["x" * 1001]},
        {"goal": ""},
        {"task_id": "has space"},
        {"error": "e" * 4001},
        {"outcome": "timeout"},
        {"entities": {"1bad": "name"}},
        {"surprise": True},
    ],
)
def test_task_report_refuses_out_of_bounds_fields(changes: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        TaskReport.model_validate({"task_id": "t", "goal": "g", "outcome": "failure", **changes})


def test_task_report_timestamps_are_utc() -> None:
    report = TaskReport.model_validate(
        {"task_id": "t", "goal": "g", "outcome": "success", "occurred_at": "2026-11-30T12:00:00+01:00"}
    )
    assert report.occurred_at is not None
    assert report.occurred_at.isoformat() == "2026-11-30T11:00:00+00:00"


@pytest.mark.parametrize(
    ("wait_step", "said"),
    [
        ("Waited 2 minutes", "wait 2 min"),
        ("Backed off for 1500 ms", "wait 1500 ms"),
        ("Slept 30s", "wait 30 s"),
        ("Paused for an hour", "wait and retry"),
    ],
)
def test_the_recovery_lesson_names_the_wait_in_its_units(wait_step: str, said: str) -> None:
    report = TaskReport(
        task_id="t",
        goal="Sync the calendar",
        steps=["Got 503 Service Unavailable after a 429 earlier", wait_step, "Retried the sync"],
        outcome="success",
    )
    lesson = reflect_by_rules(report).lesson
    assert said in lesson
    assert lesson.startswith("On HTTP 429 (rate limit)")  # the status that goes with the kind found
