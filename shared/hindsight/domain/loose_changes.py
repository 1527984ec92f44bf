"""Changes said in a shape the frame rules do not compare: at most a flag (trial11, finding 8). Pure:
regular expressions and word sets, no I/O.

Each left both facts active and unflagged:

- a role taken by another person: "Priya is now the team lead" / "Tom is the team lead" — the name that
  changed is the subject, which the frame rules read as another subject (``role_taken``);
- a new value with its attribute put first: "New number: 555-9876" / "My phone number is 555-1234"
  (``new_value_of``);
- a diet given up in words about food: "I started eating meat again" / "I am vegetarian" (``diet_ended``;
  a short table of diets and what each leaves out — no other world knowledge is read).

Being loose, each is only ever a possible conflict (``contradiction.compare_facts``): Priya may lead
another team, the number may be a work number, "again" may be one meal.
"""

from __future__ import annotations

import re

from hindsight.domain.text import plain_apostrophes

_NAME = r"(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,2})"
_ROLE_NOW = re.compile(
    rf"^\s*{_NAME}\s+(?:is|has\s+become|became)\s+(?:now\s+)?(?:the\s+|our\s+|my\s+)(?P<role>[a-z][a-z ]*?)"
    r"(?:\s+now)?\s*[.!]?\s*$"
)
"""'Priya is now the team lead', 'Priya became our manager': a name, then the role it now holds."""
_ROLE = re.compile(rf"^\s*{_NAME}\s+is\s+(?:the\s+|our\s+|my\s+)(?P<role>[a-z][a-z ]*?)\s*[.!]?\s*$")
"""'Tom is the team lead': a name and the role it holds."""
_NOW = re.compile(r"\b(?:now|has\s+become|became)\b", re.IGNORECASE)


def role_taken(new: str, old: str) -> bool:
    """Whether ``new`` says a named person now holds the role ``old`` says another named person holds
    ("Priya is now the team lead" / "Tom is the team lead", "Priya became our manager" / "Tom is our
    manager"): a change word ("now", "became"), the same role in the same words, another name."""
    taken, held = _ROLE_NOW.match(plain_apostrophes(new)), _ROLE.match(plain_apostrophes(old))
    if taken is None or held is None or not _NOW.search(new):
        return False
    return taken.group("role") == held.group("role") and taken.group("name") != held.group("name")


_NEW_VALUE = re.compile(
    r"^\s*(?:my\s+|our\s+)?new\s+(?P<attribute>[a-z][a-z ]{1,30}?)\s*(?::|\s[-\u2013\u2014]\s*)\s*\S",
    re.IGNORECASE,
)
"""'New number: 555-9876', 'New address - 12 Oak Street': the attribute, then its value."""


def new_value_of(new: str, old: str) -> bool:
    """Whether ``new`` opens with "New <attribute>:" and ``old`` states that attribute — its last word a
    word of ``old`` before "is" ("New number: …" / "My phone number is 555-1234")."""
    found = _NEW_VALUE.match(plain_apostrophes(new))
    if found is None:
        return False
    head = found.group("attribute").split()[-1].casefold()
    subject = re.split(r"\b(?:is|are|was)\b", plain_apostrophes(old).casefold(), maxsplit=1)
    return len(subject) == 2 and head in re.findall(r"[a-z]+", subject[0])


DIETS = {
    "vegetarian": ("meat", "chicken", "beef", "pork", "steak", "fish", "bacon", "ham", "lamb", "burgers"),
    "vegan": ("meat", "chicken", "beef", "pork", "steak", "fish", "dairy", "cheese", "eggs", "milk", "honey"),
    "pescatarian": ("meat", "chicken", "beef", "pork", "steak", "bacon", "ham", "lamb"),
}
"""A diet, and foods it leaves out: eating one again says the diet may have ended."""
_ON_DIET = re.compile(
    r"\b(?:is|am|are|'m|'re|went|gone|been)\s+(?:a\s+|fully\s+|strictly\s+)?(?P<diet>\w+)\b", re.I
)
_EATS = re.compile(
    r"\b(?:eat|eats|eating|ate|started\s+eating|back\s+(?:on|to)|having|had)\s+(?:some\s+|red\s+)?(?P<food>\w+)",
    re.IGNORECASE,
)
_AGAIN = re.compile(r"\b(?:again|started|start|starting|back\s+(?:on|to)|now)\b", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|no|don't|doesn't|won't|stopped|quit)\b", re.IGNORECASE)


_WRITER = frozenset(
    [
        "i",
        "we",
        "i've",
        "we've",
        "i'm",
        "we're",
        "just",
        "have",
        "has",
        "is",
        "am",
        "are",
        "recently",
        "finally",
        "also",
    ]
)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.casefold()))


def diet_ended(new: str, old: str) -> bool:
    """Whether ``old`` says its subject keeps a diet of ``DIETS`` ("I am vegetarian", "The user is a
    vegan") and ``new`` says the same subject (the writer, or the words before the old fact's verb) eats
    a food that diet leaves out again or from now on ("I started eating meat again", "I'm eating fish
    now"), not negated. "My husband started eating meat again" is someone else."""
    new, old = plain_apostrophes(new), plain_apostrophes(old)
    kept = next((m for m in _ON_DIET.finditer(old) if m.group("diet").casefold() in DIETS), None)
    if kept is None or _NEGATED.search(new) or not _AGAIN.search(new):
        return False
    for eats in _EATS.finditer(new):
        if eats.group("food").casefold() in DIETS[kept.group("diet").casefold()]:
            return _words(new[: eats.start()]) - _WRITER - {"the", "user"} <= _words(old[: kept.start()])
    return False


def loose_change(new: str, old: str) -> str | None:
    """The signal of the first of ``role_taken``, ``new_value_of``, ``diet_ended`` that reads a change of
    ``old`` in ``new`` (``role``, ``new_value``, ``diet``), or None."""
    if role_taken(new, old):
        return "role"
    if new_value_of(new, old):
        return "new_value"
    if diet_ended(new, old):
        return "diet"
    return None
