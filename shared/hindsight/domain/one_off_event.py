"""A one-off past event is no value of a key (trial23 M2). Pure: no I/O.

"Yesterday I flew to Porto for a conference" on ``user.city`` holding "I live in Lisbon" was stored as the
key's value and retired Lisbon, with no note. A plan ("I'm moving to Porto next month"), another person's
words and "used to" were refused on a key already (``key_statements``, ``key_subject``,
``inferred_order``); an event that happened once on a day the words name is refused the same way: it
happened, and it changed nothing the key holds.

Narrow, as those rules are: the writer (or "the user") opens the words, after at most a few words of time
("Yesterday", "Last week", "On Monday,"), with a verb of an outing (``_EVENT``: flew, visited, went to,
attended, met, travelled, spent the weekend …), and a time gone by is read from the words
(``relative_time.infer_event_time``: "yesterday", "last week", "two days ago") or given as ``occurred_at``.
Not refused: a change of the value said with it ("Yesterday I moved to Porto", "… flew to Porto and
moved into my new flat", "… where I live now": ``_CHANGED``), "went" with no place after it ("Last week I
went vegan": a change), and a key that names events or the latest of something ("user.last_trip",
"user.travel": ``EVENT_KEY``), whose value such an event is.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime

from hindsight.domain.change_mention import CHANGE
from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft
from hindsight.domain.relative_time import infer_event_time
from hindsight.domain.text import plain_apostrophes, single_spaced

_EVENT_VERB = (
    r"flew|visited|toured|attended|travell?ed|drove\s+(?:to|up|down|over)|hiked|sailed|cruised"
    r"|went\s+(?=(?:to|on|for|out|over|up|down|into|hiking|skiing|camping|shopping|swimming|sightseeing)\b)"
    r"|took\s+(?:a|an|the)\s+(?:trip|flight|train|bus|ferry|day\s+trip|tour|holiday|vacation)"
    r"|spent\s+(?:the|a|an|two|three|four|five|\d+)\s+(?:[a-z]+\s+)?"
    r"(?:days?|nights?|weekend|evening|afternoon|morning|week|hours?)\s+(?:in|at|with)"
    r"|stayed\s+(?:the\s+night|overnight)|met\s+(?:up\s+with|with)|had\s+(?:dinner|lunch|breakfast|drinks)"
    r"|saw\s+(?:a|the)\s+(?:show|concert|game|play|match|movie|film)|stopped\s+(?:by|in|at)|dropped\s+by"
)
"""Past verbs of an outing that happens once (trial23 M2: "flew to Porto"; "visited", "went to", "took a
trip", "spent the weekend in"): never a state that holds on after it. "went" only before a place or an
outing ("went vegan", "went freelance", "went back to …" may be a change); "stopped" only "by / in / at"."""
_EVENT = re.compile(
    r"^\W*(?:(?:[\w'-]+\s*,?\s+){0,4}?)(?P<who>i|we|the\s+user)\s+"
    r"(?:(?:just|finally|also|recently|briefly|quickly)\s+)?"
    rf"(?P<event>(?:{_EVENT_VERB}))",
    re.IGNORECASE,
)
"""The writer's one-off event opening the words, after at most four words of their own ("Yesterday",
"Last week", "On Monday," "My wife and"): the words quoted in the refusal."""
_CHANGED = re.compile(
    r"\b(?:now|for\s+good|anymore|any\s+more|to\s+live|to\s+stay|where\s+(?:i|we)\s+(?:now\s+)?live"
    r"|moved|moving|relocated|settled|joined|started|became|signed|bought|rented|adopted|married)\b",
    re.IGNORECASE,
)
"""Words that state a change of the value beside the event ("… and moved into a flat there", "… where I
live now", "… for good"; ``change_mention.CHANGE`` reads the rest: "left", "quit", "sold" …): the key's new
value, not an event only."""
_CLAUSE_END = re.compile(r"[,;.!?()]")
"""Where the event's clause ends: the words up to it are quoted ("… flew to Porto for a conference")."""
EVENT_KEY = re.compile(
    r"(?:^|[._:/-])(?:last|latest|recent|previous|trips?|travels?|travel\w*|visits?|events?|history|log"
    r"|journal|activit(?:y|ies)|outings?|flights?|holidays?|vacations?)(?:$|[._:/-])",
    re.IGNORECASE,
)
"""A key that names events or the latest of something ("user.last_trip", "user.travel", "user.recent_visit"):
an event is its value, and is stored."""


def check_event_on_key(draft: MemoryDraft, now: datetime) -> None:
    """Refuse a keyed semantic write whose words tell a one-off past event of the writer's (module
    docstring): dated by its words or by ``occurred_at``, with no change of the value said beside it, on a
    key that names no events (``EVENT_KEY``). As the key's value it would retire the value of now, though
    the event changed nothing. Raises InvalidInput (field ``content``) quoting the words, naming the rule
    and what to write instead (an episodic memory without the key; the change itself, if the value
    changed)."""
    if draft.layer != "semantic" or draft.key is None or EVENT_KEY.search(draft.key):
        return
    content = single_spaced(plain_apostrophes(unicodedata.normalize("NFKC", draft.content)))
    found = _EVENT.search(content)
    if found is None or _CHANGED.search(content) or CHANGE.search(content):
        return
    dated = draft.occurred_at is not None and draft.occurred_at <= now
    if not dated and infer_event_time(content, now, fact=True) is None:
        return  # "I flew to Porto": no day said; read by the rules of a past value as before
    quoted = content[: found.end()] + _CLAUSE_END.split(content[found.end() :], maxsplit=1)[0]
    raise InvalidInput(
        "content",
        f"the words tell a one-off event ({quoted.strip()!r}), not a value of key {draft.key!r}: a "
        "key holds the value that holds now, and an event that happened once changes nothing it holds, so "
        "as the key's value it would retire the value of now. Write it as an episode without the key "
        "(layer 'episodic', occurred_at when it happened); if the value changed, write the change (\"I "
        "moved to …\"), which is the key's new value",
    )
