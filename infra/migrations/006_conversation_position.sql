-- Conversation position (issue 13): which conversation (thread) a memory was said in and where.
--
-- conversation_id is the caller's own id for the thread; turn_index orders its turns (within a session
-- when session_index is given); session_at is when that session started (a turn written without
-- occurred_at is stored with it). Recall reads a hit's neighbouring turns through the index below, and
-- memory_search can return them (context_window). All nullable: memories that are not turns of a
-- conversation leave them empty.
ALTER TABLE memories
    ADD COLUMN conversation_id text,
    ADD COLUMN turn_index      integer CHECK (turn_index >= 0),
    ADD COLUMN session_index   integer CHECK (session_index >= 0),
    ADD COLUMN session_at      timestamptz;

CREATE INDEX memories_conversation ON memories (tenant_id, agent_id, conversation_id, session_index, turn_index)
    WHERE conversation_id IS NOT NULL;
