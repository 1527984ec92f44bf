"""The same statement with one value written another way: a clock time ("3pm", "3 p.m.", "15:00") or a
name and its initials ("NYC" / "New York City"). Pure: no I/O.

``text.same_information`` compares the words as written, so such a rewording read as another value: the
contradiction rules superseded "The meeting is at 3pm" with "The meeting is at 15:00", and the near-
duplicate merge stored it as a memory of its own. ``same_statement`` is what both read instead
(``domain.contradiction.compare_facts``: ``same``; ``adapters.postgres.memory_writes.repeat_of``: a repeat).
Only forms that cannot mean anything else are equal: "3pm" is "15:00" and "09:30" is "9:30 am", while
"3:00" (no am/pm) is not "3pm"; "NYC" is "New York City" only when it is written in capitals and the
initials of the other side's capitalised words give its letters in order ("of", "and", … skipped:
"USA" / "United States of America"). Nothing else — no table of aliases ("NY" / "New York State",
"Big Apple") is guessed.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

from hindsight.domain.text import information_sequence, same_information

_TWELVE_HOUR = re.compile(
    r"(?<![\w:.])(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s?(?P<half>[ap])\.?\s?m(?![a-z])\.?", re.IGNORECASE
)
"""A 12-hour clock time: "3pm", "3 pm", "3:30 p.m.", "11 AM"."""
_TWENTY_FOUR_HOUR = re.compile(r"(?<![\w:.])(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?![\w:]|\.\d)")
"""A 24-hour clock time: "15:00", "09:30" (not "10:00:05")."""
_NO_INITIAL = frozenset(["of", "and", "for", "de", "la", "del", "da", "von", "van"])
"""Words a name's initials skip ("United States of America": USA)."""
MAX_INITIALS = 6


def _twelve_hour(match: re.Match[str]) -> str:
    hour = int(match.group("h"))
    if not 1 <= hour <= 12:
        return match.group(0)  # "15pm", "0am": no time we can read, left as written
    hour = hour % 12 + (12 if match.group("half").casefold() == "p" else 0)
    return f"{hour}:{match.group('m') or '00'}"


def clock_times(text: str) -> str:
    """``text`` with each clock time it states with am/pm or on the 24-hour clock written one way, "H:MM"
    on the 24-hour clock: "3pm", "3 p.m.", "3:00 PM", "15:00" → "15:00"; "09:30", "9:30 am" → "9:30";
    "12 am" → "0:00". A time without am/pm is read on the 24-hour clock ("3:00" stays 3:00)."""
    text = _TWELVE_HOUR.sub(_twelve_hour, text)
    return _TWENTY_FOUR_HOUR.sub(lambda m: f"{int(m.group('h'))}:{m.group('m')}", text)


def _capitalised(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word[:1].upper() + word[1:])}(?!\w)", text) is not None


def _one_span_apart(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Whether ``x`` and ``y`` may differ only by one token of one side written as two or more of the other,
    the one difference ``same_statement`` allows (``_initials_of``): their lengths differ, and all of the
    shorter but one token is a common prefix and a common suffix. When this is False the matcher's one
    ``replace`` span cannot pass ``_initials_of`` (its sides would be one token and two or more), so
    ``same_statement`` says False without the matcher: ``SequenceMatcher`` with ``autojunk=False`` takes time
    quadratic in the tokens on repeated words (two 8,000-character texts one word apart: 2.2 s of CPU; two
    of 32,000 did not end in 10 minutes, ``bench/regex_worst.py``); this takes time linear in them."""
    short = min(len(x), len(y))
    if len(x) == len(y):
        return False
    prefix = next((i for i in range(short) if x[i] != y[i]), short)
    suffix = next((i for i in range(short) if x[-1 - i] != y[-1 - i]), short)
    return prefix + suffix >= short - 1


def _initials_of(short: tuple[str, ...], long: tuple[str, ...], short_text: str, long_text: str) -> bool:
    """Whether ``short`` is one word written in capitals in ``short_text`` whose letters are, in order, the
    initials of the words of ``long`` (each capitalised in ``long_text``; ``_NO_INITIAL`` skipped)."""
    if len(short) != 1 or len(long) < 2:
        return False
    letters = short[0]
    if not (2 <= len(letters) <= MAX_INITIALS and letters.isalpha()):
        return False
    if re.search(rf"(?<!\w){re.escape(letters.upper())}(?!\w)", short_text) is None:
        return False
    named = [w for w in long if w not in _NO_INITIAL]
    if not all(w.isalpha() and _capitalised(w, long_text) for w in named):
        return False
    return "".join(w[0] for w in named) == letters


def same_statement(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` say the same thing: the same information (``text.same_information``), or
    the same words with clock times written one way (``clock_times``) and at most one place where one
    side writes a name by its initials (module docstring). Read in Unicode NFC."""
    if same_information(a, b):
        return True
    a, b = unicodedata.normalize("NFC", a), unicodedata.normalize("NFC", b)
    x, y = information_sequence(clock_times(a)), information_sequence(clock_times(b))
    if x == y:
        return True
    if not _one_span_apart(x, y):
        return False  # what follows could only say False, and its matcher is quadratic in the tokens
    spans = [op for op in SequenceMatcher(None, x, y, autojunk=False).get_opcodes() if op[0] != "equal"]
    if len(spans) != 1 or spans[0][0] != "replace":
        return False
    _, i1, i2, j1, j2 = spans[0]
    return _initials_of(x[i1:i2], y[j1:j2], a, b) or _initials_of(y[j1:j2], x[i1:i2], b, a)
