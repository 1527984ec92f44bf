-- The maintenance step ``key_case`` (h-kc): 030's hindsight_settle_key_case(tenant, agent, actor) found the
-- scope's keys not in stored form by reading every keyed row of the scope (hindsight_key_form per non-ASCII
-- key: ~11 s for 100k CJK keys), three times when there were some, on every scope at every run. The step now
-- names the rows itself, once, among those written or changed since the last completed maintenance cycle
-- (adapters/postgres/maintenance/key_case.py), takes their keys' advisory locks, and calls the function below
-- with their ids: 030's steps on those rows only (the rest of the body is 030's, unchanged).
-- hindsight_settle_key_case(tenant, agent, actor) stays for a version before this one (a rollback): it now
-- names every such row of the scope once and calls the new function, with 030's results.
-- A key the old code wrote since 029 ran and before this deploy was seen by no version's key_case step under
-- this rule, so the maintenance cycles' "changed since" goes back to 029's time once (a few rows of
-- maintenance_state): the next cycle examines those rows (and the other steps re-examine scopes changed since
-- then, once). No table is rewritten.

CREATE OR REPLACE FUNCTION hindsight_settle_key_case(p_tenant text, p_agent text, p_actor text, p_ids uuid[])
    RETURNS TABLE (old_id uuid, new_id uuid, link text, ended_before timestamptz)
    LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
    IF coalesce(cardinality(p_ids), 0) = 0 THEN
        RETURN;
    END IF;
    DROP TABLE IF EXISTS pg_temp.hindsight_key_case, pg_temp.hindsight_key_case_values,
                         pg_temp.hindsight_key_case_settled, pg_temp.hindsight_key_case_ended;

    CREATE TEMP TABLE hindsight_key_case ON COMMIT DROP AS
        SELECT m.id, m.tenant_id, m.agent_id, m.layer, m.key AS written, hindsight_key_form(m.key) AS key
        FROM memories m
        WHERE m.id = ANY(p_ids)  -- by primary key; each still checked, as it may have changed since it was named
          AND m.tenant_id = p_tenant AND m.agent_id = p_agent AND m.key IS NOT NULL
          AND m.key <> hindsight_key_form(m.key);

    -- the active semantic values of every key a renamed memory joins, with the spelling each was written in
    CREATE TEMP TABLE hindsight_key_case_values ON COMMIT DROP AS
        SELECT m.id, m.tenant_id, m.agent_id, coalesce(c.key, m.key) AS key, m.key AS written, m.source,
               m.content, coalesce(m.valid_from, m.occurred_at, m.created_at) AS since, m.created_at
        FROM memories m LEFT JOIN hindsight_key_case c ON c.id = m.id
        WHERE m.tenant_id = p_tenant AND m.agent_id = p_agent
          AND m.layer = 'semantic' AND m.status = 'active' AND m.key IS NOT NULL
          AND coalesce(c.key, m.key) IN (SELECT c2.key FROM hindsight_key_case c2 WHERE c2.layer = 'semantic');

    -- per key met by two spellings: its fact (began to hold last), and each active value of another spelling
    CREATE TEMP TABLE hindsight_key_case_settled ON COMMIT DROP AS
        WITH fact AS (
            SELECT DISTINCT ON (v.key) v.*
            FROM hindsight_key_case_values v
            ORDER BY v.key, v.since DESC, v.created_at DESC, v.id DESC)
        SELECT o.id AS old_id, f.id AS new_id, o.tenant_id, f.since AS until,
               CASE WHEN f.content ~* '\m(also|as well|too|additionally)\M' OR f.content ~ '[也还]'
                    THEN 'related'
                    WHEN f.source = 'agent_inferred' AND o.source = 'user_stated' THEN 'contradicts'
                    ELSE 'supersedes' END AS kind
        FROM fact f JOIN hindsight_key_case_values o ON o.key = f.key AND o.written <> f.written;

    CREATE TEMP TABLE hindsight_key_case_ended ON COMMIT DROP AS
        WITH before AS (
            SELECT m.id, m.valid_to FROM memories m JOIN hindsight_key_case_settled s ON s.old_id = m.id
            WHERE s.kind = 'supersedes'),
        ended AS (
            UPDATE memories m SET status = 'superseded', updated_at = now(),
                   valid_to = least(m.valid_to,
                                    greatest(s.until, coalesce(m.valid_from, m.occurred_at, m.created_at)))
            FROM hindsight_key_case_settled s
            WHERE s.old_id = m.id AND s.kind = 'supersedes'
            RETURNING m.id, m.tenant_id, m.valid_to)
        SELECT e.id, e.tenant_id, b.valid_to AS before, e.valid_to AS after
        FROM ended e JOIN before b ON b.id = e.id;

    INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
        SELECT s.tenant_id, s.new_id, s.old_id, s.kind,
               CASE s.kind WHEN 'supersedes' THEN 'newer fact on the same key (written in another case)'
                           WHEN 'contradicts' THEN 'the user''s statement disagrees with a later inference on '
                                                   'the same key (written in another case); both kept'
                           ELSE 'adds to the fact on the same key (written in another case)' END
        FROM hindsight_key_case_settled s
        ON CONFLICT (from_id, to_id, kind) DO NOTHING;

    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
        SELECT e.id, e.tenant_id, 'superseded',
               'superseded by ' || s.new_id || ' (same key, written in another case)',
               jsonb_build_object('status', jsonb_build_object('from', 'active', 'to', 'superseded'))
               || CASE WHEN e.after IS DISTINCT FROM e.before
                       THEN jsonb_build_object('valid_to', jsonb_build_object('from', e.before, 'to', e.after))
                       ELSE '{}'::jsonb END,
               p_actor
        FROM hindsight_key_case_ended e JOIN hindsight_key_case_settled s ON s.old_id = e.id;

    UPDATE memories m SET key = c.key, updated_at = now() FROM hindsight_key_case c WHERE c.id = m.id;

    INSERT INTO memory_history (memory_id, tenant_id, action, reason, changes, actor)
        SELECT c.id, c.tenant_id, 'updated', 'key stored in lower case: keys compare case-insensitively',
               jsonb_build_object('key_case', jsonb_build_object('from', c.written, 'to', c.key)), p_actor
        FROM hindsight_key_case c;

    -- a move between keys the old code recorded (memory_update) names the keys as written: lowered as 029 did
    UPDATE memory_history h
        SET changes = jsonb_set(h.changes, '{key}',
            (h.changes -> 'key')
            || jsonb_build_object('from', to_jsonb(hindsight_key_form(h.changes -> 'key' ->> 'from')),
                                  'to', to_jsonb(hindsight_key_form(h.changes -> 'key' ->> 'to')),
                                  'written', jsonb_build_object('from', h.changes -> 'key' -> 'from',
                                                                'to', h.changes -> 'key' -> 'to')))
        WHERE h.tenant_id = p_tenant AND h.memory_id IN (SELECT c.id FROM hindsight_key_case c)
          AND jsonb_typeof(h.changes -> 'key') = 'object'
          AND (h.changes -> 'key' ->> 'from' IS DISTINCT FROM hindsight_key_form(h.changes -> 'key' ->> 'from')
               OR h.changes -> 'key' ->> 'to' IS DISTINCT FROM hindsight_key_form(h.changes -> 'key' ->> 'to'));

    RETURN QUERY
        SELECT c.id, NULL::uuid, 'renamed'::text, NULL::timestamptz FROM hindsight_key_case c
        UNION ALL
        SELECT s.old_id, s.new_id, s.kind, e.before
        FROM hindsight_key_case_settled s LEFT JOIN hindsight_key_case_ended e ON e.id = s.old_id;

    DROP TABLE hindsight_key_case, hindsight_key_case_values, hindsight_key_case_settled,
               hindsight_key_case_ended;
END
$fn$;

CREATE OR REPLACE FUNCTION hindsight_settle_key_case(p_tenant text, p_agent text, p_actor text)
    RETURNS TABLE (old_id uuid, new_id uuid, link text, ended_before timestamptz)
    LANGUAGE sql AS $fn$
    SELECT * FROM hindsight_settle_key_case(p_tenant, p_agent, p_actor, ARRAY(
        SELECT m.id FROM memories m
        WHERE m.tenant_id = p_tenant AND m.agent_id = p_agent AND m.key IS NOT NULL
          AND (m.key ~ '[A-Z]' OR octet_length(m.key) <> char_length(m.key))
          AND m.key <> hindsight_key_form(m.key)))
$fn$;

-- maintenance runs as hindsight_app (migration 004), under row-level security: the caller's tenant only
GRANT EXECUTE ON FUNCTION hindsight_settle_key_case(text, text, text, uuid[]) TO hindsight_app;

UPDATE maintenance_state
   SET changed_since = least(changed_since, (SELECT applied_at FROM schema_migrations WHERE version = 29)),
       cycle_started_at = least(cycle_started_at, (SELECT applied_at FROM schema_migrations WHERE version = 29));
