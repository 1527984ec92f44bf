"""The learned ranker: a small model over ``domain.ranking_features`` that scores search candidates.

A model is a versioned JSON file (``hindsight/domain/models/*.json``, written by
``bench/train_ranker.py``): the feature names it was trained on, their standardisation (mean, scale) and
either a linear layer (``kind: "linear"``: score = w·x + b) or one hidden tanh layer before it
(``kind: "mlp"``). Format 2 holds two such stages (``stages``): the first scores the pool from
``ranking_features.FEATURES``; the second reads those features and ``ranking_features.STAGE_TWO``, which
are computed from the first stage's scores (its neighbours' and session's judgement), and gives the
final score — a cascade, each stage trained in turn. A stage may also hold ``clip``: each input's lowest
and highest value in training, to which it is clipped before use (no extrapolation). Scoring is a few
numpy products over the pool — no new dependency, well under a millisecond for a few hundred candidates.

The shipped model was trained on LoCoMo (CC BY-NC 4.0) and on half of the questions of the project's
own agent-memory set (bench/agent_memories.py), so its weights are for non-commercial use; the file says
so in ``licence``. ``HINDSIGHT_RANKER=rrf`` selects the hand-set fusion instead
(``domain.ranking``), which carries no such restriction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from hindsight.domain.errors import ConfigurationError
from hindsight.domain.memory import Candidate
from hindsight.domain.pool_columns import Position
from hindsight.domain.ranking_features import (
    FEATURES,
    STAGE_TWO,
    TURN_ONLY,
    pool_positions,
    stage_two_features,
)

MODEL_FORMAT = 1
"""The one-stage file format (``format`` in the file)."""
CASCADE_FORMAT = 2
"""The two-stage file format: ``stages``, a list of two format-1 bodies (features … weights)."""
DEFAULT_MODEL = "ranker-locomo-v2.json"
"""The model shipped in the package (``hindsight/domain/models/``)."""


@dataclass(frozen=True)
class Stage:
    """One scoring network: standardise the chosen columns, then linear layers with tanh between."""

    columns: tuple[int, ...]
    """Index of each model input in the matrix it reads (``FEATURES``, then ``STAGE_TWO`` for a second
    stage), in the model's order."""
    mean: np.ndarray
    scale: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    """(weights, bias) per layer; tanh between layers, the last one linear to one output."""
    clip: tuple[np.ndarray, np.ndarray] | None = None
    """(low, high) per input, in the inputs' raw units: each input is clipped to the range seen in
    training before it is used; None: no clipping (a file without ``clip``). A linear model
    extrapolates: a 6,400-word memory's ``length_log`` is ten standard deviations past any training turn,
    and its weight alone lifted such junk to the top."""
    context: tuple[int, ...] = ()
    """Which inputs (indexes into ``columns``) are ``ranking_features.TURN_ONLY`` features (its
    ``CONTEXT`` ones and ``query_overlap``): read at their ``mean`` for a candidate without a position
    (``forward``'s ``unplaced``)."""

    def forward(self, matrix: np.ndarray, unplaced: np.ndarray | None = None) -> np.ndarray:
        """One score per row of ``matrix``. ``unplaced``: one bool per row, true for a candidate that is
        no turn of a conversation; its context inputs are set to their training mean (standardised: 0,
        so they add nothing). A model fitted on conversations learnt 0 there as "no neighbouring turn
        was found", which sank an agent's plain memories below chat turns with neighbours among the
        candidates ("where do I live?" answered by a reply "Nice! I passed mine yesterday.", trial 11;
        bench/agent_memories.py); for a memory outside any conversation they are undefined, not low. In a
        pool of plain memories only the neighbour and session inputs move every score by the same amount;
        ``query_overlap`` (also in ``TURN_ONLY``) is dropped from their order, which ``idf_overlap`` and
        the signals then decide."""
        x = matrix[:, self.columns]
        if self.clip is not None:
            x = np.clip(x, self.clip[0], self.clip[1])
        if unplaced is not None and self.context and unplaced.any():
            context = np.asarray(self.context, dtype=np.intp)
            x[np.ix_(np.flatnonzero(unplaced), context)] = self.mean[context]
        x = (x - self.mean) / self.scale
        for i, (weights, bias) in enumerate(self.layers):
            x = x @ weights + bias
            if i < len(self.layers) - 1:
                x = np.tanh(x)
        return np.asarray(x.reshape(-1))


