"""The chaos soak's checker (bench/chaos.py ``check``) can fail: each broken promise, planted in a ledger,
is counted — a soak whose checker could not see a lost write would prove nothing."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from chaos import BROKEN_IF_NONZERO, check
from chaos_agents import Call, Edit, Journal, Ledger, WorkingSession, Write, scan_for_leaks
from chaos_stack import Fault

TAG_A, TAG_B = "zt0qabcde", "zt1qabcde"
MARKER = "mabcdet0a0x1"


def _ledger() -> Ledger:
    ledger = Ledger(tenants={"A": TAG_A, "B": TAG_B})
    write = Write(marker=MARKER, tenant="A", agent="a0", via="memory_write",
                  arguments={"content": f"{TAG_A} a0 notes {MARKER}: copper", "agent_id": "a0"})  # fmt: skip
    write.acks.append("11111111-1111-1111-1111-111111111111")
    ledger.writes.append(write)
    return ledger


def _row(memory_id: str, content: str, status: str = "active") -> dict[str, Any]:
    return {"id": memory_id, "tenant_id": "A", "agent_id": "a0", "content": content, "status": status,
            "task_id": None, "metadata": {}}  # fmt: skip


def _check(ledger: Ledger, statuses: dict[str, dict[str, Any]], rows: list[dict[str, Any]],
           journal: Journal | None = None, faults: list[Fault] | None = None, dlq: list[str] | None = None,
           wm: dict[Any, dict[str, str]] | None = None) -> dict[str, int]:  # fmt: skip
    result = check(ledger, journal or Journal(t0=0.0), faults or [], statuses, rows, dlq or [], [], wm or {},
                   horizon=100.0)  # fmt: skip
    counts: dict[str, int] = result["counts"]
    return counts


ACK = "11111111-1111-1111-1111-111111111111"
CONTENT = f"{TAG_A} a0 notes {MARKER}: copper"


def test_a_clean_ledger_breaks_nothing() -> None:
    counts = _check(_ledger(), {ACK: {"id": ACK, "status": "stored"}}, [_row(ACK, CONTENT)])
    assert counts["lost"] == counts["duplicated"] == counts["unapplied"] == 0
    assert counts["acknowledged"] == 1


def test_an_acknowledged_write_still_queued_or_without_a_row_is_lost() -> None:
    assert _check(_ledger(), {ACK: {"id": ACK, "status": "queued"}}, [])["lost"] == 1
    assert _check(_ledger(), {ACK: {"id": ACK, "status": "stored"}}, [])["lost"] == 1
    assert _check(_ledger(), {}, [])["lost"] == 1  # never reported at all


def test_a_write_in_two_rows_is_duplicated_and_a_failure_needs_a_reason() -> None:
    rows = [_row(ACK, CONTENT), _row("22222222-2222-2222-2222-222222222222", CONTENT)]
    assert _check(_ledger(), {ACK: {"id": ACK, "status": "stored"}}, rows)["duplicated"] == 1
    failed = _check(_ledger(), {ACK: {"id": ACK, "status": "failed", "reason": None}}, [])
    assert failed["failed_without_reason"] == 1


def test_an_acknowledged_update_or_forget_not_in_effect_is_unapplied() -> None:
    ledger = _ledger()
    edit = Edit(memory_id=ACK, tenant="A", agent="a0", original=CONTENT, keyed=False)
    edit.contents.append((CONTENT + " revised r1", "ok"))
    ledger.edits[ACK] = edit
    stored = {ACK: {"id": ACK, "status": "stored"}}
    assert _check(ledger, stored, [_row(ACK, CONTENT)])["unapplied"] == 1
    assert _check(ledger, stored, [_row(ACK, CONTENT + " revised r1")])["unapplied"] == 0
    edit.statuses.append(("forgotten", "ok"))
    assert _check(ledger, stored, [_row(ACK, CONTENT + " revised r1")])["unapplied"] == 1
    edit.statuses.append(("deleted", "unknown"))  # an unanswered hard delete may or may not have applied
    assert _check(ledger, stored, [])["unapplied"] == 0


def test_deleted_is_final_only_for_a_write_the_agent_hard_forgot() -> None:
    deleted = {ACK: {"id": ACK, "status": "deleted"}}
    assert _check(_ledger(), deleted, [])["lost"] == 1  # nobody asked for it to go
    ledger = _ledger()
    edit = Edit(memory_id=ACK, tenant="A", agent="a0", original=CONTENT, keyed=False)
    edit.statuses.append(("deleted", "ok"))
    ledger.edits[ACK] = edit
    counts = _check(ledger, deleted, [])
    assert counts["lost"] == 0
    assert counts["unapplied"] == 0


def test_working_memory_must_hold_what_was_last_acknowledged() -> None:
    ledger = _ledger()
    session = WorkingSession("A", "a0", "s1", possible={"s1.k0": {"v2"}})
    ledger.sessions[("A", "a0", "s1")] = session
    stored = {ACK: {"id": ACK, "status": "stored"}}
    rows = [_row(ACK, CONTENT)]
    assert _check(ledger, stored, rows, wm={("A", "a0", "s1"): {"s1.k0": "v1"}})["wm_mismatch"] == 1
    assert _check(ledger, stored, rows, wm={("A", "a0", "s1"): {"s1.k0": "v2", "x": "y"}})["wm_mismatch"] == 1
    assert _check(ledger, stored, rows, wm={("A", "a0", "s1"): {"s1.k0": "v2"}})["wm_mismatch"] == 0


def test_errors_count_only_outside_fault_windows_and_crashes_always() -> None:
    journal = Journal(t0=0.0)
    journal.calls += [
        Call(tool="memory_write", tenant="A", started=5.0, ended=6.0, outcome="retryable"),
        Call(tool="memory_write", tenant="A", started=50.0, ended=51.0, outcome="transport"),
        Call(tool="memory_search", tenant="A", started=5.0, ended=5.5, outcome="server_error"),
    ]
    journal.http += [(5.2, 503), (70.0, 503), (5.3, 500)]
    fault = Fault(seq=1, kind="restart_redis", started=4.0, ended=4.1, recovered=10.0)
    counts = _check(_ledger(), {ACK: {"id": ACK, "status": "stored"}}, [_row(ACK, CONTENT)], journal, [fault])
    assert counts["errors_outside_faults"] == 2  # the transport error at 50 s and the 503 at 70 s
    assert counts["server_errors"] == 2  # the crash and the HTTP 500, fault window or not
    assert _check(_ledger(), {}, [], faults=[Fault(seq=2, kind="kill_run", started=1.0)])["unrecovered"] == 1


def test_dead_letters_must_be_our_poison_or_a_final_job() -> None:
    counts = _check(_ledger(), {ACK: {"id": ACK, "status": "stored"}}, [_row(ACK, CONTENT)],
                    dlq=[f'{{"id": "{ACK}"}}', "something else"])  # fmt: skip
    assert counts["dlq_final_jobs"] == 1
    assert counts["dlq_unexplained"] == 1


def test_final_poison_must_reach_the_dead_letter_queue() -> None:
    sent = ["poison 9999-0: not json at all", '{"kind": "memory.write", "id": "poison-9999-1"}']
    common = (_ledger(), Journal(t0=0.0), [], {}, [], [], sent, {})
    missing = check(*common[:5], [sent[0]], *common[6:], horizon=100.0, final_poisoned=sent)["counts"]
    assert missing["final_poison"] == 2
    assert missing["dlq_poison_missing"] == 1
    assert "dlq_poison_missing" in BROKEN_IF_NONZERO
    complete = check(*common[:5], sent, *common[6:], horizon=100.0, final_poisoned=sent)["counts"]
    assert complete["dlq_poison_missing"] == 0
    assert complete["dlq_poison"] == 2


def test_another_tenants_tag_or_id_in_an_answer_is_a_leak() -> None:
    ledger = _ledger()
    ledger.own_id("B", "33333333-3333-3333-3333-333333333333")
    hit = {"results": [{"memory": {"id": "33333333-3333-3333-3333-333333333333", "content": f"{TAG_B} x"}}]}
    call = Call(tool="memory_search", tenant="A", started=0.0, result=hit)
    leaks = scan_for_leaks(ledger, "A", call, {"query": "anything"})
    assert len(leaks) == 3  # the tag, the id, and the hit's content
    theirs = "33333333-3333-3333-3333-333333333333"
    echo = Call(
        tool="memory_status",
        tenant="A",
        started=0.0,
        result={"writes": [{"id": theirs, "status": "unknown"}]},
    )
    assert scan_for_leaks(ledger, "A", echo, {"ids": [theirs]}) == []  # the request's own id echoed back
