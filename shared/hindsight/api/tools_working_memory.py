"""Working-memory tools: working_memory_set, working_memory_get, working_memory_clear,
working_memory_promote.

The session's scratchpad in Redis (spec, "Memory model"): bounded by a token budget, expiring with the
session, least retained non-core items evicted first. Each tool is thin: the annotated parameter types
carry the limits, the body calls one use case; domain errors become isError results (``api.errors``).
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field, Strict, StrictBool

from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.api.tool_hints import change, recall
from hindsight.domain.limits import DEFAULT_IMPORTANCE, AgentId, Importance, NewMemoryKey
from hindsight.domain.working_memory import SessionId, WorkingMemoryContent, WorkingMemoryKey
from hindsight.usecases.working_memory import (
    ClearResult,
    PromoteResult,
    SessionView,
    SetResult,
    WorkingMemory,
)


def _working_memory(holder: ContainerHolder) -> WorkingMemory:
    working_memory = holder.get().working_memory
    if working_memory is None:
        raise RuntimeError("working memory is not configured in this process")
    return working_memory


def register_working_memory_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add the working-memory tools to ``mcp``."""

    @mcp.tool(
        name="working_memory_set",
        description=(
            "Keep something at hand for the rest of this session: the current goal or plan, the user's "
            "constraints for this task, intermediate results, the ids and names you are working with. "
            "Call it when you will need the information again in this session but it is not (yet) worth "
            "remembering for ever; for that use memory_write, or working_memory_promote later. Setting an "
            "existing key replaces it (item.version counts the sets; pass expected_version when several "
            "clients act as this agent in the session). A session is one agent's: another agent_id with "
            "the same session_id has a session of its own and does not see these items; hand over what "
            "another agent needs with memory_write shared_with. The session has a token budget: when "
            "it is full the least important, least recently used items are evicted (returned in "
            "'evicted'); items marked core=true are never evicted. The session expires after a period "
            "without writes."
        ),
        **change("Keep in working memory"),
    )
    async def working_memory_set(
        session_id: SessionId,
        key: WorkingMemoryKey,
        content: WorkingMemoryContent,
        importance: Annotated[
            Importance | None,
            Field(
                description="How much this matters, 0–1: raise it for explicit preferences, emotions and "
                "named entities (people, orders, projects). Less important items are evicted first. "
                f"Default: the item's current importance, {DEFAULT_IMPORTANCE} for a new key."
            ),
        ] = None,
        core: Annotated[
            StrictBool | None,
            Field(
                description="True for what must never be evicted while the session lasts (e.g. a safety "
                "constraint such as an allergy). Core items count against the budget. Default: the "
                "item's current flag (false for a new key)."
            ),
        ] = None,
        expected_version: Annotated[
            int | None,
            Strict(),  # "1" or true is not a version the agent read
            Field(
                ge=0,
                description="The item's version as you read it (working_memory_get, or the last set's "
                "item.version); 0 means 'only if the key is not set'. Given, the item is replaced only "
                "if it is still at that version; otherwise nothing changes and the error (kind "
                "version_conflict) shows the current item: merge and retry with its version. Use it when "
                "several clients act as the same agent in the session (a session is per agent).",
            ),
        ] = None,
        agent_id: AgentId | None = None,
    ) -> SetResult:
        return await _working_memory(holder).set(
            current_principal(), agent_id, session_id, key, content, importance, core, expected_version
        )

    @mcp.tool(
        name="working_memory_get",
        description=(
            "Read this session's working memory. Call it at the start of each turn of a multi-step task, "
            "after a context reset or a hand-off to a client acting as the same agent (a session is per "
            "agent: another agent_id sees its own session, empty unless it set items), and before "
            "asking the user again for something they told you earlier in this session. Without key it "
            "returns every item (core first, then most important); with key, that one item (an empty "
            "list if it expired or was evicted). Reading an item counts as using it, which protects it "
            "from eviction."
        ),
        **recall("Read working memory"),
    )
    async def working_memory_get(
        session_id: SessionId,
        key: Annotated[
            WorkingMemoryKey | None, Field(description="One item's key; omit it to get the whole session.")
        ] = None,
        agent_id: AgentId | None = None,
    ) -> SessionView:
        return await _working_memory(holder).get(current_principal(), agent_id, session_id, key)

    @mcp.tool(
        name="working_memory_clear",
        description=(
            "Delete from this session's working memory. Call it with key when an item is finished or "
            "wrong (a completed sub-task, an outdated plan), and without key when the session's task is "
            "done and its scratchpad should go (core items too). Promote anything worth keeping first "
            "(working_memory_promote). Cannot be undone."
        ),
        **change("Clear working memory", destructive=True, idempotent=True),
    )
    async def working_memory_clear(
        session_id: SessionId,
        key: Annotated[
            WorkingMemoryKey | None, Field(description="One item's key; omit it to clear the whole session.")
        ] = None,
        agent_id: AgentId | None = None,
    ) -> ClearResult:
        return await _working_memory(holder).clear(current_principal(), agent_id, session_id, key)

    @mcp.tool(
        name="working_memory_promote",
        description=(
            "Move a working-memory item into long-term memory so it is remembered in later conversations. "
            "Call it when something noted for this session turns out to matter beyond it: a preference "
            "the user confirmed, a fact about a person, project or order, the outcome of the task. The "
            "item becomes a semantic memory (same content and importance) found by memory_search within "
            "seconds; keep=false also removes it from the session. The memory has no key unless you give "
            "memory_key (the item's key names it within this session only): with one, as with "
            "memory_write, it supersedes an older fact on the same key."
        ),
        **change("Promote to long-term memory"),
    )
    async def working_memory_promote(
        session_id: SessionId,
        key: WorkingMemoryKey,
        keep: Annotated[
            StrictBool, Field(description="Keep the item in working memory too (default) or remove it.")
        ] = True,
        memory_key: Annotated[
            NewMemoryKey | None,
            Field(
                description="The long-term memory's key, as memory_write's key (a stable topic such as "
                "'user.diet'; a newer fact on it supersedes this one); none by default."
            ),
        ] = None,
        agent_id: AgentId | None = None,
    ) -> PromoteResult:
        return await _working_memory(holder).promote(
            current_principal(), agent_id, session_id, key, keep, memory_key
        )
