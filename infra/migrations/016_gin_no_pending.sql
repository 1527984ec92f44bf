-- Searches no longer scan GIN pending lists (issue 15).
--
-- With GIN's default fastupdate, a new index entry goes to the index's unsorted pending list, which every
-- scan of the index reads in full, until VACUUM or ANALYZE (or a list over gin_pending_list_limit,
-- 4 MB) moves it into the tree. memories is written by more than new memories: each search's deferred
-- access UPDATE writes a new row version of its hits, and with ~2 rows of ~3 KB a page (014) about half
-- of those find no room on their page and get new entries in every index. So between autovacuum runs
-- the keyword and entity helpers (013) read a list that grew with every search: on the 100k tier of
-- bench/latency.py, after 6 000 such updates (3 509 pending tsvectors, 6 829 pending entity-term arrays)
-- the entity probe took 13.2 ms against 2.4 ms with 992 pending, and the keyword helper's body 34.0
-- against 28.2 ms (EXPLAIN ANALYZE, best of 3, median of 40 bench queries; load ~10, so slow overall).
-- The two indexes searches read insert into the tree at once instead (PostgreSQL's documentation, GIN
-- "Fast Update Technique": turn it off when search time must stay predictable); the other GIN indexes
-- (tags, entities, shared_with) are not used by search and keep it. Same index contents, same results.
ALTER INDEX memories_search_text SET (fastupdate = off);
ALTER INDEX memories_entity_terms SET (fastupdate = off);
-- what is pending now: into the tree (turning fastupdate off leaves the list for VACUUM otherwise)
SELECT gin_clean_pending_list('memories_search_text'::regclass);
SELECT gin_clean_pending_list('memories_entity_terms'::regclass);
