"""The read side over Postgres + pgvector: hybrid candidates, get by id, relations, history, causal chains."""

from __future__ import annotations

import asyncio
import re
from array import array
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import lru_cache
from operator import itemgetter
from typing import Any, TypeVar
from uuid import UUID

from psycopg import sql
from psycopg.rows import tuple_row
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel

from hindsight.adapters.postgres.entity_filter import entity_path
from hindsight.adapters.postgres.rows import (
    MEMORY_FIELDS,
    history_from_row,
    memory_columns,
    memory_from_row,
    relation_from_row,
    tenant_rows,
    tenant_rows_of,
    vector_literal,
)
from hindsight.domain.limits import SHARE_WITH_EVERY_AGENT
from hindsight.domain.memory import (
    Candidate,
    CandidateMemory,
    HistoryEntry,
    MemoryStatus,
    Relation,
    Scope,
    SearchRequest,
    StoredMemory,
)
from hindsight.domain.pool_columns import POOL_MEMORY_FIELDS, CandidatePool, PoolColumns, positions_of
from hindsight.domain.text import (
    KEEP_AT_LEAST,
    MAX_KEYWORD_RANKED,
    MAX_KEYWORD_RANKED_BINDING,
    MAX_LEXEME_SHARE,
    MIN_DOCS_FOR_CUT,
)
from hindsight.domain.timetravel import DROPPED_CHANGE
from hindsight.domain.trusted import trusted
from hindsight.ports import ChainDirection, ChainLink, Vector


def readers(scope: Scope) -> list[str]:
    """The ``shared_with`` entries that let the scope's agent read a memory: its id, and '*'."""
    return [scope.agent_id, SHARE_WITH_EVERY_AGENT]


def visible(alias: str = "", agent: str = "agent", shared: str = "readers") -> str:
    """SQL: the memory (table alias ``alias``) is the agent's own, or shared with it and not forgotten
    (named params ``agent`` and ``readers``): a forgotten memory's text is kept only so that its owner can
    restore it (``domain.timetravel.readable_by`` is the same rule for a version read at ``known_at``).
    Always beside a tenant condition: sharing never crosses tenants."""
    prefix = f"{alias}." if alias else ""
    return (
        f"({prefix}agent_id = %({agent})s"
        f" OR ({prefix}shared_with && %({shared})s::text[] AND {prefix}status <> 'forgotten'))"
    )


def readable_columns(agent: str = "agent", shared: str = "readers") -> sql.SQL:
    """The select list of a full memory row ``m`` as the scope (named params ``agent`` and ``readers``)
    may see it: ``causal_parent`` only when the scope may read the parent too (``visible``), else null.
    A reader a memory is shared with sees nothing of the owner's memories it may not read, ids included
    (new-user trial L4: the id of a private parent was shown). A subquery by primary key, run only for a
    row that has a parent."""
    parent = f"""(SELECT p.id FROM memories p WHERE p.id = m.causal_parent AND p.tenant_id = m.tenant_id
                   AND {visible("p", agent, shared)})"""
    return memory_columns(MEMORY_FIELDS, {"causal_parent": parent})


MEMORY_COLUMNS = readable_columns()
"""``readable_columns`` for statements that name the scope ``agent`` and ``readers``."""
_CHAIN_COLUMNS = readable_columns("a")
"""``readable_columns`` for the causal-chain statement (it names the agent ``a``)."""


def _narrowed(request: SearchRequest) -> bool:
    """Whether filters other than scope, status and layer apply (then the GIN helpers return every
    match and the caller filters and limits)."""
    return bool(
        request.key is not None
        or request.tags
        or request.entities
        or request.since is not None
        or request.until is not None
        or request.min_importance > 0
        or request.task_type is not None
        or request.valid_at is not None
        or request.known_at is not None
    )


STATUS_AT = """coalesce((SELECT h.changes -> 'status' ->> 'from' FROM memory_history h
                          WHERE h.memory_id = memories.id AND h.at > %(known_at)s AND h.changes ? 'status'
                          ORDER BY h.at, h.id LIMIT 1), status)"""
"""SQL: a memory's status at ``known_at`` — the ``from`` of its first status change after then, else
today's (``domain.timetravel.rewound`` reads the history the same way)."""
DROPPED_SINCE = f"""coalesce((SELECT h.changes ? '{DROPPED_CHANGE}' FROM memory_history h
                           WHERE h.memory_id = memories.id AND h.changes ? 'status'
                           ORDER BY h.at DESC, h.id DESC LIMIT 1), false)"""
"""SQL: a memory forgotten today was dropped as a continuation, not forgotten on request: its latest status
change is the drop (``domain.timetravel.held_until_dropped``); a ``known_at`` read before it still sees it."""
VALID_AT = """coalesce(valid_from, occurred_at, created_at) <= %(valid_at)s
              AND (valid_to IS NULL OR valid_to > %(valid_at)s)"""
"""SQL: the memory's valid interval [start, valid_to) holds ``valid_at`` (``domain.timetravel.valid_at``)."""


def not_replaced_by_valid_at(known: bool = False) -> str:
    """SQL: no other value of this keyed fact's key (table ``memories``) that may replace it began after
    it and by ``valid_at`` — and, without ``known`` (a read of today's values), still holds then; with
    ``known``, one stored by ``known_at`` (its end as held then is not read: a value that began by then
    replaces it) — and no live value of its key (active or superseded, not archived) that may replace it,
    begun before it or with it, holds at ``valid_at`` (with ``known``: stored by ``known_at``, its end as
    it stands today). A write settles only with the key's live values, so an archived value keeps the open
    period it had when archived although a value written since holds the key from its own start (the
    latest stated start holds: ``key_rejoin``), or over it, from an earlier start (trial 2 MED 4: Oslo
    from May archived, Bonn from January written: both at June); a ``valid_at`` read that brings archived
    facts — asked for or implied, by search or by id — must not answer it beside, or instead of, that
    value (trial N1): one value of a key at each instant, the live one. By the source rules an inference
    never replaces what the user stated (``domain.contradiction.resolve``: both are kept, shown beside
    each other); a value that never held (an empty period) replaces nothing."""
    began, mine = "coalesce(n.valid_from, n.created_at)", "coalesce(memories.valid_from, memories.created_at)"
    holds = "(n.valid_to IS NULL OR n.valid_to > %(valid_at)s)"
    stored = "AND n.created_at <= %(known_at)s" if known else ""
    then = stored if known else f"AND {holds}"
    return f"""(key IS NULL OR NOT EXISTS (
                 SELECT 1 FROM memories n
                 WHERE n.tenant_id = memories.tenant_id AND n.agent_id = memories.agent_id
                   AND n.key = memories.key AND n.layer = 'semantic' AND n.id <> memories.id
                   AND n.status IN ('active', 'superseded', 'archived')
                   AND NOT (n.source = 'agent_inferred' AND memories.source = 'user_stated')
                   AND coalesce(n.valid_to, 'infinity') > {began}
                   AND (({began} > {mine} AND {began} <= %(valid_at)s {then})
                        OR (n.status IN ('active', 'superseded') AND {began} <= {mine}
                            AND {holds} {stored}))))"""


NOT_REPLACED_BY_VALID_AT = not_replaced_by_valid_at()
"""``not_replaced_by_valid_at`` for a read of today's values."""
REPLACED_ON_KEY = """SELECT id FROM memories
   WHERE tenant_id = %(t)s AND id = ANY(%(ids)s::uuid[]) AND layer = 'semantic' AND key IS NOT NULL
     AND NOT {replaced}"""
