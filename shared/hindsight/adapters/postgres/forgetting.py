"""A forget by id on Postgres, with what it takes along (``domain.forgetting``): one transaction that
finds the derived memories of the forgotten one, locks them, forgets or deletes them with it, and makes
active again the members of a summary that went along."""

from __future__ import annotations

from uuid import UUID

from psycopg import AsyncConnection

from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.key_rejoin import dropped_of, fill, holes_of
from hindsight.adapters.postgres.rows import fetch_all
from hindsight.domain import forgetting
from hindsight.domain.forgetting import ForgottenAlong
from hindsight.domain.maintenance import PATTERN_METADATA_KEY, SUMMARY_METADATA_KEY
from hindsight.domain.memory import Scope, StoredMemory
from hindsight.domain.timetravel import RESUMES_METADATA_KEY

_SUMMARISED = """SELECT m.id FROM memory_relations r JOIN memories m ON m.id = r.from_id
   WHERE r.to_id = %(id)s AND r.kind = 'part_of' AND r.tenant_id = %(t)s
     AND m.tenant_id = %(t)s AND m.agent_id = %(a)s AND m.status <> 'active'
   ORDER BY m.id"""
"""Rule 1: the members of a summary it stands for (not active)."""

_DERIVED = """SELECT d.id, r.from_id AS source, 'summary' AS kind FROM memory_relations r
     JOIN memories d ON d.id = r.to_id
   WHERE r.from_id = ANY(%(ids)s) AND r.kind = 'part_of' AND r.tenant_id = %(t)s
     AND d.tenant_id = %(t)s AND d.agent_id = %(a)s AND d.metadata ? %(summary)s
 UNION ALL
 SELECT d.id, r.to_id AS source, 'inferred' AS kind FROM memory_relations r
     JOIN memories d ON d.id = r.from_id
   WHERE r.to_id = ANY(%(ids)s) AND r.kind = 'related' AND r.tenant_id = %(t)s
     AND d.tenant_id = %(t)s AND d.agent_id = %(a)s AND d.metadata ? %(pattern)s
 UNION ALL
 SELECT d.id, r.to_id AS source, 'piece' AS kind FROM memory_relations r
     JOIN memories d ON d.id = r.from_id
   WHERE r.to_id = ANY(%(ids)s) AND r.kind = 'related' AND r.tenant_id = %(t)s
     AND d.tenant_id = %(t)s AND d.agent_id = %(a)s AND d.metadata ->> %(resumes)s = r.to_id::text
 UNION ALL
 SELECT d.id, r.from_id AS source, 'piece' AS kind FROM memory_relations r
     JOIN memories f ON f.id = r.from_id JOIN memories d ON d.id = r.to_id
   WHERE r.from_id = ANY(%(ids)s) AND r.kind = 'related' AND r.tenant_id = %(t)s
     AND f.metadata ->> %(resumes)s = r.to_id::text AND d.tenant_id = %(t)s AND d.agent_id = %(a)s
 ORDER BY 1"""
"""Rule 2: the summaries and inferred memories of which any of ``ids`` is a source; and rule 4: the
pieces of one value split around a bounded value (``key_resume``: a continuation, ``metadata.resumes``
and a ``related`` link to the memory it continues), either way."""

_STILL_SUMMARISED = """SELECT DISTINCT m.id, r.to_id AS summary FROM memory_relations r
     JOIN memories m ON m.id = r.from_id
   WHERE r.to_id = ANY(%(ids)s) AND r.kind = 'part_of' AND r.tenant_id = %(t)s
     AND m.tenant_id = %(t)s AND m.agent_id = %(a)s AND m.status = 'archived'
     AND NOT m.id = ANY(%(gone)s)
   ORDER BY m.id"""
"""Rule 3: the archived members of summaries that go along, that do not go themselves."""


