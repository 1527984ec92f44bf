"""Words that cannot be a key's value: a question, a possibility or a plan (trial9 H2).

A keyed write is the key's value of now (docs/tools.md: a key holds ONE current value) and retires the
value it replaces. "I might move to Portland next year", "We're thinking about moving to Portland", "Should I
switch from iPhone to a Pixel?" or "If I get the Globex offer I'll quit Acme" on a key holding "I live in
Seattle" / "I work at Acme" retired the value that still holds and made the question or the plan the key's
fact. Such words are refused on a key (a value we cannot read is refused, never guessed); without a key they
are stored beside the facts as any write.

English only, and only how the write opens (``_NOT_A_VALUE``, after a time ahead: "Next month I'm going to
…"). Not "would like" or "want" (a preference is a value: "I would like my coffee black"; only "want to",
"would like to" and a verb of change is a plan), not "going to" a place (a routine: "I'm going to the gym
on Mondays", "… to work by bike"; "I'm going to" / "gonna" and a verb, or "going to work at Globex", is a
plan), not "will" but with a verb of change ("I'll move to Portland next month" is a plan; "I'll try
anything once" a value), not a present progressive but of moving, or of a change with a time ahead ("I'm
starting at Globex next week"; "I'm working at Globex" is a value: trial14 found these plans retired the
value), not a conditional instruction ("If I'm late, text me"). A value that holds only from a time ahead
is refused as a plan is ("I will be 40 in March", "From next week the standup is at 10": trial16; "I
start at Globex next Monday", "Starting in January I work at Globex": trial17; "I'm going vegan in January",
"My last day at Globex is Friday", "Initech starts on the 5th", "Come March we'll be …": trial18, a change
whose clause names a time ahead or a day or month of no year, ``_scheduled``; the caller writes the value
once it holds, with ``occurred_at`` when it starts — memory_write takes no ``valid_from``, trial18 M3).
Not a plan: a habit ("I'm going to work at Acme by bike these days", "I will work from home on Fridays")
or a discourse opening ("I'm gonna be honest, …": the words after it are read). The refusal names the
kind of words it read (a question, a condition, a possibility, a plan, a
value from a time ahead: trial11 finding 6, "We are planning to have no more kids" was refused as "a
question or a possibility or plan"); a plan or a value ahead on a key that names plans ("user.plans") is
that key's value.
"""

from __future__ import annotations

import re
import unicodedata

from hindsight.domain.calendar_words import DAY_PART_ALT, MONTH_ALT, SEASON_ALT, UNIT_ALT, WEEKDAY_ALT
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.named_dates import calendar_names
from hindsight.domain.planned_words import points_ahead
from hindsight.domain.text import plain_apostrophes, single_spaced
from hindsight.domain.word_dates import past_tense

_GOING_PLACES = (
    r"the|a|an|my|our|his|her|their|your|this|that|these|those|some|work|school|college|uni|university"
    r"|church|mass|bed|sleep|class|classes|practice|therapy|lunch|dinner|breakfast|brunch|town|yoga|gym"
)
"""What "I'm going to" goes to in a routine or a place ("I'm going to the gym on Mondays", "… to bed at
11", "… to work by bike"): no plan. A plan is "going to" and a verb in lower case ("I'm going to move to
Portland"), not a name ("I'm going to Lisbon every summer")."""
_CHANGE_VERBS = (
    r"move|relocate|switch|change|quit|leave|buy|sell|start|stop|try|learn|visit|travel|go|become|retire"
    r"|marry|adopt|get\s+(?:married|divorced|engaged)"
)
"""What "I want to" does that is a plan of a change ("I want to move to Portland"), not a preference
("I want to be called Sam", "I want the vegetarian one": a value)."""
_GOING = r"(?:going\s+to|gonna)"
""""going to" and its spoken form "gonna" (trial14: "I'm gonna move to Portland" retired the value)."""
_SOON = r"(?:(?:also|soon|finally|officially|then|eventually|really)\s+)?"
"""An adverb between the subject and the verb of a plan ("I'll soon move", "We're finally moving")."""
_WILL_CHANGE = (
    r"move|relocate|switch|change|quit|leave|start|stop|join|work|retire|transfer|become|buy|sell|marry"
    r"|adopt|get\s+(?:married|divorced|engaged)"
)
"""A change "I will / I'll" says ahead ("I'll move to Portland next month", "We will start at Globex"):
a plan, not the value of now (trial14). Narrower than ``_CHANGE_VERBS``: "I'll try anything once", "I'll
go anywhere for sushi" say how the writer is, not what they will do."""
_CHANGING = (
    r"moving|relocating|starting|switching|changing|quitting|leaving|joining|retiring|transferring|working"
    r"|migrating|upgrading|getting\s+(?:married|divorced|engaged)|closing|buying|selling|beginning"
    r"|going(?!\s+to\b)"
)
"""A change in the present progressive ("I'm starting at Globex next week", "We're migrating to Postgres
next quarter", "I'm going vegan in January", "We're closing on a house on the 15th": trial18 H4): a plan
when a time ahead or one not placed is named (``_PROGRESSIVE``, ``_scheduled``); "moving" / "relocating"
always (``_NOT_A_VALUE``). "going" but "going to" (a plan of its own, or a routine: ``_GOING_PLACES``)."""

