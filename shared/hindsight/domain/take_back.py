"""Which values of a key a write takes back, instead of replacing them all. Pure: no I/O.

A key holds one fact; after an additive write ("X is also allergic to shellfish") its values together are
that fact, and a new value replaces them all (docs/tools.md, keys). A take-back is not a new value:

- A take-back of *one* of them ("X is no longer allergic to peanuts") retires the value it negates and
  leaves the others, which nobody took back (trial4 HIGH-3). Judged per value by
  ``contradiction.compare_facts``: only its sure polarity verdict (rule 1: the frames equal, one side
  negated) names the value taken back.
- A take-back of a value the key does not hold ("X is no longer allergic to kiwi") retires nothing
  (trial6 H1): a negation names no new value. Only a take-back of everything ("X is not allergic to
  anything any more") is the key's new value, as before.
- A re-add of a value taken back ("X is allergic to peanuts again") retires that take-back only (trial6
  H2): the other values were never taken back. Told by the polarity signal, sure or not, against a value
  that is itself a take-back.
  A take-back that said a value still holds is compared by what it took back ("… no longer allergic
  to peanuts but still to shellfish": peanuts; trial11 H2: the re-add retired shellfish too).
- A restatement of a value an additive pair holds ("Turns out I am allergic to peanuts after all", "I'm
  still allergic to peanuts" with peanuts and "also shellfish") retires the statement it repeats only
  (trial11 K7): it names the same value words (``_restates``), no new value, and says nothing of the
  others — a wrong supersede hides a true value, and to end the others one writes a new value ("… only
  to peanuts now", "… nothing else"), which replaces them all. Only beside an addition: a key whose
  values are not an additive pair (a statement and an inference kept beside it) keeps its rule.
- A take-back that names a value in other words ("I no longer have a peanut allergy" over "I'm allergic to
  peanuts": the same content words by their roots, ``_same_roots``) retires it (trial23 H3: it was left
  active, where the same pair without a key was flagged). One the keyless rules read as a possible take-back
  of a value it leaves ("I no longer have a severe peanut allergy") flags it (``TakeBack.unsure``): linked
  ``contradicts`` and kept, as without a key.
- A value the write says still holds ("… no longer allergic to peanuts but still to shellfish") stays
  (trial6 MED): the words after "still" name it.
- A take-back that names no sure value but ends on a word of one ("I don't work at Acme any more", "I'm
  no longer at Acme", "I quit my job at Acme" over "I work at Acme as a designer") retires that value:
  its last word names what it takes back (``_names``; trial7 H1). One that ends on a word none holds
  ("… no longer allergic to kiwi") retires nothing, as above.
- A write that states a new value beside the value it takes back ("I live in Boulder, not Denver",
  "It's Boulder now (no longer Denver)", "I'm not vegetarian any more, I eat fish now") is no take-back
  (``states_new_value``): it is the key's new value and replaces them all, as a key's new value does
  (trial7 H1); so is one that takes up a value after "and" ("I quit Kaiser and joined Stripe": trial21 H3,
  it was kept beside the value it quit).

- A re-add ("… again") whose subject is another person named by a relation ("My son is allergic to
  peanuts again") over values that are all the writer's ("I'm allergic to peanuts") re-adds none of
  them and retires none (trial12 L1: it retired them all).

- Another person's addition beside the key owner's value ("My son is also allergic to eggs" beside "I'm
  allergic to penicillin") is left by any write not about that person (``_others_beside``; trial18 H3:
  "I'm allergic to sulfa drugs" retired the son's allergy): it was kept beside and retired nothing.
- A part that states a past ("…, the test was negative", "…, it was food poisoning") names no new value
  beside a take-back (trial18 M1).

When unsure which values a write takes back, the others stay (a wrong supersede hides a true value from
every default read; a kept one is only shown beside it). A write that takes back nothing and is no
take-back ("Rowan now runs finance, nothing else") is the key's new value as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from hindsight.domain.also_now import of_another_person
from hindsight.domain.calendar_words import MONTHS, SEASONS, WEEKDAYS
from hindsight.domain.contradiction import compare_facts, is_additive
from hindsight.domain.inferred_order import states_past
from hindsight.domain.relations import RELATION_ALT
from hindsight.domain.statement_scope import without_confirming
from hindsight.domain.text import plain_apostrophes, single_spaced
from hindsight.domain.verb_words import IRREGULAR_PAST, PAST_NOT_EVENT

_TAKE_BACK = re.compile(
    r"\bno\s+longer\b|\bnot\b|n't\b|\bnever\b|\bany\s*more\b|\bstopped\b|\bquit\b|\bgave\s+up\b", re.I
)
"""Words that make a statement a take-back (a negated state), not a new value (English only: elsewhere
the key's rule holds, as before)."""
_EVERYTHING = re.compile(r"\b(?:anything|any\s+of\s+(?:them|these|those)|at\s+all|whatsoever)\b", re.I)
"""A take-back of every value at once: the key's new value."""
_STILL = re.compile(r"\bstill\b", re.I)
"""What follows names values the write says still hold."""
_AGAIN = re.compile(r"\bagain\b", re.I)
"""A re-add word: the value held before, was taken back and holds again."""
_WHOLE = re.compile(r"\b(?:only|just|solely|exclusively|nothing\s+else|no\s+other|now)\b", re.I)
"""Words that make a value the key's whole value, or its value of now ("I'm only allergic to peanuts",
"… nothing else", "I'm allergic to peanuts now"): no restatement — the key's new value, as before."""
_JOINER = re.compile(r"[\s,;]*(?:\b(?:but|and|yet|though|although|while)\b[^,;]*)?$", re.I)
"""The words that join the take-back to its "still" clause ("…, but is"): left out of the compared
take-back."""
_PARTS = re.compile(r"\s*(?:[,;:()\[\]\u2014\u2013]|\s-+\s)\s*")
"""What separates the parts of a write that may each state a value ("Boulder, not Denver")."""
_TAKEN_UP = re.compile(
    r"\s+(?:and|but)\s+(?:then\s+)?(?:(?:i|we|he|she|they|(?-i:[A-Z])[a-z]+)\s+)?"
    r"(?:(?:now|just|then|soon|recently)\s+)*"
    r"(?=(?:joined|started|began|moved|switched|signed|became|took\s+(?:a|an|the|up)|got\s+(?:a|an|the)"
    r"|went\s+(?:to|back|over)|now\s+[a-z]+)\b)",
    re.I,
)
"""Where a clause that takes up a value begins after a take-back ("I quit Kaiser and joined Stripe", "Maria
quit Stripe and then started at Figma", "I left Acme and got a job at Globex"): a part of its own, read by
``states_new_value`` — the new value the take-back's part is silent on (trial21 H3: both were kept)."""
_QUALIFYING = re.compile(
    r"(?:which|who|whom|whose|that|where|when|because|since|as|after|before|until|till|though|although"
    r"|while|if|unless|so|for|from|in|on|at|by|with|without|per|due|thanks|according)\s",
    re.I,
)
"""A part that qualifies another ("…, which I loved", "…, since March", "…, for now"): no value of its own."""
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
_FILLER_WORDS = """i me my mine myself we us our ours you your yours he him his she her hers it its they them
    their theirs the a an this that these those there here what who one ones am is are was were be been being
    'm 're 's i'm it's he's she's we're they're you're that's there's do does did have has had having will
    would can could shall should may might must get got to of in on at by for from with without into onto
    about as than then and or but so no not longer any anymore more never quit stopped stop gave up give
    actually really just also too now today yesterday currently anyway anyhow though still yet ever already
    again instead rather well okay ok oh yes yeah sorry indeed honestly correction update days day week weeks
    month months year years ago last next recently lately these since until"""
_FILLER = frozenset(_FILLER_WORDS.split())
"""Words that name no value: pronouns, articles, verbs of being, prepositions, take-back and time
words (``_content``)."""
_CALENDAR = frozenset(MONTHS + WEEKDAYS + SEASONS)
"""A day, month or season names a value ("gym day is Monday, not Friday") but is passed over at the end
of a take-back that names something else before it ("I quit my job at Acme last March": Acme)."""
_WORD = re.compile(r"[a-z0-9]+")
_NOT_A_VALUE = frozenset({"the", "and", "but", "his", "her", "its", "their", "our", "your", "has", "have"})
"""Short function words never taken as the name of a value after "still" (words under 3 letters neither)."""


@dataclass(frozen=True)
class TakeBack:
    """How a write settles with the values of its key, by index into those values: ``retired`` — the
    values it takes back (superseded by it); ``left`` — the others, never taken back (kept active, linked
    ``related`` to it: still the key's values)."""

    retired: tuple[int, ...]
    left: tuple[int, ...]
    unsure: tuple[tuple[int, str], ...] = ()
    """Values of ``left`` the take-back may yet take back, each with the rules' reason: the keyless path's
    verdict on the pair is a possible conflict ("I no longer have a peanut allergy" beside "I'm allergic to
    shellfish, peanuts"; trial23 H3). Kept active, linked ``contradicts`` and flagged, not retired."""


def is_take_back(text: str) -> bool:
    """Whether ``text`` holds a take-back word ("no longer", "not", "stopped", "quit", …): a write that
    may leave a key's values active even when the key holds one (``taken_back`` tells)."""
    return bool(_TAKE_BACK.search(plain_apostrophes(text)))


_NAMED_RELATION = re.compile(rf"^\W*[A-Z]\w*'s\s+(?:{RELATION_ALT})\b")
"""A subject named by a relation to a named person ("Alex's son", "Sam's kids"): another person than the
one the name names (trial14 H1)."""
_CONTRACTED_STATE = re.compile(
    r"(?:a|an|the|not|no|never|also|now|still|just|always|really|very|so|too|finally|actually|currently"
    r"|been|being|got|gotten|going|getting|allergic|intolerant|vegan|vegetarian|pregnant|married|engaged"
    r"|divorced|single|retired|diabetic|at|in|on|from|with|into|away|back|home|off|out)\b"
    r"|[a-z]{2,}(?:ing|ed)\b"
)
"""What may follow a contracted "is" ("My son's allergic", "My wife's moving", "…'s a nurse", "…'s at
Lincoln High") and never a possessive's noun ("My wife's dentist", "My son's school"): an article, a
negation or adverb, a verb's participle, a state, a preposition (lower case)."""
_SUBJECT_END = re.compile(
    r"\s+(?:is|are|was|were|has|have|had|gets?|got|lives?)\b"
    rf"|(?<=\w)'(?:s|re)(?=\s+(?-i:{_CONTRACTED_STATE.pattern}))",
    re.IGNORECASE,
)
"""Where the subject ends: at its verb, or at a contracted "is" / "are" (``_CONTRACTED_STATE``): "My son's
allergic to eggs" → "my son"; "My wife's dentist is Dr. Lee" → "my wife's dentist" (hers too)."""
_PAST_VERB = "|".join(sorted((IRREGULAR_PAST - PAST_NOT_EVENT) | {"quit"}, key=len, reverse=True))
"""Irregular past forms a relation subject may open with ("My coworker left …", "My kids went …", "My
parents bought …"; "quit" is its own past)."""
_ADVERB = "now|still|currently|also|usually|always|actually|just|recently|finally|already"
"""An adverb between a relation subject and its verb ("My son always eats …"): never the verb itself ("My
furry friends always make me happy": "always" is no verb in "-s")."""
_RELATION_VERB = re.compile(
    rf"^\W*((?i:my|our)\s+(?:[a-z]+(?:\s+|-))?(?i:{RELATION_ALT})(?i:-in-laws?)?"
    rf"(?:'s?\s+(?:[a-z]+(?:\s+|-))?(?i:{RELATION_ALT})(?i:-in-laws?)?)?(?:\s+[A-Z][a-z]+)?)"
    rf"(?:\s+(?i:{_ADVERB}))?\s+(?!(?:{_ADVERB})\b)(?:[a-z]+s|has|does|[a-z]+ed|{_PAST_VERB})\b"
    r"(?!\s+(?i:me|us|i|we|that|my|our)\b)"
)
"""A relation subject at the opening and a present-tense verb ("My wife works at …", "My sister Jess drives
…", "My dad takes …", "My son has …", trial16 H1) or a past one ("My sister moved to Denver", "My parents
just bought a condo", "My coworker Dana left for Initech", "My kids went vegan": trial18 H1), the relation
after one word of its own ("My best friend works …", "My ex-wife …") or with "-in-law" ("My brother-in-law
works …"), or a relation of theirs ("My wife's brother moved …", "My boss's wife drives …": trial19), not
one of the writer's ("My boss tells me …", "My wife says I …", "… drives my car", "My boss gave me …": the
writer is in it)."""


def other_subject(text: str) -> str | None:
    """The subject words of ``text``, lower case ("my son", "our kids", "alex's son"), when it opens with
    another person named by a relation (``of_another_person``, ``_NAMED_RELATION``) before a verb of being,
    having or living, or "my/our <relation>" before any present-tense or past verb (``_RELATION_VERB``);
    None otherwise."""
    if not (of_another_person(text) or _NAMED_RELATION.match(text)):
        return None
    if verb := _RELATION_VERB.match(text):
        return verb.group(1).lower()
    end = _SUBJECT_END.search(text)
    return text[: end.start()].strip(" \t\"'(").lower() if end else None


def may_leave_values(text: str) -> bool:
    """Whether a write of ``text`` may leave a key's values active even when the key holds one
    (``taken_back`` tells): a take-back (``is_take_back``) or a re-add about another person ("My son is
    allergic to peanuts again")."""
    text = single_spaced(plain_apostrophes(text))
    return is_take_back(text) or bool(_AGAIN.search(text) and other_subject(text))


def states_new_value(text: str, values: Sequence[str] = ()) -> bool:
    """Whether ``text`` states a value beside what it takes back: a part of it between commas,
    semicolons, dashes or parentheses ("Actually I live in Boulder, not Denver", "I live in Boulder now
    (no longer Denver)", "I'm not vegetarian any more, I eat fish now") or a clause that takes up a value
    after "and" (``_TAKEN_UP``: "I quit Kaiser and joined Stripe") with no take-back word and a word
    of its own (``_content``: not a pronoun, verb of being, time word or adverb in "-ly"; "…, sadly",
    "…, since 2020" state nothing) that none of the key's ``values`` holds ("Alex, no longer allergic to
    peanuts" names no new value of a key holding "Alex is allergic to peanuts"), not a clause that only
    qualifies another ("…, which I loved")."""
    held = {word for value in values for word in _content(value)}
    parts = _PARTS.split(single_spaced(plain_apostrophes(text)))
    for part in (clause for whole in parts for clause in _taken_up_clauses(whole, values)):
        if _TAKE_BACK.search(part) or _QUALIFYING.match(part) or states_past(part):
            continue  # "…, it was food poisoning", "…, the test was negative": a past aside, no value
        if set(_content(part)) - held:
            return True
    return False


def _taken_up_clauses(part: str, values: Sequence[str]) -> list[str]:
    """``part`` split where a clause takes up a value after a take-back (``_TAKEN_UP``), when the take-back
    before it names every value the key holds (``_names``): "I quit Kaiser and joined Stripe" over "I work
    at Kaiser" replaces the one value. Otherwise ``part`` whole: a new value retires every value of the
    key, so "I'm no longer allergic to latex and got a new prescription" over penicillin and latex retired
    the penicillin allergy it never named, and "I quit smoking and joined a gym" the user's job (trial22
    H1)."""
    clauses = _TAKEN_UP.split(part)
    if len(clauses) > 1 and values and all(_names(clauses[0], value) for value in values):
        return clauses
    return [part]


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _NOT_A_VALUE}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _content(text: str) -> list[str]:
    """The words of ``text`` that may name a value, in order, lower case and a plural "s" left off: not
    a take-back word, a pronoun, an article, a verb of being, a preposition, a time word or an adverb in
    "-ly" (lower case, or first)."""
    words = [w for w in _TOKEN.findall(text) if not w.isdigit()]
    # "sadly", "Honestly, …" (a part's first word): an adverb; "Italy" within a part stays a name
    kept = (w.lower() for n, w in enumerate(words) if not ((n == 0 or w.islower()) and w.endswith("ly")))
    return [_stem(w) for w in kept if len(w) > 1 and w not in _FILLER]


