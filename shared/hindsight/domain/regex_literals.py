"""Literal text a regular expression cannot match without: a cheap test that rules a pattern out.

A pattern such as ``\\bignore\\s+(?:all\\s+)?previous\\s+instructions\\b`` cannot match a text that does not
contain "ignore", "previous" and "instructions"; checking three substrings is far cheaper than running
the regular expression, and most texts hold none of them. ``Prefiltered`` reads that off the
pattern's parse tree (Python's own parser, ``re._parser``, whose tree it then compiles), so the conditions
follow the pattern as it is edited and are never kept beside it by hand (the idea of RE2's prefilters;
Cox, "Regular Expression Matching with a Trigram Index", 2012, with whole literals instead of trigrams).

Soundness is all that matters here: a condition may let through texts the pattern then does not match
(the pattern decides), never reject one it would match. Where the tree holds anything this module does
not reason about (flags other than IGNORECASE switched inside the pattern, cased non-ASCII literals), it
claims nothing. A group that switches only IGNORECASE (``(?i:…)``, ``(?-i:…)``) is read as its body:
literals are read lower-cased and held against ``fold``'s text whatever the case flag, exact under
IGNORECASE and sound without it, as for a whole pattern compiled with or without the flag.

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

    __slots__ = ("_compiled", "_flags", "_tree", "conditions", "starts")

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
        starts = _Reader(constants).starts(items)
        self.starts: tuple[str, ...] | None = None if starts is None else tuple(sorted(starts))
        """Strings (lower-cased) one of which every match begins with, at the match's start (zero-width
        assertions before it, such as a look-behind, consume nothing); None when not known."""

    def compiled(self) -> re.Pattern[str]:
        """The pattern, as ``re.compile(pattern, flags)`` makes it (from the tree parsed already)."""
        if self._compiled is None:
            compiler: Any = importlib.import_module("re._compiler")
            self._compiled = compiler.compile(self._tree, self._flags)
            self._tree = None
        return self._compiled

    def search(self, text: str, folded: str) -> bool:
        """Whether the pattern matches somewhere in ``text``; ``folded`` is ``fold(text)``."""
        return holds(self.conditions, folded) and self.found(text, folded)

    def found(self, text: str, folded: str) -> bool:
        """``compiled().search(text) is not None``, its conditions not looked at (``folded``: ``fold(text)``).
        In an ASCII text (where ``folded`` has ``text``'s indexes) a pattern with ``starts`` is tried only
        where one of them begins: every match starts there, and a match tried at an index sees the text
        before it as a search does (look-behinds, ``\\b``). A search tries every index instead, and one
        that begins with look-behinds and a choice of words (the exfiltration verbs) cost ~0.2 ms per
        ~250-character text (issue 15)."""
        compiled = self.compiled()
        if self.starts is None or not text.isascii():
            return compiled.search(text) is not None
        match, find = compiled.match, folded.find
        for start in self.starts:
            at = find(start)
            while at >= 0:
                if match(text, at):
                    return True
                at = find(start, at + 1)
        return False


class Gates:
    """Which of many ``Prefiltered`` patterns a text may match, and whether their conditions hold, from the
    condition strings the text holds (``present``): each condition's most selective set (its longest
    strings) is its gate, and a pattern is a candidate when a string of one of its gates is in the text (a
    condition holds only if its gate does); a candidate's conditions are then set operations on the same
    strings (``holds_in``), not one substring test per string per pattern.

    Which strings a text holds is read per maximal run of ASCII letters for the strings made of them (most
    of them: a string of letters only lies inside one such run), each run's strings kept for the next text
    that has the same word (``_RUN_CACHE``), and by substring tests for the others (punctuation, CJK), only
    those that can be in the text: ASCII ones in an ASCII text, else looked up by the text's trigrams
    (``_GRAM``) as the gates were before (issue 15: testing the gates' trigrams and every string of every
    candidate's conditions was most of the worker's CPU in labelling a memory)."""

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
        strings = sorted(
            {s for p in self.patterns for c in p.conditions for ss in c for s in ss} | set(gates)
        )
        self.strings = tuple(strings)
        """Every string of every condition, numbered by its index here (``present``)."""
        number = {s: n for n, s in enumerate(strings)}
        self._conditions = tuple(
            tuple(tuple(frozenset(number[s] for s in ss) for ss in c) for c in p.conditions)
            for p in self.patterns
        )
        self._gated = {number[s]: ids for s, ids in self.gates}
        letters = [s for s in strings if _LETTERS.fullmatch(s)]
        self._letters_short = tuple((s, number[s]) for s in letters if len(s) < _GRAM)
        self._letters_by_gram = _by_gram((s, number[s]) for s in letters if len(s) >= _GRAM)
        others = [s for s in strings if not _LETTERS.fullmatch(s)]
        self._others_ascii = tuple((s, number[s]) for s in others if s.isascii())
        self._others_short = tuple((s, number[s]) for s in others if len(s) < _GRAM)
        self._others_by_gram = _by_gram((s, number[s]) for s in others if len(s) >= _GRAM)
        self._others_grams = frozenset(self._others_by_gram)
        self._runs: dict[str, frozenset[int]] = {}

    def present(self, folded: str) -> set[int]:
        """The numbers of the condition strings ``folded`` (``fold(text)``) holds, exactly."""
        found: set[int] = set()
        runs = self._runs
        for run in set(_LETTERS.findall(folded)):
            numbers = runs.get(run)
            if numbers is None:
                numbers = self._in_run(run)
                if len(run) <= _RUN_LONGEST:
                    if len(runs) >= _RUN_CACHE:
                        runs.clear()
                    runs[run] = numbers
            if numbers:
                found |= numbers
        if folded.isascii():  # no string with a character outside ASCII can be in it
            found.update(n for s, n in self._others_ascii if s in folded)
            return found
        found.update(n for s, n in self._others_short if s in folded)
        grams = map(operator.add, map(operator.add, folded, folded[1:]), folded[2:])
        for gram in self._others_grams.intersection(grams):
            found.update(n for s, n in self._others_by_gram[gram] if len(s) == _GRAM or s in folded)
        return found

    def _in_run(self, run: str) -> frozenset[int]:
        """The numbers of the letter strings in ``run`` (a maximal run of ASCII letters)."""
        found = {n for s, n in self._letters_short if s in run}
        by_gram = self._letters_by_gram
        for at in range(len(run) - _GRAM + 1):
            entries = by_gram.get(run[at : at + _GRAM])
            if entries:
                found.update(n for s, n in entries if run.startswith(s, at))
        return frozenset(found)

    def candidates_in(self, present: set[int]) -> set[int]:
        """Indexes of the patterns a text whose condition strings are ``present`` may match."""
        out = set(self.always)
        gated = self._gated
        for n in present:
            ids = gated.get(n)
            if ids is not None:
                out |= ids
        return out

    def holds_in(self, index: int, present: set[int]) -> bool:
        """``holds`` of pattern ``index``'s conditions in a text whose condition strings are ``present``."""
        return any(all(not ns.isdisjoint(present) for ns in c) for c in self._conditions[index])

    def candidates(self, folded: str) -> set[int]:
        """Indexes of the patterns ``folded`` (``fold(text)``) may match; the others cannot."""
        return self.candidates_in(self.present(folded))


