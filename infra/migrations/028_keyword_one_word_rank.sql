-- The keyword helper scores a row holding one query word with that word alone (issue 15).
--
-- ts_rank_cd(tsvector, tsquery) allocates and zeroes 32 KiB for every item of the query (its operands and
-- operators: 2n - 1 for n words ORed), for every row it scores; on the 100k tier of bench/latency.py that
-- zeroing (memset under calc_rank_cd's palloc0) was 16 % of the keyword statement's server CPU (perf, 60
-- benchmark queries), scoring the 400-500 rows a search ranks. The score of an OR of plain lexemes depends
-- only on the query words the row holds: every position of one of them is a cover of its own, the
-- document representation lists only the words present, and the query's truth at each step is whether
-- one of them is, so a query with fewer words, the row's among them, gives the same float bit for bit.
-- When the probe's limit binds (017: pair_query is set), each row of `one` matches the probe and no pair,
-- and pair_query pairs every probe word with every other kept word: such a row holds exactly one query
-- word, a probe word. It is now scored with the probe's last word alone (the commonest, the word the
-- limit binds on; 017's probe then holds it and words no memory held when the scope was last counted)
-- when it holds that word, else with the probe (its words: the row's one word and words it lacks), not
-- with every kept word. The rows of `two` (two words or more) and a probe that does not bind (pair_query
-- NULL: every probe row is ranked, a scope of at most max_ranked memories, LoCoMo's) keep the whole query.
-- Also the same rows and scores:
--   * `two` keeps each row's score, not its tsvector (the materialized CTE copied every tsvector);
--   * `one` leaves out the rows of `two` by id (a hashed subplan) instead of matching each row's tsvector
--     with pair_query: it runs only when `two` ended below max_ranked, and then `two` holds every row
--     under the same filters that matches pair_query.
-- The rows read, their order (the same scans, `two` then `one` in the order their bitmap scans give them,
-- into the same sort), the limits, the security (SECURITY DEFINER, the tenant from the transaction's
-- setting, the reader's visibility) and the planner's row estimate (ROWS 100, migration 023) are as before.
-- Measured on that tier (the keyword statements of 60 benchmark searches with their captured parameters,
-- the old and the new helper side by side on one connection, 6 rounds interleaved; rows, scores and order
-- identical in 360 of 360 calls), server CPU of the statement (schedstat of the backend): mean 3.65 ->
-- 3.28 ms (x0.90, load ~8) and, in a second run, 4.15 -> 3.79 ms (x0.91, load ~6); ts_rank_cd 21 -> 13 %
-- of the statement's CPU samples (perf). bench/search_same.py on that tier (100 queries, 5 forms, traces):
-- no pool, hit or trace differs.
CREATE OR REPLACE FUNCTION hindsight_text_matches(
    q tsquery, probe tsquery, pairs tsquery, readers text[], statuses text[], layers text[],
    max_rows integer, max_ranked integer)
RETURNS TABLE (id uuid, score real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
ROWS 100
AS $$
    -- the probe's last word as a query of its own, once per call; NULL unless it is one of the probe's
    -- operands (then every row is scored with the probe, as exact, only slower)
    WITH word AS (
        SELECT CASE WHEN probe @> w THEN w END AS last
        FROM (SELECT substring(probe::text FROM '''(?:[^'']|'''')*''$')::tsquery AS w) AS parsed),
    two AS MATERIALIZED (
        SELECT m.id, ts_rank_cd(m.search_text, q) AS score FROM memories m
        WHERE pairs IS NOT NULL
          AND m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ pairs
          AND (m.agent_id = readers[1] OR m.shared_with && readers)
          AND m.status = ANY(statuses) AND m.layer = ANY(layers)
        LIMIT max_ranked),
    one AS (
        SELECT m.id,
               ts_rank_cd(m.search_text,
                          CASE WHEN pairs IS NULL THEN q
                               WHEN numnode(probe) = 1 THEN probe
                               WHEN m.search_text @@ (SELECT last FROM word) THEN (SELECT last FROM word)
                               ELSE probe END) AS score
        FROM memories m
        WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ probe
          AND m.id NOT IN (SELECT two.id FROM two)
          AND (m.agent_id = readers[1] OR m.shared_with && readers)
          AND m.status = ANY(statuses) AND m.layer = ANY(layers)
        LIMIT greatest(max_ranked - (SELECT count(*) FROM two), 0))
    SELECT c.id, c.score
    FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c
    ORDER BY c.score DESC
    LIMIT max_rows
$$;
