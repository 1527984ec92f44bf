"""Which statements hold one value at a time, and the rewrites that put a change in the words the
contradiction rules compare (``domain.contradiction``). Pure data and regular expressions: no I/O.

A changed name after a verb is another value only when the frame is known to hold one value: "lives
in Paris" / "lives in Rome" is a move, while "is allergic to Penicillin" / "… to Amoxicillin", "owes Tom
50 dollars" / "owes Anna 20 dollars", "works with Tom" / "works with Anna" are two things the user can
have at once (new-user trial 2, finding 1). Numbers, dates, times, colours and e-mails are left to the
changed-value rule as before.
"""

from __future__ import annotations

import re

from hindsight.domain.calendar_words import UNIT_ALT
from hindsight.domain.schedule_moves import TIME_START

SINGLE_VALUED_VERBS = frozenset(
    [
        *("live", "lives", "lived", "living", "reside", "resides", "resided", "based", "located"),
        *("married", "born", "prefer", "prefers", "preferred"),
    ]
)
"""Verbs (as written, case-folded) whose object is one value at a time: where the user lives, is
based, is married to, was born, prefers."""
NAMING_VERBS = frozenset(["named", "called"])
"""After "is": what a thing is named or called ("the user's dog is called Biscuit")."""
SINGLE_VALUED_AFTER = {
    "work": frozenset(["at", "for", "as"]),
    "works": frozenset(["at", "for", "as"]),
    "worked": frozenset(["at", "for", "as"]),
    "working": frozenset(["at", "for", "as"]),
    "report": frozenset(["to"]),
    "reports": frozenset(["to"]),
}
"""Verbs that hold one value with these prepositions only: "works at Globex" (one employer) but "works
with Tom" (many colleagues); "reports to Tom" (one manager)."""
COPULA_NOT_SINGLE = frozenset(["on", "with", "for", "by", "to", "about", "from"])
"""After "is", these prepositions introduce one of several ("is on Metoprolol", "is with Tom", "is
from France": a nationality the user may hold beside another)."""
PLURAL_RELATIONS = frozenset(
    [
        *("friend", "brother", "sister", "son", "daughter", "child", "kid", "cousin", "colleague"),
        *("coworker", "neighbour", "neighbor", "client", "customer", "teammate", "classmate", "nephew"),
        *("niece", "aunt", "uncle", "grandchild", "grandson", "granddaughter", "sibling", "friends"),
    ]
)
"""Relation nouns a person often has several of: "the user's friend is Tom" / "… is Anna" may be two
friends (unlike "manager", "landlord", "partner")."""
RELATIONS = frozenset(
    [
        *PLURAL_RELATIONS,
        *("parent", "parents", "mother", "father", "mom", "dad", "grandmother", "grandfather", "grandma"),
        *("grandpa", "grandparent", "godfather", "godmother", "godson", "goddaughter", "stepson"),
        *("stepdaughter", "twin", "relative", "in-law", "ex", "ex-wife", "ex-husband", "roommate"),
        *("flatmate", "housemate", "teacher", "student", "employee", "patient", "mentor", "mentee"),
        *("bandmate", "co-founder", "cofounder", "investor", "supplier", "vendor", "doctor", "dentist"),
        *("pet", "dog", "cat", "ally", "contact", "kids", "children", "sisters", "brothers", "sons"),
        *("daughters", "cousins", "uncles", "aunts", "pets", "dogs", "cats", "family"),
    ]
)
"""People (and pets) a person may have several of, or whose own facts are not the user's: a value in a
statement about one of them ("the user's sister lives in Paris", "the user's son is 8", "the user's
daughter's birthday is May 3") may be about another one of them — never a sure replacement."""
ONE_VALUE_NOUNS = frozenset(
    [
        *("name", "age", "birthday", "email", "phone", "number", "address", "city", "hometown"),
        *("employer", "manager", "boss", "landlord", "partner", "spouse", "husband", "wife", "salary"),
        *("rent", "price", "timezone", "title", "deadline", "color", "size", "weight"),
        *("height", "budget", "username", "password", "pin", "lead"),
    ]
)
"""Attribute nouns that hold one value at a time, after "is": "the user's manager is Tom" / "… Sarah"
is a change. Any other noun ("the user's doctor", "grandmother", "allergy", "medication", "pet") may
hold several ("doctor is Dr. Smith" / "Dr. Jones": two doctors; trial 3, HIGH 1): a changed value after
it is only a possible conflict. "favorite X" holds one value whatever X is."""
ANY_ONE_VALUE = frozenset(["favorite", "favourite", "preferred"])
"""Before any noun, these make an attribute holding one value: "favorite band", "preferred airline"."""
ONE_VALUE_MODIFIERS = frozenset(
    [
        *("favorite", "favourite", "current", "home", "mobile", "work", "cell", "full", "first", "last"),
        *("middle", "maiden", "legal", "email", "phone", "job", "team"),
    ]
)
"""Words that may stand before a noun of ``ONE_VALUE_NOUNS`` ("phone number", "home address", "job
title"); any other ("business partner", "former boss") makes it another attribute: unsure."""

