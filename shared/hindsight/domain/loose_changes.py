"""Changes said in a shape the frame rules do not compare: at most a flag (trial11, finding 8). Pure:
regular expressions and word sets, no I/O.

Each left both facts active and unflagged:

- a role taken by another person: "Priya is now the team lead" / "Tom is the team lead" — the name that
  changed is the subject, which the frame rules read as another subject (``role_taken``);
- a new value with its attribute put first: "New number: 555-9876" / "My phone number is 555-1234"
  (``new_value_of``);
- a diet given up in words about food: "I started eating meat again" / "I am vegetarian" (``diet_ended``;
  a short table of diets and what each leaves out — no other world knowledge is read);
- an amount of the user's changed by a verb of change: "My doctor upped my metformin to 1000mg twice a day"
  / "I take 500mg of metformin twice a day" (``amount_changed``, trial18 L3: two active doses of one
  medicine, neither flagged — an agent may repeat the old dose).

Being loose, each is only ever a possible conflict (``contradiction.compare_facts``): Priya may lead
another team, the number may be a work number, "again" may be one meal.
"""

from __future__ import annotations

import re
import unicodedata

from hindsight.domain.named_dates import calendar_names
from hindsight.domain.relations import RELATION_ALT, RELATION_ROLES
from hindsight.domain.text import plain_apostrophes
from hindsight.domain.value_slots import RELATIONS

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


AMOUNT_CHANGE_VERBS = (
    r"upped|raised|increased|lowered|reduced|decreased|cut|bumped(?:\s+up)?|doubled|halved|adjusted|changed"
)
"""Verbs that change an amount ("upped my metformin to 1000mg", "raised the rent to $2000"): a regex
alternation, read here and by ``key_subject`` (another person who changes the writer's amount)."""
_AMOUNT_CHANGE = re.compile(
    rf"\b(?:{AMOUNT_CHANGE_VERBS})\s+(?P<whose>my|our|the\s+user's)\s+(?P<thing>[^\d.,;:!?]+?)\s+"
    r"(?:(?:up|down|back)\s+)?to\s+(?P<amount>\d[\d.,]*)",
    re.IGNORECASE,
)
"""'upped my metformin to 1000mg', 'lowered our rent to 1800', 'cut my lisinopril dose back to 10mg': a verb
of change, the user's thing ("my", "our"; another's — "her metformin" — is not the user's), the number
it went to."""
_AMOUNT_WORDS = frozenset(["dose", "dosage", "doses", "amount", "intake", "prescription", "daily"])
"""Words a changed amount is named with ("my metformin dose") that name no thing of the old fact."""
_USER_FACT = re.compile(r"^\W*(?:i|we|my|our|the\s+user)\b", re.I)
"""An old fact about the user ("I take …", "My rent is …", "The user takes …")."""
_PERSONS = "|".join(
    sorted(
        {*RELATIONS, *RELATION_ALT.split("|"), *(r for roles in RELATION_ROLES.values() for r in roles)},
        key=len,
        reverse=True,
    )
)
_ANOTHER_PERSONS = re.compile(
    rf"^\W*(?:my|our|the\s+user's)\s+(?:[\w-]+\s+)?(?:{_PERSONS})(?:-in-laws?)?(?![\w-])"
    r"(?!\s+and\s+(?:I|me)\b)",
    re.IGNORECASE,
)
"""An old fact about another person of the user's: "My sister takes …", "My wife's dose …", "My best friend
…", "My mother-in-law …" — every relation word of ``value_slots.RELATIONS`` (people and pets one may have
several of, a doctor) and ``relations.RELATIONS`` (a partner, a boss, a landlord, "hubby": c5f84f8 read
only the first, so "My wife takes 500mg of metformin" was the user's dose), one word allowed before it.
Not one the user shares ("My husband and I both take 500mg of metformin": the user's dose too; h-review)."""


def _without_dates(text: str) -> str:
    """``text`` with each calendar name (``named_dates.calendar_names``: "since 2019", "in March 2021",
    "2024-05-01", "Dec 1") blanked: a year or a day is no amount."""
    cased = unicodedata.normalize("NFKC", text)
    for start, words, _ in calendar_names(cased):
        at = cased.find(words, start)
        if at >= 0:
            cased = cased[:at] + " " * len(words) + cased[at + len(words) :]
    return cased


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d[\d.,]*\d|\d", text)}


def amount_changed(new: str, old: str) -> bool:
    """Whether ``new`` says an amount of the user's thing went to a number (``_AMOUNT_CHANGE``: "My doctor
    upped my metformin to 1000mg twice a day", "I lowered my lisinopril dose to 10mg"), ``old`` is about
    the user, names that thing (a word of it other than ``_AMOUNT_WORDS``) and states an amount, and the
    number gone to is none that ``old`` states ("… upped my metformin to 500mg" / "I take 500mg of
    metformin": the value stated, no change). Whoever made the change (the user, "my doctor") — the thing
    is the user's. "My sister upped her metformin to 1000mg" is someone else's, as is an old fact about
    the user's relation (``_ANOTHER_PERSONS``); "upped my metformin" against a fact with no number says
    nothing of an amount it held, nor does one whose only number is a date ("since 2019")."""
    new, old = plain_apostrophes(new), _without_dates(plain_apostrophes(old))
    changed = _AMOUNT_CHANGE.search(new)
    if changed is None or _USER_FACT.match(old) is None or _ANOTHER_PERSONS.match(old):
        return False
    held = _numbers(old)
    if not held or changed.group("amount").rstrip(".,").replace(",", "") in held:
        return False
    thing = _words(changed.group("thing")) - _AMOUNT_WORDS
    return bool(thing) and thing <= _words(old)


def loose_change(new: str, old: str) -> str | None:
    """The signal of the first of ``role_taken``, ``new_value_of``, ``diet_ended``, ``amount_changed`` that
    reads a change of ``old`` in ``new`` (``role``, ``new_value``, ``diet``, ``amount``), or None."""
    if role_taken(new, old):
        return "role"
    if new_value_of(new, old):
        return "new_value"
    if diet_ended(new, old):
        return "diet"
    if amount_changed(new, old):
        return "amount"
    return None
