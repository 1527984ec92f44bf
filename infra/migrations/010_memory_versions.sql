-- Optimistic concurrency (issue 18): every memory carries a version, 1 when stored, bumped by every change
-- to what it says or how it stands — content, key, query, importance, status, validity, tags, entities,
-- metadata, sharing, verification, context. Access bookkeeping (access_count, last_accessed_at,
-- updated_at), derived columns (embedding, content_hash, entity_terms) and causal_parent (filled in after
-- the fact when a parent arrives after its child, or when an import links its rows: completing the
-- write, not changing it) do not bump it, so a search never makes an agent's expected_version stale. The trigger is the one place the rule
-- lives: the worker's merges and supersedes, maintenance (decay, consolidation) and the by-id tools all
-- bump through it. A statement that sets version itself (memory_link bumps its from memory) is left as
-- it is. Existing rows start at 1.
ALTER TABLE memories ADD COLUMN version integer NOT NULL DEFAULT 1 CHECK (version >= 1);

CREATE FUNCTION hindsight_bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := OLD.version + 1;
    RETURN NEW;
END
$$;

CREATE TRIGGER memories_version BEFORE UPDATE ON memories FOR EACH ROW
    WHEN (OLD.version = NEW.version AND
          (OLD.content, OLD.key, OLD.query, OLD.importance, OLD.status, OLD.layer, OLD.source, OLD.tags,
           OLD.entities, OLD.metadata, OLD.valid_from, OLD.valid_to, OLD.shared_with, OLD.last_verified_at,
           OLD.context, OLD.occurred_at, OLD.task_id, OLD.task_type, OLD.outcome,
           OLD.summary, OLD.key_decisions, OLD.lessons)
          IS DISTINCT FROM
          (NEW.content, NEW.key, NEW.query, NEW.importance, NEW.status, NEW.layer, NEW.source, NEW.tags,
           NEW.entities, NEW.metadata, NEW.valid_from, NEW.valid_to, NEW.shared_with, NEW.last_verified_at,
           NEW.context, NEW.occurred_at, NEW.task_id, NEW.task_type, NEW.outcome,
           NEW.summary, NEW.key_decisions, NEW.lessons))
    EXECUTE FUNCTION hindsight_bump_version();
