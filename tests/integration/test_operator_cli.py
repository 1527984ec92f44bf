"""The operator CLI against the embedded stack: write (through the queue) and search with scores,
inspect, export → import → search gives the same results, ingest of JSON Lines and LoCoMo files."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from typer.testing import CliRunner

from hindsight.bootstrap import build_container
from hindsight.cli import app
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.poller import SqsPoller
from hindsight.local.ports import free_port
from hindsight.local.stack import LocalStack
from hindsight.usecases.archive import remap
from tests.support import count_memories, draining_in_background

pytestmark = pytest.mark.integration
runner = CliRunner()


@pytest.fixture
def cli(stack: LocalStack, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Any:
    """Run the CLI with the stack's settings in the environment (and an empty data folder, so no
    ``hindsight.env`` of a developer's own stack is read)."""
    settings = stack.require_settings()
    env = {
        "HINDSIGHT_DATABASE_URL": settings.require_database_url(),
        "HINDSIGHT_REDIS_URL": settings.redis_url,
        "HINDSIGHT_WRITE_QUEUE_URL": settings.require_write_queue_url(),
        "HINDSIGHT_REFLECT_QUEUE_URL": settings.reflect_queue_url or "",
        "HINDSIGHT_AWS_ENDPOINT_URL": settings.aws_endpoint_url or "",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("COLUMNS", "200")

    def invoke(*args: str, input: str | None = None) -> Any:
        return runner.invoke(app, [*args, "--data-dir", str(tmp_path / "none")], input=input)

    return invoke


def _store(stack: LocalStack, tenant: str, drafts: list[tuple[str, MemoryDraft]]) -> list[uuid.UUID]:
    """Store drafts directly (the worker's path), in order, each a second apart; returns their ids."""

    async def go() -> list[uuid.UUID]:
        container = await build_container(stack.require_settings(), with_queue=False)
        try:
            start = datetime.now(UTC) - timedelta(hours=1)
            jobs = [
                WriteJob(
                    id=uuid.uuid4(),
                    tenant_id=tenant,
                    agent_id=agent,
                    submitted_at=start + timedelta(seconds=i),
                    draft=draft,
                )
                for i, (agent, draft) in enumerate(drafts)
            ]
            ids = []
            for job in jobs:  # one by one: a later job may name an earlier one as its causal parent
                (result,) = await container.store_memories([job])
                assert result.outcome == "stored", result
                ids.append(job.id)
            return ids
        finally:
            await container.aclose()

    return asyncio.run(go())


def test_write_waits_for_the_worker_and_search_shows_every_score(
    cli: Any, tenant: str, poller: SqsPoller
) -> None:
    with draining_in_background(poller):
        written = cli(
            "write",
            "Alex is allergic to peanuts",
            "--tenant",
            tenant,
            "--key",
            "alex.allergies",
            "--entity",
            "person=Alex",
            "--importance",
            "0.9",
            "--json",
        )
    assert written.exit_code == 0, written.output
    ack = json.loads(written.stdout)
    assert ack["status"] == "stored"

    found = cli("search", "what can't Alex eat?", "--tenant", tenant, "--json")
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)
    assert hits[0]["id"] == ack["id"]
    assert set(hits[0]["scores"]) >= {
        "vector",
        "keyword",
        "entity",
        "rrf",
        "relevance",
        "time",
        "frequency",
        "importance",
        "final",
    }

    table = cli("search", "what can't Alex eat?", "--tenant", tenant)
    assert table.exit_code == 0
    for column in ("vector", "keyword", "entity", "rrf", "relev", "final"):
        assert column in table.stdout
    assert "Alex is allergic to peanuts" in table.stdout
    with pytest.MonkeyPatch.context() as narrow:  # 80 columns: the content stays readable, wrapped
        narrow.setenv("COLUMNS", "80")
        table = cli("search", "what can't Alex eat?", "--tenant", tenant)
    assert table.exit_code == 0
    assert "Alex is allergic to peanuts" in " ".join(table.stdout.split()), table.stdout
    assert "keyword" not in table.stdout
    assert "every score with --json or COLUMNS>=130" in " ".join(table.stdout.split())

    # point in time: before it was written the store held nothing; a number is not a time
    before = cli("search", "what can't Alex eat?", "--tenant", tenant, "--json", "--known-at", "2000-01-01")
    assert before.exit_code == 0, before.output
    assert ack["id"] not in [h["id"] for h in json.loads(before.stdout)]
    held = cli("search", "what can't Alex eat?", "--tenant", tenant, "--json", "--valid-at", "2100-01")
    assert held.exit_code == 0, held.output
    assert ack["id"] in [h["id"] for h in json.loads(held.stdout)]
    refused = cli("search", "peanuts", "--tenant", tenant, "--valid-at", "1700000000")
    assert refused.exit_code == 1
    assert "--valid-at" in refused.output

    # the operator's search is not a recall: access counts stay at 0
    inspected = cli("inspect", "default", "--tenant", tenant, "--json")
    assert inspected.exit_code == 0, inspected.output
    view = json.loads(inspected.stdout)
    assert view["counts"] == {"semantic": {"active": 1}}
    assert view["recent_writes"][0]["outcome"] == "stored"
    queues = {q["name"]: q for q in view["queues"]}
    assert queues["writes"]["dlq"] == "hindsight-writes-dlq"
    assert queues["writes"]["dlq_visible"] == 0
    assert queues["writes"]["max_receive_count"] == 5


def test_write_without_a_worker_says_it_is_still_queued(cli: Any, tenant: str, poller: SqsPoller) -> None:
    result = cli("write", "a note nobody stores yet", "--tenant", tenant, "--timeout-s", "0.5")
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "still queued" in output
    assert "waiting and none in progress: is a worker running?" in output, output
    poller.drain(timeout_s=30)


