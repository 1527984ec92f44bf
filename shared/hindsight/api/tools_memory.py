"""Long-term memory tools: memory_write, memory_search, memory_status.

Each tool is thin: the annotated parameter types carry the limits, the body calls one use case and
maps its result; domain errors become JSON-RPC errors.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from hindsight.api.errors import domain_errors
from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.domain.limits import (
    DEFAULT_IMPORTANCE,
    DEFAULT_TOP_K,
    MAX_STATUS_IDS,
    AgentId,
    Content,
    Importance,
    MemoryKey,
    Metadata,
    RecallHint,
    SearchText,
    Timestamp,
    TopK,
)
from hindsight.domain.memory import Layer, MemoryDraft, SearchHit, SearchRequest
from hindsight.usecases.remember import WriteAck
from hindsight.usecases.write_status import WriteStatus


class RecalledMemory(BaseModel):
    """One search hit as the agent sees it."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    content: str
    key: str | None
    layer: Layer
    occurred_at: datetime | None
    created_at: datetime
    importance: float
    metadata: dict[str, Any]
    scores: dict[str, float | None] = Field(description="vector, keyword, rrf, relevance, importance, final")

    @classmethod
    def from_hit(cls, hit: SearchHit) -> RecalledMemory:
        m = hit.memory
        return cls(
            id=m.id,
            content=m.content,
            key=m.key,
            layer=m.layer,
            occurred_at=m.occurred_at,
            created_at=m.created_at,
            importance=m.importance,
            metadata=m.metadata,
            scores=hit.scores.model_dump(),
        )


class StatusResult(BaseModel):
    """What memory_status returns, one entry per id asked, in order."""

    writes: list[WriteStatus]


class SearchResult(BaseModel):
    """What memory_search returns: hits best first."""

    results: list[RecalledMemory]
    count: int


def register_memory_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add the long-term memory tools to ``mcp``."""

    @mcp.tool(
        name="memory_write",
        description=(
            "Save something worth remembering beyond this conversation. Call it when the user states a "
            "preference or constraint ('I prefer…', 'from now on…', 'remember that…'), when you learn a new "
            "fact about a person, project or order, when something changes state ('shipped', 'cancelled'), "
            "when the user corrects you, or when a task ends (what worked, what failed). Do not store "
            "small talk. Returns at once with the memory id and status 'queued'; it is searchable "
            "within seconds."
        ),
        annotations=ToolAnnotations(
            readOnlyHint=False, destructiveHint=False, idempotentHint=False, openWorldHint=False
        ),
    )
    async def memory_write(
        content: Content,
        layer: Annotated[
            Layer,
            Field(
                description="'semantic' for facts and preferences (what is true), "
                "'episodic' for events (what happened, when)."
            ),
        ] = "semantic",
        key: MemoryKey | None = None,
        query: RecallHint | None = None,
        importance: Importance = DEFAULT_IMPORTANCE,
        metadata: Metadata | None = None,
        occurred_at: Annotated[Timestamp | None, Field(description="When it happened (ISO 8601).")] = None,
        agent_id: AgentId | None = None,
    ) -> WriteAck:
        with domain_errors():
            draft = MemoryDraft(
                content=content,
                layer=layer,
                key=key,
                query=query,
                importance=importance,
                metadata=metadata or {},
                occurred_at=occurred_at,
            )
            remember = holder.get().remember
            if remember is None:
                raise RuntimeError("no write queue configured in this process")
            return await remember(current_principal(), agent_id, draft)

    @mcp.tool(
        name="memory_search",
        description=(
            "Recall what you learned in earlier conversations. Call it at the start of a task, whenever the "
            "user refers to something from before ('as I said', 'last time', 'my order', 'again'), before "
            "asking the user for something they may already have told you, and before retrying an "
            "approach that may have failed. Combines meaning (vector) and exact words (full text); "
            "returns the best memories first with their scores."
        ),
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )
    async def memory_search(
        query: SearchText,
        top_k: TopK = DEFAULT_TOP_K,
        key: MemoryKey | None = None,
        min_importance: Annotated[
            float, Field(ge=0.0, le=1.0, description="Only memories at least this important (0–1).")
        ] = 0.0,
        agent_id: AgentId | None = None,
    ) -> SearchResult:
        with domain_errors():
            request = SearchRequest(text=query, top_k=top_k, key=key, min_importance=min_importance)
            hits = await holder.get().recall(current_principal(), agent_id, request)
            return SearchResult(results=[RecalledMemory.from_hit(h) for h in hits], count=len(hits))

    @mcp.tool(
        name="memory_status",
        description=(
            "Check whether memories you wrote are stored yet. Call it after memory_write when you must be "
            "sure a memory is searchable before relying on it (e.g. before ending a session or handing off "
            "to another agent). 'pending' means still queued; 'merged' means it matched an existing memory "
            "(memory_id) and updated it instead."
        ),
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
    )
    async def memory_status(
        ids: Annotated[
            list[UUID],
            Field(
                min_length=1,
                max_length=MAX_STATUS_IDS,
                description=f"Ids returned by memory_write (1–{MAX_STATUS_IDS}).",
            ),
        ],
    ) -> StatusResult:
        with domain_errors():
            return StatusResult(writes=await holder.get().write_status(current_principal(), ids))
