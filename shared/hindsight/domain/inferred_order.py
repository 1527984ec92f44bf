"""When a date read from a write's own words may order it before the value that holds its key.

Valid time orders a key's values (``timetravel.takes_key``): a value that began to hold before the fact
on its key is stored as a past value of it. A date the caller gives (``valid_from``, ``occurred_at``, a
turn's ``session_at``) is the caller's word for when the value held. A date read from the text
(``relative_time.with_inferred_time``) is a guess about it: "The user moved to Berlin last month" names
when the move happened, and "The user's manager is Oscar, who joined the company last year" dates a side
clause about something else. Making the newest statement on a key a past value on such a guess would
hide the user's latest word behind an older one (new-user trial 3 HIGH), and a value we cannot interpret
is refused, never guessed.

The rule (``may_precede``): an inferred date orders a write before a value of its key only when

- its whole span ends at or before that value's start (a month that contains the other value's day
  overlaps it: no order can be read from it), and
- the sentence states a past state (``states_past``): a marker such as "used to", "previously",
  "formerly", "no longer", "back then", or a past-tense state verb ("was", "were", "lived", "worked",
  "had", …), and no present-state marker ("is", "are", "lives", "now", "currently", …) outside a "used to
  …" phrase. "moved", "joined", "started" name an event that began a state which may still hold: they
  do not count.

Otherwise the write holds its key from when its words were said (the inference's anchor: the write's
acknowledgement, or the turn's ``session_at``; ``held_from_words``), which orders it by when it was
stated; its ``occurred_at`` (what search's time filters read) stays as inferred. A supersede
(``memory_update``) is never a past value of the memory it names: an inferred date before that memory's
start yields to the anchor the same way (``supersede=True``).
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime

from hindsight.domain.calendar_words import MONTH_ALT, MONTHS, SEASON_ALT
from hindsight.domain.errors import InvalidInput
from hindsight.domain.isotime import TimeSpan
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import INFERRED_KEY, infer_event_time, recorded_anchor
from hindsight.domain.text import plain_apostrophes
from hindsight.domain.timetravel import takes_key

_PAST_STATE = re.compile(
    r"\b(?:used to|previously|formerly|no longer|not any ?more|back then|at the time|in the past"
    r"|was|were|lived|worked|stayed|studied|owned|had|belonged|reported|led|managed|ran|held|liked|loved"
    r"|preferred|wanted|needed|used)\b|以前|曾经|过去|原来|之前"
)
"""Words that state a past state (the value held then and the sentence says it no longer does, or says
nothing of now)."""
_PRESENT_STATE = re.compile(
    r"\b(?:is|are|am|has|have|lives|works|stays|owns|runs|leads|manages|reports|likes|loves|prefers|wants"
    r"|needs|now|currently|still|these days|nowadays)\b|现在|目前|如今"
    r"|\b(?:i'm|we're|you're|they're|it's|that's|there's)(?!\w)"
    r"|(?<!\bwere )(?<!\bwas )(?<!\bdid )(?<!\bhad )"
    r"\b(?:i|we|you|they)\s+(?:(?:also|still|really|actually|now|don't|do not|never)\s+)?"
    r"(?:live|work|stay|own|run|lead|manage|report)\b"
)
"""Words that state the present state: a sentence holding one speaks of now, whatever else it dates — also
a contracted "am"/"are"/"is" ("I'm", "we're", "it's"), as the words written out already were, and a
present verb of the writer's that states where they live or work ("I work", "we don't live"): "I'm not
allergic to shellfish, the test was negative" takes a value back now, its "was" is a side clause's
(trial18 M1: it was refused as a past state). Not a verb of liking or wanting ("I love", "I want"): "I
lived in Paris in 2019, I love that city" dates a past value, its "I love" comments on it."""
_USED_TO = re.compile(r"\bused to \w+")
_IN_YEAR = re.compile(r"\b(?:in|during)\s+((?:19|20)\d{2})\b")
_YEAR = re.compile(r"(?<![\w.-])\d{4}(?![\w-]|\.\w)")
"""A four-digit number standing alone; a full stop after it ends the sentence ("… in 2019.")."""


def _folded(text: str) -> str:
    """``text`` in NFKC, lower case, its typographic apostrophes plain (``plain_apostrophes``): what the
    patterns of this module read."""
    return plain_apostrophes(unicodedata.normalize("NFKC", text).lower())