def test_write_that_waits_behind_a_busy_worker_says_so(
    cli: Any, stack: LocalStack, tenant: str, poller: SqsPoller
) -> None:
    """Trial F5: ``write`` gave up after 30 s with "is a worker running?" while the worker was alive and
    busy with a long write. A job in progress (received, not yet deleted: here taken by the test, as a
    worker holds the one it embeds) makes it say that a worker is busy, with the queue's depth."""
    assert stack.queues is not None
    sqs = stack.sqs_client()
    poller.drain(timeout_s=30)
    cli("write", "the long write a worker is embedding", "--tenant", tenant, "--no-wait")
    held = sqs.receive_message(QueueUrl=stack.queues.writes, MaxNumberOfMessages=1, VisibilityTimeout=120)
    try:
        assert len(held.get("Messages", [])) == 1
        result = cli("write", "a note behind it", "--tenant", tenant, "--timeout-s", "0.5")
    finally:
        for message in held.get("Messages", []):
            sqs.change_message_visibility(
                QueueUrl=stack.queues.writes, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
        poller.drain(timeout_s=30)
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "still queued after 0.5 s: a worker is busy: 1 job(s) in progress, 1 waiting" in output, output
    assert "is a worker running" not in output


def test_write_says_what_redaction_replaced(cli: Any, tenant: str, poller: SqsPoller) -> None:
    args = ("write", "Reach Dana at dana@example.com", "--tenant", tenant, "--no-wait")
    ack = json.loads(cli(*args, "--json").stdout)
    assert ack["redacted"] == ["email"]
    told = cli(*args)
    assert told.exit_code == 0, told.output
    assert "redacted before storing: email" in told.output
    plain = json.loads(cli("write", "Dana likes tea", "--tenant", tenant, "--no-wait", "--json").stdout)
    assert "redacted" not in plain
    poller.drain(timeout_s=30)


def test_write_says_a_time_its_words_name_that_was_not_read(cli: Any, tenant: str, poller: SqsPoller) -> None:
    """trial21 M9: the CLI said only "<id> stored" for words naming a time the rules did not read, so the
    operator never learnt that the memory was placed at the write time (memory_write says so)."""
    args = ("write", "Last May we adopted a beagle", "--tenant", tenant, "--layer", "episodic", "--no-wait")
    ack = json.loads(cli(*args, "--json").stdout)
    assert "'Last May'" in ack["time_not_read"], ack
    told = cli(*args)
    assert told.exit_code == 0, told.output
    assert "time not read: the words name a time that was not read ('Last May')" in " ".join(
        told.output.split()
    )
    keyed = json.loads(
        cli(
            "write", "I live in Lisbon", "--key", "User.Home", "--tenant", tenant, "--no-wait", "--json"
        ).stdout
    )
    assert keyed["key"] == "user.home"
    assert "time_not_read" not in keyed
    poller.drain(timeout_s=30)


def test_write_refuses_bad_input_naming_the_field(cli: Any, tenant: str) -> None:
    result = cli("write", "x", "--tenant", tenant, "--layer", "nonsense")
    assert result.exit_code == 1
    assert "layer" in result.output


def _round_trip_data(stack: LocalStack, tenant: str) -> list[uuid.UUID]:
    when = datetime(2026, 11, 20, 9, tzinfo=UTC)
    ids = _store(
        stack,
        tenant,
        [
            ("default", MemoryDraft(content="The user prefers dark mode", key="ui.theme", importance=0.6)),
            (
                "default",
                MemoryDraft(
                    content="Alex is allergic to peanuts",
                    key="alex.allergies",
                    importance=0.9,
                    entities={"person": "Alex"},
                    tags=["health"],
                ),
            ),
            (
                "default",
                MemoryDraft(
                    content="Payments API returned HTTP 429 for order A-1042",
                    layer="episodic",
                    outcome="failure",
                    occurred_at=when,
                    entities={"order_id": "A-1042"},
                ),
            ),
            (
                "default",
                MemoryDraft(content="The user now prefers light mode", key="ui.theme", importance=0.6),
            ),
            (
                "default",
                MemoryDraft(
                    content="Deploys are frozen on Fridays " + "and that rule matters. " * 60,
                    key="policy.freeze",
                    query="can we deploy today?",
                ),
            ),
            ("planner", MemoryDraft(content="The planner agent keeps its own notes", importance=0.4)),
        ],
    )
    # an effect of the 429, linked by causal_parent
    ids += _store(
        stack,
        tenant,
        [
            (
                "default",
                MemoryDraft(
                    content="Waited 30 s, retried the charge: it succeeded",
                    layer="episodic",
                    causal_parent=ids[2],
                    occurred_at=when + timedelta(seconds=40),
                ),
            )
        ],
    )
    return ids


QUERIES = [
    "what theme does the user like?",
    "what can't Alex eat?",
    "rate limit on payments",
    "deploy on Friday",
]


def _searches(stack: LocalStack, tenants: list[str]) -> dict[tuple[str, str, tuple[str, ...]], list[Any]]:
    """Every query of QUERIES in each tenant, with default and widened statuses (one container)."""
    from hindsight.domain.memory import Scope
    from hindsight.usecases.recall import RecallQuery, resolve

    async def go() -> dict[tuple[str, str, tuple[str, ...]], list[Any]]:
        container = await build_container(stack.require_settings(), with_queue=False)
        now = datetime.now(UTC)
        out = {}
        try:
            for tenant in tenants:
                for query in QUERIES:
                    for statuses in (("active",), ("active", "superseded")):
                        request = resolve(RecallQuery(text=query, statuses=statuses), now)  # type: ignore[arg-type]
                        out[(tenant, query, statuses)] = await container.recall.search(
                            Scope(tenant_id=tenant), request, record_access=False
                        )
        finally:
            await container.aclose()
        return out

    return asyncio.run(go())


def _search(cli: Any, tenant: str, query: str, *statuses: str) -> list[dict[str, Any]]:
    extra = [arg for s in statuses for arg in ("--status", s)]
    result = cli("search", query, "--tenant", tenant, "--json", *extra)
    assert result.exit_code == 0, result.output
    hits: list[dict[str, Any]] = json.loads(result.stdout)
    return hits


@pytest.mark.parametrize("with_embeddings", [False, True], ids=["re-embedded", "vectors-included"])
def test_export_import_round_trip_gives_the_same_search_results(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path, with_embeddings: bool
) -> None:
    _round_trip_data(stack, tenant)
    dump = tmp_path / "export.jsonl"
    args = ["export", "--tenant", tenant, "-o", str(dump)] + (["--embeddings"] if with_embeddings else [])
    exported = cli(*args)
    assert exported.exit_code == 0, exported.output
    lines = [json.loads(line) for line in dump.read_text().splitlines()]
    assert lines[0]["kind"] == "header"
    assert lines[-1]["kind"] == "footer"
    kinds = {line["kind"] for line in lines}
    assert {"memory", "chunk", "relation", "history", "write_result"} <= kinds
    assert all(("embedding" in line) == with_embeddings for line in lines if line["kind"] == "memory")

    copy = f"{tenant}-copy"
    imported = cli("import", str(dump), "--tenant", copy, "--remap-ids", "--json")
    assert imported.exit_code == 0, imported.output
    report = json.loads(imported.stdout)
    assert report["inserted"]["memory"] == 7
    assert report["causal_links"] == 1
    assert report["reembedded"] == (0 if with_embeddings else 7)
    assert report["complete"] is True

    results = _searches(stack, [tenant, copy])
    for (who, query, statuses), original in results.items():
        if who != tenant:
            continue
        copied = results[(copy, query, statuses)]
        assert original, query
        assert [remap(str(h.memory.id), copy) for h in original] == [str(h.memory.id) for h in copied], query
        assert [h.memory.content for h in original] == [h.memory.content for h in copied]
        assert [h.flags for h in original] == [h.flags for h in copied]
        for a, b in zip(original, copied, strict=True):
            for name, value in a.scores.model_dump().items():
                assert getattr(b.scores, name) == pytest.approx(value, abs=1e-6), (query, name)
            own_ids = {"id", "tenant_id", "causal_parent", "superseded_by"}  # ids: remapped in the copy
            assert a.memory.model_dump(exclude=own_ids) == b.memory.model_dump(exclude=own_ids)
            successor = a.memory.superseded_by and remap(str(a.memory.superseded_by), copy)
            assert successor == (b.memory.superseded_by and str(b.memory.superseded_by)), query

    # Importing again adds nothing; importing without --remap-ids where the ids exist is refused.
    again = cli("import", str(dump), "--tenant", copy, "--remap-ids", "--json")
    assert json.loads(again.stdout)["inserted"] == {}
    clash = cli("import", str(dump), "--tenant", f"{tenant}-other")
    assert clash.exit_code == 1
    assert "--remap-ids" in clash.output


def test_a_truncated_export_is_reported(cli: Any, stack: LocalStack, tenant: str, tmp_path: Path) -> None:
    _store(stack, tenant, [("default", MemoryDraft(content="only one memory"))])
    dump = tmp_path / "export.jsonl"
    assert cli("export", "--tenant", tenant, "-o", str(dump)).exit_code == 0
    dump.write_text("\n".join(dump.read_text().splitlines()[:-1]) + "\n")  # drop the footer
    result = cli("import", str(dump), "--tenant", f"{tenant}-t", "--remap-ids")
    assert result.exit_code == 1
    assert "truncated" in result.output


_TABLES = {
    "memory": "memories",
    "chunk": "memory_chunks",
    "relation": "memory_relations",
    "history": "memory_history",
    "write_result": "write_results",
}
_LATER = "2026-03-02T00:00:00+00:00"
_EARLIER = "2026-03-01T00:00:00+00:00"
REFUSED_VALUES: list[tuple[str, str, dict[str, Any], str, str]] = [
    # (the schema's CHECK constraint, record kind, the edit, the field named, the limit in words)
    ("memories_layer_check", "memory", {"layer": "nonsense"}, "layer", "one of episodic, semantic"),
    ("memories_importance_check", "memory", {"importance": 7}, "importance", "from 0 to 1"),
    ("memories_status_check", "memory", {"status": "gone"}, "status", "one of active, superseded"),
    ("memories_source_check", "memory", {"source": "rumour"}, "source", "one of user_stated, agent_inferred"),
    ("memories_task_type_check", "memory", {"task_type": "dance"}, "task_type", "one of query, modify"),
    ("memories_outcome_check", "memory", {"outcome": "meh"}, "outcome", "one of success, partial"),
    ("memories_key_decisions_check", "memory", {"key_decisions": list("abcd")}, "key_decisions", "at most 3"),
    ("memories_turn_index_check", "memory", {"turn_index": -1}, "turn_index", "at least 0"),
    ("memories_session_index_check", "memory", {"session_index": -1}, "session_index", "at least 0"),
    ("memories_version_check", "memory", {"version": 0}, "version", "at least 1"),
    (
        "memories_occurred_precision_check",
        "memory",
        {"occurred_precision": "era"},
        "occurred_precision",
        "one of year",
    ),
    (
        "memories_occurred_span",
        "memory",
        {"occurred_at": _LATER, "occurred_end": _EARLIER},
        "occurred_end",
        "after occurred_at",
    ),
    (
        "memories_valid_period",
        "memory",
        {"valid_from": _LATER, "valid_to": _EARLIER},
        "valid_to",
        "on or after valid_from",
    ),
    ("memory_access_access_count_check", "memory", {"access_count": -1}, "access_count", "at least 0"),
    ("memory_chunks_chunk_no_check", "chunk", {"chunk_no": 0}, "chunk_no", "at least 1"),
    ("memory_relations_kind_check", "relation", {"kind": "likes"}, "kind", "one of supersedes, contradicts"),
    ("memory_relations_strength_check", "relation", {"strength": 2}, "strength", "from 0 to 1"),
    ("memory_relations_check", "relation", {"to_id": "<from_id>"}, "to_id", "differ from from_id"),
    ("memory_history_action_check", "history", {"action": "teleported"}, "action", "one of created, merged"),
    ("write_results_outcome_check", "write_result", {"outcome": "lost"}, "outcome", "one of stored, merged"),
]
"""Every CHECK constraint of a table an import writes, and a value breaking it."""


_EXPORTED: list[str] = []
"""One export (with vectors, so importing it embeds nothing) of a tenant holding every record kind,
made by the first test that needs it: the edits below each change a copy of it."""


def _edited_export(
    cli: Any, stack: LocalStack, tenant: str, dump: Path, kind: str, edit: dict[str, Any]
) -> int:
    """Write to ``dump`` an export of a tenant holding every record kind, with ``edit`` applied to the
    second record of ``kind`` (the first when there is one); the line (1-based) edited."""
    if not _EXPORTED:
        _round_trip_data(stack, tenant)
        assert cli("export", "--tenant", tenant, "--embeddings", "-o", str(dump)).exit_code == 0
        _EXPORTED.append(dump.read_text())
    lines = [json.loads(line) for line in _EXPORTED[0].splitlines()]
    of_kind = [n for n, r in enumerate(lines) if r["kind"] == kind]
    index = of_kind[1] if len(of_kind) > 1 else of_kind[0]
    row = lines[index]["row"]
    row.update({k: row["from_id"] if v == "<from_id>" else v for k, v in edit.items()})
    dump.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return index + 1


def _rows(stack: LocalStack, table: str, tenant: str) -> int:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(f"SELECT count(*) FROM {table} WHERE tenant_id = %s", (tenant,)).fetchone()
    return int(row[0]) if row else 0


def test_every_check_constraint_of_an_imported_table_has_a_case(stack: LocalStack) -> None:
    """The import's value rules (domain.export_records) are kept equal to the live schema's: a new CHECK
    constraint on a table the import writes needs a case in REFUSED_VALUES (and a rule)."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        names = {
            str(r[0])
            for r in conn.execute(
                """SELECT c.conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
                   WHERE c.contype = 'c' AND t.relname = ANY(%s)""",
                ([*_TABLES.values(), "memory_access", "pending_causal_links"],),
            ).fetchall()
        }
    assert names == {case[0] for case in REFUSED_VALUES}


@pytest.mark.parametrize(
    ("constraint", "kind", "edit", "field", "limit"), REFUSED_VALUES, ids=[c[0] for c in REFUSED_VALUES]
)
def test_an_export_line_with_a_value_the_schema_refuses_names_the_line_field_and_limit(
    cli: Any,
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
    constraint: str,
    kind: str,
    edit: dict[str, Any],
    field: str,
    limit: str,
) -> None:
    """Trial L1: an edited export's bad value was a raw Postgres message ("violates check constraint
    memories_importance_check"). Now the error names the line, the record, the field and the limit; the
    records before the line are imported, nothing of it or after it (as a file cut off there)."""
    dump = tmp_path / "export.jsonl"
    line = _edited_export(cli, stack, tenant, dump, kind, edit)
    lines = [json.loads(text) for text in dump.read_text().splitlines()]
    target = f"{tenant}-{kind}"
    result = cli("import", str(dump), "--tenant", target, "--remap-ids")
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "Traceback" not in output
    assert "check constraint" not in output, output
    assert f"line {line}: {kind} " in output, output
    assert f": {field}: must " in output, output
    assert limit in output, output
    assert "the records before it were" in output, output
    # the records before the line are in, nothing of it or after it
    for name, table in _TABLES.items():
        before = sum(1 for r in lines[: line - 1] if r["kind"] == name)
        assert _rows(stack, table, target) == before, (name, output)


def test_a_refused_line_stops_the_import_there_and_the_fixed_file_adds_the_rest(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    dump = tmp_path / "export.jsonl"
    line = _edited_export(cli, stack, tenant, dump, "memory", {"importance": 7})
    memories = sum(1 for text in dump.read_text().splitlines() if json.loads(text)["kind"] == "memory")
    target = f"{tenant}-fixed"
    assert cli("import", str(dump), "--tenant", target, "--remap-ids").exit_code == 1
    assert count_memories(stack, target) == line - 2  # the memories on the lines after the header
    fixed = dump.read_text().replace('"importance": 7,', '"importance": 0.7,')
    dump.write_text(fixed)
    again = cli("import", str(dump), "--tenant", target, "--remap-ids", "--json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert (report["complete"], report["skipped"]) == (True, line - 2)
    assert count_memories(stack, target) == memories


def test_a_value_only_the_database_refuses_names_the_line_and_keeps_the_records_before_it(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    """A NULL in a NOT NULL column is the database's to refuse (no value rule knows it): the error names
    the line and the column, and the records of its batch before it are imported all the same."""
    dump = tmp_path / "export.jsonl"
    line = _edited_export(cli, stack, tenant, dump, "memory", {"content_hash": None})
    target = f"{tenant}-null"
    result = cli("import", str(dump), "--tenant", target, "--remap-ids")
    assert result.exit_code == 1
    output = " ".join(result.output.split())
    assert "Traceback" not in output
    assert f"line {line}: memory " in output, output
    assert ": content_hash: " in output, output
    assert "the records before it were" in output, output
    assert count_memories(stack, target) == line - 2


def test_a_failed_import_with_json_prints_the_error_and_the_partial_report_on_stdout(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    """Trial L1: ``import --json`` printed nothing on stdout when it failed (exit 1)."""
    dump = tmp_path / "export.jsonl"
    line = _edited_export(cli, stack, tenant, dump, "memory", {"status": "current"})
    target = f"{tenant}-json"
    result = cli("import", str(dump), "--tenant", target, "--remap-ids", "--json")
    assert result.exit_code == 1, result.output
    answer = json.loads(result.stdout)
    assert answer["complete"] is False
    assert answer["error"]["line"] == line
    assert answer["error"]["field"].startswith(f"line {line}: memory ")
    assert answer["error"]["field"].endswith(": status"), answer
    assert answer["error"]["limit"] is not None
    assert "must be one of" in answer["error"]["message"]
    assert answer["report"]["tenant_id"] == target
    assert answer["report"]["inserted"].get("memory", 0) == line - 2 == count_memories(stack, target)


def test_an_ingest_line_whose_period_would_end_before_its_start_is_refused_up_front(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    """Trial H4: valid_to alone, before the write time its period starts at, passed the file check, was
    queued, and failed in the worker for ever. It is refused with the file, naming the line and field."""
    path = tmp_path / "l24.jsonl"
    path.write_text(
        '{"agent_id":"e1","content":"Kim drives a Saab","key":"kim.car","valid_to":"2026-05-01T00:00:00Z"}\n'
        '{"agent_id":"e1","content":"Kim drives a Kia","key":"kim.car","valid_from":"2026-03-01T00:00:00"}\n'
    )
    before = _queued_messages(stack)
    result = cli("ingest", str(path), "--tenant", tenant, "--json")  # (--wait waited for ever before)
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert "1 bad line(s)" in output, output
    assert "line 1: valid_to: the validity period is empty: valid_to 2026-05-01T00:00:00+00:00" in output
    assert "must be after its start" in output
    assert "(no valid_from given: a fact holds from the write time;" in output
    assert "nothing was ingested" in output
    assert _queued_messages(stack) == before


def test_ingest_names_a_nul_character_as_memory_write_does(cli: Any, tenant: str, tmp_path: Path) -> None:
    """Trial F9: content "\u0000" was "control or surrogate character U+0000 is not allowed" from
    memory_write and "must not be blank (it holds only invisible characters…)" from ``ingest``: one
    wording, without pydantic's "Value error, " prefix."""
    path = tmp_path / "nul.jsonl"
    path.write_text('{"content":"\\u0000"}\n{"content":"x\\u0000"}\n')
    result = cli("ingest", str(path), "--tenant", tenant, "--json")
    assert result.exit_code == 1, result.output
    output = " ".join(result.output.split())
    assert "line 1: content: control or surrogate character U+0000 is not allowed" in output, output
    assert "line 2: content: control or surrogate character U+0000 is not allowed" in output, output
    assert "must not be blank" not in output
    assert "Value error" not in output


def test_ingest_wait_stops_waiting_when_no_job_gets_a_result(cli: Any, tenant: str, tmp_path: Path) -> None:
    """A job that never gets a result (in the dead-letter queue; here: no worker runs) no longer keeps
    ``ingest --wait`` waiting for ever: it stops after --wait-timeout seconds without progress, exit 1."""
    path = tmp_path / "one.jsonl"
    path.write_text('{"content": "Unique marker heron-3 waits for a worker"}\n')
    result = cli("ingest", str(path), "--tenant", tenant, "--wait", "--wait-timeout", "1", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert (report["queued"], report["unfinished"], report["outcomes"]) == (1, 1, {})
    assert "1 queued jobs had no result after 1 s without progress" in " ".join(result.output.split())


LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {
                    "speaker": "Caroline",
                    "dia_id": "D1:1",
                    "text": "I went to a LGBTQ support group yesterday.",
                },
                {
                    "speaker": "Melanie",
                    "dia_id": "D1:2",
                    "text": "That's great! How was it?",
                    "blip_caption": "a photo of a sunset",
                },
            ],
            "session_2_date_time": "1:14 pm on 25 May, 2023",
            "session_2": [
                {"speaker": "Caroline", "dia_id": "D2:1", "text": "I'm researching adoption agencies."}
            ],
        },
        "qa": [],
    }
]


