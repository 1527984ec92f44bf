"""The learned ranker: candidate features, the model file loader, and ranking with a model."""

from __future__ import annotations

import json
import math
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
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
        ({"format": 7}, "format"),
        ({"features": ["no_such_feature"]}, "unknown features"),
        ({"mean": [0.0]}, "mean"),
        ({"scale": [1.0, 0.0]}, "scale"),
        ({"weights": [[1.0]]}, "weights"),
        ({"weights": [[float("nan")], [1.0]]}, "weights"),
        ({"kind": "forest"}, "kind"),
        ({"kind": "mlp"}, "hidden"),
        ({"clip": [0.0, 1.0]}, "'clip' must be an object"),
        ({"clip": {"low": [0.0], "high": [1.0, 1.0]}}, "clip.low"),
        ({"clip": {"low": [1.0, 0.0], "high": [0.0, 1.0]}}, "clip.low must be <="),
    ],
)
def test_a_model_file_that_does_not_fit_is_refused_naming_what(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_model(_model(**change), "test")


def test_a_stage_clips_its_inputs_to_the_training_range() -> None:
    ranker = parse_model(_model(clip={"low": [0.0, 0.0], "high": [1.0, 0.5]}), "test")
    rows = []
    for similarity, prev in ((3.0, 9.0), (-2.0, 0.1), (0.4, 0.2)):
        row = [0.0] * len(FEATURES)
        row[FEATURES.index("vector_similarity")] = similarity
        row[FEATURES.index("neighbour_prev")] = prev
        rows.append(row)
    # past the range an input scores as the range's end (no extrapolation); within it, unchanged
    assert ranker.score(rows) == pytest.approx([1.0 + 2 * 0.5, 0.0 + 2 * 0.1, 0.4 + 2 * 0.2])
    # without clip, the same rows extrapolate
    assert parse_model(_model(), "test").score(rows[:1]) == pytest.approx([3.0 + 2 * 9.0])


def test_every_stage_of_the_shipped_model_clips_to_its_training_range() -> None:
    for stage in load_ranker().stages:
        assert stage.clip is not None
        low, high = stage.clip
        assert low.shape == high.shape == (len(stage.columns),)
        assert np.all(low <= high)


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


def test_idf_overlap_weighs_a_query_word_by_its_rarity_in_the_pool() -> None:
    # Given a pool where every turn names Maya and one also says "camping" (the query asks "camped")
    pool = [
        Candidate(memory=_turn("Maya: we went camping by the lake"), vector_rank=3),
        Candidate(memory=_turn("Maya: hello there"), vector_rank=1),
        Candidate(memory=_turn("Maya: the weather is nice"), vector_rank=2),
    ]
    rows = candidate_features(pool, _request("Where has Maya camped?"))
    # Then the rare word carries the score: idf over 3 candidates (maya in all, camp in one, where and has
    # in none)
    idf = {w: math.log(4 / (df + 0.5)) for w, df in (("maya", 3), ("camp", 1), ("where", 0), ("has", 0))}
    total = sum(idf.values())
    assert _row(rows, 0)["idf_overlap"] == pytest.approx((idf["maya"] + idf["camp"]) / total)
    assert _row(rows, 1)["idf_overlap"] == pytest.approx(idf["maya"] / total)
    assert _row(rows, 0)["idf_overlap"] > 3 * _row(rows, 1)["idf_overlap"]
    # a query without words of three letters or more gives 0 everywhere
    assert (
        candidate_features(pool, _request("is it?"))[:, FEATURES.index("idf_overlap")].tolist() == [0.0] * 3
    )


def test_session_and_pool_relative_features() -> None:
    # Given two turns of one session, one of another session, and a note outside any conversation
    a = Candidate(
        memory=_turn("first", turn=1), vector_rank=1, vector_similarity=0.9, keyword_rank=1, keyword_score=2.0
    )
    b = Candidate(memory=_turn("second", turn=7), vector_rank=2, vector_similarity=0.7)
    c = Candidate(memory=_turn("third", turn=1, session=2), keyword_rank=2, keyword_score=1.0)
    d = Candidate(memory=_turn("loose"), vector_rank=3, vector_similarity=0.5)
    rows = candidate_features([a, b, c, d], _request("anything"))
    best = 1 / (RRF_K + 1) * 2
    # session_best: the best other turn of the same session, relative to the pool's best first-stage score
    assert _row(rows, 1)["session_best"] == pytest.approx(1.0)
    assert _row(rows, 0)["session_best"] == pytest.approx((1 / (RRF_K + 2)) / best)
    assert _row(rows, 2)["session_best"] == 0.0
    assert _row(rows, 3)["session_best"] == 0.0
    # vector_gap: similarity minus the pool's best; one the vector signal did not return counts as the lowest
    assert [_row(rows, i)["vector_gap"] for i in range(4)] == pytest.approx([0.0, -0.2, -0.4, -0.4])
    # keyword_rel: keyword score relative to the pool's best
    assert _row(rows, 2)["keyword_rel"] == pytest.approx(math.log1p(1.0) / math.log1p(2.0))
    assert _row(rows, 1)["keyword_rel"] == 0.0


def _cascade(**second: Any) -> dict[str, Any]:
    first = {
        "features": ["vector_similarity"],
        "kind": "linear",
        "mean": [0.0],
        "scale": [1.0],
        "weights": [[1.0]],
    }
    body = {
        "features": ["vector_similarity", "stage1_neighbour_best"],
        "kind": "linear",
        "mean": [0.0, 0.0],
        "scale": [1.0, 1.0],
        "weights": [[1.0], [10.0]],
        **second,
    }
    return {"format": 2, "version": "two", "licence": "test", "stages": [first, body]}


def test_a_two_stage_model_scores_with_the_first_stage_judgement_of_the_neighbours() -> None:
    ranker = parse_model(_cascade(), "test")
    # Given a question the first stage likes (similarity 0.9), its reply (0.1) and an unrelated turn (0.3)
    question = Candidate(memory=_turn("When did you go?", turn=0), vector_rank=1, vector_similarity=0.9)
    reply = Candidate(memory=_turn("Last May!", turn=1), vector_rank=3, vector_similarity=0.1)
    other = Candidate(memory=_turn("Nice weather", turn=9), vector_rank=2, vector_similarity=0.3)
    pool = [question, reply, other]
    rows = candidate_features(pool, _request("when did they go"))
    scores = ranker.score(rows, pool)
    # Then the reply gets its neighbour's p = exp(0) = 1 from the first stage: 0.1 + 10·1
    assert scores[1] == pytest.approx(0.1 + 10.0)
    assert scores[0] == pytest.approx(0.9 + 10.0 * math.exp(0.1 - 0.9))
    assert scores[2] == pytest.approx(0.3)
    # and a two-stage model cannot score rows without their candidates
    with pytest.raises(ValueError, match="candidates"):
        ranker.score(rows)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"format": 2, "stages": []}, "two stage objects"),
        ({"format": 2, "stages": [{}, {}, {}]}, "two stage objects"),
        (
            {**_cascade(), "stages": [{**_cascade()["stages"][1]}, _cascade()["stages"][1]]},
            r"stage 1: unknown features \['stage1_neighbour_best'\]",
        ),
        (_cascade(weights=[[1.0]]), "weights"),
        ({**_cascade(), "format": 3}, "this code reads 1 or 2"),
    ],
)
def test_a_two_stage_model_file_that_does_not_fit_is_refused(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_model(data, "test")
