"""The learned ranker's features are computed column-wise with numpy (``ranking_features``); they must
equal the plain per-candidate definition below — the code that trained the shipped model — on any pool,
and ``rank_candidates`` must rank exactly as scoring every candidate one by one would."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from hindsight.domain.learned_ranker import load_ranker
from hindsight.domain.memory import Candidate, SearchRequest, StoredMemory
from hindsight.domain.ranking import (
    LEARNED_TEMPERATURE,
    RankingPolicy,
    frequency,
    rank_candidates,
    reciprocal_rank_fusion,
    score_candidates,
    time_fit,
)
from hindsight.domain.ranking_features import (
    _TIME_TOKENS,
    _TIME_WORDS,
    _WHEN_QUESTION,
    _WORD,
    FEATURES,
    NEIGHBOUR_REACH,
    RRF_K,
    STAGE_TWO,
    PoolTexts,
    _content_features,
    _names_time,
    _Query,
    _split_words,
    _stem,
    candidate_features,
    pool_positions,
    stage_two_features,
)
from hindsight.domain.timeparse import TimeIntent, detect_time_intent

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (RRF_K + rank)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= 3}


def reference_features(candidates: Sequence[Candidate], request: SearchRequest) -> list[list[float]]:
    """The per-candidate definition of every feature, in plain Python (as the shipped model was trained)."""
    first = [_rr(c.vector_rank) + _rr(c.keyword_rank) + _rr(c.entity_rank) for c in candidates]
    best = max(first, default=0.0) or 1.0
    by_position: dict[tuple[str, int, int], float] = {}
    for cand, score in zip(candidates, first, strict=True):
        position = cand.memory.position
        if position is not None:
            by_position[position] = max(score, by_position.get(position, 0.0))
    query_words = _words(request.text)
    asks_when = bool(_WHEN_QUESTION.search(request.text))
    # idf over the pool of the query's stems; similarities with a missing one as the pool's lowest
    query_stems = {_stem(w) for w in query_words}
    held = [query_stems & {_stem(w) for w in _words(c.memory.content)} for c in candidates]
    idf = {s: math.log((len(candidates) + 1) / (sum(s in h for h in held) + 0.5)) for s in query_stems}
    found = [c.vector_similarity for c in candidates if c.vector_similarity is not None]
    similarities = [
        c.vector_similarity if c.vector_similarity is not None else min(found, default=0.0)
        for c in candidates
    ]
    keyword_scores = [math.log1p(max(c.keyword_score or 0.0, 0.0)) for c in candidates]
    rows: list[list[float]] = []
    for i, (cand, fused) in enumerate(zip(candidates, first, strict=True)):
        memory = cand.memory
        content = memory.content
        neighbours: dict[int, float] = {}
        position = memory.position
        if position is not None:
            conversation, session, turn = position
            for offset in range(-NEIGHBOUR_REACH, NEIGHBOUR_REACH + 1):
                if offset:
                    neighbours[offset] = by_position.get((conversation, session, turn + offset), 0.0) / best
        words = _WORD.findall(content)
        content_words = {w.casefold() for w in words if len(w) >= 3}
        timed = 1.0 if _TIME_WORDS.search(content) else 0.0
        rows.append(
            [
                cand.vector_similarity or 0.0,
                _rr(cand.vector_rank),
                math.log1p(max(cand.keyword_score or 0.0, 0.0)),
                _rr(cand.keyword_rank),
                float(cand.entity_matches or 0),
                _rr(cand.entity_rank),
                float(sum(r is not None for r in (cand.vector_rank, cand.keyword_rank, cand.entity_rank))),
                fused,
                max(neighbours.values(), default=0.0),
                sum(neighbours.values()),
                neighbours.get(-1, 0.0),
                neighbours.get(1, 0.0),
                len(query_words & content_words) / len(query_words) if query_words else 0.0,
                math.log1p(len(words)),
                1.0 if len(words) <= 5 else 0.0,
                1.0 if content.rstrip().endswith("?") else 0.0,
                timed if asks_when else 0.0,
                timed,
                1.0 if memory.layer == "episodic" else 0.0,
                sum(idf[s] for s in held[i]) / sum(idf.values()) if query_stems else 0.0,
                max(
                    (
                        first[j]
                        for j, other in enumerate(candidates)
                        if j != i
                        and position is not None
                        and other.memory.position is not None
                        and other.memory.position[:2] == position[:2]
                    ),
                    default=0.0,
                )
                / best,
                similarities[i] - max(similarities),
                keyword_scores[i] / (max(keyword_scores) or 1.0),
            ]
        )
    return rows


_VOCABULARY = [
    "Maya", "went", "to", "Lisbon", "last", "May", "yesterday", "when", "did", "you", "go", "2023",
    "Straße", "café", "ΣΊΣΥΦΟΣ", "東京", "week", "the", "dog", "a", "ok", "summer", "how", "long", "?", "!",
    "what", "year", "under_score", "x", "LAST", "Weekends", "WeekEnd", "1999", "20235", "2023rd", "2100",
    "ſunday", "KELVIN", "Kelvin", "İstanbul", "tonight's", "mid-summer", "o'clock", "last_week", "٢٠٢٣",
]  # fmt: skip
_text = st.lists(st.sampled_from(_VOCABULARY), max_size=25).map(" ".join)
_rank = st.none() | st.integers(min_value=1, max_value=120)


@st.composite
def _candidate(draw: st.DrawFn) -> Candidate:
    positioned = draw(st.booleans())
    vector_rank, keyword_rank, entity_rank = draw(_rank), draw(_rank), draw(_rank)
    memory = StoredMemory(
        id=uuid.UUID(int=draw(st.integers(min_value=0, max_value=2**128 - 1))),
        tenant_id="t",
        agent_id="a",
        layer=draw(st.sampled_from(["episodic", "semantic"])),
        key=None,
        query=None,
        content=draw(_text) + draw(st.sampled_from(["", "?", " ? ", "."])),
        importance=draw(st.floats(min_value=0, max_value=1)),
        access_count=draw(st.integers(min_value=0, max_value=50)),
        last_accessed_at=None,
        created_at=NOW - timedelta(days=draw(st.integers(min_value=0, max_value=900))),
        occurred_at=None,
        metadata={},
        status="active",
        source=draw(st.sampled_from(["user_stated", "agent_inferred"])),
        conversation_id=draw(st.sampled_from(["c1", "c2"])) if positioned else None,
        turn_index=draw(st.integers(min_value=0, max_value=12)) if positioned else None,
        session_index=draw(st.none() | st.integers(min_value=0, max_value=2)) if positioned else None,
    )
    return Candidate(
        memory=memory,
        vector_rank=vector_rank,
        vector_similarity=None if vector_rank is None else draw(st.floats(min_value=-1, max_value=1)),
        keyword_rank=keyword_rank,
        keyword_score=None if keyword_rank is None else draw(st.floats(min_value=0, max_value=5)),
        entity_rank=entity_rank,
        entity_matches=None if entity_rank is None else draw(st.integers(min_value=1, max_value=4)),
    )


_pools = st.lists(_candidate(), max_size=60, unique_by=lambda c: c.memory.id)
_queries = (
    st.sampled_from(
        ["When did Maya go to Lisbon?", "what year was the café opened", "how long", "東京 Straße", "a", ""]
    )
    | _text
)


@settings(max_examples=300, deadline=None)
@given(pool=_pools, query=_queries)
def test_numpy_features_equal_the_per_candidate_definition(pool: list[Candidate], query: str) -> None:
    request = SearchRequest(text=query, top_k=10, now=NOW)
    fast = candidate_features(pool, request)
    reference = np.array(reference_features(pool, request), dtype=np.float64).reshape(-1, len(FEATURES))
    assert fast.shape == reference.shape
    assert np.max(np.abs(fast - reference), initial=0.0) <= 1e-9


def test_a_position_held_twice_counts_with_its_best_score_and_far_turns_are_not_neighbours() -> None:
    def turn(number: int, rank: int, session: int = 1) -> Candidate:
        memory = StoredMemory(
            id=uuid.uuid4(), tenant_id="t", agent_id="a", layer="episodic", key=None, query=None,
            content="x", importance=0.5, access_count=0, last_accessed_at=None, created_at=NOW,
            occurred_at=None, metadata={}, status="active", conversation_id="c", turn_index=number,
            session_index=session,
        )  # fmt: skip
        return Candidate(memory=memory, vector_rank=rank, vector_similarity=0.5)

    pool = [turn(5, 1), turn(5, 50), turn(6, 3), turn(8, 2), turn(2**31 - 1, 4), turn(0, 5, session=2)]
    request = SearchRequest(text="x", top_k=3, now=NOW)
    fast = candidate_features(pool, request)
    np.testing.assert_array_equal(fast, np.array(reference_features(pool, request)))
    # turn 6's previous turn is turn 5, held by ranks 1 and 50: the better one counts (the pool's best)
    assert fast[2, FEATURES.index("neighbour_prev")] == 1.0


@settings(max_examples=150, deadline=None)
@given(pool=_pools, query=_queries, top_k=st.integers(min_value=1, max_value=70))
def test_rank_candidates_returns_the_reference_order_and_scores(
    pool: list[Candidate], query: str, top_k: int
) -> None:
    ranker = load_ranker()
    policy = RankingPolicy(learned=ranker)
    request = SearchRequest(text=query, top_k=top_k, now=NOW)
    intent = detect_time_intent(query, NOW)
    hits = rank_candidates(pool, policy=policy, now=NOW, top_k=top_k, intent=intent, request=request)
    # the reference: score every candidate from the per-candidate features, sort, take top_k
    model = ranker.score(reference_features(pool, request), pool) if pool else []
    top = max(model, default=0.0)
    expected = []
    for cand, score in zip(pool, model, strict=True):
        memory, weights = cand.memory, policy.weights[cand.memory.layer]
        relevance = math.exp((score - top) / LEARNED_TEMPERATURE)
        prior = (
            weights.similarity
            + weights.recency * time_fit(memory, intent, NOW, policy.recency_half_life)
            + weights.frequency * frequency(memory.access_count, policy.frequency_saturation)
        )
        final = (
            policy.relevance_weight
            * relevance
            * prior
            / (weights.similarity + weights.recency + weights.frequency)
            + (1.0 - policy.relevance_weight) * memory.importance
        )
        if memory.source == "agent_inferred":
            final *= policy.inferred_penalty
        expected.append((-final, -(cand.vector_similarity or 0.0), str(memory.id), score))
    expected.sort()
    assert [str(h.memory.id) for h in hits] == [e[2] for e in expected[:top_k]]
    for hit, (neg_final, _, _, score) in zip(hits, expected, strict=False):
        assert abs(hit.scores.final + neg_final) <= 1e-9
        assert hit.scores.model is not None
        assert abs(hit.scores.model - score) <= 1e-9
        cand = next(c for c in pool if c.memory.id == hit.memory.id)
        ranks = (cand.vector_rank, cand.keyword_rank, cand.entity_rank)
        assert hit.scores.rrf == reciprocal_rank_fusion(ranks, policy.rrf_k, policy.signal_weights)


def reference_stage_two(candidates: Sequence[Candidate], scores: Sequence[float]) -> list[list[float]]:
    """The per-candidate definition of ``STAGE_TWO``: p = exp(score − best score) of the turns around each
    candidate (best and sum over the positions within NEIGHBOUR_REACH) and of its session's others."""
    top = max(scores)
    p = [math.exp(s - top) for s in scores]
    by_position: dict[tuple[str, int, int], float] = {}
    for cand, value in zip(candidates, p, strict=True):
        if cand.memory.position is not None:
            by_position[cand.memory.position] = max(value, by_position.get(cand.memory.position, 0.0))
    rows = []
    for i, cand in enumerate(candidates):
        position = cand.memory.position
        around = (
            [
                by_position.get((position[0], position[1], position[2] + o), 0.0)
                for o in range(-NEIGHBOUR_REACH, NEIGHBOUR_REACH + 1)
                if o
            ]
            if position is not None
            else [0.0]
        )
        session = [
            p[j]
            for j, other in enumerate(candidates)
            if j != i
            and position is not None
            and other.memory.position is not None
            and other.memory.position[:2] == position[:2]
        ]
        rows.append([scores[i] - top, max(around), sum(around), max(session, default=0.0)])
    return rows


