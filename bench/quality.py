"""LoCoMo retrieval quality, Hindsight and baselines side by side on the same stored data.

Every turn of every conversation of ``../shared/data/locomo/locomo-dev.json`` goes through the worker's
use case (``container.store_memories`` with WriteJobs in batches of 10, the SQS maximum: embedding,
near-duplicate merging, entity terms, history — the code the queue worker runs; only SQS itself is
skipped, for speed). Session dates become ``occurred_at``, the speaker an entity, image captions are
part of the text, each turn carries its place in the conversation (conversation_id, session_index,
turn_index, session_at; bench/locomo.py). Then every question with evidence is asked at its time (the
day after the last session) and scored on turn-level evidence: recall@1/5/10/25 and nDCG@10, overall
for categories 1–4, per category, and category 5 (adversarial) separately; and by the protocol of
issue 13: ``tune`` (first 4 conversations), ``validate`` (last 3) and all, per category and per
conversation. Lever rows (``levers``: the hand-set RRF fallback, ablation models in bench/models/) are
measured in the same run on the same rows. No row records access (each question is asked as if it were
the first, as the pools protocol scores it) except ``levers.recording_access``: the shipped search asked
again afterwards, recording access as ``memory_search`` does (the frequency prior then reads it).

Baselines read the rows Hindsight stored (same text, same 384-d vectors; turns merged as duplicates are
missing for everyone alike): exact vector top-k, BM25 (bm25s) and RRF of the two (bench/baselines.py).

The end-to-end figure through the MCP URL (bench/locomo_mcp.py, first conversation) runs afterwards in
a subprocess with its own stack and is merged in as ``locomo.mcp``.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from datetime import UTC
from typing import Any

import numpy as np
from baselines import Bm25Index, VectorIndex, rrf
from common import ROOT, TimedEmbedder, TimedWriter, bench_tmpdir, log, percentiles, remember_postgres_version
from locomo import Conversation, Scoreboard, load, split_of

from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.rows import tenant_transaction
from hindsight.bootstrap import Container, build_container
from hindsight.domain.memory import MemoryDraft, Scope, WriteJob
from hindsight.usecases.recall import Recall, RecallQuery, resolve
from hindsight.usecases.store_memories import StoreMemories

TENANT = "locomo"
TOP_K = 25
BATCH = 10


def jobs_for(
    conv: Conversation, tenant: str, *, previous_turn_context: bool = False, conversation: bool = False
) -> list[WriteJob]:
    """One episodic write job per turn, as an agent would write it: the turn's text (image caption
    included), the session date as occurred_at, the speaker as an entity, dia_id in metadata;
    ``conversation``: also its position (conversation_id = sample id, session_index, turn_index within
    the session, session_at = the session's date), as ``hindsight ingest`` writes LoCoMo files.
    ``previous_turn_context``: the session's previous turn as ``context`` (bench/locomo_eval.py's
    LOCOMO_CONTEXT=previous; measured worse, see docs/benchmarks.md)."""
    jobs = []
    for i, turn in enumerate(conv.turns):
        occurred = turn.occurred_at.replace(tzinfo=UTC)
        before = conv.turns[i - 1] if i and conv.turns[i - 1].session == turn.session else None
        draft = MemoryDraft(
            content=turn.content,
            context=before.content if previous_turn_context and before else None,
            layer="episodic",
            occurred_at=occurred,
            entities={"speaker": turn.speaker},
            metadata={"dia_id": turn.dia_id, "session": turn.session},
            **(
                {
                    "conversation_id": conv.sample_id,
                    "session_index": turn.session,
                    "turn_index": turn.turn_index,
                    "session_at": occurred,
                }
                if conversation
                else {}
            ),
        )
        jobs.append(
            WriteJob(
                id=uuid.uuid4(), tenant_id=tenant, agent_id=conv.sample_id, submitted_at=occurred, draft=draft
            )
        )
    return jobs


async def _ingest(container: Container, conversations: list[Conversation]) -> dict[str, Any]:
    embedder, writer = TimedEmbedder(container.embedder), TimedWriter(container.writer)
    store = StoreMemories(writer, embedder, container.settings.dedup_cosine)
    outcomes: dict[str, int] = {}
    started = time.monotonic()
    for conv in conversations:
        jobs = jobs_for(conv, TENANT, conversation=True)
        for i in range(0, len(jobs), BATCH):
            for result in await store(jobs[i : i + BATCH]):
                if result.outcome == "failed":
                    raise RuntimeError(f"write failed: {result.reason}")
                outcomes[result.outcome] = outcomes.get(result.outcome, 0) + 1
        log(f"locomo: ingested {conv.sample_id} ({len(jobs)} turns)")
    seconds = time.monotonic() - started
    return {
        "turns": sum(len(c.turns) for c in conversations),
        "outcomes": outcomes,
        "seconds": round(seconds, 1),
        "turns_per_s": round(sum(len(c.turns) for c in conversations) / seconds, 1),
        "embed_s": round(embedder.passage_s, 1),
        "db_s": round(writer.store_s, 1),
        "batch": BATCH,
    }


async def _stored_rows(container: Container, agent: str) -> tuple[list[str], list[str], np.ndarray]:
    # through the tenant's transaction: row-level security shows the app role only the tenant's rows
    async with tenant_transaction(container.pool, TENANT) as conn:
        cur = await conn.execute(
            """SELECT metadata->>'dia_id', content, embedding FROM memories
               WHERE tenant_id = %s AND agent_id = %s AND status = 'active' ORDER BY created_at, id""",
            (TENANT, agent),
        )
        rows = await cur.fetchall()
    labels = [str(r[0]) for r in rows]
    texts = [str(r[1]) for r in rows]
    vectors = np.stack(
        [np.asarray(r[2].to_numpy() if hasattr(r[2], "to_numpy") else r[2], dtype=np.float32) for r in rows]
    )
    return labels, texts, vectors


LEVER_MODELS = ROOT / "bench" / "models"
"""Ablation models for the lever rows (bench/train_ranker.py --features … --out bench/models/…): each is
the shipped model's recipe with one group of features left out. Trained on LoCoMo tune: CC BY-NC 4.0."""


