"""``memory_search`` with ``max_tokens``: recall, then fit the hits into the budget
(``domain.context_budget``): whole hits first in rank order, then compact ones, the rest dropped.

Tokens are counted with the ``TokenCounter`` working memory's budget uses (cl100k_base), over the text the
caller will read: the API layer passes ``render``, which turns a choice of hits into exactly that text.
Per-hit costs are measured as what each hit adds to an empty result; the plan is then checked against
the real text and shrunk (last compact hit dropped, else last whole hit compacted) until it fits, so the
answer never exceeds the budget even where token boundaries between hits differ from the sum of parts.
A budget that not even the first hit fits in, compact, is refused naming the smallest that returns it:
an answer with no hits reads as "nothing found". How many tokens a compact hit takes depends on its
text (up to 280 characters of any script, its key, its flags), so no fixed floor on ``max_tokens`` can
say it beforehand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial

from pydantic import BaseModel, ConfigDict

from hindsight.domain.auth import Principal
from hindsight.domain.context_budget import BudgetPlan, BudgetReport, CompactHit, plan_budget
from hindsight.domain.counts import agreeing, counted
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import SearchHit
from hindsight.ports import MemoryReader, TokenCounter
from hindsight.usecases.key_filter import key_family_note
from hindsight.usecases.recall import Recall, RecallQuery

Render = Callable[[Sequence[SearchHit], Sequence[CompactHit], BudgetReport | None, str | None], str]
"""(whole hits, compact hits, the budget report or None, the answer's note or None) → the text of the
result as the caller reads it."""


class BudgetedHits(BaseModel):
    """Hits fitted into a budget: ``whole`` then ``compact`` (a prefix of the ranking), the report
    (None when no budget was asked), and a note when the answer needs one (``key_family_note``)."""

    model_config = ConfigDict(frozen=True)

    whole: list[SearchHit]
    compact: list[CompactHit]
    budget: BudgetReport | None = None
    note: str | None = None


class SearchWithinBudget:
    """``memory_search``: ``Recall``, then, when ``max_tokens`` is given, the hits fitted into it."""

    def __init__(self, recall: Recall, tokens: TokenCounter, reader: MemoryReader | None = None) -> None:
        """``reader``: where the keys below a key filter that matched nothing are looked up (no note
        without it)."""
        self._recall = recall
        self._tokens = tokens
        self._reader = reader

    async def __call__(
        self,
        principal: Principal,
        agent_id: str | None,
        query: RecallQuery,
        max_tokens: int | None,
        render: Render,
    ) -> BudgetedHits:
        """The recalled hits, fitted into ``max_tokens`` tokens of ``render``'s text when given.

        Raises what ``Recall`` raises (Forbidden, InvalidInput for times, Unavailable), and InvalidInput
        on ``max_tokens`` when hits were found but none fits (``fit``).
        """
        hits = await self._recall(principal, agent_id, query)
        note = None
        if not hits and query.key is not None and query.known_at is None and self._reader is not None:
            note = await key_family_note(self._reader, principal.scope(agent_id), query.key, query.statuses)
        if max_tokens is None:
            return BudgetedHits(whole=hits, compact=[], note=note)
        return await self.fit(hits, max_tokens, render, note)

    async def fit(
        self, hits: Sequence[SearchHit], max_tokens: int, render: Render, note: str | None = None
    ) -> BudgetedHits:
        """``hits`` fitted into ``max_tokens`` tokens of ``render``'s text (see the module docstring).
        ``note`` is the answer's own note (``render`` renders it), left out when it does not fit.

        Raises:
            InvalidInput: field ``max_tokens``, when hits were found but not even the first fits in
                compact form, naming the smallest budget that returns it (limit ``ge``): an answer of no
                hits would read as "nothing found" (trial21: max_tokens 100 gave ``results: []``).
        """
        compact = [CompactHit.of(h) for h in hits]
        draft = _report(BudgetPlan(len(hits), 0, len(hits)), max_tokens, max_tokens)
        envelope = await self._tokens.count(render([], [], draft, note))
        whole_costs, compact_costs = await asyncio.gather(
            asyncio.gather(*(self._tokens.count(render([h], [], draft, note)) for h in hits)),
            asyncio.gather(*(self._tokens.count(render([], [c], draft, note)) for c in compact)),
        )
        plan = plan_budget(
            [c - envelope for c in whole_costs], [c - envelope for c in compact_costs], envelope, max_tokens
        )
        while True:
            whole, compacted = list(hits[: plan.whole]), compact[plan.whole : plan.whole + plan.compact]
            if hits and plan.whole + plan.compact == 0:
                first = partial(_text, render, [], compact[:1], None)
                raise _too_small(
                    len(hits), max_tokens, await self._settle(BudgetPlan(0, 1, len(hits)), None, first)
                )
            report = await self._settle(plan, max_tokens, partial(_text, render, whole, compacted, note))
            if report.tokens <= max_tokens or (not hits and note is None):
                return BudgetedHits(whole=whole, compact=compacted, budget=report, note=note)
            if not hits:  # the envelope and a note that does not fit: the budget holds, the note is left out
                note = None
                continue
            plan = plan.shrink()

    async def _settle(
        self,
        plan: BudgetPlan,
        max_tokens: int | None,
        text: Callable[[BudgetReport], str],
    ) -> BudgetReport:
        """The report whose ``tokens`` is the count of the text that carries it: the count can change
        with its own digits, so count again until it holds still (a few rounds at most; an upper bound
        is kept if it never does). ``max_tokens`` None: the budget is the count itself (the smallest
        budget that holds the text)."""
        tokens = max_tokens or 0

        def report(used: int) -> BudgetReport:
            return _report(plan, used if max_tokens is None else max_tokens, used)

        for _ in range(MAX_SETTLE_ROUNDS):
            counted = await self._tokens.count(text(report(tokens)))
            if counted == tokens:
                break
            tokens = counted
        else:
            tokens = max(tokens, await self._tokens.count(text(report(tokens))))
        return report(tokens)


MAX_SETTLE_ROUNDS = 4


def _too_small(found: int, max_tokens: int, first: BudgetReport) -> InvalidInput:
    """The refusal of a budget no hit fits in: ``first`` is the report of the answer holding only the
    first hit, compact, in the smallest budget that holds it (``SearchWithinBudget._settle``)."""
    return InvalidInput(
        "max_tokens",
        f"{counted(found, 'hit')} {agreeing(found, 'was', 'were')} found, but none fits in {max_tokens} "
        f"tokens, even in compact form: give max_tokens {first.tokens} or more to get the first",
        {"ge": first.tokens},
    )


def _report(plan: BudgetPlan, max_tokens: int, used: int) -> BudgetReport:
    return BudgetReport(
        max_tokens=max_tokens,
        tokens=used,
        truncated=plan.compact > 0 or plan.dropped > 0,
        whole=plan.whole,
        compacted=plan.compact,
        dropped=plan.dropped,
    )


def _text(
    render: Render,
    whole: Sequence[SearchHit],
    compact: Sequence[CompactHit],
    note: str | None,
    report: BudgetReport,
) -> str:
    return render(whole, compact, report, note)
