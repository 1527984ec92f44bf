"""Retrieval on Chinese (and some English, Japanese, Korean) agent memories: Hindsight against vector-only.

The data set is ``bench/data/cjk_retrieval.json``, written for this benchmark: 85 memories of a support /
project / personal assistant and 63 questions naming people, order and ticket ids, product models and
dates (each question's evidence: the ids of the memories that answer it), stored among 671 records that
answer none of them (``background``, made by ``bench/data/make_cjk_background.py``: routine records of
the same month, and copies of the memories about other people, ids and models) — a store in which
names and ids, not topics, tell memories apart, as in a real support agent's memory. Every memory goes
through
the worker's use case (``container.store_memories``: embedding, near-duplicate merge, entity terms), the
keyword statistics are refreshed as maintenance would, then every question is asked at the data set's
``asked_at`` and scored by recall@k over its evidence (bench/locomo.py: recall_at_k).

Rows, all in the same run on the same stored rows:

* ``hindsight``: ``memory_search`` as shipped (vector + full text + entities, the learned ranker);
* ``hindsight_rrf``: the same candidates ranked by the hand-set weighted RRF (``HINDSIGHT_RANKER=rrf``);
* ``hindsight_rrf_no_keyword``: that RRF with the keyword signal's weight at 0, i.e. what the full-text
  signal adds (the learned ranker has no single weight to switch off);
* ``vector``: exact cosine top-k over the stored embeddings (bench/baselines.py: VectorIndex).

    python bench/run.py cjk          # writes the `cjk` section of bench/results/latest.json and the page
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from common import (
    LabelRankings,
    bench_tmpdir,
    log,
    mean_recalls,
    remember_postgres_version,
    store_through_worker,
)
from locomo import recall_at_k

from hindsight.bootstrap import build_container
from hindsight.domain.memory import MemoryDraft, Scope, WriteJob

DATA = Path(__file__).resolve().parent / "data" / "cjk_retrieval.json"
SCOPE = Scope(tenant_id="cjk", agent_id="assistant")
KS = (1, 5, 10)
SYSTEMS = ("hindsight", "hindsight_rrf", "hindsight_rrf_no_keyword", "vector")


def load(path: Path = DATA) -> dict[str, Any]:
    """The data set, checked: unique memory ids, every question's evidence among them."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    ids = [m["id"] for m in data["memories"] + data.get("background", [])]
    if len(set(ids)) != len(ids):
        raise ValueError(f"{path}: duplicate memory ids")
    for q in data["questions"]:
        missing = set(q["evidence"]) - set(ids)
        if not q["evidence"] or missing:
            raise ValueError(f"{path}: question {q['question']!r} has unknown or no evidence {missing}")
    return data


def _jobs(data: dict[str, Any]) -> list[WriteJob]:
    asked = datetime.fromisoformat(data["asked_at"])
    jobs = []
    for m in data["memories"] + data.get("background", []):
        occurred = datetime.fromisoformat(m["occurred_at"]) if m.get("occurred_at") else None
        draft = MemoryDraft(
            content=m["content"], layer=m["layer"], occurred_at=occurred, metadata={"label": m["id"]}
        )
        jobs.append(
            WriteJob(
                id=uuid.uuid4(),
                tenant_id=SCOPE.tenant_id,
                agent_id=SCOPE.agent_id,
                submitted_at=occurred or asked,
                draft=draft,
            )
        )
    return jobs


async def _run(settings: Any, data: dict[str, Any]) -> dict[str, Any]:
    container = await build_container(settings, with_queue=False)
    try:
        ingest = await store_through_worker(container, SCOPE, _jobs(data))
        shipped = container.recall._policy
        weights = shipped.signal_weights
        rrf = dataclasses.replace(shipped, learned=None)
        policies = {
            "hindsight": shipped,
            "hindsight_rrf": rrf,
            "hindsight_rrf_no_keyword": dataclasses.replace(
                rrf, signal_weights=(weights[0], 0.0, weights[2])
            ),
        }
        rankings = await LabelRankings.of(container, SCOPE, policies)
        asked = datetime.fromisoformat(data["asked_at"])
        per_question = []
        for q in data["questions"]:
            ranked = await rankings.rank(q["question"], asked, max(KS))
            row: dict[str, Any] = {"question": q["question"], "lang": q["lang"], "anchor": q["anchor"]}
            for name in SYSTEMS:
                row[name] = {f"recall_at_{k}": recall_at_k(ranked[name], q["evidence"], k) for k in KS}
            per_question.append(row)
    finally:
        await container.aclose()
    out: dict[str, Any] = {
        "data": str(DATA.relative_to(DATA.parents[2])),
        "memories": len(data["memories"]),
        "background": len(data.get("background", [])),
        "ingest": ingest,
    }
    for name in SYSTEMS:
        out[name] = mean_recalls(per_question, name, KS)
        out[name]["by_lang"] = {
            lang: mean_recalls([r for r in per_question if r["lang"] == lang], name, KS)
            for lang in sorted({r["lang"] for r in per_question})
        }
        out[name]["by_anchor"] = {
            anchor: mean_recalls([r for r in per_question if r["anchor"] == anchor], name, KS)
            for anchor in sorted({r["anchor"] for r in per_question})
        }
    out["misses_at_5"] = [r["question"] for r in per_question if r["hindsight"]["recall_at_5"] < 1.0]
    out["per_question"] = per_question
    return out


def run() -> dict[str, Any]:
    """The whole benchmark on a throw-away local stack; the ``cjk`` section of latest.json."""
    from hindsight.local.stack import LocalStack

    data = load()
    log(
        f"cjk: {len(data['memories'])} memories among {len(data.get('background', []))} other records, "
        f"{len(data['questions'])} questions"
    )
    started = time.monotonic()
    with LocalStack(bench_tmpdir("cjk"), ephemeral=True) as stack:
        settings = stack.require_settings()
        remember_postgres_version(settings.require_database_url())
        result = asyncio.run(_run(settings, data))
    result["wall_s"] = round(time.monotonic() - started, 1)
    h, v = result["hindsight"], result["vector"]
    log(
        f"cjk: Hindsight R@5 {h['recall_at_5']:.3f} R@10 {h['recall_at_10']:.3f}; "
        f"vector-only R@5 {v['recall_at_5']:.3f} R@10 {v['recall_at_10']:.3f}"
    )
    return result
