"""Reflectors and judges (write filter, contradictions) and the experience-hint writer: the embedded
rules (default) and an OpenAI-compatible chat model.

``make_reflector``, ``make_write_judge``, ``make_conflict_judge`` and ``make_experience_writer`` build
the configured ones from ``Settings`` for the composition root. The OpenAI adapter (and the ``openai``
package) is imported only when configured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.config import Settings
from hindsight.ports import ConflictJudge, ExperienceWriter, Reflector, WriteJudge

if TYPE_CHECKING:
    from hindsight.adapters.reflection.openai_chat import OpenAIChatModel


def _chat_model(settings: Settings) -> OpenAIChatModel:
    from hindsight.adapters.reflection.openai_chat import OpenAIChatModel

    key = settings.chat_api_key or settings.openai_api_key
    return OpenAIChatModel(
        model=settings.chat_model or "",
        base_url=settings.chat_base_url,
        api_key=key.get_secret_value() if key else None,
        temperature=settings.chat_temperature,
        timeout_s=settings.chat_timeout_s,
        max_retries=settings.chat_max_retries,
    )


def make_reflector(settings: Settings) -> Reflector:
    """The configured Reflector: ``RulesReflector`` for ``rules``; for ``openai`` the chat model, with
    the rules as fallback when ``chat_fallback_to_rules`` is set.

    Raises:
        ConfigurationError: invalid chat settings (e.g. a temperature above 0.1).
    """
    from hindsight.adapters.reflection.rules import RulesReflector

    if settings.reflection_provider == "rules":
        return RulesReflector()
    from hindsight.adapters.reflection.openai_chat import OpenAIChatReflector

    fallback = RulesReflector() if settings.chat_fallback_to_rules else None
    return OpenAIChatReflector(_chat_model(settings), fallback=fallback)


def make_write_judge(settings: Settings) -> WriteJudge | None:
    """The write judge for ``ShouldRemember``: the chat model for ``openai``, None for ``rules`` (the
    rules' unsure cases then take ``ShouldRemember``'s default)."""
    if settings.reflection_provider == "rules":
        return None
    from hindsight.adapters.reflection.openai_chat import OpenAIChatWriteJudge

    return OpenAIChatWriteJudge(_chat_model(settings))


def make_conflict_judge(settings: Settings) -> ConflictJudge | None:
    """The contradiction judge for ``StoreMemories``: the chat model for ``openai``, None for ``rules`` (the
    rules' possible conflicts then stay flagged, both memories active)."""
    if settings.reflection_provider == "rules":
        return None
    from hindsight.adapters.reflection.openai_chat import OpenAIChatConflictJudge

    return OpenAIChatConflictJudge(_chat_model(settings))


def make_experience_writer(settings: Settings) -> ExperienceWriter | None:
    """The writer of ``memory_summarize``'s hints: the chat model for ``openai``, None for ``rules`` (the
    extractive hint, offline and deterministic, is then the only one)."""
    if settings.reflection_provider == "rules":
        return None
    from hindsight.adapters.reflection.openai_chat import OpenAIChatExperienceWriter

    return OpenAIChatExperienceWriter(_chat_model(settings))