def test_ingest_a_locomo_file_through_the_queue_is_idempotent(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path, poller: SqsPoller
) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    with draining_in_background(poller):
        first = cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
        again = cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["outcomes"] == {"stored": 3}
    assert json.loads(again.stdout)["outcomes"] == {"stored": 3}  # the same job ids: nothing stored twice
    hits = _search(cli, tenant, "adoption agencies")  # default agent: nothing (LoCoMo goes to conv-x)
    assert hits == []
    result = cli("search", "adoption agencies", "--tenant", tenant, "--agent", "conv-x", "--json")
    top = json.loads(result.stdout)[0]
    assert top["content"] == "Caroline: I'm researching adoption agencies."
    assert top["layer"] == "episodic"


def test_a_point_in_time_search_shows_status_now_and_superseded_by(
    cli: Any, stack: LocalStack, tenant: str
) -> None:
    berlin, lisbon = _store(
        stack,
        tenant,
        [
            (
                "default",
                MemoryDraft(
                    content="Office location: the team works from the Berlin office",
                    key="team.office",
                    occurred_at=datetime(2026, 1, 1, tzinfo=UTC),
                ),
            ),
            (
                "default",
                MemoryDraft(
                    content="Office location: the team works from the Lisbon office",
                    key="team.office",
                    occurred_at=datetime(2026, 3, 1, tzinfo=UTC),
                ),
            ),
        ],
    )
    query = ("search", "where does the team work?", "--tenant", tenant, "--valid-at", "2026-02")
    found = cli(*query, "--json")
    assert found.exit_code == 0, found.output
    (hit,) = [h for h in json.loads(found.stdout) if h["id"] == str(berlin)]
    assert (hit["status"], hit["status_now"], hit["superseded_by"]) == ("active", "superseded", str(lisbon))
    assert (hit["valid_from"], hit["valid_to"]) == ("2026-01-01T00:00:00+00:00", "2026-03-01T00:00:00+00:00")
    table = cli(*query)
    assert table.exit_code == 0, table.output
    assert f"active (now superseded by …{str(lisbon)[-8:]})" in table.stdout
    today = json.loads(cli("search", "where does the team work?", "--tenant", tenant, "--json").stdout)
    assert [(h["id"], h["status_now"], h["superseded_by"]) for h in today] == [(str(lisbon), None, None)]


