"""An everyday change said in other words than the fact it changes: at least a flag (trial7 M1). Pure:
regular expressions and word sets, no I/O.

The frame rules (``domain.contradiction``) compare two statements word for word, after the same
subject. A user writes a change in words of their own, often without the subject the old fact has:
"I live in Denver" / "We just moved to Austin", "Just moved to Austin!", "My family and I moved to
Austin", "Finally settled in Austin after the move"; "I'm on a keto diet" / "I gave up keto"; "I drive a
2015 Honda Civic" / "I traded in the Civic for a Tesla Model 3"; "My manager is Tom Reyes" / "Tom Reyes
retired, so Priya is my manager now"; "My daughter Mia is 7" / "Mia turned 8 last week". Each left both
facts active and unflagged: another subject token ("we", none, "i'm" against "i"), a clause before the
statement, or no rule for the verb.

``mentions_a_change`` reads such a pair loosely: the new text has a change word (``CHANGE``: moved,
settled in, left, retired, quit, gave up, dropped out, cancelled, called off, traded in, took … off,
closed down, turned <number>, passed away, died, got fired, was laid off, …; the last ones
trial11 finding 8: "Rex passed away" / "Rex is our dog", "Chris got fired" / "My friend Chris works at
Acme"), it is about the old fact's subject — the user in the first person
("I", "we", "me", "Sam and I"; no subject at all) when the old one is the user's, or the old fact's own
thing or person named before the change word ("Tom Reyes left", "Nopa closed down", "Mia turned 8") —
and it names a word of what the old fact says (or, for a move, the old fact says where its subject
lives). Being loose, it is only ever a possible conflict: the rules of house say retire nothing when
unsure. "My sister moved to Denver" / "I live in Denver", "My wife gave up keto" / "I'm on a keto
diet": another person, nothing.
"""

from __future__ import annotations

import re

from hindsight.domain.both_hold import QUALIFIER_TIMES
from hindsight.domain.text import plain_apostrophes
from hindsight.domain.value_slots import RELATIONS

CHANGE = re.compile(
    r"\b(?:(?:has|have|had|just|finally|recently)\s+)*(?:"
    r"moved|relocated|settled\s+(?:down\s+)?in(?:to)?|left|retired|quit|gave\s+up(?:\s+on)?|given\s+up"
    r"|dropped\s+out(?:\s+of)?|pulled\s+out(?:\s+of)?|withdrew(?:\s+from)?|cancell?ed|called\s+off"
    r"|broke\s+off|traded\s+in|traded|took\s+(?:me|us)\s+off|taken\s+(?:me|us)\s+off|closed(?:\s+down)?"
    r"|shut\s+down|turned(?=\s+\d)|sold|ended|stopped|switched(?:\s+from)?|passed\s+away|died"
    r"|(?:got|was|been)\s+(?:fired|let\s+go|laid\s+off|sacked))\b",
    re.IGNORECASE,
)
"""Everyday words that say a state ended or changed, as written by a user ("gave up keto", "dropped out
of the marathon", "called off the engagement", "took me off metformin", "Nopa closed down", "Mia turned
8"): with nothing else, a possible conflict of a fact they name (``mentions_a_change``)."""
_SETTLED = re.compile(r"(?i:\bsettled\s+(?:down\s+)?in(?:to)?)\s+[A-Z]")
"""'settled in Austin': a move in other words (``says_a_move``; the case of the place is read as written)."""
_LIVES = re.compile(r"\b(?:live|lives|living|lived|reside|resides|based|located)\s+(?:in|at)\b", re.I)
"""Where the old fact says its subject lives: a move ends it whatever place it names."""
_MOVE = re.compile(r"\b(?:moved|relocated|settled)\b|\bthe\s+move\b", re.IGNORECASE)
_USER = frozenset(["i", "i'm", "i've", "i'd", "i'll", "me", "we", "we're", "we've", "we'd", "us", "user"])
"""Words that name the user (``the user`` in a memory written about the user)."""
_FUNCTION = frozenset(
    [
        *("a", "an", "the", "my", "our", "mine", "ours", "his", "her", "their", "its", "this", "that"),
        *("to", "in", "into", "at", "on", "of", "for", "with", "from", "by", "as", "off", "out", "up"),
        *("down", "and", "or", "but", "so", "then", "since", "after", "before", "because", "now", "just"),
        *("finally", "recently", "still", "really", "also", "already", "today", "yesterday", "last"),
        *("week", "month", "year", "ago", "is", "am", "are", "was", "were", "be", "been", "being", "has"),
        *("have", "had", "do", "does", "did", "not", "no", "new", "every", "some", "all", "very", "s"),
        *("user's", "it", "he", "she", "they", "them", "him", "there", "here"),
    ]
)
"""Words that name nothing a fact is about."""
_SPELLING = {"favourite": "favorite", "colour": "color"}


