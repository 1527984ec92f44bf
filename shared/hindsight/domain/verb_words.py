"""English verb word lists the contradiction rules read (``domain.contradiction``): data only, no logic,
so the rules' module imports them without a cycle."""

from __future__ import annotations

IRREGULAR = {
    "has": "have",
    "had": "have",
    "having": "have",
    "ate": "eat",
    "drank": "drink",
    "spoke": "speak",
    "wrote": "write",
    "taught": "teach",
    "knew": "know",
    "went": "go",
    "goes": "go",
}
"""Irregular forms → the form the frame keeps (``contradiction._stem``)."""

AUXILIARIES = frozenset(
    [
        "have",
        "has",
        "had",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "must",
        "might",
        "do",
        "does",
        "did",
    ]
)
PRONOUNS = frozenset(["i", "we", "they", "you", "he", "she"])
IRREGULAR_PAST = frozenset(
    [
        *IRREGULAR,
        "became",
        "began",
        "bought",
        "brought",
        "built",
        "came",
        "chose",
        "drove",
        "flew",
        "forgot",
        "found",
        "gave",
        "got",
        "grew",
        "held",
        "kept",
        "knew",
        "led",
        "left",
        "lost",
        "made",
        "meant",
        "met",
        "paid",
        "put",
        "ran",
        "rode",
        "said",
        "sat",
        "saw",
        "sent",
        "slept",
        "sold",
        "spent",
        "stood",
        "swam",
        "taught",
        "thought",
        "told",
        "took",
        "understood",
        "went",
        "woke",
        "won",
        "wore",
    ]
)
"""Common irregular past forms (besides ``IRREGULAR``'s): verbs without a regular ending."""
PAST_STATES = frozenset(
    [
        *("lived", "worked", "stayed", "liked", "loved", "preferred", "owned", "had", "used", "knew"),
        *("wanted", "needed", "belonged", "studied", "taught", "kept", "held"),
    ]
)
"""Past forms of verbs that tell a state that held then ("lived in Paris", "worked at Globex", "had a
dog"), not an event: the past-event rule leaves them to the changed-value rule (a past value of a state is
what the valid-time ordering of a contradiction reads)."""
PAST_NOT_EVENT = frozenset(["has", "having", "goes", "was", "were"])
"""Forms in ``IRREGULAR``/``IRREGULAR_PAST`` that are no past tense (or a copula)."""
DETERMINERS = frozenset(
    ["the", "a", "an", "my", "our", "your", "his", "her", "their", "its", "this", "that", "these", "those"]
)
"""Words after which a word ending in -s or -ed is a noun or an adjective, not the verb ("my cats",
"the user's retired father": also after a possessive)."""
