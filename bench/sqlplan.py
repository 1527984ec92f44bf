"""Where the SQL time of ``memory_search`` goes: EXPLAIN ANALYZE of the reader's own statements.

The reader runs two statements at once on two connections: one with the ``vec`` CTE (HNSW/exact vector
candidates), one with ``kw`` (full-text candidates ranked with ts_rank_cd) and ``ent`` (entity-term
candidates), each joined back to ``memories``. This runs a few benchmark queries through the real
``Recall.search`` with the reader's query function wrapped, so the exact statements and parameters are
explained (one after the other), and reports each CTE's actual time and row counts, and per search the
longer of the two statements' execution times (what the search waits for) and their sum.
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


def _largest_scan(node: dict[str, Any], cte: str) -> float:
    """Rows read by the biggest scan under one CTE (how many rows the signal had to rank)."""
    best = 0.0

    def visit(n: dict[str, Any], inside: bool) -> None:
        nonlocal best
        here = inside or n.get("Subplan Name") == f"CTE {cte}"
        if here and "Scan" in n.get("Node Type", "") and "CTE" not in n.get("Node Type", ""):
            best = max(best, float(n.get("Actual Rows", 0)))
        for c in n.get("Plans", []):
            visit(c, here)

    visit(node, False)
    return best


async def explain_searches(
    settings: Settings, scope: Scope, queries: Sequence[str], now: datetime
) -> dict[str, Any]:
    plans: list[list[dict[str, Any]]] = []
    original = memory_reads.tenant_rows
    lock = asyncio.Lock()  # the two statements are explained one after the other, not competing

    async def explaining(pool: Any, tenant_id: str, query: Any, params: Any = None) -> Any:
        if isinstance(query, sql.Composable) and isinstance(params, dict) and "embedding" in params:
            async with lock:
                [row] = await original(
                    pool, tenant_id, sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) ") + query, params
                )
            plan = next(iter(row.values()))
            doc = plan if not isinstance(plan, str) else json.loads(plan)
            plans[-1].append(doc[0])
        return await original(pool, tenant_id, query, params)

    container = await build_container(settings, with_queue=False)
    memory_reads.tenant_rows = explaining  # type: ignore[assignment]
    try:
        for text in queries:
            plans.append([])
            await container.recall.search(scope, resolve(RecallQuery(text=text, top_k=10), now))
    finally:
        memory_reads.tenant_rows = original  # type: ignore[assignment]
        await container.aclose()
    per_cte: dict[str, list[float]] = {}
    ranked: dict[str, list[float]] = {}
    longest, totals = [], []
    for docs in plans:
        times = [float(doc["Execution Time"]) for doc in docs]
        longest.append(max(times))
        totals.append(sum(times))
        for doc in docs:
            found: dict[str, dict[str, float]] = {}
            _walk(doc["Plan"], found)
            if not {"kw", "ent"} & set(found) and "vec" not in found:
                # the vector statement, whose vec CTE the planner inlines (used once): the statement
                found["vec"] = {"ms": float(doc["Execution Time"]), "rows": 0.0}
            for cte in ("vec", "kw", "ent"):
                if cte in found:
                    per_cte.setdefault(cte, []).append(found[cte]["ms"])
                    ranked.setdefault(cte, []).append(_largest_scan(doc["Plan"], cte))
    return {
        "queries": len(plans),
        "statements_per_search": statistics.median(len(docs) for docs in plans) if plans else None,
        "execution_ms_median": round(statistics.median(longest), 2) if longest else None,
        "execution_sum_ms_median": round(statistics.median(totals), 2) if totals else None,
        "cte_ms_median": {k: round(statistics.median(v), 2) for k, v in per_cte.items()},
        "cte_rows_scanned_median": {k: round(statistics.median(v)) for k, v in ranked.items()},
    }
