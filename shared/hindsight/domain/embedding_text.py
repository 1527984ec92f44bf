"""What text a memory's vectors are computed from, in one place for every path that (re-)embeds a stored
memory: import without vectors and re-embedding under a new model. It is the write path's recipe
(``StoreMemories.prepare``): the content split into chunks, the first chunk carrying the context and the
recall hint (``passage_text``); later chunks are embedded as they are."""

from __future__ import annotations

from hindsight.domain.chunking import TokenWindow, chunk_text
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.text import passage_text


def first_passage(
    content: str,
    *,
    query: str | None = None,
    context: str | None = None,
    window: TokenWindow | None = None,
) -> str:
    """The text of a memory's own vector (chunk 0); ``window``: the embedder's (``chunk_text``)."""
    first = chunk_text(content, window=window)[0] if content else content
    fields: dict[str, object] = {"content": first, "query": query}
    if "context" in MemoryDraft.model_fields:
        fields["context"] = context
    # model_construct: stored rows were validated when written; limits may have changed since.
    return passage_text(MemoryDraft.model_construct(**fields))  # type: ignore[arg-type]
