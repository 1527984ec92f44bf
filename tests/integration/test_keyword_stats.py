"""The inverse-document-frequency cut: maintenance counts lexemes per scope, and search then matches only
the query's informative words, so a word most memories contain neither floods the keyword signal nor
makes the search scan the whole scope."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from functools import partial
from typing import Any

import psycopg
import pytest

from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.bootstrap import build_container
from hindsight.config import Settings
from hindsight.domain.auth import Principal
from hindsight.domain.memory import MemoryDraft, Scope, WriteJob
from hindsight.domain.text import KEEP_AT_LEAST, MAX_LEXEME_SHARE, MIN_DOCS_FOR_CUT
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery, resolve
from tests.support import keyed_jobs

pytestmark = pytest.mark.integration


def test_maintenance_counts_lexemes_and_search_skips_the_common_ones(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()
    common = [f"Caroline talked about her weekend plans number {i}" for i in range(80)]
    rare = "Caroline joined the LGBTQ support group on Tuesday"

    async def scenario() -> tuple[list[tuple[str, float | None]], int, int]:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            # one key per fact, so neither dedup nor consolidation folds the near-identical ones together
            jobs = keyed_jobs(tenant, [*common, rare], "semantic")
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


def _keyword_row(settings: Settings, tenant: str, text: str, max_ranked: int) -> tuple[Any, ...]:
    """score_query, probe_query, pair_query (as text) and ranked, with a binding bound of 7."""
    with psycopg.connect(settings.require_database_url()) as conn:
        row = conn.execute(
            """SELECT score_query::text, probe_query::text, pair_query::text, ranked
               FROM hindsight_keyword_queries(%s, %s, 'default', %s, %s, %s, %s, 7)""",
            (text, tenant, MAX_LEXEME_SHARE, MIN_DOCS_FOR_CUT, KEEP_AT_LEAST, max_ranked),
        ).fetchone()
    assert row is not None
    return tuple(row)


def _keyword_queries(settings: Settings, tenant: str, text: str, max_ranked: int) -> tuple[str, str]:
    row = _keyword_row(settings, tenant, text, max_ranked)
    return row[0], row[1]


def test_the_keyword_query_keeps_informative_words_and_probes_with_the_rarest(
    stack: LocalStack, tenant: str
) -> None:
    settings = stack.require_settings()
    text = "Caroline lgbtq support group"
    # not counted yet: every word, in the query's order
    assert (
        _keyword_queries(settings, tenant, text, 1000) == ("'carolin' | 'lgbtq' | 'support' | 'group'",) * 2
    )
    with psycopg.connect(settings.require_database_url()) as conn:
        conn.execute(
            "INSERT INTO scope_stats (tenant_id, agent_id, docs) VALUES (%s, 'default', 500)", (tenant,)
        )
        for lexeme, docs in (("carolin", 400), ("lgbtq", 3), ("support", 30), ("group", 90), ("went", 300)):
            conn.execute(
                "INSERT INTO lexeme_stats (tenant_id, agent_id, lexeme, docs) VALUES (%s, 'default', %s, %s)",
                (tenant, lexeme, docs),
            )
    # words in more than a tenth of the scope are cut; a scope within max_ranked probes with all kept
    assert _keyword_queries(settings, tenant, text, 1000) == ("'lgbtq' | 'support'",) * 2
    # beyond it, the probe is the rarest words whose counts sum to at most max_ranked (at least one)
    assert _keyword_queries(settings, tenant, text, 40) == ("'lgbtq' | 'support'", "'lgbtq' | 'support'")
    assert _keyword_queries(settings, tenant, text, 10) == ("'lgbtq' | 'support'", "'lgbtq'")
    assert _keyword_queries(settings, tenant, text, 2) == ("'lgbtq' | 'support'", "'lgbtq'")
    # a word no memory contained when counted costs nothing to probe, but the probe also takes the
    # rarest word some memory does contain
    assert _keyword_queries(settings, tenant, "zebracorn support", 2) == ("'zebracorn' | 'support'",) * 2
    # common words only: the rarest two are kept (rarest first), never none
    assert _keyword_queries(settings, tenant, "Caroline went", 1000) == ("'went' | 'carolin'",) * 2
    assert _keyword_queries(settings, tenant, "Caroline went", 10) == ("'went' | 'carolin'", "'went'")
    assert _keyword_queries(settings, tenant, "the of", 1000) == (None, None)  # stop words only
    # the limit binds only when the rarest counted word alone is in more than max_ranked rows: then the
    # rows holding it and a second kept word are ranked first, and fewer rows (the bound, 7 here)
    assert _keyword_row(settings, tenant, text, 1000)[2:] == (None, 1000)
    assert _keyword_row(settings, tenant, text, 10)[2:] == (None, 10)  # 'lgbtq' (3) fits
    assert _keyword_row(settings, tenant, text, 2)[2:] == ("'lgbtq' & 'support'", 2)  # 3 > 2: binds
    assert _keyword_row(settings, tenant, "Caroline went", 100)[2:] == ("'went' & 'carolin'", 7)
    assert _keyword_row(settings, tenant, "went", 100)[2:] == (None, 7)  # binds, no second word
    assert _keyword_row(settings, tenant, "zebracorn went", 100)[1:] == (
        "'zebracorn' | 'went'",
        "'zebracorn' & 'went'",
        7,
    )


def test_the_lexeme_counts_are_read_by_key_even_before_the_table_is_analyzed(stack: LocalStack) -> None:
    """Right after maintenance refreshed the counts the planner has no statistics for them; the lookup
    must still read the query's lexemes by primary key, not the scope's every lexeme (migration 014)."""
    settings = stack.require_settings()
    scope = f"t-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(settings.require_database_url()) as conn:
        conn.execute(
            "INSERT INTO scope_stats (tenant_id, agent_id, docs) VALUES (%s, 'default', 100000)", (scope,)
        )
        conn.execute(
            """INSERT INTO lexeme_stats (tenant_id, agent_id, lexeme, docs)
               SELECT %s, 'default', 'word' || g, 1 + g %% 500 FROM generate_series(1, 20000) AS g""",
            (scope,),
        )
        plan = conn.execute(
            """EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM hindsight_keyword_queries(
                   'word7 word9 zebracorn', %s, 'default', %s, %s, %s, 1000, 500)""",
            (scope, MAX_LEXEME_SHARE, MIN_DOCS_FOR_CUT, KEEP_AT_LEAST),
        ).fetchone()
    assert plan is not None

    def lexeme_rows(node: dict[str, Any]) -> float:
        here = (
            node.get("Actual Rows", 0) * node.get("Actual Loops", 1)
            if node.get("Relation Name") == "lexeme_stats"
            else 0
        )
        return here + sum(lexeme_rows(child) for child in node.get("Plans", []))

    assert lexeme_rows(plan[0][0]["Plan"]) < 50  # a few index reads per query lexeme, not 20 000 rows


def test_beyond_max_ranked_only_rows_with_the_rarest_words_are_ranked(stack: LocalStack, tenant: str) -> None:
    settings = stack.require_settings()
    texts = [f"Weekend plans number {i}" for i in range(30)] + ["Weekend trip with the zebracorn"]

    async def scenario() -> tuple[set[str], set[str]]:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            jobs = [
                WriteJob(
                    id=uuid.uuid4(),
                    tenant_id=tenant,
                    agent_id="default",
                    submitted_at=datetime.now(UTC),
                    draft=MemoryDraft(content=text, layer="semantic", key=f"note.{i}"),
                )
                for i, text in enumerate(texts)
            ]
            await container.store_memories(jobs)
            assert container.maintain is not None
            await container.maintain.run(tenant_id=tenant)
            scope = Scope(tenant_id=tenant, agent_id="default")
            request = resolve(RecallQuery(text="weekend zebracorn", top_k=10), datetime.now(UTC))
            embed = partial(container.embedder.embed_query, request.text)

            async def keyword_hits(reader: PostgresMemoryReader) -> set[str]:
                candidates = await reader.search_candidates(scope, request, embed, 100)
                return {c.memory.content for c in candidates if c.keyword_score is not None}

            return (
                await keyword_hits(PostgresMemoryReader(container.pool)),
                await keyword_hits(PostgresMemoryReader(container.pool, max_ranked=5)),
            )
        finally:
            await container.aclose()

    exact, bounded = asyncio.run(scenario())
    assert exact == set(texts)  # 31 memories: within the default bound, every match is ranked
    # "weekend" is in all 31 (> 5): only rows with the rarer "zebracorn" are read and ranked
    assert bounded == {texts[-1]}


def test_when_the_rarest_word_alone_exceeds_max_ranked_rows_with_two_query_words_come_first(
    stack: LocalStack, tenant: str
) -> None:
    settings = stack.require_settings()
    weekend = [f"Weekend plans number {i}" for i in range(12)]
    hiking = [f"Hiking boots size {i}" for i in range(12)]
    both = ["Hiking trip this weekend with Sam", "Weekend of hiking in the hills"]
    texts = weekend + hiking + both  # written in this order: the rows with both words are stored last

    async def scenario() -> list[str]:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(keyed_jobs(tenant, texts, "semantic"))
            assert container.maintain is not None
            await container.maintain.run(tenant_id=tenant)
            scope = Scope(tenant_id=tenant, agent_id="default")
            request = resolve(RecallQuery(text="weekend hiking", top_k=10), datetime.now(UTC))
            embed = partial(container.embedder.embed_query, request.text)
            reader = PostgresMemoryReader(container.pool, max_ranked=5, ranked_when_binding=3)
            candidates = await reader.search_candidates(scope, request, embed, 100)
            keyword = [c for c in candidates if c.keyword_score is not None]
            return [c.memory.content for c in sorted(keyword, key=lambda c: -(c.keyword_score or 0))]
        finally:
            await container.aclose()

    ranked = asyncio.run(scenario())
    # each word is in 14 rows (> 5): 3 rows are ranked, the two holding both words first (before, the
    # first 5 rows the scan gave, which held only "weekend")
    assert len(ranked) == 3
    assert set(ranked[:2]) == set(both)


def test_when_the_limit_binds_every_keyword_score_is_that_of_the_whole_query(
    stack: LocalStack, tenant: str
) -> None:
    """Migration 028 scores a row holding one query word with that word alone (ts_rank_cd's cost grows
    with the query's size): the scores must be those of ``ts_rank_cd(search_text, score_query)``, bit for
    bit, whatever fields hold the word and how often, and for the rows holding the probe's other word, one
    no memory held when the scope was counted."""
    settings = stack.require_settings()
    drafts = [
        MemoryDraft(content="Weekend weekend weekend, the whole weekend", layer="semantic"),
        MemoryDraft(content="Plans for Saturday", query="what about the weekend", layer="semantic"),
        MemoryDraft(content="A quiet Sunday", context="a long weekend in May", layer="semantic"),
        MemoryDraft(
            content="Weekend market", query="weekend errands", context="every weekend", layer="semantic"
        ),
        *(MemoryDraft(content=f"Weekend plans number {i}", layer="semantic") for i in range(10)),
        MemoryDraft(content="The zebracorn ate the zebracorn's hay", layer="semantic"),
        MemoryDraft(content="A zebracorn weekend", layer="semantic"),
    ]
    jobs = [
        WriteJob(
            id=uuid.uuid4(),
            tenant_id=tenant,
            agent_id="default",
            submitted_at=datetime.now(UTC),
            draft=draft.model_copy(update={"key": f"note.{i}"}),
        )
        for i, draft in enumerate(drafts)
    ]

    async def store() -> None:
        container = await build_container(settings, with_queue=False, embedder=None)
        try:
            await container.store_memories(jobs)
        finally:
            await container.aclose()

    asyncio.run(store())
    with psycopg.connect(settings.require_database_url()) as conn:
        # counted when the scope held 100 memories, all with "weekend", 150 with "sunday" (so counted), none
        # with "zebracorn": the limit (20) binds on "weekend" though every row here is ranked
        conn.execute(
            "INSERT INTO scope_stats (tenant_id, agent_id, docs) VALUES (%s, 'default', 100)", (tenant,)
        )
        for lexeme, docs in (("weekend", 100), ("sunday", 150)):
            conn.execute(
                "INSERT INTO lexeme_stats (tenant_id, agent_id, lexeme, docs) VALUES (%s, 'default', %s, %s)",
                (tenant, lexeme, docs),
            )
        conn.execute("SELECT set_config('hindsight.tenant_id', %s, false)", (tenant,))

        def ranked(text: str) -> list[tuple[Any, ...]]:
            return conn.execute(
                """SELECT kq.probe_query::text, kq.pair_query::text, m.content, k.score,
                          ts_rank_cd(m.search_text, kq.score_query)
                   FROM hindsight_keyword_queries(%s, %s, 'default', %s, %s, %s, 20, 20) AS kq
                   CROSS JOIN hindsight_text_matches(kq.score_query, kq.probe_query, kq.pair_query,
                                                     ARRAY['default', '*'], ARRAY['active'],
                                                     ARRAY['episodic', 'semantic'], NULL, kq.ranked) AS k
                   JOIN memories m ON m.id = k.id""",
                (text, tenant, MAX_LEXEME_SHARE, MIN_DOCS_FOR_CUT, KEEP_AT_LEAST),
            ).fetchall()

        # a probe of two words: a row of one word holds the probe's last (scored with it) or the other
        zebracorn = ranked("zebracorn weekend")
        # a probe of one word, "weekend"; "sunday" only in pairs
        sunday = ranked("sunday weekend")
        body = conn.execute("SELECT prosrc FROM pg_proc WHERE proname = 'hindsight_text_matches'").fetchone()
    assert {row[:2] for row in zebracorn} == {("'zebracorn' | 'weekend'", "'zebracorn' & 'weekend'")}
    assert sorted(row[2] for row in zebracorn) == sorted(d.content for d in drafts)
    assert {row[:2] for row in sunday} == {("'weekend'", "'weekend' & 'sunday'")}
    assert sorted(row[2] for row in sunday) == sorted(
        d.content for d in drafts if "weekend" in str(d).lower()
    )
    for rows in (zebracorn, sunday):
        assert [score for *_, score, _ in rows] == [whole for *_, whole in rows]
        assert len({score for *_, score, _ in rows}) >= 4  # the words' fields and counts: distinct scores
    # the rows holding one word are scored with that word (migration 028), not the whole query
    assert body is not None
    assert "numnode(probe) = 1" in body[0]
