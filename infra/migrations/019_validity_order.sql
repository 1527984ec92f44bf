-- A fact's validity period never ends before it begins: valid_to >= valid_from (either may be NULL).
--
-- A supersede gave the replaced fact valid_to = the new fact's start with no ordering check, so a value
-- written with an earlier occurred_at than the fact on its key ("Porto from 2026-01" after "Lisbon from
-- 2026-06") left Lisbon superseded with valid_to 2026-01-01, before its valid_from; a restore that
-- retired a future-dated value did the same. The write path now keeps a key's values in valid-time
-- order and a supersede ends a fact no earlier than its start (docs/tools.md, "Valid time on a key").
-- Rows already inverted are closed at their start (an empty period: at no valid_at are they returned;
-- their history keeps the supersede); the constraint is added NOT VALID so that adding it takes no
-- scan of memories under its exclusive lock — the UPDATE has just made every row satisfy it, and new
-- and updated rows are checked from now on. Equal ends are allowed: a fact corrected at the instant it
-- began (a new value with the same start) never held, and says so with an empty period.
UPDATE memories SET valid_to = valid_from WHERE valid_to < valid_from;
ALTER TABLE memories ADD CONSTRAINT memories_valid_period CHECK (valid_to >= valid_from) NOT VALID;
