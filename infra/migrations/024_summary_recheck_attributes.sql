-- Summaries written under consolidation rule 4 are checked once more by maintenance (new-user trial F1).
--
-- Rule 4 merged "Order shipped to the customer" with order_id A-1, A-2 and A-3 into one summary that
-- carried the representative's entities alone ({"order_id": "A-3"}), no metadata and no shared_with:
-- entity search for A-1 or A-2 found nothing, and an agent the A-2 member was shared with lost it.
-- Rule 5 merges only members whose entities, caller metadata and shared_with are equal, and the summary
-- carries them (domain/maintenance/consolidation.py summary_misdescribes_members). Maintenance checks every
-- active summary of a lower rule, undoes those that misdescribe their members (members active again) and
-- marks the others rule 5. This partial index holds exactly the summaries still to check; its predicate
-- is UNCHECKED_SUMMARY in adapters/postgres/maintenance/consolidation.py.
DROP INDEX IF EXISTS memories_unchecked_summaries;
CREATE INDEX memories_unchecked_summaries ON memories (tenant_id, agent_id)
    WHERE layer = 'episodic' AND status = 'active' AND metadata ? 'consolidation'
      AND NOT (metadata -> 'consolidation' @> '{"rule": 5}');
