"""Reflector, WriteJudge, ConflictJudge and ExperienceWriter over any OpenAI-compatible chat-completions
server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, …).

- Temperature is at most ``MAX_REFLECTION_TEMPERATURE`` (0.1, the spec); a higher value is refused
  when the model object is built.
- The reply format is fixed: ``response_format`` carries the JSON schema (``hindsight.prompts``), and
  the system prompt repeats it for servers that ignore ``response_format``.
- Retries are the ``openai`` client's own (``max_retries``): 408, 409, 429, 5xx and connection errors,
  exponential backoff from 0.5 s capped at 8 s with jitter, and a server's ``Retry-After`` /
  ``retry-after-ms`` honoured up to two minutes. ``timeout_s`` bounds each attempt.
- Replies are parsed defensively (``hindsight.adapters.llm_json``): plain JSON, JSON in code fences or
  among prose; never "repaired". A reply that does not validate raises ``ReflectionFailed`` /
  ``JudgeFailed`` naming what was wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import openai
from openai import AsyncOpenAI

from hindsight.adapters.llm_json import ReplyNotJson, parse_reply
from hindsight.adapters.reflection.rules import merge_entities
from hindsight.domain.errors import ConfigurationError, JudgeFailed, ReflectionFailed, SummaryFailed
from hindsight.domain.experience import HintLine
from hindsight.domain.memory import StoredMemory
from hindsight.domain.reflection import MAX_REFLECTION_TEMPERATURE, EpisodeRecord, TaskReport
from hindsight.ports import ConflictRelation, Reflector
from hindsight.prompts import conflict_judge as conflict_prompt
from hindsight.prompts import experience as experience_prompt
from hindsight.prompts import reflection as reflection_prompt
from hindsight.prompts import write_judge as judge_prompt

log = logging.getLogger(__name__)

MAX_JUDGED_CHARS = 8_000
"""Only the start of a long text goes to the judge: enough to tell a fact from chit-chat, and cheap."""


class ChatCallFailed(Exception):
    """One chat call gave no usable reply (transport error after retries, refusal, empty reply)."""


@dataclass
class OpenAIChatModel:
    """One chat model on an OpenAI-compatible server, asked for JSON replies.

    Args:
        model: the model name the server knows (e.g. "gpt-4o-mini", "qwen2.5:7b-instruct").
        base_url: the API root including ``/v1`` (None: OpenAI's, or ``OPENAI_BASE_URL``).
        api_key: sent as a bearer token; local servers usually take any value.
        temperature: 0 to ``MAX_REFLECTION_TEMPERATURE`` (0.1).
        timeout_s: seconds per attempt (connect, read and write).
        max_retries: retries by the openai client after the first attempt (0 disables them).
        max_output_tokens: sent as ``max_completion_tokens`` when set.
        client: an ``AsyncOpenAI`` to use instead of building one (tests, shared pools).

    Raises:
        ConfigurationError: temperature outside [0, 0.1], a non-positive timeout, negative retries or
            an empty model name.
    """

    model: str
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    temperature: float = 0.0
    timeout_s: float = 30.0
    max_retries: int = 3
    max_output_tokens: int | None = None
    client: AsyncOpenAI | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.temperature <= MAX_REFLECTION_TEMPERATURE:
            raise ConfigurationError(
                f"chat temperature {self.temperature} is not allowed: reflection and write judging run at "
                f"0 to {MAX_REFLECTION_TEMPERATURE} (the spec's fixed-output setting)"
            )
        if not self.model.strip():
            raise ConfigurationError("chat model name is empty")
        if self.timeout_s <= 0:
            raise ConfigurationError(f"chat timeout must be positive, got {self.timeout_s}")
        if self.max_retries < 0:
            raise ConfigurationError(f"chat max_retries must be 0 or more, got {self.max_retries}")
        if self.max_output_tokens is not None and self.max_output_tokens < 1:
            raise ConfigurationError(f"chat max_output_tokens must be positive, got {self.max_output_tokens}")

    @property
    def name(self) -> str:
        """``model@base_url``, for messages and logs."""
        return f"{self.model}@{self.base_url or 'api.openai.com'}"

    def _client(self) -> AsyncOpenAI:
        if self.client is None:
            self.client = AsyncOpenAI(
                api_key=self.api_key or "unused",
                base_url=self.base_url,
                timeout=self.timeout_s,
                max_retries=self.max_retries,
            )
        return self.client

    async def complete(
        self, messages: list[dict[str, str]], response_format: dict[str, Any]
    ) -> tuple[str, str]:
        """One chat completion: (reply text, finish reason).

        Raises:
            ChatCallFailed: the server still failed after the client's retries (the HTTP status and
                the server's message are named), the model refused, or the reply was empty.
        """
        extra: dict[str, Any] = {}
        if self.max_output_tokens is not None:
            extra["max_completion_tokens"] = self.max_output_tokens
        try:
            completion = await self._client().chat.completions.create(
                model=self.model,
                messages=cast(Any, messages),
                temperature=self.temperature,
                response_format=cast(Any, response_format),
                **extra,
            )
        except openai.APIStatusError as exc:
            raise ChatCallFailed(
                f"chat model {self.name} answered HTTP {exc.status_code} after {self.max_retries} "
                f"retries: {exc.message}"
            ) from exc
        except openai.APITimeoutError as exc:
            raise ChatCallFailed(
                f"chat model {self.name} timed out ({self.timeout_s} s per attempt, "
                f"{self.max_retries} retries)"
            ) from exc
        except openai.APIError as exc:
            raise ChatCallFailed(
                f"chat model {self.name} failed after {self.max_retries} retries: {exc.message}"
            ) from exc
        if not completion.choices:
            raise ChatCallFailed(f"chat model {self.name} returned no choices")
        choice = completion.choices[0]
        if choice.message.refusal:
            raise ChatCallFailed(f"chat model {self.name} refused: {choice.message.refusal}")
        if not choice.message.content or not choice.message.content.strip():
            raise ChatCallFailed(
                f"chat model {self.name} returned an empty reply (finish_reason={choice.finish_reason})"
            )
        return choice.message.content, str(choice.finish_reason)

    async def aclose(self) -> None:
        """Close the HTTP connections (the client is rebuilt on next use)."""
        if self.client is not None:
            await self.client.close()
            self.client = None


class OpenAIChatReflector:
    """Reflector port over a chat model.

    The model writes the record; the report's facts win over it: ``outcome`` is always the reported
    one, and the report's own entities override the model's on the same name.

    ``fallback`` (e.g. ``RulesReflector()``) is used when the model fails — unreachable after its
    retries, refusing, or replying with no valid record — and the failure is logged as a warning.
    Without a fallback such failures raise ``ReflectionFailed``.
    """

    def __init__(self, chat: OpenAIChatModel, *, fallback: Reflector | None = None) -> None:
        self._chat = chat
        self._fallback = fallback

    async def reflect(self, report: TaskReport) -> EpisodeRecord:
        """The episode for ``report``.

        Raises:
            ReflectionFailed: (without a fallback) the model failed; the message names the model and
                what was wrong (HTTP status, refusal, no JSON, or the fields that did not validate).
        """
        try:
            return await self._reflect(report)
        except ReflectionFailed as exc:
            if self._fallback is None:
                raise
            log.warning("reflection by %s failed, using the fallback reflector: %s", self._chat.name, exc)
            return await self._fallback.reflect(report)

    async def _reflect(self, report: TaskReport) -> EpisodeRecord:
        try:
            text, finish_reason = await self._chat.complete(
                reflection_prompt.messages(report), reflection_prompt.response_format()
            )
        except ChatCallFailed as exc:
            raise ReflectionFailed(str(exc)) from exc
        try:
            record = parse_reply(text, EpisodeRecord)
        except ReplyNotJson as exc:
            cut = " (the reply was cut off: finish_reason=length)" if finish_reason == "length" else ""
            raise ReflectionFailed(f"chat model {self._chat.name}: {exc}{cut}") from exc
        entities = merge_entities(record.entities, report.entities)
        if record.outcome == report.outcome and entities == record.entities:
            return record
        return EpisodeRecord.model_validate(
            {**record.model_dump(), "outcome": report.outcome, "entities": entities}
        )


class OpenAIChatWriteJudge:
    """WriteJudge port over a chat model: one short JSON reply, ``{"remember": bool}``."""

    def __init__(self, chat: OpenAIChatModel) -> None:
        self._chat = chat

    async def judge(self, text: str) -> bool:
        """True when the model says ``text`` is worth remembering (only its first 8 000 characters
        are sent).

        Raises:
            JudgeFailed: the model could not be reached after its retries, refused, or gave no valid
                ``{"remember": bool}`` object.
        """
        try:
            reply, _ = await self._chat.complete(
                judge_prompt.messages(text[:MAX_JUDGED_CHARS]), judge_prompt.response_format()
            )
            return parse_reply(reply, judge_prompt.JudgeReply).remember
        except (ChatCallFailed, ReplyNotJson) as exc:
            raise JudgeFailed(f"write judge {self._chat.name}: {exc}") from exc


MAX_COMPARED_CHARS = 2_000
"""Each fact sent to the conflict judge is cut to this: facts are short, and the call must stay cheap."""


class OpenAIChatConflictJudge:
    """ConflictJudge port over a chat model: one short JSON reply, ``{"relation": …}``."""

    def __init__(self, chat: OpenAIChatModel) -> None:
        self._chat = chat

    async def judge(self, new: str, old: str) -> ConflictRelation:
        """How ``new`` relates to ``old``: contradiction, addition, paraphrase or unrelated.

        Raises:
            JudgeFailed: the model could not be reached after its retries, refused, or gave no valid
                ``{"relation": …}`` object.
        """
        try:
            reply, _ = await self._chat.complete(
                conflict_prompt.messages(new[:MAX_COMPARED_CHARS], old[:MAX_COMPARED_CHARS]),
                conflict_prompt.response_format(),
            )
            return parse_reply(reply, conflict_prompt.ConflictReply).relation
        except (ChatCallFailed, ReplyNotJson) as exc:
            raise JudgeFailed(f"conflict judge {self._chat.name}: {exc}") from exc


class OpenAIChatExperienceWriter:
    """ExperienceWriter port over a chat model: one JSON reply, ``{"lines": [...]}``. The citations are
    checked by the caller (``usecases.summarize``), not here."""

    def __init__(self, chat: OpenAIChatModel) -> None:
        self._chat = chat

    async def write(self, focus: str, memories: Sequence[StoredMemory]) -> list[HintLine]:
        """The hint's lines as the model writes them.

        Raises:
            SummaryFailed: the model could not be reached after its retries, refused, or gave no valid
                ``{"lines": [...]}`` object.
        """
        try:
            reply, _ = await self._chat.complete(
                experience_prompt.messages(focus, memories), experience_prompt.response_format()
            )
            return [line.line() for line in parse_reply(reply, experience_prompt.HintReply).lines]
        except (ChatCallFailed, ReplyNotJson) as exc:
            raise SummaryFailed(f"experience writer {self._chat.name}: {exc}") from exc
