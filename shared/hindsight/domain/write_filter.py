"""The rules-first write filter, and a rule-based entity extractor. Pure functions, no I/O.

The spec ("Write path"): not every turn is worth remembering. Triggers are an explicit preference or
constraint, a new entity (order number, project, person), a state change, a correction of the agent,
a finished task and an end-of-session summary. Cheap rules decide first; an LLM (the ``WriteJudge``
port) is asked only where the rules are unsure.

How a decision is made (``decide``):

1. Whole-message chit-chat ("thanks!", "ok", "lol", emoji only) → ``False``.
2. Every rule in ``RULES`` (one table, English) is matched; a trigger takes the weight of its
   strongest fired rule. New entities found by ``extract_entities`` fire
   the ``entity`` trigger with the weight of their kind (``ENTITY_WEIGHTS``).
3. The triggers combine by noisy-OR: ``score = 1 − Π(1 − w_t)``. Questions scale every weight by
   ``QUESTION_FACTOR``; text written by the assistant scales preference, constraint and correction
   weights by ``ASSISTANT_FACTOR`` (the agent's own "I prefer"/"actually" is not the user's).
4. ``score ≥ REMEMBER_AT`` → ``True``. Some evidence below it → ``None`` (unsure: ask the judge).
   No trigger at all: very short text or a plain question → ``False``; anything else → ``None``.

The weights are hand-set priors (not fitted): 0.9 for explicit "remember"/"from now on" phrases down
to 0.35 for a capitalised name that may be no entity at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.text import plain_quotes

Trigger = Literal["preference", "constraint", "entity", "state_change", "correction", "task_done", "summary"]
"""Why a text is worth remembering (the spec's write triggers)."""

Role = Literal["user", "assistant", "system", "tool"]
"""Who wrote the text, in chat-completions terms."""

REMEMBER_AT = 0.6
"""Combined trigger evidence from which the rules say "remember" without asking the judge."""
QUESTION_FACTOR = 0.6
"""Questions ask for facts more often than they state them."""
ASSISTANT_FACTOR = 0.5
"""The assistant's own preferences, constraints and corrections count half."""
SHORT_WORDS = 3
"""Text of at most this many words with no trigger is too short to carry a fact."""
MAX_ANALYSED_CHARS = 32_000
"""Only the first ``MAX_CONTENT_CHARS`` (32 000) characters are analysed: the longest memory content."""
MAX_VALUES_PER_KIND = 10
MAX_ENTITY_CHARS = 256
"""``domain.limits.MAX_ENTITY_VALUE_CHARS``: longer values (very long URLs) are not kept."""


@dataclass(frozen=True)
class Rule:
    """One write-trigger rule: a case-insensitive pattern, the trigger it fires and its weight (0–1)."""

    trigger: Trigger
    pattern: re.Pattern[str]
    weight: float


def _rule(trigger: Trigger, weight: float, pattern: str) -> Rule:
    return Rule(trigger, re.compile(pattern, re.IGNORECASE | re.MULTILINE), weight)


# Verbs that follow "I don't"/"don't" without stating a rule ("I don't know", "don't worry").
_NOT_A_RULE = r"(?!know\b|worry\b|mind\b|think\b|care\b|understand\b|get\b|see\b|remember\b|quite\b)"

# fmt: off
_TABLE: tuple[tuple[Trigger, float, str], ...] = (
    # --- explicit preference ----------------------------------------------------------------------
    # "I prefer window seats", "I'd rather fly early"
    ("preference", 0.85, r"\bI(?:\s+really|\s+much|\s+would|'d)?\s+(?:prefer|rather)\b"),
    # "my favourite tea is sencha", "my usual order"
    ("preference", 0.8, r"\bmy\s+(?:favou?rite|preferred|usual|go-to)\b"),
    # An agent writes down someone else's preference in the third person: "The user prefers invoices by
    # e-mail", "Dana would rather fly early", "they said they prefer tea", "the customer's usual order"
    # (memories are mostly written this way, and maintenance's episodic -> semantic patterns read these
    # rules: with the first person alone, a preference an agent recorded three times never became one)
    ("preference", 0.8,
     r"\b(?:the\s+(?:user|customer|client)s?|they|he|she|(?-i:[A-Z][a-z]+))\s+(?:really\s+|much\s+)?"
     r"(?:prefers|would\s+rather|'d\s+rather)\b|\b(?:they|the\s+(?:user|customer|client)s)\s+(?:really\s+)?"
     r"prefer\b|\b(?:their|his|her|(?:the\s+)?(?:user|customer|client)'s)\s+(?:favou?rite|preferred|usual)\b"),
    # "call me Sam"
    ("preference", 0.8, r"\b(?:please\s+)?(?:call me|address me as)\b"),
    # "I love it" is often a reaction, not a lasting preference: alone it leaves the rules unsure
    ("preference", 0.5, r"\bI\s+(?:really\s+)?(?:like|love|hate|dislike|enjoy|can't stand|cannot stand)\b"),

    # --- explicit constraint, or an instruction to remember -----------------------------------------
    # "from now on, answer in French"
    ("constraint", 0.9, r"\bfrom now on\b|\bgoing forward\b|\bin (?:the )?future\b|\bnext time\b"),
    # "remember that …", but not "do you remember …"
    ("constraint", 0.9, r"(?<!\byou\s)\bremember\b"),
    # "keep in mind the budget is 40k"
    ("constraint", 0.9, r"\bdon't forget\b|\bkeep in mind\b|\bnote that\b|\bmake a note\b|\bfor the record"),
    # health constraints: "I'm allergic to peanuts", "lactose intolerant"
    ("constraint", 0.9, r"\ballergic\b|\bintoleran(?:t|ce)\b"),
    # an imperative "don't …" / "never …" at the start of a sentence: "Don't email me after 6pm"
    ("constraint", 0.7, r"(?:^|[.!;:]\s+|\bplease\s+)(?:don't|do not|never)\s+" + _NOT_A_RULE + r"\w+"),
    # "I don't eat pork", "we never deploy on Fridays" (not "I don't know")
    ("constraint", 0.6, r"\b(?:I|we)\s+(?:don't|do not|never|can't|cannot|won't)\s+" + _NOT_A_RULE + r"\w+"),
    # "always use metric units", "never book layovers" (not "never mind")
    ("constraint", 0.6, r"\balways\b|\bnever\b(?!\s+mind\b)"),
    # "make sure to cc Dana"
    ("constraint", 0.6, r"\b(?:make sure|be sure)\s+(?:to|you|that)\b"),
    # "the deadline is Friday", "due by the 3rd"
    ("constraint", 0.6, r"\bdeadline\b|\bdue (?:on|by|date)\b|\bno later than\b"),
    # "must", "not allowed": common in passing, so alone they leave the rules unsure
    ("constraint", 0.5, r"\bmust(?:n't| not)?\b|\bnot allowed\b|\bis required\b"),

    # --- a new entity: facts about the user (ids, e-mails, names come from extract_entities) ---------
    # "my name is Dana", "my timezone is CET"
    ("entity", 0.85, r"\bmy\s+(?:name|e-?mail|phone|address|birthday|time ?zone|pronouns)\s+(?:is|are)\b"),
    # "I live in Porto", "I work for Acme"
    ("entity", 0.7, r"\bI\s+(?:live|work|am based)\s+(?:in|at|for)\b"),

    # --- state change -------------------------------------------------------------------------------
    # "order A-1042 shipped", "the PR was merged", "meeting postponed"
    ("state_change", 0.75,
     r"\b(?:shipped|delivered|dispatched|cancell?ed|refunded|returned|closed|resolved|reopened|merged|"
     r"deployed|released|approved|rejected|paid|signed|archived|deleted|launched|published|booked|"
     r"confirmed|postponed|rescheduled|promoted|hired|resigned|retired|renamed|deprecated)\b"),
    # "the office moved to Berlin", "we switched to Postgres"
    ("state_change", 0.75, r"\bmoved\s+(?:to|from|into|over)\b|\b(?:changed|switched)\s+(?:to|from)\b"),
    # "Sam is now the lead", "she's now in Lisbon", "no longer works here"
    ("state_change", 0.7, r"\b(?:is|are|was)\s+now\b|\b(?:it|he|she|they|we)'(?:s|re)\s+now\b|\bno longer\b"),
    # "status: blocked", "updated to v2"
    ("state_change", 0.6, r"\bstatus\s*(?::|is\b|changed\b)|\bupdated\s+to\b|\bnow\s+(?:works|lives|uses)\b"),

    # --- correction of the agent ----------------------------------------------------------------------
    # "that's wrong", "you're not right", "it is not what I asked"
    ("correction", 0.85,
     r"\b(?:that's|that is|this is|you're|you are|it's|it is)\s+"
     r"(?:wrong|incorrect|not (?:right|correct|true|what I))"),
    # "No, I meant the blue one", "Nope, it's Tuesday"
    ("correction", 0.85, r"^\W*(?:no|nope|wrong)\b[\s,.!-]+(?:I|it|that|the|you|it's|that's)\b"),
    # "I meant Friday", "correction: 3 pm"
    ("correction", 0.85, r"\bI\s+meant\b|\bwhat I (?:meant|said) (?:was|is)\b|\bcorrection\s*:"),
    # "you misunderstood", "you mixed up the dates"
    ("correction", 0.85, r"\byou\s+(?:misunderstood|got (?:it|that) wrong|made a mistake|mixed up|forgot)\b"),
    # "Actually, it's 3 pm", "I said Tuesday"
    ("correction", 0.6, r"^\W*actually\b|\bactually,|\bI\s+said\b"),

    # --- finished task --------------------------------------------------------------------------------
    # "the migration task is done", "export failed"
    ("task_done", 0.75,
     r"\b(?:task|job|ticket|migration|deployment|deploy|build|export|import|upload|report|run)\s+"
     r"(?:is\s+|was\s+|has been\s+)?(?:done|complete|completed|finished|failed|succeeded|successful)\b"),
    # "I've deployed the fix", "successfully migrated"
    ("task_done", 0.75,
     r"\b(?:I've|I have|we've|we have|successfully)\s+(?:finished|completed|deployed|fixed|resolved|"
     r"implemented|submitted|migrated|sent)\b"),

    # --- end-of-session summary -------------------------------------------------------------------------
    # "Session summary: …", "to summarize, …", "action items"
    ("summary", 0.9,
     r"\bsession summary\b|"
     r"\bsummary of (?:the|this|our|today's) (?:session|conversation|chat|call|meeting)\b|"
     r"\bto summari[sz]e\b|\bin summary\b|\brecap\b|\bend of (?:the )?session\b|\bkey takeaways\b|"
     r"\baction items\b|^\s*summary\s*:"),
)
# fmt: on

RULES: tuple[Rule, ...] = tuple(_rule(trigger, weight, pattern) for trigger, weight, pattern in _TABLE)
"""The write triggers, in one table (``_TABLE``: trigger, weight 0–1, case-insensitive pattern, each
with an example in a comment), compiled."""

# A whole message made of these (plus punctuation, emoji and spaces) is chit-chat.
_CHIT_CHAT = re.compile(
    r"^(?:[\W_]|thanks?|thank you|thx|ty|tysm|cheers|ok(?:ay)?|k+|lol+|lmao|rofl|(?:ha)+h?|(?:he)+|"
    r"hi|hello|hey|yo|bye|goodbye|see (?:you|ya)|good (?:morning|night|evening|afternoon)|cool|nice|"
    r"great|awesome|perfect|sure|yes|yeah|yep|yup|no|nope|nah|got it|gotcha|sounds good|np|no problem|"
    r"no worries|you're welcome|welcome|alright|all right|right|fine|good|wow|oh|ah|hm+|uh|um|oops|"
    r"sorry|please|pls|understood|agreed|exactly|indeed|of course|will do|done|never ?mind|nvm|brb|"
    r"gtg|a lot|so much|very much|much|again|too|idk|maybe|not sure|I see|I don't know|[:;]-?[()dp])+$",
    re.IGNORECASE,
)

ENTITY_WEIGHTS: dict[str, float] = {
    "ids": 0.65,  # order/ticket numbers are what agents are asked about later
    "emails": 0.65,
    "people": 0.6,
    "projects": 0.6,
    "urls": 0.4,
    "dates": 0.4,
    "names": 0.35,  # a capitalised run may be a title or a sentence start
}
"""Weight of the ``entity`` trigger by the strongest entity kind found."""


class WriteDecision(BaseModel):
    """What the rules say about one text.

    ``remember`` is True (store it), False (skip it) or None (unsure: ask the ``WriteJudge``).
    ``confidence`` (0–1): for True, the combined trigger evidence (≥ ``REMEMBER_AT``); for False, the
    strength of the rule that ruled it out; for None, the evidence so far (< ``REMEMBER_AT``).
    """

    model_config = ConfigDict(frozen=True)

    remember: bool | None
    triggers: tuple[Trigger, ...] = Field(description="Triggers that fired, strongest first.")
    confidence: float = Field(ge=0.0, le=1.0)
    reason: str = Field(description="One line: which rule decided.")
    entities: dict[str, list[str]] = Field(default_factory=dict, description="From ``extract_entities``.")


def decide(text: str, role: Role | None = None) -> WriteDecision:
    """Apply the write rules to ``text`` (written by ``role``, if known). Pure; never raises."""
    text = plain_quotes(text)[:MAX_ANALYSED_CHARS]
    if not text.strip():
        return WriteDecision(remember=False, triggers=(), confidence=1.0, reason="empty")
    if _CHIT_CHAT.match(text.strip()):
        return WriteDecision(remember=False, triggers=(), confidence=0.95, reason="chit-chat")

    strength: dict[Trigger, float] = {}
    for rule in RULES:
        if rule.pattern.search(text):
            strength[rule.trigger] = max(strength.get(rule.trigger, 0.0), rule.weight)
    entities = extract_entities(text)
    if entities:
        strength["entity"] = max(strength.get("entity", 0.0), max(ENTITY_WEIGHTS[k] for k in entities))

    question = text.rstrip().endswith("?")
    for trigger in strength:
        if question:
            strength[trigger] *= QUESTION_FACTOR
        if role == "assistant" and trigger in ("preference", "constraint", "correction"):
            strength[trigger] *= ASSISTANT_FACTOR

    triggers = tuple(sorted(strength, key=lambda t: -strength[t]))
    miss = 1.0
    for weight in strength.values():
        miss *= 1.0 - weight
    score = round(1.0 - miss, 4)

    if score >= REMEMBER_AT:
        return WriteDecision(
            remember=True,
            triggers=triggers,
            confidence=score,
            reason=f"triggers: {', '.join(triggers)}",
            entities=entities,
        )
    if triggers:
        return WriteDecision(
            remember=None,
            triggers=triggers,
            confidence=score,
            reason=f"weak triggers: {', '.join(triggers)}",
            entities=entities,
        )
    if len(text.split()) <= SHORT_WORDS:
        return WriteDecision(remember=False, triggers=(), confidence=0.8, reason="too short, no trigger")
    if question:
        return WriteDecision(remember=False, triggers=(), confidence=0.6, reason="a question, no trigger")
    return WriteDecision(remember=None, triggers=(), confidence=0.0, reason="no trigger")


# --- entity extraction ---------------------------------------------------------------------------------

_URL = re.compile(r"\bhttps?://[^\s<>\"'`]+", re.IGNORECASE)
_EMAIL = re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
_ISO_DATE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\w-])"
)
_IDS = (
    re.compile(r"\b[A-Z]{1,6}-\d{2,}(?:-\d+)*\b"),  # A-1042, INV-2024-0042, PROJ-12
    re.compile(r"(?<![\w#&])#(\d{3,})\b"),  # #12345 (stored without '#')
    re.compile(
        r"\b(?i:order|ticket|invoice|case|issue|booking|reservation|shipment|tracking)"
        r"\s*(?i:no\.?|number|num|id)?\s*[:#]?\s*(\d{4,})\b"
    ),  # order 123456, ticket no. 98765
)
_NAME_WORD = r"[A-Z][A-Za-z'-]*[a-z]"
"""A capitalised word with at least one lower-case letter: 'Alex', 'McDonald', "O'Brien"; not 'USA'."""
_NAMES = re.compile(rf"\b{_NAME_WORD}(?:(?:[ \t]+(?:of|de|van|von|der|da|del|la|le))?[ \t]+{_NAME_WORD})+\b")
_PROJECT = re.compile(
    rf"\b(?i:project)\s+(?i:called\s+|named\s+)?[\"']?({_NAME_WORD}(?:[ \t]+{_NAME_WORD})*|[A-Z][\w-]+)"
)
_PEOPLE = re.compile(
    r"\b(?i:(?:my|our)\s+(?:manager|boss|colleague|co-?worker|teammate|wife|husband|partner|son|daughter|"
    r"mother|mom|mum|father|dad|brother|sister|friend|client|customer|doctor|lawyer|assistant|lead)"
    r"(?:\s+is|\s+named|\s+called)?|my name is|call me)\s+"
    rf"({_NAME_WORD}(?:[ \t]+{_NAME_WORD})?)"
)
# Capitalised words that start sentences or greet, not names ("Thanks Alex Smith" → "Alex Smith").
_NOT_NAME_START = frozenset(
    {
        *("The", "A", "An", "I", "I'm", "My", "Our", "Your", "His", "Her", "Their", "This", "That"),
        *("These", "Those", "It", "We", "You", "He", "She", "They", "Please", "Hi", "Hello", "Hey"),
        *("Dear", "Thanks", "Thank", "Yes", "No", "Ok", "Okay", "So", "And", "But", "Or", "If", "When"),
        *("What", "Where", "Who", "Why", "How", "Can", "Could", "Would", "Should", "Will", "Do", "Does"),
        *("Did", "Is", "Are", "Was", "Were", "Let", "Also", "Then", "Today", "Tomorrow", "Yesterday"),
        *("On", "In", "At", "For", "From", "To", "With", "By", "Of", "As", "Send", "Tell", "Ask"),
        *("Call", "Email", "Remember", "Project", "Order", "Ticket"),
    }
)

