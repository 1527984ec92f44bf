-- Full-text keywords for Chinese, Japanese and Korean.
--
-- The `english` configuration splits words at spaces and punctuation, so a Chinese sentence was one
-- lexeme ('张伟的订单已发货') and no word of it, nor a Chinese product name inside a question, ever
-- matched by keyword. Written CJK has no spaces to split at; the usual remedy without a dictionary is
-- overlapping character bigrams (Lucene's CJKBigramFilter, Elasticsearch's `cjk` analyzer): '订单已发货'
-- → '订单 单已 已发 发货'. A question's bigrams then match the memory's, and ts_rank_cd ranks memories
-- sharing more (and adjacent) bigrams higher.
--
-- hindsight_tsvector(text) is the one function that turns text into lexemes: the stored search_text
-- below and the search's query (adapters/postgres/memory_reads.py: _keyword_query) both call it, so a
-- question is cut exactly as the memories were.
--   * ASCII text goes to to_tsvector('english', …) unchanged: English lexemes are what they were.
--   * Other text is first NFKC-normalised (full-width 'Ａ－１０４２' → 'A-1042', half-width katakana →
--     full-width, compatibility ideographs → unified), then every maximal run of CJK characters is
--     replaced by its bigrams, with spaces around them, so letters and digits next to a run stay their
--     own English lexemes ('订单A-1042已发货' keeps '-1042'). A run of one character is kept as that
--     unigram ('第3季度' → '第 3 季度'); longer runs give bigrams only, as CJKBigramFilter does by
--     default: every character as well would add the most frequent lexemes of all for little gain.
--   * CJK here: Han (the unified ideographs, extension A, compatibility ideographs, planes 2 and 3),
--     々 〆 〇, hiragana, katakana (the prolonged sound mark ー included, the middle dot ・ not: it
--     separates words), half-width katakana, Hangul syllables and jamo. Japanese and Korean are
--     bigrammed like Chinese: a dictionary segmenter (MeCab, a Korean morphological analyser) would
--     be better for them, but none ships with Postgres, and bigrams are the standard fallback for all
--     three. Korean words are space-separated, so its bigrams never cross a space.
-- Search's inverse-document-frequency cut (005, lexeme_stats) sees bigrams as ordinary lexemes: a
-- bigram most of a scope's memories contain ('用户', '什么') is dropped from the query like 'the'.
CREATE FUNCTION hindsight_keyword_text(t text) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    cjk constant text := '\u1100-\u11ff\u3005-\u3007\u3040-\u30fa\u30fc-\u30ff\u3130-\u318f\u31f0-\u31ff'
                         '\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f'
                         '\U00020000-\U0003ffff';
    run text[];
    parts text[] := '{}';
BEGIN
    IF t !~ '[^\x01-\x7f]' THEN
        RETURN t;  -- ASCII only: nothing to normalise or segment (the common case, kept cheap)
    END IF;
    t := normalize(t, NFKC);
    IF t !~ ('[' || cjk || ']') THEN
        RETURN t;
    END IF;
    FOR run IN SELECT regexp_matches(t, '([' || cjk || ']+)|([^' || cjk || ']+)', 'g') LOOP
        IF run[2] IS NOT NULL THEN
            parts := parts || run[2];
        ELSIF char_length(run[1]) = 1 THEN
            parts := parts || run[1];
        ELSE
            FOR i IN 1 .. char_length(run[1]) - 1 LOOP
                parts := parts || substr(run[1], i, 2);
            END LOOP;
        END IF;
    END LOOP;
    RETURN array_to_string(parts, ' ');
END
$$;

CREATE FUNCTION hindsight_tsvector(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN to_tsvector('english'::regconfig, hindsight_keyword_text(t));

-- Recompute every stored row with it: a table rewrite under an exclusive lock. Measured on the shared
-- 2-core machine at load average 17: 100 000 English memories 63 s (the english-only expression took
-- 106 s in the same state: noise), 100 000 Chinese ones 84 s (english-only: 36 s); GIN rebuild 2-4 s.
DROP INDEX memories_search_text;
ALTER TABLE memories DROP COLUMN search_text;
ALTER TABLE memories ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
    setweight(hindsight_tsvector(content), 'A')
    || setweight(hindsight_tsvector(coalesce(key, '') || ' ' || coalesce(query, '')), 'B')
    || setweight(hindsight_tsvector(coalesce(context, '')), 'C')
) STORED;
CREATE INDEX memories_search_text ON memories USING gin (search_text);

-- The lexeme counts describe the old lexemes; without scope_stats rows search keeps every query lexeme
-- (as on a new store) until the next maintenance run recounts each scope. TRUNCATE, not DELETE: row-level
-- security would limit a DELETE to one tenant.
TRUNCATE lexeme_stats, scope_stats;