_SURELY_AHEAD = (
    r"(?:(?:from|starting(?:\s+from)?|beginning|as\s+of|effective)\s+)?"
    rf"(?:(?:next|this\s+coming)\s+(?:week|weekend|month|quarter|year|{SEASON_ALT}|{WEEKDAY_ALT})"
    r"|tomorrow|later\s+this\s+(?:week|month|quarter|year))"
)
"""A time that can only lie ahead ("next week", "From next week", "Starting tomorrow", "later this
year"): a value after it starts later, whatever its verb (``_NOT_A_VALUE``'s ``future``). Not "in June",
"on Monday", "in two weeks", "from June": "In June I moved to Denver" is past."""
_AHEAD_OPENING = (
    rf"(?:{_SURELY_AHEAD}|soon|someday|one\s+day"
    rf"|come\s+(?:{MONTH_ALT}|{WEEKDAY_ALT}|{SEASON_ALT}|(?:the\s+)?new\s+year|next\s+(?:{UNIT_ALT}))"
    rf"|in\s+(?:a|an|a\s+few|a\s+couple\s+of|\d+|two|three|four|five|six)\s+(?:{UNIT_ALT})s?"
    rf"|(?:in|on|by|from)\s+(?:{MONTH_ALT}|{WEEKDAY_ALT}))\s*,?\s+"
)
"""A time ahead that opens the write before its subject ("Next month I'm going to move to Portland",
"Tomorrow, I'll start at Globex": trial14; "Come March we'll be …": trial18); the opening is read after it
as without it."""
_ASIDE = re.compile(
    r"^\s*(?:(?:(?:i(?:'m|\s+am)\s+)?(?:going\s+to|gonna)|i(?:'ll|\s+will)|to|let\s+me)\s+be\s+"
    r"(?:honest|frank|real|clear|fair|straight|blunt|upfront|truthful)(?:\s+with\s+you)?"
    r"|honestly|frankly|truthfully)\s*[,:;.!\u2013\u2014-]*\s+",
    re.IGNORECASE,
)
"""A discourse opening, not a plan (trial16: "I'm gonna be honest, I still live in Denver" was refused as a
plan): "I'm going to / gonna be honest / frank / real …", "I'll be honest", "To be honest", "Honestly".
The words after it are read as the write ("I'm gonna be honest, I'm moving to Portland" is a plan)."""
_HABIT = re.compile(
    rf"\b(?:these\s+days|nowadays|usually|normally|always|daily|most\s+days|(?:every|each)\s+(?:day|morning"
    rf"|evening|week|weekday|weekend|{WEEKDAY_ALT})|(?:on\s+)?(?:weekends|weekdays|(?:{WEEKDAY_ALT})s)"
    r"|by\s+(?:bike|bicycle|car|bus|train|tube|subway|metro|tram|scooter)|on\s+foot)\b",
    re.IGNORECASE,
)
"""Words of a habit or a standing arrangement ("these days", "every day", "by bike", "on Fridays", "on
weekends"): "I'm going to work at Acme by bike these days" and "I will work from home on Fridays" say how
things are, no plan (trial16: both refused by 8fd0036), unless a time ahead is named too."""
_NOT_A_VALUE = re.compile(
    rf"^\s*(?:{_AHEAD_OPENING})?(?:"
    r"(?P<question>(?:should|shall)\s+(?:i|we)\b|do\s+you\s+think\b|what\s+if\s+(?:i|we)\b"
    r"|(?:do|does|did|can|could|would|will|is|are|am)\s+(?:i|we|you|my|our)\b[^?\"']*\?\s*$)"
    r"|(?P<condition>if\s+(?:i|we)\b[^.;]*\b(?:i|we)(?:'ll|\s+will|'d|\s+would)\b)"
    r"|(?P<possibility>(?:maybe|perhaps)\b|(?:i|we)\s+(?:might|may|could)\b"
    r"|i\s+think\s+(?:that\s+)?(?:i|we)\b(?!\s+(?:should|must|ought\s+to|need\s+to|have\s+to)\b)"
    r"|(?:i\s+(?:guess|believe|suppose)|probably)\s+(?:that\s+)?(?:i|we)\b"
    r"|(?:i|we)(?:'m|'re|\s+am|\s+are)\s+(?:thinking\s+(?:about|of)|considering|weighing)\b)"
    r"|(?P<plan>(?:i|we)(?:'m|'re|\s+am|\s+are)\s+(?:planning|intending|hoping)\s+to\b"
    rf"|(?P<unless_habit>(?:i|we)(?:'m|'re|\s+am|\s+are)\s+{_GOING}\s+work"
    r"(?=\s+(?:(?:at|for)\s+(?-i:[A-Z])|as\b))"
    rf"|(?:i|we)(?:'ll|\s+will|\s+shall)\s+{_SOON}(?:be\s+(?:{_CHANGING})|(?:{_WILL_CHANGE}))\b)"
    rf"|(?:i|we)(?:'m|'re|\s+am|\s+are)\s+{_GOING}\s+(?!(?:{_GOING_PLACES})\b)(?=(?-i:[a-z]))"
    rf"|(?:i|we)(?:'m|'re|\s+am|\s+are)\s+{_SOON}(?:moving|relocating)\b"
    r"|(?:i|we)\s+(?:(?:also|still|really)\s+)?(?:plan\s+(?:to|on)|intend\s+to|hope\s+to)\b"
    rf"|(?:i|we)(?:'d|\s+would)\s+(?:(?:also|still|really)\s+)?(?:like|love)\s+to\s+(?:{_CHANGE_VERBS})\b"
    rf"|(?:i|we)\s+(?:(?:also|still|really)\s+)?want\s+to\s+(?:{_CHANGE_VERBS})\b)"
    r")",
    re.IGNORECASE,
)
"""How a question, a condition or a possibility or plan OPENS a keyed write ("Should I …", "Do you think …",
"What if I …", a whole question to the user or the agent ("Do you think …?", "Can I …?"), "If I get the
offer I'll …", "Maybe …", "I might/may/could …", "I'm thinking about / considering / weighing …", "I think
I/we …" (trial12 M2; not "I think we should/must/ought to/need to/have to …": an opinion or a rule is a
value, trial14), "I guess/believe/suppose (that) I/we …", "Probably I/we …" (trial14 H3; "I believe in
God" is a value), a plan: "I'm planning / hoping / intending to …", "I'm going to <verb>", "I/we plan
to / plan on / intend to / hope to …", "I want to <a change>" — trial12 H2: "I'm going to move to Portland
next month", "We plan to move to Portland" and "I plan to visit Mars" retired the value of now; trial14:
"I'm gonna …", "I'll / I will (be) <a change>", "I'd like to <a change>", "I'm going to work at Globex",
"I'm / we're moving or relocating …" — ambiguous between a plan and a move under way, and either way not
where the writer lives yet). Only at
the start: a value that carries a hedge or a title later ("I'm vegetarian, though I might eat fish", "My
favourite book is 'Who Moved My Cheese?'", "I prefer aisle seats, considering my bad knee", "If I'm late,
text me instead of calling") is a value (trial10 M1: the first version refused 15 of 22 such ordinary
keyed values)."""