def _names(take_back: str, value: str) -> bool:
    """Whether the last word that may name a value (``_content``; a calendar word only when it names
    nothing else, ``_CALENDAR``) in the parts of ``take_back`` holding a take-back word is a word of
    ``value``: "I don't work at Acme any more" names "I work at Acme as a designer"; "Sam is no longer
    allergic to shellfish" does not name "Sam is allergic to peanuts"."""
    # "Turns out I'm not allergic to shellfish after all": shellfish, not "all" (trial18 M1)
    parts = " ".join(without_confirming(part) for part in _PARTS.split(take_back) if _TAKE_BACK.search(part))
    named = _content(_TAKE_BACK.sub(" ", parts))  # "I quit my job at Acme, which I loved": Acme
    named = [word for word in named if word not in _CALENDAR] or named
    return bool(named) and named[-1] in _content(value)


_ROOT_ENDING = re.compile(r"(?:ies?|ic|ical|y|ism|ist)$")
"""Endings that make one root's noun and adjective ("allergy" / "allergic" / "allergies", whose "s"
``_stem`` left off; "vegetarianism" / "vegetarian"): left off by ``_root``."""


def _root(word: str) -> str:
    """``word`` (``_content``'s: lower case, a plural "s" left off) without an ending of ``_ROOT_ENDING``
    when four letters or more remain: "allergy", "allergic" and "allergies" meet as "allerg"."""
    rooted = _ROOT_ENDING.sub("", word)
    return rooted if len(rooted) >= 4 else word