"""The keyed facts of ``ids`` that a value of their key replaced by ``valid_at`` (``replaced_on_key``;
``{replaced}``: ``not_replaced_by_valid_at``)."""


def _bound_at_known(name: str) -> str:
    """SQL: the timestamp column ``name`` as it read at ``known_at`` — the ``from`` of its first recorded
    change after then (a JSON null is an open end), else today's value."""
    return f"""(coalesce((SELECT ARRAY[(h.changes -> '{name}' ->> 'from')::timestamptz] FROM memory_history h
                          WHERE h.memory_id = memories.id AND h.at > %(known_at)s AND h.changes ? '{name}'
                          ORDER BY h.at, h.id LIMIT 1), ARRAY[{name}]))[1]"""


VALID_AT_KNOWN = f"""coalesce({_bound_at_known("valid_from")}, occurred_at, created_at) <= %(valid_at)s
              AND ({_bound_at_known("valid_to")} IS NULL OR {_bound_at_known("valid_to")} > %(valid_at)s)"""
"""SQL: ``VALID_AT`` with the validity bounds this store held at ``known_at`` (what we held then about
``valid_at``): a fact superseded after ``known_at`` was open-ended then."""


def _changed_since(fields: Sequence[str]) -> str:
    """SQL: the memory's history records a change of one of ``fields`` after ``known_at`` (one probe of
    the history's (memory_id, at) index)."""
    keys = ", ".join(f"'{name}'" for name in fields)
    return f"""EXISTS (SELECT FROM memory_history h WHERE h.memory_id = memories.id AND h.at > %(known_at)s
                       AND h.changes ?| ARRAY[{keys}])"""


def _held_at_known(valid_at: bool) -> str:
    """SQL: what a search under ``known_at`` keeps of the memories created by then and not forgotten: the
    status they had then among ``statuses`` (and, with ``valid_at``, the validity held then holds it).

    The same rows as ``STATUS_AT`` (and ``VALID_AT_KNOWN``) alone, written as: today's values, when the
    history records no change of them since ``known_at`` (then they are what was held), or else those of
    ``known_at``. Why (issue 15): the planner cannot estimate ``STATUS_AT = ANY(...)`` (a correlated
    subquery) and took it for one row in 200; below the LIMIT that made the exact scan of the whole scope,
    evaluating it for every memory (206 ms at 100k memories), look cheaper than the HNSW probe. Today's
    status it estimates from the column's statistics, the probe it takes for every other row, so it
    probes the HNSW index as the default search does (~4 ms); the subqueries then run only for the rows
    the probe reads whose today's values are not the answer."""
    fields = ["status", "valid_from", "valid_to"] if valid_at else ["status"]
    today = "status = ANY(%(statuses)s)" + (f" AND {VALID_AT}" if valid_at else "")
    then = f"{STATUS_AT} = ANY(%(statuses)s)" + (f" AND {VALID_AT_KNOWN}" if valid_at else "")
    return f"(({today} AND NOT {_changed_since(fields)}) OR ({then}))"


LIVE_STATUSES = ["active", "superseded", "archived"]


def _at_known(name: str, cast: str) -> str:
    """SQL: the scalar column ``name`` as it read at ``known_at`` — the ``from`` of its first recorded
    change after then (as ``cast``; a JSON null is a null), else today's value (``domain.timetravel.
    rewound`` reads the history the same way)."""
    return f"""(coalesce((SELECT ARRAY[(h.changes -> '{name}' ->> 'from')::{cast}] FROM memory_history h
                          WHERE h.memory_id = memories.id AND h.at > %(known_at)s
                            AND h.changes -> '{name}' ? 'from'
                          ORDER BY h.at, h.id LIMIT 1), ARRAY[{name}]))[1]"""


def _merged_at_known(name: str, today: str, members: str) -> str:
    """SQL: the JSON column ``name`` (``today``: its value as jsonb) as it read at ``known_at``: the ``from``
    of its first recorded change after then (else today's value), without what the merges of repeats
    recorded up to that change added to it (``members``: a set-returning function of the ``added`` value
    giving the array items or object keys added) — ``domain.timetravel.rewound``'s order."""
    return f"""(SELECT coalesce(e.v, {today}) - ARRAY(
                    SELECT {members}(a.changes -> 'added' -> '{name}') FROM memory_history a
                    WHERE a.memory_id = memories.id AND a.at > %(known_at)s
                      AND a.changes -> 'added' ? '{name}'
                      AND (e.at IS NULL OR (a.at, a.id) <= (e.at, e.id)))
                FROM (SELECT) AS one LEFT JOIN LATERAL (
                    SELECT h.at, h.id, h.changes -> '{name}' -> 'from' AS v FROM memory_history h
                    WHERE h.memory_id = memories.id AND h.at > %(known_at)s AND h.changes -> '{name}' ? 'from'
                    ORDER BY h.at, h.id LIMIT 1) AS e ON true)"""


ENTITIES_INCLUDE = "entities @? %(entities)s::jsonpath"
"""SQL: the memory's entities include the filter's (``entity_filter.entity_path``: a value is the memory's
value or an item of its list)."""
_SINCE = "({occurred_at} >= %(since)s OR {occurred_end} > %(since)s)"
_UNTIL = "{occurred_at} < %(until)s"
_TODAY = {"occurred_at": "coalesce(occurred_at, created_at)", "occurred_end": "occurred_end"}
_THEN = {
    "occurred_at": f"coalesce({_at_known('occurred_at', 'timestamptz')}, created_at)",
    "occurred_end": _at_known("occurred_end", "timestamptz"),
}
_TIME_MOVED = "(h.changes ? 'occurred_at' OR h.changes ? 'occurred_end')"
_REWOUND_FILTERS: dict[str, tuple[tuple[str, ...], str, str, str]] = {
    # filter: (the history's changes that move it, the clause on today's values, on the values at known_at,
    # on a history row ``h``: it records a value before it the filter takes)
    "key": (
        ("key",),
        "key = %(key)s",
        f"{_at_known('key', 'text')} = %(key)s",
        "h.changes -> 'key' ->> 'from' = %(key)s",
    ),
    "tags": (
        ("tags", "added"),
        "tags @> %(tags)s",
        f"{_merged_at_known('tags', 'to_jsonb(tags)', 'jsonb_array_elements_text')}"
        " @> to_jsonb(%(tags)s::text[])",
        "h.changes -> 'tags' -> 'from' @> to_jsonb(%(tags)s::text[])",
    ),
    "entities": (
        ("entities", "added"),
        ENTITIES_INCLUDE,
        f"{_merged_at_known('entities', 'entities', 'jsonb_object_keys')} @? %(entities)s::jsonpath",
        "h.changes -> 'entities' -> 'from' @? %(entities)s::jsonpath",
    ),
    "since": (
        ("occurred_at", "occurred_end"),
        _SINCE.format(**_TODAY),
        _SINCE.format(**_THEN),
        _TIME_MOVED,
    ),
    "until": (("occurred_at",), _UNTIL.format(**_TODAY), _UNTIL.format(**_THEN), _TIME_MOVED),
    "min_importance": (
        ("importance",),
        "importance >= %(min_importance)s",
        f"{_at_known('importance', 'float8')} >= %(min_importance)s",
        "(h.changes -> 'importance' ->> 'from')::float8 >= %(min_importance)s",
    ),
}
"""The filters a memory's history can move (``domain.timetravel.REWOUND_FIELDS``; the merge of a repeat
adds tags and entities, recorded under ``added``, and what it added a value held then lacked: it never
makes a filter pass then that fails today)."""


