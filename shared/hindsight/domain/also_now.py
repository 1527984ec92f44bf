"""How "also … now" on a key is read where its words alone do not say (``contradiction.is_additive``). Pure:
regular expressions, no I/O.

A reason given for an addition is not a change of the key's value: "I also use Outlook now, since work moved
to Microsoft 365" keeps the key's old value — the "moved" is the employer's, in a clause that says why
(trial11, finding 1: it retired the value). ``without_reason`` cuts such a clause before the change words of
``is_additive`` are looked for. A reason the writer gives about their own doing ("…, since I left Acme")
may be the change of the key's value itself: it is kept.

Where a subject lives, and whether they are married (engaged, divorced, …), hold one value at a time: "I'm
also married now!" or "I also live in Portland now" on a key says the value changed, the "also" is about
the sentence (one more thing said), not about a second value (trial11, finding 5: both were kept beside
the old value). ``one_value_state`` tells them; with "now" only, so "I also live in Portland" (a second
home) still adds; and not of another person named by a relation: "My sister also lives in Portland
now" is not the writer's home (trial12 M1). Not a job ("I also work at Globex now": a second job is
common), nor what holds several ("I also speak French now", "We also have a cat now").
"""

from __future__ import annotations

import re

from hindsight.domain.relations import RELATION_ALT
from hindsight.domain.text import plain_apostrophes

_REASON = re.compile(
    r"(?:,\s*|\s+)(?:because|since|now\s+that|given\s+that|due\s+to)\s+(?P<clause>.*)$"
    r"|,\s*as\s+(?P<as_clause>.*)$",
    re.IGNORECASE | re.DOTALL,
)
"""A reason clause after the statement: "…, since …", "… because …", "…, now that …", "…, as …" (only
after a comma: "works as a nurse" is no reason)."""
_WRITER = re.compile(r"^\s*(?:i|we|i'm|we're|i've|we've|i'd|we'd|me|us|the\s+user)\b", re.IGNORECASE)
"""A clause whose subject is the writer: what they did may be the change itself."""


def without_reason(text: str) -> str:
    """``text`` without a reason clause after its statement (``_REASON``) whose subject is not the writer
    ("I also use Outlook now, since work moved to Microsoft 365" → "I also use Outlook now"); as written
    when there is none, or when the writer is its subject ("…, since I left Acme": kept)."""
    found = _REASON.search(plain_apostrophes(text))
    if found is None:
        return text
    clause = found.group("clause") if found.group("clause") is not None else found.group("as_clause")
    if _WRITER.match(clause):
        return text
    return text[: found.start()]


_ONE_STATE = re.compile(
    r"\b(?:live[sd]?|living|resides?|residing|based|located)\s+(?:(?:also|now)\s+)*(?:in|at)\b"
    r"|(?:\b(?:am|are|is|was|got|get|gotten|became|become)|'m|'re|'s)\s+(?:(?:also|now|just|finally)\s+)*"
    r"(?:married|engaged|divorced|widowed|separated|single)\b",
    re.IGNORECASE,
)
"""A state a subject holds one value of at a time: where it lives ("lives in", "is based in"), its
marriage ("is married", "got engaged", "'m divorced")."""
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
_BY_THE_WRITER = re.compile(
    r"(?:^|[\s,;:(])(?:i|we|the\s+user)(?:\s+(?:also|now|just|finally|actually|really|both|too))*\s*$",
    re.IGNORECASE,
)
"""Words before the state that end on the writer as its subject ("I also", "We", "The user", "My sister
and I")."""
_ANOTHER_PERSON = re.compile(r"^\W*(?:my|our|his|her|their|your)\s+\w", re.IGNORECASE)
"""A subject named by its relation to someone ("My sister", "Our son", "His wife"): another person than
the writer, unless the writer is named beside it (``_BY_THE_WRITER``)."""
_WITH_THE_WRITER = re.compile(
    rf"^\W*(?:my|our|his|her|their|your)\s+(?:[\w'-]+\s+)?(?:{RELATION_ALT})(?:,?\s+(?-i:[A-Z])[\w'-]*)?"
    r",?\s+(?:and|&)\s+(?:i|me|myself)\b",
    re.IGNORECASE,
)
"""A subject that opens with another person named by a relation and names the writer beside them ("My
wife and I", "My best friend and I", "My wife, Anna, and I"): the writer's, whatever verb follows; not
"My son moved out and I stayed"."""


def one_value_state(text: str) -> bool:
    """Whether ``text`` (a keyed write with an additive word) says "now" of a state held one at a time
    (``_ONE_STATE``: where its subject lives, whether it is married): "I'm also married now!", "I also
    live in Portland now" — a change of the key's value, not one more value (module docstring). Both read
    in the statement, without a reason clause about someone else (``without_reason``). Not a state of
    another person named by a relation (``_ANOTHER_PERSON``): "My sister also lives in Portland now", "My
    brother is also married now" say another person's state, no change of the writer's value (trial12 M1:
    they retired it); "My sister and I …", "We …" name the writer. A subject named by name ("Tom is also
    based in Berlin now") may be the key's own (``tom.home``): it replaces, as before."""
    statement = without_reason(plain_apostrophes(text))
    state = _ONE_STATE.search(statement)
    if state is None or not _NOW.search(statement):
        return False
    subject = statement[: state.start()]
    return not _ANOTHER_PERSON.match(subject) or bool(_BY_THE_WRITER.search(subject))


def by_the_writer(text: str) -> bool:
    """Whether ``text`` opens with the writer as its subject ("I …", "We're …", "The user …")."""
    return bool(_WRITER.match(plain_apostrophes(text)))


def of_another_person(text: str) -> bool:
    """Whether ``text`` opens with another person named by a relation ("My son …", "Our daughter …", "His
    wife …"; ``_ANOTHER_PERSON``), the writer not named beside it ("My sister and I …" is the writer's,
    whether or not a verb of the list below follows: "My wife and I moved to Austin")."""
    text = plain_apostrophes(text)
    if not _ANOTHER_PERSON.match(text) or _WITH_THE_WRITER.match(text):
        return False
    verb = re.search(r"\b(?:is|are|was|were|has|have|had|'s|lives?|gets?|got)\b", text, re.IGNORECASE)
    return not _BY_THE_WRITER.search(text[: verb.start()] if verb else text)


def with_the_writer(text: str) -> bool:
    """Whether ``text`` opens with another person named by a relation and the writer beside them ("My wife
    and I moved to Austin", "My best friend and I …": ``_WITH_THE_WRITER``): a subject the writer is in."""
    return bool(_WITH_THE_WRITER.match(plain_apostrophes(text)))
