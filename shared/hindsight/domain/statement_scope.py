"""Which part of a written fact the contradiction rules (``domain.contradiction``) compare, and so where
their change and correction words count. Pure: regular expressions, no I/O.

A change word says that *the statement it stands in* changed. Read anywhere in the text, it made a true
fact look corrected: "Lena plays tennis on Thursdays; her son no longer plays football" retired "Lena
plays tennis on Tuesdays" — the "no longer" is about the son's football, in another clause (new-user
trial 3, finding 1). So the statement is the text without:

- a preface ("Correction: …", "Update: …", "Sorry, I was wrong: …", "My mistake — …"; trial 3, finding
  4: "sorry" was read as the subject, so the statement after it was compared with nothing). "Correction"
  is a strong marker and "Update" a change marker, as before; an admission of a mistake says something
  said before was wrong but not which fact, about an unrelated thing as often: it makes a pair the
  rules would otherwise leave unlinked a possible conflict, never a sure contradiction;
- a trailing ", not Y" / "instead of Y" (``ALTERNATIVE``: it names the old value; a strong marker);
- a clause after it (``TAIL_CLAUSE``: "; …", " - …", " because …", " since …", " after …", " due
  to …"): a reason or an aside, about something else as often as not.

Words that only confirm a statement ("Turns out …", "It turned out that …", "… after all": ``CONFIRMING``)
name nothing: they are left out of both texts compared (``without_confirming``). Read as words, "after all"
looked like a narrowing ("after 6pm": a partial take-back) and "Turns out" like the subject, so "Turns out
I'm not allergic to peanuts after all" was no take-back of "I'm allergic to peanuts" (trial12 H1).

"X isn't A, it's B" / "X is not A but B" is read as "X is B" with a strong marker (``RESTATED``: it names
the old value and the new one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFACE = re.compile(
    r"^\W*(?:(?:sorry|oops|apologies)\W+)?"
    r"(?:(?P<strong>correction)|(?P<weak>update)|(?P<admits>I\s+was\s+wrong(?:\s+(?:earlier|before))?"
    r"|I\s+got\s+(?:it|that)\s+wrong|I\s+made\s+a\s+mistake|I\s+misspoke|my\s+(?:mistake|bad)"
    r"|scratch\s+that|let\s+me\s+correct\s+(?:that|myself))|note)"
    r"\s*(?::|,|;|\.|!|\s[-–—]\s?)\s*",
    re.IGNORECASE,
)
"""A preface before the statement: "Correction:" (a strong marker, as before), "Update:" (a change
marker, as before), an admission of a mistake ("Sorry, I was wrong:", "My mistake —"; ``admits``), or
"Note:" (nothing)."""
ALTERNATIVE = re.compile(
    r"(?:,|;)\s*(?:and\s+)?not\s+[^,.;]+[.!]?\s*$|\binstead\s+of\s+[^,.;]+", re.IGNORECASE
)
"""A trailing ", not Y" / "instead of Y": it names the old value, so the frame drops it."""
TAIL_CLAUSE = re.compile(r"(?:;|\s+[-–—]\s+|\s+because\s+|\s+since\s+|\s+after\s+|\s+due\s+to\s+).*$", re.I)
"""A reason or aside after the statement ("…; it was a misdiagnosis", "… after the promotion")."""
RESTATED = re.compile(
    r"\b(?P<be>is|are|was|were)\s+not\s+(?P<old>[^,;.]+?)\s*(?:[,;]\s*(?:but\s+)?|\s+but\s+)"
    r"(?:(?:it|they|he|she)(?:'s|'re|\s+is|\s+are|\s+was|\s+were)\s+)?(?P<new>[^,;]+?)\s*[.!]?\s*$",
    re.IGNORECASE,
)
"""'X is not A, it's B' (contractions already written out: "isn't" → "is not"), "X is not A but B": the
old value named and the new one — read as "X is B"."""
CONFIRMING = re.compile(
    r"^\W*(?:as\s+)?(?:it\s+)?turn(?:s|ed)\s+out(?:\s+that)?\b\s*[,:]?\s*"
    r"|\s*,?\s*\bafter\s+all\b(?=\s*(?:[.!,;]|$))",
    re.IGNORECASE,
)
"""Words that confirm a statement and name nothing: an opening "Turns out (that)", "It turned out", "As it
turns out", and "after all" ending a clause (not "after all the layoffs")."""


def without_confirming(text: str) -> str:
    """``text`` without its confirming words (``CONFIRMING``): "Turns out I'm not allergic to peanuts after
    all" → "I'm not allergic to peanuts"; as written when it has none."""
    return CONFIRMING.sub("", text).strip() or text


@dataclass(frozen=True)
class Statement:
    """The part of a text the rules compare (``text``), and what was cut off that says it changed:
    ``corrected`` ("Update:"), ``strong`` ("Correction:", ", not Y", "instead of Y", "isn't A, it's B"),
    ``admits`` (an admission of a mistake: it says something said before was wrong, not which fact, so
    it may make a pair a possible conflict, never a sure contradiction)."""

    text: str
    corrected: bool
    strong: bool
    admits: bool


def compared_statement(text: str) -> Statement:
    """The statement of ``text`` (contractions written out) without its preface, a trailing alternative
    and any clause after it, and "X isn't A, it's B" read as "X is B" (module docstring)."""
    preface = PREFACE.match(text)
    corrected = bool(preface and preface.group("weak"))
    admits = bool(preface and preface.group("admits"))
    strong = bool(preface and preface.group("strong"))
    text = text[preface.end() :] if preface else text
    restated = RESTATED.search(text)
    if restated:  # before the tail clause: "isn't on Tuesdays; it's on Thursdays"
        strong = True
        text = f"{text[: restated.start()]}{restated.group('be')} {restated.group('new')}"
    strong = strong or bool(ALTERNATIVE.search(text))
    return Statement(TAIL_CLAUSE.sub("", ALTERNATIVE.sub("", text)), corrected, strong, admits)