class _NoAccessLog:
    def note(self, scope: Any, ids: Any, at: Any) -> None:
        return None


def levers(container: Container) -> dict[str, tuple[str, Recall]]:
    """Each lever switched off (or the alternative switched on), as Recall variants over the same rows:
    name → (label, recall). They record no access, so they cannot influence each other."""
    from dataclasses import replace

    from hindsight.domain.learned_ranker import load_ranker

    policy = container.recall._policy
    out: dict[str, tuple[str, Recall]] = {}

    def variant(name: str, label: str, variant_policy: Any) -> None:
        recall = Recall(
            container.reader,
            container.recall._embedder,
            container.clock,
            _NoAccessLog(),
            variant_policy,
            container.settings.candidate_pool,
        )
        out[name] = (label, recall)

    variant(
        "rrf",
        "hand-set weighted RRF, no learned ranker (today's ranking; `HINDSIGHT_RANKER=rrf`)",
        replace(policy, learned=None),
    )
    for path in sorted(LEVER_MODELS.glob("*.json")):
        model = load_ranker(path)
        label = json.loads(path.read_text()).get("lever", path.stem)
        variant(path.stem, label, replace(policy, learned=model))
    return out


async def _evaluate(container: Container, conversations: list[Conversation]) -> dict[str, Any]:
    boards = {name: Scoreboard() for name in ("hindsight", "vector", "bm25", "rrf_vector_bm25")}
    search_ms: list[float] = []
    variants = levers(container)
    lever_boards = {name: Scoreboard() for name in variants}
    lever_ms: dict[str, list[float]] = {name: [] for name in variants}
    for conv in conversations:
        labels, texts, vectors = await _stored_rows(container, conv.sample_id)
        vec, bm25 = VectorIndex(labels, vectors), Bm25Index(labels, texts)
        scope = Scope(tenant_id=TENANT, agent_id=conv.sample_id)
        # what scheduled maintenance would have counted by now (only this step: decay would archive the
        # 2023 conversations at once, measured from their session dates)
        await PostgresMaintenanceStore(container.pool).refresh_keyword_stats(scope)
        for q in conv.questions:
            if not q.evidence:
                continue
            asked = q.as_of
            request = resolve(RecallQuery(text=q.question, top_k=TOP_K, as_of=asked), asked)
            started = time.perf_counter()
            # no access recorded: each question is asked as if first (see _recording_access)
            hits = await container.recall.search(scope, request, record_access=False)
            search_ms.append((time.perf_counter() - started) * 1000)
            boards["hindsight"].add(
                q.category,
                [str(h.memory.metadata.get("dia_id", "")) for h in hits],
                q.evidence,
                conv.sample_id,
            )
            # the same vector the search just used (served by the search's query-embedding cache)
            query_vector = await container.recall._embedder.embed_query(q.question)
            by_vector = vec.search(query_vector, 100)
            by_bm25 = bm25.search(q.question, 100)
            boards["vector"].add(q.category, by_vector[:TOP_K], q.evidence, conv.sample_id)
            boards["bm25"].add(q.category, by_bm25[:TOP_K], q.evidence, conv.sample_id)
            boards["rrf_vector_bm25"].add(
                q.category, rrf([by_vector, by_bm25], top=TOP_K), q.evidence, conv.sample_id
            )
            for name, (_, recall) in variants.items():
                started = time.perf_counter()
                found = await recall.search(scope, request, record_access=False)
                lever_ms[name].append((time.perf_counter() - started) * 1000)
                lever_boards[name].add(
                    q.category,
                    [str(h.memory.metadata.get("dia_id", "")) for h in found],
                    q.evidence,
                    conv.sample_id,
                )
        log(f"locomo: asked {conv.sample_id} ({len(conv.questions)} questions)")
    access_board, access_ms = await _recording_access(container, conversations)
    out: dict[str, Any] = {}
    split = split_of(conversations)
    for name, board in boards.items():
        out[name] = {
            "categories_1_4": board.summary((1, 2, 3, 4)),
            "category_5": board.summary((5,)),
            "split": board.split_summary(split),
        }
    out["hindsight"]["search_ms"] = percentiles(search_ms)
    out["hindsight"]["ranker"] = container.settings.ranker
    out["levers"] = {
        name: {
            "label": variants[name][0],
            "categories_1_4": board.summary((1, 2, 3, 4)),
            "split": board.split_summary(split),
            "search_ms": percentiles(lever_ms[name]),
        }
        for name, board in lever_boards.items()
    }
    out["levers"]["recording_access"] = {
        "label": ACCESS_LABEL,
        "categories_1_4": access_board.summary((1, 2, 3, 4)),
        "split": access_board.split_summary(split),
        "search_ms": percentiles(access_ms),
    }
    return out


