"""When a pair the contradiction rules call sure must only be flagged (new-user trial 5). Pure: regular
expressions, no I/O. Read by ``domain.contradiction.compare_facts`` on its ``contradiction`` verdicts.

A wrong supersede retires a fact that is still true; a flag only asks. So a contradiction becomes a
``possible_conflict`` when the new text:

- asks (``question``): it ends in "?" or begins with an auxiliary ("Does Emma have piano on Fridays now?");
- moves a time, and the move is not of a standing schedule as a whole (``bounded_move``): anything but
  end punctuation or a standing word ("now", "from now on", "every week", "permanently") after the new
  time ("moved to Thursday this week", "… to Thursdays for Emma", "… to Thursdays in December", "… to
  Thursday on 2026-12-10", "… to Thursday because the teacher is sick"), a single day where the old fact
  gives a plural one ("on Tuesdays" / "moved to Thursday"), or a kind of time the old fact gives that the
  move does not repeat ("on Mondays at 10:00" / "moved to 11:00": the day would be lost);
- bounds itself in time (``bounded``): "this week", "for now", "for the holidays", "for the time being",
  "in December" (the old fact naming no month);
- names a single day where the old fact gives a plural one (``one_day``): "is now on Thursday" / "is on
  Tuesdays";
- names a date where the old fact names none, with no change word (``dated_occurrence``): "The yoga
  class is on Thursday on 2026-12-10" is one occurrence, not a new schedule;
- says how long a home has held, with no change word (``continuity``): "I have been living in New York
  since 2010" / "I live in Brooklyn", "Lena has lived in France for a decade" / "Lena lives in Paris" —
  as often the broader place as a move (new-user trial 8, H3; ``value_slots.still_holds`` reads it as
  "lives in X"). "Lena has now been living in Rome", "moved to Rome" keep the rule.

A statement that names the old value it replaces ("instead of Y", ", not Y", "switched from Y to",
new-user trial 6) is read by ``unsure_replacement``: it may retire Y only as a standing statement of
the same fact, so it only flags when it hedges (``hedged``: "might try / would use / considered / plans
to use Bitwarden instead of LastPass") or adds a qualifier the old fact lacks (``qualified``: "lives in
Rome during the week instead of Paris", "drinks tea instead of coffee in the evening"). The checks on
the frames (same verb and subject, no past act, the same old value) are ``domain.contradiction``'s.
"""

from __future__ import annotations

import re

from hindsight.domain.calendar_words import (
    DAY_PART_ALT,
    MONTH_ABBREVIATIONS,
    MONTH_ALT,
    SEASON_ALT,
    WEEK_PART_ALT,
    WEEKDAY_ALT,
)

