-- The full memory model: semantic provenance and validity, episodic task records, tags and entities,
-- causal links, typed relations between memories, and an append-only history of every change.

ALTER TABLE memories
    ADD COLUMN source           text NOT NULL DEFAULT 'user_stated'
                                CHECK (source IN ('user_stated', 'agent_inferred')),
    ADD COLUMN tags             text[] NOT NULL DEFAULT '{}',
    ADD COLUMN entities         jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- lower-cased entity types (order_id → order) and values, written by the worker: the entity signal
    ADD COLUMN entity_terms     text[] NOT NULL DEFAULT '{}',
    ADD COLUMN task_id          text,
    ADD COLUMN task_type        text CHECK (task_type IN ('query', 'modify', 'create', 'analyze', 'other')),
    ADD COLUMN outcome          text CHECK (outcome IN ('success', 'partial', 'failure', 'aborted')),
    ADD COLUMN summary          text,
    ADD COLUMN key_decisions    text[] NOT NULL DEFAULT '{}' CHECK (cardinality(key_decisions) <= 3),
    ADD COLUMN lessons          text,
    ADD COLUMN causal_parent    uuid REFERENCES memories (id) ON DELETE SET NULL,
    ADD COLUMN last_verified_at timestamptz,
    ADD COLUMN valid_from       timestamptz,
    ADD COLUMN valid_to         timestamptz,
    ADD COLUMN idempotency_key  text;

ALTER TABLE memories DROP CONSTRAINT memories_status_check;
ALTER TABLE memories ADD CONSTRAINT memories_status_check
    CHECK (status IN ('active', 'superseded', 'archived', 'forgotten'));

CREATE INDEX memories_entities ON memories USING gin (entities jsonb_path_ops);
CREATE INDEX memories_entity_terms ON memories USING gin (entity_terms);
CREATE INDEX memories_tags ON memories USING gin (tags);
CREATE INDEX memories_causal_parent ON memories (causal_parent) WHERE causal_parent IS NOT NULL;
CREATE INDEX memories_timeline ON memories (tenant_id, agent_id, (coalesce(occurred_at, created_at)));
CREATE INDEX memories_key ON memories (tenant_id, agent_id, key) WHERE key IS NOT NULL;

CREATE TABLE memory_relations (
    tenant_id  text NOT NULL,
    from_id    uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    to_id      uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('supersedes', 'contradicts', 'related', 'caused_by', 'part_of')),
    strength   real NOT NULL DEFAULT 1.0 CHECK (strength >= 0 AND strength <= 1),
    reason     text,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (from_id, to_id, kind),
    CHECK (from_id <> to_id)
);
CREATE INDEX memory_relations_to ON memory_relations (to_id);
CREATE INDEX memory_relations_tenant ON memory_relations (tenant_id);

CREATE TABLE memory_history (
    id        bigserial PRIMARY KEY,
    memory_id uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tenant_id text NOT NULL,
    action    text NOT NULL CHECK (action IN ('created', 'merged', 'updated', 'superseded', 'archived',
                                               'restored', 'forgotten', 'feedback', 'decayed')),
    reason    text,
    changes   jsonb NOT NULL DEFAULT '{}'::jsonb,  -- {"field": {"from": …, "to": …}}
    actor     text,                                 -- API key id, or "worker" / "maintenance"
    at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memory_history_memory ON memory_history (memory_id, at);

-- A causal parent that was still queued when its child was stored: linked as soon as it arrives.
CREATE TABLE pending_causal_links (
    tenant_id text NOT NULL,
    child_id  uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    parent_id uuid NOT NULL,
    PRIMARY KEY (child_id)
);
CREATE INDEX pending_causal_links_parent ON pending_causal_links (parent_id);

-- Long content is embedded in chunks: chunk 0 is memories.embedding, the rest live here. A hit on any
-- chunk returns the memory (search takes each memory's best chunk).
CREATE TABLE memory_chunks (
    memory_id uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk_no  integer NOT NULL CHECK (chunk_no > 0),
    tenant_id text NOT NULL,
    agent_id  text NOT NULL,
    content   text NOT NULL,
    embedding vector({{embedding_dim}}) NOT NULL,
    PRIMARY KEY (memory_id, chunk_no)
);
CREATE INDEX memory_chunks_scope ON memory_chunks (tenant_id, agent_id);
CREATE INDEX memory_chunks_embedding_hnsw ON memory_chunks
    USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64);

-- Writes sent with filter=true may be skipped by the write filter: record that too.
ALTER TABLE write_results DROP CONSTRAINT write_results_outcome_check;
ALTER TABLE write_results ADD CONSTRAINT write_results_outcome_check
    CHECK (outcome IN ('stored', 'merged', 'failed', 'skipped'));

-- Context: surrounding text that helps find a memory (e.g. the message it answered) without being the
-- memory itself. Embedded with the content and indexed for full text at a lower weight.
ALTER TABLE memories ADD COLUMN context text;
DROP INDEX memories_search_text;
ALTER TABLE memories DROP COLUMN search_text;
ALTER TABLE memories ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, content), 'A')
    || setweight(to_tsvector('english'::regconfig, coalesce(key, '') || ' ' || coalesce(query, '')), 'B')
    || setweight(to_tsvector('english'::regconfig, coalesce(context, '')), 'C')
) STORED;
CREATE INDEX memories_search_text ON memories USING gin (search_text);
