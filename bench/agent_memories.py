"""Does the ranking generalise beyond conversations? Retrieval over an agent's own memories.

The data set is ``bench/data/agent_memories.json``, written for this benchmark (not derived from
LoCoMo): an assistant's memories of one user — preferences, personal facts (some keyed), people, tools
and infrastructure, schedules, task episodes with outcomes, background notes that answer nothing, and
four short conversations written with their turn positions (conversation_id, session_index,
turn_index, session_at) — and questions each answered by exactly one memory (``evidence``), grouped by
``kind``. Every memory goes through the worker's use case (``container.store_memories``: embedding,
near-duplicate merge, keys, entity terms); the keyword statistics are refreshed as maintenance would;
then every question is asked at the data set's ``asked_at`` and scored by recall@k of its one memory.

Rows, all in the same run on the same stored rows:

* ``hindsight``: ``memory_search`` as shipped (vector + full text + entities, the learned ranker);
* ``hindsight_rrf``: the same candidates ranked by the hand-set weighted RRF (``HINDSIGHT_RANKER=rrf``);
* ``vector``: exact cosine top-k over the stored embeddings (bench/baselines.py: VectorIndex).

The learned ranker is fitted on LoCoMo's tune conversations and on one half of these questions (``split``:
a seeded half, ``train``; bench/train_ranker.py reads their candidate pools, written by ``--pools``); the
other half, ``held-out``, is never fitted on. Every figure is given for all questions and for the
held-out half.

    HINDSIGHT_EMBED_THREADS=1 .venv/bin/python bench/agent_memories.py [--json out.json] [--misses]
    HINDSIGHT_EMBED_THREADS=1 .venv/bin/python bench/agent_memories.py --pools   # the training pools
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gzip
import json
import random
import sys
import time
import uuid
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from common import LabelRankings, bench_tmpdir, log, mean_recalls, store_through_worker
from locomo import recall_at_k

from hindsight.adapters.postgres.rows import MEMORY_COLUMNS, fetch_all, memory_from_row, tenant_transaction
from hindsight.bootstrap import build_container
from hindsight.domain.memory import MemoryDraft, Scope, WriteJob
from hindsight.usecases.recall import RecallQuery, resolve

DATA = Path(__file__).resolve().parent / "data" / "agent_memories.json"
SCOPE = Scope(tenant_id="agent-memories", agent_id="assistant")
KS = (1, 5)
SYSTEMS = ("hindsight", "hindsight_rrf", "vector")
SPLIT_SEED = 5
"""The seed of ``split``'s shuffle: which half of the questions the ranker may be fitted on."""
POOLS = Path(__file__).resolve().parents[1] / "var" / "bench-cache" / "agent-memories-pools.json.gz"
POOL = 100
"""Candidates per signal (the service's default ``candidate_pool``)."""
SPREAD = timedelta(days=60)
"""Memories without a time of their own are written over the 60 days before ``asked_at``, in file order."""


def load(path: Path = DATA) -> dict[str, Any]:
    """The data set, checked: unique memory ids, every question answered by one known memory.

    Raises:
        ValueError: naming the duplicate ids or the question whose evidence is unknown.
    """
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    ids = [m["id"] for m in data["memories"]]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate memory ids")
    for q in data["questions"]:
        if len(q["evidence"]) != 1 or q["evidence"][0] not in ids:
            raise ValueError(
                f"{path}: question {q['question']!r} needs one known memory, has {q['evidence']}"
            )
    return data


def split(questions: list[Any]) -> tuple[list[int], list[int]]:
    """(train, held-out): the indexes of the questions in each half, each in file order. A seeded
    shuffle (``SPLIT_SEED``) of the question indexes; the first half (the smaller, for an odd count) is
    ``train``."""
    order = list(range(len(questions)))
    random.Random(SPLIT_SEED).shuffle(order)
    half = len(order) // 2
    return sorted(order[:half]), sorted(order[half:])


_PASSED = ("key", "outcome", "task_type", "conversation_id", "session_index", "turn_index", "session_at")
"""Fields of a data-set memory passed to the draft as they are."""


def _jobs(data: dict[str, Any]) -> list[WriteJob]:
    asked = datetime.fromisoformat(data["asked_at"])
    memories = data["memories"]
    jobs = []
    for n, m in enumerate(memories):
        extra = {k: m[k] for k in _PASSED if k in m}
        written = (
            datetime.fromisoformat(m["session_at"])
            if "session_at" in m
            else asked - SPREAD + SPREAD * (n + 1) / (len(memories) + 1)
        )
        draft = MemoryDraft(content=m["content"], layer=m["layer"], metadata={"label": m["id"]}, **extra)
        jobs.append(
            WriteJob(
                id=uuid.uuid4(),
                tenant_id=SCOPE.tenant_id,
                agent_id=SCOPE.agent_id,
                submitted_at=written,
                draft=draft,
            )
        )
    return jobs