def states_past(text: str) -> bool:
    """Whether ``text`` clearly states a past state (module docstring): a past-state marker and no
    present-state marker outside a "used to <verb>" phrase ("used to live" is past; "lives" is now)."""
    lowered = _folded(text)
    if not _PAST_STATE.search(lowered):
        return False
    return not _PRESENT_STATE.search(_USED_TO.sub(" ", lowered))


_LASTING_EVENT = re.compile(r"\b(?:was|were)\s+born\b")
"""A birth: a past event whose outcome lasts ("was born in May 2020", "… in Lyon"): what it says holds
now, and its date is when that began — not a past state that ended (trial6 D: "The user's daughter was
born in May 2020" on a key was refused as "a past value", and "… born in 2020" held its key for 2020
only). Other events that set a lasting value ("was hired in 2019") are left as they were: on a key
their year orders them before a value of now, which may be right."""


def states_past_state(text: str) -> bool:
    """``states_past`` on ``text`` without a birth (``_LASTING_EVENT``): "was born in 2020" states no past
    state; "lived in Oslo in 2019" does. For what a keyed fact's own
    words date (``stated_past_year``, ``stated_past_period``, ``check_undated_past``)."""
    lowered = _folded(text)
    return states_past(_LASTING_EVENT.sub(" ", lowered))


def inferred_anchor(draft: MemoryDraft) -> datetime | None:
    """When the words of ``draft`` were said, when its start is a date read from them: no ``valid_from``
    or ``valid_to`` given, and an ``occurred_at`` the recorded inference reproduces
    (``relative_time.recorded_anchor``). None: its start is the caller's (or the write time)."""
    if draft.valid_from is not None or draft.valid_to is not None:
        return None
    return recorded_anchor(draft.content, draft.metadata.get(INFERRED_KEY), draft.occurred_at)


def may_precede(draft: MemoryDraft, holder_start: datetime) -> bool:
    """Whether the date of ``draft`` may make it a past value of a value of its key holding from
    ``holder_start`` (UTC): always for a date the caller gave; for an inferred one only when its whole span
    ends by then and the words state a past state (module docstring)."""
    span = draft.event_span
    if inferred_anchor(draft) is None or span is None:
        return True
    return span.end <= holder_start and states_past(draft.content)


def held_from_words(
    draft: MemoryDraft, since: datetime, holder_starts: list[datetime], supersede: bool = False
) -> datetime | None:
    """The start a write true from ``since`` (its ``WriteJob.valid_since``) takes instead, when its start is
    an inferred date that would make it a past value of a value of its key (``holder_starts``: when each
    value it would follow began) and may not (``may_precede``; a supersede never may): the inference's
    anchor, when the words were said. None: its own start stands."""
    anchor = inferred_anchor(draft)
    if anchor is None:
        return None
    later = [start for start in holder_starts if not takes_key(since, start)]
    if not later or (not supersede and may_precede(draft, min(later))):
        return None
    return anchor if anchor > since else None


def held_from_words_reason(inferred: datetime, said: datetime, of: str) -> str:
    """The outcome's part that says a write holds from when its words were said (``said``), not from the
    date read from them (``inferred``), because that date may not make it a past value of ``of`` ("the fact
    on its key", "the fact it contradicts")."""
    return (
        f"the date read from its words ({inferred.isoformat()}) does not make it a past value "
        f"of {of}: it holds from {said.isoformat()}, when it was said"
    )


def stated_past_year(draft: MemoryDraft, holder_start: datetime) -> TimeSpan | None:
    """The year an undated keyed fact says it held in, when it clearly does and that year ended by
    ``holder_start`` (the earliest start of the values on its key): "The user lived in Paris in 2019"
    after "The user lives in Rome" — a past state (``states_past``) in one named year ("in 2019",
    "during 2019"; no other four-digit number in the text). Only for a semantic fact with a key and no
    date of its own (``valid_from``, ``valid_to``, ``occurred_at``, ``session_at``): it then orders as a
    past value of the key's holder instead of replacing it on the strength of when it was written. None
    otherwise (the relative rules read no year on a key, ``word_dates``: this is for ordering on a key
    only)."""
    dated = (draft.valid_from, draft.valid_to, draft.occurred_at, draft.session_at)
    if draft.layer != "semantic" or draft.key is None or any(d is not None for d in dated):
        return None
    text = unicodedata.normalize("NFKC", draft.content)
    named = _IN_YEAR.findall(text.lower())
    if len(named) != 1 or len(_YEAR.findall(text)) != 1 or not states_past_state(text):
        return None
    span = TimeSpan(datetime(int(named[0]), 1, 1, tzinfo=UTC), "year")
    return span if span.end <= holder_start else None


