"""Key-less contradiction detection in the worker's write transaction (``domain.contradiction`` has the
rules): find the active semantic memories of the same agent most similar to a new one, compare each with
it, and link, supersede or leave open what the rules say. Also settles, in a transaction of its own, a
possible conflict the conflict judge answered after the write.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

import numpy as np
from psycopg import AsyncConnection

from hindsight.adapters.postgres.history import HistoryRow, record_history, status_change
from hindsight.adapters.postgres.rows import fetch_all, fetch_one
from hindsight.domain.contradiction import (
    CONFLICT_CANDIDATES,
    PairVerdict,
    compare_facts,
    conflict_floor,
    gated,
    order_contradiction,
)
from hindsight.domain.inferred_order import (
    held_from_words,
    held_from_words_reason,
    undated_past_over_present,
)
from hindsight.domain.memory import MemoryDraft, OpenConflict, Source, StoredMemory, WriteJob
from hindsight.domain.relative_time import INFERRED_KEY
from hindsight.domain.timetravel import valid_start

WORKER = "worker"


def open_conflict(new_id: UUID, draft: MemoryDraft, old: dict[str, Any]) -> OpenConflict:
    """The pair the conflict judge settles: the new write ``draft`` (stored as ``new_id``) and a stored
    row ``old`` (its ``id``, ``content`` and ``source`` columns), both kept meanwhile."""
    return OpenConflict(
        new_id=new_id,
        old_id=old["id"],
        new_content=draft.content,
        old_content=old["content"],
        new_source=draft.source,
        old_source=old["source"],
    )


@dataclass(frozen=True)
class ConflictOutcome:
    """What the check did for one write: old memories superseded, contradictions kept (the source rules
    forbade superseding), and possible conflicts left open for the judge."""

    superseded: tuple[UUID, ...] = ()
    kept: tuple[UUID, ...] = ()
    open: tuple[OpenConflict, ...] = ()
    past_of: tuple[UUID, datetime, str] | None = None
    """The contradicting fact that began to hold later and so supersedes the new one: its id, its start
    and the link's reason (the caller supersedes the new one after recording its creation)."""
    redated: str | None = None
    """The part of the outcome saying the new one holds from when it was said, not from the date read
    from its words (``held_from_words_of``; its row's ``valid_from`` was moved there)."""
    past_over_present: tuple[UUID, ...] = ()
    """Facts of now an undated past state contradicts: kept, flagged (``past_over_present``)."""

    @property
    def reason(self) -> str | None:
        parts = [self.redated] if self.redated else []
        parts += [f"supersedes {i} (contradiction)" for i in self.superseded]
        if self.past_of is not None:
            parts.append(contradicted_past_reason(*self.past_of[:2]))
        parts += [f"contradicts {i} (user_stated, kept active)" for i in self.kept]
        parts += [past_over_present_part(i) for i in self.past_over_present]
        parts += [f"possible conflict with {c.old_id}" for c in self.open]
        return "; ".join(parts) or None


