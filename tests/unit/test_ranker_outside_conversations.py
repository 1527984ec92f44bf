"""The learned ranker on memories that are no turns of a conversation (an agent's plain memories)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from hindsight.domain.learned_ranker import load_ranker, parse_model
from hindsight.domain.memory import Candidate, SearchRequest, StoredMemory
from hindsight.domain.ranking import RankingPolicy, rank_candidates
from hindsight.domain.ranking_features import FEATURES, candidate_features

NOW = datetime(2026, 12, 7, tzinfo=UTC)


def _memory(
    content: str, turn: int | None = None, session: int = 1, layer: str | None = None
) -> StoredMemory:
    return StoredMemory(
        id=uuid.uuid4(),
        tenant_id="t",
        agent_id="a",
        layer=layer or ("semantic" if turn is None else "episodic"),
        key=None,
        query=None,
        content=content,
        importance=0.5,
        access_count=0,
        last_accessed_at=None,
        created_at=NOW,
        occurred_at=None,
        metadata={},
        status="active",
        conversation_id="chat" if turn is not None else None,
        turn_index=turn,
        session_index=session if turn is not None else None,
    )


def _request(text: str) -> SearchRequest:
    return SearchRequest(text=text, top_k=10, now=NOW)


def _model(features: list[str], mean: list[float], weights: list[float]) -> dict[str, Any]:
    return {
        "features": features,
        "kind": "linear",
        "mean": mean,
        "scale": [1.0] * len(features),
        "weights": [[w] for w in weights],
    }


def test_a_memory_outside_any_conversation_reads_its_context_features_at_the_training_mean() -> None:
    # Given a model valuing the previous turn's score (trained mean 0.5) and a pool of a plain memory
    # and a turn whose previous turn is not among the candidates, both found alike
    ranker = parse_model(
        {"format": 1, **_model(["vector_similarity", "neighbour_prev"], [0.0, 0.5], [1.0, 2.0])}, "test"
    )
    plain = Candidate(memory=_memory("I live in Longmont"), vector_rank=1, vector_similarity=0.8)
    lonely = Candidate(memory=_memory("I live in Boulder", turn=7), vector_rank=2, vector_similarity=0.8)
    pool = [plain, lonely]
    rows = candidate_features(pool, _request("where do I live"))
    # Then the turn reads "no neighbour found" (0, below the mean) and the plain memory, which has no
    # neighbours to find, reads the mean: its context adds nothing
    scores = ranker.score(rows, pool)
    assert scores[0] == pytest.approx(0.8)
    assert scores[1] == pytest.approx(0.8 + 2.0 * (0.0 - 0.5))
    # the feature rows themselves still hold 0 for it (what training pools hold)
    assert rows[0, FEATURES.index("neighbour_prev")] == 0.0


def test_a_second_stage_reads_the_first_stage_context_of_a_plain_memory_at_its_mean() -> None:
    first = _model(["vector_similarity"], [0.0], [1.0])
    second = _model(["vector_similarity", "stage1_session_best"], [0.0, 0.6], [1.0, 10.0])
    ranker = parse_model({"format": 2, "stages": [first, second]}, "test")
    plain = Candidate(memory=_memory("Team standup is on Thursdays"), vector_rank=2, vector_similarity=0.7)
    turn = Candidate(memory=_memory("Standup is at ten", turn=0), vector_rank=1, vector_similarity=0.9)
    pool = [plain, turn]
    scores = ranker.score(candidate_features(pool, _request("when is standup")), pool)
    # the turn is alone in its session (0); the plain memory has no session: the mean, 0 after standardising
    assert scores == pytest.approx([0.7, 0.9 + 10.0 * (0.0 - 0.6)])


def test_a_plain_memory_is_not_sunk_below_chat_turns_by_their_neighbours() -> None:
    # Given (trial 11: an agent's plain memories beside a conversation) the answer, found first by vector
    # (0.85) and by full text, another plain memory, and three adjacent turns of a chat found by vector
    # only, well below it (0.77 … 0.75); all episodic, so that the layers' priors weigh alike
    answer = Candidate(
        memory=_memory("I live in Longmont", layer="episodic"),
        vector_rank=1,
        vector_similarity=0.85,
        keyword_rank=1,
        keyword_score=0.1,
    )
    sister = Candidate(
        memory=_memory("My sister Anouk lives in Rotterdam", layer="episodic"),
        vector_rank=2,
        vector_similarity=0.84,
    )
    chat = [
        Candidate(
            memory=_memory(text, turn=i, session=2), vector_rank=i + 3, vector_similarity=0.77 - 0.01 * i
        )
        for i, text in enumerate(
            (
                "Priya: The move to Lisbon happened, we live there now.",
                "Sam: Nice! I passed mine yesterday.",
                "Priya: Congrats! Are you buying a car now?",
            )
        )
    ]
    hits = rank_candidates(
        [answer, sister, *chat],
        policy=RankingPolicy(learned=load_ranker()),
        now=NOW,
        top_k=5,
        request=_request("where do I live?"),
    )
    # Then the answer ranks first: the chat's neighbour and session features no longer count against a
    # memory that has none (read as 0 they ranked the reply "Nice! I passed mine yesterday." first)
    assert hits[0].memory.content == "I live in Longmont"


def test_weekdays_in_the_plural_name_a_time() -> None:
    # "when is standup": "on Thursdays" names a time as "on Thursday" does (trial 11); also in text
    # that takes the regular-expression path (a non-ASCII letter)
    pool = [
        Candidate(memory=_memory("Team standup moved to Thursdays at 15:00"), vector_rank=1),
        Candidate(memory=_memory("Standup happens in the café on Mondays"), vector_rank=2),
        Candidate(memory=_memory("Standup notes are in the wiki"), vector_rank=3),
    ]
    rows = candidate_features(pool, _request("when is standup"))
    assert rows[:, FEATURES.index("time_words_when_asked")].tolist() == [1.0, 1.0, 0.0]


def test_the_shipped_model_answers_when_with_the_memory_naming_weekdays() -> None:
    # Given (trial 11) the standup memory found first by vector and full text, and one naming a month
    # found by vector only, a little lower
    standup = Candidate(
        memory=_memory("Team standup moved to Thursdays at 15:00"),
        vector_rank=1,
        vector_similarity=0.804,
        keyword_rank=1,
        keyword_score=1.0,
    )
    others = [
        Candidate(memory=_memory(text), vector_rank=rank, vector_similarity=similarity)
        for text, rank, similarity in (
            ("Batch fact two: deploys go out on Tuesdays", 2, 0.790),
            ("Batch fact three: the build cache lives in S3", 3, 0.781),
            ("I no longer drive; I sold the Honda Civic in October", 4, 0.778),
            ("Batch fact one: the CI runs on GitHub Actions", 5, 0.774),
        )
    ]
    hits = rank_candidates(
        [standup, *others],
        policy=RankingPolicy(learned=load_ranker()),
        now=NOW,
        top_k=5,
        request=_request("when is standup"),
    )
    assert hits[0].memory.content == "Team standup moved to Thursdays at 15:00"


def test_a_memory_outside_any_conversation_reads_its_query_overlap_at_the_training_mean() -> None:
    # Given a model weighing the share of query words held against a candidate (as the fit on
    # conversation turns does, where those words mostly say whose turn it is; trained mean 0.3)
    ranker = parse_model(
        {"format": 1, **_model(["vector_similarity", "query_overlap"], [0.0, 0.3], [1.0, -2.0])}, "test"
    )
    plain = Candidate(memory=_memory("I work at the Fernhill depot"), vector_rank=1, vector_similarity=0.8)
    turn = Candidate(memory=_memory("Sam: I work at the depot", turn=3), vector_rank=2, vector_similarity=0.8)
    pool = [plain, turn]
    rows = candidate_features(pool, _request("where do I work"))
    assert rows[:, FEATURES.index("query_overlap")].tolist() == [0.5, 0.5]
    # Then the plain memory, which states what it is about in the query's words, is not marked down for
    # them: its overlap reads the mean; the turn's counts as trained
    assert ranker.score(rows, pool) == pytest.approx([0.8, 0.8 - 2.0 * (0.5 - 0.3)])


def test_the_shipped_model_ranks_the_plain_memory_in_the_query_words_first() -> None:
    # Given the answer found first by vector and by full text, and another plain memory found second by
    # both that holds none of the query's words as such ("working", not "work"), then three found by
    # vector only
    answer = Candidate(
        memory=_memory("I work as a data analyst at Fernhill Bank"),
        vector_rank=1,
        vector_similarity=0.84,
        keyword_rank=1,
        keyword_score=0.1,
    )
    intern = Candidate(
        memory=_memory("Marta Quinn is the new intern, working on billing"),
        vector_rank=2,
        vector_similarity=0.83,
        keyword_rank=2,
        keyword_score=0.1,
    )
    rest = [
        Candidate(memory=_memory(text), vector_rank=rank, vector_similarity=similarity)
        for text, rank, similarity in (
            ("The billing service runs on Postgres 16", 3, 0.80),
            ("My sister lives in Rotterdam", 4, 0.79),
            ("Deploys go out on Tuesdays", 5, 0.78),
        )
    ]
    hits = rank_candidates(
        [answer, intern, *rest],
        policy=RankingPolicy(learned=load_ranker()),
        now=NOW,
        top_k=5,
        request=_request("where do I work"),
    )
    # Then the answer ranks first (read as on a turn, its query words weighed against it)
    assert hits[0].memory.content == "I work as a data analyst at Fernhill Bank"
