"""Literal text a regular expression cannot match without: a cheap test that rules a pattern out.

A pattern such as ``\\bignore\\s+(?:all\\s+)?previous\\s+instructions\\b`` cannot match a text that does not
contain "ignore", "previous" and "instructions"; checking three substrings is far cheaper than running
the regular expression, and most texts hold none of them. ``Prefiltered`` reads that off the
pattern's parse tree (Python's own parser, ``re._parser``, whose tree it then compiles), so the conditions
follow the pattern as it is edited and are never kept beside it by hand (the idea of RE2's prefilters;
Cox, "Regular Expression Matching with a Trigram Index", 2012, with whole literals instead of trigrams).

Soundness is all that matters here: a condition may let through texts the pattern then does not match
(the pattern decides), never reject one it would match. Where the tree holds anything this module does
not reason about (flags switched inside the pattern, cased non-ASCII literals), it claims nothing.

No I/O.
"""

from __future__ import annotations

import importlib
import operator
import re
from collections.abc import Sequence
from functools import cache
from typing import Any

Condition = tuple[frozenset[str], ...]
"""Every set must have one of its strings in the text (an AND of ORs); () claims nothing."""

_GRAM = 3
"""Length of the prefix of a gate string ``Gates`` looks up among a text's substrings of that length."""

_MAX_STRINGS = 64
"""Largest set of alternative strings kept for one run (``(?:a|b)(?:c|d)`` is ac, ad, bc, bd)."""


class Prefiltered:
    """A regular expression with the literal conditions of its matches: ``search`` runs it only on a
    text that holds one, and compiles it on the first such text (a pattern most texts never reach costs
    its parse alone). ``pattern`` is parsed once, for both (``re.compile`` would parse it again)."""

    __slots__ = ("_compiled", "_flags", "_tree", "conditions")

    def __init__(self, pattern: str, flags: int) -> None:
        parser: Any = importlib.import_module("re._parser")
        constants: Any = importlib.import_module("re._constants")
        self._flags = int(flags)  # as re.compile does: a RegexFlag's & and | are Python calls, thousands here
        self._tree: Any = parser.parse(pattern, self._flags)
        self._compiled: re.Pattern[str] | None = None
        items = list(self._tree.data)
        branches = items[0][1][1] if len(items) == 1 and items[0][0] is constants.BRANCH else [items]
        self.conditions: tuple[Condition, ...] = tuple(_Reader(constants).conjunction(b) for b in branches)
        """One condition per top-level alternative of the pattern (``a|b|c``): it can match a text only
        if some alternative's condition holds in it (``holds``)."""

    def compiled(self) -> re.Pattern[str]:
        """The pattern, as ``re.compile(pattern, flags)`` makes it (from the tree parsed already)."""
        if self._compiled is None:
            compiler: Any = importlib.import_module("re._compiler")
            self._compiled = compiler.compile(self._tree, self._flags)
            self._tree = None
        return self._compiled

    def search(self, text: str, folded: str) -> bool:
        """Whether the pattern matches somewhere in ``text``; ``folded`` is ``fold(text)``."""
        return holds(self.conditions, folded) and self.compiled().search(text) is not None


class Gates:
    """Which of many ``Prefiltered`` patterns a text may match, from one substring test per gate: each
    condition's most selective set (its longest strings) is its gate, and a pattern is a candidate when
    a string of one of its gates is in the text (a condition holds only if its gate does). A text that
    holds no gate costs a lookup of its trigrams (``_GRAM``) among the gates' first three characters, and a
    substring test only for the gate strings those start, instead of every condition of every pattern."""

    def __init__(self, patterns: Sequence[Prefiltered]) -> None:
        self.patterns = tuple(patterns)
        self.always = frozenset(i for i, p in enumerate(self.patterns) if any(not c for c in p.conditions))
        """Patterns with a condition that claims nothing: candidates for every text."""
        gates: dict[str, set[int]] = {}
        for i, pattern in enumerate(self.patterns):
            if i not in self.always:
                for condition in pattern.conditions:
                    for s in max(condition, key=lambda strings: (min(map(len, strings)), -len(strings))):
                        gates.setdefault(s, set()).add(i)
        self.gates = tuple((s, frozenset(ids)) for s, ids in gates.items())
        # A gate string is looked for only if the text holds its first three characters: the text's
        # trigrams are met with all gates' at once (C set operations), where one substring test per gate
        # string was most of the cost of labelling a text. Shorter strings are tested as they are.
        by_gram: dict[str, list[tuple[str, frozenset[int]]]] = {}
        for s, ids in self.gates:
            if len(s) >= _GRAM:
                by_gram.setdefault(s[:_GRAM], []).append((s, ids))
        self._by_gram = {gram: tuple(entries) for gram, entries in by_gram.items()}
        self._grams = frozenset(by_gram)
        short = [(s, ids) for s, ids in self.gates if len(s) < _GRAM]
        self._short = tuple(short)
        self._short_ascii = tuple((s, ids) for s, ids in short if s.isascii())

    def candidates(self, folded: str) -> set[int]:
        """Indexes of the patterns ``folded`` (``fold(text)``) may match; the others cannot."""
        out = set(self.always)
        for s, ids in self._short_ascii if folded.isascii() else self._short:
            if s in folded:
                out |= ids
        grams = map(operator.add, map(operator.add, folded, folded[1:]), folded[2:])
        for gram in self._grams.intersection(grams):
            for s, ids in self._by_gram[gram]:
                if len(s) == _GRAM or s in folded:
                    out |= ids
        return out