_Y = r"((?:19|20)\d{2})"
_RANGE = re.compile(
    rf"\b(?:(?:from|between)\s+{_Y}\s*(?:to|until|till|through|and|-|\u2013)\s*{_Y}|{_Y}\s*[-\u2013]\s*{_Y})\b"
)
_UNTIL = re.compile(rf"\b(?:until|till|up to)\s+(?:(?:in\s+)?({MONTH_ALT})\s+)?{_Y}\b")
_DECADE = re.compile(r"\bin\s+the\s+((?:19|20)\d0)'?s\b")
_UNDATED_PAST = re.compile(
    r"\b(?:used to|previously|formerly|back then|in the past|at the time|until recently"
    r"|once(?! (?:a|an|every|per|or|more|again|in)\b)|earlier(?! than\b)"
    r"|before (?:moving|relocating|coming|going) to|as an? (?:child|kid|teenager|teen|student|boy|girl)"
    r"|when (?:he|she|they|i|we|the user) (?:was|were) (?:young|little|a child|a kid|a teenager|a student"
    r"|in college|at school|at university)"
    r"|in (?:his|her|their|my|our|the user's) (?:teens|twenties|thirties|forties|fifties|youth|childhood)"
    r"|for (?:\d+|a few|a couple of|several|many|two|three|four|five|six|seven|eight|nine|ten)"
    r" (?:years?|months?|weeks?|decades?)"
    r"|had been \w+ing|had \w{3,}ed"
    r"|(?:was|were) (?:living|working|staying|residing|studying|renting|based))\b"
    r"|以前|曾经|过去|原来(?!就)"
)
"""Words that say a value held once, with no date, in a sentence stating a past state (``states_past``):
an undated past state ("no longer" is left out: it states what holds now; 原来就 is "all along")."""
_OLD_VALUE_LEAD = r"(?:'s|\b(?:his|her|their|my|our|its))\s+(?P<words>previous|former|old|prior|ex-|ex)"
_OLD_VALUE = _OLD_VALUE_LEAD + r"\s*(?:{nouns})s?\b"
_OLD_VALUE_LEAD_RE = re.compile(_OLD_VALUE_LEAD)
"""What every ``_OLD_VALUE`` match begins with: a text without it is not searched with the key's own
pattern, which is compiled per key (~1-3 ms each, on a write's acknowledgement path; Python's pattern cache
keeps 512 and every new key missed it)."""
_STATE_NOUNS = (
    "home ?town|home|city|town|country|address|residence|place|house|flat|apartment|job|employer|company"
    "|team|role|title|position|manager|boss|partner|wife|husband|girlfriend|boyfriend|name|school"
)
"""A value the words call the subject's old one ("The user's previous city is Lyon", "his former
employer was Acme"): "former"/"previous"/"old"/"ex-" count only on the subject's state noun (these or
the key's last word), not on any noun ("married to the former mayor", "hired as a former intern")."""
_CORRECTION = re.compile(
    r"\b(?:was|were|is|been) (?:wrong|incorrect|mistaken|a mistake|an error|in error)\b"
    r"|\bmis-?(?:recorded|stated|remembered|typed|spelled|heard)\b|\ball along\b|原来就"
)
"""Words that correct a value: "it was Rome all along" says the value of now, no past state."""
_ANY_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_SUBJECT = r"(?:he|she|they|i|we|you|the user|the family|the couple)"
_SINCE_TIME = (
    r"\bever since\b|\bsince(?=\s*(?:$|[.,;:!?)]))|\bsince(?=\s+(?:"
    r"\d|'\d{2}|then\b|last\b|early\b|late\b|mid\b|childhood|birth|infancy|youth|adolescence|forever"
    r"|always|ever\b|graduation|college|school|university|high school|kindergarten|retirement|age\b"
    r"|the (?:\d|age|war|divorce|wedding|pandemic|move|breakup|birth|death|accident|merger|layoffs?"
    rf"|beginning|start|end|early|late|mid|day|year|month|week|{SEASON_ALT})\b"
    rf"|(?:{MONTH_ALT})\b|(?:{SEASON_ALT})\b"
    rf"|(?:that|this|one) (?:day|time|year|month|week|{SEASON_ALT})\b"
    r"|(?:moving|graduating|starting|joining|leaving|retiring|marrying|arriving|returning|relocating"
    r"|coming|getting|finishing|turning)\b"
    rf"|{_SUBJECT}\s+(?:was|were)\s+(?:young|little|small|born|a\b|an\b|in\b|at\b|\d)"
    rf"|{_SUBJECT}\s+(?:moved|started|joined|graduated|left|married|retired|began|arrived|came|got"
    r"|turned|returned|relocated|finished)\b"
    r"))"
)
""""since" as a time word ("since 2015", "since childhood", "since he was a kid", "since moving", "ever
since", a bare "since" ending the clause), not as "because" ("lived in Lyon, since the rent was low":
a reason, no date) — in a past-tense sentence "since" is mostly the reason."""
_UNREAD_DATE = re.compile(
    rf"(?<!\d)(?:19|20)\d{{2}}(?!\d)|(?<!\w)'\d{{2}}\b|{_SINCE_TIME}"
    rf"|\b(?:last|that|this|the|in|during|one)\s+(?:{SEASON_ALT})\b"
    rf"|\b(?:between|from|until|till|in|during)\s+(?:{MONTH_ALT})\b"
)
"""A date in words the rules here do not read ("Lyon since 2015", "in '19", "last summer", "between March
and May"; "since" only as a time word, ``_SINCE_TIME``): in a past-state sentence on a key it must not
make the value today's, so it asks for a date."""
_FAR = datetime(9999, 1, 1, tzinfo=UTC)


