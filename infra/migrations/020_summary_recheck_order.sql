-- Summaries written under consolidation rule 2 are checked once more by maintenance (new-user trial).
--
-- Rule 2 (007) merged episodes with the same *set* of words, so "Charged the customer 50 EUR and refunded
-- 20 EUR" and "Charged the customer 20 EUR and refunded 50 EUR", or "Alice paid Bob" and "Bob paid Alice",
-- became one summary that quoted the second as a mere variant of the first, the originals archived.
-- Rule 3 merges only events with the same words in the same order (domain/text.py information_sequence).
-- Maintenance checks every active summary of a lower rule, undoes those whose members say different
-- things (or hide a word) and marks the others rule 3. This partial index holds exactly the summaries
-- still to check; its predicate is UNCHECKED_SUMMARY in adapters/postgres/maintenance/consolidation.py.
DROP INDEX IF EXISTS memories_unchecked_summaries;
CREATE INDEX memories_unchecked_summaries ON memories (tenant_id, agent_id)
    WHERE layer = 'episodic' AND status = 'active' AND metadata ? 'consolidation'
      AND NOT (metadata -> 'consolidation' @> '{"rule": 3}');