async def check_conflicts(
    conn: AsyncConnection, job: WriteJob, vector: np.ndarray, cosine: float, exclude: Sequence[UUID] = ()
) -> ConflictOutcome:
    """Compare the new semantic memory (already inserted) with the most similar active ones of its agent
    (cosine ≥ ``cosine``, or ``contradiction.conflict_floor`` for a change statement — a contradiction
    below ``cosine`` is then only a possible conflict, ``contradiction.gated``; at most
    ``CONFLICT_CANDIDATES``; ``exclude``: the facts its key replaced) and act: two memories whose keys
    are both set and differ are never compared — the agent said they are about different things
    (``order:1`` and ``order:2`` may well differ only in a value);
    a contradiction is linked ``contradicts`` and, by the source rules in valid-time order
    (``domain.contradiction.order_contradiction``), supersedes the old fact, keeps both, or — the old one
    began to hold later — is returned as ``past_of`` (the first such); a possible conflict is linked
    ``contradicts`` and returned open for the judge. A start read from the new memory's words that may not
    make it a past value of a fact it contradicts (``held_from_words_of``) is moved, on its row, to when
    they were said, and the order follows from there (the outcome's ``redated`` says so)."""
    draft = job.draft
    rows = await fetch_all(
        conn,
        """SELECT id, content, source, 1 - (embedding <=> %(e)s::vector) AS similarity,
                  coalesce(valid_from, occurred_at, created_at) AS since FROM memories
           WHERE tenant_id = %(t)s AND agent_id = %(a)s AND layer = 'semantic' AND status = 'active'
             AND id <> %(id)s AND NOT (id = ANY(%(exclude)s::uuid[]))
             AND (%(key)s::text IS NULL OR key IS NULL OR key = %(key)s)
           ORDER BY embedding <=> %(e)s::vector LIMIT %(n)s""",
        {
            "e": vector,
            "t": job.tenant_id,
            "a": job.agent_id,
            "id": job.id,
            "exclude": list(exclude),
            "key": draft.key,
            "n": CONFLICT_CANDIDATES,
        },
    )
    floor = conflict_floor(draft.content, cosine)  # lower for a change statement: "moved to …", "got fired"
    close = [row for row in rows if row["similarity"] >= floor]
    judged = [
        (row, gated(compare_facts(draft.content, row["content"]), row["similarity"], cosine)) for row in close
    ]
    since = job.valid_since
    said = held_from_words_of(job, judged)
    if said is not None:  # the row was inserted from the inferred date: it holds from when it was said
        redate = "UPDATE memories SET valid_from = %s WHERE tenant_id = %s AND id = %s"
        await conn.execute(redate, (said, job.tenant_id, job.id))
        since = said
    superseded: list[UUID] = []
    kept: list[UUID] = []
    unsure_: list[UUID] = []
    open_: list[OpenConflict] = []
    past_of: tuple[UUID, datetime, str] | None = None
    for row, verdict in judged:
        if verdict.relation == "contradiction" and undated_past_over_present(draft, row["content"]):
            # "The user's city was Rome" retires no "… is Paris": nothing says when, or that it stopped
            await _relate(conn, job.tenant_id, job.id, row["id"], "contradicts", past_over_present(verdict))
            unsure_.append(row["id"])
        elif verdict.relation == "contradiction":
            await _relate(conn, job.tenant_id, job.id, row["id"], "contradicts", verdict.reason)
            order = order_contradiction(draft.source, since, row["source"], row["since"])
            if order == "supersede":
                why = f"newer fact that contradicts it: {verdict.reason}"
                await supersede(conn, job.tenant_id, job.id, row["id"], since, why)
                superseded.append(row["id"])
            elif order == "superseded" and past_of is None:  # once past, the first later fact ends it
                past_of = (row["id"], row["since"], f"{LATER_FACT}: {verdict.reason}")
            else:
                kept.append(row["id"])
        elif verdict.relation == "possible_conflict":
            await _relate(conn, job.tenant_id, job.id, row["id"], "contradicts", unsure(verdict))
            open_.append(open_conflict(job.id, draft, row))
    redated = None if said is None else held_from_words_reason(job.valid_since, said, CONTRADICTED)
    return ConflictOutcome(tuple(superseded), tuple(kept), tuple(open_), past_of, redated, tuple(unsure_))


PAST_OVER_PRESENT = "the new fact states a past state with no date"


def past_over_present(verdict: PairVerdict) -> str:
    """The ``contradicts`` link's reason when an undated past state contradicts a fact of now
    (``domain.inferred_order.undated_past_over_present``): a possible conflict, both kept (flagged) —
    nothing says when it held or that the fact of now stopped."""
    return f"possible conflict, {verdict.reason}; {PAST_OVER_PRESENT}; both kept"


def past_over_present_part(old_id: UUID) -> str:
    """The write outcome's part for such a pair (``past_over_present``)."""
    return f"possible conflict with {old_id} ({PAST_OVER_PRESENT}; both kept)"