@dataclass(frozen=True)
class LearnedRanker:
    """A loaded model: ``score(rows, candidates)`` → one float per candidate (higher ranks first)."""

    name: str
    version: str
    licence: str
    stages: tuple[Stage, ...]
    """One stage, or two (the second reading ``STAGE_TWO`` computed from the first's scores)."""

    def score(
        self,
        rows: np.ndarray | list[list[float]],
        candidates: Sequence[Candidate] | None = None,
        positions: Sequence[Position | None] | None = None,
    ) -> list[float]:
        """Scores of feature rows (``ranking_features.candidate_features``: an (n, features) matrix), one
        per row. A two-stage model also needs the candidates (in the rows' order), whose positions the
        second stage's features read (``positions``: ``ranking_features.pool_positions`` of them, when
        the caller has them already). With the positions (given, or read from the candidates) the
        context features of a candidate without one are read at their training mean (``Stage.forward``);
        rows alone are scored as they are.

        Raises:
            ValueError: a two-stage model without the candidates, or not one per row.
        """
        if len(rows) == 0:
            return []
        matrix = np.asarray(rows, dtype=np.float64)
        if positions is None and candidates is not None and len(candidates) == len(matrix):
            positions = pool_positions(candidates)
        unplaced = None if positions is None else np.array([p is None for p in positions], dtype=bool)
        scores = self.stages[0].forward(matrix, unplaced)
        if len(self.stages) > 1:
            if candidates is None or len(candidates) != len(matrix):
                raise ValueError("a two-stage ranker needs the candidates, one per feature row")
            matrix = np.hstack([matrix, stage_two_features(candidates, scores, positions)])
            scores = self.stages[1].forward(matrix, unplaced)
        return [float(v) for v in scores]


def _array(value: Any, shape: tuple[int, ...], what: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.shape != shape or not np.all(np.isfinite(array)):
        raise ConfigurationError(f"ranker model: {what} must be {shape} finite numbers, got {array.shape}")
    return array


def parse_model(data: dict[str, Any], name: str) -> LearnedRanker:
    """A LearnedRanker from a model file's JSON. Raises ConfigurationError naming what is wrong (format,
    an unknown feature, a shape that does not fit)."""
    if data.get("format") == MODEL_FORMAT:
        stages: tuple[Stage, ...] = (_stage(data, name, FEATURES),)
    elif data.get("format") == CASCADE_FORMAT:
        bodies = data.get("stages")
        if not isinstance(bodies, list) or len(bodies) != 2 or not all(isinstance(b, dict) for b in bodies):
            raise ConfigurationError(f"ranker model {name}: 'stages' must be a list of two stage objects")
        stages = (
            _stage(bodies[0], f"{name} stage 1", FEATURES),
            _stage(bodies[1], f"{name} stage 2", FEATURES + STAGE_TWO),
        )
    else:
        raise ConfigurationError(
            f"ranker model {name}: format {data.get('format')!r}, this code reads 1 or 2"
        )
    return LearnedRanker(
        name=name,
        version=str(data.get("version", "?")),
        licence=str(data.get("licence", "unknown")),
        stages=stages,
    )


def _stage(data: dict[str, Any], name: str, known: tuple[str, ...]) -> Stage:
    names = data.get("features")
    if not isinstance(names, list) or not names:
        raise ConfigurationError(f"ranker model {name}: 'features' must be a non-empty list")
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ConfigurationError(f"ranker model {name}: unknown features {unknown} (known: {list(known)})")
    width = len(names)
    mean = _array(data.get("mean"), (width,), "mean")
    scale = _array(data.get("scale"), (width,), "scale")
    if np.any(scale <= 0):
        raise ConfigurationError(f"ranker model {name}: every scale must be > 0")
    kind = data.get("kind")
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    if kind == "linear":
        layers.append(
            (
                _array(data.get("weights"), (width, 1), "weights"),
                _array([data.get("bias", 0.0)], (1,), "bias"),
            )
        )
    elif kind == "mlp":
        hidden = data.get("hidden")
        if not isinstance(hidden, dict):
            raise ConfigurationError(f"ranker model {name}: an mlp needs 'hidden'")
        size = len(hidden.get("bias", []))
        layers.append(
            (
                _array(hidden.get("weights"), (width, size), "hidden.weights"),
                _array(hidden.get("bias"), (size,), "hidden.bias"),
            )
        )
        layers.append(
            (_array(data.get("weights"), (size, 1), "weights"), _array([data.get("bias", 0.0)], (1,), "bias"))
        )
    else:
        raise ConfigurationError(f"ranker model {name}: kind {kind!r}, expected 'linear' or 'mlp'")
    return Stage(
        columns=tuple(known.index(n) for n in names),
        mean=mean,
        scale=scale,
        layers=tuple(layers),
        clip=_clip(data, name, width),
        context=tuple(i for i, n in enumerate(names) if n in TURN_ONLY),
    )


def _clip(data: dict[str, Any], name: str, width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """A stage's optional ``clip`` ({"low": [...], "high": [...]}, one per input, low <= high)."""
    clip = data.get("clip")
    if clip is None:
        return None
    if not isinstance(clip, dict):
        raise ConfigurationError(f"ranker model {name}: 'clip' must be an object with 'low' and 'high'")
    low = _array(clip.get("low"), (width,), "clip.low")
    high = _array(clip.get("high"), (width,), "clip.high")
    if np.any(low > high):
        raise ConfigurationError(f"ranker model {name}: every clip.low must be <= its clip.high")
    return low, high


def load_ranker(path: Path | None = None) -> LearnedRanker:
    """The model at ``path``, or the one shipped in the package. Raises ConfigurationError when the file
    is missing, not JSON or not a model this code can read."""
    try:
        if path is None:
            text = resources.files("hindsight.domain").joinpath("models", DEFAULT_MODEL).read_text("utf-8")
            name = DEFAULT_MODEL
        else:
            text, name = path.read_text("utf-8"), str(path)
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigurationError(f"ranker model {path or DEFAULT_MODEL}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"ranker model {name}: not a JSON object")
    return parse_model(data, name)
