"""Long-term memory tools: memory_write, memory_write_batch, memory_search, memory_status.

Each tool is thin: the annotated parameter types carry the limits, the body calls one use case and
maps its result; domain errors become isError results (``api.errors``, mapped once in ``mcp_server``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

import pydantic_core
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE
from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    SkipValidation,
    ValidationError,
    model_serializer,
)

from hindsight.api.errors import ArgumentErrors, item_error
from hindsight.api.mcp_context import ContainerHolder, current_principal
from hindsight.api.presenters import HitOut
from hindsight.api.request_body import item_unreadable
from hindsight.api.strict_args import validate_strict
from hindsight.api.tool_hints import change, read_only, recall
from hindsight.api.write_args import WriteItem, draft_of, item_refusal, item_schema, write_signature
from hindsight.domain.context_budget import (
    MAX_SEARCH_TOKENS,
    MIN_SEARCH_TOKENS,
    BudgetReport,
    CompactHit,
)
from hindsight.domain.isotime import LocalAsOfTime
from hindsight.domain.limits import (
    DEFAULT_TOP_K,
    MAX_BATCH_ITEMS,
    MAX_STATUS_IDS,
    AgentId,
    ContextWindow,
    EntityFilter,
    Fraction,
    MemoryKeyFilter,
    SearchText,
    TagFilter,
    TopK,
)
from hindsight.domain.memory import Layer, MemoryStatus, SearchHit
from hindsight.domain.timetravel import KnownAt, ValidAt
from hindsight.usecases.recall import RecallQuery
from hindsight.usecases.remember import BatchItem, ItemOutcome, WriteAck
from hindsight.usecases.write_status import WriteStatus

TimePhrase = Annotated[str, Field(min_length=1, max_length=64)]


class BatchItemResult(BaseModel):
    """One item of memory_write_batch: queued (with memory_write's answer: ``WriteAck``'s fields) or not
    (with the error)."""

    index: int = Field(description="The item's position in items (0-based).")
    status: Literal["queued", "error"]
    id: UUID | None = Field(default=None, description="The memory id, when queued.")
    submitted_at: datetime | None = None
    key: str | None = Field(default=None, description="The key as stored (lower case), for an item with one.")
    importance_capped_from: float | None = None
    redacted: list[str] | None = None
    replayed: bool | None = None
    time_not_read: str | None = None
    key_note: str | None = None
    error: dict[str, Any] | None = Field(
        default=None,
        description="Why it was not queued: the error object memory_write would have answered (kind, "
        "message, retryable, errors with fields named items.<index>.<field>).",
    )


class BatchResult(BaseModel):
    """What memory_write_batch returns: one result per item, in order, and the counts."""

    results: list[BatchItemResult]
    queued: int
    errors: int

    @classmethod
    def of(cls, outcomes: list[ItemOutcome]) -> BatchResult:
        """The tool result for the use case's outcomes."""
        results = []
        for index, outcome in enumerate(outcomes):
            if outcome.ack is not None:
                results.append(
                    BatchItemResult(
                        index=index, status="queued", **outcome.ack.model_dump(exclude={"status"})
                    )
                )
            else:
                assert outcome.error is not None
                results.append(
                    BatchItemResult(
                        index=index,
                        status="error",
                        error=item_error(outcome.error, f"items.{index}", item_schema()),
                    )
                )
        queued = sum(r.status == "queued" for r in results)
        return cls(results=results, queued=queued, errors=len(results) - queued)


class StatusResult(BaseModel):
    """What memory_status returns, one entry per id asked, in order."""

    writes: list[WriteStatus]