def _same_roots(take_back: str, value: str) -> bool:
    """Whether the parts of ``take_back`` holding a take-back word name exactly the value words of
    ``value`` (``_content``, each by its ``_root``), two or more: "I no longer have a peanut allergy" names
    "I'm allergic to peanuts" in other words (trial23 H3: it was left active beside the take-back); "I no
    longer have a kiwi allergy" does not."""
    parts = " ".join(without_confirming(part) for part in _PARTS.split(take_back) if _TAKE_BACK.search(part))
    named = {_root(word) for word in _content(_TAKE_BACK.sub(" ", parts))}
    return len(named) >= 2 and named == {_root(word) for word in _content(without_confirming(value))}


_KEPT = re.compile(r"\b(?:only|just|still)\b(?P<kept>[^,;.!?]*)", re.I)
"""The words after "only / just / still" name values the write keeps ("… no longer allergic to peanuts,
just tree nuts"): never flagged as possibly taken back (h-review3 M2)."""
_LIGHT = frozenset(
    {"live", "eat", "have", "ha", "had", "do", "don", "doe", "did", "can", "get", "got", "suffer"}
)
"""Verbs that say little of their own ("I don't live alone" / "I live in Denver", "I don't eat out" / "I eat
vegan", "I no longer suffer from back pain" / "I suffer from migraines"): no shared word of a value.
``_content``'s forms: a plural "s" left off ("has" -> "ha", "does" -> "doe")."""


