"""How "also … now" on a key is read where its words alone do not say (``contradiction.is_additive``). Pure:
regular expressions, no I/O.

A reason given for an addition is not a change of the key's value: "I also use Outlook now, since work moved
to Microsoft 365" keeps the key's old value — the "moved" is the employer's, in a clause that says why
(trial11, finding 1: it retired the value). ``without_reason`` cuts such a clause before the change words of
``is_additive`` are looked for. A reason the writer gives about their own doing ("…, since I left Acme")
may be the change of the key's value itself: it is kept.
"""

from __future__ import annotations

import re

_REASON = re.compile(
    r"(?:,\s*|\s+)(?:because|since|now\s+that|given\s+that|due\s+to)\s+(?P<clause>.*)$"
    r"|,\s*as\s+(?P<as_clause>.*)$",
    re.IGNORECASE | re.DOTALL,
)
"""A reason clause after the statement: "…, since …", "… because …", "…, now that …", "…, as …" (only
after a comma: "works as a nurse" is no reason)."""
_WRITER = re.compile(r"^\s*(?:i|we|i'm|we're|i've|we've|i'd|we'd|me|us)\b", re.IGNORECASE)
"""A clause whose subject is the writer: what they did may be the change itself."""


def without_reason(text: str) -> str:
    """``text`` without a reason clause after its statement (``_REASON``) whose subject is not the writer
    ("I also use Outlook now, since work moved to Microsoft 365" → "I also use Outlook now"); as written
    when there is none, or when the writer is its subject ("…, since I left Acme": kept)."""
    found = _REASON.search(text.replace("\u2019", "'"))
    if found is None:
        return text
    clause = found.group("clause") if found.group("clause") is not None else found.group("as_clause")
    if _WRITER.match(clause):
        return text
    return text[: found.start()]
