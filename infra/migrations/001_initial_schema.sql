-- Hindsight initial schema: API keys, long-term memories (episodic + semantic) with an HNSW cosine
-- index and a full-text index, write outcomes for idempotent workers, and schema metadata.
-- {{embedding_dim}} is replaced by HINDSIGHT_EMBEDDING_DIM when the migration runs.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE hindsight_meta (
    name  text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO hindsight_meta (name, value) VALUES ('embedding_dim', '{{embedding_dim}}');

CREATE TABLE api_keys (
    key_id        text PRIMARY KEY,
    tenant_id     text NOT NULL,
    name          text NOT NULL,
    secret_sha256 text NOT NULL,
    agent_ids     text[],
    read_only     boolean NOT NULL DEFAULT false,
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

CREATE TABLE memories (
    id               uuid PRIMARY KEY,
    tenant_id        text NOT NULL,
    agent_id         text NOT NULL,
    layer            text NOT NULL CHECK (layer IN ('episodic', 'semantic')),
    key              text,
    query            text,
    content          text NOT NULL,
    content_hash     text NOT NULL,
    importance       real NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    access_count     integer NOT NULL DEFAULT 0,
    last_accessed_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    occurred_at      timestamptz,
    metadata         jsonb NOT NULL DEFAULT '{}'::jsonb,
    status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
    embedding        vector({{embedding_dim}}) NOT NULL,
    search_text      tsvector GENERATED ALWAYS AS (
        to_tsvector('english'::regconfig,
                    coalesce(key, '') || ' ' || coalesce(query, '') || ' ' || content)
    ) STORED
);

-- Filters come first in every query: tenant, agent, status, layer.
CREATE INDEX memories_scope ON memories (tenant_id, agent_id, status, layer);
-- Exact-duplicate lookup on the write path.
CREATE INDEX memories_dedup ON memories (tenant_id, agent_id, content_hash);
-- HNSW parameters from the seeds: m = 16, ef_construction = 64 (pgvector defaults as well).
CREATE INDEX memories_embedding_hnsw ON memories
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);
CREATE INDEX memories_search_text ON memories USING gin (search_text);

-- One row per processed write job: makes redelivery a no-op and answers "is my write stored?".
CREATE TABLE write_results (
    job_id      uuid PRIMARY KEY,
    tenant_id   text NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('stored', 'merged', 'failed')),
    memory_id   uuid,
    reason      text,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX write_results_tenant ON write_results (tenant_id, recorded_at);
