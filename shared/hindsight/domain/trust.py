"""What an untrusted write may claim: the importance cap for inferences and for text that reads like an
injection. Pure: no I/O.

Importance weighs 0.3 of every search score (``domain.ranking``), and from 0.9 a memory is *core*: it never
decays (``domain.maintenance.decay``). A caller that can set it freely can lift a guess — or a scraped
page that says "SYSTEM OVERRIDE …" — above what the user said and keep it there for good: memory
poisoning (OWASP LLM01; Greshake et al., AISec 2023). So, unless the write comes with a *trusted* key
(``Principal.trusted``: an operator's pipeline, minted with ``hindsight token create --trusted`` or a JWT
with the trusted scope), a write whose source is ``agent_inferred`` or whose text has an injection signal
(``domain.injection``) claims at most ``UNTRUSTED_IMPORTANCE_CAP`` — the default importance of an ordinary
statement, so with the ranking's inference penalty it ranks below what the user stated alike.
"""

from __future__ import annotations

from collections.abc import Iterable

from hindsight.domain.injection import injection_signals
from hindsight.domain.limits import DEFAULT_IMPORTANCE
from hindsight.domain.memory import MemoryDraft, Source

UNTRUSTED_IMPORTANCE_CAP = DEFAULT_IMPORTANCE
"""The most an untrusted inference or injection-like text may claim (0.5: an ordinary statement's)."""


def draft_texts(draft: MemoryDraft) -> list[str]:
    """Every text of a draft an agent will later be shown (content, key, recall hint, context, summary,
    lessons, key decisions)."""
    parts = [draft.content, draft.key, draft.query, draft.context, draft.summary, draft.lessons]
    return [p for p in (*parts, *draft.key_decisions) if p]


def importance_cap(source: Source, texts: Iterable[str], trusted: bool) -> float | None:
    """The cap on what a write may claim as importance (module docstring), or None when it is free to
    claim any: a trusted key, or a ``user_stated`` text without injection signals."""
    if trusted:
        return None
    if source == "agent_inferred" or injection_signals("\n".join(texts)):
        return UNTRUSTED_IMPORTANCE_CAP
    return None


def admit_draft(draft: MemoryDraft, trusted: bool) -> tuple[MemoryDraft, float | None]:
    """The draft as it may be stored, and the importance it asked for when that was lowered (else None)."""
    cap = importance_cap(draft.source, draft_texts(draft), trusted)
    if cap is None or draft.importance <= cap:
        return draft, None
    return draft.model_copy(update={"importance": cap}), draft.importance
