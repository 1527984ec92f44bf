-- The entity helper counts a memory's matching terms without a set operation per row (issue 15).
--
-- hindsight_entity_matches (013) reads up to max_ranked memories sharing a term with the query and
-- orders them by how many of the query's terms they hold, then by distance to the query's embedding. The
-- count was cardinality(ARRAY(SELECT unnest(entity_terms) INTERSECT SELECT unnest(terms))): a hashed set
-- operation built and torn down for every row read. On the 100k tier of bench/latency.py a query whose
-- terms are common reads 1000 rows, and that count was ~45 % of the helper's server CPU (the same rows
-- without it: mean 3.03 -> 1.67 ms of server CPU over 40 searches' entity calls).
-- Now the query's distinct terms are listed once per call (an InitPlan) and each row counts those its
-- entity_terms holds (= ANY: a scan of a few elements). The same number: INTERSECT counts the distinct
-- values both arrays hold, and so does this, but for a null, which INTERSECT would count when both arrays
-- held one (a memory's entity_terms hold none: they are written from its entities' names and values,
-- domain.text.entity_terms, and the query's terms none either). Nothing else changes: the rows
-- read, their order, the limits, the security (SECURITY DEFINER, the tenant from the transaction's
-- setting, the reader's visibility) and the planner's row estimate (ROWS 100, migration 023).
CREATE OR REPLACE FUNCTION hindsight_entity_matches(
    terms text[], e vector, readers text[], statuses text[], layers text[], max_rows integer,
    max_ranked integer)
RETURNS TABLE (id uuid, matches integer, distance real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
ROWS 100
AS $$
    SELECT c.id,
           (SELECT count(*) FROM unnest((SELECT array_agg(DISTINCT u) FROM unnest(terms) AS u)) AS t
            WHERE t = ANY(c.entity_terms))::integer AS matches,
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
