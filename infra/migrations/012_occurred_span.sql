-- When an event happened, as precisely as it was given (issue 12). occurred_at "2026" means *somewhere in*
-- 2026, not 1 January: occurred_at keeps the start of the span, occurred_precision how precise it was
-- ('year', 'month', 'week', 'day', 'hour', 'minute' or 'instant'; domain/isotime.py), and occurred_end
-- the exclusive end of the span (NULL for an instant), so the search's time filters test the overlap of
-- two spans with plain comparisons (adapters/postgres/memory_reads.py). Rows written before keep NULL in
-- both: an instant, as they were read.
ALTER TABLE memories
    ADD COLUMN occurred_precision text
        CHECK (occurred_precision IN ('year', 'month', 'week', 'day', 'hour', 'minute', 'instant')),
    ADD COLUMN occurred_end timestamptz,
    ADD CONSTRAINT memories_occurred_span CHECK (occurred_end IS NULL OR occurred_end > occurred_at);
