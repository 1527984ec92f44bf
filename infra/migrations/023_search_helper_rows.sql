-- The planner's row estimates of the search helpers (issue 15).
--
-- A set-returning function is estimated at its ROWS (1000 unless declared). The keyword and entity
-- statements of a search (adapters/postgres/memory_reads.py) join each helper's rows back to `memories`
-- under the search's filters; believing 1000 rows come out, the planner of a scope of up to a few
-- thousand memories (bench/latency.py's 1k tier: the prepared statements' generic plans, EXPLAIN
-- (GENERIC_PLAN)) hashed the whole visible scope — a bitmap heap scan of every memory of the tenant's
-- agent on every search — to join the ~100 ids the helper returned, where 100 primary-key lookups do.
-- (On the 100k tier the plan was already the nested loop: there the hash costs more.) The helpers return at most the candidate pool (`max_rows`, 100 by default) unfiltered, and
-- hindsight_keyword_queries exactly one row. With these estimates the 1k tier's plans are nested loops
-- over the helper's rows in the helper's order (the hash join kept that order too, so the rows, their
-- order and every tie stay as they were). With a narrowing filter (key, tags, entities, time, ...) the
-- helpers return up to max_ranked rows and the planner still weighs hashing the filtered scope against
-- that many lookups.
--
-- Measured on that tier (replaying 40 searches' statements, server CPU of the backend per statement, load
-- ~22): keyword statement 2.2 -> 1.3 ms, entity statement 0.6 -> 0.4 ms. A catalog change: nothing is
-- rebuilt; prepared statements are re-planned on their next run.
ALTER FUNCTION hindsight_text_matches(tsquery, tsquery, tsquery, text[], text[], text[], integer, integer) ROWS 100;
ALTER FUNCTION hindsight_entity_matches(text[], vector, text[], text[], text[], integer, integer) ROWS 100;
ALTER FUNCTION hindsight_keyword_queries(text, text, text, float8, integer, integer, integer, integer) ROWS 1;
