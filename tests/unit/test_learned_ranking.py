"""The learned ranker: candidate features, the model file loader, and ranking with a model."""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hindsight.domain.errors import ConfigurationError
from hindsight.domain.learned_ranker import DEFAULT_MODEL, load_ranker, parse_model
from hindsight.domain.memory import Candidate, SearchRequest, StoredMemory
from hindsight.domain.ranking import LEARNED_TEMPERATURE, RankingPolicy, rank_candidates
from hindsight.domain.ranking_features import FEATURES, RRF_K, candidate_features

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _turn(content: str, turn: int | None = None, conversation: str = "c1", session: int = 1) -> StoredMemory:
    return StoredMemory(
        id=uuid.uuid4(),
        tenant_id="t",
        agent_id="a",
        layer="episodic",
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
        conversation_id=conversation if turn is not None else None,
        turn_index=turn,
        session_index=session if turn is not None else None,
    )


def _request(text: str) -> SearchRequest:
    return SearchRequest(text=text, top_k=10, now=NOW)


def _row(rows: list[list[float]], i: int) -> dict[str, float]:
    return dict(zip(FEATURES, rows[i], strict=True))


def test_signal_features_are_reciprocal_ranks_and_scores() -> None:
    # Given a candidate found by vector (rank 1) and full text (rank 3), and one found by vector only
    both = Candidate(
        memory=_turn("Maya booked a flight to Lisbon"),
        vector_rank=1,
        vector_similarity=0.8,
        keyword_rank=3,
        keyword_score=0.5,
    )
    vector = Candidate(memory=_turn("something else"), vector_rank=2, vector_similarity=0.7)
    rows = candidate_features([both, vector], _request("Where did Maya fly to?"))
    first, second = _row(rows, 0), _row(rows, 1)
    # Then ranks become 1/(k + rank), absent signals 0, and the signal count is right
    assert first["vector_rr"] == pytest.approx(1 / (RRF_K + 1))
    assert first["keyword_rr"] == pytest.approx(1 / (RRF_K + 3))
    assert first["keyword_score"] == pytest.approx(math.log1p(0.5))
    assert first["signals"] == 2
    assert first["fused_rr"] == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 3))
    assert second["keyword_rr"] == 0.0
    assert second["signals"] == 1
    # query words of three letters or more found in the content: maya (of maya, where, did, fly)
    assert first["query_overlap"] == pytest.approx(1 / 4)


def test_neighbour_features_read_adjacent_turns_of_the_same_conversation_in_the_pool() -> None:
    question = Candidate(
        memory=_turn("When did you go to Lisbon?", turn=4), keyword_rank=1, keyword_score=1.0
    )
    reply = Candidate(memory=_turn("Last May!", turn=5), vector_rank=40, vector_similarity=0.3)
    other_conversation = Candidate(memory=_turn("Last May!", turn=5, conversation="c2"), vector_rank=41)
    other_session = Candidate(memory=_turn("Last May!", turn=5, session=2), vector_rank=42)
    loose = Candidate(memory=_turn("A note without a conversation"), vector_rank=43)
    rows = candidate_features(
        [question, reply, other_conversation, other_session, loose], _request("when did they go to Lisbon")
    )
    best = 1 / (RRF_K + 1)
    reply_row = _row(rows, 1)
    # the reply's previous turn is the question, the pool's best: neighbour_prev = 1
    assert reply_row["neighbour_prev"] == pytest.approx(1.0)
    assert reply_row["neighbour_best"] == pytest.approx(1.0)
    assert reply_row["neighbour_next"] == 0.0
    assert _row(rows, 0)["neighbour_next"] == pytest.approx((1 / (RRF_K + 40)) / best)
    # another conversation, another session, or no position at all: no neighbours
    for i in (2, 3, 4):
        assert _row(rows, i)["neighbour_best"] == 0.0
    # a short reply and a question are marked; a time word counts for a "when" question
    assert reply_row["short_turn"] == 1.0
    assert _row(rows, 0)["is_question"] == 1.0
    assert reply_row["time_words"] == 1.0
    assert reply_row["time_words_when_asked"] == 1.0
    assert (
        _row(candidate_features([reply], _request("who went to Lisbon"))[0:1], 0)["time_words_when_asked"]
        == 0
    )


