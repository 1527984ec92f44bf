-- Sessions that chain themselves (issue 14, part 3): an episodic write with a session_id gets the
-- session's previous event as its causal_parent unless it names one (or opts out with chain=false).
--
-- session_id is the caller's id for the session; session_seq the write's place in the session's chain,
-- numbered at acknowledgement (Redis, increasing in acknowledgement order), NULL for writes outside a
-- chain; session_auto_parent says the causal_parent is the chain's to set (the write named none), so the
-- worker may re-point it when an earlier event of the session arrives late (SQS keeps no order). The
-- index serves the worker's "nearest lower / higher number in this session" lookups.
ALTER TABLE memories
    ADD COLUMN session_id          text,
    ADD COLUMN session_seq         bigint,
    ADD COLUMN session_auto_parent boolean NOT NULL DEFAULT false;

CREATE INDEX memories_session_chain ON memories (tenant_id, agent_id, session_id, session_seq)
    WHERE session_seq IS NOT NULL;