ACCESS_LABEL = (
    "shipped ranking, each search recording access as `memory_search` does (a question's hits count as "
    "recalled for the questions after it: the frequency prior; asked after every other row)"
)


async def _recording_access(
    container: Container, conversations: list[Conversation]
) -> tuple[Scoreboard, list[float]]:
    """Every question again, in order, through the shipped search recording access as ``memory_search``
    does: each question's hits are then "recalled" (access_count, debounced to one per hour) for the
    questions after it, which the frequency prior reads. The other rows record none (each question asked
    as if first, as the pools protocol scores them); this pass runs after them so it cannot touch them."""
    board, ms = Scoreboard(), []
    for conv in conversations:
        scope = Scope(tenant_id=TENANT, agent_id=conv.sample_id)
        for q in conv.questions:
            if not q.evidence:
                continue
            asked = q.as_of
            request = resolve(RecallQuery(text=q.question, top_k=TOP_K, as_of=asked), asked)
            started = time.perf_counter()
            hits = await container.recall.search(scope, request)
            ms.append((time.perf_counter() - started) * 1000)
            await container.access_log.flush()  # as a server's: landed before the next question
            board.add(
                q.category,
                [str(h.memory.metadata.get("dia_id", "")) for h in hits],
                q.evidence,
                conv.sample_id,
            )
    return board, ms


