-- Search reads what it ranks from the heap page, not from TOAST (issue 15).
--
-- A memory's row is ~1.2 KB of columns plus its embedding (384 float4 = 1.5 KB) plus its tsvector: over
-- Postgres's 2 KB toast threshold, so the largest values (the embedding, the tsvector) were moved out of
-- line. Every exact vector scan then fetched each vector from the TOAST table (an index probe and a heap
-- read per row), as did ts_rank_cd for each ranked tsvector. Measured on the 10k tier of bench/latency.py
-- (same run, before/after/before/after, load ~2; EXPLAIN ANALYZE median of 20 queries): statement
-- 46.5/44.1 → 10.9/10.8 ms, vector part 32–33 → 5.3 ms, full-text part 9–11 → 3.5–4.0 ms; heap 23 → 67.5
-- MiB, TOAST 30.8 → 0.05 MiB. At 100k, where the HNSW index holds its own copy of the vectors: 30.7 → 24.9
-- ms. toast_tuple_target 8160 (the maximum) keeps rows up to a page inline; a long memory still has its
-- content (the largest value) compressed or moved out first.
-- New rows are inline at once; rows already stored keep their out-of-line values (an update that leaves
-- a value alone keeps its TOAST pointer) until VACUUM FULL rewrites the table (docs/deployment.md).
ALTER TABLE memories SET (toast_tuple_target = 8160);
ALTER TABLE memory_chunks SET (toast_tuple_target = 8160);

-- hindsight_keyword_queries (013) joined the query's lexemes to lexeme_stats; right after maintenance
-- refreshed the counts, before autovacuum had analyzed the table, the planner chose a sequential scan of
-- the whole scope's lexemes (185 360 rows read per search at 1M memories; 29 ms against 0.08 ms with 200k
-- lexemes in a throw-away database). A correlated lookup per query lexeme uses the primary key whatever
-- the statistics say. Same result otherwise.
CREATE OR REPLACE FUNCTION hindsight_keyword_queries(
    t text, tenant text, agent text, max_share float8, min_docs integer, keep_at_least integer,
    max_ranked integer)
RETURNS TABLE (score_query tsquery, probe_query tsquery)
LANGUAGE sql STABLE
AS $$
    WITH total AS (
        SELECT max(docs) AS docs FROM scope_stats WHERE tenant_id = tenant AND agent_id = agent),
    q AS (
        SELECT l.lexeme,
               coalesce((SELECT s.docs FROM lexeme_stats s
                         WHERE s.tenant_id = tenant AND s.agent_id = agent AND s.lexeme = l.lexeme), 0) AS docs,
               l.positions[1] AS pos,
               '''' || replace(replace(l.lexeme, '\', '\\'), '''', '''''') || '''' AS quoted
        FROM unnest(hindsight_tsvector(t)) AS l),
    ranked AS (
        SELECT q.*, total.docs AS total,
               total.docs IS NULL OR total.docs < min_docs OR q.docs::float8 / total.docs <= max_share
                   AS informative,
               row_number() OVER (ORDER BY q.docs, q.pos) AS rarity,
               -- among the lexemes some memory contains (0: none did when last counted)
               row_number() OVER (PARTITION BY q.docs > 0 ORDER BY q.docs, q.pos) AS counted_rarity
        FROM q CROSS JOIN total),
    kept AS (
        SELECT ranked.*, sum(docs) OVER (ORDER BY docs, pos) AS running
        FROM ranked WHERE informative OR rarity <= keep_at_least)
    SELECT string_agg(quoted, ' | ' ORDER BY NOT informative, CASE WHEN informative THEN pos ELSE rarity END)
               ::tsquery,
           string_agg(quoted, ' | ' ORDER BY docs, pos)
               FILTER (WHERE total IS NULL OR total <= max_ranked OR running <= max_ranked
                             OR (docs > 0 AND counted_rarity = 1))
               ::tsquery
    FROM kept
$$;
