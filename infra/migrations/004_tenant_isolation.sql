-- Tenant isolation, second wall: row-level security on every tenant-scoped table, keyed on the
-- per-transaction setting `hindsight.tenant_id` (set by adapters/postgres/rows.tenant_transaction).
-- The first wall is the tenant (and agent) in every statement's WHERE clause; this one holds when a
-- statement forgets it. Also: cross-agent sharing (memories.shared_with).
--
-- Roles (NOLOGIN, cluster-wide, created once; every database gets its grants):
--   hindsight_app    the request path, the workers and maintenance run as it (`SET ROLE` through the
--                    connection's startup options, HINDSIGHT_DB_APP_ROLE). Not a superuser, no
--                    BYPASSRLS: it sees only rows whose tenant_id equals the setting, and nothing when
--                    the setting is empty or missing.
--   hindsight_admin  sees every tenant (a policy USING (true)). It owns the three SECURITY DEFINER
--                    functions below and nothing runs as it directly. The migrating user is made a
--                    member of both roles, so it can SET ROLE hindsight_app and (on RDS/Aurora, where
--                    the master user is not a superuser and FORCE makes the table owner subject to
--                    the policies) still read and change every tenant for migrations and operators.
-- Superusers bypass row-level security whatever the policies say: that is why the application must
-- not run as one (the embedded Postgres connects as the superuser `postgres`).

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'hindsight_app') THEN
        CREATE ROLE hindsight_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'hindsight_admin') THEN
        CREATE ROLE hindsight_admin NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
    EXECUTE format('GRANT hindsight_app TO %I', current_user);
    EXECUTE format('GRANT hindsight_admin TO %I', current_user);
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO hindsight_app, hindsight_admin', current_schema());
    -- hindsight_admin owns functions in this schema (ALTER FUNCTION … OWNER needs it).
    EXECUTE format('GRANT CREATE ON SCHEMA %I TO hindsight_admin', current_schema());
END
$$;

-- ---- cross-agent sharing ------------------------------------------------------------------------
-- A memory belongs to the agent that wrote it (agent_id) and is private by default. shared_with
-- lists the other agents of the same tenant that may read it ('*': every agent of the tenant).
-- Only the owner changes, forgets or links it; never across tenants.
ALTER TABLE memories ADD COLUMN shared_with text[] NOT NULL DEFAULT '{}';
CREATE INDEX memories_shared_with ON memories USING gin (shared_with);

-- memory_status answers an agent about its own writes only: the outcome row names the writing agent.
-- Rows written before this migration get it from the memory they ended in; the rest (skipped) stay
-- NULL and read as "unknown".
ALTER TABLE write_results ADD COLUMN agent_id text;
UPDATE write_results w SET agent_id = m.agent_id FROM memories m
    WHERE m.id = w.memory_id AND m.tenant_id = w.tenant_id;

-- ---- privileges ---------------------------------------------------------------------------------
GRANT SELECT, INSERT, UPDATE, DELETE
    ON memories, memory_relations, memory_history, memory_chunks, write_results, pending_causal_links,
       maintenance_state
    TO hindsight_app;
-- Keys are looked up before the tenant is known (no row-level security on api_keys); the CLI mints
-- and revokes them through the same pool. Keys are never deleted.
GRANT SELECT, INSERT, UPDATE ON api_keys TO hindsight_app;
GRANT SELECT ON hindsight_meta, schema_migrations TO hindsight_app;
DO $$
BEGIN
    EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO hindsight_app', current_schema());
END
$$;
-- Tables and sequences later migrations create are usable by the application too. A later table
-- that holds tenant data needs its own ENABLE/FORCE ROW LEVEL SECURITY and policy, like these.
ALTER DEFAULT PRIVILEGES GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO hindsight_app;
ALTER DEFAULT PRIVILEGES GRANT USAGE, SELECT ON SEQUENCES TO hindsight_app;
GRANT SELECT ON memories TO hindsight_admin;