def _optional(request: SearchRequest) -> list[tuple[str, str, Any]]:
    """The optional filters ``request`` sets: (name, clause on today's values, parameter value)."""
    optional = [
        (request.key is not None, "key = %(key)s", "key", request.key),
        (bool(request.tags), "tags @> %(tags)s", "tags", list(request.tags)),
        (
            bool(request.entities),
            ENTITIES_INCLUDE,
            "entities",
            entity_path(request.entities) if request.entities else None,
        ),
        # a memory's time is a span (a partial occurred_at: occurred_end is set): it matches when the spans
        # overlap — it ends after `since` and starts before `until`; an instant must be in [since, until)
        (request.since is not None, _SINCE.format(**_TODAY), "since", request.since),
        (request.until is not None, _UNTIL.format(**_TODAY), "until", request.until),
        (
            request.min_importance > 0,
            "importance >= %(min_importance)s",
            "min_importance",
            request.min_importance,
        ),
        (request.task_type is not None, "task_type = %(task_type)s", "task_type", request.task_type),
    ]
    return [(name, clause, value) for present, clause, name, value in optional if present]


class Moved(BaseModel):
    """What a ``known_at`` search with filters the history can move (``_REWOUND_FILTERS``) needs beside
    today's values: of the memories whose history records such a change after ``known_at``, those that
    passed the filters then (``kept``) and those that pass them today but did not then (``dropped``)."""

    kept: list[UUID] = []
    dropped: list[UUID] = []


def moved_query(scope: Scope, request: SearchRequest) -> tuple[str, dict[str, Any]] | None:
    """The statement that finds ``Moved`` for ``request`` (rows: ``id``, ``then_ok``, ``today_ok``), or None
    when nothing can move its filters (no ``known_at``, or none of those filters). It reads the tenant's
    history after ``known_at`` by time (index of schema 025) and judges only the memories it names: few
    change after a given instant, so the search statements keep judging every other memory by today's
    values, from their indexes."""
    if request.known_at is None:
        return None
    rewindable = [(n, c, v) for n, c, v in _optional(request) if n in _REWOUND_FILTERS]
    if not rewindable:
        return None
    changes = sorted({c for name, _, _ in rewindable for c in _REWOUND_FILTERS[name][0]})
    then = " AND ".join(_REWOUND_FILTERS[name][2] for name, _, _ in rewindable)
    today = " AND ".join(clause for _, clause, _ in rewindable)
    before = " OR ".join(_REWOUND_FILTERS[name][3] for name, _, _ in rewindable)
    # A memory passed the filters then only if it passes them today or one of its values then (the
    # ``from`` of a change since) passes one: only those are judged on their values of then — the first
    # read from today's filter (its index), the second from the history read.
    query = f"""WITH h AS MATERIALIZED (
           SELECT memory_id, changes FROM memory_history
           WHERE tenant_id = %(t)s AND at > %(known_at)s AND changes ?| %(changes)s::text[])
       SELECT memories.id, ({then}) AS then_ok, ({today}) AS today_ok FROM memories
       WHERE tenant_id = %(t)s AND {today} AND id IN (SELECT memory_id FROM h)
       UNION
       SELECT memories.id, ({then}) AS then_ok, ({today}) AS today_ok FROM memories
       WHERE tenant_id = %(t)s AND id IN (SELECT h.memory_id FROM h WHERE {before})"""
    params = {"t": scope.tenant_id, "known_at": request.known_at, "changes": changes}
    return query, params | {name: value for name, _, value in rewindable}


def _filters(
    scope: Scope, request: SearchRequest, moved: Moved | None = None
) -> tuple[sql.Composable, dict[str, Any]]:
    """The WHERE clause every signal shares; only the filters present, so plans stay specific. Without
    ``valid_at``/``known_at`` (the default) the status is today's and nothing else is joined.

    Under ``known_at`` a filter holds the values of then (new-user trial F3: a past key, tags, entities,
    importance or time matched by today's): ``moved`` (``moved_query``) names the memories whose history
    moves those filters after ``known_at`` and that passed them then (``kept``: taken whatever their
    values today) or pass them only today (``dropped``: left out); every other memory is judged by
    today's values, which are those of then. With neither the clause is today's, so is the plan."""
    if request.known_at is None:
        status = "status = ANY(%(statuses)s)"
        if request.valid_at is not None:
            status += f" AND {VALID_AT}"
        if request.archived_facts_only:  # valid_at brings archived facts, not archived episodes
            status += " AND (status <> 'archived' OR layer = 'semantic')"
        if request.valid_at is not None:  # asked for or implied, an archived fact a later value replaced
            status += f" AND (status <> 'archived' OR layer <> 'semantic' OR {NOT_REPLACED_BY_VALID_AT})"
    else:  # statuses (and validity) at known_at; created by then; never what was forgotten on request since
        held = _held_at_known(request.valid_at is not None)
        # a dropped continuation is forgotten today but was held (the planner sizes this by status alone)
        live = f"(status <> 'forgotten' OR (status = 'forgotten' AND {DROPPED_SINCE}))"
        status = f"created_at <= %(known_at)s AND {live} AND {held}"
        if request.archived_facts_only:  # one whose status changed since is judged rewound (usecases.recall)
            status += f" AND (status <> 'archived' OR layer = 'semantic' OR {_changed_since(['status'])})"
        if request.valid_at is not None:  # archived then and replaced by a value known then (the same)
            replaced = not_replaced_by_valid_at(known=True)
            status += f" AND (status <> 'archived' OR layer <> 'semantic' OR {replaced}"
            status += f" OR {_changed_since(['status'])})"
    clauses = [
        sql.SQL("tenant_id = %(tenant)s"),
        sql.SQL(visible()),  # type: ignore[arg-type]
        sql.SQL(status),  # type: ignore[arg-type]
    ]
    params: dict[str, Any] = {
        "tenant": scope.tenant_id,
        "agent": scope.agent_id,
        "readers": readers(scope),
        "statuses": list(request.statuses),
        # the GIN helpers filter on today's status: under known_at they return any live memory
        "helper_statuses": list(request.statuses) if request.known_at is None else LIVE_STATUSES,
    }
    if request.known_at is not None:
        params["known_at"] = request.known_at
    if request.valid_at is not None:
        params["valid_at"] = request.valid_at
    if set(request.layers) != {"episodic", "semantic"}:
        clauses.append(sql.SQL("layer = ANY(%(layers)s)"))
        params["layers"] = list(request.layers)
    rewindable: list[str] = []
    for name, clause, value in _optional(request):
        params[name] = value
        if moved is not None and name in _REWOUND_FILTERS:
            rewindable.append(clause)
        else:
            clauses.append(sql.SQL(clause))  # type: ignore[arg-type]
    if rewindable:
        assert moved is not None
        today = " AND ".join(rewindable)
        if moved.dropped:
            today += " AND memories.id <> ALL(%(dropped)s::uuid[])"
            params["dropped"] = moved.dropped
        if moved.kept:
            today = f"(({today}) OR memories.id = ANY(%(kept)s::uuid[]))"
            params["kept"] = moved.kept
        clauses.append(sql.SQL(today))  # type: ignore[arg-type]
    return sql.SQL(" AND ").join(clauses), params