def _model(**overrides: Any) -> dict[str, Any]:
    model: dict[str, Any] = {
        "format": 1,
        "kind": "linear",
        "features": ["vector_similarity", "neighbour_prev"],
        "mean": [0.0, 0.0],
        "scale": [1.0, 1.0],
        "weights": [[1.0], [2.0]],
        "bias": 0.0,
    }
    return {**model, **overrides}


def test_a_linear_model_scores_standardised_features() -> None:
    ranker = parse_model(_model(mean=[0.5, 0.0], scale=[0.5, 1.0]), "test")
    row = [0.0] * len(FEATURES)
    row[FEATURES.index("vector_similarity")] = 1.0
    row[FEATURES.index("neighbour_prev")] = 0.25
    assert ranker.score([row]) == pytest.approx([(1.0 - 0.5) / 0.5 * 1.0 + 0.25 * 2.0])
    assert ranker.score([]) == []


def test_an_mlp_model_applies_tanh_between_layers() -> None:
    ranker = parse_model(
        _model(kind="mlp", hidden={"weights": [[1.0], [0.0]], "bias": [0.0]}, weights=[[3.0]]), "test"
    )
    row = [0.0] * len(FEATURES)
    row[FEATURES.index("vector_similarity")] = 0.5
    assert ranker.score([row]) == pytest.approx([3.0 * math.tanh(0.5)])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": 2}, "format"),
        ({"features": ["no_such_feature"]}, "unknown features"),
        ({"mean": [0.0]}, "mean"),
        ({"scale": [1.0, 0.0]}, "scale"),
        ({"weights": [[1.0]]}, "weights"),
        ({"weights": [[float("nan")], [1.0]]}, "weights"),
        ({"kind": "forest"}, "kind"),
        ({"kind": "mlp"}, "hidden"),
    ],
)
def test_a_model_file_that_does_not_fit_is_refused_naming_what(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_model(_model(**change), "test")


def test_the_shipped_model_loads_and_states_its_licence() -> None:
    ranker = load_ranker()
    assert ranker.name == DEFAULT_MODEL
    assert "CC BY-NC 4.0" in ranker.licence
    assert "non-commercial" in ranker.licence


def test_a_missing_or_broken_model_file_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_ranker(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_ranker(broken)
    listed = tmp_path / "list.json"
    listed.write_text(json.dumps([1, 2]))
    with pytest.raises(ConfigurationError, match="not a JSON object"):
        load_ranker(listed)


def test_ranking_with_a_model_orders_by_its_score_and_relevance_is_relative_to_the_best() -> None:
    # Given a model that only values the previous turn's score
    ranker = parse_model(_model(weights=[[0.0], [5.0]]), "test")
    question = Candidate(memory=_turn("When did you go?", turn=0), keyword_rank=1, keyword_score=1.0)
    reply = Candidate(memory=_turn("Last May!", turn=1), vector_rank=50, vector_similarity=0.2)
    hits = rank_candidates(
        [question, reply],
        policy=RankingPolicy(learned=ranker),
        now=NOW,
        top_k=2,
        request=_request("when did they go"),
    )
    # Then the reply (whose previous turn is the pool's best) ranks first with relevance 1
    assert [h.memory.content for h in hits] == ["Last May!", "When did you go?"]
    assert hits[0].scores.relevance == pytest.approx(1.0)
    assert hits[1].scores.relevance == pytest.approx(math.exp(-5.0 / LEARNED_TEMPERATURE))
    assert hits[0].scores.model == pytest.approx(5.0)
    # and without the request (or without a model) the hand-set fusion ranks, as before
    fallback = rank_candidates([question, reply], policy=RankingPolicy(learned=ranker), now=NOW, top_k=2)
    assert fallback[0].memory.content == "When did you go?"
    assert fallback[0].scores.model is None


def test_the_setting_selects_the_learned_ranker_or_the_hand_set_fallback(tmp_path: Path) -> None:
    from hindsight.config import Settings
    from hindsight.factories import ranking_policy

    assert ranking_policy(Settings(ranker="rrf")).learned is None
    learned = ranking_policy(Settings(ranker="learned")).learned
    assert learned is not None
    assert learned.name == DEFAULT_MODEL
    own = tmp_path / "own.json"
    own.write_text(json.dumps(_model(version="mine")))
    mine = ranking_policy(Settings(ranker="learned", ranker_model=own)).learned
    assert mine is not None
    assert mine.version == "mine"