def holds(conditions: tuple[Condition, ...], folded: str) -> bool:
    """Whether some condition holds in ``folded`` (a text passed through ``fold``). Strings are
    lower-cased: exact under IGNORECASE, also sound without it."""
    return any(all(any(s in folded for s in strings) for strings in condition) for condition in conditions)


_FOLD = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})
"""The letters IGNORECASE matches to an ASCII letter that ``str.lower`` does not turn into it (dotted and
dotless i, long s, Kelvin sign)."""


def fold(text: str) -> str:
    """``text`` as ``literal_conditions``' strings are held against: lower-cased, and each letter an
    IGNORECASE match takes for an ASCII letter made that letter."""
    return text.translate(_FOLD).lower() if not text.isascii() else text.lower()


class _Reader:
    """Walks a parse tree (``re._parser``'s (opcode, argument) items); ``exact`` is remembered per item,
    which ``required`` asks again of the items ``exact`` gave up on."""

    def __init__(self, constants: Any) -> None:
        self.c = constants
        self.seen: dict[int, set[str] | None] = {}

    def _pieces(self, items: Any) -> list[tuple[str | None, Any]]:
        """The items with each run of literal characters merged: (text, None) for such a run, (None,
        item) for any other item (fewer, longer steps than one per character)."""
        literal = self.c.LITERAL
        out: list[tuple[str | None, Any]] = []
        text: list[str] = []
        for item in getattr(items, "data", items):  # a SubPattern's list: its own iteration is slow
            if item[0] is literal and (ch := _folded(item[1])) is not None:
                text.append(ch)
                continue
            if text:
                out.append(("".join(text), None))
                text = []
            out.append((None, item))
        if text:
            out.append(("".join(text), None))
        return out

    def conjunction(self, items: Any) -> Condition:
        """The sets all of which a match of the item sequence holds: each run of items that match only
        a few fixed strings gives one set, and each other item what it requires itself."""
        out: list[frozenset[str]] = []
        run: set[str] = {""}
        for text, item in self._pieces(items):
            strings = {text} if text is not None else self.exact(item)
            if strings is not None:
                joined = {a + b for a in run for b in strings}
                if len(joined) <= _MAX_STRINGS:
                    run = joined
                    continue
                self._close(run, out)
                run = strings
                continue
            self._close(run, out)
            run = {""}
            out.extend(self.required(item))
        self._close(run, out)
        return tuple(out)

    @staticmethod
    def _close(run: set[str], out: list[frozenset[str]]) -> None:
        if "" not in run:
            # a text holding a longer string holds any string it contains: keep the shortest
            kept: set[str] = set()
            for s in sorted(run, key=len):
                if not any(k in s for k in kept):
                    kept.add(s)
            out.append(frozenset(kept))

    def exact(self, item: Any) -> set[str] | None:
        """The few strings ``item`` can match (lower-cased), or None when it can match others."""
        key = id(item)
        if key not in self.seen:
            self.seen[key] = self._exact(item)
        return self.seen[key]

    def _exact(self, item: Any) -> set[str] | None:
        c = self.c
        op, arg = item
        if op is c.LITERAL:
            return {ch} if (ch := _folded(arg)) is not None else None
        if op is c.IN:
            chars = [_folded(a) if o is c.LITERAL else None for o, a in arg]
            return None if None in chars else {ch for ch in chars if ch is not None}
        if op is c.SUBPATTERN:
            _, add, remove, body = arg
            return None if add or remove else self.exact_sequence(body)
        if op is c.BRANCH:
            out: set[str] = set()
            for branch in arg[1]:
                strings = self.exact_sequence(branch)
                if strings is None:
                    return None
                out |= strings
                if len(out) > _MAX_STRINGS:
                    return None
            return out
        if op in (c.MAX_REPEAT, c.MIN_REPEAT) and arg[0] == 0 and arg[1] == 1:
            strings = self.exact_sequence(arg[2])
            return None if strings is None else strings | {""}
        return None

    def exact_sequence(self, items: Any) -> set[str] | None:
        out = {""}
        for text, item in self._pieces(items):
            strings = {text} if text is not None else self.exact(item)
            if strings is None:
                return None
            out = {a + b for a in out for b in strings}
            if len(out) > _MAX_STRINGS:
                return None
        return out

    def required(self, item: Any) -> Condition:
        """What a match of an item that is not a few fixed strings requires."""
        c = self.c
        op, arg = item
        if op is c.SUBPATTERN:
            _, add, remove, body = arg
            return () if add or remove else self.conjunction(body)
        if op is c.ATOMIC_GROUP:
            return self.conjunction(arg)
        if op is c.BRANCH:
            # each branch's most selective set; their union is required
            union: set[str] = set()
            for branch in arg[1]:
                sets = self.conjunction(branch)
                if not sets:
                    return ()
                union |= max(sets, key=lambda s: (min(map(len, s)), -len(s)))
            kept: list[frozenset[str]] = []
            self._close(union, kept)
            return tuple(kept)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
            strings = self.exact_sequence(arg[2])
            if strings is not None:
                kept = []
                self._close(strings, kept)
                return tuple(kept)
            return self.conjunction(arg[2])
        return ()  # anything else (classes, anchors, look-arounds, back references) requires nothing


@cache
def _folded(code: int) -> str | None:
    """A literal character as ``fold`` leaves it: ASCII lower-cased, a caseless character as it is;
    None for a cased non-ASCII one (its IGNORECASE matches are not reasoned about here)."""
    ch = chr(code)
    if ch.isascii():
        return ch.lower()
    return ch if ch.lower() == ch == ch.upper() else None