def _year(value: str) -> datetime:
    return datetime(int(value), 1, 1, tzinfo=UTC)


def stated_past_period(draft: MemoryDraft, holder_start: datetime) -> tuple[datetime, datetime, str] | None:
    """The period an undated keyed fact says it held in, when its words name one with an end and a past
    state (``states_past``) and that end is at or before ``holder_start`` (the earliest start of the
    values on its key): (valid_from, valid_to, the words read). "from 2015 to 2019" / "between 2015 and
    2019" hold [2015-01-01, 2020-01-01); "until March 2024" holds the named month (its start is not said:
    only what the words vouch for is stored); "in the 1990s" holds [1990-01-01, 2000-01-01). Every
    four-digit number in the text must be in the phrase read. Same conditions as ``stated_past_year``;
    None otherwise (a range that ends after the holder began, a present-state sentence, another year)."""
    dated = (draft.valid_from, draft.valid_to, draft.occurred_at, draft.session_at)
    if draft.layer != "semantic" or draft.key is None or any(d is not None for d in dated):
        return None
    text = _folded(draft.content)
    years = len(_YEAR.findall(text))
    period: tuple[datetime, datetime, str] | None = None
    found = [(a or c, b or d) for a, b, c, d in _RANGE.findall(text)]
    if found and len(found) == 1 and len(_ANY_YEAR.findall(text)) == 2:
        first, last = int(found[0][0]), int(found[0][1])
        if first <= last:
            period = (_year(found[0][0]), datetime(last + 1, 1, 1, tzinfo=UTC), f"{first} to {last}")
    elif (until := _UNTIL.findall(text)) and len(until) == 1 and years == 1:
        month, year = until[0]
        if month:
            span = TimeSpan(datetime(int(year), MONTHS.index(month) + 1, 1, tzinfo=UTC), "month")
            period = (span.start, span.end, f"until {year}-{span.start.month:02d}")
        else:
            period = (_year(year), _year(str(int(year) + 1)), f"until {year}")
    elif (decade := _DECADE.findall(text)) and len(decade) == 1 and years == 0:
        start = int(decade[0])
        period = (_year(decade[0]), datetime(start + 10, 1, 1, tzinfo=UTC), f"the {start}s")
    if period is None or not states_past_state(text) or period[1] > holder_start:
        return None
    return period


def _old_value(text: str, key: str) -> re.Match[str] | None:
    """``_OLD_VALUE``'s match in ``text`` (lower-cased) on a state noun or a word of ``key``, or None. The
    per-key pattern is compiled only when the text has its lead (``_OLD_VALUE_LEAD_RE``): the same
    answer, without a compile for every write whose words say no "previous", "former", "old"…"""
    if _OLD_VALUE_LEAD_RE.search(text) is None:
        return None
    nouns = "|".join([_STATE_NOUNS, *(re.escape(w) for w in re.split(r"[^\w]+", key.lower()) if w)])
    return re.search(_OLD_VALUE.format(nouns=nouns), text)