async def _run(settings: Any, data: dict[str, Any]) -> dict[str, Any]:
    container = await build_container(settings, with_queue=False)
    try:
        ingest = await store_through_worker(container, SCOPE, _jobs(data))
        shipped = container.recall._policy
        if shipped.learned is None:
            raise SystemExit("the shipped ranker is off (HINDSIGHT_RANKER=rrf?): unset it to compare")
        policies = {"hindsight": shipped, "hindsight_rrf": dataclasses.replace(shipped, learned=None)}
        rankings = await LabelRankings.of(container, SCOPE, policies)
        asked = datetime.fromisoformat(data["asked_at"])
        per_question = []
        _, held = split(data["questions"])
        for n, q in enumerate(data["questions"]):
            ranked = await rankings.rank(q["question"], asked, max(KS))
            row: dict[str, Any] = {
                "question": q["question"],
                "kind": q["kind"],
                "split": "held-out" if n in held else "train",
                "evidence": q["evidence"][0],
            }
            for name in SYSTEMS:
                row[name] = {f"recall_at_{k}": recall_at_k(ranked[name], q["evidence"], k) for k in KS}
                row[name]["top"] = ranked[name][:3]
            per_question.append(row)
    finally:
        await container.aclose()
    out: dict[str, Any] = {
        "data": str(DATA.relative_to(DATA.parents[2])),
        "memories": len(data["memories"]),
        "ingest": ingest,
    }
    kinds = sorted({r["kind"] for r in per_question})
    for name in SYSTEMS:
        out[name] = mean_recalls(per_question, name, KS)
        out[name]["held_out"] = mean_recalls([r for r in per_question if r["split"] == "held-out"], name, KS)
        out[name]["by_kind"] = {
            k: mean_recalls([r for r in per_question if r["kind"] == k], name, KS) for k in kinds
        }
    out["per_question"] = per_question
    return out


async def _ready(vector: list[float]) -> list[float]:
    """A query embedding computed before (the reader asks for it through a call)."""
    return vector


async def _pools(settings: Any, data: dict[str, Any]) -> dict[str, Any]:
    """Every stored memory and each question's candidate pool as the reader's search SQL returns it (as
    bench/pools.py does for LoCoMo): what bench/train_ranker.py fits on (the ``train`` half)."""
    from psycopg import sql

    container = await build_container(settings, with_queue=False)
    try:
        await store_through_worker(container, SCOPE, _jobs(data))
        async with tenant_transaction(container.pool, SCOPE.tenant_id) as conn:
            rows = await fetch_all(
                conn,
                sql.SQL(
                    "SELECT {c} FROM memories m WHERE m.tenant_id = %s AND m.agent_id = %s "
                    "ORDER BY m.created_at, m.id"
                ).format(c=MEMORY_COLUMNS),
                (SCOPE.tenant_id, SCOPE.agent_id),
            )
        asked = datetime.fromisoformat(data["asked_at"])
        train, _ = split(data["questions"])
        questions = []
        for n, q in enumerate(data["questions"]):
            request = resolve(RecallQuery(text=q["question"], top_k=25, as_of=asked), asked)
            embedding = await container.embedder.embed_query(q["question"])
            candidates = await container.reader.search_candidates(
                SCOPE, request, partial(_ready, embedding), POOL
            )
            questions.append(
                {
                    "text": q["question"],
                    "kind": q["kind"],
                    "split": "train" if n in train else "held-out",
                    "evidence": q["evidence"],
                    "asked_at": asked.isoformat(),
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
    finally:
        await container.aclose()
    return {
        "memories": [memory_from_row(r).model_dump(mode="json") for r in rows],
        "questions": questions,
    }


def write_pools(path: Path = POOLS) -> Path:
    """``_pools`` on a throw-away local stack, written gzipped to ``path``."""
    from hindsight.local.stack import LocalStack

    with LocalStack(bench_tmpdir("agent-memories-pools"), ephemeral=True) as stack:
        result = asyncio.run(_pools(stack.require_settings(), load()))
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as fh:
        json.dump(result, fh)
    log(f"agent_memories: wrote {path} ({len(result['questions'])} pools)")
    return path


def run() -> dict[str, Any]:
    """The whole benchmark on a throw-away local stack."""
    from hindsight.local.stack import LocalStack

    data = load()
    log(f"agent_memories: {len(data['memories'])} memories, {len(data['questions'])} questions")
    started = time.monotonic()
    with LocalStack(bench_tmpdir("agent-memories"), ephemeral=True) as stack:
        result = asyncio.run(_run(stack.require_settings(), data))
    result["wall_s"] = round(time.monotonic() - started, 1)
    return result


def table(result: dict[str, Any]) -> str:
    """recall@1 / recall@5 per system, overall and per kind of question, as a Markdown table."""
    kinds = list(result["hindsight"]["by_kind"])
    head = [
        "system",
        f"all ({result['hindsight']['questions']})",
        f"held-out ({result['hindsight']['held_out']['questions']})",
    ] + [f"{k} ({result['hindsight']['by_kind'][k]['questions']})" for k in kinds]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in SYSTEMS:
        r = result[name]
        held = r["held_out"]
        cells = [
            f"{r['recall_at_1']:.3f} / {r['recall_at_5']:.3f}",
            f"{held['recall_at_1']:.3f} / {held['recall_at_5']:.3f}",
        ] + [f"{r['by_kind'][k]['recall_at_1']:.3f} / {r['by_kind'][k]['recall_at_5']:.3f}" for k in kinds]
        lines.append("| " + " | ".join([name, *cells]) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write the whole result (every question's top 3) here")
    parser.add_argument(
        "--misses", action="store_true", help="list the questions the shipped ranking misses at 1"
    )
    parser.add_argument(
        "--pools", action="store_true", help=f"only write every question's candidate pool to {POOLS}"
    )
    args = parser.parse_args()
    if args.pools:
        write_pools()
        return
    result = run()
    print(f"recall@1 / recall@5 ({result['memories']} memories, ingest {result['ingest']['outcomes']}):")
    print(table(result))
    if args.misses:
        for r in result["per_question"]:
            if r["hindsight"]["recall_at_1"] < 1:
                print(
                    f"  miss@1 {r['question']!r} want {r['evidence']}: shipped {r['hindsight']['top']}, "
                    f"rrf {r['hindsight_rrf']['top']}, vector {r['vector']['top']}"
                )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
