"""Ports of the LLM-backed judgements: the post-task reflector, the write filter's judge, the
contradiction judge and the experience-hint writer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from hindsight.domain.experience import HintLine
from hindsight.domain.memory import StoredMemory
from hindsight.domain.reflection import EpisodeRecord, TaskReport


class Reflector(Protocol):
    """Turns a finished task's report into its one episodic record (the spec's post-task retrospective).

    Implementations: the embedded rules (deterministic, offline) and an OpenAI-compatible chat model.
    """

    async def reflect(self, report: TaskReport) -> EpisodeRecord:
        """The episode for ``report``. Raises ReflectionFailed when no valid record can be produced."""
        ...


ConflictRelation = Literal["contradiction", "addition", "paraphrase", "unrelated"]


class ConflictJudge(Protocol):
    """Tells how a new fact relates to an old one; asked only when the contradiction rules are unsure."""

    async def judge(self, new: str, old: str) -> ConflictRelation:
        """The relation of ``new`` to ``old``. Raises JudgeFailed when no usable answer can be had."""
        ...


class WriteJudge(Protocol):
    """Decides whether a text is worth remembering; asked only when the write rules are unsure."""

    async def judge(self, text: str) -> bool:
        """True to remember ``text``. Raises JudgeFailed when no usable answer can be had."""
        ...


class ExperienceWriter(Protocol):
    """Writes the lines of an experience hint (``memory_summarize``) from memories: a chat model. The
    default, extractive hint needs no port (``domain.experience.extract_hint``)."""

    async def write(self, focus: str, memories: Sequence[StoredMemory]) -> list[HintLine]:
        """Lines over ``memories`` for ``focus`` (what the agent asked about), each citing the ids of
        the memories it is drawn from. Raises SummaryFailed when no usable lines can be had."""
        ...
