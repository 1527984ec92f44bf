-- Summaries written under consolidation rule 3 are checked once more by maintenance (new-user re-trial).
--
-- Rule 3 (020) compared letters and digits alone, so "Cold room sensor reading was -5 C", "+5 C", "−5 C",
-- "~5 C", "±5 C" and "5 C" became one summary, and "Build tag aB3xK9" / "AB3XK9" one event.
-- Rule 4 compares signs and the case of words holding a digit (domain/text.py information_sequence).
-- Maintenance checks every active summary of a lower rule, undoes those whose members say different
-- things (or hide a word) and marks the others rule 4. This partial index holds exactly the summaries
-- still to check; its predicate is UNCHECKED_SUMMARY in adapters/postgres/maintenance/consolidation.py.
DROP INDEX IF EXISTS memories_unchecked_summaries;
CREATE INDEX memories_unchecked_summaries ON memories (tenant_id, agent_id)
    WHERE layer = 'episodic' AND status = 'active' AND metadata ? 'consolidation'
      AND NOT (metadata -> 'consolidation' @> '{"rule": 4}');
