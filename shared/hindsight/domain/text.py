"""Text helpers shared by the write and read paths."""

from __future__ import annotations

import re

from hindsight.domain.memory import MemoryDraft

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_KEYWORD_TERMS = 64


def passage_text(draft: MemoryDraft) -> str:
    """What gets embedded for a memory: its content, then its recall hint when it has one."""
    if draft.query:
        return f"{draft.content}\n{draft.query}"
    return draft.content


def keyword_terms(text: str) -> list[str]:
    """Distinct word tokens of a search text, in order, capped at MAX_KEYWORD_TERMS.

    Letters and digits only, so the terms are safe to join into a tsquery without escaping.
    """
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        term = match.group(0)
        if term and term not in seen:
            seen[term] = None
            if len(seen) >= MAX_KEYWORD_TERMS:
                break
    return list(seen)


def or_tsquery(text: str) -> str | None:
    """A to_tsquery() expression matching any of the text's words ('a | b | c'), or None if it has none."""
    terms = keyword_terms(text)
    return " | ".join(terms) if terms else None
