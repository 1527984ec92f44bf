"""Ports of the LLM-backed judgements: the post-task reflector, the write filter's judge and the
contradiction judge."""

from __future__ import annotations

from typing import Literal, Protocol

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