def _words(text: str) -> list[str]:
    """``text`` case-folded as words (apostrophes kept: "i'm"; British spellings made American)."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", plain_apostrophes(text.casefold()))
    return [_SPELLING.get(w, w) for w in words]


def _content(words: list[str]) -> list[str]:
    """The words of ``words`` that name something: no function word, no word naming the user, no day or
    part of the day (``both_hold.QUALIFIER_TIMES``, "Fridays" too) and no bare number — "booked a table
    for Friday" / "moved the dentist appointment to Friday" share only when."""
    return [
        w
        for w in words
        if w not in _FUNCTION
        and w not in _USER
        and w.removesuffix("s") not in QUALIFIER_TIMES
        and not w.isdigit()
    ]


def _alike(x: str, y: str) -> bool:
    """The same word give or take its ending ("engaged" / "engagement", "membership" / "memberships"); a
    word with a digit or a hyphen only as written ("INC-4417" / "INC-4418" are two tickets)."""
    if x == y:
        return True
    if not (x.isalpha() and y.isalpha()):
        return False
    common = 0
    for p, q in zip(x, y, strict=False):
        if p != q:
            break
        common += 1
    return common >= 5 and common >= min(len(x), len(y)) - 3


def _shares(words: list[str], others: list[str]) -> bool:
    return any(_alike(w, o) for w in words for o in others)


def _old_subject(words: list[str]) -> tuple[bool, list[str]]:
    """Whom the old fact (its ``words``) is about: (True, []) the user — "I …", "We …", "The user …",
    "My manager …" (an attribute of the user's) —, else (False, the words naming that person or thing:
    "my daughter Mia" → ["daughter", "mia"])."""
    if not words:
        return False, []
    if words[0] in _USER or words[:2] == ["the", "user"]:
        return True, []
    rest = (
        words[1:]
        if words[0] in ("my", "our", "user's")
        else words[2:]
        if words[:2] == ["the", "user's"]
        else []
    )
    if rest and not any(w in RELATIONS for w in rest[:2]):
        return True, []  # "my manager is …", "the user's favourite restaurant is …"
    # another person or thing: the words before its verb (a copula or the first word that is none of these)
    head: list[str] = []
    for w in words:
        if w in ("is", "are", "was", "has", "have", "lives", "works", "'s") or (w.endswith("'s") and head):
            break
        head.append(w)
    return False, _content(head)


def says_a_move(text: str) -> bool:
    """Whether ``text`` says its subject settled somewhere ("Finally settled in Austin after the move"): a
    move in other words than ``value_slots.MOVED`` (``state_change.says_a_change``)."""
    return bool(_SETTLED.search(text))


def mentions_a_change(new: str, old: str) -> bool:
    """Whether ``new`` (as written) says a change of the state ``old`` states, in words of its own (module
    docstring): a change word (``CHANGE``); its subject — the words before the change word, or "me"/"us"
    right after it ("took me off") — is the user's when ``old`` is about the user (first-person words, or
    no subject at all), or names a word of ``old``; and it names a word of what ``old`` says, or it says a
    move and ``old`` where its subject lives. Only ever a possible conflict (the caller's business)."""
    change = CHANGE.search(new)
    if change is None:
        return False
    old_words = _words(old)
    old_content = _content(old_words)
    if not old_content:
        return False
    user, old_named = _old_subject(old_words)
    before = _words(new[: change.start()])
    after = _words(new[change.end() :])
    named = _content(before)
    said_by_user = (
        any(w in _USER for w in before) or "me" in _words(change.group(0)) or "us" in _words(change.group(0))
    )
    if named and not said_by_user and not all(_shares([w], old_content) for w in named):
        return False  # another person or thing before the change word: "my sister moved", "my wife quit"
    if not named and not said_by_user:
        said_by_user = True  # "Just moved to Austin!", "Finally settled in …": the writer, unnamed
    if named and not said_by_user:
        # the old fact's own subject ("Mia turned 8" / "My daughter Mia is 7"), or its value ended ("Tom
        # Reyes left" / "My manager is Tom Reyes", "Nopa closed down"); the value moving is no end of it
        # ("Sam moved to Paris" / "I'm engaged to Sam")
        return all(_shares([w], old_named) for w in named) or not _MOVE.search(change.group(0))
    if not user:
        return bool(old_named) and _shares(old_named, _content(after))
    if _MOVE.search(new) and _LIVES.search(old):
        return True
    return _shares(_content(after), old_content)
