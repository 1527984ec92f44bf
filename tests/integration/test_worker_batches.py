"""The worker's batch commit on real Postgres, Redis and the SQS emulator: a whole batch of one tenant in
one transaction with set-based statements must decide exactly what storing its jobs one by one decides
(merges, supersedes, contradictions, links, history), a job the database refuses must not fail its
batch-mates, and replays are answered by the pipelined Redis records."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import psycopg
import pytest
import redis
from pgvector.psycopg import register_vector

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.adapters.postgres import write_batch
from hindsight.adapters.postgres.memory_writes import MEMORY_COLUMNS
from hindsight.adapters.postgres.rows import tenant_transaction
from hindsight.adapters.postgres.vectors import register_vector_rows
from hindsight.api.runtime import ProcessLoop
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.container import Container
from hindsight.domain.auth import Principal
from hindsight.domain.memory import MemoryDraft, PreparedWrite, StoreResult, WriteJob
from hindsight.local.poller import LocalLambdaContext, to_lambda_event
from hindsight.local.stack import LocalStack
from hindsight.ports import Vector
from tests.support import count_memories

pytestmark = pytest.mark.integration
WHEN = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)

# (content, draft fields): repeats in the batch and of what was there before, facts on one key replaced
# twice in the batch, an additive fact, key-less contradictions, an inference against a stated fact,
# episodic repeats at the same and at another time, and a repeat with context (only the same words merge).
BEFORE: list[tuple[str, dict[str, Any]]] = [
    ("The meeting with Acme is on Tuesday at 10:00", {"key": "acme.meeting"}),
    ("I really enjoy Thai green curry", {}),
    ("The user's favourite colour is blue.", {}),
    ("Rowan runs payroll", {"key": "rowan.duties"}),
    ("Deploys happen from the main branch", {}),
    ("I really enjoy eating Thai green curry at the market stall on Fridays", {}),
    ("Mia lives in a small flat near the old harbour in Lisbon", {}),
]
BATCH: list[tuple[str, dict[str, Any]]] = [
    ("The meeting with Acme is on Thursday at 15:00", {"key": "acme.meeting"}),
    ("the meeting with Acme is on Thursday at 15:00.", {"key": "acme.meeting"}),
    ("The meeting with Acme is on Friday at 11:00", {"key": "acme.meeting"}),
    ("I can't stand Thai green curry any more", {}),
    ("The user's favourite colour is green.", {"source": "agent_inferred"}),
    ("Rowan also runs invoicing", {"key": "rowan.duties"}),
    ("deploys happen from the main branch!", {}),
    ("Deploys happen from the main branch", {"importance": 0.9, "metadata": {"team": "ops"}}),
    ("The standup ran long", {"layer": "episodic", "occurred_at": WHEN}),
    ("the standup ran long.", {"layer": "episodic", "occurred_at": WHEN}),
    ("The standup ran long", {"layer": "episodic", "occurred_at": WHEN + timedelta(days=1)}),
    ("Lena prefers tea", {"context": "asked about drinks"}),
    ("Lena prefers tea.", {"context": "asked about drinks"}),
    ("I really enjoy Thai green curry", {}),
    ("Rowan's desk is in Lisbon", {"key": "rowan.desk"}),
    ("Rowan's desk is in Porto", {"key": "rowan.desk"}),
    ("Rowan's desk is in Porto", {"key": "rowan.desk"}),
    ("I really enjoy spicy ramen", {}),
    ("I can't stand spicy ramen any more", {}),
    ("The user's favourite season is winter.", {}),
    ("The user's favourite season is summer.", {"source": "agent_inferred"}),
    # contradictions the hash embedder sees as close (cosine ≈ 0.9): with what was there, within the batch,
    # and with a memory the batch itself superseded a moment before
    ("I no longer enjoy eating Thai green curry at the market stall on Fridays", {}),
    ("I really enjoy eating Thai green curry at the market stall on Fridays", {}),
    ("Mia lives in a small flat near the old harbour in Porto", {}),
    ("Mia lives in a small flat near the old harbour in Faro", {"key": "mia.home"}),
    ("The user's favourite colour for the new office walls is blue.", {}),
    ("The user's favourite colour for the new office walls is green.", {"source": "agent_inferred"}),
    ("The team standup for the platform group starts at 9 every weekday", {}),
    ("The team standup for the platform group starts at 10 every weekday", {}),
    # every column a write can fill, stored the same by both paths
    (
        "Ines keeps the release checklist in the ops wiki",
        {
            "query": "where is the release checklist",
            "importance": 0.33,
            "metadata": {"source": "chat", "n": [1, 2.5, None]},
            "tags": ["ops", "release"],
            "entities": {"people": ["Ines"], "tools": ["ops wiki"]},
            "task_id": "t-42",
            "task_type": "analyze",
            "outcome": "partial",
            "summary": "checklist location",
            "key_decisions": ["keep it in the wiki"],
            "lessons": "write it down",
            "valid_from": WHEN - timedelta(days=3),
            "valid_to": WHEN + timedelta(days=300),
            "idempotency_key": "ines-checklist",
            "shared_with": ["planner"],
            "conversation_id": "c-7",
            "turn_index": 4,
            "session_index": 1,
            "session_at": WHEN,
        },
    ),
    ("Ines shipped the release in the second week of May", {"layer": "episodic", "occurred_at": "2026-05"}),
    # events: the same month again (a repeat), the month's first instant (another precision: not a repeat),
    # and a repeat of an event above on a key (another scope: not a repeat)
    ("Ines shipped the release in the second week of May.", {"layer": "episodic", "occurred_at": "2026-05"}),
    (
        "Ines shipped the release in the second week of May",
        {"layer": "episodic", "occurred_at": "2026-05-01T00:00:00Z"},
    ),
    ("The standup ran long", {"layer": "episodic", "occurred_at": WHEN, "key": "standup"}),
]


def _job(tenant: str, content: str, fields: dict[str, Any], at: datetime | None = None) -> WriteJob:
    return WriteJob(
        id=uuid.uuid4(),
        tenant_id=tenant,
        agent_id="default",
        submitted_at=at or datetime.now(UTC),
        draft=MemoryDraft(content=content, **fields),
    )


@pytest.fixture
def runtime(stack: LocalStack) -> Iterator[tuple[ProcessLoop, Container]]:
    """A container with the hash test embedder (similarities that follow the words) on its own loop."""
    settings = stack.require_settings()
    loop = ProcessLoop()
    container = loop.run(
        build_container(
            settings, with_queue=False, verify_schema=False, embedder=HashEmbedder(settings.embedding_dim)
        )
    )
    yield loop, container
    loop.run(container.aclose())


def _state(stack: LocalStack, tenant: str, names: dict[uuid.UUID, str]) -> dict[str, Any]:
    """Everything the write path decided for ``tenant``, with ids replaced by the names of the jobs."""

    def name(value: Any) -> Any:
        if isinstance(value, uuid.UUID):
            return names.get(value, "?")
        if isinstance(value, str):
            for i, n in names.items():
                value = value.replace(str(i), n)
        return value

    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        results = conn.execute(
            "SELECT job_id, outcome, memory_id, reason FROM write_results WHERE tenant_id = %s", (tenant,)
        ).fetchall()
        memories = conn.execute(
            """SELECT id, status, importance, metadata, valid_to, shared_with FROM memories
               WHERE tenant_id = %s""",
            (tenant,),
        ).fetchall()
        # every column a write fills, as the one-row insert and the batch's set-based insert stored it
        # (the tenant aside: each mode has its own; last_verified_at aside: a merge sets it to now())
        columns = [c for c, _, _ in MEMORY_COLUMNS if c not in ("tenant_id", "last_verified_at")]
        stored = conn.execute(
            f"SELECT {', '.join(columns)}, embedding::text FROM memories WHERE tenant_id = %s", (tenant,)
        ).fetchall()
        relations = conn.execute(
            "SELECT from_id, to_id, kind, reason FROM memory_relations WHERE tenant_id = %s", (tenant,)
        ).fetchall()
        history = conn.execute(
            """SELECT memory_id, action, reason, changes FROM memory_history WHERE tenant_id = %s
               ORDER BY id""",
            (tenant,),
        ).fetchall()
    return {
        "results": sorted(tuple(name(v) for v in r) for r in results),
        "memories": sorted(
            (name(r[0]), r[1], r[2], json.dumps(r[3], sort_keys=True), r[4] is not None, r[5])
            for r in memories
        ),
        "columns": sorted(repr(tuple(name(v) for v in r)) for r in stored),
        "relations": sorted(tuple(name(v) for v in r) for r in relations),
        # per memory, in the order written
        "history": sorted(
            (k, [(r[1], name(r[2]), json.dumps(r[3], sort_keys=True)) for r in history if name(r[0]) == k])
            for k in {name(r[0]) for r in history}
        ),
    }


def test_a_batch_decides_exactly_what_storing_its_jobs_one_by_one_decides(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack
) -> None:
    loop, container = runtime
    returned: dict[str, list[StoreResult]] = {}
    states = {}
    now = datetime.now(UTC)  # both runs acknowledge their jobs at the same times
    for mode in ("one_by_one", "batch"):
        tenant = f"t-{uuid.uuid4().hex[:12]}"
        before = [
            _job(tenant, c, f, now - timedelta(minutes=1, seconds=i)) for i, (c, f) in enumerate(BEFORE)
        ]
        batch = [_job(tenant, c, f, now + timedelta(milliseconds=i)) for i, (c, f) in enumerate(BATCH)]
        names = {j.id: f"before{i}" for i, j in enumerate(before)}
        names |= {j.id: f"job{i}" for i, j in enumerate(batch)}

        async def go(before: list[WriteJob] = before, batch: list[WriteJob] = batch, mode: str = mode) -> Any:
            store = container.store_memories
            for job in before:
                await store([job])
            prepared = await store.prepare([*batch, batch[0]])  # and one job delivered twice
            if mode == "batch":
                return await store.commit(prepared)
            return [r for p in prepared for r in await store.commit([p])]

        returned[mode] = loop.run(go())
        states[mode] = _state(stack, tenant, names)
        states[mode]["returned"] = [
            (
                names[r.job_id],
                r.outcome,
                names.get(r.memory_id) if r.memory_id else None,
                len(r.open_conflicts),
            )
            for r in returned[mode]
        ]
    assert states["batch"] == states["one_by_one"]
    # The case list does what it claims: repeats merged, facts replaced, contradictions linked.
    outcomes = [r.outcome for r in returned["batch"]]
    assert outcomes.count("merged") >= 6
    assert outcomes[len(BATCH) - 3 : len(BATCH)] == ["merged", "stored", "stored"]
    assert outcomes.count("stored") >= 8
    kinds = {r[2] for r in states["batch"]["relations"]}
    assert {"supersedes", "contradicts", "related"} <= kinds


PLAIN = [
    f"{who} keeps {what} stamps from {where}"
    for who, what, where in zip(
        ["Abe", "Bea", "Cai", "Dov", "Eli", "Fay", "Gus", "Hal", "Ida", "Jon",
         "Kai", "Lou", "Max", "Ned", "Oda", "Pia", "Quy", "Rex", "Sol", "Tia"],
        ["owl", "fox", "elk", "yak", "emu", "ant", "bee", "cod", "eel", "gnu",
         "hen", "jay", "koi", "lynx", "mole", "newt", "orca", "puma", "quail", "ram"],
        ["Oslo", "Lima", "Rome", "Baku", "Doha", "Kiev", "Riga", "Suva", "Apia", "Bern",
         "Cali", "Dili", "Faro", "Gaza", "Hue", "Ipoh", "Jena", "Kobe", "Linz", "Metz"],
        strict=True,
    )
]  # fmt: skip
"""Twenty facts that repeat, replace and contradict nothing (hash embedder: ~half their words differ)."""


def _transactions(stack: LocalStack, ids: list[uuid.UUID]) -> int:
    """How many transactions wrote the memories ``ids`` (their distinct ``xmin``)."""
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            "SELECT count(DISTINCT xmin::text) FROM memories WHERE id = ANY(%s)", (ids,)
        ).fetchone()
    return int(row[0]) if row else 0


async def _two_connections_open(container: Container) -> None:
    """A warm worker's pool: two connections open (the second transaction takes only an idle one)."""
    async with container.pool.connection(), container.pool.connection():
        pass


