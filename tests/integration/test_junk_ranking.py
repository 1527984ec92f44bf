"""A very long junk memory ("word word word …", 32,000 characters) must not rank among the hits of an
unrelated query (issue 13, "noticed"): written through the worker's use case, searched through the
reader's use case, with the learned ranker the service ships. Before the guard (each stage's inputs
clipped to their training range) it came first, above both notes about the kitten, with no keyword
hit: the learned ranker's ``length_log`` feature, ten standard deviations past anything it was trained
on, lifted it (docs/ranking.md, "Out-of-range inputs"). It still ranks above the unrelated notes: the
vector signal ranks it near the top (a text of one repeated word embeds close to many queries)."""

from __future__ import annotations

import asyncio

import pytest

from hindsight.bootstrap import build_container
from hindsight.domain.auth import Principal
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery
from tests.support import keyed_jobs

pytestmark = pytest.mark.integration

NOTES = [
    "The quarterly budget review moved to Thursday afternoon.",
    "Maya adopted a grey kitten from the shelter and named it Pixel.",
    "The staging database runs out of disk space every Monday night.",
    "Tom prefers green tea over coffee in the mornings.",
    "The team offsite will be in Porto in the first week of June.",
    "Invoices are paid within thirty days of receipt.",
    "The office plants are watered on Fridays by whoever arrives first.",
    "Maya's kitten Pixel chewed through the laptop charger cable.",
]
JUNK = ("word " * 6400).strip()  # 31,999 characters, 27 chunks


def test_a_long_junk_memory_does_not_rank_for_an_unrelated_query(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()

    async def scenario() -> list[tuple[str, float]]:
        container = await build_container(settings, with_queue=False)
        try:
            jobs = keyed_jobs(tenant, [*NOTES, JUNK], "episodic")
            for result in await container.store_memories(jobs):
                assert result.outcome != "failed", result.reason
            hits = await container.recall(
                Principal(tenant_id=tenant, key_id="k"),
                None,
                RecallQuery(text="what did the kitten break?", top_k=5),
            )
            return [(h.memory.content, h.scores.relevance) for h in hits]
        finally:
            await container.aclose()

    hits = asyncio.run(scenario())
    contents = [content for content, _ in hits]
    shown = [(c[:40], round(r, 3)) for c, r in hits]
    # the two notes about the kitten come first, the junk below both (before the guard it came first)
    assert contents[:2] == [NOTES[7], NOTES[1]], shown
    assert JUNK not in contents[:2], shown