async def _run(settings: Any, conversations: list[Conversation]) -> dict[str, Any]:
    # The worker's side needs no ranker: the searching container (and its ranker model) is built after
    # the ingest, as a fresh process would.
    container = await build_container(settings.replace(ranker="rrf"), with_queue=False)
    try:
        ingest = await _ingest(container, conversations)
    finally:
        await container.aclose()
    container = await build_container(settings, with_queue=False)
    try:
        scores = await _evaluate(container, conversations)
    finally:
        await container.aclose()
    return {"ingest": ingest, **scores}


def mcp_run(conversations: int) -> dict[str, Any]:
    """bench/locomo_mcp.py as it is, in a subprocess (its own stack); ``{"error": …}`` if it fails."""
    out = bench_tmpdir("mcp") / "locomo_mcp.json"
    cmd = [sys.executable, str(ROOT / "bench" / "locomo_mcp.py"), "--conversations", str(conversations)]
    started = time.monotonic()
    # 419 writes in a few seconds from one key: the default per-key rate limits would refuse most of them.
    env = {
        **os.environ,
        "HINDSIGHT_RATE_LIMIT_PER_MINUTE": "1000000",
        "HINDSIGHT_RATE_LIMIT_WRITES_PER_MINUTE": "1000000",
    }
    proc = subprocess.run(
        [*cmd, "--json", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800
    )
    if proc.returncode != 0 or not out.exists():
        log(f"locomo: locomo_mcp.py failed ({proc.returncode}): {proc.stderr[-2000:]}")
        last = [line for line in proc.stderr.strip().splitlines() if line.strip()][-1:] or ["?"]
        return {"error": f"exit {proc.returncode}: {last[0][:300]}"}
    result: dict[str, Any] = json.loads(out.read_text())
    result["wall_s"] = round(time.monotonic() - started, 1)
    result["command"] = f"python bench/locomo_mcp.py --conversations {conversations}"
    return result


def run(conversations: int = 7, mcp_conversations: int = 1) -> dict[str, Any]:
    from hindsight.local.stack import LocalStack

    data = load()[:conversations]
    log(f"locomo: {len(data)} conversations, {sum(len(c.turns) for c in data)} turns")
    started = time.monotonic()
    with LocalStack(bench_tmpdir("locomo"), ephemeral=True) as stack:
        settings = stack.require_settings()
        remember_postgres_version(settings.require_database_url())
        result = asyncio.run(_run(settings, data))
    result["conversations"] = [c.sample_id for c in data]
    result["wall_s"] = round(time.monotonic() - started, 1)
    if mcp_conversations > 0:
        log(f"locomo: end to end through the MCP URL ({mcp_conversations} conversation) …")
        result["mcp"] = mcp_run(mcp_conversations)
    return result


def flatten(result: dict[str, Any]) -> dict[str, Any]:
    """The top-level keys the issue asks for: locomo.recall_at_10, locomo.baseline_vector.recall_at_10…"""
    main = result["hindsight"]["categories_1_4"]
    out = {k: main[k] for k in ("questions", "recall_at_1", "recall_at_5", "recall_at_10", "recall_at_25")}
    out["ndcg_at_10"] = main["ndcg_at_10"]
    for name in ("vector", "bm25", "rrf_vector_bm25"):
        s = result[name]["categories_1_4"]
        out[f"baseline_{name}"] = {
            k: s[k] for k in ("recall_at_1", "recall_at_5", "recall_at_10", "recall_at_25", "ndcg_at_10")
        }
    return {**out, **result}