async def _store_after(
    container: Container, earlier: list[WriteJob], jobs: list[WriteJob], mode: str
) -> list[StoreResult]:
    """``earlier`` stored job by job, then ``jobs`` one by one (``mode`` "one_by_one") or as one batch
    by a warm worker."""
    store = container.store_memories
    for job in earlier:
        await store([job])
    prepared = await store.prepare(jobs)
    if mode == "batch":
        await _two_connections_open(container)
        return await store.commit(prepared)
    return [r for p in prepared for r in await store.commit([p])]


def _one_by_one_and_batch(
    loop: ProcessLoop,
    container: Container,
    stack: LocalStack,
    before: list[tuple[str, dict[str, Any]]],
    batch: list[tuple[str, dict[str, Any]]],
) -> tuple[dict[str, dict[str, Any]], dict[str, list[uuid.UUID]]]:
    """``before`` stored job by job, then ``batch`` (and its first job delivered twice) stored job by job
    in one tenant and as one batch in another: each mode's ``_state`` and the ids of its batch."""
    states, ids = {}, {}
    now = datetime.now(UTC)
    for mode in ("one_by_one", "batch"):
        tenant = f"t-{uuid.uuid4().hex[:12]}"
        earlier = [
            _job(tenant, c, f, now - timedelta(minutes=1, seconds=i)) for i, (c, f) in enumerate(before)
        ]
        jobs = [_job(tenant, c, f, now + timedelta(milliseconds=i)) for i, (c, f) in enumerate(batch)]
        names = {j.id: f"before{i}" for i, j in enumerate(earlier)} | {
            j.id: f"job{i}" for i, j in enumerate(jobs)
        }

        returned = loop.run(_store_after(container, earlier, [*jobs, jobs[0]], mode))
        states[mode] = _state(stack, tenant, names)
        states[mode]["returned"] = [(names[r.job_id], r.outcome, names.get(r.memory_id)) for r in returned]
        ids[mode] = [j.id for j in jobs]
    return states, ids