def first_value_period(draft: MemoryDraft) -> tuple[datetime, datetime, str] | None:
    """The period an undated keyed fact that states a past state holds when no value holds its key (the
    key's first value, or every other one forgotten): the one year it names (``stated_past_year``: "In
    2019 the user lived in Oslo" holds [2019-01-01, 2020-01-01)) or the period it names
    (``stated_past_period``): (valid_from, valid_to, the words read). With no later value to end it, an
    undated past state would hold from when it was written on, as the key's value of now; given the
    period its words vouch for, it is a value that ended, and ``valid_at`` answers it only then. None
    when its words name neither (same conditions as those two)."""
    year = stated_past_year(draft, _FAR)
    if year is not None:
        return year.start, year.end, str(year.start.year)
    return stated_past_period(draft, _FAR)


def check_undated_past(draft: MemoryDraft, now: datetime) -> None:
    """Refuse a keyed fact whose words say it held once, with no date we read (new-user trial 2 HIGH 2,
    trial 3 HIGH 7): "The user used to live in Lyon", "previously", "once", "until recently", "earlier",
    "before moving to …", "as a child", "in his twenties", "when he was a student", "for 5 years", "had
    lived", "had been living", "was living" (``_UNDATED_PAST``) with a past-tense state verb
    (``states_past``; no present-state word outside "used to …"); "The user's previous city is Lyon",
    "old home", "ex-home town" (``_OLD_VALUE``: on the subject's state noun or the key's last word, any
    tense); or a past-state sentence with a date in words the rules do not read ("since 2015", "in '19",
    "last summer", "in the spring", "between March and May": ``_UNREAD_DATE``). A value on a key is the
    key's value from its start on; these words say it is not the value now, and give no date that could
    place it among the key's values, so storing it would either make it today's value or guess when it
    ended. Not when a date is read from the words: a relative one (read from ``now``, UTC), or a year or
    period the worker places (``stated_past_year``, ``stated_past_period``). Not a correction ("was
    wrong", "misrecorded", "all along", 原来就: ``_CORRECTION``), which says the value of now. Only a
    semantic write with a key and no ``valid_from``, ``valid_to``, ``occurred_at`` or ``session_at``.
    Raises InvalidInput (field ``content``) naming the words and asking for ``occurred_at`` (when it held;
    ``valid_to`` in an ingest line), or no key."""
    given = (draft.valid_from, draft.valid_to, draft.occurred_at, draft.session_at)
    if draft.layer != "semantic" or draft.key is None or any(d is not None for d in given):
        return
    text = _folded(draft.content)
    if _CORRECTION.search(text):
        return
    past = states_past_state(text)  # "was born in May 2020" is no past value (trial6 D)
    found = (_UNDATED_PAST.search(text) if past else None) or _old_value(text, draft.key)
    if found is None and past:
        found = _UNREAD_DATE.search(text)
    if found is None or infer_event_time(draft.content, now, fact=True) is not None:
        return
    if stated_past_year(draft, _FAR) is not None or stated_past_period(draft, _FAR) is not None:
        return
    words = found.group("words") if "words" in found.re.groupindex else found.group(0)
    raise InvalidInput(
        "content",
        f"the words say a past value of key {draft.key!r} with no date read ({words!r}): as the key's "
        "value it would replace the value of now. Give occurred_at (when it held; an ingest line may also "
        "give valid_to, when it stopped), or write it without a key",
    )


_PASSIVE = re.compile(
    r"\b(?:was|were)\s+(?:\w+ed|\w+en|held|made|set|sent|built|paid|sold|told|found|put|cut|run|led|done"
    r"|shut|hit|let|kept|left|brought|bought|thought|caught|taught|won|lost|met|read|spent|hung|struck)\b"
)
"""A passive past ("was shipped", "was moved to Friday", "were held"): an event that set the value of
now, not a past state — a supersede's words may say it ("The order was shipped" for "The order is
pending")."""


_HOLDS_NOW = re.compile(r"\b(?:no longer|not any ?more|any ?more)\b")
"""A state said to have ended ("no longer at Acme", "not with Acme any more"): what holds now, not a past
state (trial7 M3: "I no longer work at Acme" on a key was refused as a past value)."""


def only_past(content: str) -> str | None:
    """The word by which ``content`` states a past state and nothing of now (``states_past``), a passive
    past aside (``_PASSIVE``); None when it does not, corrects a value (``_CORRECTION``) or says a state
    ended ("no longer", "not any more": ``_HOLDS_NOW``, what holds now)."""
    text = _PASSIVE.sub(" ", _folded(content))
    if _CORRECTION.search(text) or _HOLDS_NOW.search(text) or not states_past(text):
        return None
    found = _PAST_STATE.search(text)
    return found.group(0) if found is not None else None


