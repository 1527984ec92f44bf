"""Synthetic but realistic memory sets for the latency and throughput benchmarks.

Deterministic for a seed: text comes from templates × vocabularies (people, services, orders, places,
foods, tools…), 20–600 characters (log-uniform target lengths, so short facts dominate as they do in
practice, with a long tail of notes), about a third carry a key, most carry entities and tags, event
times spread over a year, and both layers appear. Queries are generated the same way and mention the
same vocabulary, so full-text and entity signals find candidates as they would on real data.

Embeddings (``embeddings_for``): the first ``real`` texts are embedded with the real model and cached
in ``var/bench-cache/`` keyed by a hash of the text (reruns are instant); the rest are perturbations of
those real vectors drawn inside their own covariance (see ``perturbed``): why, and why this does not
flatter HNSW, is in docs/benchmarks.md.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

CACHE_DIR = Path(__file__).resolve().parents[1] / "var" / "bench-cache"
YEAR_START = datetime(2026, 1, 1, tzinfo=UTC)

FIRST = [
    "Alex",
    "Maya",
    "Priya",
    "Jonas",
    "Sofia",
    "Liam",
    "Noah",
    "Emma",
    "Olivia",
    "Ava",
    "Mateo",
    "Lucas",
    "Chen",
    "Wei",
    "Aiko",
    "Kenji",
    "Fatima",
    "Omar",
    "Amara",
    "Kwame",
    "Ines",
    "Hugo",
    "Elena",
    "Marco",
    "Sven",
    "Freya",
    "Ravi",
    "Anika",
    "Diego",
    "Lucia",
    "Tomas",
    "Hana",
    "Yusuf",
    "Leila",
    "Ethan",
    "Grace",
    "Mia",
    "Zoe",
    "Arjun",
    "Nina",
]
LAST = [
    "Garcia",
    "Chen",
    "Novak",
    "Okafor",
    "Rossi",
    "Silva",
    "Tanaka",
    "Muller",
    "Dubois",
    "Kowalski",
    "Haddad",
    "Larsen",
    "Patel",
    "Moreau",
]
SERVICES = [
    "billing-service",
    "checkout-api",
    "search-indexer",
    "auth-gateway",
    "payments-worker",
    "notification-hub",
    "inventory-sync",
    "report-builder",
    "pricing-engine",
    "user-profile",
    "media-transcoder",
    "ledger-api",
]
FOODS = [
    "peanuts",
    "shellfish",
    "gluten",
    "dairy",
    "sesame",
    "eggs",
    "soy",
    "mushrooms",
    "cilantro",
    "strawberries",
]
CITIES = [
    "Lisbon",
    "Berlin",
    "Osaka",
    "Toronto",
    "Nairobi",
    "Austin",
    "Kraków",
    "Montreal",
    "Seoul",
    "Porto",
    "Dublin",
    "Oslo",
    "Lyon",
    "Madrid",
    "Chicago",
    "Melbourne",
]
TOOLS = [
    "Postgres",
    "Redis",
    "Kafka",
    "Terraform",
    "Grafana",
    "Airflow",
    "dbt",
    "Kubernetes",
    "Snowflake",
    "Jupyter",
    "Figma",
    "Notion",
]
TOPICS = [
    "dark mode",
    "weekly summaries",
    "email over chat",
    "metric units",
    "short answers",
    "tables over prose",
    "morning meetings",
    "async updates",
    "Python examples",
    "bullet points",
    "formal tone",
    "detailed citations",
]
HOBBIES = [
    "climbing",
    "pottery",
    "chess",
    "trail running",
    "baking sourdough",
    "birdwatching",
    "sailing",
    "painting",
    "cycling",
]
ERRORS = ["HTTP 429", "HTTP 503", "a timeout", "OOMKilled", "a schema mismatch", "HTTP 401", "a deadlock"]
TAGS = [
    "preference",
    "deploy",
    "incident",
    "order",
    "travel",
    "health",
    "family",
    "billing",
    "onboarding",
    "meeting",
    "bug",
    "feature",
    "customer",
    "finance",
    "hiring",
]
ORDER_STATES = ["shipped", "delayed at customs", "cancelled", "refunded", "out for delivery", "delivered"]

FILLER = [
    "They mentioned it twice, so it seems to matter to them.",
    "No follow-up was scheduled yet.",
    "The team agreed to revisit this after the next release.",
    "This came up during the weekly sync.",
    "It was noted in the ticket as well.",
    "The user asked to be reminded about it later.",
    "Nobody objected, although the timeline is tight.",
    "A workaround is in place until the root cause is fixed.",
    "The decision was recorded in the project notes.",
    "It should be checked again before the end of the quarter.",
    "The previous attempt had been rolled back.",
    "Support confirmed the details by email.",
]


@dataclass(frozen=True)
class SyntheticMemory:
    content: str
    layer: str
    key: str | None
    importance: float
    occurred_at: datetime
    tags: list[str]
    entities: dict[str, Any]
    metadata: dict[str, Any] = field(default_factory=dict)


def _person(r: random.Random) -> str:
    return f"{r.choice(FIRST)} {r.choice(LAST)}"


def _sentence(r: random.Random) -> tuple[str, dict[str, Any], str | None, str, list[str]]:
    """One fact or event: (text, entities, key, layer, tags)."""
    who = _person(r)
    first = who.split()[0]
    kind = r.randrange(10)
    if kind == 0:
        food = r.choice(FOODS)
        return (
            f"{who} is allergic to {food} and asks that meals avoid it.",
            {"person": who},
            f"{first.lower()}.allergies",
            "semantic",
            ["health", "preference"],
        )
    if kind == 1:
        topic = r.choice(TOPICS)
        return (
            f"{who} prefers {topic}.",
            {"person": who},
            f"{first.lower()}.prefers.{topic.split()[0].lower()}",
            "semantic",
            ["preference"],
        )
    if kind == 2:
        svc, err = r.choice(SERVICES), r.choice(ERRORS)
        ver = f"v{r.randint(1, 4)}.{r.randint(0, 19)}"
        return (
            f"Deployment of {svc} {ver} failed with {err}; {first} rolled it back.",
            {"service": svc, "person": who},
            f"deploy.{svc}",
            "episodic",
            ["deploy", "incident"],
        )
    if kind == 3:
        order = f"A-{r.randint(1000, 9999)}"
        state = r.choice(ORDER_STATES)
        return (
            f"Order {order} for {who} is {state}.",
            {"order_id": order, "person": who},
            f"order:{order}",
            "semantic",
            ["order", "customer"],
        )
    if kind == 4:
        city = r.choice(CITIES)
        return (
            f"{who} is travelling to {city} for a conference next month.",
            {"person": who, "city": city},
            None,
            "episodic",
            ["travel"],
        )
    if kind == 5:
        tool = r.choice(TOOLS)
        return (
            f"The data team moved the nightly jobs from cron to {tool}; {first} owns the migration.",
            {"tool": tool, "person": who},
            None,
            "episodic",
            ["feature"],
        )
    if kind == 6:
        hobby = r.choice(HOBBIES)
        return (f"{who} spends weekends {hobby}.", {"person": who}, None, "semantic", ["family"])
    if kind == 7:
        svc = r.choice(SERVICES)
        return (
            f"Invoice dispute on {svc}: {who} was charged twice and a refund of "
            f"{r.randint(5, 900)} EUR was approved.",
            {"person": who, "service": svc},
            None,
            "episodic",
            ["billing", "customer"],
        )
    if kind == 8:
        return (
            f"Meeting with {who} about the {r.choice(SERVICES)} roadmap: priorities are latency, then cost.",
            {"person": who},
            None,
            "episodic",
            ["meeting"],
        )
    return (
        f"{who} started as {r.choice(['an engineer', 'a designer', 'a manager', 'an analyst'])} "
        f"in {r.choice(CITIES)}.",
        {"person": who},
        f"{first.lower()}.role",
        "semantic",
        ["onboarding", "hiring"],
    )


def memory(r: random.Random, index: int) -> SyntheticMemory:
    """One synthetic memory; its target length is log-uniform in [20, 600] characters."""
    target = int(math.exp(r.uniform(math.log(20), math.log(600))))
    text, entities, key, layer, tags = _sentence(r)
    while len(text) < target:
        text += " " + (r.choice(FILLER) if r.random() < 0.6 else _sentence(r)[0])
    if len(text) > 600:
        text = text[:600].rsplit(" ", 1)[0]
    if len(text) < 20:
        text = (text + " " + r.choice(FILLER))[:600]
    # about a third keep a key; a suffix keeps semantic keys from superseding each other in bulk loads
    key = f"{key}.{index}" if key and r.random() < 0.35 else None
    occurred = YEAR_START + timedelta(seconds=r.uniform(0, 365 * 86400))
    importance = round(min(1.0, max(0.0, r.betavariate(2, 3))), 3)
    return SyntheticMemory(
        content=text,
        layer=layer,
        key=key,
        importance=importance,
        occurred_at=occurred,
        tags=r.sample(tags, k=r.randint(0, len(tags))),
        entities=entities if r.random() < 0.8 else {},
        metadata={"source": r.choice(["chat", "tool", "email", "import"]), "n": index},
    )


def memories(count: int, seed: int = 7) -> list[SyntheticMemory]:
    r = random.Random(seed)
    return [memory(r, i) for i in range(count)]


QUERY_TEMPLATES: list[Callable[[random.Random], str]] = [
    lambda r: f"what is {r.choice(FIRST)} allergic to?",
    lambda r: f"how does {r.choice(FIRST)} like answers formatted?",
    lambda r: f"why did the {r.choice(SERVICES)} deployment fail?",
    lambda r: f"has order A-{r.randint(1000, 9999)} shipped yet?",
    lambda r: f"who is travelling to {r.choice(CITIES)}?",
    lambda r: "which tool runs the nightly data jobs now?",
    lambda r: f"what does {r.choice(FIRST)} do on weekends?",
    lambda r: f"was {r.choice(FIRST)} {r.choice(LAST)} refunded for the double charge?",
    lambda r: f"what did we decide about the {r.choice(SERVICES)} roadmap",
    lambda r: f"where does {r.choice(FIRST)} work and what is their role",
    lambda r: f"{r.choice(TOOLS)} migration owner",
    lambda r: f"incidents with {r.choice(ERRORS)} last month",
]


def queries(count: int, seed: int = 11) -> list[str]:
    """Distinct query texts (so a cold query-embedding cache really is cold)."""
    r = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < count:
        out[r.choice(QUERY_TEMPLATES)(r)] = None
    return list(out)


# ---- embeddings ---------------------------------------------------------------------------------


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


class EmbeddingCache:
    """Real embeddings on disk (``var/bench-cache/<model>.npz``), keyed by a hash of the text."""

    def __init__(self, model_name: str, kind: str) -> None:
        safe = model_name.replace("/", "_")
        self.path = CACHE_DIR / f"{safe}-{kind}.npz"
        self._vectors: dict[str, np.ndarray] = {}
        if self.path.exists():
            data = np.load(self.path)
            self._vectors = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def get_many(
        self, texts: Sequence[str], embed: Callable[[list[str]], list[list[float]]], progress: str = ""
    ) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if text_hash(t) not in self._vectors))
        if missing:
            started = time.monotonic()
            for i in range(0, len(missing), 64):
                chunk = missing[i : i + 64]
                for text, vec in zip(chunk, embed(chunk), strict=True):
                    self._vectors[text_hash(text)] = np.asarray(vec, dtype=np.float32)
                done = min(i + 64, len(missing))
                if progress and (done % 640 == 0 or done == len(missing)):
                    rate = done / max(1e-9, time.monotonic() - started)
                    print(f"  {progress}: embedded {done}/{len(missing)} ({rate:.0f}/s)", flush=True)
            self.save()
        return np.stack([self._vectors[text_hash(t)] for t in texts])

    def save(self) -> None:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._vectors))
        vectors = np.stack(list(self._vectors.values())) if self._vectors else np.zeros((0, 0))
        tmp = self.path.with_suffix(".tmp.npz")
        np.savez(tmp, keys=keys, vectors=vectors)
        tmp.replace(self.path)


def perturbed(
    real: np.ndarray, count: int, seed: int = 3, scale: float = 0.5, bases: int | None = None
) -> np.ndarray:
    """``count`` unit vectors derived from the real ones: a random real vector plus Gaussian noise
    drawn from the real vectors' own covariance (so the spectrum, the anisotropy and the intrinsic
    dimensionality stay those of the model), scaled by ``scale``; then renormalised. ``bases``: draw
    the real vectors from the first ``bases`` only (denser clusters; bench/hnsw_sweep.py)."""
    rng = np.random.default_rng(seed)
    centred = (real - real.mean(axis=0)).astype(np.float64)
    values, vectors = np.linalg.eigh(centred.T @ centred / len(real))
    root = (vectors * np.sqrt(np.clip(values, 0, None))).astype(np.float32)  # covariance = root @ root.T
    base = real[rng.integers(0, bases or len(real), size=count)]
    out = np.empty((count, real.shape[1]), dtype=np.float32)
    for start in range(0, count, 16384):
        stop = min(count, start + 16384)
        noise = rng.standard_normal((stop - start, real.shape[1])).astype(np.float32) @ root.T
        out[start:stop] = base[start:stop] + scale * noise
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def neighbour_stats(vectors: np.ndarray, queries: np.ndarray, k: int = 10) -> dict[str, float]:
    """How 'clustered' a set is, seen from real queries: mean cosine to the 1st and k-th nearest
    neighbour and to a random memory (HNSW works harder when these are close together)."""
    sims = queries @ vectors.T
    top = -np.sort(-sims, axis=1)[:, :k]
    return {
        "top1_cosine": round(float(top[:, 0].mean()), 4),
        f"top{k}_cosine": round(float(top[:, k - 1].mean()), 4),
        "mean_cosine": round(float(sims.mean()), 4),
    }


def new_id(r: random.Random) -> uuid.UUID:
    return uuid.UUID(int=r.getrandbits(128), version=4)
