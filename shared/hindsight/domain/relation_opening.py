"""A write's opening read as "my <relation>" when it names another person otherwise (trial19). Pure: no I/O.

``key_subject`` reads another person's words on the writer's key only when they open with "my/our
<relation>" ("My mom lives in Tampa now"). Trial19 found the same person's words admitted as the writer's
value when the opening said it otherwise:

- a bare kin word, which names the writer's own ("Mom lives in Tampa now", "Dad drives …", "Grandpa went
  keto"; capitalised, as a name is);
- "the" and a household word ("The kids live in Reno with their dad", "The twins got Pixel 8 phones");
- "both/all (of) my" ("Both my kids are allergic to peanuts": read as an addition, "both");
- a few fronted words before "my <relation>": a time ("Last week", "Yesterday", "Since last month", "In
  March"), a discourse word ("So", "Honestly", "Turns out", "Guess what", "The big news is that").

``as_relation_opening`` returns the text with that opening rewritten ("my mom lives in Tampa now", "my
kids live in Reno …", "my sister-in-law started at Globex"), the rest as written; otherwise the text
unchanged. The fronted words are a closed list: a word of the writer's before the relation ("I told my
sister …", "Thanks to my sister, I …") is never passed over, and "Mom and I …", "The kids and I …" stay
the writer's (read as "my mom and I": ``also_now.with_the_writer``). Names and pronouns ("Jake …",
"He …") are not read: an agent may write of the user by name or pronoun. English only.
"""

from __future__ import annotations

import re

from hindsight.domain.calendar_words import MONTHS, SEASONS, WEEKDAYS
from hindsight.domain.relations import RELATION_ALT

_BARE_KIN = re.compile(
    r"^(?P<lead>\W*)(?=(?:Mom|Mum|Dad|Mother|Father|Grandma|Grandpa|Granny|Grandmother|Grandfather)\b"
    r"(?!'s\s+(?i:day)\b)(?!-)(?!\s+[a-z]+\s+(?:are|is|were|was)\b))"
)
"""A capitalised bare kin word at the opening ("Mom lives …", "Dad's moving …"): the writer's mother or
father, as "my mom" would say; not "Mother's Day", nor a kin word that qualifies the noun after it ("Dad
jokes are my favorite", "Mom jeans are my style now", "Dad bod is …", "Mom-and-pop shops …": trial20).
"Mom and I …" is read too: "my Mom and I" is the writer's (``also_now.with_the_writer``)."""
_THE_USERS = re.compile(
    rf"^(?P<lead>\W*)(?:(?i:the)\s+)?(?i:user)'s\s+(?=(?:[\w-]+\s+)?(?i:{RELATION_ALT})\b)"
)
"""An agent's note of the user's relation ("The user's mother lives in Tampa", "User's wife works at
Globex"): another person's words, as "my mother …" would be (trial20 H1)."""
_HOUSEHOLD = "kids|children|twins|grandkids|grandchildren|in-laws"
_THE_HOUSEHOLD = re.compile(rf"^(?P<lead>\W*)(?i:the)\s+(?=(?i:{_HOUSEHOLD})\b)")
""""The kids", "The twins": the writer's household, as "my kids" would say (not "the baby": "The baby
shower …")."""
_NUMBER = "two|three|four|five|2|3|4|5"
_ALL_OF_MY = re.compile(
    rf"^(?P<lead>\W*)(?i:both|all)(?:\s+(?i:{_NUMBER}))?(?:\s+(?i:of))?\s+(?=(?i:my|our)\s)"
)
""""Both my kids", "All three of my kids": the relation is the subject ("both" is no addition here)."""
_TIME_WORD = "|".join((*MONTHS, *WEEKDAYS, *SEASONS, "week", "weekend", "month", "year", "night", "morning"))
_FRONTED_PART = (
    r"(?:yesterday|today|tonight|recently|lately|finally|now|so|and|well|oh|also|anyway|actually|honestly"
    r"|apparently|btw|fyi|update|news|fun\s+fact|guess\s+what|(?:it\s+)?turns\s+out(?:\s+that)?"
    r"|(?:the\s+)?(?:big|good|great|bad|sad|latest)\s+news(?:\s+is)?(?:\s+that)?"
    rf"|(?:last|this|next|since\s+last|since|as\s+of|starting|in|on|over\s+the)\s+(?:past\s+)?(?:{_TIME_WORD}|\d{{4}})"
    r"|(?:a\s+(?:few|couple(?:\s+of)?)|two|three|\d+)\s+(?:days|weeks|months|years)\s+ago)"
)
_FRONTED = re.compile(
    rf"^(?P<lead>\W*)(?:(?i:{_FRONTED_PART})[\s,:;!.\u2014\u2013-]+){{1,4}}(?=(?i:my|our|the|both|all)\s|"
    r"(?:Mom|Mum|Dad|Grandma|Grandpa)\b)"
)
"""Fronted words before the subject ("Last week my sister …", "Honestly the big news is that my husband
…", "So my brother …"): a closed list of time and discourse words, no word of the writer's."""


def as_relation_opening(text: str) -> str:
    """``text`` (plain apostrophes) with an opening that names another person by a bare kin word, "the
    kids", "both my kids", "the user's <relation>" or after fronted words rewritten as "my <relation> …"
    (module docstring); the rest as written. ``text`` unchanged when its opening is none of these."""
    if users := _THE_USERS.match(text):
        return users.group("lead") + "my " + text[users.end() :]
    fronted = _FRONTED.match(text)
    if fronted is not None:
        text = fronted.group("lead") + text[fronted.end() :]
    for opening in (_ALL_OF_MY, _THE_HOUSEHOLD):
        if found := opening.match(text):
            rest = text[found.end() :]
            return found.group("lead") + ("" if opening is _ALL_OF_MY else "my ") + rest
    if found := _BARE_KIN.match(text):
        return found.group("lead") + "my " + text[found.end() :]
    return text
