"""Splitting long memories into overlapping chunks for embedding.

multilingual-e5-small reads at most 512 tokens; text past that is cut off by the model, so a long
memory would only be findable by its beginning. Chunks of ~1,200 characters (≈ 300 tokens of English,
well inside 512 with the "passage: " prefix) with a 200-character overlap, cut at sentence or word
boundaries, keep every part searchable; all chunks share the memory's id.
"""

from __future__ import annotations

import re

CHUNK_CHARS = 1200
OVERLAP_CHARS = 200
_BOUNDARY = re.compile(r"(?<=[.!?。！？])\s+|\n{2,}")


def chunk_text(text: str, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    """``[text]`` when it fits, else chunks of at most ``size`` characters, each starting ``overlap``
    characters before the previous one ended, cut at the last sentence (else word) boundary.

    Raises:
        ValueError: ``overlap`` not smaller than ``size``.
    """
    if overlap >= size:
        raise ValueError("overlap must be smaller than size")
    if len(text) <= size:
        return [text]
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            window = text[start:end]
            cut = max((m.end() for m in _BOUNDARY.finditer(window) if m.end() > size // 2), default=-1)
            if cut < 0:
                space = window.rfind(" ", size // 2)
                cut = space + 1 if space > 0 else len(window)
            end = start + cut
        chunks.append(text[start:end].strip())
        if end >= len(text):
            break
        start = max(end - overlap, start + 1)
        # begin the next chunk at a word start
        while start < end and not text[start - 1].isspace():
            start += 1
    return [c for c in chunks if c]
