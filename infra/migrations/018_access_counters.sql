-- Access bookkeeping in a narrow table of its own: a search no longer writes memories.
--
-- Every memory_search bumps its hits' access_count / last_accessed_at (adapters/postgres/access_log.py).
-- On memories, a row of ~3 KB (014 keeps the embedding and the tsvector inline, ~2 rows a page) has no
-- room on its page for the new version about half the time, and such an update is not HOT: it inserts
-- new entries into every index of memories, the HNSW graph (a graph insert) and the GIN indexes
-- included (for an unchanged vector pgvector adds the new heap pointer to the existing element, after a
-- graph search of ef_construction), and leaves a dead 3 KB tuple for vacuum. Measured on the 100k tier
-- of bench/latency.py (bench/access_cost.py, before and after side by side at load ~18, 200 searches of
-- 10 hits): 50 % of those updates were HOT; the bookkeeping took p50 64 / p99 112 ms per search (the
-- search itself ~90 ms there) and wrote 225 KB of WAL and 232 KiB of new index pages; here 10.8 / 38.7
-- ms, 29 KB, nothing on memories, every update HOT.
-- Here an access row is ~70 bytes with one index, its primary key, which a bump never changes; with
-- free room on each page (fillfactor 50) the bumps are HOT. Reads take the counters from this table
-- (adapters/postgres/rows.py: a correlated lookup by primary key), a memory never recalled has no row
-- (count 0, never accessed); deleting a memory deletes its row. Same values everywhere they are shown.
CREATE TABLE memory_access (
    memory_id        uuid PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    tenant_id        text NOT NULL,
    access_count     integer NOT NULL DEFAULT 0 CHECK (access_count >= 0),
    last_accessed_at timestamptz
) WITH (fillfactor = 50);

ALTER TABLE memory_access ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_access FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_access
    USING (tenant_id = current_setting('hindsight.tenant_id', true))
    WITH CHECK (tenant_id = current_setting('hindsight.tenant_id', true));
CREATE POLICY admin_all_tenants ON memory_access TO hindsight_admin USING (true) WITH CHECK (true);
GRANT SELECT, INSERT, UPDATE, DELETE ON memory_access TO hindsight_app;

-- the counters recorded so far (the migrating user reads every tenant as 004's UPDATE does)
INSERT INTO memory_access (memory_id, tenant_id, access_count, last_accessed_at)
SELECT id, tenant_id, access_count, last_accessed_at FROM memories
WHERE access_count > 0 OR last_accessed_at IS NOT NULL;

-- memories.access_count / last_accessed_at stay, unused from here on (expand, then contract): function code
-- from before 018 still serving while a deploy switches the functions over reads and bumps them without an
-- error (its bumps in that window are not counted here). A later release drops them, once no deployed code
-- reads them.
COMMENT ON COLUMN memories.access_count IS 'unused since migration 018 (memory_access); dropped by a later release';
COMMENT ON COLUMN memories.last_accessed_at IS 'unused since migration 018 (memory_access); dropped by a later release';