# Capitalised runs that are HTTP reason phrases or headers, not names.
_NOT_NAMES = frozenset(
    {
        *("Too Many Requests", "Internal Server Error", "Service Unavailable", "Bad Gateway", "Bad Request"),
        *("Not Found", "Gateway Timeout", "Request Timeout", "Retry After", "Method Not Allowed"),
        *("Payload Too Large", "Unprocessable Entity", "Not Modified", "Moved Permanently"),
    }
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n]\s*)$")


def extract_entities(text: str) -> dict[str, list[str]]:
    """Entities named in ``text``, by kind: ``ids`` (A-1042, #12345 → "12345", "order 123456"),
    ``emails``, ``urls``, ``dates`` (ISO 8601, validated), ``people`` ("my manager Dana Wu", "call me
    Sam"), ``projects`` ("project Phoenix") and ``names`` (other capitalised multi-word runs).

    Returns a JSON-able dict with only the kinds found; values are distinct, in order of appearance,
    at most ``MAX_VALUES_PER_KIND`` per kind and ``MAX_ENTITY_CHARS`` characters each. URLs, e-mails
    and dates are masked before the other patterns run, so an id inside a URL is not an id. Pure.
    """
    text = plain_quotes(text)[:MAX_ANALYSED_CHARS]
    found: dict[str, list[str]] = {}

    def add(kind: str, value: str) -> None:
        value = value.strip()
        values = found.setdefault(kind, [])
        if (
            value
            and len(value) <= MAX_ENTITY_CHARS
            and value not in values
            and len(values) < MAX_VALUES_PER_KIND
        ):
            values.append(value)

    def mask(match: re.Match[str]) -> str:
        return " " * len(match.group(0))

    for match in _URL.finditer(text):
        add("urls", _trim_url(match.group(0)))
    text = _URL.sub(mask, text)
    for match in _EMAIL.finditer(text):
        add("emails", match.group(0))
    text = _EMAIL.sub(mask, text)
    for match in _ISO_DATE.finditer(text):
        if _valid_iso(match.group(0)):
            add("dates", match.group(0))
    text = _ISO_DATE.sub(mask, text)
    for pattern in _IDS:
        for match in pattern.finditer(text):
            add("ids", match.group(match.lastindex or 0))
    for match in _PEOPLE.finditer(text):
        add("people", match.group(1))
    for match in _PROJECT.finditer(text):
        add("projects", match.group(1))
    taken = set(found.get("people", [])) | set(found.get("projects", [])) | _NOT_NAMES
    for match in _NAMES.finditer(text):
        words = match.group(0).split()
        if _SENTENCE_START.search(text[: match.start()]) and _looks_like_verb(words[0]):
            words.pop(0)  # "Searched Skyscanner …": a step or sentence that starts with a verb
        while words and words[0] in _NOT_NAME_START:
            words.pop(0)
        name = " ".join(words)
        if len(words) >= 2 and name not in taken:
            add("names", name)
    return {kind: values for kind, values in found.items() if values}


def _looks_like_verb(word: str) -> bool:
    """A past tense or -ing form ("Searched", "Calling"); short words ("Reed", "Ming") are kept as names."""
    return len(word) > 5 and word.lower().endswith(("ed", "ing"))


def _trim_url(url: str) -> str:
    """Drop sentence punctuation after a URL; keep a closing bracket the URL itself opened."""
    while url and url[-1] in ".,;:!?)]}":
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url


def _valid_iso(value: str) -> bool:
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return False
    return True
