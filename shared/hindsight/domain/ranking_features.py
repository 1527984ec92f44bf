"""Features of a search candidate for the learned ranker (``domain.learned_ranker``).

Every feature is computed from what the search already has — the candidate's rank and score under each
retrieval signal, the memory row, the other candidates of the pool and the query text — so scoring costs
no extra query. Names are stable: a model file lists the features it was trained on by name, and a model
naming a feature this code does not compute is refused when it is loaded.

Neighbour features read the pool only: a turn's neighbours (the turns said just before and after it in
its conversation, ``StoredMemory.position``) count when another signal put them among the candidates. An
answer is often spread over a question and its reply ("When did you go?" / "Last May!"), and a reply that
says little on its own is found through the turn it answers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache
from itertools import chain

import numpy as np

from hindsight.domain.calendar_words import MONTH_ALT, MONTHS, SEASON_ALT, SEASONS, WEEKDAY_ALT, WEEKDAYS
from hindsight.domain.memory import Candidate, SearchRequest
from hindsight.domain.pool_columns import PoolColumns, Position, pool_columns

RRF_K = 10
"""The rank constant of the reciprocal-rank features (the fallback fusion's k, domain.ranking)."""
NEIGHBOUR_REACH = 2
"""Turns on each side whose first-stage score feeds a candidate's neighbour features."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|week(?:end)?s?|months?|years?|days?|"
    rf"{MONTH_ALT}|(?:{WEEKDAY_ALT})s?|{SEASON_ALT}|"
    r"(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
_WHEN_QUESTION = re.compile(r"^\s*(?:when|what\s+(?:year|month|day|date|time)|how\s+long)\b", re.IGNORECASE)

FEATURES: tuple[str, ...] = (
    "vector_similarity",
    "vector_rr",
    "keyword_score",
    "keyword_rr",
    "entity_matches",
    "entity_rr",
    "signals",
    "fused_rr",
    "neighbour_best",
    "neighbour_sum",
    "neighbour_prev",
    "neighbour_next",
    "query_overlap",
    "length_log",
    "short_turn",
    "is_question",
    "time_words_when_asked",
    "time_words",
    "episodic",
    "idf_overlap",
    "session_best",
    "vector_gap",
    "keyword_rel",
)
"""What ``candidate_features`` computes, in order (the rows of its matrix):

* ``vector_similarity``: cosine similarity to the query (0 when the vector signal did not return it);
  ``vector_rr``, ``keyword_rr``, ``entity_rr``: 1/(RRF_K + rank) under each signal (0 when absent);
  ``keyword_score``: log1p of the full-text rank (ts_rank_cd); ``entity_matches``: query terms among its
  entities; ``signals``: how many signals returned it; ``fused_rr``: the sum of the three rr features.
* ``neighbour_best`` / ``neighbour_sum``: the best and the summed ``fused_rr`` of the pool's turns within
  NEIGHBOUR_REACH positions (same conversation and session), relative to the pool's best ``fused_rr``;
  ``neighbour_prev`` / ``neighbour_next``: that of the turn just before and just after.
* ``query_overlap``: share of the query's words (three letters or more) found in the content.
* ``length_log``: log1p of the content's word count; ``short_turn``: 1 for five words or fewer;
  ``is_question``: the content ends with a question mark.
* ``time_words``: the content names a time (a weekday or weekdays, month, year, "yesterday", "last week", …);
  ``time_words_when_asked``: the same, when the query asks when / what year / how long.
* ``episodic``: 1 for an episodic memory, 0 for a semantic one.
* ``idf_overlap``: the query's words found in the content, each weighted by its rarity in the pool
  (idf = ln((n + 1) / (df + 0.5)), df counted over the n candidates; words of three letters or more, a
  plural/-ed/-ing ending stripped): a word every candidate has (the name the query is about, which
  brought half the pool in) counts little, the one word only the answer has counts much.
* ``session_best``: the best ``fused_rr`` of another candidate of the same conversation and session,
  relative to the pool's best: evidence of one answer often sits in one sitting.
* ``vector_gap``: cosine similarity minus the pool's best (a candidate the vector signal did not return
  gets the pool's lowest similarity); ``keyword_rel``: ``keyword_score`` relative to the pool's best.
"""

STAGE_TWO: tuple[str, ...] = (
    "stage1_gap",
    "stage1_neighbour_best",
    "stage1_neighbour_sum",
    "stage1_session_best",
)
"""What ``stage_two_features`` computes from a first model's scores s (a two-stage model's second stage
reads them beside ``FEATURES``), with p = exp(s − max s) (1 for the first stage's best candidate):

* ``stage1_gap``: s − max s.
* ``stage1_neighbour_best`` / ``stage1_neighbour_sum``: the best and the summed p of the pool's turns
  within NEIGHBOUR_REACH positions (same conversation and session): the neighbour features again, now
  over the first model's judgement instead of the raw signal ranks.
* ``stage1_session_best``: the best p of another candidate of the same conversation and session.
"""

CONTEXT: frozenset[str] = frozenset(
    (
        "neighbour_best",
        "neighbour_sum",
        "neighbour_prev",
        "neighbour_next",
        "session_best",
        "stage1_neighbour_best",
        "stage1_neighbour_sum",
        "stage1_session_best",
    )
)
"""The features read from a candidate's place in a conversation (its neighbour turns and its session,
of ``FEATURES`` and ``STAGE_TWO``). They are 0 for a candidate without a position (a memory that is no
turn of a conversation), where they mean nothing: a learned ranker reads them at their training mean
there (``learned_ranker.Stage.forward``), not as a turn whose neighbours were not found."""

TURN_ONLY: frozenset[str] = CONTEXT | {"query_overlap"}
"""The features a learned ranker reads at their training mean for a candidate without a position:
``CONTEXT``, and ``query_overlap``, whose weight was learnt on conversation turns and means nothing for
another memory. A turn opens with its speaker's name ("Name: …"), so beside ``idf_overlap`` (the rare
query words held) the share of the query's words a turn holds mostly says whose turn it is, and the fit
on LoCoMo weighs it against the turn. Read as such on an agent's plain memories, where the words a
memory shares with the query are what it is about, it sank the memory that states the answer in the
query's own words below ones that share none (bench/agent_memories.py: recall@1 of the shipped model
below the hand-set fusion's). At the mean it adds nothing there: those memories are ordered by the other
features, ``idf_overlap`` among them."""


_GROUP_STRIDE = 1 << 34
_TURN_SHIFT = 1 << 32
"""A position (conversation/session group g, turn t) as one int64 key g·2³⁴ + t + 2³²: exact for any
Postgres integer turn and its neighbours, and ordered by group, then turn."""


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= 3}


_ENDINGS = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """``word`` without a plural, -ed or -ing ending when three or more letters remain (a crude English
    stemmer: "camping", "camped" and "camps" meet as "camp"; enough for overlap within one pool)."""
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) >= len(ending) + 4:
            return word[: -len(ending)]
    return word


class _Query:
    """What the content features look for in every candidate's text, prepared once per query text
    (``_query``): the query's words (``_words``), the words that count for each of its stems, and both as
    ASCII bytes with the time tokens (``_content_features``' fast path). Never changed once built: the
    searches of one text share it."""

    def __init__(self, text: str) -> None:
        self.words = frozenset(_words(text))
        self.stems = frozenset(_stem(w) for w in self.words)
        # _stem(w) is w or w less one of _ENDINGS, so the words that stem to a query stem s are among s and
        # s + each ending: a lookup of each of those instead of stemming every word of every candidate
        self.stem_of = {w: s for s in self.stems for w in (s, *(s + e for e in _ENDINGS)) if _stem(w) == s}
        self.ascii_words = frozenset(w.encode() for w in self.words if w.isascii())
        self.ascii_stem_of = {w.encode(): s for w, s in self.stem_of.items() if w.isascii()}
        # a frozenset: so is what its ``intersection`` returns, a key of ``_content_rows``' table
        self.ascii_wanted = frozenset(_ASCII_TIME_TOKENS | self.ascii_words | self.ascii_stem_of.keys())


@lru_cache(maxsize=512)
def _query(text: str) -> _Query:
    """The ``_Query`` of ``text``, kept for the last 512 texts: a repeated query's is built once (~40 µs
    of Python before a search's first statement goes out, issue 15)."""
    return _Query(text)


def _idf_overlap(stems: AbstractSet[str], held: Sequence[AbstractSet[str]]) -> np.ndarray:
    """Per document: Σ idf of the query's stems it holds (``held``, one set per document) / Σ idf of the
    query's stems, idf over the documents (see ``idf_overlap`` in FEATURES); 0 for every document when
    the query has no word."""
    if not stems or not held:
        return np.zeros(len(held), dtype=np.float64)
    n = len(held)
    df = Counter(chain.from_iterable(held))
    idf = {s: math.log((n + 1) / (df[s] + 0.5)) for s in sorted(stems)}
    total = sum(idf.values())  # > 0: every idf is, df being at most n
    # the sum over each document's stems in sorted order, left to right (a one-stem sum is that idf),
    # once per distinct set: a pool holds a few (~8 in 190 documents, bench/cpu_replay.py captures)
    out: list[float] = []
    sums: dict[frozenset[str], float] = {}
    for h in held:
        if not h:
            out.append(0.0)
        elif len(h) == 1:
            out.append(idf[next(iter(h))] / total)
        else:
            key = frozenset(h)
            value = sums.get(key)
            if value is None:
                value = sums[key] = sum([idf[s] for s in sorted(h)]) / total
            out.append(value)
    return np.array(out, dtype=np.float64)


def _session_best(positions: Sequence[tuple[str, int, int] | None], values: np.ndarray) -> np.ndarray:
    """Per candidate: the best value of another candidate of its (conversation, session); 0 when none
    or without a position."""
    out = np.zeros(len(positions), dtype=np.float64)
    top: dict[tuple[str, int], list[tuple[float, int]]] = {}
    for i, position in enumerate(positions):
        if position is not None:
            best = top.setdefault((position[0], position[1]), [])
            best.append((float(values[i]), i))
            best.sort(reverse=True)
            del best[2:]
    for i, position in enumerate(positions):
        if position is not None:
            others = [v for v, j in top[(position[0], position[1])] if j != i]
            out[i] = others[0] if others else 0.0
    return out


def _rr_column(ranks: np.ndarray) -> np.ndarray:
    """1/(RRF_K + rank) where a rank is given (not NaN), else 0."""
    present = ~np.isnan(ranks)
    out = np.zeros(ranks.shape, dtype=np.float64)
    out[present] = 1.0 / (RRF_K + ranks[present])
    return out


def _neighbour_scores(
    positions: Sequence[tuple[str, int, int] | None], first: np.ndarray, best: float
) -> np.ndarray:
    """(n, 2·NEIGHBOUR_REACH) first-stage scores of each candidate's neighbour turns (offsets −REACH … −1,
    1 … REACH, in that order) divided by ``best``; 0 where that turn is not in the pool or the candidate
    has no position. A position held by several candidates counts with its best score."""
    offsets = [o for o in range(-NEIGHBOUR_REACH, NEIGHBOUR_REACH + 1) if o]
    out = np.zeros((len(positions), len(offsets)), dtype=np.float64)
    groups: dict[tuple[str, int], int] = {}
    rows: list[int] = []
    keys_list: list[int] = []
    for i, position in enumerate(positions):
        if position is not None:
            rows.append(i)
            group = groups.setdefault((position[0], position[1]), len(groups))
            keys_list.append(group * _GROUP_STRIDE + position[2] + _TURN_SHIFT)
    if not rows:
        return out
    index = np.asarray(rows, dtype=np.intp)
    keys = np.asarray(keys_list, dtype=np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    best_at = np.zeros(len(unique), dtype=np.float64)
    np.maximum.at(best_at, inverse, first[index])
    for column, offset in enumerate(offsets):
        wanted = keys + offset
        at = np.minimum(np.searchsorted(unique, wanted), len(unique) - 1)
        found = unique[at] == wanted
        out[index[found], column] = best_at[at[found]] / best
    return out


def pool_positions(candidates: Sequence[Candidate]) -> list[Position | None]:
    """Each candidate's place in its conversation (``StoredMemory.position``), in order: what the neighbour
    and session features of both stages read (computed once per pool, passed to both)."""
    return [c.memory.position for c in candidates]


def candidate_features(
    candidates: Sequence[Candidate],
    request: SearchRequest,
    positions: Sequence[Position | None] | None = None,
    texts: PoolTexts | None = None,
) -> np.ndarray:
    """An (n, len(FEATURES)) float64 matrix: one row of ``FEATURES`` values per candidate, in the
    candidates' order (``pool_features`` of their columns). ``positions``: ``pool_positions(candidates)``,
    when the caller has them already; ``texts``: the content features of texts computed already for this
    query (``PoolTexts``; ignored when built for another text)."""
    pool = pool_columns(candidates)
    return pool_features(pool if positions is None else pool._replace(positions=positions), request, texts)


def pool_features(pool: PoolColumns, request: SearchRequest, texts: PoolTexts | None = None) -> np.ndarray:
    """``candidate_features`` of a pool read into columns (``pool_columns``). Signal and neighbour features
    are computed column-wise with numpy; the content features need one tokenising pass over each
    candidate's text (``_content_features``), unless ``texts`` holds them."""
    n = len(pool.ids)
    out = np.zeros((n, len(FEATURES)), dtype=np.float64)
    if n == 0:
        return out
    # one column per signal, NaN where it did not rank the candidate (numpy reads None as NaN in a float
    # array)
    ranks = np.empty((n, 3), dtype=np.float64)
    ranks[:, 0] = pool.vector_rank
    ranks[:, 1] = pool.keyword_rank
    ranks[:, 2] = pool.entity_rank
    vector_rr, keyword_rr, entity_rr = (_rr_column(ranks[:, j]) for j in range(3))
    first = vector_rr + keyword_rr + entity_rr  # first-stage score: plain reciprocal-rank sum
    best = float(first.max()) or 1.0
    column = _COLUMN
    out[:, column["vector_similarity"]] = [v or 0.0 for v in pool.vector_similarity]
    out[:, column["vector_rr"]] = vector_rr
    # math.log1p, not numpy's: numpy may use vectorised approximations a unit in the last place away
    log1p = math.log1p
    # log1p(max(score or 0, 0)): 0 without a score (most candidates) or with 0, without the calls
    out[:, column["keyword_score"]] = [log1p(max(k, 0.0)) if k else 0.0 for k in pool.keyword_score]
    out[:, column["keyword_rr"]] = keyword_rr
    out[:, column["entity_matches"]] = [float(m or 0) for m in pool.entity_matches]
    out[:, column["entity_rr"]] = entity_rr
    out[:, column["signals"]] = (~np.isnan(ranks)).sum(axis=1)
    out[:, column["fused_rr"]] = first
    positions = pool.positions
    # without a turn in the pool every neighbour and session feature is 0: the matrix's own zeros
    placed = positions.count(None) < n
    if placed:
        neighbours = _neighbour_scores(positions, first, best)
        out[:, column["neighbour_best"]] = neighbours.max(axis=1)
        total = neighbours[:, 0].copy()
        for j in range(1, neighbours.shape[1]):
            total += neighbours[:, j]  # left to right, as a sum over the offsets in order
        out[:, column["neighbour_sum"]] = total
        out[:, column["neighbour_prev"]] = neighbours[:, NEIGHBOUR_REACH - 1]
        out[:, column["neighbour_next"]] = neighbours[:, NEIGHBOUR_REACH]
    given = texts if texts is not None and texts.text == request.text else None
    query = given.query if given is not None else _query(request.text)
    asks_when = bool(_WHEN_QUESTION.search(request.text))
    overlap, counts, question, timed, held = _pool_content_features(
        pool.content, query, given.rows if given is not None else None
    )
    out[:, column["query_overlap"]] = overlap
    out[:, column["length_log"]] = list(map(log1p, counts))
    out[:, column["short_turn"]] = np.array(counts) <= 5
    out[:, column["is_question"]] = question
    out[:, column["time_words"]] = timed
    if asks_when:
        out[:, column["time_words_when_asked"]] = timed
    # as a bool array first: numpy converts a list of Python bools into floats one object at a time
    out[:, column["episodic"]] = np.array([layer == "episodic" for layer in pool.layer], dtype=bool)
    out[:, column["idf_overlap"]] = _idf_overlap(query.stems, held)
    if placed:
        out[:, column["session_best"]] = _session_best(positions, first) / best
    similarity = np.array(pool.vector_similarity, dtype=np.float64)  # None → NaN
    if np.all(np.isnan(similarity)):
        similarity[:] = 0.0
    similarity[np.isnan(similarity)] = np.nanmin(similarity)
    out[:, column["vector_gap"]] = similarity - similarity.max()
    keyword = out[:, column["keyword_score"]]
    out[:, column["keyword_rel"]] = keyword / (keyword.max() or 1.0)
    return out


_COLUMN = {name: i for i, name in enumerate(FEATURES)}
"""Each feature's column in ``pool_features``' matrix."""


def stage_two_features(
    candidates: Sequence[Candidate],
    first_scores: np.ndarray,
    positions: Sequence[Position | None] | None = None,
) -> np.ndarray:
    """An (n, len(STAGE_TWO)) float64 matrix from a first model's scores of the candidates (same order).
    ``positions``: ``pool_positions(candidates)``, when the caller has them already."""
    n = len(candidates)
    out = np.zeros((n, len(STAGE_TWO)), dtype=np.float64)
    if n == 0:
        return out
    scores = np.asarray(first_scores, dtype=np.float64)
    gap = scores - scores.max()
    out[:, 0] = gap
    if positions is None:
        positions = pool_positions(candidates)
    if positions.count(None) < n:  # else every other column is 0
        p = np.exp(gap)
        neighbours = _neighbour_scores(positions, p, 1.0)
        out[:, 1] = neighbours.max(axis=1)
        out[:, 2] = neighbours.sum(axis=1)
        out[:, 3] = _session_best(positions, p)
    return out


_TIME_TOKENS = frozenset(
    (
        *("yesterday", "today", "tonight", "tomorrow", "ago", "last", "next", "this"),
        *("week", "weeks", "weekend", "weekends", "month", "months", "year", "years", "day", "days"),
        *MONTHS,
        *WEEKDAYS,
        *(f"{day}s" for day in WEEKDAYS),  # "on Thursdays": a time, as "on Thursday"
        *SEASONS,
    )
) | frozenset(f"{century}{year:02d}" for century in (19, 20) for year in range(100))
"""Every word ``_TIME_WORDS`` matches, lower-cased."""
_ASCII_TIME_TOKENS = frozenset(t.encode() for t in _TIME_TOKENS)
"""``_TIME_TOKENS`` as ASCII bytes: the fast path's set."""
_ASCII_FOLD = bytes(
    (c | 0x20 if chr(c).isalpha() else c) if chr(c).isalnum() else ord(" ") for c in range(128)
) + bytes(128)
"""ASCII letters → lower case, digits kept, every other ASCII byte → space: then ``split()`` gives ``_WORD``'s
words, lower-cased (only ASCII text is translated; the upper half is never read)."""


ContentRow = tuple[float, int, float, float, AbstractSet[str]]
"""``_content_features`` of one text as one tuple: (query overlap, word count, ends with "?", names a
time, query stems held)."""
ContentColumns = tuple[
    tuple[float, ...], tuple[int, ...], tuple[float, ...], tuple[float, ...], tuple[AbstractSet[str], ...]
]
"""``ContentRow``'s values of a pool's texts, as one column each."""


class PoolTexts:
    """The content features of a search's candidate texts against its query, computed as the statements
    that find them return (``add``, the store's ``prepare`` hook of ``search_candidates``), so that
    tokenising a statement's texts runs while the other statements, or the query embedding, are still
    under way instead of after the last of them (~5 µs a text, ~200 texts a pool: most of the features'
    CPU, bench/cpu_replay.py). Keyed by the text itself: a content feature depends on nothing else (a
    memory rewound to another text at a point in time is computed anew), and ``candidate_features``
    computes any text not given here, so what is added changes no value, only when it is computed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.query = _query(text)
        self.rows: dict[str, ContentRow] = {}

    def add(self, contents: Sequence[str]) -> None:
        """Compute the features of the texts not seen yet."""
        rows = self.rows
        new = [c for c in contents if c not in rows]
        rows.update(zip(new, _content_rows(new, self.query), strict=True))


def _pool_content_features(
    contents: Sequence[str], query: _Query, known: dict[str, ContentRow] | None = None
) -> ContentColumns:
    """``_content_features`` of every text of a pool, as columns: (query overlap, word count, ends with
    "?", names a time, query stems held); those of ``known`` (``PoolTexts.rows``) as they are there."""
    if not contents:
        return (), (), (), (), ()
    if known:
        rows: list[ContentRow | None] = list(map(known.get, contents))
        if None in rows:  # a text the statements' rows did not bring (none, in a search)
            missing = [c for c, row in zip(contents, rows, strict=True) if row is None]
            computed = iter(_content_rows(missing, query))
            rows = [row if row is not None else next(computed) for row in rows]
        columns = zip(*rows, strict=True)
    else:
        columns = zip(*_content_rows(contents, query), strict=True)
    overlaps, counts, questions, timed, held = columns
    return overlaps, counts, questions, timed, held


def _content_rows(contents: Sequence[str], query: _Query) -> list[ContentRow]:
    """``_content_features`` of each text, as one tuple a text. The fast path is inlined (a call, a tuple
    and its unpacking less per candidate, and the sets and divisions skipped for a text holding none of
    the wanted words); other text goes through ``_content_features``."""
    out: list[ContentRow] = []
    fold, time_tokens, wanted = _ASCII_FOLD, _ASCII_TIME_TOKENS, query.ascii_wanted
    words, stem_of, width = query.ascii_words, query.ascii_stem_of, len(query.words)
    stem_keys = stem_of.keys()
    nothing: frozenset[str] = frozenset()
    # (query overlap, names a time, query stems held) by the wanted words a text holds: a function of
    # those words alone, and a pool's texts hold few distinct sets of them (~40 in 215 texts, bench/
    # cpu_replay.py captures), so each set's values are computed once (the set is a frozenset: ``wanted``
    # is one, and so is what its ``intersection`` returns)
    by_found: dict[frozenset[bytes], tuple[float, float, frozenset[str]]] = {frozenset(): (0.0, 0.0, nothing)}
    for content in contents:
        if content.isascii() and "_" not in content:
            tokens = content.encode("ascii").translate(fold).split()
            question = 1.0 if content.rstrip().endswith("?") else 0.0
            found = wanted.intersection(tokens)
            values = by_found.get(found)
            if values is None:
                timed = 0.0 if time_tokens.isdisjoint(found) else 1.0
                if stem_keys.isdisjoint(found):  # time words only: every query word is a stem key
                    values = (0.0, timed, nothing)
                else:
                    overlap = len(words & found) / width if width else 0.0
                    values = (overlap, timed, frozenset([stem_of[w] for w in found if w in stem_of]))
                by_found[found] = values
            overlap, timed, held = values
            out.append((overlap, len(tokens), question, timed, held))
        else:
            (overlap, count, question, time), stems = _content_features(content, query)
            out.append((overlap, count, question, time, stems))
    return out


_TIME_LENGTHS = range(min(map(len, _TIME_TOKENS)), max(map(len, _TIME_TOKENS)) + 1)
"""The lengths of ``_TIME_WORDS``' words (3–10): a case-insensitive match of one is as long as it."""


def _names_time(content: str, words: Sequence[str]) -> bool:
    """``_TIME_WORDS.search(content) is not None``, given ``words = _WORD.findall(content)``, without
    scanning the text at every position (the slow part of the regular-expression path).

    A match of ``\\b(?:…)\\b`` is made of word characters only: every alternative is ASCII letters and
    digits, and the only other characters matching one case-insensitively are letters ("İ" and "ı" for
    "i", "ſ" for "s", the Kelvin sign for "k"; found over every code point). So a match is a whole run
    of ``\\w`` between boundaries, and without "_" in the text those runs are exactly ``_WORD``'s
    words. A word of ASCII characters matches when it is one of ``_TIME_TOKENS`` lower-cased (for ASCII,
    case-insensitive is lower-case equality); any other word when the expression matches it whole (its
    own case rules). Text with "_" goes through the expression itself."""
    if "_" in content:
        return _TIME_WORDS.search(content) is not None
    tokens, lengths, pattern = _TIME_TOKENS, _TIME_LENGTHS, _TIME_WORDS
    for word in words:
        if len(word) in lengths:
            if word.isascii():
                if word.lower() in tokens:
                    return True
            elif pattern.fullmatch(word) is not None:
                return True
    return False


_UTF8_SEPARATORS = bytes(c if chr(c).isalnum() or c >= 128 else ord(" ") for c in range(256))
"""UTF-8 bytes: every ASCII byte that is not a letter or a digit → space, the others (ASCII letters and
digits, and every byte of a multi-byte character) kept."""


def _split_words(content: str) -> tuple[list[str], list[str]] | None:
    """``(_WORD.findall(content), _WORD.findall(content.casefold()))`` without the regular expression
    (~3x faster on text with a few accented letters), or None for text it cannot answer exactly: text
    with a non-ASCII character that is not a word character and not whitespace (a curly quote, a dash,
    a combining mark), or a word character whose case fold is not one word character ("ß").

    ``_WORD`` matches the maximal runs of ``isalnum`` characters (Python's ``\\w`` for str patterns is
    ``isalnum`` or "_"). With its ASCII separators made spaces, the text holds ASCII separators as
    spaces, whitespace, and other characters; when every one of those others is a word character
    (``isalnum`` of the words joined), ``split()`` cuts exactly between the runs (no word character is
    whitespace). Case folding is per character, without context: the words joined fold to as many
    characters, all word characters, only when each word character folds to one word character, and
    whitespace folds to itself, so the folded text splits into the words folded — the runs the
    regular expression finds in ``content.casefold()``."""
    spaced = content.encode().translate(_UTF8_SEPARATORS).decode()
    words = spaced.split()
    joined = "".join(words)
    folded = joined.casefold()
    if len(folded) != len(joined) or not joined.isalnum() or not folded.isalnum():
        return None
    return words, spaced.casefold().split()


def _content_features(content: str, query: _Query) -> tuple[tuple[float, int, float, float], set[str]]:
    """(query overlap, word count, ends with "?", names a time) of one candidate's text, and the query
    stems it holds (``_idf_overlap``).

    ASCII text without underscores (most text) takes one tokenising pass over its bytes: there ``_WORD``'s
    words are exactly the ``\\w+`` runs ``_TIME_WORDS`` looks at and case-folding is lower-casing, so one
    set intersection with the words the features look for (the query's, its stems' and the time tokens)
    answers what the regular expressions would. Query words have three letters or more, so shorter words
    of the text never meet them (nor any word idf_overlap looks for). Other text goes through the regular
    expressions."""
    if content.isascii() and "_" not in content:
        tokens = content.encode("ascii").translate(_ASCII_FOLD).split()
        count = len(tokens)
        found = query.ascii_wanted.intersection(tokens)
        timed = not _ASCII_TIME_TOKENS.isdisjoint(found)
        overlap = len(query.ascii_words & found) / len(query.words) if query.words else 0.0
        stem_of = query.ascii_stem_of
        held = {stem_of[w] for w in found if w in stem_of}
    elif (split := _split_words(content)) is not None:
        words, folded = split
        count = len(words)
        content_words = {w for w in folded if len(w) >= 3}
        timed = _names_time(content, words)
        overlap = len(query.words & content_words) / len(query.words) if query.words else 0.0
        held = {query.stem_of[w] for w in content_words.intersection(query.stem_of)}
    else:
        words = _WORD.findall(content)
        count = len(words)
        content_words = {w.casefold() for w in words if len(w) >= 3}
        timed = _names_time(content, words)
        overlap = len(query.words & content_words) / len(query.words) if query.words else 0.0
        held = {query.stem_of[w] for w in _words(content).intersection(query.stem_of)}
    features = (overlap, count, 1.0 if content.rstrip().endswith("?") else 0.0, 1.0 if timed else 0.0)
    return features, held
