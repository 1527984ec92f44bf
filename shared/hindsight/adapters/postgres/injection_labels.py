"""The prompt-injection labels a write stores beside a memory (migration 027, ``domain.injection``).

A read computes the detector's text from the memory as Postgres returns it, and ``jsonb`` returns an
object's keys in its own order (shorter keys first, then byte order), not in the order they were written:
the labels stored at write are computed over the same order, so that their stamp matches the text a read
builds (``domain.injection.injection_stamp``). No I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hindsight.domain.injection import injection_text, stored_injection


def jsonb_ordered(value: Any) -> Any:
    """``value`` with every object's keys in the order ``jsonb`` keeps them (by UTF-8 length, then by
    bytes; a later duplicate cannot occur in a dict); lists and scalars as they are."""
    if isinstance(value, Mapping):
        keys = sorted(
            value,
            key=lambda k: (
                len(str(k).encode("utf-8", "surrogatepass")),
                str(k).encode("utf-8", "surrogatepass"),
            ),
        )
        return {k: jsonb_ordered(value[k]) for k in keys}
    if isinstance(value, list | tuple):
        return [jsonb_ordered(v) for v in value]
    return value


def injection_params(
    content: str,
    key: str | None,
    query: str | None,
    summary: str | None,
    lessons: str | None,
    key_decisions: Iterable[str],
    metadata: Mapping[str, Any] | None,
    entities: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The ``injection_signals`` and ``injection_stamp`` parameters of a memory with these fields, as a
    read of the stored row will see them (``jsonb_ordered``)."""
    text = injection_text(
        content,
        key,
        query,
        summary,
        lessons,
        list(key_decisions),
        jsonb_ordered(metadata or {}),
        jsonb_ordered(entities or {}),
    )
    signals, stamp = stored_injection(text)
    return {"injection_signals": signals, "injection_stamp": stamp}
