-- Keyword statistics and storage settings.
--
-- lexeme_stats holds, per (tenant, agent), how many memories contain each full-text lexeme; scope_stats
-- how many memories the scope has. Search drops the query's words that most of the scope contains
-- (an inverse-document-frequency cut) before the full-text match: they add almost nothing to ranking
-- and make the match set, and so the search, grow with the store (measured: at 100 000 memories the
-- full-text part took 143 ms of a 166 ms search, bench/sqlplan.py). Maintenance refreshes the counts
-- (ts_stat per changed scope); new memories are counted at the next run, which is fine for a cut.
CREATE TABLE lexeme_stats (
    tenant_id text NOT NULL,
    agent_id  text NOT NULL,
    lexeme    text NOT NULL,
    docs      integer NOT NULL,
    PRIMARY KEY (tenant_id, agent_id, lexeme)
);
CREATE TABLE scope_stats (
    tenant_id    text NOT NULL,
    agent_id     text NOT NULL,
    docs         integer NOT NULL,
    refreshed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, agent_id)
);

DO $$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['lexeme_stats', 'scope_stats']
    LOOP
        EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
        EXECUTE format(
            'CREATE POLICY tenant_isolation ON %I
                 USING (tenant_id = current_setting(''hindsight.tenant_id'', true))
                 WITH CHECK (tenant_id = current_setting(''hindsight.tenant_id'', true))', t);
        EXECUTE format(
            'CREATE POLICY admin_all_tenants ON %I TO hindsight_admin USING (true) WITH CHECK (true)', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO hindsight_app', t);
    END LOOP;
END
$$;

-- Every search bumps access_count / last_accessed_at; with free room on each page those updates can
-- be HOT (no new index entries, the HNSW index included). Measured at 100 000 memories: 41 % of the
-- updates were not HOT at the default fillfactor 100. Applies to pages written from now on.
ALTER TABLE memories SET (fillfactor = 85);
