-- HNSW graphs linked with ef_construction 128 instead of 64 (issue 15; adapters/postgres/hnsw.py, where
-- {{hnsw_ef_construction}} comes from, gives the measurements: at 100k memories recall@10 0.943 -> 0.985
-- at ef_search 100, at 1M 0.936 -> 0.975 at ef_search 1000; inserts cost the same within the noise).
--
-- A catalog change only (no rebuild): pgvector reads ef_construction from the index's reloptions at
-- every insert (hnswinsert.c, HnswInsertTuple: HnswGetEfConstruction(index), i.e. index->rd_options,
-- which ALTER INDEX ... SET updates and invalidates), so rows inserted from now on are linked with 128.
-- The rows already in the graph keep the links they got with 64 until the index is rebuilt, which an
-- operator does outside a migration with REINDEX INDEX CONCURRENTLY (docs/deployment.md): migrations run
-- in one transaction, where a rebuild would block every write (and, at 1M memories, take ~20 minutes).
-- The ALTER takes an ACCESS EXCLUSIVE lock on each index for the length of this transaction: moments.
-- m stays 16: a graph's neighbour tuples are laid out for its m.
ALTER INDEX memories_embedding_hnsw SET (ef_construction = {{hnsw_ef_construction}});
ALTER INDEX memory_chunks_embedding_hnsw SET (ef_construction = {{hnsw_ef_construction}});
