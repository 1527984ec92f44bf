"""The words that name a person by their relation to someone ("son", "wife", "roommate"), spelled once.
Pure data: no I/O, no imports of the project.

Read by ``take_back`` (a subject such as "Alex's son") and ``key_statements`` (a keyed write about the
user's son on the user's key): "my son" names another person, "my allergy" or "my favourite food" does
not. English only, lower case; a pattern adds the capitals it needs.
"""

from __future__ import annotations

RELATIONS: tuple[str, ...] = (
    *("son", "sons", "daughter", "daughters", "kid", "kids", "child", "children", "baby", "toddler"),
    *("wife", "husband", "partner", "spouse", "boyfriend", "girlfriend", "fiance", "fiancee", "fiancé"),
    *("fiancée", "brother", "brothers", "sister", "sisters", "sibling", "siblings", "twin", "twins"),
    *("mother", "father", "mom", "mum", "dad", "parent", "parents", "stepson", "stepdaughter"),
    *("grandmother", "grandfather", "grandma", "grandpa", "grandparents", "grandson", "granddaughter"),
    *("aunt", "uncle", "cousin", "nephew", "niece", "roommate", "flatmate", "friend", "boss", "neighbor"),
    *("neighbour", "colleague", "coworker"),
    *("ex", "exes", "in-laws", "stepmom", "stepdad", "stepmother", "stepfather", "grandkids"),
    *("grandchildren", "friends", "cousins", "roommates", "flatmates", "neighbors", "neighbours"),
    *("colleagues", "coworkers", "co-worker", "co-workers"),
    *("hubby", "bf", "gf", "granny", "nanny", "babysitter", "landlord", "landlady", "little girl"),
    *("little boy", "baby girl", "baby boy"),
)
"""A person named by a relation (a family member, a partner, a former partner, someone the writer lives or
works with, who minds the writer's children or lets the writer's home; short forms "hubby", "bf", "gf";
"little girl" for a child: trial19). A word before it ("best friend", "ex-wife") or "-in-law" after it
("brother-in-law") is read by the patterns that use it (``take_back``)."""
RELATION_ALT = "|".join(sorted(RELATIONS, key=len, reverse=True))
"""``RELATIONS`` as a regex alternation, longest first ("grandmother" before "mother")."""
PETS: tuple[str, ...] = (
    *("dog", "dogs", "cat", "cats", "puppy", "kitten", "pet", "pets", "horse", "pony", "parrot"),
    *("bird", "rabbit", "bunny", "hamster", "guinea pig", "turtle", "tortoise", "lizard", "snake"),
)
"""An animal of the writer's ("my dog", "our cat"): never the writer, so its words on a key of the
writer's are another subject's (trial22 M4: "My dog's name is Rex" on ``user.name`` retired the user's
name)."""
PET_ALT = "|".join(sorted(PETS, key=len, reverse=True))
"""``PETS`` as a regex alternation, longest first."""
RELATION_ROLES: dict[str, tuple[str, ...]] = {"boss": ("manager", "supervisor")}
"""The roles of the writer's a relation names in a key's words besides itself ("user.manager" is the
writer's boss): a key naming one holds who fills it ("My boss is Dana", ``key_subject``)."""