CONTRADICTED = "the fact it contradicts"
"""What an inferred date may not make a keyless write a past value of (``held_from_words_of``)."""


def held_from_words_of(
    job: WriteJob, judged: Sequence[tuple[dict[str, Any], PairVerdict]]
) -> datetime | None:
    """When ``job`` holds from instead of its start, when that start is a date read from its words that
    would make it a past value of a fact it contradicts (``judged``: the candidates' rows — ``source``,
    ``since`` — with their verdicts) and may not (``domain.inferred_order.held_from_words``: new-user
    trial 3, "moved to Berlin last month" after "lives in Lisbon" from the 15th, as on a key): the
    moment its words were said. None: its start stands. Raises nothing."""
    later = [
        row["since"]
        for row, verdict in judged
        if verdict.relation == "contradiction"
        and order_contradiction(job.draft.source, job.valid_since, row["source"], row["since"])
        == "superseded"
    ]
    return held_from_words(job.draft, job.valid_since, later) if later else None


RESTORED_CANDIDATES = """SELECT c.id, c.content, c.source, 1 - (c.embedding <=> m.embedding) AS similarity,
          coalesce(c.valid_from, c.occurred_at, c.created_at) AS since
   FROM memories m JOIN memories c ON c.tenant_id = m.tenant_id AND c.agent_id = m.agent_id
   WHERE m.id = %(id)s AND m.tenant_id = %(t)s AND c.layer = 'semantic' AND c.status = 'active'
     AND c.id <> m.id AND NOT (c.id = ANY(%(exclude)s::uuid[])) AND (m.key IS NULL OR c.key IS NULL)
   ORDER BY c.embedding <=> m.embedding LIMIT %(n)s"""
"""The active facts of a restored memory's agent most like it (a keyed one: the key-less ones; its key's
values are its key's timeline's business), as ``check_conflicts`` finds them for a write."""


async def check_restored(
    conn: AsyncConnection,
    tenant_id: str,
    restored: StoredMemory,
    cosine: float,
    actor: str,
    exclude: Sequence[UUID] = (),
) -> list[UUID]:
    """Run a write's contradiction check (``check_conflicts``) for a memory a restore made active again
    (trial F14: a fact archived, a contradicting one written meanwhile, then the first restored, left both
    active and unflagged): each active fact at least ``cosine`` similar (``exclude``: those the restore
    settled already) that the rules find contradicting is linked ``contradicts`` and settled in valid-time
    order by the source rules (``order_contradiction``): the restored one supersedes it, is a past value
    of it (superseded by it from its start, the first such), or both stay (flagged); a possible conflict is
    linked ``contradicts`` (flagged ``possible_conflict``; no judge is asked for a restore). The ids the
    restored fact superseded."""
    since = valid_start(restored)
    rows = await fetch_all(
        conn,
        RESTORED_CANDIDATES,
        {"id": restored.id, "t": tenant_id, "exclude": list(exclude), "n": CONFLICT_CANDIDATES},
    )
    superseded: list[UUID] = []
    past_of = False
    for row in rows:
        if row["similarity"] is None or row["similarity"] < cosine:
            continue
        verdict = compare_facts(restored.content, row["content"])
        if verdict.relation == "possible_conflict":
            await _relate(conn, tenant_id, restored.id, row["id"], "contradicts", unsure(verdict))
        if verdict.relation != "contradiction":
            continue
        await _relate(conn, tenant_id, restored.id, row["id"], "contradicts", verdict.reason)
        order = order_contradiction(restored.source, since, row["source"], row["since"])
        if order == "supersede":
            why = f"restored fact that contradicts it: {verdict.reason}"
            await supersede(conn, tenant_id, restored.id, row["id"], since, why, actor)
            superseded.append(row["id"])
        elif order == "superseded" and not past_of:  # once past, the first later fact ends it
            why = f"{LATER_FACT}: {verdict.reason}"
            await supersede(conn, tenant_id, row["id"], restored.id, row["since"], why, actor)
            past_of = True
    return superseded


