"""A keyed write about another person on a key that holds the writer's own value (trial14). Pure: no I/O.

A key holds one current value, and a plain keyed write replaces it. "My son is allergic to eggs" on
``user.allergy`` holding "I'm allergic to peanuts" retired the user's allergy: the son's words became the
user's value, and the user's, which still holds, was gone from every default read. Such a write is
refused (field ``content``) naming the key, whose statement it is, and a key of theirs ("son.allergy"):
refused rather than kept beside because a key is one subject's slot — kept on ``user.allergy``, the son's
allergy would read as one of the user's, and the user's next value on the key would retire it unseen.

Narrow, as the rules it reuses: the subject is read by ``take_back.other_subject`` (a relation such as
"My son", "Our kids", "Alex's son", read up to its verb or a contracted "is": "My son's allergic …"; "My
wife's dentist is …" is hers too; "My wife and I …" names the writer) and must name a person by a
relation (``relations``: not "My allergy is peanuts", "My favourite food is …"); every value of the key
must open with the writer ("I …", "We …", "The user …": ``also_now.by_the_writer``). Not refused: a key
with a part naming a relation ("user.son.allergy", "kids.allergy", "user.spouse"), a person who fills the
role the key names ("My boss is Dana now" on "user.manager", "My sister is my emergency contact now" on
"user.emergency_contact": the writer's value, trial16 M2; on "user.job" the boss stays another person), the
writer's own clause after theirs with the same verb or a verb of being ("My partner works at Globex and I
work at Acme": the writer's value, trial17), a
write that already leaves the key's values (an addition, "My son is also allergic to eggs", aff0bfb; a
re-add, "… again", 4be0102; a take-back), and a write that names what it supersedes. A key whose values
are subjectless ("Allergic to penicillin") or another person's keeps its rule (replaced, as before): whose
they are is not read. The values are those stored at acknowledgement (``usecases.key_values``): a value
still queued is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hindsight.domain.also_now import by_the_writer
from hindsight.domain.contradiction import is_additive
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relations import RELATION_ALT, RELATION_ROLES
from hindsight.domain.take_back import may_leave_values, other_subject
from hindsight.domain.text import plain_apostrophes

_RELATION = re.compile(rf"\b(?:{RELATION_ALT})\b", re.IGNORECASE)
_KEY_PARTS = re.compile(r"[._:/-]")
_KEY_WORDS = re.compile(r"[^\W_]+")
_FILLS_A_ROLE = re.compile(
    rf"^\W*(?i:my|our)\s+(?P<relation>(?i:{RELATION_ALT}))\s+is\s+(?:now\s+)?"
    r"(?:(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)|(?i:my)\s+(?:[a-z]+\s+){0,2}(?P<role>(?!(?:now|again|these|days)\b)[a-z]+))"
    r"(?:\s+(?i:now|again|these\s+days))?[\s.!]*$"
)
"""Who fills a role of the writer's, said of the relation: "My boss is Dana (now)", "My sister is my
emergency contact now" (trial16 M2): the person is the value, not the subject of another person's state."""
_VERB_AFTER = re.compile(
    r"\s*(?:(?:now|still|currently|also|usually|always|actually)\s+)?([a-z]+)\b", re.IGNORECASE
)
"""The verb after another person's subject ("works" in "My wife (now) works at …")."""
_WRITERS_CLAUSE = re.compile(
    r"(?:[,;:.!?]\s*(?:(?:and|but|yet|while|whereas)\s+)?|\s(?:and|but|yet|while|whereas)\s+)"
    r"(?:I|[Ww]e)(?:'m|'re|\s+(?:now\s+|still\s+|also\s+)?([a-z]+))\b"
)
"""A clause of the writer's after another person's: "…, and I work at Acme", "…; I'm vegetarian", "… but
I live in Denver" (trial17: with the other person's clause first, the whole write was refused)."""


