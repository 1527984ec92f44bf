"""Keywords for Chinese, Japanese and Korean (migration cjk_keywords): CJK runs become character bigrams
beside the English lexemes, through one SQL function (hindsight_tsvector) that builds both the stored
search_text and the search's query, so a Chinese product name or code inside a question matches by
keyword."""

from __future__ import annotations

import asyncio
import re
import uuid
from typing import Any

import psycopg
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hindsight.adapters.postgres.migrations import default_migrations_dir, load_migrations
from hindsight.bootstrap import build_container
from hindsight.domain.auth import Principal
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.usecases.recall import RecallQuery
from tests.integration.test_schema import _fresh_database, _migrate
from tests.support import PROTOCOL_ERAS, drain, keyed_jobs, mcp_client

pytestmark = pytest.mark.integration


def _lexemes(stack: LocalStack, text: str) -> set[str]:
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        rows = conn.execute("SELECT lexeme FROM unnest(hindsight_tsvector(%s))", (text,)).fetchall()
    return {str(r[0]) for r in rows}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Han runs become overlapping bigrams; the English lexemes of mixed text stay
        ("订单 A-1042 已发货", {"订单", "-1042", "已发", "发货"}),
        ("张伟的订单A-1042已发货", {"张伟", "伟的", "的订", "订单", "-1042", "已发", "发货"}),
        ("华为Mate60手机", {"华为", "mate60", "手机"}),
        # a run of one character stays a unigram
        ("第3季度", {"第", "3", "季度"}),
        # kana and Hangul are bigrammed too; ・ separates, ー belongs to the word
        ("コーヒー・カップ", {"コー", "ーヒ", "ヒー", "カッ", "ップ"}),
        ("서울 지사", {"서울", "지사"}),
        # full-width forms are NFKC-normalised to what the question will probably type
        ("ＳＫＵ８８的库存", {"sku88", "的库", "库存"}),
    ],
)
def test_cjk_runs_become_bigrams_beside_english_lexemes(
    stack: LocalStack, text: str, expected: set[str]
) -> None:
    assert _lexemes(stack, text) == expected


def test_english_text_gets_the_english_lexemes_it_always_had(stack: LocalStack) -> None:
    text = "Caroline's LGBTQ support group met on 2023-05-07; she's running the 10k races again!"
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            "SELECT hindsight_tsvector(%(t)s) = to_tsvector('english', %(t)s)", {"t": text}
        ).fetchone()
    assert row == (True,)


_CJK = "订单已发货张伟客户华为手机的了是在上海北京东京コーヒーテスト서울지사"
_PIECE_WITH_A_BIGRAM = re.compile(f"[{_CJK}]{{2}}")


@settings(max_examples=60, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(_CJK + " 、。，・"), min_size=2, max_size=40), data=st.data())
def test_every_quoted_piece_of_a_memory_matches_it_by_keyword(
    stack: LocalStack, text: str, data: st.DataObject
) -> None:
    # Write time and query time cut text the same way: a question quoting any piece of a memory that has
    # two CJK characters in a row shares a lexeme with it (the bigrams of a piece are bigrams of the whole).
    start = data.draw(st.integers(0, len(text) - 1))
    piece = text[start : data.draw(st.integers(start + 1, len(text)))]
    assume(_PIECE_WITH_A_BIGRAM.search(piece))
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            """SELECT hindsight_tsvector(%(memory)s) @@ string_agg(quote_literal(lexeme), ' | ')::tsquery
               FROM unnest(hindsight_tsvector(%(piece)s))""",
            {"memory": text, "piece": piece},
        ).fetchone()
    assert row == (True,), (text, piece)


def test_migration_recomputes_rows_stored_before_it(stack: LocalStack) -> None:
    # Given a store at the schema before CJK keywords, holding a Chinese memory
    migrations = load_migrations(default_migrations_dir(None))
    cjk = next(m.version for m in migrations if m.name == "cjk_keywords")
    url = _fresh_database(stack)
    _migrate(url, [m for m in migrations if m.version < cjk])
    with psycopg.connect(url) as conn:
        conn.execute(
            """INSERT INTO memories (id, tenant_id, agent_id, layer, content, content_hash, embedding)
               VALUES (%s, 't', 'a', 'semantic', '星河云盘的续费日期是每年三月', 'h', %s::vector)""",
            (uuid.uuid4(), "[" + ",".join(["0.1"] * 384) + "]"),
        )
        conn.execute("INSERT INTO scope_stats (tenant_id, agent_id, docs) VALUES ('t', 'a', 1)")
        (before,) = conn.execute(
            "SELECT array_length(tsvector_to_array(search_text), 1) FROM memories"
        ).fetchone()
    # When the rest of the migrations run
    _migrate(url, migrations)
    # Then the stored row has its bigrams, and the stale lexeme counts are gone until maintenance recounts
    with psycopg.connect(url) as conn:
        (lexemes,) = conn.execute("SELECT tsvector_to_array(search_text) FROM memories").fetchone()
        (stats,) = conn.execute("SELECT count(*) FROM scope_stats").fetchone()
    assert before == 1  # the whole sentence was one lexeme
    assert {"星河", "云盘", "续费", "日期", "三月"} <= set(lexemes)
    assert stats == 0


