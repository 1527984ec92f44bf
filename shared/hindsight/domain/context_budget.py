"""Fitting recalled memories into a context budget (``memory_search`` ``max_tokens``).

The seeds list "context overflow from too many recalled items" as a pitfall. A caller that names a budget
gets at most that many tokens of results: whole hits first, in rank order, while they fit; then the
following hits in a compact form (the memory's first sentences, no scores, relations or surrounding
turns) while those fit; the rest are dropped and counted. Hits are never reordered, so what is returned
is always a prefix of the ranking: whole, then compact, then nothing.

Tokens are counted by the caller with the ``TokenCounter`` working memory uses (cl100k_base), over the
text a model reads; this module only plans with the counts and trims text at sentence boundaries.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.memory import Layer, MemoryStatus, Outcome, SearchHit, Source

MIN_SEARCH_TOKENS = 100
"""The smallest ``max_tokens`` a search takes: room for the result's envelope and one compact hit."""
MAX_SEARCH_TOKENS = 200_000
"""The largest ``max_tokens`` a search takes (a whole context window of today's large models)."""
COMPACT_CHARS = 280
"""A compact hit keeps the leading whole sentences of its content within this many characters."""

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+|(?<=[。！？])|\n+")


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in order, each stripped, none empty: a sentence ends at ``.``, ``!`` or
    ``?`` followed by white space (after closing quotes or brackets), at ``。！？`` and at a line break.
    Joining them with single spaces gives ``text`` up to white space."""
    parts: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end()
        piece = text[start:end].strip()
        if piece:
            parts.append(piece)
        start = end
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def leading_sentences(text: str, max_chars: int) -> tuple[str, bool]:
    """The longest run of ``text``'s leading whole sentences within ``max_chars`` characters, and whether
    anything was left out. A first sentence longer than ``max_chars`` is cut at the last word boundary
    inside it and ends with "…" (so the result is at most ``max_chars`` characters either way)."""
    sentences = split_sentences(text)
    kept: list[str] = []
    length = 0
    for sentence in sentences:
        extra = len(sentence) + (1 if kept else 0)
        if length + extra > max_chars:
            break
        kept.append(sentence)
        length += extra
    if kept:
        return " ".join(kept), len(kept) < len(sentences)
    if not sentences:
        return "", False
    first = sentences[0][: max(max_chars - 1, 1)]
    space = first.rfind(" ")
    cut = first[:space] if space > 0 else first
    return cut.rstrip(" ,;:") + "…", True


class CompactHit(BaseModel):
    """A hit in its compact form: what the memory says, in its first sentences, and its labels; no
    scores, relations, notes or surrounding turns."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    layer: Layer
    key: str | None = None
    content: str = Field(description="The memory's leading sentences (all of it when short).")
    trimmed: bool = Field(description="True when sentences of the content were left out.")
    status: MemoryStatus
    source: Source
    outcome: Outcome | None = None
    occurred_at: datetime | None = None
    flags: list[str] = Field(default_factory=list, description="The hit's flags, as in a whole hit.")

    @classmethod
    def of(cls, hit: SearchHit, max_chars: int = COMPACT_CHARS) -> CompactHit:
        """The compact form of ``hit``, its content cut to ``max_chars`` at a sentence boundary."""
        content, trimmed = leading_sentences(hit.memory.content, max_chars)
        return cls(
            id=hit.memory.id,
            layer=hit.memory.layer,
            key=hit.memory.key,
            content=content,
            trimmed=trimmed,
            status=hit.memory.status,
            source=hit.memory.source,
            outcome=hit.memory.outcome,
            occurred_at=hit.memory.occurred_at,
            flags=list(hit.flags),
        )


class BudgetReport(BaseModel):
    """How a search fitted its budget: tokens counted over the result's text (cl100k_base), and how many
    hits came whole, compact or not at all."""

    model_config = ConfigDict(frozen=True)

    max_tokens: int
    tokens: int = Field(description="Tokens of the whole result as returned (its text), ≤ max_tokens.")
    truncated: bool = Field(description="True when any hit was compacted or dropped to fit.")
    whole: int = Field(description="Hits returned whole (under results).")
    compacted: int = Field(description="Hits returned in compact form (under compact), after the whole ones.")
    dropped: int = Field(description="Hits found but left out: even their compact form did not fit.")
    encoding: str = Field(default="cl100k_base", description="The tokenizer the tokens were counted with.")


@dataclass(frozen=True)
class BudgetPlan:
    """How many of the ranked hits go whole, then compact; the rest are dropped."""

    whole: int
    compact: int
    total: int

    @property
    def dropped(self) -> int:
        """Hits left out."""
        return self.total - self.whole - self.compact

    def shrink(self) -> BudgetPlan:
        """The next smaller plan: the last compact hit dropped, else the last whole hit made compact.
        Raises ValueError when nothing is left to shrink."""
        if self.compact > 0:
            return BudgetPlan(self.whole, self.compact - 1, self.total)
        if self.whole > 0:
            return BudgetPlan(self.whole - 1, 1, self.total)
        raise ValueError("an empty plan cannot shrink")


def plan_budget(
    whole_costs: Sequence[int], compact_costs: Sequence[int], envelope: int, budget: int
) -> BudgetPlan:
    """Whole hits in rank order while they fit, then compact ones while they fit; the rest dropped.

    ``whole_costs[i]`` and ``compact_costs[i]`` are the tokens hit ``i`` adds to the result in each form,
    ``envelope`` the tokens of the result with no hits. Greedy and order-keeping: once a hit does not fit
    whole, no later hit is whole; once one does not fit compact, no later hit is returned.
    """
    if len(whole_costs) != len(compact_costs):
        raise ValueError("one whole and one compact cost per hit")
    used = envelope
    whole = 0
    while whole < len(whole_costs) and used + whole_costs[whole] <= budget:
        used += whole_costs[whole]
        whole += 1
    compact = 0
    while whole + compact < len(compact_costs) and used + compact_costs[whole + compact] <= budget:
        used += compact_costs[whole + compact]
        compact += 1
    return BudgetPlan(whole, compact, len(whole_costs))
