"""The hosted-reranker adapter against a real loopback HTTP server speaking the common ``/rerank`` wire
shape (stdlib ``http.server`` on 127.0.0.1, port 0, in a thread), and recall with it: only the first
stage's top N are sent, they come back re-ordered, and a reranker that fails leaves the search as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from hindsight.adapters.embedders.hash_embedder import HashEmbedder
from hindsight.adapters.http_reranker import HttpReranker
from hindsight.config import Settings
from hindsight.domain.auth import Principal
from hindsight.domain.errors import Unavailable
from hindsight.domain.memory import Candidate
from hindsight.domain.ranking import RankingPolicy
from hindsight.factories import make_reranker
from hindsight.usecases.recall import Recall, RecallQuery
from tests.support import loopback_http_server, send_json
from tests.unit.fakes import FixedClock, NullAccessLog, ScriptedStore, memory

pytestmark = pytest.mark.anyio


@dataclass
class RerankServer:
    """Scores each document by how many query words it contains; answers in one of the known shapes."""

    shape: str = "results"  # results | data | bare
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(server: RerankServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append({"path": self.path, **body})
            server.auth.append(self.headers.get("Authorization", ""))
            if server.status != 200:
                send_json(self, server.status, {"error": "overloaded"})
                return
            words = set(body["query"].lower().split())
            scored = [
                {"index": i, "relevance_score": float(len(words & set(doc.lower().split())))}
                for i, doc in enumerate(body["documents"])
            ]
            scored.sort(key=lambda r: -r["relevance_score"])  # services answer best first
            if server.shape == "data":
                send_json(self, 200, {"data": scored, "model": body["model"]})
            elif server.shape == "bare":
                send_json(self, 200, [{"index": r["index"], "score": r["relevance_score"]} for r in scored])
            else:
                send_json(self, 200, {"results": scored[: body["top_n"]]})

        def log_message(self, *args: Any) -> None:
            return None

    return Handler


@pytest.fixture
def rerank_server() -> Iterator[RerankServer]:
    server = RerankServer()
    with loopback_http_server(_handler(server)) as port:
        server.port = port
        yield server


@pytest.mark.parametrize("shape", ["results", "data", "bare"])
async def test_scores_come_back_in_document_order_from_each_answer_shape(
    rerank_server: RerankServer, shape: str
) -> None:
    rerank_server.shape = shape
    reranker = HttpReranker(rerank_server.base_url, "rerank-test", "sk-test")
    try:
        scores = await reranker.rerank("lisbon trams", ["the weather", "trams in lisbon", "lisbon"])
    finally:
        await reranker.aclose()
    assert scores == [0.0, 2.0, 1.0]
    sent = rerank_server.requests[0]
    assert sent["path"] == "/v1/rerank"
    assert sent["model"] == "rerank-test"
    assert sent["documents"] == ["the weather", "trams in lisbon", "lisbon"]
    assert rerank_server.auth == ["Bearer sk-test"]


async def test_an_error_answer_or_no_server_is_unavailable(rerank_server: RerankServer) -> None:
    rerank_server.status = 503
    reranker = HttpReranker(rerank_server.base_url, "rerank-test")
    try:
        with pytest.raises(Unavailable, match="HTTP 503"):
            await reranker.rerank("q", ["a"])
    finally:
        await reranker.aclose()
    nowhere = HttpReranker("http://127.0.0.1:9/v1", "rerank-test", timeout_s=1)
    try:
        with pytest.raises(Unavailable, match="unreachable"):
            await nowhere.rerank("q", ["a"])
    finally:
        await nowhere.aclose()


def _store(contents: list[str]) -> ScriptedStore:
    """First-stage order = the order given (vector ranks 1, 2, …)."""
    return ScriptedStore(
        [
            Candidate(memory=memory(text), vector_rank=i, vector_similarity=1 - i / 100)
            for i, text in enumerate(contents, start=1)
        ]
    )


async def test_recall_reranks_only_the_top_n_and_keeps_the_rest_in_order(rerank_server: RerankServer) -> None:
    # Given six first-stage hits where the best match for the words is fourth, and a reranker of the top 4
    store = _store(["alpha", "beta", "gamma", "lisbon trams", "delta", "lisbon trams again"])
    settings = Settings(
        reranker="http", rerank_base_url=rerank_server.base_url, rerank_model="m", rerank_top_n=4
    )
    reranker = make_reranker(settings)
    assert isinstance(reranker, HttpReranker)
    recall = Recall(
        store,
        HashEmbedder(16),
        FixedClock(),
        NullAccessLog(),
        RankingPolicy(),
        reranker=reranker,
        rerank_top_n=4,
    )
    try:
        hits = await recall(
            Principal(tenant_id="t", key_id="k"), None, RecallQuery(text="lisbon trams", top_k=6)
        )
    finally:
        await reranker.aclose()
    # Then only four documents were sent, the matching one leads, and the tail keeps its order
    assert rerank_server.requests[0]["documents"] == ["alpha", "beta", "gamma", "lisbon trams"]
    assert [h.memory.content for h in hits] == [
        "lisbon trams",
        "alpha",
        "beta",
        "gamma",
        "delta",
        "lisbon trams again",
    ]
    assert hits[0].scores.rerank == 2.0
    assert hits[4].scores.rerank is None


async def test_a_failing_reranker_leaves_the_first_stage_order(rerank_server: RerankServer) -> None:
    rerank_server.status = 500
    reranker = HttpReranker(rerank_server.base_url, "m")
    recall = Recall(
        _store(["alpha", "lisbon trams"]),
        HashEmbedder(16),
        FixedClock(),
        NullAccessLog(),
        RankingPolicy(),
        reranker=reranker,
        rerank_top_n=2,
    )
    try:
        hits = await recall(
            Principal(tenant_id="t", key_id="k"), None, RecallQuery(text="lisbon trams", top_k=1)
        )
    finally:
        await reranker.aclose()
    assert [h.memory.content for h in hits] == ["alpha"]
    assert hits[0].scores.rerank is None


def test_the_reranker_is_off_by_default_and_needs_a_url_and_model() -> None:
    assert make_reranker(Settings()) is None
    with pytest.raises(ValueError, match="HINDSIGHT_RERANK_BASE_URL"):
        Settings(reranker="http")
