"""memory_summarize: a short experience hint over matching memories (``usecases.summarize``)."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.api.tool_hints import read_only
from hindsight.domain.experience import DEFAULT_MAX_MEMORIES, MAX_MEMORIES, ExperienceHint
from hindsight.domain.isotime import EndTime, StartTime
from hindsight.domain.limits import AgentId, MemoryKeyFilter, SearchText
from hindsight.domain.memory import TaskType
from hindsight.usecases.summarize import SummaryRequest


def register_summary_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add memory_summarize to ``mcp``."""

    @mcp.tool(
        name="memory_summarize",
        description=(
            "Get a short experience hint before a long or risky task, instead of reading many memories: "
            "what failed before ('this approach failed before' — do not repeat it), what worked, and the "
            "current value of each fact, each line citing the memory ids it comes from ([n] is the n-th "
            "of 'ids'; memory_get shows one). Choose the memories by query (what the task is about), "
            "key, task_type and/or a time window (since, until); at least one. Every sentence comes "
            "from the cited memories; nothing is added."
        ),
        **read_only("Summarize experience"),
    )
    async def memory_summarize(
        query: Annotated[
            SearchText | None, Field(description="What the task is about (ranked like memory_search).")
        ] = None,
        key: MemoryKeyFilter | None = None,
        task_type: Annotated[
            TaskType | None,
            Field(description="Only task records of this type: query, modify, create, analyze, other."),
        ] = None,
        since: Annotated[
            StartTime | None, Field(description="Only memories of this time or later (ISO 8601).")
        ] = None,
        until: Annotated[
            EndTime | None,
            Field(description="Only memories before this (ISO 8601; a partial date includes its span)."),
        ] = None,
        max_memories: Annotated[
            int,
            Field(
                ge=1, le=MAX_MEMORIES, description=f"Draw on at most this many memories (1–{MAX_MEMORIES})."
            ),
        ] = DEFAULT_MAX_MEMORIES,
        agent_id: AgentId | None = None,
    ) -> ExperienceHint:
        request = SummaryRequest(
            query=query, key=key, task_type=task_type, since=since, until=until, max_memories=max_memories
        )
        return await holder.get().summarize(current_principal(), agent_id, request)