class _Value(sql.Composable):
    """A value written into a statement's text (``sql.Literal``) whose ``%`` are doubled: the statement
    still takes parameters, and psycopg would read a ``%`` of the value as the start of one."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self._literal = sql.Literal(value)

    def as_bytes(self, context: Any = None) -> bytes:
        return self._literal.as_bytes(context).replace(b"%", b"%%")


_PLACEHOLDER = re.compile(r"%\((\w+)\)s")


STATEMENTS_CACHED = 512
"""How many statement texts (per distinct filter clause) and query-embedding literals a reader keeps."""


class _NotKeyed(Exception):
    """A value ``_literal_key`` does not key (``_vector_statement`` composes the statement anew)."""


def _literal_key(value: Any) -> Any:
    """A hashable key of a value ``_with_values`` writes into a statement, equal only for values written
    as the same text: its type and value, for None, an int, or a str or list of str without a backslash
    or double quote (written the same whatever the connection: a backslash makes psycopg's literal an
    ``E''`` string with a connection, a plain one without). Raises ``_NotKeyed`` for any other value."""
    if value is None:
        return None
    kind = type(value)
    if kind is int:
        return (int, value)
    if kind is str and _plain(value):
        return (str, value)
    if kind is list and all(type(v) is str and _plain(v) for v in value):
        return (list, tuple(value))
    raise _NotKeyed


def _plain(text: str) -> bool:
    return "\\" not in text and '"' not in text


def _with_values(query: sql.Composable, params: dict[str, Any], keep: str = "embedding") -> sql.Composed:
    """``query`` with the value of each of its named placeholders but ``keep`` written into its text.

    Why: the planner's estimates read those values (how many rows the scope and the filters keep, the
    LIMIT), so a statement that takes them as parameters has a generic plan that may differ from the plan
    for the values at hand — for the vector statement, a sequential scan or an exact scan where the
    values' plan probes the HNSW index, or the reverse — and Postgres re-plans it on every run (~0.35 ms
    of ~5 ms at 100k memories, issue 15). With only the embedding a parameter (no estimate reads it), the
    prepared statement's generic plan (psycopg prepares a statement from its sixth run on a connection)
    is the plan its values get anyway, and Postgres keeps it: one statement text, so one plan, per scope.

    The same for every search, filters or not: with ``known_at`` the generic plan of the parameters'
    statement (a LIMIT it cannot read, taken for a tenth of the rows) was an exact scan of the whole scope
    where the values' plan probes the HNSW index: 206 ms against ~4 ms at 100k memories (issue 15). A
    filter's values (a time, tags, a key) differ from search to search, so such a text is seldom run the
    six times that prepare it: it is planned for its values on each run, as its parameters were."""
    text = query.as_string(None).replace("{", "{{").replace("}", "}}")
    names: set[str] = set()

    def field(match: re.Match[str]) -> str:
        if match[1] == keep:
            return match[0]
        names.add(match[1])
        return "{" + match[1] + "}"

    template = _PLACEHOLDER.sub(field, text)
    return sql.SQL(template).format(**{name: _Value(params[name]) for name in names})  # type: ignore[arg-type]


_CANDIDATE_FIELDS = tuple(CandidateMemory.model_fields)
CANDIDATE_COLUMNS = memory_columns(_CANDIDATE_FIELDS)
"""The columns of ``CandidateMemory``: what a search reads for every candidate of its pool."""
_WIDTH = len(_CANDIDATE_FIELDS)
"""How many columns of a search statement's row are the candidate's (its signal columns follow)."""
_CONTENT = _CANDIDATE_FIELDS.index("content")
_CANDIDATE_COLUMNS_UNALIASED = memory_columns(_CANDIDATE_FIELDS, alias="memories")
"""``CANDIDATE_COLUMNS`` of the table ``memories`` unaliased (the statements whose filters name it)."""


@lru_cache(maxsize=STATEMENTS_CACHED)
def _search_statements(where: str) -> tuple[sql.SQL, sql.SQL, sql.Composed, frozenset[str]]:
    """The keyword and entity statements of a search whose filters are ``where`` (``_filters``' clause as
    text), each rendered to one text, the vector one's template (``_with_values`` gives it its values) and
    the names of that template's parameters other than ``embedding``. Why cached: composing the three
    texts took ~0.1 ms of the Python CPU spent before the first statement goes out, on every search
    (issue 15); the text of a clause never changes, and a process sees few distinct ones."""
    clause = sql.SQL(where)  # type: ignore[arg-type]
    # Keyword and entity matches come from the SECURITY DEFINER helpers of migrations 004/013: under
    # row-level security the planner may not use the GIN indexes for @@ and && (not leakproof), the
    # helpers may; they return only the current tenant's rows the agent may see, ranking at most
    # max_ranked of them. The keyword queries (which lexemes, from the scope's counts; how many rows
    # to rank: fewer, two query words first, when the rarest word alone is in more than max_ranked)
    # are built in the statement itself (migrations 013, 017), so the keyword signal takes one
    # statement.
    # The candidate columns are read from the row the filters were checked on (one primary-key
    # lookup per helper row; a second join by id for the columns cost ~100 more a statement). The
    # planner computes the access counters' subqueries after the sort, for the rows kept.
    keyword = sql.SQL("""SELECT {columns}, k.score AS keyword_score
           FROM hindsight_keyword_queries(%(text)s, %(tenant)s, %(agent)s, %(max_share)s,
                                          %(min_docs)s, %(keep_at_least)s, %(max_ranked)s,
                                          %(ranked_when_binding)s) AS kq
           CROSS JOIN hindsight_text_matches(kq.score_query, kq.probe_query, kq.pair_query,
                                             %(readers)s::text[], %(helper_statuses)s::text[],
                                             %(all_layers)s::text[], %(helper_limit)s,
                                             kq.ranked) AS k
           JOIN memories ON memories.id = k.id
           WHERE {where}
           ORDER BY k.score DESC LIMIT %(pool)s""").format(where=clause, columns=_CANDIDATE_COLUMNS_UNALIASED)
    # the entity helper reads the embedding for its tie-break (distance): it runs once that is known
    entity = sql.SQL("""SELECT {columns}, e.matches::real AS entity_matches, e.distance AS entity_distance
           FROM hindsight_entity_matches(%(terms)s::text[], %(embedding)s::vector,
                                         %(readers)s::text[], %(helper_statuses)s::text[],
                                         %(all_layers)s::text[], %(helper_limit)s,
                                         %(max_ranked)s) AS e
           JOIN memories ON memories.id = e.id
           WHERE {where}
           ORDER BY e.matches DESC, e.distance LIMIT %(pool)s""").format(
        where=clause, columns=_CANDIDATE_COLUMNS_UNALIASED
    )
    vector = sql.SQL(
        """WITH whole AS (
               SELECT id, 1 - (embedding <=> %(embedding)s::vector) AS similarity
               FROM memories WHERE {where}
               ORDER BY embedding <=> %(embedding)s::vector LIMIT %(pool)s),
           -- later chunks of long memories: a hit on any chunk is a hit on the memory
           part AS (
               SELECT c.memory_id AS id, 1 - (c.embedding <=> %(embedding)s::vector) AS similarity
               FROM memory_chunks c
               WHERE c.tenant_id = %(tenant)s
                 AND c.memory_id IN (SELECT id FROM memories WHERE {where})
               ORDER BY c.embedding <=> %(embedding)s::vector LIMIT %(pool)s),
           vec AS (
               SELECT id, max(similarity) AS similarity
               FROM (SELECT * FROM whole UNION ALL SELECT * FROM part) AS s
               GROUP BY id ORDER BY similarity DESC LIMIT %(pool)s)
           SELECT {columns}, vec.similarity
           -- only what ranking reads: the rows of the hits returned are fetched after ranking
           FROM vec JOIN memories m ON m.id = vec.id"""
    ).format(where=clause, columns=CANDIDATE_COLUMNS)
    names = frozenset(_PLACEHOLDER.findall(vector.as_string(None))) - {"embedding"}
    return (
        sql.SQL(keyword.as_string(None)),  # type: ignore[arg-type]
        sql.SQL(entity.as_string(None)),  # type: ignore[arg-type]
        vector,
        names,
    )


_First = TypeVar("_First")
_Second = TypeVar("_Second")


async def all_or_none(first: Awaitable[_First], second: Awaitable[_Second]) -> tuple[_First, _Second]:
    """Both results, the two run at once. An error of either cancels the other and is raised (as it
    was) once that one has ended: nothing is left running and every pool connection is back, where
    ``asyncio.gather`` would leave the other running. A cancelled caller cancels both the same way."""
    tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()  # no-op for a task that has ended
        await asyncio.wait(tasks)
    for task in tasks:
        if not task.cancelled() and (error := task.exception()) is not None:
            raise error
    return tasks[0].result(), tasks[1].result()


@lru_cache(maxsize=1)
def _get_many_text() -> sql.SQL:
    """The text of ``get_many``'s statement, composed once (not on each search's rows round trip)."""
    composed = sql.SQL(
        "SELECT {c} FROM memories m WHERE m.tenant_id = %(t)s AND {visible} AND m.id = ANY(%(ids)s)"
    ).format(c=MEMORY_COLUMNS, visible=sql.SQL(visible("m")))  # type: ignore[arg-type]
    return sql.SQL(composed.as_string(None))  # type: ignore[arg-type]


def _get_many(scope: Scope, ids: Sequence[UUID]) -> tuple[sql.SQL, dict[str, Any]]:
    """The statement of ``get_many``."""
    return (
        _get_many_text(),
        {"t": scope.tenant_id, "agent": scope.agent_id, "readers": readers(scope), "ids": list(ids)},
    )


def _in_order(rows: list[dict[str, Any]], ids: Sequence[UUID]) -> list[StoredMemory]:
    """``get_many``'s memories, in the order of ``ids``."""
    by_id = {r["id"]: memory_from_row(r) for r in rows}
    return [by_id[i] for i in ids if i in by_id]


