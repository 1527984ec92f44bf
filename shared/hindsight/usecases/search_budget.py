"""``memory_search`` with ``max_tokens``: recall, then fit the hits into the budget
(``domain.context_budget``): whole hits first in rank order, then compact ones, the rest dropped.

Tokens are counted with the ``TokenCounter`` working memory's budget uses (cl100k_base), over the text the
caller will read: the API layer passes ``render``, which turns a choice of hits into exactly that text.
Per-hit costs are measured as what each hit adds to an empty result; the plan is then checked against
the real text and shrunk (last compact hit dropped, else last whole hit compacted) until it fits, so the
answer never exceeds the budget even where token boundaries between hits differ from the sum of parts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from functools import partial

from pydantic import BaseModel, ConfigDict

from hindsight.domain.auth import Principal
from hindsight.domain.context_budget import BudgetPlan, BudgetReport, CompactHit, plan_budget
from hindsight.domain.memory import SearchHit
from hindsight.ports import TokenCounter
from hindsight.usecases.recall import Recall, RecallQuery

Render = Callable[[Sequence[SearchHit], Sequence[CompactHit], BudgetReport | None], str]
"""(whole hits, compact hits, the budget report or None) → the text of the result as the caller reads it."""


class BudgetedHits(BaseModel):
    """Hits fitted into a budget: ``whole`` then ``compact`` (a prefix of the ranking), and the report
    (None when no budget was asked)."""

    model_config = ConfigDict(frozen=True)

    whole: list[SearchHit]
    compact: list[CompactHit]
    budget: BudgetReport | None = None


class SearchWithinBudget:
    """``memory_search``: ``Recall``, then, when ``max_tokens`` is given, the hits fitted into it."""

    def __init__(self, recall: Recall, tokens: TokenCounter) -> None:
        self._recall = recall
        self._tokens = tokens

    async def __call__(
        self,
        principal: Principal,
        agent_id: str | None,
        query: RecallQuery,
        max_tokens: int | None,
        render: Render,
    ) -> BudgetedHits:
        """The recalled hits, fitted into ``max_tokens`` tokens of ``render``'s text when given.

        Raises what ``Recall`` raises (Forbidden, InvalidInput for times, Unavailable).
        """
        hits = await self._recall(principal, agent_id, query)
        if max_tokens is None:
            return BudgetedHits(whole=hits, compact=[])
        return await self.fit(hits, max_tokens, render)

    async def fit(self, hits: Sequence[SearchHit], max_tokens: int, render: Render) -> BudgetedHits:
        """``hits`` fitted into ``max_tokens`` tokens of ``render``'s text (see the module docstring)."""
        compact = [CompactHit.of(h) for h in hits]
        draft = _report(BudgetPlan(len(hits), 0, len(hits)), max_tokens, max_tokens)
        envelope = await self._tokens.count(render([], [], draft))
        whole_costs, compact_costs = await asyncio.gather(
            asyncio.gather(*(self._tokens.count(render([h], [], draft)) for h in hits)),
            asyncio.gather(*(self._tokens.count(render([], [c], draft)) for c in compact)),
        )
        plan = plan_budget(
            [c - envelope for c in whole_costs], [c - envelope for c in compact_costs], envelope, max_tokens
        )
        while True:
            whole, compacted = list(hits[: plan.whole]), compact[plan.whole : plan.whole + plan.compact]
            report = await self._settle(plan, max_tokens, partial(render, whole, compacted))
            if report.tokens <= max_tokens or plan.whole + plan.compact == 0:
                return BudgetedHits(whole=whole, compact=compacted, budget=report)
            plan = plan.shrink()

    async def _settle(
        self, plan: BudgetPlan, max_tokens: int, text: Callable[[BudgetReport], str]
    ) -> BudgetReport:
        """The report whose ``tokens`` is the count of the text that carries it: the count can change
        with its own digits, so count again until it holds still (a few rounds at most; an upper bound
        is kept if it never does)."""
        tokens = max_tokens
        for _ in range(MAX_SETTLE_ROUNDS):
            counted = await self._tokens.count(text(_report(plan, max_tokens, tokens)))
            if counted == tokens:
                break
            tokens = counted
        else:
            tokens = max(tokens, await self._tokens.count(text(_report(plan, max_tokens, tokens))))
        return _report(plan, max_tokens, tokens)


MAX_SETTLE_ROUNDS = 4


def _report(plan: BudgetPlan, max_tokens: int, used: int) -> BudgetReport:
    return BudgetReport(
        max_tokens=max_tokens,
        tokens=used,
        truncated=plan.compact > 0 or plan.dropped > 0,
        whole=plan.whole,
        compacted=plan.compact,
        dropped=plan.dropped,
    )