def _queued_messages(stack: LocalStack) -> int:
    """Messages on the write queues (both lanes), visible or in flight."""
    assert stack.queues is not None
    client = stack.sqs_client()
    total = 0
    for url in (stack.queues.writes, stack.queues.bulk):
        attrs = client.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
        total += sum(
            int(attrs.get(name, 0))
            for name in (
                "ApproximateNumberOfMessages",
                "ApproximateNumberOfMessagesNotVisible",
                "ApproximateNumberOfMessagesDelayed",
            )
        )
    return total


def test_a_re_ingest_with_wait_leaves_nothing_of_its_own_on_the_queue(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path, poller: SqsPoller
) -> None:
    """--wait waited for the jobs' results; on a re-ingest those exist already, so it returned while the
    duplicates it had just queued were still on the queue. Items processed before are not queued again."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(LOCOMO))
    with draining_in_background(poller):
        first = cli("ingest", str(path), "--tenant", tenant, "--wait", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["queued"] == 3
    before = _queued_messages(stack)  # no poller runs from here on
    again = cli("ingest", str(path), "--tenant", tenant, "--wait")
    assert again.exit_code == 0, again.output
    assert _queued_messages(stack) == before  # nothing left queued behind --wait
    assert "3 stored (3 processed by an earlier run: not queued again)" in again.stdout
    report = json.loads(cli("ingest", str(path), "--tenant", tenant, "--json").stdout)
    assert (report["queued"], report["already_processed"]) == (0, 3)


def test_a_bad_file_lists_every_bad_line_names_the_file_and_the_format_and_ingests_nothing(
    cli: Any, tenant: str, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.jsonl"
    bad.write_text(
        '{"content": "Unique marker orchid-7 is fine"}\n'
        '{"content": "x", "layer": "weird"}\n'
        '{"content": "unterminated"\n'
        '{"content": "Unique marker orchid-8 is fine too"}\n'
        '{"content": "only bad \\ud800"}\n'
    )
    failed = cli("ingest", str(bad), "--tenant", tenant, "--direct")
    assert failed.exit_code == 1, failed.output
    assert failed.exception is None or isinstance(failed.exception, SystemExit)  # no traceback
    assert str(bad) in failed.output
    assert "3 bad line(s)" in failed.output
    assert "line 2: layer" in failed.output
    assert "line 3: not JSON at column" in failed.output
    assert "line 5: content" in failed.output  # an unpaired surrogate: before, a UnicodeEncodeError
    assert "nothing was ingested" in failed.output
    assert "expected: JSON Lines" in failed.output
    assert _search(cli, tenant, "orchid-7 orchid-8") == []  # the good lines were not stored either

    # A JSON Lines file read as LoCoMo: the position, the format expected, never a JSONDecodeError.
    good = tmp_path / "good.jsonl"
    good.write_text('{"content": "a"}\n{"content": "b"}\n')
    wrong = cli("ingest", str(good), "--tenant", tenant, "--format", "locomo")
    assert wrong.exit_code == 1, wrong.output
    assert wrong.exception is None or isinstance(wrong.exception, SystemExit), wrong.exception
    assert "JSONDecodeError" not in wrong.output
    assert f"{good}: 1 bad record(s) (read as LoCoMo)" in wrong.output
    assert "line 2, column 1" in wrong.output
    assert "--format jsonl" in wrong.output
    assert "expected: LoCoMo: one JSON array of conversations" in wrong.output


@pytest.mark.parametrize("mode", ["queue", "direct"])
def test_a_file_reusing_an_idempotency_key_with_other_content_is_refused_whole(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path, mode: str
) -> None:
    # One key names one write: the second line could never be stored (queue mode used to store the first
    # and fail the second with "retry"; --direct silently dropped it and reported "2 stored").
    direct = ["--direct"] if mode == "direct" else []
    clash = tmp_path / "clash.jsonl"
    clash.write_text(
        '{"content": "Unique marker heron-3 is the first", "idempotency_key": "k-1"}\n'
        '{"content": "Unique marker heron-4 is unrelated", "idempotency_key": "k-2"}\n'
        '{"content": "Unique marker heron-5 differs", "idempotency_key": "k-1"}\n'
    )
    failed = cli("ingest", str(clash), "--tenant", tenant, *direct)
    assert failed.exit_code == 1, failed.output
    assert failed.exception is None or isinstance(failed.exception, SystemExit)
    assert (
        "line 3: idempotency_key: 'k-1' is already used by line 1 with different arguments" in failed.output
    )
    assert "nothing was ingested" in failed.output
    assert "retry" not in failed.output
    assert count_memories(stack, tenant) == 0
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:  # nothing queued either: a queued write leaves its status record at once
        assert list(client.scan_iter(match=f"hs:*op:{tenant}:*", count=1000)) == []
    finally:
        client.close()

    # The same key with identical arguments is a replay: accepted, one memory.
    replay = tmp_path / "replay.jsonl"
    line = '{"content": "Unique marker heron-6 appears twice", "idempotency_key": "k-3"}\n'
    replay.write_text(line + line)
    accepted = cli("ingest", str(replay), "--tenant", tenant, "--direct")
    assert accepted.exit_code == 0, accepted.output
    assert count_memories(stack, tenant) == 1


def test_ingest_accepts_a_byte_order_mark_and_refuses_a_file_without_items(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(b"\xef\xbb\xbf" + b'{"content": "Unique marker wren-2 came with a BOM"}\n')
    accepted = cli("ingest", str(bom), "--tenant", tenant, "--direct")
    assert accepted.exit_code == 0, accepted.output
    assert count_memories(stack, tenant) == 1
    for name, text in (("empty.jsonl", ""), ("comments.jsonl", "# nothing here\n\n")):
        empty = tmp_path / name
        empty.write_text(text)
        refused = cli("ingest", str(empty), "--tenant", tenant, "--direct")
        assert refused.exit_code == 1, refused.output
        assert f"{empty} has no items; nothing was ingested" in refused.output
    assert count_memories(stack, tenant) == 1


def test_a_cli_command_without_a_running_stack_says_how_to_start_one(
    cli: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", f"postgresql://hs@127.0.0.1:{free_port()}/hindsight")
    monkeypatch.setenv("HINDSIGHT_DB_CONNECT_TIMEOUT_S", "0.5")
    failed = cli("search", "anything", "--tenant", "t-none")
    assert failed.exit_code == 3, failed.output
    assert "database not reachable" in failed.output
    assert "Start it with `make run` (or `hindsight run`) in another terminal" in failed.output


def test_ingest_jsonl_directly_and_report_a_bad_line(cli: Any, tenant: str, tmp_path: Path) -> None:
    good = tmp_path / "notes.jsonl"
    good.write_text(
        '{"content": "Priya owns the billing service", "key": "owner.billing"}\n'
        "# comments and blank lines are skipped\n\n"
        '{"content": "Sam reported a login bug", "layer": "episodic", "agent_id": "support"}\n'
    )
    result = cli("ingest", str(good), "--tenant", tenant, "--direct", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["mode"], report["items"], report["outcomes"]) == ("direct", 2, {"stored": 2})
    assert _search(cli, tenant, "who owns billing?")[0]["content"] == "Priya owns the billing service"

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n{"content": "x", "layer": "weird"}\n')
    failed = cli("ingest", str(bad), "--tenant", tenant, "--direct")
    assert failed.exit_code == 1
    assert "line 2" in failed.output
    assert "layer" in failed.output


def test_token_list_shows_whole_key_ids_that_revoke_takes(
    cli: Any, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = cli("token", "create", "--tenant", tenant, "--name", "narrow-terminal", "--json")
    assert created.exit_code == 0, created.output
    key_id = json.loads(created.output)["key_id"]
    monkeypatch.setenv("COLUMNS", "60")  # a narrow terminal must not shorten the id
    listed = cli("token", "list", "--tenant", tenant)
    assert listed.exit_code == 0, listed.output
    assert key_id in listed.output
    revoked = cli("token", "revoke", key_id)
    assert revoked.exit_code == 0, revoked.output
    assert cli("token", "revoke", key_id).exit_code == 1  # already revoked: said, not silently ok


FORMATS = ["auto", "jsonl", "locomo"]


def _refusals(tmp_path: Path) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Files ``ingest`` refuses as a whole: (name, extra arguments, what its JSON error says)."""
    folder = tmp_path / "a-folder"
    folder.mkdir()
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(b'{"content": "fine"}\n{"content": "caf\xe9"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n{"content": "x", "layer": "weird"}\n')
    empty = tmp_path / "empty.jsonl"
    empty.write_text("# nothing\n")
    return [
        (str(tmp_path / "missing.jsonl"), [], {"field": "file", "line": None}),
        (str(folder), [], {"field": "file", "line": None}),
        (str(latin1), [], {"field": "file", "line": 2, "limit": {"encoding": "utf-8"}}),
        (str(bad), [], {"field": "line 2: layer", "line": 2}),
        (str(empty), [], {"field": "file", "line": None}),
        (str(bad), ["--format", "yaml"], {"field": "--format", "limit": {"one_of": FORMATS}}),
    ]


