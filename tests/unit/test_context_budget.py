"""Fitting search hits into a token budget: sentence trimming, the greedy plan, and the use case with the
real cl100k_base counter over the text a model reads."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hindsight.adapters.tiktoken_counter import TiktokenCounter
from hindsight.api.tools_memory import search_text
from hindsight.domain.context_budget import (
    BudgetPlan,
    CompactHit,
    leading_sentences,
    plan_budget,
    split_sentences,
)
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import Scores, SearchHit, StoredMemory
from hindsight.usecases.search_budget import SearchWithinBudget

pytestmark = pytest.mark.anyio

WORDS = st.text(alphabet="abcdefghij ", min_size=1, max_size=30)
SENTENCE = st.builds(
    lambda w, end: w.strip().capitalize() + end, WORDS.filter(lambda w: w.strip()), st.sampled_from(".!?")
)


def test_sentences_split_at_end_marks_and_line_breaks() -> None:
    text = 'Alex moved to Lisbon. He said "no more rain!" Then he left?\nNew line here 你好。再见'
    assert split_sentences(text) == [
        "Alex moved to Lisbon.",
        'He said "no more rain!"',
        "Then he left?",
        "New line here 你好。",
        "再见",
    ]
    assert split_sentences("  ") == []
    assert split_sentences("No end mark") == ["No end mark"]


@given(st.lists(SENTENCE, min_size=1, max_size=8), st.integers(min_value=5, max_value=200))
def test_leading_sentences_are_whole_sentences_within_the_limit(sentences: list[str], limit: int) -> None:
    text = " ".join(sentences)
    kept, trimmed = leading_sentences(text, limit)
    assert len(kept) <= limit
    if kept.endswith("…"):  # the first sentence alone was too long: cut at a word, marked
        assert trimmed
        assert text.startswith(kept.removesuffix("…"))
    else:
        parts = split_sentences(kept)
        assert parts == split_sentences(text)[: len(parts)]
        assert trimmed == (len(parts) < len(split_sentences(text)))


def test_the_plan_keeps_rank_order_whole_then_compact_then_dropped() -> None:
    # envelope 10, budget 100: hits 0 and 1 whole (10 + 30 + 30 = 70), hit 2 (40) not whole; compact 15
    # fits (85), hit 3 compact 10 fits (95), hit 4 compact 10 does not (105)
    plan = plan_budget([30, 30, 40, 5, 5], [8, 8, 15, 10, 10], envelope=10, budget=100)
    assert (plan.whole, plan.compact, plan.dropped) == (2, 2, 1)
    # a small later hit is not promoted ahead of a larger earlier one
    assert plan_budget([50, 5], [10, 2], envelope=0, budget=20) == BudgetPlan(0, 2, 2)
    assert plan_budget([5], [2], envelope=30, budget=20) == BudgetPlan(0, 0, 1)
    assert BudgetPlan(2, 1, 4).shrink() == BudgetPlan(2, 0, 4)
    assert BudgetPlan(2, 0, 4).shrink() == BudgetPlan(1, 1, 4)
    with pytest.raises(ValueError, match="cannot shrink"):
        BudgetPlan(0, 0, 3).shrink()


@given(
    st.lists(st.tuples(st.integers(1, 60), st.integers(1, 20)), max_size=12),
    st.integers(0, 30),
    st.integers(0, 300),
)
def test_a_plan_never_exceeds_its_budget(costs: list[tuple[int, int]], envelope: int, budget: int) -> None:
    whole = [w for w, _ in costs]
    compact = [c for _, c in costs]
    plan = plan_budget(whole, compact, envelope, budget)
    used = envelope + sum(whole[: plan.whole]) + sum(compact[plan.whole : plan.whole + plan.compact])
    assert plan.whole + plan.compact == 0 or used <= budget
    assert plan.whole + plan.compact + plan.dropped == len(costs)


def _hit(rank: int, content: str) -> SearchHit:
    memory = StoredMemory(
        id=uuid.UUID(int=rank + 1),
        tenant_id="t",
        agent_id="default",
        layer="episodic",
        key=None,
        query=None,
        content=content,
        importance=0.5,
        access_count=0,
        last_accessed_at=None,
        created_at=datetime(2026, 11, 1, tzinfo=UTC),
        occurred_at=None,
        metadata={},
        status="active",
    )
    scores = Scores(vector=0.8, keyword=None, rrf=0.1, relevance=1.0 - rank / 100, importance=0.5, final=0.7)
    return SearchHit(memory=memory, scores=scores)


LONG = (
    "The deploy to the staging cluster failed because the database migration timed out after ten minutes. "
    "We raised the statement timeout and split the migration into three batches. "
    "The second attempt succeeded and took four minutes in total. "
    "Next time, run long migrations in batches from the start and watch the lock waits."
)


class _NoRecall:
    async def __call__(self, *args: object) -> list[SearchHit]:
        raise AssertionError("not called")


def _search() -> SearchWithinBudget:
    return SearchWithinBudget(_NoRecall(), TiktokenCounter())  # type: ignore[arg-type]


async def test_hits_are_fitted_whole_then_compact_and_the_text_stays_within_the_budget() -> None:
    counter = TiktokenCounter()
    hits = [_hit(i, f"Hit {i}. " + LONG) for i in range(12)]
    whole_text = search_text(hits, [], None)
    full = await counter.count(whole_text)
    for budget in (300, 700, 1500, full // 2, full + 200):  # 100: no hit fits (refused, below)
        fitted = await _search().fit(hits, budget, search_text)
        report = fitted.budget
        assert report is not None
        text = search_text(fitted.whole, fitted.compact, report)
        assert report.tokens == await counter.count(text) <= budget
        assert [h.memory.id for h in fitted.whole] + [c.id for c in fitted.compact] == [
            h.memory.id for h in hits[: report.whole + report.compacted]
        ]
        assert report.whole + report.compacted + report.dropped == len(hits)
        assert report.truncated == (report.whole < len(hits))
        for compact, hit in zip(fitted.compact, hits[report.whole :], strict=False):
            assert compact.trimmed
            assert hit.memory.content.startswith(compact.content)
            assert compact.content.endswith(".")  # cut at a sentence boundary
    fitted = await _search().fit(hits, full + 200, search_text)
    assert fitted.budget is not None
    assert not fitted.budget.truncated
    assert len(fitted.whole) == len(hits)


async def test_a_budget_too_small_for_any_whole_hit_returns_it_compact_or_is_refused_naming_the_budget() -> (
    None
):
    # an answer of no hits read as "nothing found" (trial21: max_tokens 100, results [], dropped 5)
    hits = [_hit(0, LONG * 5), _hit(1, LONG)]
    with pytest.raises(InvalidInput) as refused:
        await _search().fit(hits, 100, search_text)
    assert refused.value.field == "max_tokens"
    assert isinstance(refused.value.limit, dict)
    needed = refused.value.limit["ge"]
    assert str(refused.value) == (
        "max_tokens: 2 hits were found, but none fits in 100 tokens, even in compact form: "
        f"give max_tokens {needed} or more to get the first"
    )
    fitted = await _search().fit(hits, needed, search_text)
    report = fitted.budget
    assert report is not None
    assert (report.whole, report.compacted, report.dropped, report.truncated) == (0, 1, 1, True)
    assert report.tokens == await TiktokenCounter().count(search_text([], fitted.compact, report)) <= needed
    with pytest.raises(InvalidInput):  # the smallest: one less fits nothing
        await _search().fit(hits, needed - 1, search_text)


def test_compact_hits_keep_flags_and_drop_scores() -> None:
    hit = _hit(0, LONG).model_copy(update={"flags": ["failed_before"]})
    compact = CompactHit.of(hit)
    assert compact.flags == ["failed_before"]
    assert "scores" not in compact.model_dump()
    assert compact.content == " ".join(split_sentences(LONG)[:3])  # the fourth would pass 280 characters
    assert compact.trimmed
