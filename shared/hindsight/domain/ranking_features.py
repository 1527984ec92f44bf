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
from collections.abc import Sequence

from hindsight.domain.memory import Candidate, SearchRequest

RRF_K = 10
"""The rank constant of the reciprocal-rank features (the fallback fusion's k, domain.ranking)."""
NEIGHBOUR_REACH = 2
"""Turns on each side whose first-stage score feeds a candidate's neighbour features."""

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|last|next|this|week(?:end)?s?|months?|years?|days?|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|autumn|fall|winter|"
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
* ``time_words``: the content names a time (a weekday, month, year, "yesterday", "last week", …);
  ``time_words_when_asked``: the same, when the query asks when / what year / how long.
* ``episodic``: 1 for an episodic memory, 0 for a semantic one.
"""


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (RRF_K + rank)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.casefold()) if len(w) >= 3}


def candidate_features(candidates: Sequence[Candidate], request: SearchRequest) -> list[list[float]]:
    """One row of ``FEATURES`` values per candidate, in the candidates' order."""
    first = [
        _rr(c.vector_rank) + _rr(c.keyword_rank) + _rr(c.entity_rank) for c in candidates
    ]  # first-stage score: plain reciprocal-rank sum
    best = max(first, default=0.0) or 1.0
    by_position: dict[tuple[str, int, int], float] = {}
    for cand, score in zip(candidates, first, strict=True):
        position = cand.memory.position
        if position is not None:
            by_position[position] = max(score, by_position.get(position, 0.0))
    query_words = _words(request.text)
    asks_when = bool(_WHEN_QUESTION.search(request.text))
    rows: list[list[float]] = []
    for cand, fused in zip(candidates, first, strict=True):
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
            ]
        )
    return rows
