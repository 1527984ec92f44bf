-- Prompt-injection labels computed once, when a memory is written, not on every search (issue 15).
--
-- domain/injection.py labels a memory whose text tries to instruct the agent that reads it. Computing it
-- for the hits of every search cost ~1.9 ms CPU per search on the 100k tier. A write now stores the
-- signals it found and their stamp (the detector's version and a digest of the text it read); a read takes
-- them while the stamp is the one of the memory's text under the running detector, else computes them
-- (rows written before this migration, rows a path changed without storing them, a changed detector).
-- No backfill: both columns start NULL, and such rows are labelled at read as before.
ALTER TABLE memories ADD COLUMN injection_signals text[];
ALTER TABLE memories ADD COLUMN injection_stamp text;