_BE = frozenset(
    {"be", "am", "is", "are", "was", "were", "been", "really", "even", "a", "an", "the", "my", "any"}
)
_OPENS = frozenset({"have", "has", "had", "having", "suffer", "suffers", "get", "gets", "got"})
"""What a take-back negates may open with these ("no longer have / suffer from a peanut allergy"), a
verb of being or an article (``_BE``) passed over; else it opens with a word of the value ("no longer
allergic …")."""


def _may_take_back(head: str, new: str, value: str) -> bool:
    """Whether a take-back that retired nothing may yet take back ``value``, as the keyless rules read it
    (h-review3 M2: "I don't live alone anymore" flagged "I live in Denver"): ``value`` is named after no
    "only / just / still" (``_KEPT``), ``head`` shares a word with it beyond a light verb (``_LIGHT``; each
    by its ``_root``), and what ``head`` negates opens with a light verb or a word of ``value`` ("no longer
    worried about my peanut allergy", "no longer carry an EpiPen for …" negate worry and an EpiPen)."""
    roots = {_root(word) for word in _content(value)}
    for kept in _KEPT.finditer(new):
        if {_root(word) for word in _content(kept.group("kept"))} & roots - _LIGHT:
            return False
    if not {_root(word) for word in _content(head)} & roots - _LIGHT:
        return False
    negated = _TAKE_BACK.search(head)
    after = [w for w in _WORD.findall(head[negated.end() :].lower()) if w not in _BE] if negated else []
    return bool(after) and (after[0] in _OPENS or _root(_stem(after[0])) in roots)


