"""The prompt-injection labels a write stores beside a memory (migration 027, ``domain.injection``).

A read computes the detector's text from the memory as Postgres returns it, and ``jsonb`` returns an
object's keys in its own order (shorter keys first, then byte order), not in the order they were written:
the labels stored at write are computed over the same order, so that their stamp matches the text a read
builds (``domain.injection.injection_stamp``). No I/O.

The worker computes the labels of a batch's memories before its transaction opens (``labels_ahead``), and
the insert takes them for a memory whose text is the one they were computed for (``draft_params``), so
the detector does not run while the batch holds its locks (issue 15).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from hindsight.domain.injection import injection_text, stored_injection
from hindsight.domain.memory import MemoryDraft

Labelled = Mapping[str, dict[str, Any]]
"""Labels computed ahead (``labels_ahead``): the ``injection_params`` of each detector text (a memory's
``injection_text`` as a read builds it) they were computed for."""


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
    return _params(_text(content, key, query, summary, lessons, key_decisions, metadata, entities))


def draft_text(draft: MemoryDraft) -> str:
    """The detector's text of the memory ``draft`` becomes, as a read of the stored row builds it."""
    d = draft
    return _text(d.content, d.key, d.query, d.summary, d.lessons, d.key_decisions, d.metadata, d.entities)


class Labels(dict[str, dict[str, Any]]):
    """``labels_ahead``'s answer: the ``injection_params`` of each detector text, and the text each draft
    they were computed for has (``text_of``), so the insert does not build it a second time."""

    def __init__(self) -> None:
        super().__init__()
        self._texts: dict[int, tuple[MemoryDraft, str]] = {}

    def text_of(self, draft: MemoryDraft) -> str:
        """``draft_text(draft)``: kept for the very draft object labelled (a frozen model), built again for
        any other (a re-dated copy, another write). Were a draft's nested metadata changed in place since,
        its stored stamp would not be its row's text's, and a read would compute the labels instead."""
        known = self._texts.get(id(draft))
        return known[1] if known is not None and known[0] is draft else draft_text(draft)


def labels_ahead(drafts: Iterable[MemoryDraft]) -> Labels:
    """The ``injection_params`` of each of ``drafts``, keyed by its ``draft_text`` (once per text)."""
    ahead = Labels()
    for draft in drafts:
        text = draft_text(draft)
        ahead._texts[id(draft)] = (draft, text)  # the draft is held, so its id stays its own
        if text not in ahead:
            ahead[text] = _params(text)
    return ahead


def draft_params(draft: MemoryDraft, ahead: Labelled | None = None) -> dict[str, Any]:
    """``injection_params`` of ``draft``: the ones computed ahead for its very text (``labels_ahead``),
    else computed now (a text changed since, or no labels computed ahead)."""
    text = ahead.text_of(draft) if isinstance(ahead, Labels) else draft_text(draft)
    found = ahead.get(text) if ahead else None
    return dict(found) if found is not None else _params(text)


def _text(
    content: str,
    key: str | None,
    query: str | None,
    summary: str | None,
    lessons: str | None,
    key_decisions: Iterable[str],
    metadata: Mapping[str, Any] | None,
    entities: Mapping[str, Any] | None,
) -> str:
    return injection_text(
        content,
        key,
        query,
        summary,
        lessons,
        list(key_decisions),
        jsonb_ordered(metadata or {}),
        jsonb_ordered(entities or {}),
    )


def _params(text: str) -> dict[str, Any]:
    signals, stamp = stored_injection(text)
    return {"injection_signals": signals, "injection_stamp": stamp}