RULE_LINKS = """SELECT r.from_id, r.to_id, c.id, c.content, 1 - (c.embedding <=> m.embedding) AS similarity
   FROM memories m JOIN memory_relations r ON r.tenant_id = m.tenant_id AND r.kind = 'contradicts'
        AND (r.from_id = %(id)s OR r.to_id = %(id)s)  -- its two indexes
   JOIN memories c ON c.tenant_id = m.tenant_id AND c.status = 'active'
        AND c.id = CASE WHEN r.from_id = m.id THEN r.to_id ELSE r.from_id END
   WHERE m.id = %(id)s AND m.tenant_id = %(t)s
     AND (r.reason LIKE 'contradiction (%%' OR r.reason LIKE 'possible conflict, %%'
          OR r.reason LIKE 'edited: possible conflict, %%')"""
"""The ``contradicts`` links between a memory and an active fact that a write's rules, the judge or an
edit's check made (their reasons: ``PairVerdict.reason``, ``unsure``, "contradiction (judge)"), with the
fact and its similarity — not a caller's own ``memory_link``, nor a key's links (restores, archived
statements)."""


async def check_edited(
    conn: AsyncConnection,
    tenant_id: str,
    edited: StoredMemory,
    cosine: float,
    exclude: Sequence[UUID] = (),
) -> list[str]:
    """Run a write's contradiction rules for an active semantic memory whose content an update changed in
    place (new-user trial, finding 4: "The user owns a red bike" edited to "The user no longer drinks oat
    milk" left both facts active and unflagged). Each active fact at least ``cosine`` similar to the new
    content (``RESTORED_CANDIDATES``; ``exclude``: those the update settled already) that the rules find
    contradicting or possibly conflicting is linked ``contradicts`` — search flags both
    ``possible_conflict`` and shows each beside the other — and nothing is superseded: an edit names one
    memory, so it never retires another silently (``memory_update`` action ``supersede`` does that, said
    so). A link the rules or the judge made between it and an active fact (``RULE_LINKS``) that the new
    content no longer conflicts with — below ``cosine``, or no contradiction or possible conflict by the
    rules — is removed, so the old conflict's flag does not outlive it. Returns one note per link made or
    removed, for the update's answer."""
    notes: list[str] = []
    linked = await fetch_all(conn, RULE_LINKS, {"id": edited.id, "t": tenant_id})
    for row in linked:
        verdict = compare_facts(edited.content, row["content"])
        close = row["similarity"] is not None and row["similarity"] >= cosine
        if close and verdict.relation in ("contradiction", "possible_conflict"):
            continue
        await conn.execute(
            """DELETE FROM memory_relations WHERE tenant_id = %s AND from_id = %s AND to_id = %s
               AND kind = 'contradicts'""",
            (tenant_id, row["from_id"], row["to_id"]),
        )
        notes.append(f"no longer in conflict with {row['id']}: unlinked")
    rows = await fetch_all(
        conn,
        RESTORED_CANDIDATES,
        {"id": edited.id, "t": tenant_id, "exclude": list(exclude), "n": CONFLICT_CANDIDATES},
    )
    for row in rows:
        if row["similarity"] is None or row["similarity"] < cosine:
            continue
        verdict = compare_facts(edited.content, row["content"])
        if verdict.relation not in ("contradiction", "possible_conflict"):
            continue
        await _relate(conn, tenant_id, edited.id, row["id"], "contradicts", f"edited: {unsure(verdict)}")
        notes.append(f"possible conflict with {row['id']} ({verdict.reason}); both kept")
    return notes


LATER_FACT = "a fact that began to hold later contradicts it"
"""The reason of the ``supersedes`` link from a contradicting fact to a new one that began before it."""


def contradicted_past_reason(later: UUID, since: datetime) -> str:
    """The write outcome's reason when a later fact (true from ``since``) contradicts the new one and
    supersedes it (``domain.contradiction.order_contradiction``)."""
    return (
        f"past value: contradicted by {later}, which holds from {since.isoformat()}; stored superseded by it"
    )