def _head(text: str) -> str:
    """What a take-back takes back, without the clause that says what still holds ("… no longer allergic
    to peanuts but still to shellfish": "… no longer allergic to peanuts"); ``text`` itself otherwise."""
    still = _STILL.search(text)
    if still is not None and _TAKE_BACK.search(text[: still.start()]):
        return _JOINER.sub("", text[: still.start()])
    return text


def _restates(new: str, value: str) -> bool:
    """Whether ``new`` names exactly the value words of ``value`` (``_content``, confirming words such as
    "turns out", "after all" left out): "Turns out I am allergic to peanuts after all" restates "I'm
    allergic to peanuts" (and re-adds "I'm no longer allergic to peanuts"); "I'm only allergic to
    peanuts", "I'm allergic to peanuts now" do not (``_WHOLE``)."""
    if _WHOLE.search(new):
        return False
    named = set(_content(without_confirming(new)))
    return bool(named) and named == set(_content(without_confirming(value)))


def taken_back(new: str, values: Sequence[str]) -> TakeBack | None:
    """How ``new`` (a non-additive write on a key) settles with the key's active ``values`` (their
    contents, one or more), or None when the key's rule holds — it replaces them all. Raises nothing."""
    if not values:
        return None
    new, values = single_spaced(plain_apostrophes(new)), [single_spaced(plain_apostrophes(v)) for v in values]
    subject = other_subject(new) if _AGAIN.search(new) else None
    if subject and not any(value.lower().lstrip(" \t\"'(").startswith(subject) for value in values):
        # "My son is allergic to peanuts again" on values not about the son (the user's, subjectless ones:
        # the key owner's): no re-add of theirs (trial12 L1, trial14 H1)
        return TakeBack(retired=(), left=tuple(range(len(values))))
    head, held = _head(new), set()
    still = _STILL.search(new)
    if head != new and still is not None:  # "no longer X but still Y"
        # "but still to shellfish": the words the head and every value share name no one value
        shared = set.intersection(*map(_words, values)) if len(values) > 1 else set()
        named = _words(new[still.end() :]) - _words(head) - shared
        held = {i for i, value in enumerate(values) if named & _words(value)}
    if _TAKE_BACK.search(head) and states_new_value(head, values):
        return None  # "Boulder, not Denver": the key's new value (trial7 H1)
    verdicts = [compare_facts(head, value) for value in values]
    polar = {i for i, v in enumerate(verdicts) if "polarity" in v.signals and i not in held}
    sure = {i for i in polar if verdicts[i].relation == "contradiction"}
    if _TAKE_BACK.search(head):
        if _EVERYTHING.search(head):
            retired = sure or set(range(len(values))) - held
        else:  # "I don't work at Acme any more": its last word names the value (trial7 H1)
            retired = sure or {
                i
                for i, value in enumerate(values)
                if i not in held and (_names(head, value) or _same_roots(head, value))
            }
    else:  # a re-add reverses that take-back; a restatement beside an addition replaces its statement
        readded = {i for i in polar if _TAKE_BACK.search(values[i])} | {
            i
            for i, value in enumerate(values)
            if _head(value) != value and "polarity" in compare_facts(head, _head(value)).signals
        }
        if any(is_additive(value) for value in values):
            readded |= {i for i, value in enumerate(values) if _restates(head, _head(value))}
        retired = readded or sure or set(range(len(values))) - held
    retired -= _others_beside(new, values)
    if len(retired) == len(values):
        return None
    left = tuple(i for i in range(len(values)) if i not in retired)
    # the keyless rules' flag, kept on a key: a take-back they read as one of this value, unsure
    # only when it retired nothing: one that surely retired the value it names flags no other (h-review3 M2)
    unsure = tuple(
        (i, verdicts[i].reason)
        for i in left
        if not retired
        and _TAKE_BACK.search(head)
        and verdicts[i].relation == "possible_conflict"
        and i in polar
        and _may_take_back(head, new, values[i])
    )
    return TakeBack(retired=tuple(sorted(retired)), left=left, unsure=unsure)


