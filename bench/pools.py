"""Candidate pools for ranking experiments and for training the learned ranker (bench/train_ranker.py).

``python bench/pools.py`` ingests the LoCoMo dev conversations once through the worker's use case (as
bench/quality.py does), asks every question through the reader's own search SQL — the pool of candidates
``memory_search`` ranks, with each signal's rank and score — and saves the stored rows, the questions and
the pools to ``var/bench-cache/locomo-pools-<recipe>.json.gz``. Ranking code can then be scored on exactly
the pools the service would rank, in seconds and without a database (``load_pools``, ``evaluate``): the
figures equal the service's as long as the stored text and the search SQL are unchanged (the recipe name
says what was stored; ``bench/run.py locomo`` re-measures through the real service).

    python bench/pools.py [--recipe plain|conversation] [--pool 100]

The stack's data stays in ``var/bench-cache/locomo-stack-<recipe>/`` and a later run with the same recipe
reuses the stored turns (no second ingest: ~2 minutes alone on 2 cores, far longer on a busy machine), so
changing the search SQL costs only the questions. The same-run baselines of bench/quality.py (exact
vector top-k, BM25, their RRF) are computed from the stored rows and saved beside the pools.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any
from uuid import UUID

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, log
from locomo import Conversation, Scoreboard, load, split_of

from hindsight.domain.memory import Candidate, Scope, StoredMemory
from hindsight.usecases.recall import RecallQuery, resolve

CACHE = ROOT / "var" / "bench-cache"
TENANT = "locomo"


async def _ready(vector: list[float]) -> list[float]:
    """A query embedding computed before (the reader asks for it through a call)."""
    return vector


def cache_path(recipe: str, pool: int) -> Path:
    return CACHE / f"locomo-pools-{recipe}-{pool}.json.gz"


@dataclass
class PoolQuestion:
    conversation: str
    split: str
    text: str
    category: int
    evidence: tuple[str, ...]
    asked_at: datetime
    pool: list[Candidate]
    baselines: dict[str, list[str]] = field(default_factory=dict)
    """Top 25 labels of the same-run baselines (vector, bm25, rrf_vector_bm25)."""


@dataclass
class Pools:
    recipe: str
    questions: list[PoolQuestion]
    memories: dict[str, list[StoredMemory]] = field(default_factory=dict)
    """Every stored memory of each conversation (agent), in write order."""

    def label(self, memory: StoredMemory) -> str:
        return str(memory.metadata.get("dia_id", ""))

    def split(self, part: str) -> list[PoolQuestion]:
        return [q for q in self.questions if part in ("all", q.split)]


async def _build(settings: Any, conversations: list[Conversation], recipe: str, pool: int) -> dict[str, Any]:
    import numpy as np
    from baselines import Bm25Index, VectorIndex, rrf
    from psycopg import sql
    from quality import jobs_for

    from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
    from hindsight.adapters.postgres.rows import (
        MEMORY_COLUMNS,
        fetch_all,
        memory_from_row,
        tenant_transaction,
    )
    from hindsight.bootstrap import build_container

    container = await build_container(settings, with_queue=False)
    split = split_of(conversations)
    out: dict[str, Any] = {"recipe": recipe, "pool": pool, "conversations": {}, "questions": []}
    try:
        started = time.monotonic()
        for conv in conversations:
            async with tenant_transaction(container.pool, TENANT) as conn:
                have = await fetch_all(
                    conn,
                    "SELECT count(*) AS n FROM memories WHERE tenant_id = %s AND agent_id = %s",
                    (TENANT, conv.sample_id),
                )
            if have[0]["n"] == len(conv.turns):
                log(f"pools: {conv.sample_id} already stored")
                continue
            if have[0]["n"]:
                raise SystemExit(f"{conv.sample_id}: {have[0]['n']} rows stored, expected {len(conv.turns)}")
            jobs = jobs_for(conv, TENANT, conversation=recipe != "plain")
            for i in range(0, len(jobs), 32):
                for result in await container.store_memories(jobs[i : i + 32]):
                    if result.outcome == "failed":
                        raise RuntimeError(f"write failed: {result.reason}")
            scope = Scope(tenant_id=TENANT, agent_id=conv.sample_id)
            await PostgresMaintenanceStore(container.pool).refresh_keyword_stats(scope)
            log(f"pools: ingested {conv.sample_id} ({len(jobs)} turns, {time.monotonic() - started:.0f}s)")
        for conv in conversations:
            scope = Scope(tenant_id=TENANT, agent_id=conv.sample_id)
            async with tenant_transaction(container.pool, TENANT) as conn:
                rows = await fetch_all(
                    conn,
                    sql.SQL(
                        "SELECT {c} FROM memories m WHERE m.tenant_id = %s AND m.agent_id = %s "
                        "ORDER BY m.created_at, m.id"
                    ).format(c=MEMORY_COLUMNS),
                    (TENANT, conv.sample_id),
                )
                vectors = await fetch_all(
                    conn,
                    "SELECT id, embedding FROM memories WHERE tenant_id = %s AND agent_id = %s",
                    (TENANT, conv.sample_id),
                )
            stored = [memory_from_row(r) for r in rows]
            by_id = {
                r["id"]: np.asarray(
                    r["embedding"].to_numpy() if hasattr(r["embedding"], "to_numpy") else r["embedding"],
                    dtype=np.float32,
                )
                for r in vectors
            }
            labels = [str(m.metadata.get("dia_id", "")) for m in stored]
            vec = VectorIndex(labels, np.stack([by_id[m.id] for m in stored]))
            bm25 = Bm25Index(labels, [m.content for m in stored])
            out["conversations"][conv.sample_id] = {
                "split": split[conv.sample_id],
                "memories": [m.model_dump(mode="json") for m in stored],
            }
            for q in conv.questions:
                if not q.evidence:
                    continue
                asked = q.as_of
                request = resolve(RecallQuery(text=q.question, top_k=25, as_of=asked), asked)
                embedding = await container.embedder.embed_query(q.question)
                candidates = await container.reader.search_candidates(
                    scope, request, partial(_ready, embedding), pool
                )
                by_vector, by_bm25 = vec.search(embedding, 100), bm25.search(q.question, 100)
                out["questions"].append(
                    {
                        "conversation": conv.sample_id,
                        "split": split[conv.sample_id],
                        "text": q.question,
                        "category": q.category,
                        "evidence": list(q.evidence),
                        "asked_at": asked.isoformat(),
                        "baselines": {
                            "vector": by_vector[:25],
                            "bm25": by_bm25[:25],
                            "rrf_vector_bm25": rrf([by_vector, by_bm25], top=25),
                        },
                        "pool": [
                            [
                                str(c.memory.id),
                                c.vector_rank,
                                c.vector_similarity,
                                c.keyword_rank,
                                c.keyword_score,
                                c.entity_rank,
                                c.entity_matches,
                            ]
                            for c in candidates
                        ],
                    }
                )
            log(f"pools: asked {conv.sample_id}")
    finally:
        await container.aclose()
    return out


def build(recipe: str, pool: int, conversations: int = 7) -> Path:
    import os

    from hindsight.local.stack import LocalStack

    data = load()[:conversations]
    if os.environ.get("HINDSIGHT_DATABASE_URL"):  # a stack already running (e.g. another pools run's)
        from hindsight.config import Settings

        result = asyncio.run(_build(Settings(), data, recipe, pool))
    else:
        with LocalStack(CACHE / f"locomo-stack-{recipe}") as stack:
            result = asyncio.run(_build(stack.require_settings(), data, recipe, pool))
    path = cache_path(recipe, pool)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    with gzip.open(partial, "wt") as fh:
        json.dump(result, fh)
    partial.replace(path)
    log(f"pools: wrote {path}")
    return path


def load_pools(recipe: str = "conversation", pool: int = 100) -> Pools:
    """The cached pools (build them first with ``python bench/pools.py``)."""
    path = cache_path(recipe, pool)
    if not path.exists():
        raise SystemExit(f"{path} missing: run `python bench/pools.py --recipe {recipe} --pool {pool}`")
    with gzip.open(path, "rt") as fh:
        raw = json.load(fh)
    pools = Pools(recipe=raw["recipe"], questions=[])
    by_id: dict[str, StoredMemory] = {}
    for conv, entry in raw["conversations"].items():
        memories = [StoredMemory.model_validate(m) for m in entry["memories"]]
        pools.memories[conv] = memories
        by_id.update({str(m.id): m for m in memories})
    for q in raw["questions"]:
        pools.questions.append(
            PoolQuestion(
                conversation=q["conversation"],
                split=q["split"],
                text=q["text"],
                category=q["category"],
                evidence=tuple(q["evidence"]),
                asked_at=datetime.fromisoformat(q["asked_at"]),
                baselines=q.get("baselines", {}),
                pool=[
                    Candidate(
                        memory=by_id[mid],
                        vector_rank=vr,
                        vector_similarity=vs,
                        keyword_rank=kr,
                        keyword_score=ks,
                        entity_rank=er,
                        entity_matches=em,
                    )
                    for mid, vr, vs, kr, ks, er, em in q["pool"]
                ],
            )
        )
    return pools


Ranker = Callable[[PoolQuestion], Sequence[StoredMemory]]


def evaluate(pools: Pools, rank: Ranker, questions: Iterable[PoolQuestion] | None = None) -> Scoreboard:
    """Score a ranking function (question → memories, best first) on the pools."""
    board = Scoreboard()
    for q in pools.questions if questions is None else questions:
        ranked = rank(q)
        board.add(q.category, [pools.label(m) for m in ranked[:25]], q.evidence, q.conversation)
    return board


def memory_uuid(value: str) -> UUID:
    return UUID(value)


def protocol_section(pools: Pools) -> dict[str, Any]:
    """The issue-13 protocol figures from the cached pools, ranked by the service's own ranking code:
    the shipped configuration (learned ranker), each lever row (the hand-set RRF fallback, the ablation
    models of bench/models/) and the same-run baselines, for tune / validate / all, per category and per
    conversation. Shaped like ``locomo`` of latest.json (``hindsight``, ``levers``, baselines)."""
    from quality import LEVER_MODELS
    from train_ranker import request_for

    from hindsight.domain.learned_ranker import load_ranker
    from hindsight.domain.ranking import RankingPolicy, rank_candidates

    split = {q.conversation: q.split for q in pools.questions}

    def board_for(policy: RankingPolicy) -> tuple[Scoreboard, list[float]]:
        timings: list[float] = []

        def rank(q: PoolQuestion) -> list[StoredMemory]:
            request = request_for(q)
            started = time.perf_counter()
            hits = rank_candidates(
                q.pool, policy=policy, now=q.asked_at, top_k=25, intent=request.time_intent, request=request
            )
            timings.append((time.perf_counter() - started) * 1000)
            return [h.memory for h in hits]

        return evaluate(pools, rank), timings

    def summary(board: Scoreboard) -> dict[str, Any]:
        return {
            "categories_1_4": board.summary((1, 2, 3, 4)),
            "category_5": board.summary((5,)),
            "split": board.split_summary(split),
        }

    from common import percentiles

    shipped, ms = board_for(RankingPolicy(learned=load_ranker()))
    out: dict[str, Any] = {"pools": {"recipe": pools.recipe, "questions": len(pools.questions)}}
    out["hindsight"] = {**summary(shipped), "ranking_ms": percentiles(ms)}
    variants = {
        "rrf": (
            "hand-set weighted RRF, no learned ranker (today's ranking; `HINDSIGHT_RANKER=rrf`)",
            RankingPolicy(),
        )
    }
    for path in sorted(LEVER_MODELS.glob("*.json")):
        label = json.loads(path.read_text()).get("lever", path.stem)
        variants[path.stem] = (label, RankingPolicy(learned=load_ranker(path)))
    out["levers"] = {}
    for name, (label, policy) in variants.items():
        board, ms = board_for(policy)
        out["levers"][name] = {"label": label, **summary(board), "ranking_ms": percentiles(ms)}
    for name in ("vector", "bm25", "rrf_vector_bm25"):
        board = Scoreboard()
        for q in pools.questions:
            board.add(q.category, q.baselines.get(name, []), q.evidence, q.conversation)
        out[name] = summary(board)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--recipe", default="conversation", choices=["plain", "conversation"])
    parser.add_argument("--pool", type=int, default=100)
    parser.add_argument("--conversations", type=int, default=7)
    parser.add_argument(
        "--report",
        action="store_true",
        help="score the cached pools (shipped ranker, levers, baselines) into latest.json section "
        "locomo_protocol and regenerate docs/benchmarks.md; no ingest",
    )
    args = parser.parse_args()
    from hindsight.logs import configure_local_logging

    configure_local_logging("WARNING")
    if args.report:
        from common import merge_results
        from report import write

        section = protocol_section(load_pools(args.recipe, args.pool))
        merge_results("locomo_protocol", section, "python bench/pools.py --report")
        write()
        return
    if not cache_path(args.recipe, args.pool).exists():
        build(args.recipe, args.pool, args.conversations)


if __name__ == "__main__":
    main()