def other_persons_subject(draft: MemoryDraft) -> str | None:
    """The subject words ("my son", "our kids", lower case) of a keyed semantic write about another person
    named by a relation, when it would replace the key's value (no addition, re-add or take-back, no
    ``supersedes``) and the key names no relation (module docstring); None otherwise. Only then are the
    key's values read (``check_other_person_on_key``)."""
    if draft.layer != "semantic" or draft.key is None or draft.supersedes is not None:
        return None
    content = plain_apostrophes(draft.content)
    subject = other_subject(content)
    if subject is None or not _RELATION.search(subject) or may_leave_values(content) or is_additive(content):
        return None
    if any(_RELATION.fullmatch(part) for part in _KEY_PARTS.split(draft.key)):
        return None  # "user.son.allergy", "kids.allergy", "user.spouse": a key of theirs too
    if _fills_the_keys_role(content, draft.key) or _the_writer_says_the_same(content, subject):
        return None
    return subject


def _the_writer_says_the_same(content: str, subject: str) -> bool:
    """Whether a clause of the writer's after the other person's states the writer's own value with the
    same verb or a verb of being ("My partner works at Globex and I work at Acme", "My parents live in
    Boston but I live in Denver", "My wife eats meat; I'm vegetarian"): the write is the writer's value
    set beside another person's, not another person's statement (trial17 MED-1). A writer's clause with
    another verb ("My son is allergic to eggs, so I cook without them") says nothing of the key's value:
    still another person's words."""
    found = _VERB_AFTER.match(content, len(subject) + (len(content) - len(content.lstrip(" \t\"'("))))
    theirs = _lemma(found.group(1)) if found else None
    for clause in _WRITERS_CLAUSE.finditer(content):
        verb = clause.group(1)
        if verb is None or verb.lower() in {"am", "are"} or _lemma(verb) == theirs:
            return True
    return False


def _lemma(verb: str) -> str:
    """A present-tense verb's plain form, enough to tell "works"/"work", "lives"/"live", "is"/"am"."""
    verb = verb.lower()
    if verb in {"is", "am", "are", "'s", "'m", "'re"}:
        return "be"
    if verb in {"has", "have"}:
        return "have"
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes", "oes")):
        return verb[:-2]
    return verb[:-1] if verb.endswith("s") and not verb.endswith("ss") else verb


def _fills_the_keys_role(content: str, key: str) -> bool:
    """Whether ``content`` names who fills the role the key names (``_FILLS_A_ROLE``): "My boss is Dana"
    on a key naming the relation or its role ("user.manager": ``RELATION_ROLES``), "My sister is my
    emergency contact" on a key naming the role ("user.emergency_contact"). On another key ("My boss is
    Dana" on "user.job") it stays another person's words."""
    fills = _FILLS_A_ROLE.match(content)
    if fills is None:
        return False
    words = {word.lower() for word in _KEY_WORDS.findall(key)}
    relation = fills.group("relation").lower()
    if words & {relation, *RELATION_ROLES.get(relation, ())}:
        return True
    return fills.group("role") is not None and fills.group("role").lower() in words


def check_other_person_on_key(draft: MemoryDraft, subject: str, values: Sequence[str]) -> None:
    """Refuse ``draft`` (about another person, ``subject``: ``other_persons_subject``) when every one of
    the key's active ``values`` (their contents) opens with the writer: as the key's value it would retire
    the writer's own. Nothing is refused when the key has no value, or one not opening with the writer.
    Raises InvalidInput (field ``content``) naming the key, whose statement it is and a key of theirs."""
    if not values or not all(by_the_writer(value) for value in values):
        return
    key = draft.key or ""
    found = _RELATION.search(subject)
    theirs = f"{found.group(0).lower() if found else 'their'}.{key.split('.', 1)[-1]}"
    raise InvalidInput(
        "content",
        f"the words are about another person ({subject.strip(' ,')!r}), and key {key!r} holds the writer's "
        f"own value ({values[0][:80]!r}): a key holds one subject's value, so as its value they would "
        f"retire the writer's. Write it on a key of theirs ({theirs!r}) or without a key (kept beside, "
        "nothing retired); if the key holds several people's values, say it is one more ('… also …')",
    )
