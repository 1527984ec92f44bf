"""A keyed write about another person on a key that holds the writer's own value (trial14). Pure: no I/O.

A key holds one current value, and a plain keyed write replaces it. "My son is allergic to eggs" on
``user.allergy`` holding "I'm allergic to peanuts" retired the user's allergy: the son's words became the
user's value, and the user's, which still holds, was gone from every default read. Such a write is
refused (field ``content``) naming the key, whose statement it is, and a key of theirs ("son.allergy"):
refused rather than kept beside because a key is one subject's slot — kept on ``user.allergy``, the son's
allergy would read as one of the user's, and the user's next value on the key would retire it unseen.

Narrow, as the rules it reuses: the subject is read by ``take_back.other_subject`` (a relation such as "My
son", "Our kids", "Alex's son", "My best friend", "My brother-in-law", "My ex", read up to its verb, present
or past, or a contracted "is": "My son's allergic …", "My sister moved …"; "My wife's dentist is …" is hers
too; "My wife and I …" names the writer) and must open with a person named by a relation (``relations``: not
"My allergy is peanuts", "My favourite food is …"); an opening that names the person otherwise is read as "my
<relation>" (``relation_opening``: "Mom lives …", "The kids …", "Both my kids …", "Last week my sister …",
trial19; names are not read), or an animal of the writer's or its possessive ("My dog's name is Rex", "Rex is
my dog's name": ``_OPENS_WITH_PET``, trial22 M4; not a pet word in a compound noun, "My cat allergy", "My pet
project", "My dog walks take an hour": h-keys5, h-keys6; "My dog, Rex, is 5", "My dog went vegan" are the
pet's), or a third person's pronoun ("She is vegan", "Her name is Ana": ``_PRONOUN_SUBJECT``,
refused only beside a value the writer wrote as "I …" / "My …": beside "The user …" or a bare value "she" may
be the user, written of by an agent); some value of the key must be the writer's (``writers_value``: "I …",
"We …", "The user …", "My name is Sam", "My wife and I …", "My partner works at Hooli and I work at Pied
Piper"; on a key named for the writer, "user.name", also a value of no one else's, "Sam", "Allergic to
penicillin": trial22 M4), whatever else the key holds — one value of another person's kept beside switched the
check off (trial18 H2). Not refused: a key with a part naming a relation or an animal ("user.son.allergy",
"kids.allergy", "user.spouse", "dog.name"), a person who fills the role the key names ("My boss is Dana now"
on "user.manager", "My sister is my emergency contact now" or "She's my emergency contact now" on
"user.emergency_contact": the writer's value, trial16 M2, h-keys5; on "user.job" the boss stays another
person; any role a person fills, "My mom is my next of kin now", "She is my nurse now", but no measure, a
thing a person is not: "She is my age now" on "user.age" stays refused, h-keys6, h-keys8), the writer beside
them in a place,
with the verb of a writer's value ("She lives with me in Austin now" over "I live in Denver"), the writer as
the object of their verb ("My sister got me a job at Globex", "My wife got me to go vegan"), the writer's "so
am I" ("My sister is vegan and now so am I"), the writer's own clause after theirs with the same verb or a
verb of being ("My partner works at Globex and I work at Acme": the writer's value, trial17; not a negated
one, "My daughter is vegan, I'm not": trial18 M4), or one that says
a change of the writer's value in words of its own ("My husband got a job in Seattle so we moved there":
trial18 M2) or states it with the verb of a writer's value ("…, so we live in Omaha now" over "I live in
Denver": trial19), or a present value of the writer's "now" after "so" or in a pseudo-cleft ("My ex kept the
house, so I rent in Reno now", "…, so now I rent …", "Mom's house is where I live now"; not "so I'm careful",
"so I visit her now", "so (now) I take him to the doctor": h-keys6; "so I cook/eat/drink … now" only on a key
of food or drink, "user.diet", and none of allergy or health, "user.food_allergies": h-keys5, h-keys6),
another person who changes the writer's amount the key names ("My landlord raised the rent to $2000" on
"user.rent"), a write that leaves the writer's values (an addition, "My son is also allergic to eggs",
aff0bfb; a re-add, "… again", 4be0102, or a take-back that retires no value of the writer's:
``take_back.taken_back``). A supersede (memory_update) is read the same way against the memory it names
(trial23 H1: it was exempt, and retired the writer's value). A key not named for the writer whose
values are subjectless ("Allergic to penicillin" on "allergy") or another person's keeps its rule (replaced,
as before): whose they are is not read. A key with no value yet keeps it too, unless it is named for the
writer ("user.allergy": ``_WRITERS_KEY``; trial21 H4, the son's words were the key's only value and the
writer's next one retired them): there they are refused as beside the writer's value, and a subjectless value
there is the writer's (trial22 M4: "My dog's name is Rex" retired "Sam" on "user.name"). The values are those
stored at acknowledgement (``usecases.key_values``; an update's, the memory it replaces:
``usecases.key_admission``): a value still queued is not seen.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hindsight.domain.also_now import by_the_writer, with_the_writer
from hindsight.domain.change_mention import CHANGE, mentions_a_change
from hindsight.domain.contradiction import is_additive
from hindsight.domain.errors import InvalidInput
from hindsight.domain.loose_changes import AMOUNT_CHANGE_VERBS
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relation_opening import as_relation_opening
from hindsight.domain.relations import PET_ALT, RELATION_ALT, RELATION_ROLES
from hindsight.domain.take_back import is_take_back, may_leave_values, other_subject, taken_back
from hindsight.domain.text import plain_apostrophes, single_spaced

_RELATION = re.compile(rf"\b(?:{RELATION_ALT})\b", re.IGNORECASE)
_OPENS_WITH_RELATION = re.compile(
    rf"^\W*(?:my|our|his|her|their|your|[^\W\d_]+'s)\s+(?:[\w'-]+[\s-]+)?(?:{RELATION_ALT})\b", re.IGNORECASE
)
"""A subject that opens with a person named by a relation ("my son", "my best friend", "my ex-wife's
lawyer", "alex's son"), not one that names a relation only later ("My fam's small, but I love … the
friends I have": the writer's words)."""
_PET_OPENING = re.compile(rf"^\W*(?:my|our|the)\s+(?:[\w'-]+\s+)?(?:{PET_ALT})\b", re.IGNORECASE)
"""Words that open with an animal of the writer's ("my dog", "our old cat"): a pet's subject once read
(``_OPENS_WITH_PET``), named "a pet" in the refusal."""
_PET_VERB = (
    r"is|are|was|were|has|have|had|does|did|do|can|could|will|would|should|may|might|must|no\s+longer|"
    r"got|ate|bit|ran|went|took|became|lost|came|saw|slept|drank|gave|made|left|fell|broke|caught|chose|found|"
    r"felt|kept|knew|lay|met|rode|sat|shook|spent|stole|stood|swam|threw|tore|woke|won|wore|hid|dug|flew|froze|"
    r"grew|hurt|bought|brought|fought|heard|held|swallowed|"
    r"just|still|now|also|always|never|really|finally|only|usually|often|sometimes|recently|already|hardly|"
    r"barely|even|mostly|rarely|suddenly|probably|"
    r"[a-z]+n't|[a-z]+s(?!\s+(?:is|are|was|were|has|have|take|took|last|lasted|cost|seem|look|need|make)\b)|"
    r"[a-z]{2,}ed"
)
"""What may follow a pet word as its verb: an auxiliary, a negation, an irregular past, an adverb, an -s or
-ed form ("My dog is …", "My dog isn't vegan", "My dog went vegan", "My dog just ate", "My dog weighs …");
not an -s word followed by a plural verb ("My dog treats are …", "My dog walks take an hour": a compound)."""
_PET_NAMES = r"[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*"
_OPENS_WITH_PET = re.compile(
    rf"^\W*(?i:my|our|the)\s+(?:[\w'-]+\s+)?(?i:(?P<pet>{PET_ALT}))"
    rf"(?:\s+(?i:and|&)\s+(?:(?i:my|our)\s+)?(?i:{PET_ALT}))?"
    rf"(?:(?:\s+[A-Z][a-z]+)+|,\s+{_PET_NAMES}(?:,?\s+(?:and|&)\s+{_PET_NAMES})?,)?"
    rf"(?:'s\b|s'|(?P<verb>(?<=s)\s+[a-z]|(?<=,)\s+[a-z]|\s+(?i:{_PET_VERB})\b))"
)
"""A subject that is an animal of the writer's, or its possessive: "My dog is …", "My dog's name …", "Our
cat sleeps …", "My old dog died", "My dogs love …", "Our dog Rex is 5", "My dog, Rex, is 5", "My dogs, Rex
and Fido, love …", "My dog and cat are …" (trial22 M4: "My dog's name is Rex" on ``user.name`` retired the
user's name). The pet word is the subject unless a noun follows it that makes a compound, the writer's own
thing ("My cat allergy", "My pet project", "My hot dog stand", "My bird-watching group", "My dog treats are
…", "My dog walking business": h-keys5 H2): a lower-case word right after it that is no verb form, negation,
auxiliary or adverb (``_PET_VERB``; h-keys6 H1: a closed list of verbs let "My dog went vegan", "My dog isn't
vegan", "My dog, Rex, is 5" retire the writer's value)."""
_NAMES_A_PET = re.compile(
    r"^\W*[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+(?i:is|was)\s+"
    rf"(?P<pet>(?i:my|our|the)\s+(?:[\w'-]+\s+)?(?i:{PET_ALT})(?:'s\s+[a-z]+)?)[\s.!]*$"
)
"""A name said to be a pet's or its name ("Rex is my dog's name", "Rex is our cat"): the pet's words, as
"My dog's name is Rex" (h-keys5)."""
_PET = re.compile(rf"\b(?:{PET_ALT})\b", re.IGNORECASE)
_PRONOUN_SUBJECT = re.compile(
    r"^\W*(?:(?P<pronoun>he|she|they)(?!\s+and\s+(?:I|me)\b)(?=\s+[a-z]|'[a-z])"
    rf"|(?P<owner>his|her|their)\s+(?!(?:[\w'-]+[\s-]+)?(?:{RELATION_ALT}|{PET_ALT})\b)[a-z]+(?=\s+[a-z]))",
    re.IGNORECASE,
)
"""A third person named by a pronoun at the opening ("She is vegan", "He works at …", "Her name is Ana",
"Their diet is …"), not "his wife" (a relation: ``_OPENS_WITH_RELATION``) nor "She and I …": on a key whose
values the writer wrote as "I …" / "My …", another person (trial22 M4); on other keys it may be the user,
written of by an agent (``relation_opening``: pronouns are not read), and keeps its rule."""
_FIRST_PERSON = re.compile(r"^\W*(?:i|i'm|i've|i'd|we|we're|we've|me|my|our)\b", re.IGNORECASE)
"""A value the writer wrote in the first person ("I'm vegetarian", "My name is Sam")."""
_MINE = re.compile(
    rf"^\W*(?:my|our)\s+(?!(?:[\w'-]+[\s-]+)?(?:{RELATION_ALT})\b)(?!(?:[\w'-]+\s+)?(?:and|&)\s)[a-z]",
    re.IGNORECASE,
)
"""A value that opens with a thing of the writer's ("My name is Sam", "My diet is vegan", "Our bank is
Chase", "My pet project is …"), not a person of theirs ("My son …", "My best friend …"); an animal of
theirs ("My dog is …": ``_OPENS_WITH_PET``) is not either (``writers_value``)."""
_KEY_PARTS = re.compile(r"[._:/-]")
_KEY_WORDS = re.compile(r"[^\W_]+")
_FILLS_A_ROLE = re.compile(
    rf"^\W*(?:(?i:my|our)\s+(?P<relation>(?i:{RELATION_ALT}))\s+is|(?i:he|she|they)(?:\s+(?i:is|are)|'(?i:s|re)))"
    r"\s+(?:now\s+)?"
    r"(?:(?P<name>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)|(?P<mine>(?i:my)\s+(?:[a-z]+\s+){0,2}(?P<role>(?!(?:now|again|these|days)\b)[a-z]+)))"
    r"(?:\s+(?i:now|again|these\s+days))?[\s.!]*$"
)
"""Who fills a role of the writer's, said of the relation: "My boss is Dana (now)", "My sister is my
emergency contact now" (trial16 M2), or of a pronoun ("He is my manager now", "She's my emergency contact
now": h-keys5 H3): the person is the value, not the subject of another person's state."""
_A_MEASURE = re.compile(
    r"^(?:age|ages|weight|height|size|sizes|birthday|birth|birthdate|number|type|sign|build|shape|"
    r"length|width|mass|bmi|iq|gpa|score|rank|level|grade|year|colou?r|name|pace|speed|temperature)$",
    re.IGNORECASE,
)
"""A role word that names a measure of the writer's, a thing a person is not ("my age", "my weight", "my
height", "my shoe size", "my birthday", "my date of birth", "my blood type", "my star sign", "my number"):
"She is my age now" states her age, not who fills a role (h-keys6 M2). A closed list of measures, not of
roles (h-keys8: an allow-list of roles refused "My mom is my next of kin now", "She is my nurse now", "He
is my physio now", "My wife is my power of attorney now"): every other word after "my" is a role a person
fills."""
_VERB_AFTER = re.compile(
    r"\s*(?:(?:now|still|currently|also|usually|always|actually)\s+)?([a-z]+)\b", re.IGNORECASE
)
"""The verb after another person's subject ("works" in "My wife (now) works at …")."""
_WRITERS_CLAUSE = re.compile(
    r"(?:[,;:.!?]\s*(?:(?P<conj>and|but|yet|while|whereas|so)\s+)?|\s(?P<joiner>and|but|yet|while|whereas|so)\s+"
    r"|\s(?P<cleft>(?:is|are)\s+(?:now\s+)?(?:where|what))\s+)(?P<now>now\s+)?"
    r"(?:I|[Ww]e)(?:'m|'re|\s+(?:now\s+|still\s+|also\s+|just\s+)?(?P<verb>[a-z]+))\b(?P<rest>[^,;:.!?]*)"
)
"""A clause of the writer's after another person's: "…, and I work at Acme", "…; I'm vegetarian", "… but
I live in Denver" (trial17: with the other person's clause first, the whole write was refused), "… so we
moved there" (trial18 M2), "Mom's house is where I live now" (a pseudo-cleft: ``cleft``, "is where");
``conj`` / ``joiner``: its conjunction (after punctuation / after a space); ``now``: a "now" before the
writer ("…, so now I rent …", h-keys5 M3); ``verb``: its verb (None after
"I'm" / "we're"); ``rest``: its words after the verb, to the clause's end."""
_CHANGES_AN_AMOUNT = re.compile(
    rf"\s+(?i:{AMOUNT_CHANGE_VERBS})\s+(?i:the|my|our)\s+(?P<thing>[^\d.,;:!?$€£]+?)\s+"
    r"(?i:(?:up|down|back)\s+)?(?i:to)\s+[$€£]?\d"
)
"""Another person's verb of change of an amount of the writer's ("My landlord raised the rent to $2000",
"My boss raised my salary to $90k": ``loose_changes.AMOUNT_CHANGE_VERBS``), with the thing it changed."""
_THEIRS_AFTER = re.compile(r"\b(?:her|his|their)\b", re.IGNORECASE)
"""After another person's change of an amount, a possessive of theirs ("… raised the rent to $900 for her
tenants"): the amount is theirs, not the writer's."""
_PRESENT_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
_BACK_TO_THEM = re.compile(r"\b(?:him|her|them|there)\b", re.IGNORECASE)
"""The other person or their place again ("so I visit her now", "so I fly there a lot now"): a consequence
of theirs, not a value of the writer's."""
_THEM = re.compile(r"^\s+(?:him|her|them)\b", re.IGNORECASE)
"""The other person again after the verb of a writer's value ("so (now) I take him to the doctor", "so now I
visit her monthly", "so now I drive him to practice" over "I take metformin", "I visit Paris yearly", "I
drive a Honda"): a thing the writer does for them, not the writer's value (h-keys6 H3). Only as the
verb's object: "…, so now I live with her parents", "…, so I run with her now", "…, so we live there now"
still state the writer's value (``_BACK_TO_THEM`` reads those as a consequence after "so I … now" only).
"""
_VALUE_VERBS = frozenset(
    [
        *("live", "rent", "stay", "reside", "own", "work", "run", "manage", "teach", "study"),
        *("attend", "drive", "use", "eat", "cook", "drink"),
    ]
)
"""Present verbs (plain forms) that state a value of the writer's — where they live, what they do, drive,
use, eat, cook or drink — after "so I" or in a pseudo-cleft ("so I rent in Reno now", "so I run the
family bakery now", "so I cook vegetarian now": trial22 M2, refused on an empty ``user.diet``). Any other
verb there is read as a consequence ("so I avoid nuts now", "so I can relax", "so I worry"): a closed
list, since accepting such a clause retires the value the key holds."""
_WRITERS_KEY = re.compile(r"^(?:user|me|my|myself|self)(?:[._:/-]|$)", re.IGNORECASE)
"""A key named for the writer ("user.allergy", "me.home"): another person's words on it, even while it
holds nothing, become what the key says of the writer, and the writer's next value retires them unseen
(trial21 H4: "My son is allergic to peanuts" on an empty ``user.allergy``, then "I'm allergic to
penicillin")."""
_GROUP_KEY = re.compile(r"^(?:family|household|relatives|kin|people|contacts|friends)$", re.IGNORECASE)
"""A key word that names people besides the writer ("user.family", "user.household_size"): a key of
several people's values, not the writer's alone."""
_THE_WRITER_AFTER = re.compile(r"\s+(?i:me|us)\b")
"""The writer as the object right after another person's verb ("… got me a job", "… got us tickets")."""
_SO_DOES_THE_WRITER = re.compile(
    r"(?:[,;]\s*|\s)(?:and\s+)?(?:now\s+)?(?:so|as)\s+(?:am|are|do|have|has)\s+(?:I|we)\b"
    r"(?!\s*(?:not|n't)\b)",
    re.IGNORECASE,
)
"""The writer's "so am I" after another person's clause ("My sister is vegan and now so am I"): the
writer's value, the same as theirs (trial19); in the present only ("… and so was I" says nothing of now)."""
_WRITERS_VERB = re.compile(
    r"^\W*(?:I|we|the\s+user)\s+(?:(?:now|still|also|currently|just|actually)\s+)?([a-z]+)\b", re.IGNORECASE
)
"""The verb of a writer's value ("live" in "I live in Denver")."""
_NEGATED = re.compile(r"^(?:\s*(?:not|never|no\s+longer)\b|'t\b)", re.IGNORECASE)
"""A writer's clause that says what the writer is not ("…, I'm not", "… but I don't", "…, I'm not
vegan"): it states no value of the key (trial18 M4)."""


def other_persons_subject(draft: MemoryDraft) -> str | None:
    """The subject words ("my son", "our kids", lower case) of a keyed semantic write about another person
    named by a relation, when it may retire a value of the key (no addition) and the key names no relation
    (module docstring); None otherwise. Only then are the key's values read (``check_other_person_on_key``:
    a take-back or re-add of theirs is refused only when it would retire a value of the writer's). A
    supersede (``supersedes``) is read as any write: the values it would retire are the memory it names,
    which its caller gives (``usecases.key_admission``; trial23 H1: it was exempt)."""
    if draft.layer != "semantic" or draft.key is None:
        return None
    content = _read_opening(draft.content)  # a run of spaces reads as one
    subject = other_subject(content)
    if subject is None or not _OPENS_WITH_RELATION.match(subject):
        subject = _pet_or_pronoun(content)
    if subject is None or is_additive(content):
        return None
    if any(_RELATION.fullmatch(part) or _PET.fullmatch(part) for part in _KEY_PARTS.split(draft.key)):
        return None  # "user.son.allergy", "kids.allergy", "user.spouse", "dog.name": a key of theirs too
    if _fills_the_keys_role(content, draft.key) or _the_writer_says_the_same(content, subject):
        return None
    if _the_writer_is_the_object(content, subject) or _changes_the_keys_amount(content, subject, draft.key):
        return None
    return subject


def _pet_or_pronoun(content: str) -> str | None:
    """The subject words (lower case) of ``content`` when it opens with an animal of the writer's ("my
    dog", "my dog's name": ``_OPENS_WITH_PET``; "Rex is my dog's name": ``_NAMES_A_PET``) or a third
    person's pronoun ("she", "her name": ``_PRONOUN_SUBJECT``), read up to its verb; None otherwise."""
    if named := _NAMES_A_PET.match(content):
        return named.group("pet").lower()  # "Rex is my dog's name": "my dog's name"
    pet = _OPENS_WITH_PET.match(content)
    pronoun = _PRONOUN_SUBJECT.match(content) if pet is None else None
    if pronoun is not None and pronoun.group("pronoun"):
        return pronoun.group("pronoun").lower()
    if pet is None and pronoun is None:
        return None
    if pet is not None and pet.group("verb"):
        return content[: pet.start("verb")].strip(" \t\"'(").lower()  # "My dogs love …": "my dogs"
    end = _VERB_AT.search(content, pet.end("pet") if pet is not None else pronoun.end())  # type: ignore[union-attr]
    return content[: end.start() if end else len(content)].strip(" \t\"'(").lower()


_VERB_AT = re.compile(
    r"\s+(?:is|are|was|were|has|have|had|[a-z]+s|[a-z]+ed)\b|'s\s+(?![a-z]+\s+(?:is|are|was|were)\b)|$", re.I
)
"""Where a pet's or a pronoun's subject ends: at its verb or a contracted "is" ("My dog's name is Rex" →
"my dog's name", "My dog's allergic to chicken" → "my dog")."""


_WITH_THE_WRITER_IN = re.compile(
    r"\s+(?:(?i:now|still|also)\s+)?(?P<verb>[a-z]+)\s+(?i:with\s+(?:me|us))\s+(?i:in|at)\s+[A-Z0-9]"
)
"""Another person's verb with the writer beside them and a place ("She lives with me in Austin now"):
``verb`` is read against the writer's value (``_beside_in``)."""


def _beside_in(content: str, subject: str, writers: Sequence[str]) -> bool:
    """Whether the other person's words state one of the ``writers`` values with its verb, the writer
    beside them and a place ("She lives with me in Austin now", "My mom lives with me in Austin now" over
    "I live in Denver": the writer lives in Austin, h-keys5 M3). Not without a place ("My mom lives with
    me now" says nothing of where) nor with another verb ("She works with me in Austin" over "I live …")."""
    found = _WITH_THE_WRITER_IN.match(content, _subject_end(content, subject))
    return found is not None and _lemma(found.group("verb")) in _writers_verbs(writers)


def _changes_the_keys_amount(content: str, subject: str, key: str) -> bool:
    """Whether the other person changes an amount of the writer's that the key names ("My landlord raised
    the rent to $2000" on ``user.rent``, "My boss raised my salary to $90k" on ``user.salary``:
    ``_CHANGES_AN_AMOUNT``): the amount is the writer's value, whoever changed it. Not "her rent", nor a
    thing the key does not name ("… raised the rent …" on ``user.home``), nor a change by someone's
    relation ("My brother's landlord …") or followed by a possessive of theirs ("… for her tenants")."""
    found = _CHANGES_AN_AMOUNT.match(content, _subject_end(content, subject))
    if found is None or "'s" in subject or _THEIRS_AFTER.search(content, found.end()):
        return False  # "My brother's landlord raised …", "… to $900 for her tenants": theirs (h-review)
    words = {word.lower() for word in _KEY_WORDS.findall(key)} - {"user"}
    return bool(words & {word.lower() for word in _KEY_WORDS.findall(found.group("thing"))})


def _the_writer_is_the_object(content: str, subject: str) -> bool:
    """Whether the writer is the object of the other person's verb ("My sister got me a job at her
    company, Globex", "My wife got me to go vegan", "My mom got us tickets": trial19): what follows is the
    writer's, not another person's state."""
    found = _VERB_AFTER.match(content, _subject_end(content, subject))
    return found is not None and bool(_THE_WRITER_AFTER.match(content, found.end()))


def _subject_end(content: str, subject: str) -> int:
    """Where ``subject`` (read from the opening of ``content``) ends in ``content``."""
    return len(subject) + (len(content) - len(content.lstrip(" \t\"'(")))


def _read_opening(text: str) -> str:
    """``text`` with plain apostrophes and its opening read as "my <relation>" when it names another
    person by a bare kin word, "the kids", "both my kids" or after fronted words ("Mom lives …", "Last
    week my sister …": ``relation_opening.as_relation_opening``, trial19), a run of spaces as one
    (``text.single_spaced``)."""
    return as_relation_opening(single_spaced(plain_apostrophes(text)))


def _the_writer_says_the_same(content: str, subject: str) -> bool:
    """Whether a clause of the writer's after the other person's states the writer's own value with the
    same verb or a verb of being ("My partner works at Globex and I work at Acme", "My parents live in
    Boston but I live in Denver", "My wife eats meat; I'm vegetarian"): the write is the writer's value
    set beside another person's, not another person's statement (trial17 MED-1). A writer's clause with
    another verb ("My son is allergic to eggs, so I cook without them") says nothing of the key's value:
    still another person's words."""
    found = _VERB_AFTER.match(content, _subject_end(content, subject))
    theirs = _lemma(found.group(1)) if found else None
    if _SO_DOES_THE_WRITER.search(content):
        return True  # "My sister is vegan and now so am I" (trial19)
    for clause in _WRITERS_CLAUSE.finditer(content):
        verb = clause.group("verb")
        if _negated(clause):
            continue  # "My daughter is vegan, I'm not": no value of the writer's (trial18 M4)
        if _conjunction(clause) == "so":
            continue  # "My son is allergic to peanuts, so I'm careful": a consequence, not the writer's value
        if verb is None or verb.lower() in {"am", "are"} or _lemma(verb) == theirs:
            return True
    return False


def _conjunction(clause: re.Match[str]) -> str | None:
    """The conjunction that opens a writer's clause (``_WRITERS_CLAUSE``: "so" in "…, so we moved"), lower
    case; None when it opens with none ("…; I'm vegetarian")."""
    found = clause.group("conj") or clause.group("joiner")
    return found.lower() if found else None


def _negated(clause: re.Match[str]) -> bool:
    """Whether a writer's clause (``_WRITERS_CLAUSE``) is negated ("I'm not", "we never", "I don't": its
    verb read as "don" and the words after it as "'t"): the words after its verb open with a negation."""
    return bool(_NEGATED.match(clause.group("rest")))


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
    role = fills.group("role")
    if role is not None and _A_MEASURE.match(role):
        return False  # "She is my age now", "My sister is my age now": a measure, no role (h-keys6, h-keys8)
    for named in (fills.group("relation"), role):  # "My boss is …", "She is my boss now"
        if named is not None and words & {named.lower(), *RELATION_ROLES.get(named.lower(), ())}:
            return True
    return False


def _a_measure_filled(content: str) -> str | None:
    """The writer's measure ``content`` says another person fills ("my age" of "She is my age now", "my
    shoe size" of "He is my shoe size now": ``_A_MEASURE``), lower case; None otherwise. Named in the
    refusal: a measure is no role a person fills, so the words state theirs (h-keys8)."""
    fills = _FILLS_A_ROLE.match(content)
    if fills is None or fills.group("role") is None or not _A_MEASURE.match(fills.group("role")):
        return None
    return " ".join(fills.group("mine").lower().split())


def check_other_person_on_key(draft: MemoryDraft, subject: str, values: Sequence[str]) -> None:
    """Refuse ``draft`` (about another person, ``subject``: ``other_persons_subject``) when it would
    retire a value of the writer's among the key's active ``values`` (their contents; ``writers_value``):
    as the key's value it replaces them all, the writer's own with them — whatever else the key holds
    (trial18 H2: another person's value kept beside the writer's switched the check off, and the next
    such write retired both). A take-back or re-add of theirs ("My son is no longer allergic to eggs",
    "… again") is refused only when it would retire a value of the writer's (``take_back.taken_back``:
    "My son is no longer allergic to eggs" over "I'm allergic to eggs"; one that takes back theirs only,
    or nothing, is kept as before). Not refused: a key with no value of the writer's (subjectless, another
    person's: whose they are is not read; none, unless the key is named for the writer:
    ``_empty_writers_key``, trial21 H4), and a write whose writer's clause says a change of a
    writer's value in words of its own ("My husband got a job in Seattle so we moved there" over "I live
    in Boise": the writer's value, trial18 M2; ``change_mention.mentions_a_change``, no take-back).
    Raises InvalidInput (field ``content``) naming the key, whose statement it is, the writer's value it
    would retire and a key of theirs; a writer's clause that only says what the writer is not ("My
    daughter is vegan, I'm not", "My wife eats meat but I don't": the negation is the writer's, no
    take-back of theirs) is refused whatever it would retire, and named as stating no value (trial18 M4)."""
    content = _read_opening(draft.content)
    key = draft.key or ""
    pronoun = subject.split(" ", 1)[0] in _PRONOUNS and not _OPENS_WITH_RELATION.match(subject)
    writers = [i for i, value in enumerate(values) if _the_writers(value, key, pronoun)]
    empty = not values and not pronoun and _empty_writers_key(key, content)
    writers_values = [values[i] for i in writers]
    if not empty and (
        not writers_values
        or _the_writers_change(content, writers_values, key)
        or _beside_in(content, subject, writers_values)
    ):
        return
    negated = next((c for c in _WRITERS_CLAUSE.finditer(content) if _negated(c)), None)
    if not empty and negated is None and may_leave_values(content):
        settled = taken_back(content, values)
        if settled is not None and not set(settled.retired) & set(writers):
            return  # takes back theirs only, or nothing: kept beside the writer's value, as before
    found = [relation.group(0).lower().replace(" ", "_") for relation in _RELATION.finditer(subject)]
    found = found or [pet.group(0).lower().replace(" ", "_") for pet in _PET.finditer(subject)]
    theirs = f"{found[-1] if found else 'their'}.{key.split('.', 1)[-1]}"  # "my wife's brother": brother
    no_value = (
        f"; the writer's own words ({negated.group(0).strip(' ,;:.!?')!r}) say what the writer is not and "
        "state no value of the key"
        if negated is not None
        else ""
    )
    held = (
        f"names the writer ({_KEY_PARTS.split(key, 1)[0]!r}) and holds no value yet"
        if empty
        else f"holds the writer's own value ({values[writers[0]][:80]!r})"
    )
    several = "; if the key holds several people's values, say it is one more ('… also …')"
    would = (
        "read as the writer's, and the writer's next value would retire them"
        if empty
        else "retire the writer's"
    )
    whom = "a pet" if _PET_OPENING.match(subject) else "another person"
    mine = (
        f"; if {subject.split(' ', 1)[0]!r} means the writer, write it in the writer's words ('I …', 'My …')"
        if pronoun
        else ""
    )
    measure = _a_measure_filled(content)
    no_role = (
        f"; {measure!r} is a measure of the writer's, not a role a person fills)"
        if measure is not None
        else ")"
    )
    raise InvalidInput(
        "content",
        f"the words are about {whom} ({subject.strip(' ,')!r}{no_role}, and key {key!r} {held}{no_value}: a "
        f"key holds one subject's value, so as its value they would {would}. Write it on a key of theirs "
        f"({theirs!r}) or without a key "
        f"(kept beside, nothing retired){'' if empty else several}{mine}",
    )


_PRONOUNS = frozenset(["he", "she", "they", "his", "her", "their"])
"""The words a third person's pronoun subject opens with (``_PRONOUN_SUBJECT``)."""


def _the_writers(value: str, key: str, pronoun: bool) -> bool:
    """Whether the key's ``value`` is the writer's, against a write about someone else: ``writers_value``;
    on a key named for the writer (``_writers_key``) also a value of no one else ("Sam" on ``user.name``,
    "Allergic to penicillin" on ``user.allergy``: the key says whose it is, as it does for an empty key,
    trial22 M4). Against a third person's pronoun (``pronoun``: "She is vegan") only a value the writer
    wrote in the first person ("I'm vegetarian", "My name is Sam"): beside "The user is …" or a bare value,
    "she" may be the user, written of by an agent."""
    if pronoun:
        return bool(_FIRST_PERSON.match(plain_apostrophes(value))) and writers_value(value)
    if writers_value(value):
        return True
    opening = _read_opening(value)
    return _writers_key(key) and other_subject(opening) is None and _pet_or_pronoun(opening) is None


_WRITER_BESIDE = re.compile(
    rf"\b(?:is|are|was|were)\s+(?:my|our)\s+(?!(?:[\w'-]+[\s-]+)?(?:{RELATION_ALT})\b)\w"
    r"|\b(?:with|for|beside|near)\s+(?:me|us)\b",
    re.IGNORECASE,
)
"""The writer named beside another person as what they are to the writer or whom they are with ("My best
friend Sam is my emergency contact", "My brother-in-law is my accountant", "My mother lives with me in
Tucson"): a value of the writer's key, not only theirs (trial22 M1, M3 were refused on an empty key). Not "so
I visit her now", "I'm not", "so I cook without them": a consequence or a contrast stays theirs."""


def _empty_writers_key(key: str, content: str) -> bool:
    """Whether ``key``, holding no value, is named for the writer (``_WRITERS_KEY``; no word of it names a
    relation or a group of people: "user.kids_school", "user.family") and ``content`` has no clause of the
    writer's that says a change in a word of change ("My husband got a job in Seattle so we moved there":
    ``change_mention.CHANGE``, trial18 M2) or a present value of now ("…, so we live in Omaha now", "…, so I
    rent in Reno now": ``_the_writers_change``) nor names the writer beside them (``_WRITER_BESIDE``) —
    another person's words on it are refused as on a key holding the writer's value (trial21 H4)."""
    if not _writers_key(key):
        return False
    first = next(_WRITERS_CLAUSE.finditer(content), None)
    if _WRITER_BESIDE.search(content, 0, first.start() if first else len(content)):
        return False  # in their words: "… lives with me"; not in the writer's "…, so I carry one with me"
    changes = (
        c for c in _WRITERS_CLAUSE.finditer(content) if not _negated(c) and not is_take_back(c.group(0))
    )
    return not any(CHANGE.search(c.group(0)) for c in changes) and not _the_writers_change(content, [], key)


def _writers_key(key: str) -> bool:
    """Whether ``key`` is named for the writer (``_WRITERS_KEY``: "user.allergy", "me.home") and no word
    of it names a relation, an animal or a group of people ("user.kids_school", "user.dog_name",
    "user.family"): a key of the writer's value alone."""
    words = _KEY_WORDS.findall(key)
    return bool(_WRITERS_KEY.match(key)) and not any(
        _RELATION.fullmatch(w) or _PET.fullmatch(w) or _GROUP_KEY.match(w) for w in words
    )


def writers_value(value: str) -> bool:
    """Whether ``value`` (a key's active value) is the writer's own: it opens with the writer ("I …", "We
    …", "The user …", "Me and my husband …": ``also_now.by_the_writer``), names the writer beside another
    person ("My wife and I moved to Sacramento": ``also_now.with_the_writer``), opens with a thing of the
    writer's ("My name is Sam", "My diet is vegan": ``_MINE``, trial22 M4), or states the writer's
    value after another person's ("My partner works at Hooli and I work at Pied Piper":
    ``_the_writer_says_the_same``). A subjectless value ("Allergic to penicillin") or another person's is
    not (trial18 H2: only values opening with the writer were read, so "My wife and I moved …" was
    retired by "My in-laws live in Reno")."""
    value = _read_opening(value)
    if (
        by_the_writer(value)
        or with_the_writer(value)
        or (_MINE.match(value) and not _OPENS_WITH_PET.match(value))
    ):
        return True  # "I …", "My wife and I …", "My name is Sam"
    subject = other_subject(value)
    return subject is not None and _the_writer_says_the_same(value, subject)


def _the_writers_change(content: str, writers: Sequence[str], key: str) -> bool:
    """Whether a clause of the writer's in ``content`` (``_WRITERS_CLAUSE``, not negated, no take-back)
    says a change of one of the ``writers`` values in words of its own ("…, so we moved there in August"
    over "I live in Boise": ``change_mention.mentions_a_change``, trial18 M2), or states the value with
    the verb of one ("…, so we live in Omaha now" over "I live in Denver": ``_writers_verbs``, trial19)."""
    for clause in _WRITERS_CLAUSE.finditer(content):
        words = clause.group(0).lstrip(" ,;:.!?")
        if conjunction := _conjunction(clause):
            words = words[len(conjunction) :].lstrip()
        if _negated(clause) or is_take_back(words):
            continue
        if any(mentions_a_change(words, value) for value in writers):
            return True
        verb = clause.group("verb")
        if (
            verb is not None
            and _lemma(verb) in _writers_verbs(writers)
            and not _THEM.match(clause.group("rest"))
        ):
            return True  # "My husband got transferred, so we live in Omaha now" over "I live in Denver"
        if (conjunction == "so" or clause.group("cleft")) and _a_present_value_now(clause, key):
            return True  # "My ex kept the house, so I rent in Reno now", "Mom's house is where I live now"
    return False


def _a_present_value_now(clause: re.Match[str], key: str) -> bool:
    """Whether a writer's clause after "so" or in a pseudo-cleft (``_WRITERS_CLAUSE``) states a value of
    the writer's of now on ``key``: a present verb of a value (``_VALUE_VERBS``: "so I rent in Reno now",
    "so I run the family bakery now"), "now" in its words or before the writer ("so now I rent …"), and not
    the other person again ("so I visit her now", "so I fly there a lot now"). "So I'm careful" (no verb),
    "so I avoid nuts now", "so I can relax", "so I rented …" stay a consequence or a past. A verb of eating
    (``_EATING_VERBS``) states a value only on a key of what the writer eats or drinks, and not as a manner
    alone (``_NO_DISH``)."""
    verb = clause.group("verb")
    if verb is None or verb.lower().endswith("ed") or _lemma(verb) not in _VALUE_VERBS:
        return False
    rest = clause.group("rest")
    words = {word.lower() for word in _KEY_WORDS.findall(key)}
    if _lemma(verb) in _EATING_VERBS and (
        not words & _EATING_KEYS or any(_MEDICAL_KEY.match(word) for word in words) or _NO_DISH.match(rest)
    ):
        return (
            False  # "…, so I cook nut-free now" on "user.allergies"; "so I cook separately now" (h-keys5 H1)
        )
    return bool(clause.group("now") or _PRESENT_NOW.search(rest)) and not _BACK_TO_THEM.search(rest)


_EATING_VERBS = frozenset(["eat", "cook", "drink"])
"""The value verbs (``_VALUE_VERBS``) of what the writer eats or drinks: after another person's words
("My son is allergic to nuts, so I cook nut-free now") they say the writer's diet, not the writer's
allergy, health or medicine — read only on a key of food or drink (``_EATING_KEYS``, h-keys5 H1)."""
_EATING_KEYS = frozenset(
    [
        *("diet", "diets", "dietary", "food", "foods", "eating", "cooking", "cuisine", "meal", "meals"),
        *("drink", "drinks", "drinking", "beverage", "beverages", "coffee", "tea", "milk"),
        *("breakfast", "lunch", "dinner", "nutrition"),
    ]
)
"""Key words naming what the writer eats or drinks ("user.diet", "user.coffee", "me.food_preference")."""
_MEDICAL_KEY = re.compile(
    r"^(?:allerg|condition|medic|health|intoleran|restrict|illness|disease|diagnos|symptom|sensitiv)", re.I
)
"""A key word of the writer's allergy, health or medicine ("user.food_allergies", "user.dietary_restrictions",
"user.milk_allergy"): it wins over a word of food or drink in the key (``_EATING_KEYS``), as "so I cook
nut-free now" after a relative's allergy says the writer's cooking, not the writer's allergy (h-keys6 M1)."""
_NO_DISH = re.compile(
    r"^\s*(?:for\b|at\s+home\b|(?:(?:[a-z]+ly|more|less|out|in|together|alone|again|too|a\s+lot|twice)\s+)+now\b)",
    re.IGNORECASE,
)
"""After a verb of eating, words that say how, where or for whom, and no dish or diet ("so I cook
separately now", "so I cook for the kids now", "so I eat out less now"): no value of the writer's."""


def _writers_verbs(writers: Sequence[str]) -> set[str]:
    """The verbs (plain forms) the ``writers`` values state their value with ("live" for "I live in
    Denver"), not a verb of being or having ("so I'm careful" states no value of "I'm allergic …")."""
    verbs = {_lemma(found.group(1)) for value in writers if (found := _WRITERS_VERB.match(value))}
    return verbs - {"be", "have", "am", "do", "don", "did", "was", "were", "had"}
