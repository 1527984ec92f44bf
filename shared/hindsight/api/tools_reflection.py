"""task_reflect: hand a finished task to the reflection worker, which stores one episodic record."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.api.tool_hints import change
from hindsight.domain.isotime import StartTime
from hindsight.domain.limits import AgentId
from hindsight.domain.memory import Outcome
from hindsight.domain.reflection import (
    MAX_TASK_STEPS,
    EpisodeEntities,
    ErrorText,
    Goal,
    Step,
    TaskId,
    TaskReport,
)
from hindsight.usecases.reflect import ReflectionAck


def register_reflection_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add task_reflect to ``mcp``."""

    @mcp.tool(
        name="task_reflect",
        description=(
            "Call this when a top-level task ends — success, failure, timeout or exception alike (from "
            "your 'finally'). Give the goal, the steps you took, how it ended and any error; Hindsight "
            "turns it into one episodic memory (task type, outcome, up to three key decisions, one "
            "lesson, entities) that memory_search will surface next time a similar task comes up, "
            "flagged if it failed. Returns at once with the memory id (status 'queued'); reporting the "
            "same task_id again with the same report is a replay (replayed: true), with another report it "
            "is refused: a new attempt needs its own task_id."
        ),
        **change("Record how a task ended", idempotent=True),
    )
    async def task_reflect(
        task_id: TaskId,
        goal: Goal,
        outcome: Annotated[
            Outcome,
            Field(description="success | partial | failure | aborted (timeouts and exceptions are failure)."),
        ],
        steps: Annotated[
            list[Step] | None, Field(max_length=MAX_TASK_STEPS, description="What you did, in order.")
        ] = None,
        error: ErrorText | None = None,
        entities: EpisodeEntities | None = None,
        occurred_at: Annotated[
            StartTime | None, Field(description="When the task ended (ISO 8601; numbers are refused).")
        ] = None,
        agent_id: AgentId | None = None,
    ) -> ReflectionAck:
        report = TaskReport(
            task_id=task_id,
            goal=goal,
            steps=steps or [],
            outcome=outcome,
            error=error,
            entities=entities or {},
            occurred_at=occurred_at,
        )
        submit = holder.get().submit_reflection
        if submit is None:
            raise RuntimeError("no reflection queue configured in this process")
        return await submit(current_principal(), agent_id, report)