def gates_of(patterns: Sequence[re.Pattern[str]]) -> Gates:
    """``Gates`` over compiled ``patterns``, index ``i`` being ``patterns[i]``: only their literal
    conditions are used (the caller runs the patterns themselves). Parses every pattern again (~0.3 ms
    each): build it once, on first use rather than at import, so a cold start that reads no text pays
    nothing."""
    return Gates([Prefiltered(p.pattern, p.flags) for p in patterns])


_LETTERS = re.compile("[a-z]+")
_RUN_CACHE = 50_000
"""Most words (runs of ASCII letters) whose condition strings ``Gates`` keeps (then it starts afresh)."""
_RUN_LONGEST = 40
"""Longest run kept: longer ones (encoded blobs) are rarely met again."""


def _by_gram(entries: Any) -> dict[str, tuple[tuple[str, int], ...]]:
    """(string, number) pairs grouped by the string's first ``_GRAM`` characters."""
    out: dict[str, list[tuple[str, int]]] = {}
    for s, n in entries:
        out.setdefault(s[:_GRAM], []).append((s, n))
    return {gram: tuple(group) for gram, group in out.items()}


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

    def starts(self, items: Any) -> set[str] | None:
        """The strings one of which every match of the item sequence begins with (``Prefiltered.starts``):
        zero-width items before the first that consumes are passed over; None when not known."""
        c = self.c
        for text, item in self._pieces(items):
            if text is not None:
                return {text}
            op, arg = item
            if op is c.AT or op is c.ASSERT or op is c.ASSERT_NOT:
                continue  # consumes nothing: the match starts with what follows
            if op is c.BRANCH:
                out: set[str] = set()
                for branch in arg[1]:
                    strings = self.starts(branch)
                    if strings is None:
                        return None
                    out |= strings
                return out
            if op is c.SUBPATTERN:
                _, add, remove, body = arg
                return self.starts(body) if _case_only(add, remove) else None
            if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and arg[0] >= 1:
                return self.starts(arg[2])
            return None
        return None  # nothing consumes (or an empty alternative): a match may start anywhere

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
            return self.exact_sequence(body) if _case_only(add, remove) else None
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
            return self.conjunction(body) if _case_only(add, remove) else ()
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


def _case_only(add: int, remove: int) -> bool:
    """Whether a group's flags (``(?i:…)``: added, ``(?-i:…)``: removed) switch nothing but IGNORECASE,
    which the strings read here do not depend on (module docstring)."""
    return not (add | remove) & ~re.IGNORECASE


@cache
def _folded(code: int) -> str | None:
    """A literal character as ``fold`` leaves it: ASCII lower-cased, a caseless character as it is;
    None for a cased non-ASCII one (its IGNORECASE matches are not reasoned about here)."""
    ch = chr(code)
    if ch.isascii():
        return ch.lower()
    return ch if ch.lower() == ch == ch.upper() else None