def check_past_supersede(old_content: str, draft: MemoryDraft, field: str = "content") -> None:
    """Refuse a supersede (``memory_update``) of a fact stated in the present by words that state only a
    past state, with no date given: "The user lived in Rome" replacing "The user lives in Paris". A
    supersede is never a past value of the memory it names (``held_from_words``): it would be the value
    of now from the moment it is made, and the fact of now would be retired though nothing says it
    stopped, nor when — a value we cannot interpret is refused, never guessed. Only a semantic draft with
    no ``valid_from``, ``valid_to`` or ``occurred_at`` (the caller's dates are their word), whose words
    state a past state (``only_past``: a passive past — "The order was shipped" for "The order is
    pending" says what holds now — and a correction, "was wrong", "all along", do not), of a fact whose
    words do not (a past state replacing a past state, "was born in Lyon" for "was born in Paris", is a
    correction). Raises InvalidInput naming ``field`` and the words read."""
    given = (draft.valid_from, draft.valid_to, draft.occurred_at)
    if draft.layer != "semantic" or any(d is not None for d in given):
        return
    words = only_past(draft.content)
    if words is None or states_past(old_content):
        return
    raise InvalidInput(
        field,
        f"the new words state a past state ({words!r}) and the fact they would replace states the present: "
        "as its supersede they would be the value of now, retiring that fact with no date. Give "
        "occurred_at (when it held; valid_to too, when it stopped), write it as a new memory "
        "(memory_write) to keep both, correct its words in place (action 'update'), or supersede with the "
        "value of now",
    )


def past_value_words(draft: MemoryDraft, now: datetime) -> str | None:
    """The word by which a keyed write states only a past state with no date read (``only_past``): a
    semantic write with a key, no ``valid_from``, ``valid_to``, ``occurred_at``, ``session_at`` or
    ``supersedes`` (``check_past_supersede``), not additive ("also"), and no date the rules read from its
    words (relative, from ``now``; a year or period the worker places). Such a write takes its key from
    when it is written: ``check_past_value_on_key`` asks whether that would retire a value of now. None
    otherwise."""
    given = (draft.valid_from, draft.valid_to, draft.occurred_at, draft.session_at, draft.supersedes)
    if draft.layer != "semantic" or draft.key is None or any(d is not None for d in given):
        return None
    words = only_past(draft.content)
    if words is None or re.search(r"\b(?:also|too|as well)\b", draft.content.lower()):
        return None
    if infer_event_time(draft.content, now, fact=True) is not None or first_value_period(draft) is not None:
        return None
    return words


def check_past_value_on_key(draft: MemoryDraft, words: str, values: list[str]) -> None:
    """Refuse a keyed write whose words state only a past state with no date (``past_value_words`` gave
    ``words``) when a value on its key states the present (``values``: the contents of the key's active
    values): "The user lived in Rome" after "The user lives in Paris" on key user.city would take the key
    as of now and retire Paris, though nothing says Paris stopped, nor when Rome held. Nothing is refused
    when every value on the key states a past state too ("was born in Lille" for "was born in Lyon": a
    correction) or the key has none. Raises InvalidInput (field ``content``) naming the words."""
    if all(states_past(value) for value in values):
        return
    raise InvalidInput(
        "content",
        f"the words state a past state ({words!r}) with no date read, and the value on key {draft.key!r} "
        "states the present: as the key's value they would replace it as of now, with no date. Give "
        "occurred_at (when it held), or write it without a key",
    )


def undated_past_over_present(draft: MemoryDraft, old_content: str) -> bool:
    """Whether ``draft``, with no date of its own (no ``valid_from``, ``valid_to``, ``occurred_at`` or
    ``session_at``, none read from its words), states only a past state (``only_past``) where
    ``old_content`` states the present: "The user's city was Rome" after "The user's city is Paris". Held
    from when it was written it would retire the fact of now though nothing says that stopped — a
    contradiction found between the two is at most a possible conflict (both kept, flagged)."""
    dated = (draft.valid_from, draft.valid_to, draft.occurred_at, draft.session_at)
    if draft.layer != "semantic" or any(d is not None for d in dated):
        return False
    return only_past(draft.content) is not None and not states_past(old_content)
