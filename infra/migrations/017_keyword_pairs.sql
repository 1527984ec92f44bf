-- Keyword search when its limit binds: rows holding two query words first, and fewer rows (issue 15).
--
-- 013 ranks at most max_ranked rows matching the probe (the rarest query words). When the rarest word
-- alone is in more rows than that, the limit binds and the rows ranked were simply the first max_ranked
-- the bitmap heap scan gave (physical order, roughly oldest first); reading and scoring them was the
-- search's longest SQL step at scale (on the 100k tier of bench/latency.py the limit binds for 56 of
-- 60 benchmark queries, the probe word being in 1 600-5 000 rows). ts_rank_cd of an OR query is the
-- weighted count of the query words' occurrences (each occurrence is a cover of its own), so the rows
-- that can rank high are those holding more than one query word. Now:
--   * hindsight_keyword_queries also returns `pair_query` and `ranked`. Only when the limit binds (the
--     scope and the probe's counted rows both exceed max_ranked): pair_query is (p & w) for each probe
--     word p and each other kept word w, rows with a probe word and a second query word (GIN intersects
--     the posting lists, no heap read for the others), NULL if the query has no second word; and
--     `ranked` is `bound` (the caller's, below max_ranked). Otherwise pair_query is NULL and ranked is
--     max_ranked: a scope of at most max_ranked memories (LoCoMo's), a probe within it, a scope not
--     counted yet are searched exactly as before.
--   * hindsight_text_matches ranks at most `ranked` rows: those matching pair_query first (if any), then
--     the probe's other rows up to the same total, all scored with the whole query as before.
-- Measured on that tier (60 queries, EXPLAIN ANALYZE, best of 3; figures in the commit and
-- docs/retrieval.md), bound 500: keyword statement about half the time; of each query's top 100, the
-- share scoring at least the 100th-best score among all the probe's rows (ranked without a limit)
-- 0.62 -> 0.72, of its top 10 against the 10th-best 0.85 -> 0.86 (bound 300: 0.62 / 0.66, so not that).
DROP FUNCTION hindsight_text_matches(tsquery, tsquery, text[], text[], text[], integer, integer);
DROP FUNCTION hindsight_keyword_queries(text, text, text, float8, integer, integer, integer);

-- As in 013/014 (the lexeme counts read by key, the kept words and the probe unchanged), plus pair_query.
CREATE FUNCTION hindsight_keyword_queries(
    t text, tenant text, agent text, max_share float8, min_docs integer, keep_at_least integer,
    max_ranked integer, bound integer)
RETURNS TABLE (score_query tsquery, probe_query tsquery, pair_query tsquery, ranked integer)
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
    running AS (
        SELECT ranked.*, sum(docs) OVER (ORDER BY docs, pos) AS running
        FROM ranked WHERE informative OR rarity <= keep_at_least),
    kept AS (
        SELECT running.*,
               total IS NULL OR total <= max_ranked OR running <= max_ranked OR (docs > 0 AND counted_rarity = 1)
                   AS probe
        FROM running),
    -- the limit binds when the scope and the probe's words were in more rows than max_ranked when last
    -- counted (then the rarest counted word alone is: the probe takes words while their sum fits)
    binds AS (
        SELECT coalesce(max(total) > max_ranked AND sum(docs) FILTER (WHERE probe) > max_ranked, false)
                   AS binds
        FROM kept),
    pairs AS (
        SELECT string_agg('(' || p.quoted || ' & ' || w.quoted || ')', ' | ' ORDER BY p.rarity, w.rarity) AS pairs
        FROM kept p JOIN kept w ON w.lexeme <> p.lexeme AND (NOT w.probe OR w.rarity > p.rarity)
        WHERE p.probe AND (SELECT binds FROM binds))
    SELECT string_agg(quoted, ' | ' ORDER BY NOT informative, CASE WHEN informative THEN pos ELSE rarity END)
               ::tsquery,
           string_agg(quoted, ' | ' ORDER BY docs, pos) FILTER (WHERE probe)::tsquery,
           (SELECT pairs FROM pairs)::tsquery,
           CASE WHEN (SELECT binds FROM binds) THEN least(bound, max_ranked) ELSE max_ranked END
    FROM kept
$$;
GRANT EXECUTE ON FUNCTION hindsight_keyword_queries TO hindsight_app;

-- As in 004/013: SECURITY DEFINER so the GIN index serves @@ under row-level security; the tenant (the
-- transaction's setting) and the reader's visibility are enforced here.
CREATE FUNCTION hindsight_text_matches(
    q tsquery, probe tsquery, pairs tsquery, readers text[], statuses text[], layers text[],
    max_rows integer, max_ranked integer)
RETURNS TABLE (id uuid, score real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    WITH two AS MATERIALIZED (
        SELECT m.id, m.search_text FROM memories m
        WHERE pairs IS NOT NULL
          AND m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ pairs
          AND (m.agent_id = readers[1] OR m.shared_with && readers)
          AND m.status = ANY(statuses) AND m.layer = ANY(layers)
        LIMIT max_ranked),
    one AS (
        SELECT m.id, m.search_text FROM memories m
        WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
          AND m.search_text @@ probe
          AND (pairs IS NULL OR NOT m.search_text @@ pairs)
          AND (m.agent_id = readers[1] OR m.shared_with && readers)
          AND m.status = ANY(statuses) AND m.layer = ANY(layers)
        LIMIT greatest(max_ranked - (SELECT count(*) FROM two), 0))
    SELECT c.id, ts_rank_cd(c.search_text, q) AS score
    FROM (SELECT * FROM two UNION ALL SELECT * FROM one) AS c
    ORDER BY score DESC
    LIMIT max_rows
$$;

ALTER FUNCTION hindsight_text_matches OWNER TO hindsight_admin;
REVOKE ALL ON FUNCTION hindsight_text_matches FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hindsight_text_matches TO hindsight_app;