-- ---- row-level security -------------------------------------------------------------------------
-- current_setting(…, true) is NULL when the setting was never made in the session and '' after a
-- transaction that made it ended: neither equals a tenant id, so no setting means no rows.
DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['memories', 'memory_relations', 'memory_history', 'memory_chunks',
                             'write_results', 'pending_causal_links']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I
                 USING (tenant_id = current_setting(''hindsight.tenant_id'', true))
                 WITH CHECK (tenant_id = current_setting(''hindsight.tenant_id'', true))', t);
        EXECUTE format(
            'CREATE POLICY admin_all_tenants ON %I TO hindsight_admin USING (true) WITH CHECK (true)', t);
    END LOOP;
END
$$;

-- ---- SECURITY DEFINER helpers -------------------------------------------------------------------
-- Row-level security has a cost: the planner may use an index for a condition of the query only if
-- the condition's operator is LEAKPROOF, and the full-text (@@) and array (&&) operators are not, so
-- under the policies the GIN indexes go unused and keyword and entity recall scan every memory of
-- the agent (measured on PG 18 with 100 000 memories in one agent: a rare word 0.1 ms → 200 ms).
-- These two functions run the GIN lookup as hindsight_admin (no policy filter, so the index is used)
-- and enforce the tenant themselves: only rows of the tenant in `hindsight.tenant_id` that the reader
-- may see (its own, or shared with it or with '*'), in the given statuses and layers; ids and scores
-- only, best first, at most max_rows (NULL: all). The caller joins the memories table, where the
-- policies apply again, for everything else (measured: rare word 0.4 ms, common words 165 ms — the
-- same as without row-level security).
CREATE FUNCTION hindsight_text_matches(
    q tsquery, readers text[], statuses text[], layers text[], max_rows integer)
RETURNS TABLE (id uuid, score real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    SELECT m.id, ts_rank_cd(m.search_text, q) AS score
    FROM memories m
    WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
      AND m.search_text @@ q
      AND (m.agent_id = readers[1] OR m.shared_with && readers)
      AND m.status = ANY(statuses) AND m.layer = ANY(layers)
    ORDER BY score DESC
    LIMIT max_rows
$$;

CREATE FUNCTION hindsight_entity_matches(
    terms text[], e vector, readers text[], statuses text[], layers text[], max_rows integer)
RETURNS TABLE (id uuid, matches integer, distance real)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    SELECT m.id,
           cardinality(ARRAY(SELECT unnest(m.entity_terms) INTERSECT SELECT unnest(terms))) AS matches,
           (m.embedding <=> e)::real AS distance
    FROM memories m
    WHERE m.tenant_id = current_setting('hindsight.tenant_id', true)
      AND m.entity_terms && terms
      AND (m.agent_id = readers[1] OR m.shared_with && readers)
      AND m.status = ANY(statuses) AND m.layer = ANY(layers)
    ORDER BY matches DESC, distance
    LIMIT max_rows
$$;

-- Scheduled maintenance visits every (tenant, agent) scope; listing them is the one read that must
-- cross tenants. Only the pairs are returned (a loose index scan of memories_scope), never a row.
CREATE FUNCTION hindsight_scopes(after_tenant text, after_agent text, max_rows integer)
RETURNS TABLE (tenant_id text, agent_id text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path FROM CURRENT
AS $$
    WITH RECURSIVE s(t, a) AS (
        (SELECT m.tenant_id, m.agent_id FROM memories m
         WHERE (m.tenant_id, m.agent_id) > (coalesce(after_tenant, ''), coalesce(after_agent, ''))
         ORDER BY m.tenant_id, m.agent_id LIMIT 1)
        UNION ALL
        SELECT n.tenant_id, n.agent_id FROM s CROSS JOIN LATERAL (
            SELECT m.tenant_id, m.agent_id FROM memories m
            WHERE (m.tenant_id, m.agent_id) > (s.t, s.a)
            ORDER BY m.tenant_id, m.agent_id LIMIT 1) n)
    SELECT s.t, s.a FROM s LIMIT max_rows
$$;

ALTER FUNCTION hindsight_text_matches OWNER TO hindsight_admin;
ALTER FUNCTION hindsight_entity_matches OWNER TO hindsight_admin;
ALTER FUNCTION hindsight_scopes OWNER TO hindsight_admin;
REVOKE ALL ON FUNCTION hindsight_text_matches, hindsight_entity_matches, hindsight_scopes FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hindsight_text_matches, hindsight_entity_matches, hindsight_scopes
    TO hindsight_app;
