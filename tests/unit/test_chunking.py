"""Chunking of long memories."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hindsight.domain.chunking import CHUNK_CHARS, chunk_text


def test_short_text_is_one_chunk() -> None:
    assert chunk_text("A short memory.") == ["A short memory."]


def test_long_text_is_cut_at_sentences_with_overlap() -> None:
    text = " ".join(f"Sentence {i} is about topic {i % 5}." for i in range(300))
    chunks = chunk_text(text)
    assert len(chunks) > 1
    assert all(len(c) <= CHUNK_CHARS for c in chunks)
    assert all(c.endswith(".") for c in chunks)
    assert chunks[0].split(". ")[-1] in chunks[1]  # the overlap carries context across the cut


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=8000))
def test_every_character_is_in_some_chunk_and_chunks_are_bounded(text: str) -> None:
    chunks = chunk_text(text)
    assert all(len(c) <= CHUNK_CHARS for c in chunks)
    joined = "".join(chunks)
    assert all(ch in joined for ch in set(text) if not ch.isspace())