def test_a_batchs_plain_new_memories_are_written_beside_it_by_a_second_transaction_deciding_the_same(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack
) -> None:
    """Issue 15: linking new rows into the HNSW graph is most of the worker's database time, and one
    backend does it on one core: about half the plain new memories of a batch go to a second transaction
    beside the batch's. What is stored is what storing the jobs one by one stores, merges, supersedes,
    contradictions and history included."""
    loop, container = runtime
    plain: list[tuple[str, dict[str, Any]]] = [(c, {}) for c in PLAIN]
    states, ids = _one_by_one_and_batch(loop, container, stack, BEFORE, plain + BATCH)
    assert states["batch"] == states["one_by_one"]
    assert _transactions(stack, ids["batch"]) >= 2  # the batch's own and at least one beside it
    states, ids = _one_by_one_and_batch(loop, container, stack, [], plain)
    assert states["batch"] == states["one_by_one"]
    assert _transactions(stack, ids["batch"]) == 2


def test_a_batchs_questions_to_the_store_go_half_to_a_second_connection_deciding_the_same(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: before a batch writes anything, what its transaction reads another connection reads too;
    half the jobs' near-duplicate and conflict questions go to a second backend beside the batch's. What
    is stored is what storing the jobs one by one stores."""
    loop, container = runtime
    asked: list[tuple[str, int]] = []  # (which, backend), in the order asked
    rows_of, tenant_rows_on = write_batch.rows_of, write_batch.tenant_rows_on

    async def on_batch(conn: Any, statements: Any) -> Any:
        asked.append(("batch", conn.info.backend_pid))
        return await rows_of(conn, statements)

    async def beside(conn: Any, tenant: str, statements: Any) -> Any:
        asked.append(("beside", conn.info.backend_pid))
        return await tenant_rows_on(conn, tenant, statements)

    monkeypatch.setattr(write_batch, "rows_of", on_batch)
    monkeypatch.setattr(write_batch, "tenant_rows_on", beside)
    plain: list[tuple[str, dict[str, Any]]] = [(c, {}) for c in PLAIN]
    states, _ = _one_by_one_and_batch(loop, container, stack, BEFORE, plain + BATCH)
    assert states["batch"] == states["one_by_one"]
    pairs = [(asked[n - 1], ask) for n, ask in enumerate(asked) if ask[0] == "beside"]
    assert pairs  # the batch's half asked beside it: the batch's own half, then the other
    assert all(mine[0] == "batch" and mine[1] != other[1] for mine, other in pairs)  # two backends


def test_a_stored_embedding_is_the_nearest_float32_of_each_value_the_embedder_gave(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, tenant: str
) -> None:
    """Issue 15: embeddings go to Postgres in pgvector's binary form, by the batch and by the job-by-job
    path, memories and chunks alike. The text form's 7 digits did not tell float32 values apart:
    0.9237168431282043 (a float32) was stored as 0.9237167835235596."""
    loop, container = runtime
    values = [0.9237168431282043, 0.747717559337616, 0.5141737461090088]
    dim = stack.require_settings().embedding_dim

    def vector(at: int) -> list[float]:
        v = [0.0] * dim
        v[at : at + len(values)] = values
        return v

    jobs = [_job(tenant, c, {}) for c in PLAIN[:3]]
    own_path = _job(tenant, PLAIN[3], {"causal_parent": jobs[0].id})  # stored by ``_store_one``
    chunked = PreparedWrite(job=jobs[2], embedding=vector(6), chunks=[("chunk two", vector(9))])
    prepared = [
        PreparedWrite(job=jobs[0], embedding=vector(0)),
        PreparedWrite(job=jobs[1], embedding=vector(3)),
    ]
    prepared += [
        chunked,
        PreparedWrite(job=own_path, embedding=vector(12), chunks=[("its chunk", vector(15))]),
    ]
    results = loop.run(container.writer.store(prepared, 0.95))
    assert [r.outcome for r in results] == ["stored"] * 4
    expected = {p.job.id: np.asarray(p.embedding, dtype=np.float32) for p in prepared}
    expected_chunks = {
        (p.job.id, 1): np.asarray(p.chunks[0][1], dtype=np.float32) for p in prepared if p.chunks
    }
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        register_vector(conn)
        stored = dict(
            conn.execute("SELECT id, embedding FROM memories WHERE tenant_id = %s", (tenant,)).fetchall()
        )
        chunks = conn.execute(
            "SELECT memory_id, chunk_no, embedding FROM memory_chunks WHERE tenant_id = %s", (tenant,)
        ).fetchall()
    assert {k: v.to_numpy().tolist() for k, v in stored.items()} == {
        k: v.tolist() for k, v in expected.items()
    }
    assert {(m, n): v.to_numpy().tolist() for m, n, v in chunks} == {
        k: v.tolist() for k, v in expected_chunks.items()
    }


def test_a_batch_on_a_large_scope_asks_for_each_jobs_near_duplicates_and_decides_as_one_by_one(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: on a scope of ``LARGE_SCOPE`` memories or more the batch asks ``_store_one``'s own
    near-duplicate query for each job (served by the HNSW index at scale) instead of one pass over the
    whole scope: it still decides exactly what storing the jobs one by one decides."""
    loop, container = runtime
    asked: list[int] = []
    close_each = write_batch._Segment._close_each

    def counted(self: Any, todo: list[int], jobs: dict[int, WriteJob]) -> tuple[str, dict[str, Any]]:
        asked.append(len(todo))
        return close_each(self, todo, jobs)

    monkeypatch.setattr(write_batch, "LARGE_SCOPE", 1)  # every scope is large
    monkeypatch.setattr(write_batch._Segment, "_close_each", counted)
    plain: list[tuple[str, dict[str, Any]]] = [(c, {}) for c in PLAIN]
    states, _ = _one_by_one_and_batch(loop, container, stack, BEFORE, plain + BATCH)
    assert states["batch"] == states["one_by_one"]
    assert asked
    assert sum(asked) >= len(PLAIN)
    outcomes = [r[1] for r in states["batch"]["returned"]]
    assert outcomes.count("merged") >= 6


def test_a_batch_whose_job_has_a_waiting_child_the_batch_also_merges_into_is_stored_as_one_by_one(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack
) -> None:
    """The second transaction adopts its jobs' waiting children after the batch's share is written and
    without waiting for a row lock: here the batch's share merges a repeat into the very child the second
    one must link to its parent, so either waiting for the other would never end. The batch falls back to
    storing its jobs one by one, which stores what it always did."""
    loop, container = runtime
    states = {}
    now = datetime.now(UTC)  # both runs acknowledge their jobs at the same times
    for mode in ("one_by_one", "batch"):
        tenant, parent = f"t-{uuid.uuid4().hex[:12]}", uuid.uuid4()
        child = _job(tenant, "Quinn ordered the blue kayak", {"causal_parent": parent}, now)
        contents = [
            "Quinn paid for the kayak order",
            *PLAIN,
            "quinn ordered the blue kayak.",
        ]  # last: a repeat
        jobs = [_job(tenant, c, {}, now + timedelta(milliseconds=i)) for i, c in enumerate(contents)]
        jobs[0] = jobs[0].model_copy(update={"id": parent})  # first: its plain row goes beside
        names = {child.id: "child", **{j.id: f"job{i}" for i, j in enumerate(jobs)}}

        returned = loop.run(_store_after(container, [child], jobs, mode))  # child: a waiting link
        states[mode] = _state(stack, tenant, names)
        states[mode]["returned"] = [(names[r.job_id], r.outcome, names.get(r.memory_id)) for r in returned]
        with psycopg.connect(stack.require_settings().require_database_url()) as conn:
            row = conn.execute("SELECT causal_parent FROM memories WHERE id = %s", (child.id,)).fetchone()
        assert row == (parent,), mode
        assert states[mode]["returned"][-1] == (f"job{len(jobs) - 1}", "merged", "child"), mode
    assert states["batch"] == states["one_by_one"]


@pytest.mark.parametrize("where", ["beside", "own"])
def test_a_job_the_table_refuses_fails_alone_whichever_transaction_of_its_batch_writes_it(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, tenant: str, where: str
) -> None:
    """A refused row in the second transaction's share or in the batch's own: neither transaction commits
    anything of the batch, which is stored job by job — the refused job answered ``failed`` alone."""
    loop, container = runtime
    refused = _job(tenant, "Kim drives a Saab", {"valid_to": datetime.now(UTC) - timedelta(days=30)})
    jobs = [_job(tenant, c, {}) for c in PLAIN]
    jobs.insert(0 if where == "beside" else len(jobs), refused)  # the first plain rows go beside
    loop.run(_two_connections_open(container))
    results = loop.run(container.store_memories(jobs))
    assert [r.outcome for r in results if r.job_id == refused.id] == ["failed"]
    assert {r.outcome for r in results if r.job_id != refused.id} == {"stored"}
    assert count_memories(stack, tenant) == len(PLAIN)
    # stored one by one: every row by a transaction of its own, none by the batch's two
    assert _transactions(stack, [j.id for j in jobs if j.id != refused.id]) == len(PLAIN)


def test_a_batch_writes_everything_itself_when_the_pool_has_no_connection_idle(
    stack: LocalStack, tenant: str
) -> None:
    """The second transaction never waits for a connection (a writer holding one while waiting for
    another could wait for ever on a pool that others hold the same way): with none idle, the batch's
    transaction writes both shares."""
    settings = stack.require_settings().model_copy(update={"db_pool_max": 2})
    loop = ProcessLoop()
    container = loop.run(
        build_container(
            settings, with_queue=False, verify_schema=False, embedder=HashEmbedder(settings.embedding_dim)
        )
    )
    jobs = [_job(tenant, c, {}) for c in PLAIN]

    async def go() -> list[StoreResult]:
        held = await container.pool.getconn()  # the other connection is the batch's own
        try:
            return await container.store_memories(jobs)
        finally:
            await container.pool.putconn(held)

    try:
        results = loop.run(go())
    finally:
        loop.run(container.aclose())
    assert {r.outcome for r in results} == {"stored"}
    assert _transactions(stack, [j.id for j in jobs]) == 1


class _MalformedFor:
    """The hash embedder, except that texts with ``marker`` get a vector of the wrong dimension (a model
    glitch): Postgres refuses that row, so its job is poison for a whole-batch transaction."""

    def __init__(self, marker: str, dim: int) -> None:
        self._inner = HashEmbedder(dim)
        self._marker = marker

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def model_name(self) -> str:
        return self._inner.model_name

    async def embed_passages(self, texts: Any) -> list[Vector]:
        vectors = await self._inner.embed_passages(texts)
        return [v[:3] if self._marker in t else v for t, v in zip(texts, vectors, strict=True)]

    async def embed_query(self, text: str) -> Vector:
        return await self._inner.embed_query(text)

    def passage_window(self) -> None:
        return None


def _worker(stack: LocalStack, embedder: Any = None) -> WriteJobWorker:
    settings = stack.require_settings()
    return WriteJobWorker(
        lambda: build_container(
            settings,
            with_queue=False,
            verify_schema=False,
            embedder=embedder or HashEmbedder(settings.embedding_dim),
        )
    )


def _through_the_emulator(stack: LocalStack, tenant: str, jobs: list[WriteJob]) -> dict[str, Any]:
    """Send the jobs to a queue of the SQS emulator and receive them back as one Lambda event."""
    sqs = stack.sqs_client()
    queue = sqs.create_queue(QueueName=f"batch-{tenant}")["QueueUrl"]
    for job in jobs:
        sqs.send_message(QueueUrl=queue, MessageBody=job.model_dump_json())
    received: list[dict[str, Any]] = []
    while len(received) < len(jobs):
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        received += got.get("Messages", [])
    return to_lambda_event(received, f"arn:aws:sqs:us-east-1:000000000000:batch-{tenant}", "us-east-1")


def _message_of(event: dict[str, Any], job: WriteJob) -> str:
    return str(next(r["messageId"] for r in event["Records"] if json.loads(r["body"])["id"] == str(job.id)))


def test_a_job_the_database_refuses_fails_alone_and_its_batch_mates_are_stored(
    stack: LocalStack, tenant: str
) -> None:
    facts = ["The Orion project ships in June", "POISON row", "Lena leads the design review", "Tea at four"]
    jobs = [_job(tenant, fact, {}) for fact in facts]
    event = _through_the_emulator(stack, tenant, jobs)
    worker = _worker(stack, _MalformedFor("POISON", stack.require_settings().embedding_dim))
    try:
        response = worker(event, LocalLambdaContext("w"))
    finally:
        worker.close()
    assert response == {"batchItemFailures": [{"itemIdentifier": _message_of(event, jobs[1])}]}
    assert count_memories(stack, tenant) == 3
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        recorded = conn.execute("SELECT job_id FROM write_results WHERE tenant_id = %s", (tenant,)).fetchall()
    assert {r[0] for r in recorded} == {jobs[0].id, jobs[2].id, jobs[3].id}  # the poison one is not recorded


def test_a_job_whose_data_the_table_refuses_is_answered_failed_and_never_retried(
    stack: LocalStack, tenant: str
) -> None:
    """Trial H4: a job the table's CHECK refuses (a valid_to before the start it is stored with: no
    valid_from, so the write time) failed five deliveries, went to the dead-letter queue unrecorded, and
    memory_status (so ``ingest --wait``) never answered. A refusal of the data is recorded ``failed`` with
    a readable reason and acknowledged; its batch-mates are stored; a redelivery is answered the same."""
    past = {"key": "kim.car", "valid_to": datetime.now(UTC) - timedelta(days=30)}  # queued before the check
    facts = [("Kim drives a Kia", {"key": "kim.van"}), ("Kim drives a Saab", past), ("Tea at four", {})]
    jobs = [_job(tenant, fact, fields) for fact, fields in facts]
    event = _through_the_emulator(stack, tenant, jobs)
    worker = _worker(stack)
    try:
        assert worker(event, LocalLambdaContext("w")) == {"batchItemFailures": []}
        assert worker(event, LocalLambdaContext("w")) == {"batchItemFailures": []}  # a redelivery
        statuses = worker.container().write_status
        principal = Principal(tenant_id=tenant, key_id="test")
        answers = worker._runtime.run(statuses(principal, [j.id for j in jobs], any_agent=True))
    finally:
        worker.close()
    assert [a.status for a in answers] == ["stored", "failed", "stored"]
    assert answers[1].memory_id is None  # nothing was stored
    reason = answers[1].reason or ""
    assert reason.startswith("refused by the store, not retried: its validity period would end"), reason
    assert "memories_valid_period" in reason
    assert count_memories(stack, tenant) == 2


def _job_keys(stack: LocalStack) -> set[bytes]:
    client = redis.Redis.from_url(stack.require_settings().redis_url)
    try:
        return set(client.scan_iter(match="hindsight-job:*", count=1000))
    finally:
        client.close()


def test_a_replayed_batch_is_answered_by_the_redis_records_and_a_job_in_progress_is_retried_later(
    stack: LocalStack, tenant: str
) -> None:
    jobs = [_job(tenant, fact, {}) for fact in ["Alex's birthday is 4 March", "Invoices go out on Fridays"]]
    event = _through_the_emulator(stack, tenant, jobs)
    worker = _worker(stack)
    try:
        before = _job_keys(stack)
        assert worker(event, LocalLambdaContext("w")) == {"batchItemFailures": []}
        keys = _job_keys(stack) - before
        assert len(keys) == 2
        with psycopg.connect(stack.require_settings().require_database_url()) as conn:  # Postgres forgets
            conn.execute("DELETE FROM write_results WHERE tenant_id = %s", (tenant,))
            conn.execute("DELETE FROM memories WHERE tenant_id = %s", (tenant,))
        # The whole batch again: answered from Redis, nothing stored again.
        assert worker(event, LocalLambdaContext("w")) == {"batchItemFailures": []}
        assert count_memories(stack, tenant) == 0

        # Another delivery is storing the first job right now: its record says in progress, for a while.
        client = redis.Redis.from_url(stack.require_settings().redis_url)
        try:
            for key in keys:
                record = json.loads(client.get(key) or b"{}")
                if record.get("data", {}).get("job_id") == str(jobs[0].id):
                    held = {"status": "INPROGRESS", "in_progress_expiration": int((time.time() + 60) * 1000)}
                    client.set(key, json.dumps(held), ex=60)
                else:
                    client.delete(key)
        finally:
            client.close()
        late = _job(tenant, "The office plants are watered on Mondays", {})
        replay = _through_the_emulator(stack, f"{tenant}-2", [jobs[0], jobs[1], late])
        response = worker(replay, LocalLambdaContext("w"))
    finally:
        worker.close()
    assert response == {"batchItemFailures": [{"itemIdentifier": _message_of(replay, jobs[0])}]}
    assert count_memories(stack, tenant) == 2  # jobs[1] (its record was gone) and the new one


def _rows_read(plan: dict[str, Any], relation: str) -> int:
    """Rows the scans of ``relation`` in an EXPLAIN ANALYZE (JSON) plan returned, over all their loops."""
    own = (
        plan.get("Actual Rows", 0) * plan.get("Actual Loops", 1)
        if plan.get("Relation Name") == relation
        else 0
    )
    return int(own) + sum(_rows_read(p, relation) for p in plan.get("Plans", []))


def test_a_batch_reads_its_agents_facts_once_for_every_jobs_conflict_candidates(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: the batch ranks each semantic job's conflict candidates in one pass over its agents'
    active semantic facts (``write_batch._CONFLICTING_SCOPE``), not one scan of the agent's memories per
    job (at 2,000 memories that took 12-18 ms a job). The candidates are each job's nearest facts by
    cosine distance, ties going to the fact written first: the hash embedder makes the stored facts
    equally near each job (one word of four differs)."""
    loop, container = runtime
    names = [f"{a}{b}" for a in ("Ab", "Be", "Ca", "Do", "El", "Fa") for b in ("e", "o", "u", "y", "i")]
    now = datetime.now(UTC)
    before = [_job(tenant, f"{n} collects owl stamps", {}, now - timedelta(minutes=len(names) - i))
              for i, n in enumerate(names)]  # fmt: skip
    loop.run(container.store_memories(before))
    jobs = [_job(tenant, f"Zed{i} collects owl stamps", {}) for i in range(20)]
    asked: list[tuple[Any, Any]] = []
    rows_of = write_batch.rows_of

    async def recorded(conn: Any, statements: Any) -> Any:
        asked.extend(statements)
        return await rows_of(conn, statements)

    monkeypatch.setattr(write_batch, "rows_of", recorded)

    async def candidates() -> dict[int, list[tuple[Any, float]]]:
        prepared = await container.store_memories.prepare(jobs)
        async with tenant_transaction(container.pool, tenant) as conn:
            segment = write_batch._Segment(conn, None, tenant, prepared, 0.95, 0.6, {}, [None] * len(jobs))
            await segment._query(range(len(jobs)))
        return {n: [(r["id"], r["similarity"]) for r in rows] for n, rows in segment._conflicting.items()}

    found = loop.run(candidates())
    [(conflicting, params)] = [
        (q, p) for q, p in asked if isinstance(p, dict) and {"id", "limit"} <= p.keys()
    ]
    limit = params["limit"]
    url = stack.require_settings().require_database_url()
    with psycopg.connect(url) as conn:
        register_vector(conn)
        register_vector_rows(conn)
        vectors = loop.run(container.embedder.embed_passages([j.draft.content for j in jobs]))
        expected = {
            n: [
                (r[0], r[1])
                for r in conn.execute(
                    """SELECT id, 1 - (embedding <=> %s::vector) FROM memories
                       WHERE tenant_id = %s AND layer = 'semantic' AND status = 'active'
                       ORDER BY embedding <=> %s::vector, created_at, id LIMIT %s""",
                    (np.asarray(v), tenant, np.asarray(v), limit),
                ).fetchall()
            ]
            for n, v in enumerate(vectors)
        }
        # jobs whose kept candidates all tie (a hash collision now and then makes one nearer)
        tied = [n for n, rows in expected.items() if len({round(s, 9) for _, s in rows}) == 1]
        conn.execute("SELECT set_config('hindsight.tenant_id', %s, false)", (tenant,))
        [(plan,)] = conn.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {conflicting}", params).fetchall()
    assert len(tied) >= len(jobs) // 2  # for most jobs the order is the tie-break's
    assert found == expected
    # the scope's facts once, and the rows of the candidates kept: not the whole scope per job
    assert _rows_read(plan[0]["Plan"], "memories") <= len(names) + len(jobs) * limit


def test_a_batchs_conflict_candidates_read_the_kept_rows_by_key_never_the_tenants_other_memories(
    runtime: tuple[ProcessLoop, Container], stack: LocalStack, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 15: after ranking each job's conflict candidates among its agents' facts, the batch reads the
    rows of the candidates it keeps by primary key, one each, whatever plan the statistics suggest — not
    by joining them with the tenant's memories, which a table without statistics yet (a new store, in
    its first minute) planned as a scan of every memory of the tenant per statement. Here the join is
    made unattractive to the planner (``enable_nestloop`` off), as missing statistics made it before."""
    loop, container = runtime
    facts = [_job(tenant, f"{n} collects owl stamps", {}) for n in ("Abe", "Bea", "Cai", "Dov", "Eli", "Fay")]
    events = [
        _job(
            tenant,
            f"Standup number {i} ran long",
            {"layer": "episodic", "occurred_at": WHEN + timedelta(hours=i)},
        )
        for i in range(60)
    ]
    loop.run(container.store_memories(facts + events))
    jobs = [_job(tenant, f"Zed{i} collects owl stamps", {}) for i in range(4)]
    asked: list[tuple[Any, Any]] = []
    rows_of = write_batch.rows_of

    async def recorded(conn: Any, statements: Any) -> Any:
        asked.extend(statements)
        return await rows_of(conn, statements)

    monkeypatch.setattr(write_batch, "rows_of", recorded)

    async def candidates() -> dict[int, list[Any]]:
        prepared = await container.store_memories.prepare(jobs)
        async with tenant_transaction(container.pool, tenant) as conn:
            segment = write_batch._Segment(conn, None, tenant, prepared, 0.95, 0.6, {}, [None] * len(jobs))
            await segment._query(range(len(jobs)))
        return {n: [r["id"] for r in rows] for n, rows in segment._conflicting.items()}

    found = loop.run(candidates())
    [(conflicting, params)] = [
        (q, p) for q, p in asked if isinstance(p, dict) and {"id", "limit"} <= p.keys()
    ]
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        register_vector(conn)
        register_vector_rows(conn)
        conn.execute("SELECT set_config('hindsight.tenant_id', %s, false)", (tenant,))
        conn.execute("SET enable_nestloop = off")
        [(plan,)] = conn.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {conflicting}", params).fetchall()
        rows = conn.execute(conflicting, params).fetchall()
    kept = sum(len(ids) for ids in found.values())
    assert kept == len(jobs) * len(facts)  # every fact is a candidate of every job
    assert sorted(r[1] for r in rows) == sorted(i for ids in found.values() for i in ids)  # same answer
    # the agent's facts once (ranked), then each kept candidate's row (a row kept for several jobs may be
    # read once: the plan can memoize the lookup): none of the 60 events
    assert len(facts) < _rows_read(plan[0]["Plan"], "memories") <= len(facts) + kept