def _relations(scope: Scope, ids: Sequence[UUID]) -> tuple[str, dict[str, Any]]:
    """The statement of ``relations``."""
    return (
        f"""SELECT r.from_id, r.to_id, r.kind, r.strength, r.reason, r.created_at
            FROM memory_relations r
            JOIN memories a ON a.id = r.from_id AND a.tenant_id = r.tenant_id
            JOIN memories b ON b.id = r.to_id AND b.tenant_id = r.tenant_id
            WHERE r.tenant_id = %(t)s AND (r.from_id = ANY(%(ids)s) OR r.to_id = ANY(%(ids)s))
              AND {visible("a")} AND {visible("b")}
            ORDER BY r.created_at""",
        {"t": scope.tenant_id, "ids": list(ids), "agent": scope.agent_id, "readers": readers(scope)},
    )


_SUCCESSORS = f"""SELECT DISTINCT ON (r.to_id) r.to_id, r.from_id
   FROM memory_relations r
   JOIN memories a ON a.id = r.from_id AND a.tenant_id = r.tenant_id
   JOIN memories b ON b.id = r.to_id AND b.tenant_id = r.tenant_id
   WHERE r.tenant_id = %(t)s AND r.kind = 'supersedes' AND r.to_id = ANY(%(ids)s)
     AND {visible("a")} AND {visible("b")} AND a.status <> 'forgotten'
   ORDER BY r.to_id, coalesce(coalesce(a.valid_from, a.occurred_at, a.created_at) = b.valid_to, false) DESC,
            r.created_at DESC, r.from_id"""
"""``successors``: per superseded memory (``b``), of the memories linked ``supersedes`` to it (``a``), the
one that began to hold where it ended — its successor in valid time: links made in one transaction share
their ``created_at``, and a later arrival may be an earlier value (trial F6) —, else the newest link (an
end that is no successor's start: a ``memory_link``'s moment, a retired future value's own start). Never a
forgotten one: it replaces nothing (trial: ``superseded_by`` named it)."""


