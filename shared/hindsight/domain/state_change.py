"""Everyday words that say a state ended or changed, for the contradiction rules
(``domain.contradiction``). Pure: regular expressions and tuple logic, no I/O (new-user trial 4, HIGH-1
and MED-2b).

- **Ending verbs** (``ENDINGS``): "divorced Tom" ends "is married to Tom", "broke up with Marco" ends
  "is dating Marco", "sold the Honda Civic" ends "owns a Honda Civic". Each names the verbs of the
  state it ends (frame stems): the old statement's verb must be one of them for the pair to be the same
  state (``takes_back``, on the text without the ending phrase) — "works with Tom" / "divorced Tom" is
  no such pair. They are no negation elsewhere: "sold the piano" / "sold the sofa" are two events.
- **Rewrites** (``rewrite_change``): "the user's dog Rex died (last month)" → "the user no longer has
  dog Rex"; "got married to Ana" → "is married to Ana"; "rent went up to 950 euros" → "rent is 950
  euros" (a new value of the same slot, written as a state: the changed-value rule then reads it, as it
  reads "turned 35").
- **A take-back names its object** (``takes_back``): a statement that ends a state ("no longer",
  "quit", "sold", …) ends the old one when its words are the old one's, give or take the old one's
  detail — a name given ("a dog named Rex"), a day or part of the day ("at a bakery on weekends") — and
  a verb the ending replaces. When it ends another object of the same verb ("Sam no longer has a dog" /
  "Sam has a cat named Milo") it is about another thing: the old fact is left alone, not flagged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from difflib import SequenceMatcher
from typing import Literal

from hindsight.domain.both_hold import QUALIFIER_TIMES
from hindsight.domain.calendar_words import SEASON_ALT, UNIT_ALT
from hindsight.domain.change_mention import says_a_move
from hindsight.domain.text import plain_apostrophes
from hindsight.domain.value_slots import MOVED

ENDINGS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"\b(?:got\s+|is\s+|are\s+)?divorced(?:\s+from)?\b", re.I), frozenset(["marri"])),
    (
        re.compile(r"\b(?:broke|broken|breaks|break|split)\s+up\s+with\b|\bseparated\s+from\b", re.I),
        frozenset(["dat", "see", "marri", "relationship"]),
    ),
    (
        re.compile(r"\b(?:sold|gave\s+away|given\s+away|got\s+rid\s+of|gotten\s+rid\s+of)\b", re.I),
        frozenset(["own", "have"]),
    ),
)
"""Phrases that end a state, each with the frame stems of the verbs of the state it ends ("married" is
"marri", "dating" "dat", "has" "have")."""
_TIME_TAIL = (
    rf"(?:\s+(?:last|this)\s+(?:week|weekend|month|year|night|{SEASON_ALT})"
    rf"|\s+(?:yesterday|today|recently)|\s+\w+\s+(?:{UNIT_ALT})s?\s+ago)*"
)
_DIED = re.compile(
    r"^(?P<owner>.+?)'s\s+(?P<thing>[a-z]+(?:\s+[A-Z][\w-]*)?)\s+(?:has\s+)?(?:died|passed\s+away)"
    rf"{_TIME_TAIL}\s*[.!]?\s*$"
)
"""'The user's dog Rex died last month': the owner no longer has it (a time tail only after the verb)."""
_GOT_MARRIED = re.compile(r"\b(?:got|has\s+got|has\s+gotten|just\s+got)\s+(married|engaged)\b", re.I)
_NEW_VALUE = re.compile(
    r"\b(?:(?:has\s+)?(?:went|gone|go(?:es)?)\s+(?:up|down)|(?:has\s+)?(?:rose|risen|increased|decreased"
    r"|dropped|fell|fallen|climbed)|(?:was|has\s+been)\s+(?:raised|lowered|increased|cut|reduced))\s+to\b",
    re.I,
)
"""'went up to', 'rose to', 'was raised to', …: the amount is now the value after "to"."""
TIME_TAIL_WORDS = frozenset(["last", "week", "weekend", "month", "year", "yesterday", "today", "recently"])
"""Frame tokens a statement that ends a state may end with, which the old statement need not carry."""
NAMING = frozenset(["nam", "name", "call"])
"""Frame stems of "named"/"called": what follows is the name of the thing just said."""


JOB_ENDED = re.compile(
    r"\b(?:got|gets|get|was|were|been|just\s+got)\s+(?:fired|sacked|laid\s+off|let\s+go|made\s+redundant"
    r"|dismissed)\b|\blost\s+(?:his|her|their|my|our|the|a|its)\s+job\b"
    r"|\b(?:is|are|am)\s+(?:now\s+)?(?:unemployed|out\s+of\s+work|jobless|between\s+jobs)\b",
    re.IGNORECASE,
)
"""Words that say a job ended with no employer named ("got fired", "was laid off", "lost her job", "is
unemployed now"): the subject no longer works where a fact says it does — or at another of its jobs."""
_WORKS = re.compile(
    r"\b(?:works?|working|is\s+employed)\s+(?:at|for|by|as)\b|\b(?:job|employer)\s+is\b", re.IGNORECASE
)
"""A statement of where or as what its subject works ("works at Acme", "is employed by Acme", "the
user's employer is Acme")."""


def _subject(words: str) -> str:
    """The subject phrase ``words`` (the text before the verb) normalised: case-folded, "the", a trailing
    possessive "'s" and "now" dropped ("The user's " → "user")."""
    words = re.sub(r"'s\s*$", "", plain_apostrophes(words.strip().casefold()))
    return " ".join(w for w in re.findall(r"[\w'-]+", words) if w not in ("the", "now", "just"))


