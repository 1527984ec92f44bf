"""An edit of a memory that maintenance derived something from: what was derived follows the edit, in the
edit's transaction (new-user trial F12, F13), as a forget takes it along (``forgetting``).

- An archived member of an active consolidation summary (``part_of``) whose content, recall hint, key,
  entities, metadata, shared_with, importance or tags change: the summary is derived again from its
  members as they are now (``domain.maintenance.regroup``). A member whose words, key, entities, metadata
  or sharing no longer repeat the others' event leaves it — active again, found by a default search, its
  ``part_of`` link removed — and the summary is rewritten in place (same id, history ``updated`` with
  what changed and its members before and after) from those that stay, or undone (``undo_summary``:
  every member active again, the summary archived) when fewer than the consolidation minimum stay. Else
  "3 similar events … passed" kept standing for an event corrected to "failed: HTTP 500", which stayed
  archived. Importance and tags: the summary's are its members' highest and their union.
- An episode cited as evidence (``related``) by an active inferred memory whose content changes: the
  inference is derived again from its cited episodes (``domain.maintenance.rederive_pattern``). An episode
  that no longer states it is no longer evidence (link removed); the inference states the new count
  ("Preference stated in 2 episodes: …"), is linked ``contradicts`` to a cited episode that now takes it
  back (the take-back rule of ``domain.maintenance.patterns``), or, when fewer episodes than an inference
  needs still state it, is withdrawn: archived, as a summary is undone, marked ``withdrawn_at`` so that
  maintenance makes it active again once enough episodes state it again (``reinstate_pattern``). Its
  vector is kept: the text changed in its count, not in the statement it is found by.

History rows (by the editing caller) say why; the answer's ``note`` says what followed.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any
from uuid import UUID

from psycopg import AsyncConnection, sql
from psycopg.types.json import Jsonb

from hindsight.adapters.postgres.conflicts import relate_if_new
from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.injection_labels import injection_params
from hindsight.adapters.postgres.maintenance.consolidation import undo_summary
from hindsight.adapters.postgres.maintenance.episodes import EPISODE_COLUMNS, episode_from_row
from hindsight.adapters.postgres.maintenance.patterns import CONTESTED
from hindsight.adapters.postgres.rows import (
    MEMORY_COLUMNS,
    fetch_all,
    fetch_one,
    memory_from_row,
    vector_literal,
)
from hindsight.domain.counts import agreeing, counted
from hindsight.domain.maintenance import (
    PATTERN_CONTENT_CHARS,
    PATTERN_METADATA_KEY,
    SUMMARY_METADATA_KEY,
    WITHDRAWN_AT,
    ConsolidationPlan,
    PatternPolicy,
    rederive_pattern,
    regroup,
)
from hindsight.domain.memory import Scope, StoredMemory, content_hash

SUMMARY_FIELDS = frozenset(
    {"content", "query", "key", "importance", "tags", "entities", "metadata", "shared_with", "occurred_at"}
    | {"occurred_end"}  # its span (``summary_span``): a member re-dated by memory_update moves it
)
"""Fields of a member a summary is derived from (``domain.maintenance.plan_consolidation``)."""

_SUMMARIES = """SELECT s.id FROM memory_relations r JOIN memories s ON s.id = r.to_id
   WHERE r.from_id = %(id)s AND r.kind = 'part_of' AND r.tenant_id = %(t)s
     AND s.tenant_id = %(t)s AND s.agent_id = %(a)s AND s.status = 'active' AND s.metadata ? %(k)s
   ORDER BY s.id FOR UPDATE OF s"""
"""The active summaries that stand for a memory."""

_MEMBERS = f"""SELECT {EPISODE_COLUMNS}, content, embedding FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND status = 'archived'
     AND id IN (SELECT from_id FROM memory_relations
                WHERE tenant_id = %(t)s AND to_id = %(id)s AND kind = 'part_of')
   ORDER BY id FOR UPDATE"""
"""A summary's archived members, with their vectors."""