def test_ingest_json_prints_one_error_document_for_a_refused_file(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path
) -> None:
    """Trial: ``ingest --json`` printed nothing on stdout when the file itself was refused (missing, a
    folder, not UTF-8, bad lines, no items, a bad --format). Each prints one JSON document naming the
    field (and line, and limit); without --json the message is on stderr and stdout stays empty."""
    for path, extra, expected in _refusals(tmp_path):
        result = cli("ingest", path, "--tenant", tenant, "--direct", "--json", *extra)
        assert result.exit_code != 0, (path, result.output)
        answer = json.loads(result.stdout)  # one document, nothing else on stdout
        error = answer["error"]
        assert error["message"], answer
        for name, value in expected.items():
            assert error[name] == value, (path, answer)
        assert "Traceback" not in result.output
        plain = cli("ingest", path, "--tenant", tenant, "--direct", *extra)
        assert plain.exit_code == result.exit_code, plain.output
        assert plain.stdout == "", plain.stdout
        assert "error: " in plain.stderr
        assert error["message"].split(";")[0] in " ".join(plain.stderr.split())
    bad_lines = json.loads(cli("ingest", str(tmp_path / "bad.jsonl"), "--tenant", tenant, "--json").stdout)
    assert (bad_lines["count"], bad_lines["format"]) == (1, "jsonl")
    (problem,) = bad_lines["problems"]
    assert problem["line"] == 2
    assert "'episodic' or 'semantic'" in problem["message"]
    assert count_memories(stack, tenant) == 0