async def _along(
    conn: AsyncConnection, scope: Scope, target: StoredMemory
) -> tuple[list[ForgottenAlong], set[UUID]]:
    """Rules 1, 2 and 4 to a fixed point: every memory the forget of ``target`` takes along, once each, and
    which of them are summaries that went by rule 2."""
    params = {
        "t": scope.tenant_id,
        "a": scope.agent_id,
        "summary": SUMMARY_METADATA_KEY,
        "pattern": PATTERN_METADATA_KEY,
        "resumes": RESUMES_METADATA_KEY,
    }
    along: dict[UUID, str] = {}
    summaries: set[UUID] = set()
    if SUMMARY_METADATA_KEY in target.metadata:
        for row in await fetch_all(conn, _SUMMARISED, {**params, "id": target.id}):
            along[row["id"]] = forgetting.summarised_member(target.id)
    frontier = [target.id, *along]
    while frontier:
        found = await fetch_all(conn, _DERIVED, {**params, "ids": frontier})
        frontier = []
        for row in found:
            if row["id"] == target.id or row["id"] in along:
                continue
            if row["kind"] == "summary":
                summaries.add(row["id"])
            why = {
                "summary": forgetting.summary_of,
                "inferred": forgetting.inferred_from,
                "piece": forgetting.same_value,
            }[row["kind"]]
            along[row["id"]] = why(row["source"])
            frontier.append(row["id"])
    return [ForgottenAlong(memory_id, reason) for memory_id, reason in along.items()], summaries


async def forget_with_derived(
    conn: AsyncConnection, scope: Scope, target: StoredMemory, hard: bool, reason: str | None, actor: str
) -> tuple[list[ForgottenAlong], list[UUID]]:
    """Forget ``target`` (locked by the caller, its version checked) and what it takes along; the
    memories taken along and the members made active again. Soft: status ``forgotten`` with a history row
    each (the caller's ``reason`` for ``target``, the rule's for the others; a memory already forgotten
    is left as it is). Hard: every row deleted, with its relations, history, chunks and access counters
    (foreign keys, migration 002); a causal child keeps living with no parent. The instants a forgotten
    value of ``target``'s key held until an end are given back to the values whose stated periods cover
    them (``key_rejoin``: a value split around a forgotten bounded value is one memory again); the caller
    holds that key's lock. The continuations of the value dropped earlier (``key_rejoin.drop``, out of
    every read of today but ``known_at``) go too: deleted, or seen at no time any more (a history row)."""
    along, summaries = await _along(conn, scope, target)
    gone = [target.id, *(a.id for a in along)]
    rows = await fetch_all(
        conn,
        """SELECT id, status FROM memories WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s
           ORDER BY id FOR UPDATE""",
        (gone, scope.tenant_id, scope.agent_id),
    )
    status = {r["id"]: r["status"] for r in rows}
    along = [a for a in along if a.id in status]  # gone meanwhile (deleted by another forget)
    # read before they go (a hard forget deletes the rows and their links)
    holes = [h for h in await holes_of(conn, scope.tenant_id, gone) if h[1] == target.key]
    dropped = await dropped_of(conn, scope.tenant_id, gone) if target.key is not None else []
    back = await fetch_all(
        conn,
        _STILL_SUMMARISED,
        {
            "ids": [s for s in summaries if s in status],
            "gone": gone,
            "t": scope.tenant_id,
            "a": scope.agent_id,
        },
    )
    restored = list(dict.fromkeys(r["id"] for r in back))
    if hard:
        await conn.execute(
            "DELETE FROM memories WHERE id = ANY(%s) AND tenant_id = %s", (gone + dropped, scope.tenant_id)
        )
    else:
        along = [a for a in along if status[a.id] != "forgotten"]  # already forgotten: no change
        changed = [
            HistoryRow(memory_id, "forgotten", why, status_change(status[memory_id], "forgotten"))
            for memory_id, why in [(target.id, reason), *((a.id, a.reason) for a in along)]
            if status.get(memory_id) not in (None, "forgotten")
        ]
        await conn.execute(
            """UPDATE memories SET status = 'forgotten', updated_at = now()
               WHERE id = ANY(%s) AND tenant_id = %s""",
            ([h.memory_id for h in changed], scope.tenant_id),
        )
        # a dropped continuation is forgotten already: this row says it was forgotten on request since
        hidden = [
            HistoryRow(
                d, "forgotten", forgetting.same_value(target.id), status_change("forgotten", "forgotten")
            )
            for d in dropped
        ]
        await record_history(conn, scope.tenant_id, actor, *changed, *hidden)
    for agent_id, key, hole in holes:
        await fill(conn, scope.tenant_id, agent_id, key, hole, gone, actor)
    if restored:
        await conn.execute(
            """UPDATE memories SET status = 'active', updated_at = now()
               WHERE id = ANY(%s) AND tenant_id = %s""",
            (restored, scope.tenant_id),
        )
        await record_history(
            conn,
            scope.tenant_id,
            actor,
            *(
                HistoryRow(
                    r["id"],
                    "restored",
                    forgetting.restored_member(r["summary"]),
                    status_change("archived", "active"),
                )
                for r in {r["id"]: r for r in back}.values()
            ),
        )
    return along, restored