def test_the_frequency_cut_drops_common_bigrams(stack: LocalStack, tenant: str) -> None:
    settings_ = stack.require_settings()
    common = [f"用户提到了周末的计划，第{i}条" for i in range(80)]
    rare = "用户张伟加入了支持小组"

    async def scenario() -> tuple[list[tuple[str, float | None]], int]:
        container = await build_container(settings_, with_queue=False, embedder=None)
        try:
            # episodic, one key each: neither the write-time merge, consolidation nor the key-less
            # contradiction rules (semantic memories) fold the near-identical ones together
            jobs = keyed_jobs(tenant, [*common, rare], "episodic")
            await container.store_memories(jobs)
            assert container.maintain is not None
            await container.maintain.run(tenant_id=tenant)
            hits = await container.recall(
                Principal(tenant_id=tenant, key_id="k"), None, RecallQuery(text="用户张伟", top_k=10)
            )
            with psycopg.connect(settings_.require_database_url()) as conn:
                (docs,) = conn.execute(
                    "SELECT docs FROM lexeme_stats WHERE tenant_id = %s AND lexeme = '用户'", (tenant,)
                ).fetchone()
            return [(h.memory.content, h.scores.keyword) for h in hits], docs
        finally:
            await container.aclose()

    hits, docs = asyncio.run(scenario())
    # maintenance counted the bigram like any lexeme …
    assert docs == 81
    # … so search matches only the informative ones: '张伟' finds the one memory, '用户' floods nothing
    keyword_hits = [content for content, keyword in hits if keyword is not None]
    assert keyword_hits == [rare]
    assert hits[0][0] == rare


async def _call(url: str, token: str, tool: str, args: dict[str, Any], mode: str) -> dict[str, Any]:
    async with mcp_client(url, token, mode) as client:
        result = await client.call_tool(tool, args)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


@pytest.mark.anyio
@pytest.mark.parametrize("mode", PROTOCOL_ERAS)
async def test_a_chinese_product_name_in_a_question_finds_the_memory_by_keyword(
    server: BackgroundServer, poller: SqsPoller, token: str, mode: str
) -> None:
    # Given Chinese memories about different products, one of them written with its code glued on
    memories = {
        "robot": "客户李娜购买的云鲸扫地机器人J4保修期为两年，发票已寄出。",
        "phone": "王强的华为Mate60手机屏幕碎了，已预约周三到门店维修。",
        "storage": "星河云盘企业版的续费日期是每年三月十五日，由财务部负责。",
        "laptop": "陈静申请了一台新的笔记本电脑，型号还没有确定。",
    }
    ids = {}
    for name, content in memories.items():
        ack = await _call(server.url, token, "memory_write", {"content": content, "layer": "semantic"}, mode)
        ids[name] = ack["id"]
    await drain(poller)
    for question, wanted in [
        ("云鲸扫地机器人的保修多久？", "robot"),
        ("Mate60维修约在哪天", "phone"),
        ("星河云盘什么时候续费", "storage"),
    ]:
        # When a question names the product inside a Chinese sentence
        found = await _call(server.url, token, "memory_search", {"query": question, "top_k": 4}, mode)
        by_id = {r["memory"]["id"]: r["scores"] for r in found["results"]}
        # Then the keyword signal found that memory (before migration cjk_keywords its score was null:
        # the whole question was one lexeme that no memory contained) and ranked it first
        assert by_id[ids[wanted]]["keyword"] is not None, question
        assert by_id[ids[wanted]]["keyword"] > 0, question
        assert found["results"][0]["memory"]["id"] == ids[wanted], question
        # and only memories sharing its words have a keyword score at all
        others = [n for n in memories if n != wanted and by_id.get(ids[n], {}).get("keyword") is not None]
        assert others == [], (question, others)
