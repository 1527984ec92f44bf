"""The inverse-document-frequency cut: maintenance counts lexemes per scope, and search then matches only
the query's informative words, so a word most memories contain neither floods the keyword signal nor
makes the search scan the whole scope."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime

import psycopg
import pytest

from hindsight.bootstrap import build_container
from hindsight.domain.auth import Principal
from hindsight.domain.memory import MemoryDraft, WriteJob
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery

pytestmark = pytest.mark.integration


def test_maintenance_counts_lexemes_and_search_skips_the_common_ones(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()
    common = [f"Caroline talked about her weekend plans number {i}" for i in range(80)]
    rare = "Caroline joined the LGBTQ support group on Tuesday"

    async def scenario() -> tuple[list[tuple[str, float | None]], int, int]:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            # one key per fact, so neither dedup nor consolidation folds the near-identical ones together
            jobs = [
                WriteJob(
                    id=uuid.uuid4(),
                    tenant_id=tenant,
                    agent_id="default",
                    submitted_at=datetime.now(UTC),
                    draft=MemoryDraft(content=text, layer="semantic", key=f"note.{i}"),
                )
                for i, text in enumerate([*common, rare])
            ]
            await container.store_memories(jobs)
            assert container.maintain is not None
            await container.maintain.run(tenant_id=tenant)
            hits = await container.recall(
                Principal(tenant_id=tenant, key_id="k"),
                None,
                RecallQuery(text="Caroline support group", top_k=5),
            )
            with psycopg.connect(settings.require_database_url()) as conn:
                (docs,) = conn.execute(
                    "SELECT docs FROM scope_stats WHERE tenant_id = %s", (tenant,)
                ).fetchone()
                (caroline,) = conn.execute(
                    "SELECT docs FROM lexeme_stats WHERE tenant_id = %s AND lexeme = 'carolin'", (tenant,)
                ).fetchone()
            return [(h.memory.content, h.scores.keyword) for h in hits], docs, caroline
        finally:
            await container.aclose()

    hits, docs, caroline = asyncio.run(scenario())
    assert (docs, caroline) == (81, 81)
    assert hits[0][0] == rare
    # "caroline" is in every memory: cut from the full-text query, so only the rare memory has a keyword score
    assert [content for content, keyword in hits if keyword is not None] == [rare]
