"""LoCoMo retrieval in-process: ingest through the worker's use case (embed in batches, store), then score
ranking policies on the same stored data. For comparing retrieval changes quickly; the end-to-end figure
through the MCP URL is ``locomo_mcp.py``.

    python bench/locomo_eval.py --conversations 1 --policy seeds --policy relevance
    python bench/locomo_eval.py --split validate --policy service --rankings before.json

``service`` is the shipped configuration (the learned ranker, as ``HINDSIGHT_RANKER=learned``), ``seeds``
the hand-set RRF fallback. ``--split`` picks the protocol's conversations (issue 13: the first 4 of the dev
file are ``tune``, the last 3 ``validate``); ``--recipe conversation`` writes each turn's conversation
position, as ``hindsight ingest`` does (the learned ranker's neighbour features need it). ``--rankings``
saves every question's ranked labels (dia ids) per policy, so two runs can be compared question by question.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import Conversation, Scoreboard, load, split_of
from quality import jobs_for

from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.bootstrap import Container, build_container
from hindsight.domain.learned_ranker import load_ranker
from hindsight.domain.memory import Scope
from hindsight.domain.ranking import LayerWeights, RankingPolicy
from hindsight.logs import configure_local_logging
from hindsight.usecases.recall import Recall, RecallQuery, resolve

POLICIES: dict[str, RankingPolicy] = {
    "seeds": RankingPolicy(),
    "vector_only": RankingPolicy(signal_weights=(1.0, 0.0, 0.0)),
    "keyword_only": RankingPolicy(signal_weights=(0.0, 1.0, 0.0)),
    "no_entity": RankingPolicy(signal_weights=(1.0, 1.0, 0.0)),
    "seeds_nofreq": RankingPolicy(
        episodic=LayerWeights(0.3, 0.5, 0.0), semantic=LayerWeights(0.05, 0.8, 0.0)
    ),
    "k20": RankingPolicy(rrf_k=20),
    "k10": RankingPolicy(rrf_k=10),
    "kw07_ent03": RankingPolicy(signal_weights=(1.0, 0.7, 0.3)),
    "kw05_ent05": RankingPolicy(signal_weights=(1.0, 0.5, 0.5)),
    "vec15": RankingPolicy(signal_weights=(1.5, 1.0, 0.5)),
    "v05_k1": RankingPolicy(signal_weights=(0.5, 1.0, 0.0)),
    "v03_k1": RankingPolicy(signal_weights=(0.3, 1.0, 0.0)),
    "v07_k1_e02": RankingPolicy(signal_weights=(0.7, 1.0, 0.2)),
    "v05_k1_k10": RankingPolicy(signal_weights=(0.5, 1.0, 0.0), rrf_k=10),
    "v05_k1_e02_k10": RankingPolicy(signal_weights=(0.5, 1.0, 0.2), rrf_k=10),
    "v05_k1_e02_k5": RankingPolicy(signal_weights=(0.5, 1.0, 0.2), rrf_k=5),
    "v04_k1_e03_k10": RankingPolicy(signal_weights=(0.4, 1.0, 0.3), rrf_k=10),
    "v03_k1_e03_k10": RankingPolicy(signal_weights=(0.3, 1.0, 0.3), rrf_k=10),
    "v04_k1_e05_k10": RankingPolicy(signal_weights=(0.4, 1.0, 0.5), rrf_k=10),
    "v04_k1_e03_k10_rw9": RankingPolicy(signal_weights=(0.4, 1.0, 0.3), rrf_k=10, relevance_weight=0.9),
    "relevance": RankingPolicy(
        episodic=LayerWeights(0.0, 1.0, 0.0), semantic=LayerWeights(0.0, 1.0, 0.0), relevance_weight=1.0
    ),
}


CONTEXT = os.environ.get("LOCOMO_CONTEXT", "none")  # "previous" measured worse (docs/retrieval.md)


async def ingest(
    container: Container, conversations: list[Conversation], tenant: str, batch: int, recipe: str = "plain"
) -> float:
    started = time.monotonic()
    for conv in conversations:
        jobs = jobs_for(
            conv, tenant, previous_turn_context=CONTEXT == "previous", conversation=recipe == "conversation"
        )
        for i in range(0, len(jobs), batch):
            results = await container.store_memories(jobs[i : i + batch])
            failed = [r for r in results if r.outcome == "failed"]
            if failed:
                raise RuntimeError(f"{len(failed)} writes failed: {failed[0].reason}")
        if os.environ.get("LOCOMO_KEYWORD_STATS", "1") == "1":  # what maintenance would count by now
            stats = PostgresMaintenanceStore(container.pool)
            await stats.refresh_keyword_stats(Scope(tenant_id=tenant, agent_id=conv.sample_id))
    return time.monotonic() - started


class _NoAccessLog:
    def note(self, scope: Any, ids: Any, at: Any) -> None:
        return None


POOL = int(os.environ.get("LOCOMO_POOL", "100"))


async def evaluate(
    container: Container,
    conversations: list[Conversation],
    tenant: str,
    policy: RankingPolicy,
    top_k: int,
    rankings: list[list[str]] | None = None,
) -> Scoreboard:
    recall = Recall(
        container.reader,
        container.recall._embedder,
        container.clock,
        _NoAccessLog(),  # comparisons must not feed each other through access counts
        policy,
        POOL,
    )
    board = Scoreboard()
    for conv in conversations:
        scope = Scope(tenant_id=tenant, agent_id=conv.sample_id)
        for q in conv.questions:
            if not q.evidence:
                continue
            asked = q.as_of
            request = resolve(RecallQuery(text=q.question, top_k=top_k, as_of=asked), asked)
            hits = await recall.search(scope, request)
            labels = [str(h.memory.metadata.get("dia_id", "")) for h in hits]
            board.add(q.category, labels, q.evidence, conv.sample_id)
            if rankings is not None:
                rankings.append(labels)
    return board


async def main_async(args: argparse.Namespace, settings: Any) -> dict[str, Any]:
    every = load()
    if args.split:
        split = split_of(every)
        conversations = [c for c in every if args.split in ("all", split[c.sample_id])]
    else:
        conversations = every[: args.conversations]
    container = await build_container(settings, with_queue=False)
    try:
        seconds = await ingest(container, conversations, "locomo", args.batch, args.recipe)
        out: dict[str, Any] = {
            "conversations": [c.sample_id for c in conversations],
            "recipe": args.recipe,
            "turns": sum(len(c.turns) for c in conversations),
            "ingest_s": round(seconds, 1),
        }
        rankings: dict[str, list[list[str]]] = {}
        for name in args.policy:
            policy = RankingPolicy(learned=load_ranker()) if name == "service" else POLICIES[name]
            rankings[name] = []
            board = await evaluate(container, conversations, "locomo", policy, args.top_k, rankings[name])
            out[name] = {"1-4": board.summary((1, 2, 3, 4)), "5": board.summary((5,))}
            s = out[name]["1-4"]
            print(
                f"{name:>12}: R@1 {s['recall_at_1']:.3f}  R@5 {s['recall_at_5']:.3f}  "
                f"R@10 {s['recall_at_10']:.3f}  R@25 {s['recall_at_25']:.3f}  nDCG@10 {s['ndcg_at_10']:.3f}",
                flush=True,
            )
        await container.access_log.flush()
        if args.rankings:
            args.rankings.write_text(json.dumps(rankings) + "\n")
        return out
    finally:
        await container.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--policy", action="append", choices=sorted([*POLICIES, "service"]))
    parser.add_argument(
        "--split",
        choices=["tune", "validate", "all"],
        help="the protocol's conversations (overrides --conversations)",
    )
    parser.add_argument("--recipe", choices=["plain", "conversation"], default="plain")
    parser.add_argument("--rankings", type=Path, help="write every question's ranked dia ids per policy here")
    parser.add_argument("--top-k", type=int, default=25)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    args.policy = args.policy or ["seeds"]
    configure_local_logging("WARNING")
    from hindsight.local.stack import LocalStack

    with LocalStack(Path(tempfile.mkdtemp(prefix="hindsight-eval-")), ephemeral=True) as stack:
        result = asyncio.run(main_async(args, stack.require_settings()))
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
