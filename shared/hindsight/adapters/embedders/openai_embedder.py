"""OpenAI-compatible embeddings (``text-embedding-3-small`` by default) for hosted deployments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hindsight.domain.chunking import TokenWindow
from hindsight.ports import Vector

MAX_INPUTS_PER_CALL = 2048  # OpenAI's documented limit on inputs per embeddings request


class OpenAIEmbedder:
    """Embedder port over any server speaking the OpenAI ``/v1/embeddings`` wire format.

    ``dimensions`` is sent for text-embedding-3 models (they support shortening, per OpenAI's
    "New embedding models" note, 2024-01-25); vectors are returned as the API gives them
    (unit length for OpenAI models).
    """

    def __init__(
        self, *, api_key: str | None, base_url: str | None, model: str, dim: int, client: Any = None
    ) -> None:
        self._api_key = api_key
        self._base_url = base_url
        self._model = model
        self._dim = dim
        self._client = client

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return f"openai/{self._model}"

    def _get(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=self._api_key or "unused", base_url=self._base_url, max_retries=3, timeout=30.0
            )
        return self._client

    async def _embed(self, texts: Sequence[str]) -> list[Vector]:
        out: list[Vector] = []
        extra: dict[str, Any] = (
            {"dimensions": self._dim} if self._model.startswith("text-embedding-3") else {}
        )
        for start in range(0, len(texts), MAX_INPUTS_PER_CALL):
            chunk = list(texts[start : start + MAX_INPUTS_PER_CALL])
            response = await self._get().embeddings.create(model=self._model, input=chunk, **extra)
            rows = sorted(response.data, key=lambda d: d.index)
            for row in rows:
                if len(row.embedding) != self._dim:
                    raise ValueError(
                        f"embedding model {self._model} returned {len(row.embedding)} dimensions, "
                        f"configured HINDSIGHT_EMBEDDING_DIM is {self._dim}"
                    )
                out.append(list(row.embedding))
        return out

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        return await self._embed(texts) if texts else []

    async def embed_query(self, text: str) -> Vector:
        return (await self._embed([text]))[0]

    def passage_window(self) -> TokenWindow | None:
        """None: OpenAI's embedding models read 8,191 tokens, and a chunk of ``CHUNK_CHARS`` characters is
        at most a few thousand of them (cl100k_base: at most 4 per character, one per UTF-8 byte)."""
        return None
