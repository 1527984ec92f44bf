"""A one-off past event is no value of a key (trial23 M2). Pure: no I/O.

"Yesterday I flew to Porto for a conference" on ``user.city`` holding "I live in Lisbon" was stored as the
key's value and retired Lisbon, with no note. A plan ("I'm moving to Porto next month"), another person's
words and "used to" were refused on a key already (``key_statements``, ``key_subject``,
``inferred_order``); an event that happened once on a day the words name is refused the same way: it
happened, and it changed nothing the key holds.

Narrow, as those rules are: on a key naming where the writer lives (``RESIDENCE_KEY``: city, home,
location …), the writer (or "the user") opens the words, after at most a few words of time ("Yesterday",
"Last week", "On Monday,"), with a verb of a trip (``_EVENT``: flew, visited, went to, travelled, spent the
weekend in …), and a time gone by is read from the words
(``relative_time.infer_event_time``: "yesterday", "last week", "two days ago") or given as ``occurred_at``.
Not refused: a change of the value said with it ("Yesterday I moved to Porto", "… flew to Porto and
moved into my new flat", "… where I live now", "… so I stayed": ``_CHANGED``), "went" with no place after
it ("Last week I went vegan": a change), and a key that names events or the latest of something
("user.last_trip", "user.travel": ``EVENT_KEY``), whose value such an event is. On any other key ("user.diet",
"user.employer") a dated "went on keto", "went to work for Acme" is the change it says (h-review3 H1).
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
    r"flew|flown|visited|toured|travell?ed|drove\s+(?:to|up|down|over)|hiked|sailed|cruised"
    r"|went\s+(?=(?:to|hiking|skiing|camping|sightseeing)\b)"
    r"|took\s+(?:a|an|the)\s+(?:trip|flight|train|bus|ferry|day\s+trip|tour|holiday|vacation)"
    r"|spent\s+(?:the|a|an|two|three|four|five|\d+)\s+(?:[a-z]+\s+)?"
    r"(?:days?|nights?|weekend|evening|afternoon|morning|week|hours?)\s+(?:in|at)"
)
"""Past verbs of a trip somewhere (trial23 M2: "flew to Porto"; "visited", "went to", "took a trip",
"spent the weekend in"): the writer was away, and lives where they lived. Travel only (h-review3 H1):
"went on keto", "went on maternity leave", "went into remission", "went over to Microsoft", "met with my
doctor and got diagnosed …" are changes of a diet, a job, a health, an employer, a condition, and were
refused by the wider list of outings of 166cf5a. "went" only before "to" or a trip ("went vegan", "went
back to …" may be a change)."""
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
    r"|moved|moving|relocated|settled|joined|started|became|signed|bought|rented|adopted|married"
    r"|never\s+(?:left|came\s+back|went\s+back)"
    r"|(?:so|and)\s+(?:(?:i|we)\s+)?stayed(?!\s+(?:the\s+night|overnight|for|with|at|in\s+(?:a|an|the)\b)))\b",
    re.IGNORECASE,
)
"""Words that state a change of the value beside the event ("… and moved into a flat there", "… where I
live now", "… for good", "… so I stayed", "… and never left"; ``change_mention.CHANGE`` reads the rest:
"left", "quit", "sold" …): the key's new value, not an event only."""
_CLAUSE_END = re.compile(r"[,;.!?()]")
"""Where the event's clause ends: the words up to it are quoted ("… flew to Porto for a conference")."""
EVENT_KEY = re.compile(
    r"(?:^|[._:/-])(?:last|latest|recent|previous|trips?|travels?|travel\w*|visits?|visited|events?|history"
    r"|log|journal|activit(?:y|ies)|outings?|flights?|holidays?|vacations?|concerts?|conferences?|attended)"
    r"(?:$|[._:/-])",
    re.IGNORECASE,
)
"""A key that names events or the latest of something ("user.last_trip", "user.travel", "user.recent_visit",
"user.countries_visited", "user.concerts_attended"): an event is its value, and is stored."""
RESIDENCE_KEY = re.compile(
    r"(?:^|[._:/-])(?:city|cities|home|location|address|country|state|town|residen|neighbou?rhood|based"
    r"|lives?(?:$|[._:/-])|living|where)",
    re.IGNORECASE,
)
"""A key naming where the writer lives or is based ("user.city", "user.home_town", "user.location",
"user.based_in"): the only keys a trip is refused on (h-review3 H1). A word opens a part of the key and
may run on ("user.hometown", "user.residence"); a trip tells where the writer was, never where they live,
and a dated verb of another key's kind ("went on keto", "went to work for Acme") may be its change."""


def check_event_on_key(draft: MemoryDraft, now: datetime) -> None:
    """Refuse a keyed semantic write whose words tell a one-off past trip of the writer's (module docstring):
    dated by its words or by ``occurred_at``, with no change of the value said beside it, on a key naming
    where the writer lives (``RESIDENCE_KEY``) and no events (``EVENT_KEY``). As the key's value it would
    retire the value of now, though the trip changed nothing. Raises InvalidInput (field ``content``) quoting
    the words, naming the rule and what to write instead (an episodic memory without the key; the change
    itself, if the value changed)."""
    if draft.layer != "semantic" or draft.key is None or EVENT_KEY.search(draft.key):
        return
    if not RESIDENCE_KEY.search(draft.key):
        return  # a trip changes no diet, job or health; on those keys the verb may say the change
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