_QUESTION = re.compile(
    r"\?\s*$|？\s*$|吗\s*[。.]?\s*$|^\W*(?:does|do|did|is|are|was|were|has|have|had|can|could|should|would|will"
    r"|shall|may|might|must|when|what|why|how|where|which|who|whether)\b",
    re.IGNORECASE,
)
"""A question: an end "?" (or 吗), or an auxiliary / question word first."""
_BOUNDED = re.compile(
    r"\b(?:this|that)\s+(?:week|weekend|month|time)\b|\bfor\s+(?:now|the\s+time\s+being|this\s+\w+)\b"
    rf"|\bfor\s+the\s+(?:holidays?|{SEASON_ALT}|season|term|semester|break)\b"
    r"|\bfor\s+(?:a|an|one|two|three|a\s+few|a\s+couple\s+of|several|some|\d+)\s+(?:days?|nights?|weeks?|months?)\b"
    r"|\b(?:just|only)\s+once\b|\btemporarily\b",
    re.IGNORECASE,
)
"""Words that bound a statement to a while: it holds then, not from now on."""
_DAY = rf"(?:{WEEKDAY_ALT})"
_MONTH = rf"(?:{MONTH_ALT}|{'|'.join(MONTH_ABBREVIATIONS)})"
_CLOCK = r"\d{1,2}(?::\d\d)?\s?[ap]\.?m\.?|\d{1,2}:\d\d|noon|midnight"
_PART = rf"(?:{DAY_PART_ALT}|lunchtime)s?"
_WEEK = rf"(?:{WEEK_PART_ALT})"
_DATE = (
    rf"\d{{4}}-\d\d-\d\d|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
)
_UNIT = (
    rf"(?:(?:the|every|each|on|at|in)\s+)*"
    rf"(?:{_DATE}|{_DAY}s?|{_WEEK}s?|{_PART}|{_CLOCK}|{_MONTH})\b"
)
"""One time of the new schedule: a date, a day or part of the week or day, a clock time, a month."""
_MORE = rf"(?:\s*(?:,|and|&|at|on|in\s+the)?\s*(?:{_DAY}s?|{_WEEK}s?|{_PART}|{_CLOCK})\b)*"
"""More of the same time after the first: another day, a part of the day, a clock time — not a date or a
month, which bound the move ("to Thursdays in December", "to Thursday on 2026-12-10")."""
_MOVE = re.compile(
    r"\b(?:moved|moves|switched|changed|shifted|rescheduled|pushed|postponed|delayed|brought)"
    rf"(?:\s+(?:back|forward|over|up))?\s+(?:to|until|till|for)\s+(?P<time>{_UNIT}{_MORE})",
    re.IGNORECASE,
)
_STANDING = re.compile(
    r"^(?:,?\s*(?:now|from\s+now\s+on|going\s+forward|permanently|for\s+good|every\s+week|each\s+week"
    r"|weekly|again))*\s*[.!]?\s*$",
    re.IGNORECASE,
)
"""What may follow a standing schedule's new time."""
_DATES = re.compile(_DATE, re.IGNORECASE)
_IN_MONTH = re.compile(rf"\b(?:in|during|over|through|for)\s+(?:the\s+month\s+of\s+)?{_MONTH}\b", re.I)
"""A month that bounds a statement ("is now on Thursdays in December"), where the old fact names none."""
_KINDS = {
    "day": re.compile(rf"\b{_DAY}s?\b|\b{_WEEK}s?\b", re.I),
    "clock": re.compile(rf"(?<![\d-])(?:{_CLOCK})(?![\d-])", re.I),
    "part": re.compile(rf"\b{_PART}\b", re.I),
    "date": _DATES,
}
"""Kinds of time a schedule gives."""
_PLURAL_DAY = re.compile(rf"\b{_DAY}s\b|\b{_WEEK}s\b|\bevery\s+{_DAY}\b", re.I)


_HEDGE = re.compile(
    r"\b(?:might|may|could|would|should|will|shall|must|can(?:not)?|ought|'d|'ll"
    r"|consider(?:s|ed|ing)?|think(?:s|ing)?\s+(?:of|about)|thought\s+(?:of|about)|tr(?:y|ies|ied|ying)"
    r"|plan(?:s|ned|ning)?|going\s+to|intend(?:s|ed)?|maybe|perhaps|possibly)\b",
    re.IGNORECASE,
)
"""Words that make a statement a possibility or a plan, not what holds now (another verb, "recommends" or
"wants", is ``domain.contradiction``'s ``other_verb``)."""
_NAMING = re.compile(
    r"\binstead\s+of\s+(?P<a>[^,.;]+)|(?:,|;)\s*(?:and\s+)?not\s+(?P<b>[^,.;]+)[.!]?\s*$"
    r"|\b(?:switched|changed|moved)\s+(?:\w+\s+)?from\s+(?P<c>[^,.;]+?)\s+to\b",
    re.IGNORECASE,
)
"""Where a statement names the old value Y it replaces: "instead of Y", a trailing ", not Y", "switched
(…) from Y to" (as ``domain.contradiction._NAMED_OLD``, which checks that Y is all the old fact says)."""
_QUALIFIER = re.compile(
    r"\b(?:during|on|at|in|for|after|before|when|whenever|if|while|every|each|until|till|unless|except"
    r"|with|by|from|to|via|sometimes|occasionally|often|mostly|usually)\b",
    re.IGNORECASE,
)
"""Words that open a qualifier (a time, a day, a place, a condition, a purpose)."""


