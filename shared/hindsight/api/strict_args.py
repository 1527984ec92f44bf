"""Tool arguments are read strictly, as the JSON types they are: a value we cannot interpret is refused,
never guessed.

The MCP SDK validates a call's arguments against a pydantic model of the tool's signature in lax Python
mode, where ``true`` is the integer 1, ``"5"`` is 5, ``5.0`` is 5 and ``"true"`` is True: a model that
sends ``top_k: true`` would get one hit and never learn why. Here every tool's arguments (and every item
of ``memory_write_batch``) are validated by the same model in pydantic's *strict JSON* mode instead,
which is exactly the JSON wire's types:

- an integer field takes a JSON integer only: not a boolean, not a string, not a float — ``5.0`` is
  refused too (JavaScript never sends it, a Python client sends it only for a float it computed, and
  ``5.5`` next to it would have to be refused anyway);
- a number field takes a JSON integer or float, not a boolean or a string;
- a boolean field takes ``true``/``false`` only;
- strings stay strings, and the types a JSON string carries (UUIDs, ISO 8601 times through
  ``domain.isotime``, enums) are read from their strings as before.

A refusal is the SDK's ``ValidationError`` naming the field and the type (``int_type``: "Input should be
a valid integer"), mapped to an ``isError`` result like every argument error (``api.errors``). The
tools' JSON schemas are unchanged: they already say ``integer``/``number``/``boolean``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from pydantic import BaseModel

ModelT = TypeVar("ModelT", bound=BaseModel)
_CHECKED: ContextVar[tuple[FuncMetadata, dict[str, Any], dict[str, Any]] | None] = ContextVar(
    "hindsight_checked_arguments", default=None
)
"""(metadata, the arguments object, its validated keyword arguments) while ``validated_once`` holds."""


def validate_strict(model: type[ModelT], arguments: Any) -> ModelT:
    """``arguments`` (values decoded from JSON) validated by ``model`` as strict JSON. Raises
    pydantic's ValidationError naming each refused field. (An in-process caller's UUID or datetime is
    written as its string, as a client would send it.)"""
    return model.model_validate_json(json.dumps(arguments, ensure_ascii=False, default=str), strict=True)


class StrictArguments(FuncMetadata):
    """The SDK's argument metadata of one tool, validating in strict JSON mode (``validate_strict``).
    The SDK's pre-parse of JSON-in-a-string lists and objects (clients that send ``tags: '["a"]'``) is
    kept: that is a known client quirk, not a guess about a scalar."""

    @classmethod
    def of(cls, metadata: FuncMetadata) -> StrictArguments:
        """The strict twin of a tool's ``fn_metadata`` (same argument model and output schema)."""
        if isinstance(metadata, cls):
            return metadata
        return cls(
            arg_model=metadata.arg_model,
            output_schema=metadata.output_schema,
            output_model=metadata.output_model,
            wrap_output=metadata.wrap_output,
        )

    def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
        """The tool's keyword arguments (those ``validated_once`` holds for this very object, else
        validated now). Raises ValidationError."""
        held = _CHECKED.get()
        if held is not None and held[0] is self and held[1] is arguments_to_validate:
            return held[2]
        parsed = validate_strict(self.arg_model, self.pre_parse_json(arguments_to_validate))
        return parsed.model_dump_one_level()


@contextmanager
def validated_once(
    metadata: FuncMetadata, arguments: dict[str, Any], validated: dict[str, Any] | None
) -> Iterator[None]:
    """While the block runs, ``metadata.validate_arguments(arguments)`` — the SDK's, when it runs the
    tool — answers ``validated`` (what the same call gave moments before, in ``mcp_server``'s check of
    the call's arguments) instead of validating the same object again: the second strict validation of
    the same arguments was ~6 % of a memory_write's server CPU (bench/ab_write_ack.py). Only for that
    object (identity, not equality: the context variable keeps it alive, so no later dict can be taken
    for it) and that tool's metadata; with ``validated`` None nothing is held."""
    if validated is None:
        yield
        return
    token = _CHECKED.set((metadata, arguments, validated))
    try:
        yield
    finally:
        _CHECKED.reset(token)
