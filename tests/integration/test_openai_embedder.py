"""The OpenAI-compatible embedder against a real loopback HTTP server speaking the ``/v1/embeddings``
wire format (stdlib ``http.server`` on 127.0.0.1, port 0, in a thread), through the real ``openai``
client (3.x, on httpx) — the hosted embedding option must work against any compatible server.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np
import pytest

from hindsight.adapters.embedders.openai_embedder import MAX_INPUTS_PER_CALL, OpenAIEmbedder
from hindsight.config import Settings
from hindsight.factories import make_embedder
from tests.support import loopback_http_server, send_json

pytestmark = pytest.mark.anyio

DIM = 8


def _vector(text: str, dim: int) -> list[float]:
    """A deterministic vector per text, so the test can tell which input each row belongs to."""
    rng = np.random.default_rng(sum(text.encode()) + len(text))
    return [float(x) for x in rng.standard_normal(dim).astype(np.float32)]


@dataclass
class EmbeddingServer:
    """Answers POST /v1/embeddings; rows come back in reverse index order (clients must sort)."""

    dim: int = DIM
    fail_first: int = 0  # answer this many requests with 429 before succeeding
    requests: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def _handler(server: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            server.requests.append({"path": self.path, **body})
            server.auth.append(self.headers.get("Authorization", ""))
            headers: dict[str, str] = {}
            if len(server.requests) <= server.fail_first:
                status = 429
                payload: dict[str, Any] = {"error": {"message": "slow down", "type": "rate_limit"}}
                headers["retry-after-ms"] = "10"
            else:
                status = 200
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                rows = []
                for index, text in enumerate(inputs):
                    vec = _vector(text, server.dim)
                    embedding: Any = vec
                    if body.get("encoding_format") == "base64":
                        embedding = base64.b64encode(np.asarray(vec, dtype=np.float32).tobytes()).decode()
                    rows.append({"object": "embedding", "index": index, "embedding": embedding})
                payload = {
                    "object": "list",
                    "data": list(reversed(rows)),
                    "model": body["model"],
                    "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                }
            send_json(self, status, payload, headers)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    state = EmbeddingServer()
    with loopback_http_server(_handler(state)) as state.port:
        yield state


def _embedder(server: EmbeddingServer, model: str = "text-embedding-3-small") -> OpenAIEmbedder:
    return OpenAIEmbedder(api_key="sk-test", base_url=server.base_url, model=model, dim=DIM)


async def test_passages_come_back_in_input_order_with_the_configured_dimensions(
    server: EmbeddingServer,
) -> None:
    texts = ["the user prefers dark mode", "order 4411 shipped", "retry after HTTP 429"]
    vectors = await _embedder(server).embed_passages(texts)

    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(_vector(text, DIM), rel=1e-6)
    (request,) = server.requests
    assert request["path"] == "/v1/embeddings"
    assert request["model"] == "text-embedding-3-small"
    assert request["dimensions"] == DIM  # text-embedding-3 models are asked for the stored width
    assert server.auth == ["Bearer sk-test"]


async def test_other_models_are_not_sent_a_dimensions_field(server: EmbeddingServer) -> None:
    await _embedder(server, model="nomic-embed-text").embed_query("display preference")

    assert "dimensions" not in server.requests[0]
    assert server.requests[0]["input"] == ["display preference"]


async def test_more_inputs_than_one_request_allows_are_split(server: EmbeddingServer) -> None:
    texts = [f"memory {i}" for i in range(MAX_INPUTS_PER_CALL + 3)]
    vectors = await _embedder(server).embed_passages(texts)

    assert [len(r["input"]) for r in server.requests] == [MAX_INPUTS_PER_CALL, 3]
    assert vectors[-1] == pytest.approx(_vector(texts[-1], DIM), rel=1e-6)
    assert len(vectors) == len(texts)


async def test_a_429_is_retried_then_succeeds(server: EmbeddingServer) -> None:
    server.fail_first = 1
    vector = await _embedder(server).embed_query("is that order delivered?")

    assert len(server.requests) == 2
    assert vector == pytest.approx(_vector("is that order delivered?", DIM), rel=1e-6)


async def test_a_server_returning_another_width_is_refused_naming_both(server: EmbeddingServer) -> None:
    server.dim = DIM + 4
    with pytest.raises(ValueError, match=rf"returned {DIM + 4} dimensions.*is {DIM}"):
        await _embedder(server).embed_passages(["anything"])


async def test_no_inputs_make_no_request(server: EmbeddingServer) -> None:
    assert await _embedder(server).embed_passages([]) == []
    assert server.requests == []


async def test_settings_select_the_openai_embedder(server: EmbeddingServer) -> None:
    settings = Settings(
        embedder="openai",
        embedding_dim=DIM,
        openai_api_key="sk-from-settings",
        openai_base_url=server.base_url,
    )
    embedder = make_embedder(settings)

    assert embedder.dim == DIM
    assert await embedder.embed_query("hello") == pytest.approx(_vector("hello", DIM), rel=1e-6)
    assert server.auth == ["Bearer sk-from-settings"]