class PostgresMemoryReader:
    """The MemoryReader port. Every statement carries the tenant in its WHERE clause, and the agent:
    a scope reads its agent's own memories and those shared with it (``shared_with``)."""

    def __init__(
        self,
        pool: AsyncConnectionPool,
        *,
        max_ranked: int = MAX_KEYWORD_RANKED,
        ranked_when_binding: int = MAX_KEYWORD_RANKED_BINDING,
    ) -> None:
        self._pool = pool
        self._max_ranked = max_ranked
        """Rows each keyword/entity helper reads and ranks at most (domain.text.MAX_KEYWORD_RANKED)."""
        self._ranked_when_binding = ranked_when_binding
        """Rows the keyword helper ranks when its probe's rarest word alone exceeds ``max_ranked``
        (domain.text.MAX_KEYWORD_RANKED_BINDING)."""
        self._literals: OrderedDict[bytes, str] = OrderedDict()
        """``vector_literal`` of recent query embeddings, by their values (``_literal``)."""
        self._vector_texts: OrderedDict[tuple[str, tuple[Any, ...]], sql.SQL] = OrderedDict()
        """The vector statement with its values written in, by clause and values (``_vector_statement``)."""

    def _literal(self, embedding: Vector) -> str:
        """``vector_literal(embedding)``, kept for the last ``STATEMENTS_CACHED`` embeddings: a repeated
        query's embedding (the query cache's) is formatted once, not on each search (~60 µs of Python
        before the vector statement goes out, issue 15). Keyed by the values' bytes as float64: equal
        keys, equal text (``-0.0`` and ``0.0`` differ there, as they do in the text)."""
        key = array("d", embedding).tobytes()
        literal = self._literals.get(key)
        if literal is None:
            literal = self._literals[key] = vector_literal(embedding)
            if len(self._literals) > STATEMENTS_CACHED:
                self._literals.popitem(last=False)
        else:
            self._literals.move_to_end(key)
        return literal

    def _vector_statement(
        self, clause: str, template: sql.Composed, names: frozenset[str], params: dict[str, Any]
    ) -> sql.Composable:
        """``_with_values(template, params)``, rendered to one text and kept (by ``clause`` and the values
        written in) for the last ``STATEMENTS_CACHED`` such texts when every value is one whose text is
        the same with or without a connection (``_literal_key``); else composed as before."""
        try:
            key = (clause, tuple((name, _literal_key(params[name])) for name in sorted(names)))
        except _NotKeyed:
            return _with_values(template, params)
        text = self._vector_texts.get(key)
        if text is None:
            text = sql.SQL(_with_values(template, params).as_string(None))  # type: ignore[arg-type]
            self._vector_texts[key] = text
            if len(self._vector_texts) > STATEMENTS_CACHED:
                self._vector_texts.popitem(last=False)
        else:
            self._vector_texts.move_to_end(key)
        return text

    async def search_candidates(
        self,
        scope: Scope,
        request: SearchRequest,
        embed: Callable[[], Awaitable[Vector]],
        pool: int,
        prepare: Callable[[Sequence[str]], None] | None = None,
    ) -> Sequence[Candidate]:
        """The port's ``search_candidates``: ``embed`` started first, then three statements on two pool
        connections, the keyword one sent while the model runs, the vector one once it has answered, the
        entity one beside it on the keyword statement's connection if that one has ended by then, else
        after it. An embedding at hand at once (a repeated query) has the vector statement sent first.
        ``prepare`` is given each statement's texts as its rows arrive."""
        # The model is the long pole of a new query (~20 ms at 100k, issue 15): it starts before the
        # statements are composed and the keyword one sent (~0.3 ms of CPU that would otherwise come first).
        embedding = asyncio.ensure_future(embed())
        try:
            await asyncio.sleep(0)  # one turn of the loop: the embedding task hands the text to its thread
            return await self._search_candidates(scope, request, embedding, pool, prepare)
        finally:
            if not embedding.done():  # the search failed first: nothing is left running
                embedding.cancel()
                await asyncio.wait([embedding])
            if not embedding.cancelled():
                embedding.exception()  # raised by the search itself, or superseded by the search's error

    async def _search_candidates(
        self,
        scope: Scope,
        request: SearchRequest,
        embedding: asyncio.Future[Vector],
        pool: int,
        prepare: Callable[[Sequence[str]], None] | None,
    ) -> Sequence[Candidate]:
        """``search_candidates`` with its embedding under way."""
        moved = None
        if (asked := moved_query(scope, request)) is not None:  # known_at with a filter: who moved since
            rows = await tenant_rows(self._pool, scope.tenant_id, *asked)
            moved = Moved(
                kept=[r["id"] for r in rows if r["then_ok"]],
                dropped=[r["id"] for r in rows if r["today_ok"] and not r["then_ok"]],
            )
        where, params = _filters(scope, request, moved)
        params |= {
            "pool": pool,
            "text": request.text,
            "terms": list(request.query_terms),
            "all_layers": list(request.layers),
            "helper_limit": None if _narrowed(request) else pool,
            "max_ranked": self._max_ranked,
            "ranked_when_binding": self._ranked_when_binding,
            "max_share": MAX_LEXEME_SHARE,
            "min_docs": MIN_DOCS_FOR_CUT,
            "keep_at_least": KEEP_AT_LEAST,
        }
        clause = where.as_string(None)
        keyword, entity, template, names = _search_statements(clause)
        vector = self._vector_statement(clause, template, names, params)

        # the entity statement's parameters, once the embedding is known, for the keyword statement's
        # connection to run it; None: it runs after the vector one on the other connection (or not at all)
        entity_here: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        keyword_done = False
        entity_rows: list[list[tuple[Any, ...]]] = []

        def prepared(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
            # the caller's work on these texts runs now, while the other statements may still be under way
            if prepare is not None and rows:
                prepare([r[_CONTENT] for r in rows])
            return rows

        # Rows as tuples (the candidate's columns, then the statement's signals: ``_merged``), not dicts:
        # the driver builds ~230 rows a search, and a dict by column name cost ~1.6 µs more a row
        # (issue 15); only the few candidates read become dicts (``_ranked``).
        async def keyword_rows() -> list[tuple[Any, ...]]:
            nonlocal keyword_done
            rows = await tenant_rows(self._pool, scope.tenant_id, keyword, params, tuple_row)
            keyword_done = True
            prepared(rows)
            if (with_embedding := await entity_here) is not None:
                found = await tenant_rows(self._pool, scope.tenant_id, entity, with_embedding, tuple_row)
                entity_rows.append(prepared(found))
            return rows

        async def vector_rows() -> list[tuple[Any, ...]]:
            with_embedding = params | {"embedding": self._literal(await embedding)}
            beside = bool(request.query_terms) and keyword_done
            entity_here.set_result(with_embedding if beside else None)
            statements = [(vector, with_embedding)]
            if request.query_terms and not beside:
                statements.append((entity, with_embedding))
            rows, *entity_result = await tenant_rows_of(self._pool, scope.tenant_id, statements, tuple_row)
            entity_rows.extend(prepared(found) for found in entity_result)
            return prepared(rows)

        # The query's embedding (~20 ms of model time at 100k memories, issue 15) and the full-text
        # ranking (~4 ms on the server) need not wait for each other: the keyword statement runs on its
        # connection while the model runs (in a thread, the GIL released), then the vector probe runs on
        # a second connection. The entity helper needs the embedding (its tie-break is the distance):
        # when the keyword statement ended while the model ran (a new query), it runs on that idle
        # connection beside the vector probe; otherwise (the embedding was at hand: a repeated query)
        # it follows the vector probe in the same round trip. Two pool connections per search, as before.
        if embedding.done():
            # At hand (a repeated query): the vector and entity round trip, the longer of the two (~5.4
            # against ~4.7 ms of server CPU at 100k), is sent first. Sending a statement takes ~0.5 ms of
            # client CPU (pool checkout, pipeline, parameters), which the one sent second waits for.
            vector_result, keyword_result = await all_or_none(vector_rows(), keyword_rows())
        else:
            keyword_result, vector_result = await all_or_none(keyword_rows(), vector_rows())
        return _ranked(
            _merged(
                (VECTOR_SIGNALS, vector_result),
                (KEYWORD_SIGNALS, keyword_result),
                *((ENTITY_SIGNALS, found) for found in entity_rows),
            )
        )

    async def latest(self, scope: Scope, request: SearchRequest, limit: int) -> list[StoredMemory]:
        """Up to ``limit`` memories passing the request's filters, latest first (when they happened,
        else when written); the request's text is not used. With ``valid_at``/``known_at`` the filters
        keep what the point sees and the rows are today's (``usecases.recall.memories_at`` rewinds them)."""
        where, params = _filters(scope, request)
        # the filters name the table itself (``memories.id`` in the point-in-time clauses), the columns
        # its alias ``m``: the rows are chosen unaliased, then read through the alias
        rows = await tenant_rows(
            self._pool,
            scope.tenant_id,
            sql.SQL(
                """SELECT {columns}
                   FROM (SELECT memories.* FROM memories WHERE {where}
                         ORDER BY coalesce(occurred_at, created_at) DESC, id DESC LIMIT %(limit)s) AS m
                   ORDER BY coalesce(m.occurred_at, m.created_at) DESC, m.id DESC"""
            ).format(columns=MEMORY_COLUMNS, where=where),
            params | {"limit": limit},
        )
        return [memory_from_row(r) for r in rows]

    async def keys_under(
        self, scope: Scope, key: str, statuses: Sequence[MemoryStatus], limit: int
    ) -> tuple[list[str], int]:
        """See ``MemoryReader.keys_under``: one read, run only when a key filter matched nothing."""
        rows = await tenant_rows(
            self._pool,
            scope.tenant_id,
            f"""SELECT key, count(*) OVER () AS total
                  FROM (SELECT DISTINCT key FROM memories
                         WHERE tenant_id = %(tenant)s AND {visible()} AND status = ANY(%(statuses)s)
                           AND starts_with(key, %(prefix)s)) AS k
                 ORDER BY key LIMIT %(limit)s""",
            {
                "tenant": scope.tenant_id,
                "agent": scope.agent_id,
                "readers": readers(scope),
                "statuses": list(statuses),
                "prefix": f"{key}.",
                "limit": limit,
            },
        )
        return [r["key"] for r in rows], (rows[0]["total"] if rows else 0)

    async def get(self, scope: Scope, memory_id: UUID) -> StoredMemory | None:
        memories = await self.get_many(scope, [memory_id])
        return memories[0] if memories else None

    async def get_many(self, scope: Scope, ids: Sequence[UUID]) -> list[StoredMemory]:
        """The memories among ``ids`` (any status) the scope may read — its own and those shared with
        its agent — in the order asked."""
        [rows] = await tenant_rows_of(self._pool, scope.tenant_id, [_get_many(scope, ids)])
        return _in_order(rows, ids)

    async def relations(self, scope: Scope, ids: Sequence[UUID]) -> list[Relation]:
        """Relations touching any of ``ids`` (either end) whose both ends the scope may read (a shared
        memory's links to its owner's private memories stay hidden)."""
        [rows] = await tenant_rows_of(self._pool, scope.tenant_id, [_relations(scope, ids)])
        return [relation_from_row(r) for r in rows]

    async def successors(self, scope: Scope, ids: Sequence[UUID]) -> dict[UUID, UUID]:
        """See ``MemoryReader.successors`` (``_SUCCESSORS``)."""
        params = {"t": scope.tenant_id, "ids": list(ids), "agent": scope.agent_id, "readers": readers(scope)}
        rows = await tenant_rows(self._pool, scope.tenant_id, _SUCCESSORS, params)
        return {r["to_id"]: r["from_id"] for r in rows}

    async def replaced_on_key(
        self, scope: Scope, ids: Sequence[UUID], valid_at: datetime, known_at: datetime | None
    ) -> set[UUID]:
        """See ``MemoryReader.replaced_on_key`` (``REPLACED_ON_KEY``)."""
        if not ids:
            return set()
        query = REPLACED_ON_KEY.format(replaced=not_replaced_by_valid_at(known_at is not None))
        params = {"t": scope.tenant_id, "ids": list(ids), "valid_at": valid_at, "known_at": known_at}
        return {r["id"] for r in await tenant_rows(self._pool, scope.tenant_id, query, params)}

    async def get_many_with_relations(
        self, scope: Scope, ids: Sequence[UUID], relation_ids: Sequence[UUID]
    ) -> tuple[list[StoredMemory], list[Relation]]:
        """``get_many`` and ``relations`` as one pipelined read (a search's rows and the relations its
        conflict labels need: one round trip where they cost two)."""
        statements = [_get_many(scope, ids), *([_relations(scope, relation_ids)] if relation_ids else [])]
        rows, *relations = await tenant_rows_of(self._pool, scope.tenant_id, statements)
        return _in_order(rows, ids), [relation_from_row(r) for r in (relations[0] if relations else [])]

    async def history(self, scope: Scope, memory_id: UUID) -> list[HistoryEntry]:
        rows = await tenant_rows(
            self._pool,
            scope.tenant_id,
            """SELECT h.action, h.reason, h.changes, h.actor, h.at FROM memory_history h
                   JOIN memories m ON m.id = h.memory_id
                   WHERE h.tenant_id = %s AND m.agent_id = %s AND h.memory_id = %s ORDER BY h.at, h.id""",
            (scope.tenant_id, scope.agent_id, memory_id),
        )
        return [history_from_row(r) for r in rows]

    async def history_after(
        self, scope: Scope, ids: Sequence[UUID], at: datetime
    ) -> dict[UUID, list[HistoryEntry]]:
        """The changes after ``at`` of each of ``ids`` the scope may read, oldest first (point-in-time
        reads rewind through them). Ids without changes since are left out."""
        if not ids:
            return {}
        rows = await tenant_rows(
            self._pool,
            scope.tenant_id,
            f"""SELECT h.memory_id, h.action, h.reason, h.changes, h.actor, h.at FROM memory_history h
                    JOIN memories m ON m.id = h.memory_id AND m.tenant_id = h.tenant_id
                    WHERE h.tenant_id = %(t)s AND h.memory_id = ANY(%(ids)s) AND h.at > %(at)s
                      AND {visible("m")}
                    ORDER BY h.at, h.id""",  # type: ignore[arg-type]
            {
                "t": scope.tenant_id,
                "ids": list(ids),
                "at": at,
                "agent": scope.agent_id,
                "readers": readers(scope),
            },
        )
        out: dict[UUID, list[HistoryEntry]] = {}
        for r in rows:
            out.setdefault(r["memory_id"], []).append(history_from_row(r))
        return out

    async def causal_chain(
        self, scope: Scope, memory_id: UUID, depth: int, direction: ChainDirection
    ) -> list[ChainLink]:
        """Memories linked to ``memory_id`` by causal_parent or ``caused_by`` relations, up to ``depth``
        hops: causes have negative steps, effects positive, the memory itself 0. Forgotten memories
        are skipped; archived and superseded ones are part of the story and stay. Only memories the
        scope may read (own or shared with it) are steps, and only edges between two of them are
        followed: a chain never passes through another agent's private memory."""
        return (await self.causal_chains(scope, [memory_id], depth, direction)).get(memory_id, [])

    async def causal_chains(
        self, scope: Scope, memory_ids: Sequence[UUID], depth: int, direction: ChainDirection
    ) -> dict[UUID, list[ChainLink]]:
        """``causal_chain`` of each of ``memory_ids`` in one statement (the tenant's edges are read once):
        memory id → its chain, ordered by step, then event time. Ids that are not readable are left out."""
        if not memory_ids:
            return {}
        edges = f"""SELECT c.id AS child, c.causal_parent AS parent FROM memories c
                    JOIN memories p ON p.id = c.causal_parent AND p.tenant_id = c.tenant_id
                    WHERE c.tenant_id = %(t)s AND c.causal_parent IS NOT NULL
                      AND {visible("c", "a")} AND {visible("p", "a")}
                    UNION SELECT r.from_id, r.to_id FROM memory_relations r
                    JOIN memories x ON x.id = r.from_id AND x.tenant_id = r.tenant_id
                    JOIN memories y ON y.id = r.to_id AND y.tenant_id = r.tenant_id
                    WHERE r.tenant_id = %(t)s AND r.kind = 'caused_by'
                      AND {visible("x", "a")} AND {visible("y", "a")}"""
        query = f"""
            WITH RECURSIVE edges AS ({edges}),
            seeds AS (SELECT DISTINCT unnest(%(ids)s::uuid[]) AS origin),
            up(origin, id, step) AS (
                SELECT origin, origin, 0 FROM seeds
                UNION SELECT up.origin, e.parent, up.step - 1 FROM up JOIN edges e ON e.child = up.id
                WHERE %(up)s AND up.step > -%(depth)s),
            down(origin, id, step) AS (
                SELECT origin, origin, 0 FROM seeds
                UNION SELECT down.origin, e.child, down.step + 1 FROM down JOIN edges e ON e.parent = down.id
                WHERE %(down)s AND down.step < %(depth)s),
            steps AS (SELECT origin, id, min(step) AS step
                      FROM (SELECT * FROM up UNION SELECT * FROM down) s GROUP BY origin, id)
            SELECT {{columns}}, steps.origin, steps.step FROM steps JOIN memories m ON m.id = steps.id
            WHERE m.tenant_id = %(t)s AND {visible("m", "a")} AND m.status <> 'forgotten'
            ORDER BY steps.origin, steps.step, coalesce(m.occurred_at, m.created_at)"""
        params = {
            "t": scope.tenant_id,
            "a": scope.agent_id,
            "readers": readers(scope),
            "ids": list(memory_ids),
            "depth": depth,
            "up": direction in ("causes", "both"),
            "down": direction in ("effects", "both"),
        }
        rows = await tenant_rows(
            self._pool, scope.tenant_id, sql.SQL(query).format(columns=_CHAIN_COLUMNS), params
        )  # type: ignore[arg-type]
        chains: dict[UUID, list[ChainLink]] = {}
        for r in rows:
            chains.setdefault(r["origin"], []).append(ChainLink(step=r["step"], memory=memory_from_row(r)))
        return chains

    async def conversation_turns(
        self, scope: Scope, around: Sequence[StoredMemory], window: int
    ) -> list[StoredMemory]:
        positions = [m.position for m in around if m.position is not None]
        if not positions or window < 1:
            return []
        rows = await tenant_rows(
            self._pool,
            scope.tenant_id,
            sql.SQL(
                """SELECT DISTINCT {c} FROM unnest(%(conv)s::text[], %(sess)s::int[], %(turn)s::int[])
                           AS p(conv, sess, turn)
                       JOIN memories m ON m.tenant_id = %(t)s AND m.conversation_id = p.conv
                        AND coalesce(m.session_index, 0) = p.sess
                        AND m.turn_index BETWEEN p.turn - %(w)s AND p.turn + %(w)s
                       WHERE {visible} AND m.status <> 'forgotten'"""
            ).format(c=MEMORY_COLUMNS, visible=sql.SQL(visible("m"))),  # type: ignore[arg-type]
            {
                "t": scope.tenant_id,
                "agent": scope.agent_id,
                "readers": readers(scope),
                "conv": [p[0] for p in positions],
                "sess": [p[1] for p in positions],
                "turn": [p[2] for p in positions],
                "w": window,
            },
        )
        return [memory_from_row(r) for r in rows]


_SIGNAL_COLUMNS = ("similarity", "keyword_score", "entity_matches", "entity_distance")
"""The per-signal columns of a candidate: each statement of a search returns some of them."""
VECTOR_SIGNALS = ("similarity",)
"""The signal columns of the vector statement's rows, after the candidate's (``_merged``)."""
KEYWORD_SIGNALS = ("keyword_score",)
"""The signal columns of the keyword statement's rows."""
ENTITY_SIGNALS = ("entity_matches", "entity_distance")
"""The signal columns of the entity statement's rows."""

Merged = tuple[list[tuple[Any, ...]], dict[str, list[Any]]]
"""``_merged``'s candidates: one row each, and each signal column (``_SIGNAL_COLUMNS``) by name."""


def _merged(*statements: tuple[Sequence[str], Sequence[tuple[Any, ...]]]) -> Merged:
    """One row per candidate, and each signal's column: each statement's rows (tuples: the candidate's
    columns, ``CANDIDATE_COLUMNS``' ``_WIDTH`` of them, then the signal columns the statement names —
    ``VECTOR_SIGNALS``, ``KEYWORD_SIGNALS``, ``ENTITY_SIGNALS``) joined by id. A memory's row is the
    first a statement returned for it; a signal that did not return a memory has None for it (each
    signal comes from one statement, which returns a memory at most once). The order is the
    statements': the vector rows first, in their order, as before (ranks are by value and the final
    order breaks ties by id, but the learned ranker's matrix product may round a row's score
    differently in the last bit at another position of the pool)."""
    first: dict[int, tuple[Any, ...]] = {}  # UUID.int: hashing a UUID itself is a Python-level call
    keep = first.setdefault
    keyed = []
    for names, rows in statements:
        keys = [r[0].int for r in rows]
        keyed.append((names, rows, keys))
        for key, r in zip(keys, rows, strict=True):
            keep(key, r)
    order = list(first)
    columns: dict[str, list[Any]] = {}
    for names, rows, keys in keyed:
        for at, name in enumerate(names, start=_WIDTH):
            columns[name] = list(map(dict(zip(keys, map(itemgetter(at), rows), strict=True)).get, order))
    absent = [None] * len(order)
    return list(first.values()), {name: columns.get(name, absent) for name in _SIGNAL_COLUMNS}


def _competition_ranks(keys: list[Any]) -> list[int | None]:
    """Each key's rank among the keys that are not None, smallest first (None where the key is None).
    Competition ranking ("1224"): equal keys share a rank, so a tie never depends on row order or ids
    (an exported and re-imported copy ranks exactly like the original)."""
    chosen = [i for i, key in enumerate(keys) if key is not None]
    chosen.sort(key=keys.__getitem__)
    out: list[int | None] = [None] * len(keys)
    previous: Any = None
    rank = 0
    for position, i in enumerate(chosen, start=1):
        key = keys[i]
        if position == 1 or previous != key:
            rank = position
        out[i] = rank
        previous = key
    return out


def _ranked(merged: Merged) -> CandidatePool:
    """The candidates of ``_merged``'s rows, in their order, with each signal's competition rank: their
    columns read at once (what ranking reads), each ``Candidate`` model built from its row when it is
    read (``CandidatePool``: a search reads those of the hits it returns)."""
    rows, signals = merged
    similarity, keyword = signals["similarity"], signals["keyword_score"]
    matches, distance = signals["entity_matches"], signals["entity_distance"]
    if rows:
        # the candidate's columns (a row may hold signal columns after them: zip stops at the shortest)
        columns = list(zip(*rows, strict=False))
        ids, layer, content, importance, access_count, source = (
            columns[_AT[name]] for name in POOL_MEMORY_FIELDS
        )
        positions = positions_of(
            columns[_AT["conversation_id"]], columns[_AT["session_index"]], columns[_AT["turn_index"]]
        )
    else:
        ids = layer = content = importance = access_count = source = ()
        positions = []
    vector_rank = _competition_ranks([None if v is None else -v for v in similarity])
    keyword_rank = _competition_ranks([None if v is None else -v for v in keyword])
    entity_rank = _competition_ranks(
        [None if m is None else (-m, d) for m, d in zip(matches, distance, strict=True)]
    )
    vector_similarity = [None if v is None else float(v) for v in similarity]
    keyword_score = [None if v is None else float(v) for v in keyword]
    entity_matches = [None if m is None else int(m) for m in matches]
    pool = PoolColumns(
        vector_rank,
        vector_similarity,
        keyword_rank,
        keyword_score,
        entity_rank,
        entity_matches,
        ids,
        layer,
        content,
        importance,
        access_count,
        source,
        positions,
    )
    # the columns arrive typed as the fields are (uuid, text, real, integer, timestamptz): validating
    # a candidate would only cost time
    memory_fields, candidate_fields = set(_CANDIDATE_FIELDS), set(Candidate.model_fields)

    def build(i: int) -> Candidate:
        # the row's first _WIDTH columns, by field name in the fields' order (zip stops at the fields)
        values = dict(zip(_CANDIDATE_FIELDS, rows[i], strict=False))
        signals = {
            "memory": trusted(CandidateMemory, values, memory_fields),
            "vector_rank": vector_rank[i],
            "vector_similarity": vector_similarity[i],
            "keyword_rank": keyword_rank[i],
            "keyword_score": keyword_score[i],
            "entity_rank": entity_rank[i],
            "entity_matches": entity_matches[i],
        }
        return trusted(Candidate, signals, candidate_fields)

    return CandidatePool(pool, build)


_AT = {name: i for i, name in enumerate(_CANDIDATE_FIELDS)}
"""Each candidate field's position in a search statement's row."""