def test_import_json_prints_one_error_document_for_a_missing_or_unreadable_file(
    cli: Any, tenant: str, tmp_path: Path
) -> None:
    """Trial: ``import --json`` printed nothing for a missing file; a folder or a line that is not UTF-8
    ended in a traceback. Each is one JSON document (``complete`` false, the error naming the file or
    the line), exit 1."""
    exported = cli("export", "--tenant", tenant, "--output", str(tmp_path / "empty-export.jsonl"))
    assert exported.exit_code == 0, exported.output
    header = (tmp_path / "empty-export.jsonl").read_bytes().splitlines()[0]
    latin1 = tmp_path / "latin1.jsonl"
    latin1.write_bytes(header + b"\n\xe9\n")
    no_header = tmp_path / "no-header.jsonl"  # a header missing its fields was a pydantic traceback
    no_header.write_text('{"kind": "header"}\n')
    folder = tmp_path / "a-folder"
    folder.mkdir()
    cases = [
        (tmp_path / "missing.jsonl", "file", None),
        (folder, "file", None),
        (latin1, "line 2", 2),
        (no_header, "line 1: header: exported_at", 1),
    ]
    for path, field, line in cases:
        result = cli("import", str(path), "--tenant", tenant, "--json")
        assert result.exit_code == 1, (path, result.output)
        answer = json.loads(result.stdout)
        assert answer["complete"] is False, answer
        assert (answer["error"]["field"], answer["error"]["line"]) == (field, line), answer
        assert answer["error"]["message"].startswith(str(path) if field == "file" else field), answer
        assert "validation error" not in result.output, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        plain = cli("import", str(path), "--tenant", tenant)
        assert plain.exit_code == 1, plain.output
        assert plain.stdout == ""
        assert plain.exception is None or isinstance(plain.exception, SystemExit), plain.exception
        assert "error: " in plain.stderr


