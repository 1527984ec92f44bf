"""Tools that act on one memory by id: memory_get, memory_update, memory_forget, memory_link,
memory_recall_chain, memory_feedback. Another tenant's (or agent's) id is always "not found"."""

from __future__ import annotations

from typing import Annotated, Any, cast
from uuid import UUID

from mcp.server.mcpserver import MCPServer
from pydantic import MISSING, BaseModel, Field, Strict, StrictBool

from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.api.presenters import MemoryOut
from hindsight.api.tool_hints import change, read_only
from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import EndTime, StartTime, TimeInput
from hindsight.domain.limits import (
    MAX_CHAIN_DEPTH,
    AgentId,
    Content,
    Importance,
    Metadata,
    NewEntities,
    NewMemoryKey,
    Reason,
    RecallHint,
    SharedWith,
    Strength,
    Tags,
)
from hindsight.domain.memory import HistoryEntry, MemoryChanges, Relation, RelationKind
from hindsight.domain.timetravel import KnownAt, PointInTime, ValidAt
from hindsight.ports import ChainDirection
from hindsight.usecases.manage_memory import UpdateAction
from hindsight.usecases.remember import WriteAck

MemoryId = Annotated[UUID, Field(description="A memory id from memory_write or memory_search.")]
ExpectedVersion = Annotated[
    int,
    Strict(),  # "1" or true is not a version the agent read
    Field(
        ge=1,
        description="The memory's version as you read it (memory_get, memory_search). Given, the change "
        "is made only if the memory is still at that version; otherwise nothing changes and the error "
        "(kind version_conflict) shows the current version and content: merge and retry with it. Omit "
        "it to change whatever the memory holds now (the result says which version it replaced).",
    ),
]


class MemoryDetail(BaseModel):
    memory: MemoryOut
    relations: list[Relation]
    history: list[HistoryEntry]


class UpdateOut(BaseModel):
    action: UpdateAction
    memory: MemoryOut | None = Field(default=None, description="The memory after an in-place change.")
    queued: WriteAck | None = Field(default=None, description="The new memory a supersede queued.")
    replaced_version: int | None = Field(
        default=None,
        description="The version this change replaced (memory.version is the new one; equal when nothing "
        "changed). For a supersede, the superseded memory's version.",
    )
    redacted: list[str] | None = Field(
        default=None,
        description="What redaction replaced in the changes or the reason before anything was stored "
        "(e.g. ['email']), as memory_write answers: the stored text reads [REDACTED:<kind>] there.",
    )
    superseded: list[UUID] | None = Field(
        default=None,
        description="The facts this update superseded: a new key on an active semantic memory makes it "
        "the one fact on that key, as memory_write with that key would, and so does restoring a fact "
        "with a key (they keep their history).",
    )
    note: str | None = Field(
        default=None,
        description="Said when the memory after the change is a fact not valid yet (valid_from later "
        "than now): search flags it upcoming until then; and what followed from an edit of a memory a "
        "consolidation summary stands for or an inferred memory cites (taken out of the summary, summary "
        "derived again or undone; inference recounted or withdrawn).",
    )


class ForgottenAlongOut(BaseModel):
    id: UUID
    reason: str = Field(description="Why it went with the memory forgotten (which memory it derives from).")


class ForgetOut(BaseModel):
    id: UUID
    hard: bool
    status: str = Field(description="'forgotten' (soft, reversible with memory_update restore) or 'deleted'.")
    version: int | None = Field(default=None, description="The memory's version after a soft forget.")
    replaced_version: int = Field(description="The version the forget replaced (or deleted).")
    also_forgotten: list[ForgottenAlongOut] | None = Field(
        default=None,
        description="What maintenance derived from this memory and went with it, the same way (soft: "
        "forgotten, hard: deleted): a summary's archived originals, a summary or an inferred memory that "
        "quotes it. None: nothing.",
    )
    restored: list[UUID] | None = Field(
        default=None,
        description="Originals made active again: a summary that stood for them went along. None: none.",
    )
    note: str | None = Field(
        default=None,
        description="Said when the forgotten fact's key is left with no current value while an earlier "
        "value (superseded or archived) remains: which, and the memory_update 'restore' call that makes it "
        "current again. None: the key still has a current value, or it had no other.",
    )


class LinkOut(Relation):
    version: int = Field(description="The from memory's version after the link (a new link bumps it).")
    replaced_version: int = Field(description="The from memory's version before the link.")
    superseded: list[UUID] | None = Field(
        default=None,
        description="[to_id] when a 'supersedes' link retired it: it is now superseded (out of default "
        "search, its end of validity set), as a newer fact on its key would make it.",
    )