def job_ended(new: str, old: str) -> bool:
    """Whether ``new`` (its compared statement) says its subject's job ended (``JOB_ENDED``: "The user got
    fired") and ``old`` that the same subject works somewhere (``_WORKS``: "The user works at Acme"): the
    old fact may no longer hold — or the job lost was another one, so it is only ever a possible conflict
    (trial6 A: both stayed active, unflagged). The subject is the words before each verb, the same after
    ``_subject``; "The user's wife got fired" is about someone else."""
    ended, works = JOB_ENDED.search(new), _WORKS.search(old)
    if ended is None or works is None:
        return False
    subject = _subject(new[: ended.start()])
    return bool(subject) and subject == _subject(old[: works.start()])


def says_a_change(text: str) -> bool:
    """Whether ``text`` says a standing state of its subject changed in words that share little with the
    state it replaces: a person's move ("moved to Rome in March", ``value_slots.MOVED``) or a job lost
    (``JOB_ENDED``), or settled somewhere ("Finally settled in Austin after the move":
    ``change_mention.says_a_move``). Such a fact is compared with less similar ones
    (``contradiction.conflict_floor``)."""
    return bool(MOVED.search(text) or JOB_ENDED.search(text) or says_a_move(text))


def ended_states(text: str) -> frozenset[str]:
    """The state verbs the ending phrases of ``text`` (``ENDINGS``) end (empty: none)."""
    return frozenset(v for pattern, ends in ENDINGS if pattern.search(text) for v in ends)


def without_endings(text: str) -> str:
    """``text`` with its ending phrases blanked out: what is left names the state's subject and object."""
    for pattern, _ in ENDINGS:
        text = pattern.sub(" ", text)
    return text


def rewrite_change(body: str) -> str:
    """``body`` with a death of a thing owned written as its loss, "got married" as "is married", and
    "went up to X" as "is X" (module docstring)."""
    died = _DIED.match(body)
    if died:
        body = f"{died.group('owner')} no longer has {died.group('thing')}"
    body = _GOT_MARRIED.sub(lambda m: f"is {m.group(1)}", body)
    return _NEW_VALUE.sub("is", body)


def states_a_new_value(text: str) -> bool:
    """Whether ``text`` says an amount went up or down to a new value (a change word, like "now")."""
    return bool(_NEW_VALUE.search(text))


def _key(token: str) -> str:
    """A token without a final "e": "smoke" (from "smokes") and "smok" (from "smoking") align."""
    return token[:-1] if token.endswith("e") and len(token) > 3 else token


def same_words(old: tuple[str, ...], new: tuple[str, ...]) -> bool:
    """Whether two frames are the same words, read through ``_key``."""
    return tuple(map(_key, old)) == tuple(map(_key, new))


TakeBack = Literal["same", "other"]


def takes_back(
    old: tuple[str, ...],
    new: tuple[str, ...],
    verb: int | None,
    states: frozenset[str],
    is_name: Callable[[str], bool],
) -> TakeBack | None:
    """What a statement that ends a state (``new``: its frame tokens, copulas dropped, the ending words
    removed; ``states``: the verbs its ending phrase ends) says of a positive one (``old``, alike;
    ``verb``: index of its verb). "same": ``new``'s words are ``old``'s in order, and what only ``old``
    has is a verb of ``states``, a name given after "named"/"called" (``is_name``), or a day or part of
    the day (``QUALIFIER_TIMES``) — "Sam no longer has a dog" / "Sam has a dog named Rex", "Ana no
    longer works at the bakery" / "Ana works at a bakery on weekends", "divorced Tom" / "is married to
    Tom". "other": both say something after the same subject and verb, and the objects differ ("Sam no
    longer has a dog" / "Sam has a cat named Milo"): another thing. None: neither can be told."""
    if verb is None or not old or not new or old[0] != new[0]:
        return None
    while len(new) > 2 and new[-1] in TIME_TAIL_WORDS:
        new = new[:-1]
    keys_old, keys_new = tuple(map(_key, old)), tuple(map(_key, new))
    matched: list[int] = []
    i = 0
    for token in keys_new:
        while i < len(keys_old) and keys_old[i] != token:
            i += 1
        if i == len(keys_old):
            break
        matched.append(i)
        i += 1
    extras = [k for k in range(len(old)) if k not in matched]
    whole = len(matched) == len(new) and len(new) >= 2 and max(matched) > verb
    if whole and all(_detail(old, k, states, is_name) for k in extras):
        return "same"
    if new == old[:1] and states and extras and all(old[k] in states for k in extras):
        return "same"  # "the user is divorced" / "the user is married": the whole state ended
    ops = SequenceMatcher(None, keys_old, keys_new, autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if len(changed) != 1 or changed[0][0] != "replace":
        return None
    _, i1, _, j1, j2 = changed[0]
    if i1 <= verb or any(any(c.isdigit() for c in t) for t in new[j1:j2]):
        return None  # the change is in the subject or the verb, or a number: not another object
    return "other"


def _detail(old: tuple[str, ...], k: int, states: frozenset[str], is_name: Callable[[str], bool]) -> bool:
    """Whether ``old[k]``, which the take-back does not repeat, is detail it need not repeat."""
    token = old[k]
    named = k > 0 and old[k - 1] in NAMING and is_name(token)
    return token in states or token in NAMING or named or token in QUALIFIER_TIMES
