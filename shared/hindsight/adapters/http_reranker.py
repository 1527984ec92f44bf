"""The Reranker port over a hosted rerank API speaking the common ``/rerank`` wire shape.

Request: ``POST {base_url}/rerank`` with ``{"model", "query", "documents": [str, ...], "top_n"}`` and a
bearer key. Response: a list of ``{"index", "relevance_score"}`` under ``results`` (Cohere, Jina,
Mixedbread, vLLM and llama.cpp servers) or ``data`` (Voyage), or a bare list with ``score`` (Hugging Face
text-embeddings-inference). Documents the answer leaves out score −inf (they keep their relative order
after the scored ones).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import httpx2

from hindsight.domain.errors import Unavailable


class HttpReranker:
    """``rerank`` = one POST per search. Timeouts and HTTP errors raise Unavailable (never the key)."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout_s: float = 10.0
    ) -> None:
        self._url = base_url.rstrip("/") + "/rerank"
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx2.AsyncClient(headers=headers, timeout=timeout_s)

    @property
    def name(self) -> str:
        return self._model

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        if not documents:
            return []
        payload = {
            "model": self._model,
            "query": query,
            "documents": list(documents),
            "top_n": len(documents),
        }
        try:
            response = await self._client.post(self._url, json=payload)
        except httpx2.HTTPError as exc:
            raise Unavailable(f"reranker unreachable ({type(exc).__name__})") from None
        if response.status_code != 200:
            raise Unavailable(f"reranker answered HTTP {response.status_code}")
        try:
            return _scores(response.json(), len(documents))
        except (ValueError, TypeError, KeyError) as exc:
            raise Unavailable(f"reranker answer not understood ({exc})") from None

    async def aclose(self) -> None:
        await self._client.aclose()


def _scores(body: Any, count: int) -> list[float]:
    """Scores in document order from any of the accepted answer shapes."""
    items = body if isinstance(body, list) else body.get("results", body.get("data"))
    if not isinstance(items, list):
        raise ValueError("no 'results' list")
    scores = [-math.inf] * count
    for item in items:
        index = int(item["index"])
        if not 0 <= index < count:
            raise ValueError(f"index {index} out of range")
        value = item.get("relevance_score", item.get("score"))
        scores[index] = float(value)
        if not math.isfinite(scores[index]):
            raise ValueError("a score is not a finite number")
    return scores
