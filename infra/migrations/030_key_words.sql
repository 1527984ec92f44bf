-- A key's parts are keyword-index words (trial18 M6).
--
-- The keyword signal reads a memory's content, key, recall hint and context (docs/tools.md), but the
-- english parser reads a dotted key as one host name: to_tsvector('english', 'user.home') is the single
-- lexeme 'user.home', and 'alex.allergy.peanuts' one lexeme too. So no query word ever matched a key's
-- words: memory_summarize {"query": "home diet allergy"} found none of the memories on user.home,
-- user.diet and user.allergy ("the 6 recalled share no word or entity with it"), and memory_search found
-- them by the vector signal alone. (Keys with '_', '-' or ':' alone were split already: the parser cuts
-- there.)
--
-- hindsight_key_words(key) is the key as written followed by its parts — the key with '.', ':' and '@'
-- (the separators of the key grammar, domain.limits.KEY_PATTERN, besides '_' and '-') as spaces, when it
-- holds a '.' or an '@' (the parser splits at ':', '_' and '-' already, not inside a host or an address):
-- 'user.home' → 'user.home user home'. The whole key stays a lexeme, so a query naming the key as
-- written ("user.home") matches as before; its parts are English words like the content's ('allergy'
-- → 'allergi', as "allergy" in a query). They take the key's weight (B), as the whole key did.
CREATE FUNCTION hindsight_key_words(key text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN key ~ '[.@]' THEN key || ' ' || translate(key, '.:@', '   ') ELSE key END;

-- Recompute every stored row: a table rewrite under an exclusive lock, as 009 (~1 min per 100 000
-- memories there), which rebuilds every index of the table, the HNSW index included (a new graph: vector
-- candidates may differ slightly from the old graph's, as between any two builds). The full-text index is
-- created as 016 left it (no pending list). Rows without a key, or with one of no '.' or '@' (LoCoMo's
-- conversation turns have no key), get the same search_text as before.
DROP INDEX memories_search_text;
ALTER TABLE memories DROP COLUMN search_text;
ALTER TABLE memories ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
    setweight(hindsight_tsvector(content), 'A')
    || setweight(hindsight_tsvector(hindsight_key_words(coalesce(key, '')) || ' ' || coalesce(query, '')), 'B')
    || setweight(hindsight_tsvector(coalesce(context, '')), 'C')
) STORED;
CREATE INDEX memories_search_text ON memories USING gin (search_text) WITH (fastupdate = off);

-- The lexeme counts (005) do not count the key parts yet: every scope is recounted at the next
-- maintenance run (keyword_stats recounts a scope whose counts are older than its latest change). Until
-- then search keeps reading the counts it has — closer to the truth than none (009 emptied them, which
-- keeps every query word until the recount).
UPDATE scope_stats SET refreshed_at = '-infinity';