def test_ingest_words_a_refused_item_as_refused_and_a_transient_failure_as_retryable(
    cli: Any, stack: LocalStack, tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trial: an item the service refused for its data (here a key redaction would change) was
    reported with "retry", which would be refused again. A data refusal names the line and field and
    says to fix the line; only a transient failure (the queue unavailable) suggests retrying."""
    path = tmp_path / "keys.jsonl"
    path.write_text(
        '{"content": "Unique marker plover-1 is fine", "key": "plover.one"}\n'
        '{"content": "Write to Ann", "key": "contact.ann@example.com"}\n'
    )
    refused = cli("ingest", str(path), "--tenant", tenant)
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.stderr.split())
    assert "refused: line 2: key:" in said, said
    assert "fix those lines" in said
    assert "retry" not in said.lower()
    report = json.loads(cli("ingest", str(path), "--tenant", tenant, "--json").stdout)
    (failure,) = report["failures"]
    assert (failure["where"], failure["field"], failure["retryable"]) == ("line 2", "key", False), failure

    other = tmp_path / "other.jsonl"
    other.write_text('{"content": "Unique marker plover-2 waits for a queue"}\n')
    settings = stack.require_settings()
    monkeypatch.setenv("HINDSIGHT_WRITE_QUEUE_URL", settings.require_write_queue_url() + "-gone")
    down = cli("ingest", str(other), "--tenant", tenant, "--json")
    assert down.exit_code == 1, down.output
    (failure,) = json.loads(down.stdout)["failures"]
    assert failure["retryable"] is True, failure
    said = " ".join(down.stderr.split())
    assert "not queued: line 1:" in said, said
    assert "transient" in said
    assert "refused" not in said


def test_write_and_search_json_print_one_error_document_for_a_refused_argument(cli: Any, tenant: str) -> None:
    """``write --json`` / ``search --json`` printed nothing on stdout when an argument was refused before
    the stack was reached: each prints one JSON document naming the field, as every other failure does."""
    cases = [
        (("write", "x", "--layer", "nonsense"), 1, "layer"),
        (("write", "x", "--entity", "no-equals-sign"), 2, "--entity"),
        (("search", "peanuts", "--valid-at", "1700000000"), 1, "--valid-at"),
    ]
    for args, code, field in cases:
        result = cli(*args, "--tenant", tenant, "--json")
        assert result.exit_code == code, result.output
        error = json.loads(result.stdout)["error"]
        assert error["field"] == field, error
        assert error["message"].startswith(f"{field}: "), error
        plain = cli(*args, "--tenant", tenant)
        assert plain.exit_code == code, plain.output
        assert plain.stdout == ""
        assert f"error: {field}: " in plain.stderr