_PROGRESSIVE = re.compile(
    rf"^\s*(?P<ahead>{_AHEAD_OPENING})?(?P<plan>(?:i|we)(?:'m|'re|\s+am|\s+are)\s+{_SOON}(?:{_CHANGING})\b)"
    r"(?!(?:(?<=starting)|(?<=working)|(?<=beginning))\s+to\b)",
    re.IGNORECASE,
)
"""A change in the present progressive that opens the write ("I'm starting at Globex …", "We're leaving
Acme …", "I'm switching to Neovim …"; not "I'm starting to like jazz"): a plan when its clause or an
opening names a time ahead (``_NAMED_AHEAD``, ``points_ahead``), a value otherwise ("I'm working at
Globex", "I'm working at Globex these days", "I'm working at Globex, which will open an office in
Lisbon")."""
_NAMED_AHEAD = re.compile(
    rf"\b(?:soon|shortly|(?:on|in|from)\s+(?:{WEEKDAY_ALT}|{MONTH_ALT})\b(?!s)|next\s+quarter"
    r"|later\s+this\s+(?:week|month|quarter|year)|in\s+(?:the\s+)?(?-i:Q)[1-4]\b)",
    re.IGNORECASE,
)
"""A time ahead in a present progressive or after "will" besides those of ``planned_words.points_ahead``
("next week", "tomorrow", "in two weeks", "this Friday"): "soon", "on Friday", "in June" (not "on
Fridays", a routine), "next quarter", "later this year", "in Q3" (trial16)."""
_WILL = re.compile(
    rf"^\s*(?P<ahead>{_AHEAD_OPENING})?(?P<future>(?:i|we)(?:'ll|\s+will|\s+shall)\s+{_SOON}(?!not\b|have\b)[a-z]+\b)",
    re.IGNORECASE,
)
""""I / we will / 'll / shall <verb>" that opens the write ("I will be 40 in March", "I'll be in Lisbon
tomorrow", "I'll get a Pixel next month", "I'll be living in Lisbon from June"): a value ahead of its
time when its clause names a time ahead (trial16: each retired the value of now), a value otherwise ("I'll
try anything once")."""
_DATE_OF_A_DAY = (
    r"(?:is|will\s+be)\s+(?:my|our|his|her|their|the\s+user's|[\w-]+'s)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:birthday|anniversary|name\s?day)\b"
)
"""The time is the subject, and what it is a day that comes back every year ("Tomorrow is my birthday",
"Next Friday is our 10th anniversary"): the words date the day, whose date does not move — a value of
now, as "My birthday is tomorrow" is (keys15: the one was refused, the other stored)."""
_FUTURE_OPENING = re.compile(
    rf"^\s*(?P<future>{_SURELY_AHEAD})\s*,?\s+(?!(?:i|we)(?:'ll|\s+will)\s+have\b|{_DATE_OF_A_DAY})",
    re.IGNORECASE,
)
"""A write that opens with a time that can only lie ahead ("From next week the standup is at 10",
"Starting tomorrow my rent is $2000"): the value starts later (trial16: it retired "Standup is at 9").
Not a future perfect ("Tomorrow I'll have lived in Denver for a year": a value of now), nor the date of a
day that comes back (``_DATE_OF_A_DAY``: "Tomorrow is my birthday")."""

