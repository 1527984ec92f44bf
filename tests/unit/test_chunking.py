"""Chunking of long memories."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from hindsight.domain.chunking import CHUNK_CHARS, TokenWindow, chunk_text


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


def _window(limit: int = 512) -> TokenWindow:
    """A stand-in tokenizer: one token per non-ASCII character, one per 3 ASCII ones, +5 for the prefix
    and special tokens (about e5's counts for emoji and for ``x`` runs)."""

    def count(text: str) -> int:
        wide = sum(1 for ch in text if not ch.isascii())
        return wide + (len(text) - wide + 2) // 3 + 5

    return TokenWindow(count=count, limit=limit)


def test_a_chunk_past_the_token_window_is_cut_shorter_and_every_chunk_fits() -> None:
    """New-user trial F2: 1,200 emoji are 1,204 e5 tokens; every chunk now fits the model's window."""
    window = _window()
    emoji = "😀" * 32_000
    chunks = chunk_text(emoji, window=window)
    assert all(window.count(c) <= 512 for c in chunks)
    assert "".join(chunks) == emoji  # nothing lost, nothing repeated: no word boundary to overlap at
    assert len(chunks) == -(-32_000 // 507)  # linear in the tokens: 507 content tokens a chunk
    assert chunk_text("😀" * 1200, window=window) != ["😀" * 1200]  # short in characters, long in tokens


def test_text_that_fits_the_window_is_chunked_exactly_as_by_characters() -> None:
    window = _window()
    for text in (
        " ".join(f"Sentence {i} is about topic {i % 5}." for i in range(300)),
        "x" * 32_000,
        "A short memory.",
    ):
        assert chunk_text(text, window=window) == chunk_text(text)


def test_a_shortened_chunk_keeps_sentence_cuts_and_a_shorter_overlap() -> None:
    window = _window()
    text = " ".join(f"Ünïcödé séntéñcé {i} äbøüt tøpïç {i % 5}." for i in range(200))
    chunks = chunk_text(text, window=window)
    assert all(window.count(c) <= 512 for c in chunks)
    assert all(c.endswith(".") for c in chunks)
    assert chunks[0].split(". ")[-1] in chunks[1]


@given(
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=4000),
    st.integers(min_value=20, max_value=600),
)
def test_every_character_is_in_some_chunk_and_every_chunk_fits_the_window(text: str, limit: int) -> None:
    window = _window(limit)
    chunks = chunk_text(text, window=window)
    assert all(len(c) <= CHUNK_CHARS and (window.count(c) <= limit or len(c) == 1) for c in chunks)
    joined = "".join(chunks)
    assert all(ch in joined for ch in set(text) if not ch.isspace())