def unsure(verdict: PairVerdict) -> str:
    return f"possible conflict, {verdict.reason}; both kept"


SUPERSEDED_END = "least(m.valid_to, greatest({until}, coalesce(m.valid_from, m.occurred_at, m.created_at)))"
"""The end a supersede gives memory ``m`` ending at ``{until}``: never before it begins (an episode, with no
valid_from, begins at occurred_at, else created_at: trial MED-3), never after the end it has."""

_SUPERSEDE = f"""UPDATE memories m SET status = 'superseded', updated_at = now(),
          -- never before its start (a future value retracted, a newer fact named): empty; never
          -- after its own end (a period given to it, or a past value's): the earlier one
          valid_to = {SUPERSEDED_END.format(until="%(until)s")}
   FROM (SELECT id, valid_to, status FROM memories WHERE id = %(id)s AND tenant_id = %(t)s) before
   WHERE m.id = before.id
   RETURNING before.valid_to AS before, m.valid_to AS after, before.status AS status"""
"""``supersede``'s update (parameters ``id``, ``t``, ``until``)."""


async def supersede(
    conn: AsyncConnection,
    tenant_id: str,
    new_id: UUID,
    old_id: UUID,
    until: datetime,
    why: str,
    actor: str = WORKER,
) -> None:
    """Mark ``old_id`` superseded by ``new_id``: its period ends at ``until`` (or at its start when that is
    later — ``valid_from``, else an episode's ``occurred_at`` or ``created_at`` (``SUPERSEDED_END``): a
    period never ends before it begins, migration 019 —, or at its own end when that is
    earlier: a period is only ever shortened, so two values of a key never hold at one instant), with its
    ``supersedes`` link and history row (by ``actor``: the worker, the importer, or the API key of a
    ``memory_update``). The history records the end when it changed, so a read at an earlier ``known_at``
    sees the end it had then (and a restore gives it back). A memory already superseded (a past value a
    later-arriving value begins inside) keeps its status; only its end moves."""
    row = await fetch_one(
        conn,
        _SUPERSEDE,
        {"id": old_id, "t": tenant_id, "until": until},
    )
    was = row["status"] if row is not None else "active"
    changes = status_change(was, "superseded") if was != "superseded" else {}
    if row is not None and row["after"] is not None and row["before"] != row["after"]:
        before = row["before"].isoformat() if row["before"] is not None else None
        changes["valid_to"] = {"from": before, "to": row["after"].isoformat()}
    await _relate(conn, tenant_id, new_id, old_id, "supersedes", why)
    await record_history(
        conn, tenant_id, actor, HistoryRow(old_id, "superseded", f"superseded by {new_id}", changes)
    )


RELATE_WITH_REASON = """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason)
   VALUES (%s, %s, %s, %s, %s) ON CONFLICT (from_id, to_id, kind) DO UPDATE SET reason = EXCLUDED.reason"""
"""A relation whose reason is replaced if it exists (the conflict check's and the judge's links)."""


async def _relate(
    conn: AsyncConnection, tenant_id: str, from_id: UUID, to_id: UUID, kind: str, reason: str
) -> None:
    await conn.execute(RELATE_WITH_REASON, (tenant_id, from_id, to_id, kind, reason))


RELATE = """INSERT INTO memory_relations (tenant_id, from_id, to_id, kind, reason) VALUES (%s, %s, %s, %s, %s)
   ON CONFLICT (from_id, to_id, kind) DO NOTHING"""
"""A relation, left as it is if it exists (parameters: tenant, from, to, kind, reason)."""


async def relate_if_new(
    conn: AsyncConnection, tenant_id: str, from_id: UUID, to_id: UUID, kind: str, reason: str
) -> None:
    """Insert the relation ``from_id`` -[kind]-> ``to_id`` unless it exists (``RELATE``)."""
    await conn.execute(RELATE, (tenant_id, from_id, to_id, kind, reason))