_MOVED = re.compile(
    r"\b(?<!was )(?<!were )(?<!been )(?<!be )(?:(?:has|have|had)\s+)?(?:moved|relocated)\s+(?:to|into)\b"
    rf"(?!\s+{TIME_START})",
    re.IGNORECASE,
)
"""A person's move ("has moved to Rome", "relocated to Rome"), not a thing's ("was moved to Friday",
"moved to Thursdays": ``schedule_moves``)."""
MOVED = _MOVED
"""A person's move (public: ``state_change.says_a_change``)."""
_STILL_LIVING = re.compile(
    r"\b(?:(?:has|have)\s+(?:now\s+)?been|is|are)\s+(?:now\s+)?(?:(?P<verb>living)(?=\s+(?:in|at)\b)"
    r"|(?P<job>working)(?=\s+(?:at|for|as)\b))"
    r"|\b(?:has|have)\s+(?:(?P<perfect>lived)(?=\s+(?:in|at)\b)|(?P<worked>worked)(?=\s+(?:at|for|as)\b))"
    r"(?=\s+\w+\s+[^,.;]*?\b(?:since|for)\b)",
    re.IGNORECASE,
)
"""A state that holds now written in a continuous or perfect form ("has been living in Rome", "is living
in Rome", "has lived in Rome since March"; not "has lived in Rome", which may be an experience): read as
"lives in Rome" (trial6 A). Only where a home or a job follows ("living in/at", "working at/for/as"):
"is working on a novel", "is living with her parents" say something else."""
_HOW_LONG = re.compile(
    r"\s+for\s+(?:the\s+(?:past|last)\s+)?(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten"
    rf"|a\s+few|a\s+couple\s+of|several|many|some|\d+)\s+)?(?:{UNIT_ALT}|decade)s?\b"
    r"|\s+for\s+(?:ages|a\s+while|a\s+long\s+time)\b",
    re.IGNORECASE,
)
"""How long a state that holds now has held ("has lived in Rome for two years"): dropped with
``still_holds``'s rewrite (the statement is "lives in Rome"; a bound such as "for two weeks" is read from
the words as written, ``supersede_guard``)."""
_TURNED = re.compile(r"\bturned\s+(?=\d)", re.IGNORECASE)
_NEW_AFTER_OWNER = re.compile(r"(?<='s)\s+new\b|\b(?P<owner>my|our)\s+new\b", re.IGNORECASE)
_SPELLING = {"favourite": "favorite", "colour": "color", "favourites": "favorites", "colours": "colors"}
_SPELLING_RE = re.compile(r"\b(?:" + "|".join(_SPELLING) + r")\b", re.IGNORECASE)
_INVERTED = re.compile(
    r"^\s*(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})\s+is\s+(?P<neg>(?:no\s+longer|not)\s+)?"
    r"(?P<role>(?:the\s+user's|my|our)\s+[a-z]+(?:\s+[a-z]+)?)(?P<rest>(?:\s+now)?\s*[.!]?\s*)$"
)
"""'Sarah is the user's manager now', "Tom is no longer the user's manager": the name put first, read
as "the user's manager is Sarah"."""
_NOT_A_NAME = frozenset(["the", "this", "that", "it", "my", "our", "there", "here", "he", "she", "they"])
_ONE_VALUE = (
    r"(?:(?:" + "|".join(sorted(ANY_ONE_VALUE)) + r")\s+\w+"
    r"|(?:(?:" + "|".join(sorted(ONE_VALUE_MODIFIERS | ONE_VALUE_NOUNS)) + r")\s+)*"
    r"(?:" + "|".join(sorted(ONE_VALUE_NOUNS)) + r"))\b"
)
"""An attribute that holds one value: "favorite band", "phone number", "home address", "manager"."""
CHANGE_WORDS = re.compile(
    rf"(?:(?<='s)|\b(?:my|our))\s+new\s+(?={_ONE_VALUE})|\b(?:has|have|had)\s+moved\b|\bturned\s+\d",
    re.IGNORECASE,
)
"""Words that say a value changed (weak markers, like "now"): "the user's new phone number is …" — but
not "the user's new colleague is …" nor "… new yoga class is …" (``NEW_THING``)."""
NEW_THING = re.compile(rf"\bnew\s+(?!to\b|{_ONE_VALUE})[a-z]")
""""new" before anything but an attribute holding one value ("started a new yoga class", "Emma's new
yoga class is on Thursdays", "my new colleague is Tom"): one more such thing as likely as another in
place of the old one (new-user trial 3, finding 2) — never a sure replacement. Lower case only ("New
York"); "new to" is not a thing ("is new to Python")."""


def still_holds(text: str) -> str:
    """``text`` with a state that holds now in a continuous or perfect form written in the present:
    "has been living in Rome (since March)" / "has lived in Rome since March" → "lives in Rome (since
    March)" (``_STILL_LIVING``), "has lived in Rome for two years" → "lives in Rome" (``_HOW_LONG``).
    Read before the statement is cut at "since" (``statement_scope``), which the perfect form needs to
    be told from an experience ("has lived in Rome")."""
    held = _STILL_LIVING.sub(lambda m: "works" if m.group("job") or m.group("worked") else "lives", text)
    return held if held == text else _HOW_LONG.sub("", held)


def rewrite(body: str) -> str:
    """``body`` with a change written as a state: "moved to X" / "relocated to X" → "lives in X",
    "turned 35" → "is 35", "the user's new phone number" → "the user's phone number", British
    spellings of "favourite"/"colour" as American, "Sarah is the user's manager" → "the user's manager
    is Sarah" (so both sides of a change share their words)."""
    body = _MOVED.sub(" lives in", body)
    body = _TURNED.sub("is ", body)
    body = _NEW_AFTER_OWNER.sub(lambda m: m.group("owner") or "", body)
    body = _SPELLING_RE.sub(lambda m: _SPELLING[m.group(0).casefold()], body)
    inverted = _INVERTED.match(body)
    if inverted and inverted.group("name").split()[0].casefold() not in _NOT_A_NAME:
        role, name, rest = inverted.group("role", "name", "rest")
        body = f"{role} is {inverted.group('neg') or ''}{name}{rest}"
    return body