_INFERENCES = """SELECT d.id, d.content, d.metadata FROM memory_relations r
     JOIN memories d ON d.id = r.from_id
   WHERE r.to_id = %(id)s AND r.kind = 'related' AND r.tenant_id = %(t)s
     AND d.tenant_id = %(t)s AND d.agent_id = %(a)s AND d.status = 'active' AND d.metadata ? %(k)s
   ORDER BY d.id FOR UPDATE OF d"""
"""The active inferred memories that cite a memory as evidence."""

_EVIDENCE = f"""SELECT {EPISODE_COLUMNS}, left(content, %(chars)s) AS content FROM memories
   WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'episodic'
     AND status IN ('active', 'archived') AND NOT metadata ? %(summary)s
     AND id IN (SELECT to_id FROM memory_relations
                WHERE tenant_id = %(t)s AND from_id = %(id)s AND kind = 'related')"""
"""The episodes an inferred memory cites, as ``PostgresPatterns.pattern_evidence`` reads evidence."""

_UNLINK = "DELETE FROM memory_relations WHERE tenant_id = %s AND from_id = %s AND to_id = %s AND kind = %s"


def _json(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


async def follow_edit(
    conn: AsyncConnection,
    scope: Scope,
    before: StoredMemory,
    changed: Collection[str],
    actor: str,
    min_size: int,
    patterns: PatternPolicy,
) -> list[str]:
    """After ``before`` (the memory as it was, locked by the caller) had ``changed`` fields updated in the
    caller's transaction: the summaries and inferences derived from it follow (module docstring). The
    notes for the caller, one per derived memory changed (none: nothing was derived from it)."""
    if before.layer != "episodic":
        return []
    params = {"id": before.id, "t": scope.tenant_id, "a": scope.agent_id}
    notes: list[str] = []
    if before.status == "archived" and SUMMARY_FIELDS & set(changed):
        for row in await fetch_all(conn, _SUMMARIES, {**params, "k": SUMMARY_METADATA_KEY}):
            notes.append(await _regroup(conn, scope, row["id"], before.id, actor, min_size))
    if "content" in changed:
        for row in await fetch_all(conn, _INFERENCES, {**params, "k": PATTERN_METADATA_KEY}):
            note = await _recount(conn, scope, row, before.id, actor, patterns)
            if note:
                notes.append(note)
    return notes


async def _regroup(
    conn: AsyncConnection,
    scope: Scope,
    summary_id: UUID,
    edited: UUID,
    actor: str,
    min_size: int,
) -> str:
    """Summary ``summary_id`` after its member ``edited`` was edited: rewritten from the members that
    stay, or undone; the note for the caller."""
    rows = await fetch_all(conn, _MEMBERS, {"id": summary_id, "t": scope.tenant_id, "a": scope.agent_id})
    members = [episode_from_row(r, with_embedding=True) for r in rows]
    outcome = regroup(scope, members, edited, min_size)
    clock = await fetch_one(conn, "SELECT now() AS now")
    assert clock is not None
    now: datetime = clock["now"]
    if outcome.plan is None:
        stay = len(members) - len(outcome.leaving)
        why = (
            f"{counted(stay, 'member')} still {agreeing(stay, 'repeats', 'repeat')} its event, fewer than "
            f"the {min_size} a summary needs"
            if stay < min_size
            else "its members can no longer be summarised in one (not one event, or a text it cannot quote)"
        )
        reason = f"consolidation undone: member {edited} was edited, and {why}"
        restored = await undo_summary(conn, scope, summary_id, now, reason, actor)
        return (
            f"summary {summary_id} undone ({why}): this memory and its "
            f"{counted(len(restored) - 1, 'other member')} are active again"
        )
    for gone in outcome.leaving:
        await conn.execute(_UNLINK, (scope.tenant_id, gone, summary_id, "part_of"))
        await conn.execute(
            "UPDATE memories SET status = 'active', updated_at = %s WHERE id = %s AND tenant_id = %s",
            (now, gone, scope.tenant_id),
        )
    left = f"; {edited} left it" if outcome.leaving else ""
    reason = f"derived again from its members after member {edited} was edited{left}"
    await _rewrite_summary(conn, scope, summary_id, outcome.plan, [m.id for m in members], reason, actor)
    await record_history(
        conn,
        scope.tenant_id,
        actor,
        *(
            HistoryRow(
                gone,
                "restored",
                f"edited: no longer a repeat of the event summary {summary_id} stands for",
                status_change("archived", "active"),
            )
            for gone in outcome.leaving
        ),
    )
    if outcome.leaving:
        return (
            f"taken out of summary {summary_id}: it no longer repeats the event the summary stands for, so "
            "it is active again; the summary now stands for its other "
            f"{counted(len(outcome.plan.member_ids), 'member')}"
        )
    return f"summary {summary_id} derived again with this change"


_SUMMARY_SET = """UPDATE memories
   SET content = %(content)s, content_hash = %(hash)s, embedding = %(e)s::vector,
       importance = %(importance)s, occurred_at = %(occurred_at)s, occurred_end = %(occurred_end)s,
       source = %(source)s, key = %(key)s, query = %(query)s, context = %(context)s,
       task_type = %(task_type)s, outcome = %(outcome)s, lessons = %(lessons)s, tags = %(tags)s::text[],
       entities = %(entities)s, shared_with = %(shared_with)s::text[], metadata = %(metadata)s,
       entity_terms = ARRAY(SELECT DISTINCT term FROM memories x, unnest(x.entity_terms) AS term
                            WHERE x.id = ANY(%(members)s) AND x.tenant_id = %(t)s ORDER BY term),
       injection_signals = %(injection_signals)s, injection_stamp = %(injection_stamp)s,
       updated_at = now()
   WHERE id = %(id)s AND tenant_id = %(t)s"""


async def _rewrite_summary(
    conn: AsyncConnection,
    scope: Scope,
    summary_id: UUID,
    plan: ConsolidationPlan,
    members_before: list[UUID],
    reason: str,
    actor: str,
) -> None:
    """Summary ``summary_id`` (locked) rewritten from ``plan`` in place (its id kept: agents hold it), a
    history row with the fields that changed (``from``/``to``, so a ``known_at`` read shows what it said
    before) and its members before and after."""
    row = await fetch_one(
        conn, sql.SQL("SELECT {c} FROM memories m WHERE m.id = %s").format(c=MEMORY_COLUMNS), (summary_id,)
    )
    assert row is not None
    current = memory_from_row(row)
    values: dict[str, Any] = {
        "content": plan.content,
        "importance": plan.importance,
        "occurred_at": plan.occurred_at,
        "occurred_end": plan.occurred_end,
        "source": plan.source,
        "key": plan.key,
        "query": plan.query,
        "context": plan.context,
        "task_type": plan.task_type,
        "outcome": plan.outcome,
        "lessons": plan.lessons,
        "tags": plan.tags,
        "entities": plan.entities,
        "shared_with": plan.shared_with,
        "metadata": plan.metadata,
    }
    diff = {
        name: {"from": _json(getattr(current, name)), "to": _json(value)}
        for name, value in values.items()
        if value != getattr(current, name)
    }
    after = sorted(map(str, plan.member_ids))
    if after != sorted(map(str, members_before)):
        diff["members"] = {"from": sorted(map(str, members_before)), "to": after}
    await conn.execute(
        _SUMMARY_SET,
        {
            **values,
            "entities": Jsonb(plan.entities),
            "metadata": Jsonb(plan.metadata),
            "hash": content_hash(plan.content),
            "e": vector_literal(plan.embedding),
            "members": list(plan.member_ids),
            **injection_params(
                plan.content,
                plan.key,
                plan.query,
                current.summary,
                plan.lessons,
                current.key_decisions,
                plan.metadata,
                plan.entities,
            ),
            "id": summary_id,
            "t": scope.tenant_id,
        },
    )
    await record_history(conn, scope.tenant_id, actor, HistoryRow(summary_id, "updated", reason, diff))


async def _recount(
    conn: AsyncConnection,
    scope: Scope,
    inference: dict[str, Any],
    edited: UUID,
    actor: str,
    policy: PatternPolicy,
) -> str | None:
    """Inferred memory ``inference`` (an ``_INFERENCES`` row, locked) after its evidence ``edited`` was
    edited: unchanged while the episode still states it (None), else recounted or withdrawn; the note for
    the caller."""
    inference_id, content, metadata = inference["id"], inference["content"], inference["metadata"]
    params = {
        "id": inference_id,
        "t": scope.tenant_id,
        "a": scope.agent_id,
        "chars": PATTERN_CONTENT_CHARS,
        "summary": SUMMARY_METADATA_KEY,
    }
    evidence = [episode_from_row(r, with_embedding=False) for r in await fetch_all(conn, _EVIDENCE, params)]
    plan = rederive_pattern(scope, inference_id, evidence, policy)
    if plan is not None and edited in plan.evidence_ids:
        return None
    await conn.execute(_UNLINK, (scope.tenant_id, inference_id, edited, "related"))
    stating = len(plan.evidence_ids) if plan is not None else sum(1 for ep in evidence if ep.id != edited)
    if plan is None:
        reason = (
            f"withdrawn: its evidence {edited} was edited and no longer states it; "
            f"{counted(stating, 'episode')} still {agreeing(stating, 'does', 'do')}, fewer than the "
            f"{policy.min_episodes} an inference needs"
        )
        await conn.execute(
            """UPDATE memories SET status = 'archived', updated_at = now(),
                      metadata = jsonb_set(metadata, ARRAY[%s, %s], to_jsonb(now()))
               WHERE id = %s AND tenant_id = %s""",
            (PATTERN_METADATA_KEY, WITHDRAWN_AT, inference_id, scope.tenant_id),
        )
        withdrawn = HistoryRow(inference_id, "archived", reason, status_change("active", "archived"))
        await record_history(conn, scope.tenant_id, actor, withdrawn)
        return (
            f"inferred memory {inference_id} withdrawn (archived): only {counted(stating, 'episode')} still "
            f"{agreeing(stating, 'states', 'state')} it, "
            f"fewer than the {policy.min_episodes} an inference needs"
        )
    for episode in plan.contested_by:  # the edit takes it back: recall flags both (take-back rule)
        await relate_if_new(conn, scope.tenant_id, inference_id, episode, "contradicts", CONTESTED)
    await conn.execute(
        """UPDATE memories SET content = %s, content_hash = %s, metadata = %s, updated_at = now()
           WHERE id = %s AND tenant_id = %s""",
        (plan.content, content_hash(plan.content), Jsonb(plan.metadata), inference_id, scope.tenant_id),
    )
    was = metadata.get(PATTERN_METADATA_KEY, {}).get("episodes")
    changes: dict[str, Any] = {"episodes": {"from": was, "to": stating}}
    if plan.content != content:
        changes["content"] = {"from": content, "to": plan.content}
    still = f"{counted(stating, 'episode')} still {agreeing(stating, 'does', 'do')}"
    reason = f"its evidence {edited} was edited and no longer states it; {still}"
    await record_history(conn, scope.tenant_id, actor, HistoryRow(inference_id, "updated", reason, changes))
    still = f"{counted(stating, 'episode')} still {agreeing(stating, 'states', 'state')} it"
    return f"inferred memory {inference_id} no longer counts this episode: {still}"
