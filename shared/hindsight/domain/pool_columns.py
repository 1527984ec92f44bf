"""A search's candidate pool as columns: what ranking (``domain.ranking``) and the learned ranker's
features (``domain.ranking_features``) read of every candidate; and ``CandidatePool``, the pool a store
returns as those columns, building a candidate's model only when it is read.

Why (issue 15, bench/cpu_replay.py): a search ranks ~210 candidates at 100k memories and returns 10.
Building a pydantic ``Candidate`` and ``CandidateMemory`` for each, then reading each value back from them
one attribute at a time in a dozen passes (fusion, positions, each feature column, the priors), was about
a third of the Python CPU after the SQL. The store has the values in its rows already: it hands them over
as columns, and only the candidates a caller reads (the returned hits; a trace reads all) become models.

No I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from operator import attrgetter
from typing import NamedTuple, overload
from uuid import UUID

from hindsight.domain.memory import Candidate, position_of

Position = tuple[str, int, int]
"""A turn's place: (conversation, session, turn), as ``StoredMemory.position`` gives it."""


class PoolColumns(NamedTuple):
    """One sequence per field, one value per candidate, in the candidates' order; the values are the
    candidates' own (``Candidate`` fields, and those of its ``memory``)."""

    vector_rank: Sequence[int | None]
    vector_similarity: Sequence[float | None]
    keyword_rank: Sequence[int | None]
    keyword_score: Sequence[float | None]
    entity_rank: Sequence[int | None]
    entity_matches: Sequence[int | None]
    ids: Sequence[UUID]
    layer: Sequence[str]
    content: Sequence[str]
    importance: Sequence[float]
    access_count: Sequence[int]
    source: Sequence[str]
    positions: Sequence[Position | None]
    """Each memory's ``position`` (None: not a turn of a conversation)."""


POOL_MEMORY_FIELDS = ("id", "layer", "content", "importance", "access_count", "source")
"""The memory fields ``PoolColumns`` holds as they are (then ``positions``, from three more)."""
_SIGNALS = attrgetter(
    "memory",
    "vector_rank",
    "vector_similarity",
    "keyword_rank",
    "keyword_score",
    "entity_rank",
    "entity_matches",
)
_MEMORY = attrgetter(*POOL_MEMORY_FIELDS, "conversation_id", "session_index", "turn_index")


def positions_of(
    conversations: Sequence[str | None], sessions: Sequence[int | None], turns: Sequence[int | None]
) -> list[Position | None]:
    """Each memory's ``position`` from its three columns (``memory.position_of``, called only for the
    memories of a conversation: most pools hold none)."""
    if conversations.count(None) == len(conversations):
        return [None] * len(conversations)
    return [position_of(c, s, t) for c, s, t in zip(conversations, sessions, turns, strict=True)]


def pool_columns(candidates: Sequence[Candidate]) -> PoolColumns:
    """The columns of ``candidates``: a ``CandidatePool``'s own, else read from the models in one pass
    of C-level getters (``operator.attrgetter``)."""
    if isinstance(candidates, CandidatePool):
        return candidates.columns
    if not candidates:
        return PoolColumns((), (), (), (), (), (), (), (), (), (), (), (), [])
    memories, vector_rank, vector_similarity, keyword_rank, keyword_score, entity_rank, entity_matches = zip(
        *map(_SIGNALS, candidates), strict=True
    )
    ids, layer, content, importance, access_count, source, conversations, sessions, turns = zip(
        *map(_MEMORY, memories), strict=True
    )
    return PoolColumns(
        vector_rank,
        vector_similarity,
        keyword_rank,
        keyword_score,
        entity_rank,
        entity_matches,
        ids,
        layer,
        content,
        importance,
        access_count,
        source,
        positions_of(conversations, sessions, turns),
    )


class CandidatePool(Sequence[Candidate]):
    """A store's candidates: their ``columns``, and candidate ``i``'s model built by ``build(i)`` when it
    is first read (then kept: reading it again gives the same object). Immutable, so the columns always
    describe the models. ``build`` must give the candidate the columns describe."""

    __slots__ = ("_build", "_built", "columns")

    def __init__(self, columns: PoolColumns, build: Callable[[int], Candidate]) -> None:
        self.columns = columns
        self._build = build
        self._built: list[Candidate | None] = [None] * len(columns.ids)

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, index: int) -> Candidate: ...
    @overload
    def __getitem__(self, index: slice) -> list[Candidate]: ...
    def __getitem__(self, index: int | slice) -> Candidate | list[Candidate]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._built)))]
        built = self._built[index]  # IndexError past the end, as a list
        if built is None:
            built = self._built[index] = self._build(index % len(self._built))
        return built

    def __iter__(self) -> Iterator[Candidate]:
        return (self[i] for i in range(len(self._built)))

    def __repr__(self) -> str:
        return f"CandidatePool({len(self._built)} candidates)"
