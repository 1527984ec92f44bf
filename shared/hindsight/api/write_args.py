"""The arguments of ``memory_write``, declared once: the tool's signature and the item model of
``memory_write_batch`` are both made from ``_declaration``, so a batch item is validated exactly like a
single write (same types, limits, defaults and descriptions) and the two cannot drift apart.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Mapping
from typing import Annotated, Any
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, create_model

from hindsight.api.errors import ArgumentErrors, validation_error
from hindsight.domain.isotime import LocalTimestamp, TimeInput
from hindsight.domain.limits import (
    DEFAULT_IMPORTANCE,
    MAX_KEY_DECISIONS,
    AgentId,
    ChainSessionId,
    Content,
    ContextText,
    ConversationId,
    IdempotencyKey,
    Importance,
    Metadata,
    NewEntities,
    NewMemoryKey,
    RecallHint,
    SessionIndex,
    SharedWith,
    ShortText,
    Tags,
    TurnIndex,
)
from hindsight.domain.memory import Layer, MemoryDraft, Outcome, Source, TaskType


def _declaration(
    content: Content,
    layer: Annotated[
        Layer,
        Field(
            description="'semantic' for facts and preferences (what is true), "
            "'episodic' for events (what happened, when)."
        ),
    ] = "semantic",
    key: NewMemoryKey | None = None,
    query: RecallHint | None = None,
    importance: Importance = DEFAULT_IMPORTANCE,
    source: Annotated[
        Source,
        Field(
            description="'user_stated' (the user said so) or 'agent_inferred' "
            "(your conclusion; ranked lower, labelled)."
        ),
    ] = "user_stated",
    entities: NewEntities | None = None,
    tags: Tags | None = None,
    metadata: Metadata | None = None,
    occurred_at: Annotated[
        TimeInput | None,
        Field(
            description="When it happened, ISO 8601: '2026-11-24T10:30:00Z', or a partial date "
            "('2026-11-24', '2026-W47', '2026-11', '2026') when that is all you know. Numbers are "
            "refused."
        ),
    ] = None,
    causal_parent: Annotated[
        UUID | None, Field(description="The memory (event) that led to this one.")
    ] = None,
    task_id: ShortText | None = None,
    task_type: TaskType | None = None,
    outcome: Annotated[Outcome | None, Field(description="For task records: how it ended.")] = None,
    key_decisions: Annotated[list[ShortText] | None, Field(max_length=MAX_KEY_DECISIONS)] = None,
    lessons: ShortText | None = None,
    idempotency_key: IdempotencyKey | None = None,
    filter: Annotated[
        StrictBool,
        Field(
            description="Store only if it is worth remembering (preference, entity, "
            "state change, correction, task end): for raw conversation "
            "turns. memory_status then says 'skipped' when not."
        ),
    ] = False,
    shared_with: SharedWith | None = None,
    context: ContextText | None = None,
    conversation_id: ConversationId | None = None,
    turn_index: TurnIndex | None = None,
    session_index: SessionIndex | None = None,
    session_at: Annotated[
        LocalTimestamp | None,
        Field(
            description="When the turn's session started (ISO 8601); the turn happened then unless "
            "occurred_at says otherwise. Needs conversation_id."
        ),
    ] = None,
    session_id: ChainSessionId | None = None,
    chain: Annotated[
        StrictBool,
        Field(
            description="With session_id, on an episodic write: false keeps this write out of the session's "
            "chain (no default causal_parent, and the next event does not follow it)."
        ),
    ] = True,
) -> None:
    """Never called: its signature is the declaration of memory_write's arguments (without agent_id)."""


WRITE_PARAMETERS: tuple[inspect.Parameter, ...] = tuple(
    inspect.signature(_declaration, eval_str=True).parameters.values()
)
"""memory_write's arguments but ``agent_id``, as keyword parameters with their annotated types."""

AGENT_PARAMETER = inspect.Parameter(
    "agent_id", inspect.Parameter.KEYWORD_ONLY, annotation=AgentId | None, default=None
)


def write_signature(return_annotation: Any) -> inspect.Signature:
    """The signature of the ``memory_write`` tool: every write argument, then ``agent_id``."""
    params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in WRITE_PARAMETERS]
    return inspect.Signature([*params, AGENT_PARAMETER], return_annotation=return_annotation)


class _ItemBase(BaseModel):
    """Validated like the tool's own arguments (the MCP SDK's argument model), and unknown fields are
    refused (a misspelt field must not vanish silently)."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)


_FIELDS: dict[str, Any] = {
    p.name: (p.annotation, ... if p.default is inspect.Parameter.empty else p.default)
    for p in WRITE_PARAMETERS
}
WriteItem: type[BaseModel] = create_model(
    "WriteItem",
    __base__=_ItemBase,
    __doc__="One write of memory_write_batch: the arguments of memory_write but agent_id.",
    **_FIELDS,
)


def item_refusal(exc: ValidationError) -> ValidationError | ArgumentErrors:
    """What to answer for a ``WriteItem`` that ``exc`` refuses: ``exc`` itself, unless it refuses a field
    the item does not take; then its errors (a type error worded with the field's bounds, from
    ``item_schema``), each such field told so as ``memory_write`` tells an argument it does not take
    (``agent_id`` is the batch call's own argument: one agent per batch)."""
    errors = validation_error(exc, schema=item_schema())["errors"]
    if not any(e["type"] == "extra_forbidden" for e in errors):
        return exc
    for error in errors:
        if error["type"] == "extra_forbidden":
            error["type"] = "unexpected_argument"
            error["message"] = (
                "not an argument of a memory_write_batch item: agent_id is the batch call's own argument "
                "(every item is written for that agent)"
                if error["field"] == "agent_id"
                else "not an argument of a memory_write_batch item (it takes memory_write's arguments but "
                "agent_id)"
            )
    return ArgumentErrors(errors)


@functools.cache
def item_schema() -> dict[str, Any]:
    """The JSON schema of one batch item, which words an item's type errors (``api.errors.item_error``);
    built once, on the first refused item."""
    return WriteItem.model_json_schema()


def draft_of(arguments: Mapping[str, Any]) -> tuple[MemoryDraft, bool]:
    """The draft and the ``filter`` flag from validated write arguments (a WriteItem's fields or the
    tool's keyword arguments). Raises ValidationError where the draft's own rules refuse them (a turn
    position without conversation_id)."""
    values = {k: v for k, v in arguments.items() if k not in ("filter", "agent_id")}
    for name in ("entities", "tags", "metadata", "key_decisions", "shared_with"):
        if values.get(name) is None:
            values.pop(name, None)
    return MemoryDraft(**values), bool(arguments.get("filter", False))