def added_by_another(value: str) -> str | None:
    """The subject ("my son") of ``value`` when it is another person's addition on a key ("My son is also
    allergic to eggs": additive, its subject a person named by a relation, ``other_subject``); None
    otherwise."""
    value = plain_apostrophes(value)
    return other_subject(value) if is_additive(value) else None


def _others_beside(new: str, values: Sequence[str]) -> set[int]:
    """The indexes of ``values`` that another person's addition put beside the key's own values ("My son
    is also allergic to eggs" beside "I'm allergic to penicillin"; "My sister also lives in Boise now"
    beside "I live in Boise") and that ``new`` leaves: it is not about that person (its subject, read by
    ``other_subject``, is none or another one). Such an addition was kept beside and retired nothing, so
    the key owner's next value ("I'm allergic to sulfa drugs", "I live in Meridian now") replaces the
    owner's values only (trial18 H3: it retired the son's and the sister's). Only when some value is the
    key owner's (no other person's subject): a key holding nothing but other people's words keeps its
    rule."""
    theirs = {
        i: subject for i, value in enumerate(values) if (subject := added_by_another(value)) is not None
    }
    if not theirs or all(other_subject(plain_apostrophes(value)) is not None for value in values):
        return set()
    subject = other_subject(new)
    return {i for i, theirs_subject in theirs.items() if theirs_subject != subject}