class ChainStep(BaseModel):
    step: int = Field(description="< 0: a cause, 0: the memory asked about, > 0: an effect.")
    memory: MemoryOut


class ChainOut(BaseModel):
    chain: list[ChainStep]
    count: int


class FeedbackOut(BaseModel):
    id: UUID
    importance: float


def register_memory_admin_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add the by-id tools to ``mcp``."""

    @mcp.tool(
        name="memory_get",
        description="Read one memory in full — its relations and its history of changes — when a search hit "
        "needs a closer look, or before updating or linking it.",
        **read_only("Get a memory with its relations and history"),
    )
    async def memory_get(
        id: MemoryId,
        include_history: bool = True,
        valid_at: ValidAt | None = None,
        known_at: KnownAt | None = None,
        agent_id: AgentId | None = None,
    ) -> MemoryDetail:
        point = PointInTime(valid_at=valid_at, known_at=known_at)
        view = await holder.get().manage.get(current_principal(), agent_id, id, include_history, point)
        return MemoryDetail(memory=MemoryOut.of(view.memory), relations=view.relations, history=view.history)

    @mcp.tool(
        name="memory_update",
        description=(
            "Change a memory when the user corrects it or it is out of date. action='update' edits it in "
            "place (history kept; verified=true confirms it is still true); 'supersede' records a new fact "
            "that replaces it (the old one stays as history, status superseded); 'archive' moves it out of "
            "default search; 'restore' brings an archived, forgotten or superseded memory back (a fact "
            "with a key becomes the fact on its key again: the one there now is superseded). Give a "
            "reason. With "
            "action='update', shared_with=[agent ids] or ['*'] lets other agents of your tenant read it "
            "([] makes it private again). Only the agent that wrote a memory can change it. When other "
            "agents may change it too, pass expected_version (the version you read): a change made "
            "meanwhile is then reported instead of overwritten."
        ),
        **change("Correct or update a memory"),
    )
    async def memory_update(
        id: MemoryId,
        action: Annotated[UpdateAction, Field(description="update | supersede | archive | restore")],
        reason: Reason | None = None,
        content: Content | None = None,
        key: NewMemoryKey | None = None,
        query: RecallHint | None = None,
        importance: Importance | None = None,
        tags: Tags | None = None,
        entities: NewEntities | None = None,
        metadata: Metadata | None = None,
        valid_from: Annotated[
            StartTime | None,
            Field(
                description="When the fact became true (ISO 8601; a partial date means its start). It "
                "cannot be cleared (null is refused); leave it out to keep it."
            ),
        ] = MISSING,  # type: ignore[assignment]  # absent (keep); null is refused, not ignored
        valid_to: Annotated[
            EndTime | None,
            Field(
                description="When it stopped being true (ISO 8601, exclusive; a partial date includes the "
                "whole span: '2026-03' means until the end of March). null reopens the fact (removes "
                "the valid_to it has); leave it out to keep it."
            ),
        ] = MISSING,  # type: ignore[assignment]  # absent (keep) is not null (clear)
        verified: StrictBool = False,
        shared_with: SharedWith | None = None,
        occurred_at: Annotated[
            TimeInput | None,
            Field(
                description="When it happened, as memory_write takes it: ISO 8601 ('2026-11-24T10:30:00Z', "
                "or a partial date '2026-11-24', '2026-W47', '2026-11', '2026'). It cannot be cleared "
                "(null is refused); leave it out to keep it (a new content re-dates a time that was "
                "inferred from the old words)."
            ),
        ] = MISSING,  # type: ignore[assignment]  # absent (keep); null is refused, not ignored
        expected_version: ExpectedVersion | None = None,
        agent_id: AgentId | None = None,
    ) -> UpdateOut:
        if valid_from is None:  # explicit null: there is no "no start" to set, and ignoring it would lie
            raise InvalidInput(
                "valid_from",
                "valid_from cannot be cleared: a fact holds from when it happened or was written; give a "
                "time, or leave valid_from out to keep it",
            )
        if occurred_at is None:  # explicit null: ignoring it would lie
            raise InvalidInput(
                "occurred_at",
                "occurred_at cannot be cleared: give a time, or leave occurred_at out to keep it",
            )
        changes = MemoryChanges(
            content=content,
            key=key,
            query=query,
            importance=importance,
            tags=tags,
            entities=entities,
            metadata=metadata,
            valid_from=None if cast(object, valid_from) is MISSING else valid_from,  # left out: kept
            valid_to=None if cast(object, valid_to) is MISSING else valid_to,  # left out: kept
            clear_valid_to=valid_to is None,
            verified=verified,
            shared_with=shared_with,
            occurred_at=None if cast(object, occurred_at) is MISSING else occurred_at,  # left out: kept
        )
        result = await holder.get().manage.update(
            current_principal(), agent_id, id, action, changes, reason, expected_version
        )
        return UpdateOut(
            action=result.action,
            memory=MemoryOut.of(result.memory) if result.memory else None,
            queued=result.queued,
            replaced_version=result.replaced_version,
            redacted=result.redacted,
            superseded=result.superseded,
            note=result.note,
        )

    @mcp.tool(
        name="memory_forget",
        description=(
            "Forget a memory when the user asks you to, or it is wrong and must not be recalled again. Soft "
            "by default (out of search, reversible); hard=true deletes it with its links and history for "
            "good — only when the user explicitly asks for deletion. What maintenance derived from it (a "
            "summary's originals, a summary or inference quoting it) goes with it, listed in also_forgotten."
        ),
        **change("Forget a memory", destructive=True, idempotent=True),
    )
    async def memory_forget(
        id: MemoryId,
        reason: Reason | None = None,
        hard: StrictBool = False,
        expected_version: ExpectedVersion | None = None,
        agent_id: AgentId | None = None,
    ) -> ForgetOut:
        result = await holder.get().manage.forget(
            current_principal(), agent_id, id, hard, reason, expected_version
        )
        memory = result.memory
        return ForgetOut(
            id=id,
            hard=hard,
            status="deleted" if memory is None else memory.status,
            version=None if memory is None else memory.version,
            replaced_version=result.replaced_version,
            also_forgotten=[ForgottenAlongOut(id=a.id, reason=a.reason) for a in result.along] or None,
            restored=result.restored or None,
            note=result.note,
        )

    @mcp.tool(
        name="memory_link",
        description=(
            "Connect two memories: 'caused_by' (this happened because of that), 'part_of', 'related', "
            "'contradicts', 'supersedes' (to_id is replaced by from_id: an active to_id becomes superseded). "
            "Link an outcome to the decision that led to it so the whole path can be recalled later with "
            "memory_recall_chain."
        ),
        **change("Link two memories", idempotent=True),
    )
    async def memory_link(
        from_id: MemoryId,
        to_id: MemoryId,
        kind: RelationKind,
        strength: Strength = 1.0,
        reason: Reason | None = None,
        expected_version: Annotated[
            ExpectedVersion | None,
            Field(description="from_id's version as you read it; a new link is a change of from_id."),
        ] = None,
        agent_id: AgentId | None = None,
    ) -> LinkOut:
        result = await holder.get().manage.link(
            current_principal(), agent_id, from_id, to_id, kind, strength, reason, expected_version
        )
        return LinkOut(
            **result.relation.model_dump(),
            version=result.version,
            replaced_version=result.replaced_version,
            superseded=result.superseded,
        )

    @mcp.tool(
        name="memory_recall_chain",
        description=(
            "Recall the whole decision path around a memory — what caused it and what it led to — instead of "
            "a fragment. Call it when a search hit is an error or an outcome and you need to know what was "
            "tried before and what finally worked (e.g. 429 → wait 30 s → retry succeeded)."
        ),
        **read_only("Recall a causal chain"),
    )
    async def memory_recall_chain(
        id: MemoryId,
        depth: Annotated[int, Field(ge=1, le=MAX_CHAIN_DEPTH, description="Hops to follow each way.")] = 5,
        direction: Annotated[ChainDirection, Field(description="causes, effects or both")] = "both",
        valid_at: ValidAt | None = None,
        known_at: KnownAt | None = None,
        agent_id: AgentId | None = None,
    ) -> ChainOut:
        point = PointInTime(valid_at=valid_at, known_at=known_at)
        links = await holder.get().manage.chain(current_principal(), agent_id, id, depth, direction, point)
        return ChainOut(
            chain=[ChainStep(step=link.step, memory=MemoryOut.of(link.memory)) for link in links],
            count=len(links),
        )

    @mcp.tool(
        name="memory_feedback",
        description=(
            "Tell memory whether a recalled memory helped: useful=true raises its importance (+0.1), "
            "useful=false lowers it (−0.05). Call it after you used (or ignored) search results, so good "
            "memories surface first next time."
        ),
        **change("Rate a recalled memory"),
    )
    async def memory_feedback(
        id: MemoryId, useful: StrictBool, reason: Reason | None = None, agent_id: AgentId | None = None
    ) -> FeedbackOut:
        memory = await holder.get().manage.feedback(current_principal(), agent_id, id, useful, reason)
        return FeedbackOut(id=memory.id, importance=round(memory.importance, 4))
