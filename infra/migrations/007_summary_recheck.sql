-- Summaries written under the first consolidation rule are checked once by maintenance.
--
-- That rule merged episodes by embedding similarity alone, so one summary could stand for distinct
-- events (service requests RQ-5101 … RQ-5112) while quoting only a few of them: the others were archived
-- behind it and vanished from default search (issue 12). Summaries of the current rule carry
-- metadata.consolidation.rule; maintenance checks every active summary without it, undoes those that hide
-- a word of a member and marks the others. This partial index holds exactly the summaries still to check,
-- so once they are done the per-scope probe maintenance makes on every cycle finds an empty index.
CREATE INDEX memories_unchecked_summaries ON memories (tenant_id, agent_id)
    WHERE layer = 'episodic' AND status = 'active' AND metadata ? 'consolidation'
      AND NOT (metadata -> 'consolidation' ? 'rule');
