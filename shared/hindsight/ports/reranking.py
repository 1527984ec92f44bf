"""The Reranker port: a second-stage scorer that reads the query and each candidate's text together
(a cross-encoder, usually hosted), applied to the first stage's top N only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class Reranker(Protocol):
    """Scores documents against a query; higher is more relevant."""

    @property
    def name(self) -> str:
        """The model (or service) name, for logs and metrics."""
        ...

    async def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        """One score per document, in the documents' order. Raises Unavailable when the service cannot be
        reached or answers with an error (the caller keeps the first-stage order then)."""
        ...