@settings(max_examples=200, deadline=None)
@given(pool=_pools, scores=st.lists(st.floats(min_value=-30, max_value=30), min_size=60, max_size=60))
def test_stage_two_features_equal_the_per_candidate_definition(
    pool: list[Candidate], scores: list[float]
) -> None:
    first = np.array(scores[: len(pool)])
    fast = stage_two_features(pool, first)
    assert fast.shape == (len(pool), len(STAGE_TWO))
    if pool:
        reference = np.array(reference_stage_two(pool, list(first)))
        assert np.max(np.abs(fast - reference)) <= 1e-9


def _regex_content_features(content: str, query: _Query) -> tuple[tuple[float, int, float, float], set[str]]:
    """``_content_features`` by its definition alone: the regular expressions, on any text."""
    words = _WORD.findall(content)
    content_words = {w.casefold() for w in words if len(w) >= 3}
    overlap = len(query.words & content_words) / len(query.words) if query.words else 0.0
    timed = 1.0 if _TIME_WORDS.search(content) else 0.0
    held = {_stem(w) for w in _words(content)} & query.stems
    return (overlap, len(words), 1.0 if content.rstrip().endswith("?") else 0.0, timed), held


_ascii_text = st.lists(
    st.sampled_from(
        [*(w for w in _VOCABULARY if w.isascii()), "camping", "camps", "Camped", "x-ray", "4pm", " "]
    )
    | st.text(alphabet=st.characters(max_codepoint=127), max_size=6),
    max_size=25,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(content=_ascii_text | _text, query=_queries | _ascii_text)
@example(content="We went camping, camped twice; the camps! Last May?", query="Camping in May 2023")
@example(content="Maya's café, last week", query="when did Maya go to the café")
def test_the_ascii_tokeniser_gives_exactly_what_the_regular_expressions_give(
    content: str, query: str
) -> None:
    prepared = _Query(query)
    assert _content_features(content, prepared) == _regex_content_features(content, prepared)


_CASELESS_LOOKALIKES = ("\u0130", "\u0131", "\u017f", "\u212a")
"""İ, ı, ſ and the Kelvin sign: the only non-ASCII characters a case-insensitive "i", "s" or "k" matches."""
_tricky_text = st.text(
    alphabet=st.sampled_from([*"adefhilmnorstuwyk0129 _-'?", *_CASELESS_LOOKALIKES, "é", "ß", "٢", "ﬆ"]),
    max_size=30,
)


@settings(max_examples=500, deadline=None)
@given(content=_tricky_text | _text)
@example(content="see you fr\u0130day")
@example(content="wee\u212aend plans")
@example(content="la\ufb06 week")
@example(content="in 20\u0662\u0663")
@example(content="last_week, café")
def test_time_words_found_by_word_equal_the_expression(content: str) -> None:
    assert _names_time(content, _WORD.findall(content)) == (_TIME_WORDS.search(content) is not None)


def test_time_words_with_a_lookalike_letter_equal_the_expression() -> None:
    """Every time word with one letter replaced by a character a case-insensitive match may take for
    it (or by one it may not), alone and between other words."""
    for token in sorted(_TIME_TOKENS):
        for i in range(len(token)):
            for char in (*_CASELESS_LOOKALIKES, "é", "_", "ß", "\u0345", "\u0662", token[i].upper()):
                changed = token[:i] + char + token[i + 1 :]
                for content in (changed, f"on {changed}, then", f"{changed}é", f"é {changed}"):
                    expected = _TIME_WORDS.search(content) is not None
                    assert _names_time(content, _WORD.findall(content)) == expected, content


@settings(max_examples=100, deadline=None)
@given(pool=_pools, query=_queries, data=st.data())
def test_features_of_texts_prepared_as_statements_return_equal_those_computed_at_once(
    pool: list[Candidate], query: str, data: st.DataObject
) -> None:
    """The search hands ranking each statement's texts as they arrive (``PoolTexts.add``, some texts
    twice, some of another query's pool never ranked): the matrix and the scores are the same bytes as
    when every text is tokenised at once, and texts prepared for another query are not used."""
    request = SearchRequest(text=query, top_k=10, now=NOW)
    policy = RankingPolicy(learned=load_ranker())
    at_once = candidate_features(pool, request)
    texts = PoolTexts(query)
    contents = [c.memory.content for c in pool]
    for batch in data.draw(st.lists(st.lists(st.sampled_from(contents)) if contents else st.just([]))):
        texts.add([*batch, "never a candidate"])
    assert candidate_features(pool, request, texts=texts).tobytes() == at_once.tobytes()
    plain = score_candidates(pool, policy=policy, now=NOW, request=request)
    prepared = score_candidates(pool, policy=policy, now=NOW, request=request, texts=texts)
    assert [(s.candidate.memory.id, s.model, s.final) for s in prepared] == [
        (s.candidate.memory.id, s.model, s.final) for s in plain
    ]
    other = PoolTexts(query + " Lisbon")
    other.add(contents)
    assert candidate_features(pool, request, texts=other).tobytes() == at_once.tobytes()


@settings(max_examples=100, deadline=None)
@given(pool=_pools, query=_queries)
def test_features_with_the_positions_given_equal_those_computed_inside(
    pool: list[Candidate], query: str
) -> None:
    request = SearchRequest(text=query, top_k=10, now=NOW)
    positions = pool_positions(pool)
    assert positions == [c.memory.position for c in pool]
    inside = candidate_features(pool, request)
    assert candidate_features(pool, request, positions).tobytes() == inside.tobytes()
    scores = np.linspace(-3.0, 2.0, len(pool))
    assert stage_two_features(pool, scores, positions).tobytes() == stage_two_features(pool, scores).tobytes()


def _reference_scored(
    pool: Sequence[Candidate], policy: RankingPolicy, request: SearchRequest, intent: TimeIntent | None
) -> list[tuple[Any, ...]]:
    """``score_candidates`` as plainly written: a call of ``reciprocal_rank_fusion`` per candidate, the
    priors per candidate, a sort on (−final, −similarity, the id's text)."""
    rrfs = [
        reciprocal_rank_fusion(
            (c.vector_rank, c.keyword_rank, c.entity_rank), policy.rrf_k, policy.signal_weights
        )
        for c in pool
    ]
    model: list[float | None] = [None] * len(pool)
    if policy.learned is not None and pool:
        model = list(policy.learned.score(candidate_features(pool, request), pool))
        top = max(v for v in model if v is not None)
        relevances = [math.exp((v - top) / LEARNED_TEMPERATURE) for v in model if v is not None]
    else:
        best = max(rrfs, default=0.0) or 1.0
        relevances = [rrf / best for rrf in rrfs]
    rows = []
    for cand, rrf, relevance, learned in zip(pool, rrfs, relevances, model, strict=True):
        memory, weights = cand.memory, policy.weights[cand.memory.layer]
        rec = time_fit(memory, intent, NOW, policy.recency_half_life)
        freq = frequency(memory.access_count, policy.frequency_saturation)
        prior = weights.similarity + weights.recency * rec + weights.frequency * freq
        layer_score = relevance * prior / (weights.similarity + weights.recency + weights.frequency)
        final = policy.relevance_weight * layer_score + (1.0 - policy.relevance_weight) * memory.importance
        if memory.source == "agent_inferred":
            final *= policy.inferred_penalty
        rows.append((cand, rrf, learned, relevance, rec, freq, final))
    rows.sort(key=lambda r: (-r[6], -(r[0].vector_similarity or 0.0), str(r[0].memory.id)))
    return rows


@st.composite
def _tied_pools(draw: st.DrawFn) -> list[Candidate]:
    """Pools where some candidates are copies of others under another id: equal scores, ordered by id."""
    pool = draw(_pools)
    if not pool:
        return pool
    copies = []
    for original in draw(st.lists(st.sampled_from(pool), max_size=10)):
        new_id = uuid.UUID(int=draw(st.integers(0, 2**128 - 1)))
        copies.append(
            original.model_copy(update={"memory": original.memory.model_copy(update={"id": new_id})})
        )
    return draw(st.permutations(pool + copies))


@settings(max_examples=150, deadline=None)
@given(pool=_tied_pools(), query=_queries, learned=st.booleans())
def test_score_candidates_equals_its_plain_definition_exactly(
    pool: list[Candidate], query: str, learned: bool
) -> None:
    policy = RankingPolicy(learned=load_ranker() if learned else None)
    request = SearchRequest(text=query, top_k=10, now=NOW)
    intent = detect_time_intent(query, NOW)
    scored = score_candidates(pool, policy=policy, now=NOW, intent=intent, request=request)
    expected = _reference_scored(pool, policy, request, intent)
    assert [
        (s.candidate, s.rrf, s.model, s.relevance, s.time, s.frequency, s.final) for s in scored
    ] == expected


_mixed_text = st.text(
    alphabet=st.sampled_from(
        [
            *"aeklmnorsty0129 _-'?.\t\n",
            *("é", "ó", "Ä", "ß", "ﬆ", "\u0130", "\u212a", "\u0301", "\u00a0", "\u2019", "\u2014"),
            *("\u3000", "٢", "Σ", "Α", "ς", "Ǆ", "😀", "中", "文"),
        ]
    ),
    max_size=40,
)


@settings(max_examples=500, deadline=None)
@given(content=_mixed_text | _text)
@example(content="Order A-1831 for Leila is delayed. Aiko started as an analyst in Kraków.")
@example(content="Straße ﬆ İstanbul")
@example(content="café\u0301 — don\u2019t")
def test_the_split_words_are_the_regular_expressions_words_when_given(content: str) -> None:
    split = _split_words(content)
    if split is not None:
        assert split == (_WORD.findall(content), _WORD.findall(content.casefold()))


def test_text_with_accented_letters_is_split_without_the_expression() -> None:
    words = ["Aiko", "started", "in", "Kraków", "Ärger", "ÓRBITA"]
    assert _split_words(" ".join(words) + ".") == (words, [w.casefold() for w in words])
    # a character the split cannot place exactly leaves the text to the regular expression
    for content in ("Straße", "don\u2019t", "cafe\u0301", "so \u2014 yes", "ok 😀"):
        assert _split_words(content) is None


def test_the_premises_of_the_split_hold_for_every_code_point() -> None:
    """``_split_words`` relies on: ``_WORD``'s word characters are exactly the ``isalnum`` ones, no
    whitespace character is one, and whitespace folds to itself."""
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        char = chr(code)
        assert (_WORD.fullmatch(char) is not None) == char.isalnum(), hex(code)
        if char.isspace():
            assert not char.isalnum(), hex(code)
            assert char.casefold() == char, hex(code)