class SearchResult(BaseModel):
    """What memory_search returns: hits best first. With ``max_tokens``, also the hits that only fitted
    in compact form (after the whole ones, in rank order) and how the budget was used; without it those
    two keys are left out. ``note`` only when an answer without hits needs one."""

    results: list[HitOut]
    count: int = Field(description="Hits under results (whole).")
    compact: list[CompactHit] = Field(
        default_factory=list,
        description="With max_tokens: the next hits in rank order, trimmed to their first sentences, "
        "without scores.",
    )
    budget: BudgetReport | None = Field(default=None, description="With max_tokens: how the budget was used.")
    note: str | None = Field(
        default=None,
        description="Why nothing came back although something is held: the keys below the key asked.",
    )

    @classmethod
    def of(
        cls,
        whole: Sequence[SearchHit],
        compact: Sequence[CompactHit],
        budget: BudgetReport | None,
        note: str | None = None,
    ) -> SearchResult:
        """The result for the hits, the budget report and the use case's note."""
        return cls(
            results=[HitOut.of(h) for h in whole],
            count=len(whole),
            compact=list(compact),
            budget=budget,
            note=note,
        )

    @model_serializer(mode="wrap")
    def _without_unasked(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.budget is None:
            data.pop("compact", None)
            data.pop("budget", None)
        if self.note is None:
            data.pop("note", None)
        return data


def search_text(
    whole: Sequence[SearchHit],
    compact: Sequence[CompactHit],
    budget: BudgetReport | None,
    note: str | None = None,
) -> str:
    """The text content of a ``memory_search`` result, as the MCP SDK renders a structured result for
    the model (``pydantic_core.to_json(..., indent=2)``): what ``max_tokens`` is counted over."""
    result = SearchResult.of(whole, compact, budget, note)
    return pydantic_core.to_json(result, fallback=str, indent=2).decode()


MAX_BODY_MIB = DEFAULT_MAX_REQUEST_BODY_SIZE // 2**20
"""The request body limit (``api.http_guard``: the MCP SDK's 4 MiB), in MiB, for the batch tool's text."""


def register_memory_tools(mcp: MCPServer[Any], holder: ContainerHolder) -> None:
    """Add memory_write, memory_write_batch, memory_search and memory_status to ``mcp``."""

    write_tool = mcp.tool(
        name="memory_write",
        description=(
            "Save something worth remembering beyond this conversation. Call it when the user states a "
            "preference or constraint ('I prefer…', 'from now on…', 'remember that…'), when you learn a new "
            "fact about a person, project or order, when something changes state ('shipped', 'cancelled'), "
            "when the user corrects you, or when a task ends (what worked, what failed). Use layer "
            "'semantic' for facts (a key holds ONE current value: a new value on the same key supersedes "
            "the old one, so list-like facts take one key per item, e.g. 'user.allergy.peanuts'; a "
            "fact that contradicts an earlier one supersedes it even without a key; write 'also' when a fact "
            "adds to another rather than replacing it) "
            "and 'episodic' for events (set occurred_at; link cause and effect with causal_parent, or pass "
            "the same session_id on every event of a session: each then follows the session's previous "
            "one, so memory_recall_chain returns the whole path without you passing ids). Mark "
            "your own guesses source='agent_inferred'. For turns of a conversation, pass conversation_id "
            "and turn_index (and session_index / session_at): search then recalls a turn with its "
            "neighbours, and a short reply can carry the turn it answers as context. "
            "It is private to you (this agent_id) unless you "
            "list other agents of your tenant in shared_with (['*']: all). Do not store small talk. Returns "
            "at once with the memory id and status 'queued'; it is searchable within seconds."
        ),
        **change("Remember something"),
    )

    async def memory_write(**arguments: Any) -> WriteAck:
        draft, filter = draft_of(arguments)
        remember = holder.get().remember
        if remember is None:
            raise RuntimeError("no write queue configured in this process")
        return await remember(current_principal(), arguments.get("agent_id"), draft, filter=filter)

    memory_write.__signature__ = write_signature(WriteAck)  # type: ignore[attr-defined]
    write_tool(memory_write)

    @mcp.tool(
        name="memory_write_batch",
        description=(
            "Save many memories in one call: importing a conversation history, or several facts learnt "
            f"at once. Each of the 1–{MAX_BATCH_ITEMS} items takes the arguments of memory_write (but "
            "agent_id, which is the call's) and gets its own result, in order: status 'queued' with its "
            "id (then memory_status as usual), or 'error' with the error memory_write would have given "
            "(an invalid item does not stop the others; 'retryable' says whether sending it again may "
            "succeed — with its idempotency_key the retry keeps the same id). Items count one by one "
            "against your write budget. The whole call must fit in one request body of "
            f"{MAX_BODY_MIB} MiB of UTF-8 JSON, whatever the per-item limits (100 items of 32,000 non-ASCII "
            "characters do not): split a larger import into several calls; a bigger body is refused "
            "by HTTP (413) before any item is read."
        ),
        **change("Remember many things", itemwise="items"),
    )
    async def memory_write_batch(
        items: Annotated[
            list[SkipValidation[WriteItem]],  # type: ignore[valid-type]
            Field(
                min_length=1,
                max_length=MAX_BATCH_ITEMS,
                description=f"The writes (1–{MAX_BATCH_ITEMS}), each with memory_write's arguments.",
            ),
        ],
        agent_id: AgentId | None = None,
    ) -> BatchResult:
        parsed: list[BatchItem | ItemOutcome] = []
        for raw in items:
            unreadable = item_unreadable(raw)
            if unreadable is not None:  # a value of the item that could not be read (``_argument_errors``)
                parsed.append(ItemOutcome(error=ArgumentErrors(unreadable)))
                continue
            try:
                draft, filter = draft_of(dict(validate_strict(WriteItem, raw)))
            except ValidationError as exc:
                parsed.append(ItemOutcome(error=item_refusal(exc)))
                continue
            parsed.append(BatchItem(draft=draft, filter=filter))
        batch = holder.get().remember_batch
        if batch is None:
            raise RuntimeError("no write queue configured in this process")
        outcomes = await batch(current_principal(), agent_id, parsed)
        return BatchResult.of(outcomes)

    @mcp.tool(
        name="memory_search",
        description=(
            "Recall what you learned in earlier conversations. Call it at the start of a task, whenever the "
            "user refers to something from before ('as I said', 'last time', 'my order', 'again'), before "
            "asking the user for something they may already have told you, and before retrying an "
            "approach that may have failed. Combines meaning (vector), exact words (full text) and "
            "named entities; returns the best memories first with their scores and labels (failed_before, "
            "inference, possibly_stale). Filter by layer, key, tags, entities or time ('last week', "
            "'since 2026-11-01'); set include_related to get the causal chain and linked memories, and "
            "context_window to get the turns said around each hit in its conversation. Set max_tokens "
            "when your context is tight: the answer then stays within it, later hits trimmed or left out. "
            "For the past: valid_at asks what was true at a time, known_at what you knew then (e.g. the "
            "day a decision was made)."
        ),
        **recall("Search memory"),
    )
    async def memory_search(
        query: SearchText,
        top_k: TopK = DEFAULT_TOP_K,
        layer: Annotated[Layer | None, Field(description="Only this layer.")] = None,
        key: MemoryKeyFilter | None = None,
        tags: Annotated[
            TagFilter | None,
            Field(description="Only memories with all these tags (at least one; leave out for no filter)."),
        ] = None,
        entities: Annotated[
            EntityFilter | None,
            Field(
                description='Only memories whose entities include these: {"person": "Alice Nguyen"} finds '
                'a memory of {"person": "Alice Nguyen"} or of {"person": ["Alice Nguyen", "Bob Ferris"]}; a '
                "list finds those holding every value it gives (no blank value)."
            ),
        ] = None,
        time_range: Annotated[
            TimePhrase | None,
            Field(
                description="'today', 'yesterday', 'last week', "
                "'this month', 'past 3 days', '2026-11-02', '2026-11-01..2026-11-15'."
            ),
        ] = None,
        since: Annotated[
            TimePhrase | None, Field(description="Only on or after this (ISO or phrase).")
        ] = None,
        until: Annotated[TimePhrase | None, Field(description="Only before this (ISO or phrase).")] = None,
        status: Annotated[
            list[MemoryStatus] | None,
            Field(
                min_length=1,
                max_length=4,
                description="Default ['active'] (leave it out; an empty list is refused); add 'superseded' "
                "or 'archived' to see history.",
            ),
        ] = None,
        min_importance: Annotated[
            Fraction, Field(description="Only memories at least this important (0–1).")
        ] = 0.0,
        include_related: Annotated[
            bool, Field(description="Attach each hit's causal chain and linked memories.")
        ] = False,
        as_of: Annotated[
            LocalAsOfTime | None,
            Field(
                description="Answer as if asked at this time (relative phrases and recency use it); ISO "
                "8601, a partial date meaning its end ('2026-11-24': that evening)."
            ),
        ] = None,
        context_window: ContextWindow = 0,
        max_tokens: Annotated[
            int | None,
            Field(
                ge=MIN_SEARCH_TOKENS,
                le=MAX_SEARCH_TOKENS,
                description=f"Return at most this many tokens ({MIN_SEARCH_TOKENS}–{MAX_SEARCH_TOKENS}, "
                "cl100k_base, counted over the result's text): whole hits first, then the next ones in "
                "compact form (first sentences, no scores) under 'compact'; 'budget' says how many were "
                "compacted or dropped. A budget that not even the first hit fits in, compact, is refused, "
                "naming the smallest that returns it.",
            ),
        ] = None,
        valid_at: ValidAt | None = None,
        known_at: KnownAt | None = None,
        agent_id: AgentId | None = None,
    ) -> SearchResult:
        request = RecallQuery(
            text=query,
            top_k=top_k,
            layers=(layer,) if layer else ("episodic", "semantic"),
            statuses=tuple(dict.fromkeys(status)) if status is not None else ("active",),
            key=key,
            tags=tuple(tags or ()),
            entities=entities or {},
            time_range=time_range,
            since=since,
            until=until,
            min_importance=min_importance,
            include_related=include_related,
            as_of=as_of,
            context_window=context_window,
            valid_at=valid_at,
            known_at=known_at,
        )
        found = await holder.get().search(current_principal(), agent_id, request, max_tokens, search_text)
        return SearchResult.of(found.whole, found.compact, found.budget, found.note)

    @mcp.tool(
        name="memory_status",
        description=(
            "Check whether memories you wrote are stored yet. Call it after memory_write when you must be "
            "sure a memory is searchable before relying on it (e.g. before ending a session or handing off "
            "to another agent). 'pending' means still queued; 'merged' means it matched an existing memory "
            "(memory_id) and updated it instead; 'stored' may carry a reason such as 'supersedes <id>'; "
            "'deleted' means the memory was deleted since (hard forget)."
        ),
        **read_only("Check that writes are stored"),
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
        agent_id: AgentId | None = None,
    ) -> StatusResult:
        writes = await holder.get().write_status(current_principal(), ids, agent_id)
        return StatusResult(writes=writes)