def unsure_replacement(new: str, old: str) -> str | None:
    """The signal that makes ``new``'s replacement of the value it names (module docstring) only a flag
    on ``old`` (both as written): ``hedged``, ``qualified``; or None."""
    if any(h.group(0).casefold() not in old.casefold() for h in _HEDGE.finditer(new)):
        return "hedged"  # one the old fact has too ("would like") is the same standing statement
    had = [w.casefold() for w in _QUALIFIER.findall(old)]
    named = _NAMING.search(new)
    replaced = next((g for g in named.groups() if g), "") if named else ""
    # Y as written may carry a qualifier of its own ("instead of coffee after 6pm", "instead of by car")
    for words in (_QUALIFIER.findall(_NAMING.sub(" ", new)), _QUALIFIER.findall(replaced)):
        added = [w.casefold() for w in words]
        if any(added.count(w) > had.count(w) for w in set(added)):
            return (
                "qualified"  # "during the week", "in the evening", "on Fridays", "at work", "for the office"
            )
    return None


_CONTINUITY = re.compile(r"(?:\b(?:has|have)|'s|'ve)\s+(?:been\s+living|lived)\s+(?:in|at)\b", re.IGNORECASE)
"""How long a home has held ("has been living in", "'ve lived in"): a state, not news of a change."""


def only_flag(new: str, old: str, corrected: bool) -> str | None:
    """The signal that makes a sure contradiction of ``old`` by ``new`` (both as written; ``corrected``:
    the new text has a change word) only a possible conflict (module docstring), or None: it stands."""
    if _QUESTION.search(new.strip()):
        return "question"
    move = _MOVE.search(new)
    if move is not None and _bounded_move(new[move.end() :], move.group("time"), old):
        return "bounded_move"
    if _BOUNDED.search(new) or (_IN_MONTH.search(new) and not _IN_MONTH.search(old)):
        return "bounded"
    if not corrected and _CONTINUITY.search(new):
        return "continuity"  # "has lived in France for a decade" / "lives in Paris": maybe the broader place
    if not corrected and _DATES.search(new) and not _DATES.search(old):
        return "dated_occurrence"  # an undated fact (a schedule) and one dated occurrence
    if _one_day(new, old):
        return "one_day"
    return None


_PART_OF = re.compile(
    rf"\b(?:after|before|during|while|whenever|when|unless|except)\b|\bon\s+(?:{_WEEK}s?|{_DAY}s?)\b"
    rf"|\bin\s+the\s+{_PART}\b|\bat\s+(?:night|work|home|the\s+weekends?)\b|\bevery\s+{_DAY}\b",
    re.IGNORECASE,
)
"""Words that narrow a statement to some of the times, places or conditions it held in ("after 6pm", "on
Fridays", "in the evening", "at work", "unless …")."""


def partial_take_back(new: str, old: str) -> bool:
    """Whether a take-back ``new`` ("no longer …", "stopped …"; both texts as written) takes back only part
    of ``old``: it narrows what it negates with words ``old`` does not have ("no longer drinks coffee after
    6pm" / "drinks coffee"), or names some of ``old``'s days only ("no longer plays tennis on Mondays" /
    "plays tennis on Mondays and Fridays"). The rest of ``old`` may still hold, so it is only flagged."""
    if len(_PART_OF.findall(new)) > len(_PART_OF.findall(old)):
        return True
    days_new = {d.casefold() for d in re.findall(_DAY, new, re.IGNORECASE)}
    days_old = {d.casefold() for d in re.findall(_DAY, old, re.IGNORECASE)}
    return bool(days_new) and days_new < days_old


def _bounded_move(after: str, time: str, old: str) -> bool:
    """Whether a move to ``time`` (as written; ``after``: the rest of the text) is not one of a standing
    schedule as a whole (module docstring)."""
    if not _STANDING.match(after):
        return True  # "for the holidays", "for Emma", "because …", "on 2026-12-10", "in December"
    if _one_day(time, old):
        return True
    return any(kind.search(old) and not kind.search(time) for kind in _KINDS.values())


def _one_day(new: str, old: str) -> bool:
    """Whether ``new`` names a single day ("on Thursday") where ``old`` gives a plural one ("on Tuesdays"):
    one Thursday, maybe, not the schedule ("Thursday evenings" is one)."""
    standing = _PLURAL_DAY.search(new) or re.search(rf"(?:{DAY_PART_ALT})s\b", new, re.I)
    return bool(_PLURAL_DAY.search(old) and re.search(rf"\b{_DAY}\b", new, re.I) and not standing)
