"""The embedded default Reflector: deterministic rules, no network, no model.

It turns a ``TaskReport`` into an ``EpisodeRecord`` as follows.

- **task_type** — the earliest keyword of ``TASK_TYPE_KEYWORDS`` in the goal ("Find the order…" →
  query, "Cancel order A-1042" → modify); at the same position the longer keyword wins; none → other.
- **outcome** — as reported.
- **summary** — the goal, how the task ended, the step count and the error's first line; an unfinished
  task (failure, aborted, partial) also names the steps taken (``steps_path``; a step that only repeats
  the error is left out), before the error, so "what failed before" says what was tried (trial24 M2)
  and a hint's leading sentences keep it.
- **key_decisions** — up to ``MAX_KEY_DECISIONS`` (3) steps, scored by ``DECISION_SIGNALS``: a wait,
  a retry or a switch of approach scores 3, another decision verb (chose, skipped, escalated, rolled
  back…) 2, each further kind in the same step +0.5. Steps scoring 0 (routine work, observations) are
  never picked. Highest scores win, earlier steps break ties; they are listed in step order.
- **lesson** — one sentence:
  failure/aborted → how to handle or avoid the error, by its kind (``ERROR_KINDS``: rate limit,
  timeout, auth, not found, server error, conflict, invalid input, connection), else the error quoted
  with the approach to avoid named by its steps;
  success after a recovery (an error was seen and a wait/retry/switch followed) → the recovery
  pattern ("On HTTP 429 (rate limit), wait 30 s and retry: …"); partial → what is left to check;
  plain success → the approach worth repeating.
- **entities** — ``extract_entities`` over goal, steps and error, overridden by the report's own
  entities, trimmed to the episode entity budget (extracted kinds go first, least useful first).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from hindsight.domain.limits import MAX_ENTITIES, MAX_KEY_DECISIONS
from hindsight.domain.memory import TaskType
from hindsight.domain.reflection import (
    MAX_DECISION_CHARS,
    MAX_EPISODE_ENTITIES_BYTES,
    MAX_ERROR_CHARS,
    MAX_LESSON_CHARS,
    MAX_SUMMARY_CHARS,
    EpisodeRecord,
    TaskReport,
    entities_size,
)
from hindsight.domain.write_filter import extract_entities

TASK_TYPE_KEYWORDS: dict[TaskType, tuple[str, ...]] = {
    # Table order breaks no ties (position and length do); it is only grouped for reading.
    "query": (
        "find", "search", "look up", "lookup", "look for", "get", "fetch", "list", "show", "check",
        "retrieve", "read", "query", "what", "which", "who", "where", "when", "how many", "how much",
        "status of", "track", "download", "count",
    ),
    "modify": (
        "update", "change", "edit", "fix", "rename", "move", "cancel", "refund", "delete", "remove",
        "replace", "set", "patch", "migrate", "upgrade", "reschedule", "adjust", "correct", "close",
        "archive", "merge", "reset", "deploy", "restart", "rotate", "resize", "convert", "import",
        "sync", "configure", "install", "uninstall", "enable", "disable",
    ),
    "create": (
        "create", "add", "write", "build", "generate", "make", "draft", "compose", "book", "schedule",
        "implement", "open", "register", "send", "publish", "set up", "new", "prepare", "plan", "order",
        "export", "invite", "post", "reply", "translate",
    ),
    "analyze": (
        "analyze", "analyse", "compare", "evaluate", "assess", "review", "investigate", "diagnose",
        "debug", "explain", "summarize", "summarise", "audit", "why", "benchmark", "measure", "profile",
        "estimate", "forecast", "classify", "research",
    ),
}  # fmt: skip
"""Goal keywords per task type (English, lower case, matched on word boundaries)."""

DECISION_SIGNALS: tuple[tuple[str, float, re.Pattern[str]], ...] = tuple(
    (kind, score, re.compile(pattern, re.IGNORECASE))
    for kind, score, pattern in (
        # a wait or back-off before trying again
        ("wait", 3.0, r"\b(?:wait(?:s|ed|ing)?|sleep(?:s|ing)?|slept|back(?:ed|ing)?[ -]?off|"
         r"paus(?:e|ed|ing)|cool(?:ed)?[ -]?down|delay(?:ed)?)\b"),
        # a retry (not the Retry-After header)
        ("retry", 3.0, r"\b(?:retr(?:y|ied|ies|ying)(?![- ]after)|re-?ran|re-?run|tried again|try again|"
         r"again|re-?sent|re-?submitted|second attempt)\b"),
        # a switch of approach, tool or source
        ("switch", 3.0, r"\b(?:switch(?:ed|ing)?|fell back|fall(?:ing)? back|fallback|instead|alternative|"
         r"changed (?:approach|strategy|plan)|replaced)\b"),
        # another explicit decision
        ("decision", 2.0, r"\b(?:decid(?:e|ed|ing)|chose|choose|chosen|opted|select(?:ed)?|picked|"
         r"skipp(?:ed|ing)|abort(?:ed|ing)?|gave up|escalat(?:e|ed|ing)|asked the user|confirmed with|"
         r"prioriti[sz]ed|roll(?:ed)? back|reverted|split)\b"),
    )
)  # fmt: skip
"""Step signals for key decisions: (kind, score, pattern)."""

ERROR_KINDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        ("rate_limit", r"\b429\b|rate[- ]?limit\w*|too many requests|throttl\w*|quota exceeded"),
        # before timeout: waiting longer for a lock is the wrong lesson ("lock timeout", "lock wait timeout")
        (
            "lock",
            r"\block(?:s|ed|ing)?\b[^.\n]{0,40}\b(?:time[- ]?out|timed out|wait\w*)\b|\bdeadlock\w*|"
            r"could not (?:obtain|acquire) (?:a )?lock|\b423\b",
        ),
        ("timeout", r"\btime[- ]?out|\btimed out\b|deadline exceeded|\b408\b|\b504\b"),
        (
            "auth",
            r"\b40[13]\b|unauthori[sz]ed|forbidden|permission denied|access denied|invalid (?:api )?key",
        ),
        ("not_found", r"\b404\b|not found|no such|does not exist|doesn't exist"),
        ("server", r"\b5\d\d\b|internal server error|service unavailable|bad gateway|server error"),
        ("conflict", r"\b409\b|conflict|already exists"),
        ("invalid_input", r"\b4(?:00|22)\b|validation|malformed|bad request|invalid"),
        (
            "connection",
            r"connection (?:refused|reset|error|failed)|unreachable|name resolution|network error",
        ),
        ("error", r"\berror\b|\bfail(?:ed|ure|s)?\b|\bexception\b|\btraceback\b"),
    )
)
"""Error kinds, most specific first; the first that matches the error text (else the steps) wins."""

_HANDLING: dict[str, str] = {
    "rate_limit": "wait for Retry-After (or back off) and retry instead of giving up",
    "lock": "find what holds the lock and make the work hold locks briefly (smaller transactions, a quiet "
    "window, a short lock timeout with retries) instead of waiting longer",
    "timeout": "allow a longer timeout or split the work into smaller steps",
    "auth": "check credentials and permissions before starting",
    "not_found": "verify that the target exists (id, name, path) before acting on it",
    "server": "retry with backoff and have a fallback if the service stays down",
    "conflict": "check the current state before creating or changing anything",
    "invalid_input": "validate the input against what the service expects before sending it",
    "connection": "check the endpoint and the network before retrying",
}
"""What a lesson tells the next attempt to do, by error kind."""

_KIND_STATUS: dict[str, re.Pattern[str]] = {
    kind: re.compile(rf"\b({codes})\b")
    for kind, codes in (
        ("rate_limit", "429"),
        ("lock", "423"),
        ("timeout", "408|504"),
        ("auth", "401|403"),
        ("not_found", "404"),
        ("server", r"5\d\d"),
        ("conflict", "409"),
        ("invalid_input", "400|422"),
    )
}
"""The HTTP status codes that go with each error kind (RFC 9110 §15; 429: RFC 6585 §4)."""
_DURATION = re.compile(
    r"\b(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b", re.IGNORECASE
)
_KIND_NAMES = {
    "rate_limit": "rate limit",
    "lock": "lock contention",
    "timeout": "timeout",
    "auth": "refused credentials",
    "not_found": "not found",
    "server": "server error",
    "conflict": "conflict",
    "invalid_input": "invalid input",
    "connection": "connection error",
    "error": "an error",
}
_OUTCOME_PHRASE = {
    "success": "succeeded",
    "partial": "was partly done",
    "failure": "failed",
    "aborted": "was aborted",
}
PATH_STEPS = 3
"""Steps a summary or lesson names (as many as ``MAX_KEY_DECISIONS``: a record tells at most three)."""
PATH_STEP_CHARS = 60
"""Each named step is clipped to this: three of them and the arrows stay under 200 characters, so a
lesson (``MAX_LESSON_CHARS`` 400) keeps room for the goal and the error."""
_EXTRACTED_DROP_ORDER = ("names", "dates", "urls", "projects", "people", "emails", "ids")
"""Extracted entity kinds dropped first when the entity budget is exceeded."""


class RulesReflector:
    """Reflector port without an LLM: deterministic, offline, instant (see the module doc for the rules)."""

    async def reflect(self, report: TaskReport) -> EpisodeRecord:
        """The episode for ``report``; never calls out, never raises for a valid report."""
        return reflect_by_rules(report)


def reflect_by_rules(report: TaskReport) -> EpisodeRecord:
    """Pure form of ``RulesReflector.reflect``."""
    decisions = pick_key_decisions(report.steps)
    error_kind, status = _classify_error(report)
    return EpisodeRecord(
        task_type=task_type_of(report.goal),
        outcome=report.outcome,
        summary=_summary(report, error_kind, status, decisions),
        key_decisions=[_clip(report.steps[i], MAX_DECISION_CHARS) for i in decisions],
        lesson=_lesson(report, error_kind, status, decisions),
        entities=merge_entities(extract_entities(report_text(report)), report.entities),
    )


def report_text(report: TaskReport) -> str:
    """Goal, steps and error as one text (what entity extraction reads)."""
    return "\n".join([report.goal, *report.steps, report.error or ""])


def task_type_of(goal: str) -> TaskType:
    """The task type whose keyword appears earliest in ``goal`` (longest keyword at a tie); else other."""
    text = goal.lower()
    best: tuple[int, int, TaskType] | None = None
    for task_type, keywords in TASK_TYPE_KEYWORDS.items():
        for keyword in keywords:
            match = re.search(rf"\b{re.escape(keyword)}\b", text)
            if match and (best is None or (match.start(), -len(keyword)) < best[:2]):
                best = (match.start(), -len(keyword), task_type)
    return best[2] if best else "other"


def decision_kinds(step: str) -> list[tuple[str, float]]:
    """The decision signals a step shows, as (kind, score)."""
    return [(kind, score) for kind, score, pattern in DECISION_SIGNALS if pattern.search(step)]


def pick_key_decisions(steps: list[str]) -> list[int]:
    """Indexes of up to ``MAX_KEY_DECISIONS`` steps, in step order (scoring in the module doc)."""
    scored: list[tuple[float, int]] = []
    for index, step in enumerate(steps):
        kinds = decision_kinds(step)
        if kinds:
            score = max(s for _, s in kinds) + 0.5 * (len(kinds) - 1)
            scored.append((score, index))
    best = sorted(scored, key=lambda item: (-item[0], item[1]))[:MAX_KEY_DECISIONS]
    return sorted(index for _, index in best)


def merge_entities(found: Mapping[str, Any], reported: Mapping[str, Any]) -> dict[str, Any]:
    """The report's entities over the ``found`` ones (extracted by rules or named by a model), within
    ``MAX_ENTITIES`` names and the episode budget (``MAX_EPISODE_ENTITIES_BYTES``).

    When over budget, found kinds are trimmed first: unknown names, then ``_EXTRACTED_DROP_ORDER``
    (names, dates, urls, … ids); a list loses values from its end before the kind is dropped. The
    report's own entities are always kept (they were validated against the same budget).
    """
    merged: dict[str, Any] = {
        k: list(v) if isinstance(v, list) else v for k, v in found.items() if k not in reported
    }
    merged.update(reported)
    rank = {kind: i for i, kind in enumerate(_EXTRACTED_DROP_ORDER)}
    droppable = sorted((k for k in merged if k not in reported), key=lambda k: rank.get(k, -1))
    while droppable and (len(merged) > MAX_ENTITIES or entities_size(merged) > MAX_EPISODE_ENTITIES_BYTES):
        kind = droppable[0]
        value = merged[kind]
        if len(merged) <= MAX_ENTITIES and isinstance(value, list) and len(value) > 1:
            value.pop()
        else:
            del merged[kind]
            droppable.pop(0)
    return merged


def _classify_error(report: TaskReport) -> tuple[str | None, str | None]:
    """(error kind, HTTP status) from the error text, else from the steps; (None, None) if no error."""
    for text in (report.error or "", "\n".join(report.steps)):
        for kind, pattern in ERROR_KINDS:
            if text and pattern.search(text):
                status = _KIND_STATUS[kind].search(text) if kind in _KIND_STATUS else None
                return kind, status.group(1) if status else None
    return None, None


def _error_phrase(kind: str, status: str | None) -> str:
    name = _KIND_NAMES[kind]
    return f"HTTP {status} ({name})" if status else name


def _recovery(steps: list[str], decisions: list[int]) -> list[str]:
    """The recovery kinds among the picked steps, in the order they are told: wait, switch, retry."""
    seen = {kind for index in decisions for kind, _ in decision_kinds(steps[index])}
    return [kind for kind in ("wait", "switch", "retry") if kind in seen]


def _wait_duration(steps: list[str], decisions: list[int]) -> str | None:
    for index in decisions:
        if any(kind == "wait" for kind, _ in decision_kinds(steps[index])):
            match = _DURATION.search(steps[index])
            if match:
                return f"{match.group(1)} {_unit_symbol(match.group(2))}"
    return None


def _unit_symbol(unit: str) -> str:
    """SI-style symbol of a time unit as written: "seconds" → "s", "mins" → "min", "ms" → "ms"."""
    unit = unit.lower()
    if unit == "ms" or unit.startswith("milli"):
        return "ms"
    if unit.startswith("s"):
        return "s"
    if unit.startswith("m"):
        return "min"
    return "h"


def _summary(report: TaskReport, kind: str | None, status: str | None, decisions: list[int]) -> str:
    text = f"{_clip(report.goal, 300).rstrip('.')}: {_OUTCOME_PHRASE[report.outcome]}"
    if report.steps:
        text += f" after {len(report.steps)} step{'s' if len(report.steps) != 1 else ''}"
        if report.outcome != "success":
            # what was tried, before the error: the next attempt must know which approach not to repeat
            # (a success's steps are its lesson, "This approach worked for …")
            text += f": {steps_path(_tried_steps(report), ends_at_failure=True)}"
    recovery = _recovery(report.steps, decisions)
    if report.outcome == "success" and kind and recovery:
        text += f", recovering from {_error_phrase(kind, status)} by {_gerunds(recovery)}"
    if report.error and report.outcome != "success":
        text += f" ({_first_line(report.error, 400)})"
    return _clip(text + ".", MAX_SUMMARY_CHARS)


def _lesson(report: TaskReport, kind: str | None, status: str | None, decisions: list[int]) -> str:
    goal = _clip(report.goal, 120).rstrip(".")
    recovery = _recovery(report.steps, decisions)
    if report.outcome in ("failure", "aborted"):
        verb = "failed" if report.outcome == "failure" else "was aborted"
        if kind is not None and kind in _HANDLING:
            lesson = f'"{goal}" {verb} on {_error_phrase(kind, status)}: next time, {_HANDLING[kind]}.'
        elif report.error:
            error = report.error

            def quoting(tried: str) -> str:
                head = f'Avoid repeating this approach to "{goal}"{tried}: it {verb} with "'
                tail = '"; handle that error or try another way.'
                # the error's first line, within 160 characters and the room the approach leaves
                room = max(40, min(160, MAX_LESSON_CHARS - len(head) - len(tail)))
                return head + _first_line(error, room) + tail

            lesson = _naming_the_approach(_tried_steps(report), quoting)
        else:
            lesson = _naming_the_approach(
                report.steps,
                lambda tried: (
                    f'This approach to "{goal}"{tried} {verb} without an error message; '
                    "try another approach and record the error."
                ),
            )
    elif report.outcome == "success" and kind is not None and recovery:
        if recovery == ["switch"]:
            switched = next(i for i in decisions if "switch" in dict(decision_kinds(report.steps[i])))
            lesson = (
                f'On {_error_phrase(kind, status)}, switching worked: "{_clip(report.steps[switched], 200)}".'
            )
        else:
            actions = _imperatives(recovery, _wait_duration(report.steps, decisions))
            lesson = f'On {_error_phrase(kind, status)}, {actions}: that recovered "{goal}".'
    elif report.outcome == "partial":
        rest = _first_line(report.error, 200) if report.error else "some of the work was not finished"
        lesson = f'"{goal}" was only partly done ({rest}): check what remains before calling it finished.'
    elif report.steps:
        lesson = f'This approach worked for "{goal}": {steps_path(report.steps)}.'
    else:
        lesson = f'"{goal}" succeeded; the same approach can be reused.'
    return _clip(lesson, MAX_LESSON_CHARS)


def steps_path(steps: list[str], *, ends_at_failure: bool = False, step_chars: int = PATH_STEP_CHARS) -> str:
    """Up to ``PATH_STEPS`` (3) of ``steps`` joined by " → ", each clipped to ``step_chars`` (60);
    "…" stands for the steps left out. A success is told by its first steps (how it went); a task that
    did not succeed (``ends_at_failure``) by its first ones and its last, where it stopped
    ("ran migration → … → checkout timed out")."""
    clipped = [_clip(step, step_chars) for step in steps]
    if len(clipped) <= PATH_STEPS:
        return " → ".join(clipped)
    if ends_at_failure:
        return " → ".join([*clipped[: PATH_STEPS - 1], "…", clipped[-1]])
    return " → ".join([*clipped[:PATH_STEPS], "…"])


def _tried_steps(report: TaskReport) -> list[str]:
    """The steps that tell what was tried: a step that only repeats the error ("Failed: <error>": it holds
    the error's first line, which is at least half of it) is left out, the error being told beside the
    steps; all steps when every one does."""
    error = " ".join(_first_line(report.error, MAX_ERROR_CHARS).lower().split()) if report.error else ""

    def repeats_error(step: str) -> bool:
        words = " ".join(step.lower().split())
        return bool(error) and error in words and 2 * len(error) >= len(words)

    return [step for step in report.steps if not repeats_error(step)] or report.steps


def _naming_the_approach(steps: list[str], lesson: Callable[[str], str]) -> str:
    """``lesson`` given " (tried: a → b → c)", the steps of a task that did not succeed (empty without
    steps), with the steps clipped shorter (60, 40, then 20 characters) until the lesson fits
    ``MAX_LESSON_CHARS``: the lesson's advice, at its end, is never the part cut off."""
    text = ""
    for step_chars in (PATH_STEP_CHARS, 40, 20):
        path = steps_path(steps, ends_at_failure=True, step_chars=step_chars)
        text = lesson(f" (tried: {path})" if steps else "")
        if len(text) <= MAX_LESSON_CHARS:
            break
    return text


def _imperatives(kinds: list[str], duration: str | None) -> str:
    words = {
        "wait": f"wait {duration}" if duration else "wait",
        "retry": "retry",
        "switch": "switch approach",
    }
    return " and ".join(words[k] for k in kinds)


def _gerunds(kinds: list[str]) -> str:
    words = {"wait": "waiting", "retry": "retrying", "switch": "switching approach"}
    return " and ".join(words[k] for k in kinds)


def _first_line(text: str, limit: int) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), text.strip())
    return _clip(line, limit)


def _clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in '…' when cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
