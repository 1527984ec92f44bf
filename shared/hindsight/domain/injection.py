"""Memory poisoning: stored text that tries to instruct the agent that later reads it.

A recalled memory goes straight into an agent's context, so text planted in one session — by a user, a
web page the agent summarised, or another agent — can address the model in a later one: indirect prompt
injection (Greshake et al., "Not what you've signed up for: Compromising Real-World LLM-Integrated
Applications with Indirect Prompt Injection", AISec 2023; OWASP Top 10 for LLM Applications, LLM01).

The detector is lexical, cheap and computed at read time (no migration; a rule added here applies to
every stored memory at once). It *labels*, never blocks: a user may legitimately keep a note about prompt
injection, and the label ("possible_injection" plus a note in search hits) tells the reading agent to
treat the text as information, not as instructions. Kinds of signal:

- ``instruction_override``: "ignore / disregard / forget / override (all) previous instructions …".
- ``role_reassignment``: "you are now an unrestricted AI", "act as a jailbroken …", "developer mode",
  "new instructions:".
- ``system_prompt``: mentions of the system prompt, chat-template markers (``<|im_start|>``, ``[INST]``,
  ``<<SYS>>``), lines that start with ``### system`` / ``### instructions``.
- ``tool_call``: tool-call markup (``<tool_call>``, ``"tool_calls":``, ``{"name": …, "arguments": …}``)
  or an order to call one of Hindsight's own writing tools ("call memory_forget …").
- ``exfiltration``: "reveal your system prompt / API key", "send … to https://…".
- ``hidden_text``: Unicode tag characters (invisible ASCII "smuggling"), bidirectional overrides,
  zero-width characters. Before matching, text is normalised so these cannot hide the phrases above:
  tag characters are decoded to the ASCII they smuggle, invisible characters are removed, NFKC folds
  full-width letters, and common Cyrillic/Greek look-alikes are mapped to Latin.

No I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from hindsight.domain.memory import StoredMemory

FLAG_INJECTION = "possible_injection"

_TAGS = range(0xE0000, 0xE0080)
"""Unicode tag characters: invisible, and each U+E00xx mirrors ASCII 0xxx."""
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ZERO_WIDTH = frozenset("\u200b\u2060\u2061\u2062\u2063\u2064\ufeff\u180e")
_INVISIBLE = _BIDI | _ZERO_WIDTH | frozenset("\u00ad\u200c\u200d")
"""Removed before matching (ZWJ/ZWNJ and the soft hyphen are legitimate, so they only never hide a
phrase; they are not a signal by themselves)."""
_LOOKALIKES = str.maketrans(
    "аеорсхуіјѕԁһӏԛԝαεορτυνκιΑΕΟΡΤΥΝΚΙΜΗΒΧΖАЕОРСХУІЈЅВМНКТ",
    "aeopcxyijsdhlqwaeoptuvkiAEOPTYNKIMHBXZAEOPCXYIJSBMHKT",
)

_FLAGS = re.IGNORECASE | re.MULTILINE
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("instruction_override", re.compile(
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|my\s+)?"
        r"(?:previous|prior|above|earlier|preceding|former|original|existing|system|safety|other)?\s*"
        r"(?:instructions?|prompts?|rules|directions|guidelines|directives|constraints|guardrails)\b"
        r"|\bdo\s+not\s+follow\s+(?:your|the|any)\s+(?:previous\s+|original\s+|system\s+)?"
        r"(?:instructions?|rules|guidelines)\b"
        r"|\bforget\s+(?:everything|all)\s+(?:you|that|above|before)\b", _FLAGS)),
    ("role_reassignment", re.compile(
        r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+|the\s+|in\s+)?(?:[\w-]+\s+){0,3}"
        r"(?:ai|assistant|model|bot|chatbot|mode|persona|character|dan|jailbroken|unrestricted|unfiltered)\b"
        r"|\b(?:act|behave|respond|operate)\s+as\s+(?:an?\s+)?"
        r"(?:unrestricted|unfiltered|jailbroken|uncensored|evil|rogue)\b"
        r"|\bpretend\s+(?:to\s+be|you\s+are)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,2}"
        r"(?:ai|assistant|model|system|admin|administrator|developer|operator)\b"
        r"|\b(?:developer|god|dan|jailbreak|sudo)\s+mode\b"
        r"|\bnew\s+(?:system\s+)?(?:instructions?|directives?|rules)\s*:", _FLAGS)),
    ("system_prompt", re.compile(
        r"\bsystem\s+(?:prompt|instructions?)\b"
        r"|<\|?\s*(?:system|im_start|im_end|endoftext|start_header_id)\s*\|?>"
        r"|\[/?\s*(?:inst|system|sys)\s*\]|<</?sys>>"
        r"|^\s*#{1,4}\s*(?:system|instructions?)\b", _FLAGS)),
    ("tool_call", re.compile(
        r"<\s*/?\s*(?:tool_call|tool_use|tool_result|function_call|function_calls|invoke|antml:[\w-]+)\b"
        r'|"(?:tool_calls|function_call|tool_use)"\s*:'
        r'|\{\s*"(?:name|tool|tool_name|function)"\s*:\s*"[^"]{1,80}"\s*,\s*'
        r'"(?:arguments|parameters|args|input)"\s*:'
        r"|\b(?:call|invoke|run|execute|trigger)\s+(?:the\s+)?"
        r"(?:memory_(?:forget|update|write|link)|working_memory_(?:clear|promote|set))\b", _FLAGS)),
    ("exfiltration", re.compile(
        r"\b(?:reveal|print|show|output|repeat|leak|disclose|dump)\s+(?:me\s+)?(?:your|the|all)\s+"
        r"(?:system\s+prompt|(?:hidden\s+|initial\s+)?instructions|api\s+keys?|secrets?|credentials|passwords?"
        r"|tokens?)\b"
        r"|\b(?:send|post|upload|forward|exfiltrate|transmit)\s+(?:[\w'-]+\s+){0,6}to\s+https?://", _FLAGS)),
)  # fmt: skip


def _hidden(text: str) -> bool:
    for ch in text:
        if ch in _BIDI or ch in _ZERO_WIDTH or ord(ch) in _TAGS:
            if ch == "\ufeff" and text.startswith(ch) and text.count(ch) == 1:
                continue  # a byte-order mark at the very start is an encoding artefact
            return True
    return False


def normalise(text: str) -> str:
    """The text an LLM would effectively read: tag characters decoded to ASCII, invisible characters
    removed, NFKC-folded, look-alike letters mapped to Latin, runs of spaces collapsed (newlines kept)."""
    out = []
    in_tags = False
    for ch in text:
        code = ord(ch)
        if code in _TAGS:
            if not in_tags:
                out.append(" ")  # smuggled text starts a word of its own
                in_tags = True
            if 0xE0020 <= code <= 0xE007E:
                out.append(chr(code - 0xE0000))
            continue
        if in_tags:
            out.append(" ")
            in_tags = False
        if ch in _INVISIBLE:
            continue
        out.append(ch)
    folded = unicodedata.normalize("NFKC", "".join(out)).translate(_LOOKALIKES)
    return re.sub(r"[^\S\n]+", " ", folded)


@lru_cache(maxsize=4096)
def injection_signals(text: str) -> tuple[str, ...]:
    """The kinds of injection signal in ``text`` (module doc), in a fixed order; () when none."""
    kinds: list[str] = []
    if _hidden(text):
        kinds.append("hidden_text")
    normal = normalise(text)
    for kind, pattern in _PATTERNS:
        if pattern.search(normal):
            kinds.append(kind)
    return tuple(kinds)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (str(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def memory_injection_signals(memory: StoredMemory) -> tuple[str, ...]:
    """Signals in every text field an agent is shown: content, key, recall hint, summary, lessons, key
    decisions, and the keys and strings of metadata and entities."""
    parts = [memory.content, memory.key or "", memory.query or "", memory.summary or "", memory.lessons or ""]
    parts += memory.key_decisions
    parts += _strings(memory.metadata) + _strings(memory.entities)
    return injection_signals("\n".join(p for p in parts if p))
