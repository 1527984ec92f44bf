-- The changes of a tenant's memories after an instant, by time (new-user trial F3).
--
-- A known_at search with a filter (key, tags, entities, min_importance, since/until) filters by the
-- values its memories had at known_at: for the few memories whose history records a change of a filtered
-- field after known_at, the values then (adapters/postgres/memory_reads.py, _at_known); for every other,
-- today's (they are the same). It first asks which memories those few are — the history rows of the
-- tenant after known_at — and this index answers that without reading the tenant's whole history
-- (memory_history_memory serves one memory at a time).
CREATE INDEX memory_history_tenant_at ON memory_history (tenant_id, at);
