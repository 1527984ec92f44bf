"""Trial 11:08 H3/M4: an import stopped at a bad line keeps the records before it; the error says to fix the
line and import the whole file again. That re-import skipped the memories already there and with them
their relations, history and write results (a past value left superseded with no successor, memory_status
without answers). Now every record is skipped only when it is there by its own identity, so the re-import
yields exactly what one import of the fixed file gives. Through the CLI against real Postgres."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest

from hindsight.domain.memory import MemoryDraft
from hindsight.local.stack import LocalStack
from hindsight.usecases.archive import remap
from tests.integration.test_operator_cli import _round_trip_data, _store, cli  # noqa: F401 (the fixture)

pytestmark = pytest.mark.integration
JAN, MAR, APR = (datetime(2026, m, 1, tzinfo=UTC) for m in (1, 3, 4))
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TABLES = (
    "memory_relations",
    "memory_history",
    "memory_chunks",
    "write_results",
    "pending_causal_links",
    "memory_access",
    "memories",
)


def _export(run: Any, tenant: str, path: Path) -> list[dict[str, Any]]:
    result = run("export", "--tenant", tenant, "--embeddings", "-o", str(path))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in path.read_text().splitlines()]


def _empty(stack: LocalStack, tenant: str) -> None:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        for table in _TABLES:
            conn.execute(f"DELETE FROM {table} WHERE tenant_id = %s", (tenant,))


def _comparable(records: list[dict[str, Any]], back: dict[str, str]) -> dict[str, list[str]]:
    """Each kind's records (header left out, the footer's counts kept), every id mapped back to the
    file's (``back``: target id → file id) and the tenant left out, as sorted JSON texts."""

    def unmap(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: unmap(v) for k, v in value.items() if k != "tenant_id"}
        if isinstance(value, list):
            return [unmap(v) for v in value]
        # an id inside a text (a history reason: "superseded by <id>") is a reference too (trial L5)
        return _UUID.sub(lambda m: back.get(m[0], m[0]), value) if isinstance(value, str) else value

    out: dict[str, list[str]] = {}
    for record in records:
        if record["kind"] != "header":
            out.setdefault(record["kind"], []).append(json.dumps(unmap(record), sort_keys=True))
    return {kind: sorted(texts) for kind, texts in out.items()}


@pytest.mark.parametrize("remap_ids", [True, False], ids=["remap-ids", "same-ids"])
@pytest.mark.parametrize("stop_at", ["memory", "history"])
def test_importing_the_fixed_file_after_a_stopped_import_gives_what_one_clean_import_gives(
    cli: Any,  # noqa: F811
    stack: LocalStack,
    tenant: str,
    tmp_path: Path,
    remap_ids: bool,
    stop_at: str,
) -> None:
    # a split value (Faro, Braga inside its period, Faro again after it: relations, history, write
    # results), a supersede chain, a long memory (chunks) and a causal link
    _store(
        stack,
        tenant,
        [
            ("default", MemoryDraft(content="Sam lives in Faro", key="sam.city", valid_from=JAN)),
            ("default", MemoryDraft(content="Sam lives in Braga", key="sam.city", valid_from=MAR,
                                    valid_to=APR)),
        ],
    )  # fmt: skip
    _round_trip_data(stack, tenant)
    dump = tmp_path / "export.jsonl"
    lines = _export(cli, tenant, dump)
    counts = lines[-1]["counts"]
    assert min(counts[k] for k in ("relation", "history", "write_result", "chunk")) > 0, counts
    if stop_at == "memory":  # the continuation: its first piece and Braga are imported, superseded
        [bad] = [
            n for n, r in enumerate(lines) if r["kind"] == "memory" and "resumes" in r["row"]["metadata"]
        ]
        edit = {"status": "current"}
    else:  # a history entry in the middle: every memory is in, part of the history and no write result
        history = [n for n, r in enumerate(lines) if r["kind"] == "history"]
        bad, edit = history[len(history) // 2], {"action": "teleported"}
    lines[bad]["row"].update(edit)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(json.dumps(r) + "\n" for r in lines))

    options = ["--remap-ids"] if remap_ids else []
    if remap_ids:
        clean, resumed = f"{tenant}-clean", f"{tenant}-resumed"
    else:  # ids kept: both imports go into the (emptied) exported tenant, one after the other
        clean = resumed = tenant
        _empty(stack, tenant)
    assert cli("import", str(dump), "--tenant", clean, *options).exit_code == 0
    expected = _export(cli, clean, tmp_path / "clean.jsonl")
    if not remap_ids:
        _empty(stack, tenant)

    stopped = cli("import", str(broken), "--tenant", resumed, *options)
    assert stopped.exit_code == 1
    said = " ".join(stopped.output.split())
    assert f"line {bad + 1}: " in said, said
    assert "INCOMPLETE until the whole file is imported" in said, said
    again = cli("import", str(dump), "--tenant", resumed, *options, "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["complete"] is True
    got = _export(cli, resumed, tmp_path / "resumed.jsonl")

    file_ids = {
        r["row"][f]
        for r in lines
        if r["kind"] in ("memory", "write_result")
        for f in ("id", "job_id")
        if f in r["row"]
    }
    back_clean = {remap(i, clean): i for i in file_ids} if remap_ids else {}
    back_resumed = {remap(i, resumed): i for i in file_ids} if remap_ids else {}
    want, have = _comparable(expected, back_clean), _comparable(got, back_resumed)
    assert (
        have["footer"] == want["footer"] == [json.dumps({"counts": counts, "kind": "footer"}, sort_keys=True)]
    )
    for kind in ("memory", "chunk", "relation", "history", "write_result", "pending_link"):
        assert have.get(kind) == want.get(kind), kind
    # the past value the stopped import left without successor has it again
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        [(status, successors)] = conn.execute(
            """SELECT m.status, (SELECT count(*) FROM memory_relations r WHERE r.to_id = m.id
                                 AND r.kind = 'supersedes')
               FROM memories m WHERE m.tenant_id = %s AND m.content = 'Sam lives in Faro'
               ORDER BY m.valid_from LIMIT 1""",
            (resumed,),
        ).fetchall()
    assert (status, successors) == ("superseded", 1)