_STARTS = r"start|begin|join|leave|move|close|switch|relocate|quit"
"""A change in the present simple that says when it happens ("I start at Globex next Monday", "We close on
the Denver house next month"): a value from a time ahead when its clause names one (trial17: each retired
the value of now), a habit otherwise ("I start work at 9 every day", "I leave work at 5")."""
_PRESENT_CHANGE = re.compile(
    rf"^\s*(?P<ahead>{_AHEAD_OPENING})?(?P<future>(?:i|we)\s+{_SOON}(?:{_STARTS}))\b(?!-)", re.IGNORECASE
)
""""I / we start / join / close …" that opens the write (``_STARTS``; not "started", "joined")."""
_AND_CHANGE = re.compile(
    rf"^\s*(?P<future>(?:i|we)\b[^.;!?]*?\band\s+{_SOON}(?:{_STARTS}))\b(?!-)", re.IGNORECASE
)
""""I … and start / join …" ("I've accepted an offer from Globex and start in January", trial17): the
change after "and", read as ``_PRESENT_CHANGE``."""
_STARTING_ON = re.compile(
    rf"^\s*(?P<future>(?:starting|beginning)\s+(?:(?:in|on|from)\s+)?(?:{MONTH_ALT}|{WEEKDAY_ALT})\b(?!s))",
    re.IGNORECASE,
)
"""A write that opens "Starting in January / on Monday …" ("Starting in January I work at Globex",
trial17): a value from a time ahead unless its words are past ("Starting in January I worked at …");
"Starting next week …" is ``_SURELY_AHEAD``'s."""

