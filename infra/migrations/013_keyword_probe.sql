-- Keyword search bounded at scale (issue 15).
--
-- The full-text signal ORed the query's informative lexemes (005) and ranked every match with ts_rank_cd
-- before keeping the best: each informative word may be in up to 10 % of a scope, so at 100 000 memories
-- that was tens of thousands of rows ranked per search (41 of 58 ms of the statement, EXPLAIN ANALYZE),
-- growing with the store. Now:
--   * hindsight_keyword_queries picks the lexemes inside the search statement (no separate round trip for
--     the statistics) and returns two queries: `score_query`, every kept lexeme (what ts_rank_cd scores
--     with, as before), and `probe_query`, the rarest of them whose summed document counts stay within
--     `max_ranked`, and at least the rarest one some memory contains (a word no memory had when the
--     scope was last counted costs nothing to probe but must not be the only one): the rows worth ranking are those containing the rarest
--     words, the inverse-document-frequency idea behind BM25 (Robertson & Zaragoza, "The Probabilistic
--     Relevance Framework: BM25 and Beyond", 2009) that ts_rank_cd itself lacks. A scope of at most
--     `max_ranked` memories, or one not counted yet, probes with every kept lexeme: nothing changes there.
--   * hindsight_text_matches ranks at most `max_ranked` rows matching the probe (a limit that binds only
--     when the rarest word alone is in more rows: then the first rows the index gives), scored with the
--     whole query; hindsight_entity_matches reads at most `max_ranked` matching rows. Both are bounded
--     with filters set too (the caller filters their output, so before only max_rows = NULL bounded them).
--
-- The kept lexemes are those of 005's cut (domain/text.py: MAX_LEXEME_SHARE, MIN_DOCS_FOR_CUT,
-- KEEP_AT_LEAST, passed in by the reader): every lexeme when the scope has no count or fewer than
-- min_docs memories; otherwise those in at most max_share of the scope's memories, plus the rarest ones
-- until keep_at_least are kept; in the query's order, the added ones after, rarest first.
CREATE FUNCTION hindsight_keyword_queries(
    t text, tenant text, agent text, max_share float8, min_docs integer, keep_at_least integer,
    max_ranked integer)
RETURNS TABLE (score_query tsquery, probe_query tsquery)
LANGUAGE sql STABLE
AS $$
    WITH total AS (
        SELECT max(docs) AS docs FROM scope_stats WHERE tenant_id = tenant AND agent_id = agent),
    q AS (
        SELECT l.lexeme, coalesce(s.docs, 0) AS docs, l.positions[1] AS pos,
               '''' || replace(replace(l.lexeme, '\', '\\'), '''', '''''') || '''' AS quoted
        FROM unnest(hindsight_tsvector(t)) AS l
        LEFT JOIN lexeme_stats s ON s.tenant_id = tenant AND s.agent_id = agent AND s.lexeme = l.lexeme),
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
GRANT EXECUTE ON FUNCTION hindsight_keyword_queries TO hindsight_app;

DROP FUNCTION hindsight_text_matches(tsquery, text[], text[], text[], integer);
DROP FUNCTION hindsight_entity_matches(text[], vector, text[], text[], text[], integer);

-- As in 004: SECURITY DEFINER so the GIN index serves @@ and && under row-level security; the tenant
-- (the transaction's setting) and the reader's visibility are enforced here.
CREATE FUNCTION hindsight_text_matches(
    q tsquery, probe tsquery, readers text[], statuses text[], layers text[], max_rows integer,
    max_ranked integer)
RETURNS TABLE (id uuid, score real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    SELECT c.id, ts_rank_cd(c.search_text, q) AS score
    FROM (SELECT m.id, m.search_text FROM memories m
          WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
            AND m.search_text @@ probe
            AND (m.agent_id = readers[1] OR m.shared_with && readers)
            AND m.status = ANY(statuses) AND m.layer = ANY(layers)
          LIMIT max_ranked) AS c
    ORDER BY score DESC
    LIMIT max_rows
$$;

CREATE FUNCTION hindsight_entity_matches(
    terms text[], e vector, readers text[], statuses text[], layers text[], max_rows integer,
    max_ranked integer)
RETURNS TABLE (id uuid, matches integer, distance real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    SELECT c.id,
           cardinality(ARRAY(SELECT unnest(c.entity_terms) INTERSECT SELECT unnest(terms))) AS matches,
           (c.embedding <=> e)::real AS distance
    FROM (SELECT m.id, m.entity_terms, m.embedding FROM memories m
          WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
            AND m.entity_terms && terms
            AND (m.agent_id = readers[1] OR m.shared_with && readers)
            AND m.status = ANY(statuses) AND m.layer = ANY(layers)
          LIMIT max_ranked) AS c
    ORDER BY matches DESC, distance
    LIMIT max_rows
$$;

ALTER FUNCTION hindsight_text_matches OWNER TO hindsight_admin;
ALTER FUNCTION hindsight_entity_matches OWNER TO hindsight_admin;
REVOKE ALL ON FUNCTION hindsight_text_matches, hindsight_entity_matches FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hindsight_text_matches, hindsight_entity_matches TO hindsight_app;