SETTLED_ROWS = f"""SELECT id, status, source, content, occurred_at, occurred_precision, valid_from, valid_to,
          metadata -> '{INFERRED_KEY}' AS inferred, coalesce(valid_from, occurred_at, created_at) AS since
   FROM memories WHERE id = ANY(%s) AND tenant_id = %s AND agent_id = %s FOR UPDATE"""
"""The two memories of a conflict the judge answered, locked, with what orders them (``settle``)."""


def said_instead(new: dict[str, Any], old: dict[str, Any]) -> datetime | None:
    """When the new memory of a judged conflict (a ``SETTLED_ROWS`` row) holds from instead of its stored
    start, when that start is a date read from its words that would make it a past value of ``old`` and
    may not (``domain.inferred_order.held_from_words``, as ``held_from_words_of`` at the write: "moved to
    Berlin last month" after "lives in Lisbon" from the 15th is the newer fact, not a past value): the
    moment its words were said. None: its start stands. Raises nothing."""
    if new["valid_to"] is not None or old["since"] <= new["since"]:
        return None
    inferred = new["inferred"]
    # a semantic row stores its start as valid_from: the inferred occurred_at itself, unless moved since
    moved = new["valid_from"] is not None and new["valid_from"] != new["occurred_at"]
    if moved or not isinstance(inferred, dict) or new["occurred_at"] is None:
        return None
    draft = MemoryDraft.model_construct(
        content=new["content"],
        metadata={INFERRED_KEY: inferred},
        occurred_at=new["occurred_at"],
        occurred_precision=new["occurred_precision"],
        valid_from=None,
        valid_to=None,
        session_at=None,
    )
    return held_from_words(draft, new["since"], [old["since"]])


async def settle(
    conn: AsyncConnection, tenant_id: str, agent_id: str, conflict: OpenConflict, contradiction: bool
) -> str:
    """The judge's answer applied in the caller's transaction (see ``MemoryWriter.settle_conflict``): a
    contradiction is ordered in valid time by the source rules (``order_contradiction``), the new fact's
    start being when its words were said when it is a date read from them that may not make it a past
    value of the old one (``said_instead``; its row's ``valid_from`` is moved there)."""
    rows = await fetch_all(conn, SETTLED_ROWS, ([conflict.new_id, conflict.old_id], tenant_id, agent_id))
    status = {r["id"]: r for r in rows}
    if any(status.get(i, {}).get("status") != "active" for i in (conflict.new_id, conflict.old_id)):
        return "gone"
    link = await fetch_one(
        conn,
        """SELECT reason FROM memory_relations WHERE tenant_id = %s AND from_id = %s AND to_id = %s
           AND kind = 'contradicts'""",
        (tenant_id, conflict.new_id, conflict.old_id),
    )
    if link is None:
        return "gone"
    if not contradiction:
        await conn.execute(
            """DELETE FROM memory_relations WHERE tenant_id = %s AND from_id = %s AND to_id = %s
               AND kind = 'contradicts'""",
            (tenant_id, conflict.new_id, conflict.old_id),
        )
        return "unlinked"
    await _relate(conn, tenant_id, conflict.new_id, conflict.old_id, "contradicts", "contradiction (judge)")
    new, old = status[conflict.new_id], status[conflict.old_id]
    new_source: Source = new["source"]
    said = said_instead(new, old)
    if said is not None:  # its start is a date read from its words that may not make it a past value
        redate = "UPDATE memories SET valid_from = %s WHERE tenant_id = %s AND id = %s"
        await conn.execute(redate, (said, tenant_id, conflict.new_id))
        new = {**new, "since": said}
    order = order_contradiction(new_source, new["since"], old["source"], old["since"])
    if order == "keep_both":
        return "kept_both"
    if order == "superseded":  # the new fact began to hold before the old one: a past value of it
        why = f"{LATER_FACT}: contradiction (judge)"
        await supersede(conn, tenant_id, conflict.old_id, conflict.new_id, old["since"], why)
        return "superseded"
    why = "newer fact that contradicts it: contradiction (judge)"
    await supersede(conn, tenant_id, conflict.new_id, conflict.old_id, new["since"], why)
    return "superseded"
