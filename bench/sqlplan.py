"""Where the SQL time of ``memory_search`` goes: EXPLAIN ANALYZE of the reader's own statements.

The reader runs the keyword statement (``kw``: full-text candidates ranked with ts_rank_cd) on one
connection while the query embedding is computed, then the vector statement (the ``vec`` CTE: HNSW/exact
vector candidates) on a second connection, and the entity statement (``ent``: entity-term
candidates) pipelined after it there, or beside it on the first connection when the keyword statement
ended before the embedding did (a new query); each joined back to ``memories``. (Checkouts before that
ran ``kw`` and ``ent`` as CTEs of one text statement beside the vector one.) This runs a few benchmark
queries through the real ``Recall.search`` with the reader's query functions wrapped, so the exact
statements and parameters are explained (one after the other), and reports each signal's actual time
and row counts, and per search the longer of the two connections' execution times when the embedding
is at hand (a repeated query: the keyword statement on one, the vector and entity ones on the other)
and the sum of all.
Diagnostics only: it never changes what is measured elsewhere.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from psycopg import sql

import hindsight.adapters.postgres.memory_reads as memory_reads
from hindsight.bootstrap import build_container
from hindsight.config import Settings
from hindsight.domain.memory import Scope
from hindsight.usecases.recall import RecallQuery, resolve


def _walk(node: dict[str, Any], found: dict[str, dict[str, float]]) -> None:
    name = node.get("Subplan Name", "")
    if name.startswith("CTE "):
        found[name[4:]] = {"ms": float(node["Actual Total Time"]), "rows": float(node["Actual Rows"])}
    for child in node.get("Plans", []):
        _walk(child, found)


def _largest_scan(node: dict[str, Any], cte: str, whole: bool = False) -> float:
    """Rows read by the biggest scan under one CTE (how many rows the signal had to rank); ``whole``:
    anywhere in the plan (a statement of that signal alone)."""
    best = 0.0

    def visit(n: dict[str, Any], inside: bool) -> None:
        nonlocal best
        here = inside or n.get("Subplan Name") == f"CTE {cte}"
        if here and "Scan" in n.get("Node Type", "") and "CTE" not in n.get("Node Type", ""):
            best = max(best, float(n.get("Actual Rows", 0)))
        for c in n.get("Plans", []):
            visit(c, here)

    visit(node, whole)
    return best


async def explain_searches(
    settings: Settings, scope: Scope, queries: Sequence[str], now: datetime
) -> dict[str, Any]:
    plans: list[list[dict[str, Any]]] = []
    original, original_of = memory_reads.tenant_rows, getattr(memory_reads, "tenant_rows_of", None)
    lock = asyncio.Lock()  # the statements are explained one after the other, not competing

    async def explain(pool: Any, tenant_id: str, query: Any, params: Any) -> None:
        # a search statement: the reader's parameters (the embedding's statements, or the keyword one)
        if not (isinstance(query, sql.Composable) and isinstance(params, dict) and "max_ranked" in params):
            return
        async with lock:
            [row] = await original(
                pool, tenant_id, sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + query, params
            )
        plan = next(iter(row.values()))
        doc = plan if not isinstance(plan, str) else json.loads(plan)
        text = str(query.as_string(None)) if hasattr(query, "as_string") else ""
        doc[0]["statement"] = (
            "text"
            if "hindsight_keyword_queries" in text and "hindsight_entity_matches" in text
            else "kw"
            if "hindsight_keyword_queries" in text
            else "ent"
            if "hindsight_entity_matches" in text
            else "vec"
        )
        plans[-1].append(doc[0])

    async def explaining(pool: Any, tenant_id: str, query: Any, params: Any = None, *rows: Any) -> Any:
        await explain(pool, tenant_id, query, params)
        return await original(pool, tenant_id, query, params, *rows)

    async def explaining_of(pool: Any, tenant_id: str, statements: Any, *rows: Any) -> Any:
        for query, params in statements:
            await explain(pool, tenant_id, query, params)
        assert original_of is not None
        return await original_of(pool, tenant_id, statements, *rows)

    container = await build_container(settings, with_queue=False)
    memory_reads.tenant_rows = explaining  # type: ignore[assignment]
    if original_of is not None:
        memory_reads.tenant_rows_of = explaining_of  # type: ignore[attr-defined]
    try:
        for text in queries:
            plans.append([])
            await container.recall.search(scope, resolve(RecallQuery(text=text, top_k=10), now))
    finally:
        memory_reads.tenant_rows = original  # type: ignore[assignment]
        if original_of is not None:
            memory_reads.tenant_rows_of = original_of  # type: ignore[attr-defined]
        await container.aclose()
    per_cte: dict[str, list[float]] = {}
    ranked: dict[str, list[float]] = {}
    longest, totals = [], []
    for docs in plans:
        times = {doc["statement"]: float(doc["Execution Time"]) for doc in docs}
        # the connections: the keyword one (or the text statement), the vector one (+ entity after it)
        longest.append(
            max(times.get("kw", times.get("text", 0.0)), times.get("vec", 0.0) + times.get("ent", 0.0))
        )
        totals.append(sum(times.values()))
        for doc in docs:
            found: dict[str, dict[str, float]] = {}
            _walk(doc["Plan"], found)
            if doc["statement"] in ("vec", "kw", "ent") and doc["statement"] not in found:
                # a statement of one signal (the vector one's vec CTE is inlined, used once): its time
                found[doc["statement"]] = {"ms": float(doc["Execution Time"]), "rows": 0.0}
            for cte in ("vec", "kw", "ent"):
                if cte in found:
                    per_cte.setdefault(cte, []).append(found[cte]["ms"])
                    ranked.setdefault(cte, []).append(
                        _largest_scan(doc["Plan"], cte, whole=doc["statement"] == cte)
                    )
    return {
        "queries": len(plans),
        "statements_per_search": statistics.median(len(docs) for docs in plans) if plans else None,
        "execution_ms_median": round(statistics.median(longest), 2) if longest else None,
        "execution_sum_ms_median": round(statistics.median(totals), 2) if totals else None,
        "cte_ms_median": {k: round(statistics.median(v), 2) for k, v in per_cte.items()},
        "cte_rows_scanned_median": {k: round(statistics.median(v)) for k, v in ranked.items()},
    }
