"""Domain errors. Adapters translate them: MCP → tool results with isError (``api/errors.py``), CLI → exit
codes."""

from __future__ import annotations


class HindsightError(Exception):
    """Base class of every error Hindsight raises on purpose.

    ``details()`` gives the fields, besides the message, an agent needs to act on the error (a limit, when
    to retry); the API adds them to the error it returns (``api/errors.py``)."""

    def details(self) -> dict[str, object]:
        """Extra fields for the caller (JSON values); none by default."""
        return {}


class ConfigurationError(HindsightError):
    """The process cannot start: a setting is missing, invalid or disagrees with the database."""


class InvalidInput(HindsightError):
    """A request field is invalid. ``field`` is the dotted path; ``limit`` the bound broken, if any."""

    def __init__(self, field: str, message: str, limit: object | None = None) -> None:
        self.field = field
        self.limit = limit
        super().__init__(f"{field}: {message}")


class IdempotencyKeyReused(InvalidInput):
    """An ``idempotency_key`` already names a write with different arguments (payment APIs answer the
    same), or a ``task_id`` a task report with different content (``field="task_id"``: task_reflect).
    ``id`` is the write the key is bound to; a retry must repeat that write's arguments exactly."""

    def __init__(self, write_id: str, field: str = "idempotency_key") -> None:
        self.write_id = write_id
        if field == "task_id":  # task_reflect: the task id is the reflection's idempotency key
            message = (
                "this task_id was already reported with different arguments; a retry must repeat the same "
                "report, another task needs its own task_id"
            )
        else:
            message = (
                "this key was already used for a write with different arguments; a retry must repeat the "
                "same arguments, a new write needs a new key"
            )
        super().__init__(field, message)

    def details(self) -> dict[str, object]:
        """``id``: the write the key is bound to."""
        return {"id": self.write_id}


class NotFound(HindsightError):
    """The object does not exist in the caller's tenant (never says whether it exists elsewhere).
    ``field``: the argument that named it ("id", "to_id", "key"), put before the message as an argument
    error's is, so a caller that passed several ids knows which one to fix; None when no one argument
    did."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)

    def details(self) -> dict[str, object]:
        """``field``: the argument naming what was not found (when one did)."""
        return {"field": self.field} if self.field else {}


class VersionConflict(HindsightError):
    """A change named the version it expected (``expected_version``) and the object is at another one:
    someone changed it since the caller read it. Nothing was changed. ``what`` names the object ("memory
    <id>", "working-memory item '<key>'"); ``current`` is what it holds now (JSON values: content,
    status, …) so the caller can merge its change and retry with ``current_version``. A version of 0
    means the object does not exist (yet)."""

    def __init__(self, what: str, expected: int, current_version: int, current: dict[str, object]) -> None:
        self.expected_version = expected
        self.current_version = current_version
        self.current = current
        super().__init__(_conflict_message(what, expected, current_version))

    def details(self) -> dict[str, object]:
        """``current_version``, ``expected_version`` and ``current`` (the object as it is now)."""
        return {
            "current_version": self.current_version,
            "expected_version": self.expected_version,
            "current": self.current,
        }


def _conflict_message(what: str, expected: int, current_version: int) -> str:
    """Why a change expecting version ``expected`` was refused, and what to do (0: does not exist)."""
    if expected == 0:
        return (
            f"{what} exists, at version {current_version}, and expected_version=0 means 'only if it does "
            f"not exist': nothing was changed; to replace it, merge your change into its current content "
            f"(below) and retry with expected_version={current_version}"
        )
    if current_version == 0:
        return (
            f"{what} does not exist (any more: it may have expired, been evicted or cleared), not version "
            f"{expected}: nothing was changed; to create it, retry with expected_version=0"
        )
    # versions only grow: one above today's was never held, so "it changed since you read it" is wrong
    why = (
        "it changed since you read it"
        if current_version > expected
        else f"it has never been at version {expected} (read it again)"
    )
    return (
        f"{what} is at version {current_version}, not version {expected}: {why}, and nothing was changed "
        f"now; merge your change into its current content (below) and retry with "
        f"expected_version={current_version}"
    )


class Unauthorized(HindsightError):
    """Missing, unknown or revoked credentials."""


class Forbidden(HindsightError):
    """Valid credentials without the right to do this (read-only key, agent not allowed). ``field``: the
    argument the refusal is about ("agent_id"), put before the message; None when it is the call as a
    whole (a read-only key writing)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        self.field = field
        super().__init__(f"{field}: {message}" if field else message)

    def details(self) -> dict[str, object]:
        """``field``: the argument the refusal is about (when there is one)."""
        return {"field": self.field} if self.field else {}


class RateLimited(HindsightError):
    """The caller used up a budget (``budget``: "requests", "writes", "write_items" or "refused",
    ``limit`` per ``window_s``);
    ``retry_after_s`` says when the next call is allowed."""

    def __init__(self, budget: str, limit: int, window_s: int, retry_after_s: float) -> None:
        self.budget = budget
        self.limit = limit
        self.window_s = window_s
        self.retry_after_s = retry_after_s
        what = {
            "requests": "tool calls",
            "write_items": "batch items",
            "refused": "calls refused for their arguments",
        }.get(budget, "calls that change memory")
        super().__init__(
            f"rate limit exceeded: {limit} {what} per {window_s} s for this key; "
            f"retry in {retry_after_s:.0f} s"
        )

    def details(self) -> dict[str, object]:
        """``retry_after_s``, ``limit``, ``window_s`` and ``budget``."""
        return {
            "retry_after_s": self.retry_after_s,
            "limit": self.limit,
            "window_s": self.window_s,
            "budget": self.budget,
        }


class Unavailable(HindsightError):
    """A dependency is down; the caller may retry later (the write was not accepted)."""


class ReflectionFailed(HindsightError):
    """A task report could not be turned into an episodic record: the reflection model could not be
    reached after its retries, refused, or replied with something that is not a valid EpisodeRecord
    (the message names what was wrong)."""


class JudgeFailed(HindsightError):
    """The write judge (an LLM asked when the write rules are unsure) gave no usable yes/no answer."""


class SummaryFailed(HindsightError):
    """The chat model asked to write an experience hint gave no usable lines (unreachable after its
    retries, a refusal, or a reply that is not the hint's JSON); the extractive hint is used instead."""
