-- Scheduled maintenance (decay and archive, consolidation, episodic → semantic, sweeps): when each
-- memory was last decayed, and the resumable state of the maintenance cycle.

-- The last decay step applied to the memory. Decay counts from the latest of created_at,
-- last_accessed_at, updated_at and this, so the same interval is never decayed twice (a second run, a
-- resumed run) — see hindsight.domain.maintenance.
ALTER TABLE memories ADD COLUMN decayed_at timestamptz;

-- One row per cycle: 'cycle' for the scheduled one, 'tenant:<id>' for a run limited to one tenant.
-- A run takes the lease (lease_owner, lease_until: database clock), resumes at (step, cursor, position)
-- and saves them after every scope, so a run that runs out of time is continued by the next one.
CREATE TABLE maintenance_state (
    name             text PRIMARY KEY,
    step             text,          -- the step to resume; NULL when no cycle is in progress
    cursor_tenant_id text,          -- the last scope that step finished, in (tenant_id, agent_id) order
    cursor_agent_id  text,
    position         text,          -- a step's own resume point (the Redis SCAN cursor)
    cycle_started_at timestamptz,   -- when the cycle in progress began
    changed_since    timestamptz,   -- start of the last completed cycle: unchanged scopes are skipped
    lease_owner      text,
    lease_until      timestamptz,
    updated_at       timestamptz NOT NULL DEFAULT now()
);