_ENDS = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|but|so)\s+|(?=\b(?:my|our|then)\s))(?P<future>(?P<day>(?:my|our)\s+"
    r"(?:last|final|first)\s+(?:day|shift|week)\b)"
    rf"|(?P<then>then\s+(?:i|we)\s+{_SOON}(?:{_STARTS})\b)"
    r"|(?:(?:my|our|the|his|her|their)\s+)?(?:[\w'-]+\s+){0,4}?(?:starts|begins|kicks\s+in)\b)",
    re.IGNORECASE,
)
"""A start said of a thing in the present simple ("Initech starts on the 5th", "My new job begins after New
Year"), the writer's last or first day ("My last day at Globex is Friday"), or the writer's change after
"then" ("Our lease in Fremont ends in February and then we move to Denver"): a value from a time ahead
when its clause names when (``_scheduled``; after "then", the words before it may: the time the change
follows), a standing fact otherwise ("Work starts at 9 every day", "My shift starts at 7 on weekdays").
Not an end ("My lease ends in February", "The insurance ends in June": a fact of now about a time
ahead, which holds now)."""
_QUIT = re.compile(r"\bquit$", re.IGNORECASE)
"""The one verb of ``_STARTS`` whose past is its present: only a time that can only lie ahead makes it one
ahead (``points_ahead``: "next month", "tomorrow"), not "in January", "on Monday"."""
_EVERY = re.compile(r"\b(?:every|each)\b", re.IGNORECASE)
"""A recurring time ("every January", "each year"): a habit beside ``_HABIT``'s, no time ahead."""

_CLAUSE_END = re.compile(r"[,;:.!?()]|\s[-–—]\s|\b(?:which|who|that|because|since|and|but|while)\b", re.I)
"""Where the clause of a progressive change ends: its time ahead is read before it."""

_TRAILING_HEDGE = re.compile(
    r"(?P<possibility>(?:,\s*(?:(?-i:maybe)|perhaps|probably|i\s+(?:think|believe|suppose|guess))"
    r"|\((?:maybe|probably)\))\s*+[.!?]*+)\s*+$",
    re.IGNORECASE,
)
"""A hedge that ENDS a keyed write after a comma ("I live in Portland now, maybe", "…, I think"): a
possibility as "Maybe …" is (trial12 M2: it retired the value of now); also ", probably",
", I believe/suppose/guess" and "(maybe)", "(probably)" (trial14 H3). Only after a comma or in brackets,
at the end; "maybe" only in lower case (trial14: "My favourite song is Call Me, Maybe" ends with a
title's word). No alternative opens with whitespace and the closing runs are possessive: the bracket's
alternative used to open with a whitespace run, so a search tried it from every position of a run,
re-reading the run to its end each time (~2 s for a 32,000-character keyed write of spaces,
``bench/regex_worst.py``); a match now starts at its comma or bracket, which ``check_value_on_key``
quotes stripped all the same."""


_WHAT = {
    "question": ("ask a question", "a question holds no value"),
    "condition": ("say what would happen under a condition", "what would happen does not hold yet"),
    "possibility": ("state a possibility", "a possibility does not hold yet"),
    "plan": ("state a plan", "a plan does not hold until it is carried out"),
    "future": ("state a value from a time ahead", "a value that starts later does not hold yet"),
}
"""How the refusal names each kind of opening of ``_NOT_A_VALUE`` (its group names), and why it is no
value of now."""
_LEAD = re.compile(r"^[\s,;:]*(?:(?:and|then|but|so)\s+)?", re.IGNORECASE)
"""What a match may hold before the words it quotes ("; Initech starts")."""
PLAN_KEY = re.compile(r"(?:^|[._:/-])(?:plans?|goals?|intentions?|wish(?:es)?)(?:$|[._:/-])", re.IGNORECASE)
"""A key that names plans or goals ("user.plans", "family.plans.kids", "user.goals"): a plan is its value
of now, and is stored (trial11 finding 6)."""


def check_value_on_key(draft: MemoryDraft) -> None:
    """Refuse a keyed semantic write whose words open with a question, a condition, a possibility or a plan
    (``_NOT_A_VALUE``, ``_TRAILING_HEDGE``, ``_PROGRESSIVE``) or state a value from a time ahead (``_WILL``,
    ``_FUTURE_OPENING``, ``_present_change``), read after a discourse opening (``_ASIDE``): as the key's value
    it would retire the value of now. Only a semantic write with a key and no ``valid_from`` (a value said to
    start later is the caller's: ``upcoming``); a plan or a value ahead on a key that names plans
    (``PLAN_KEY``: "user.plans") is its value and stored. Raises InvalidInput (field ``content``) naming the
    kind of words and quoting them, the rule (a key holds the value that holds now) and what to do instead.
    The words are read with each whitespace run as one character (``text.single_spaced``)."""
    if draft.layer != "semantic" or draft.key is None or draft.valid_from is not None:
        return
    read = single_spaced(plain_apostrophes(unicodedata.normalize("NFKC", draft.content)))  # runs read as one
    content = _ASIDE.sub("", read, count=1)
    found = (
        _opening(content)
        or _TRAILING_HEDGE.search(content)
        or _ahead_in_clause(_PROGRESSIVE, content)
        or _ahead_in_clause(_WILL, content)
        or _FUTURE_OPENING.search(content)
        or _present_change(content)
        or _scheduled_change(content)
    )
    ahead = found is not None and found.lastgroup in ("plan", "future")
    if found is None or (ahead and PLAN_KEY.search(draft.key)):
        return
    what, why = _WHAT[found.lastgroup or "question"]
    plans = ", on a key that names plans ('user.plans': a plan is its value)" if ahead else ""
    quoted = (_LEAD.sub("", found.group(0)) if found.re is _ENDS else found.group(0)).strip()
    raise InvalidInput(
        "content",
        f"the words {what} ({quoted!r}), not a value of key {draft.key!r}: a key holds the "
        f"value that holds now and {why}, so as the key's value it would retire the value of now. Write it "
        "without a key (kept beside the key's fact, nothing retired)"
        f"{plans}, or write the value it will have once it holds, with occurred_at when it starts (stored "
        "as upcoming: it holds the key from then)",
    )


def _opening(content: str) -> re.Match[str] | None:
    """How ``content`` opens (``_NOT_A_VALUE``), None for a value; "going to work at <Name>" and "I will
    <a change>" are no plan when their clause tells a habit and names no time ahead ("… by bike these
    days", "I will work from home on Fridays": ``_HABIT``)."""
    found = _NOT_A_VALUE.search(content)
    if found is None or found.group("unless_habit") is None:
        return found
    clause = _clause_after(found, content)
    return found if _ahead(clause) or not _HABIT.search(clause) else None


def _ahead_in_clause(opening: re.Pattern[str], content: str) -> re.Match[str] | None:
    """The match of ``opening`` (``_PROGRESSIVE``, ``_WILL``) when a time ahead opens the words or is
    named in the opening's own clause ("I'm starting at Globex next week", "I will be 40 in March"); None
    otherwise."""
    found = opening.search(content)
    if found is None:
        return None
    # the time is the change's own: "I'm working at Globex, which will open in Lisbon" is no plan
    if found.group("ahead") or _scheduled(_clause_after(found, content)):
        return found
    return None


def _clause_after(found: re.Match[str], content: str) -> str:
    """The words after ``found`` up to the end of its clause (``_CLAUSE_END``)."""
    return _CLAUSE_END.split(content[found.end() :], maxsplit=1)[0]


def _ahead(clause: str) -> bool:
    """Whether ``clause`` names a time ahead (``points_ahead``, ``_NAMED_AHEAD``)."""
    return points_ahead(clause) or _NAMED_AHEAD.search(clause) is not None


_NOT_PLACED = frozenset(("named", "holiday", "short", "ordinal"))
"""The calendar names (``named_dates.calendar_names``) that give a day or month of no year: said of a change
in the present ("My last day at Globex is Friday", "We're closing on a house on the 15th", "I start after
New Year") they name when it will happen, a time the write's own time cannot stand for."""
_AFTER_A_TIME = re.compile(
    rf"\b(?:after|over)\s+the\s+(?:holidays|holiday\s+season|break|new\s+year|{SEASON_ALT})\b", re.IGNORECASE
)
"""A time after a period to come ("after the holidays", "over the summer"): no day we can place."""
_BEFORE_A_NAME = re.compile(r"\b(?:since|last|until|till|through|as\s+of|ago)\s*$", re.IGNORECASE)
"""Words before a calendar name that make it a time gone by or a bound ("since March", "last Friday", "as
of January"): no time the change lies ahead at."""
_PLURAL_DAY = re.compile(
    rf"\b(?:{WEEKDAY_ALT})s\b|\b(?:{WEEKDAY_ALT})\s+(?:{DAY_PART_ALT})s\b|\bweekends?\b", re.IGNORECASE
)
"""A day that recurs ("on Fridays", "Saturday mornings", "weekends"): a standing time, not one ahead."""


def _scheduled(clause: str) -> bool:
    """Whether ``clause``, the words after a change said in the present, names when the change will be: a
    time ahead (``_ahead``), or a day or month of no year (``_NOT_PLACED``: "on Friday", "on the 15th",
    "in February", "after New Year") or a period to come (``_AFTER_A_TIME``), not after "since" or "last"
    (``_BEFORE_A_NAME``), and no habit (``_HABIT``, "every", "on Fridays": trial18 H4)."""
    if _HABIT.search(clause) or _EVERY.search(clause) or _PLURAL_DAY.search(clause):
        return False
    if _ahead(clause) or _AFTER_A_TIME.search(clause):
        return True
    cased = unicodedata.normalize("NFKC", clause)
    return any(
        kind in _NOT_PLACED and not _BEFORE_A_NAME.search(cased[:start])
        for start, _, kind in calendar_names(cased)
    )


def _present_change(content: str) -> re.Match[str] | None:
    """A change in the present simple from a time ahead (trial17): "I start at Globex next Monday", "In
    January I join Globex", "I've accepted an offer from Globex and start in January" (``_PRESENT_CHANGE``,
    ``_AND_CHANGE``: a time ahead opens the words or is named in the change's clause, and it tells no habit:
    "I start at 8 on weekdays", "I leave for Florida every January"), "Starting in January I work at
    Globex" (``_STARTING_ON``, no past verb after it); None otherwise."""
    for opening in (_PRESENT_CHANGE, _AND_CHANGE):
        found = opening.search(content)
        if found is None:
            continue
        clause = _clause_after(found, content)
        opened = found.group("ahead") or "" if "ahead" in opening.groupindex else ""
        if _QUIT.search(found.group("future")):
            # "quit" is its own past: "I quit Acme in January" is past, "I quit Acme next month" ahead
            if points_ahead(opened) or points_ahead(clause):
                return found
        elif opened or _scheduled(clause):
            return found
    found = _STARTING_ON.search(content)
    if found is not None and not past_tense(content[found.end() :]):
        return found
    return None


def _scheduled_change(content: str) -> re.Match[str] | None:
    """A change said of a thing in the present simple, or the writer's last or first day (``_ENDS``), whose
    clause names when it will be (``_scheduled``) and tells no past ("was", "ended": trial18 H4); None
    otherwise."""
    for found in _ENDS.finditer(content):
        clause = _clause_after(found, content)
        if found.group("then") is not None:
            clause = f"{content[: found.start()]} {clause}"  # "… ends in February and then we move …"
        if found.group("day") is not None and not re.match(r"\s*(?:[\w'-]+\s+){0,3}?(?:is|'s)\b", clause):
            continue  # "My last day at Globex was Friday": a past event
        if _scheduled(clause) and not past_tense(clause):
            return found
    return None
