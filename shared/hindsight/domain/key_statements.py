"""Words that cannot be a key's value: a question, a possibility or a plan (trial9 H2).

A keyed write is the key's value of now (docs/tools.md: a key holds ONE current value) and retires the
value it replaces. "I might move to Portland next year", "We're thinking about moving to Portland", "Should I
switch from iPhone to a Pixel?" or "If I get the Globex offer I'll quit Acme" on a key holding "I live in
Seattle" / "I work at Acme" retired the value that still holds and made the question or the plan the key's
fact. Such words are refused on a key (a value we cannot read is refused, never guessed); without a key they
are stored beside the facts as any write.

English only, and only clear forms: a question mark at the end, an opening "Should I" / "Do you think" /
"What if", a conditional opening "If I"/"If we", and "might", "thinking about/of", "considering", "planning
to", "hoping to". Not "would like" or "want" (a preference is a value: "I would like my coffee black"), not
"going to" (a routine: "I'm going to the gym on Mondays"), not "will" (a change said ahead: the upcoming
value rules of ``ahead_words``).
"""

from __future__ import annotations

import re
import unicodedata

from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft

_NOT_A_VALUE = re.compile(
    r"\?\s*[\"')\]]*\s*$"
    r"|^\s*(?:should\s+(?:i|we)|do\s+you\s+think|what\s+if|if\s+(?:i|we))\b"
    r"|\bmight\b"
    r"|\b(?:thinking\s+(?:about|of)|considering|planning\s+to|plans?\s+to|hoping\s+to)\b",
    re.IGNORECASE,
)
"""A question (a closing "?", "Should I …", "Do you think …", "What if …"), a condition ("If I …") or a
possibility or plan ("might", "thinking about", "considering", "planning to", "hoping to")."""


def check_value_on_key(draft: MemoryDraft) -> None:
    """Refuse a keyed semantic write whose words ask a question or state a possibility, condition or plan
    (``_NOT_A_VALUE``): as the key's value it would retire the value of now. Only a semantic write with a
    key and no ``valid_from`` (a value said to start later is the caller's: ``upcoming``). Raises
    InvalidInput (field ``content``) quoting the words and saying what to do instead."""
    if draft.layer != "semantic" or draft.key is None or draft.valid_from is not None:
        return
    found = _NOT_A_VALUE.search(unicodedata.normalize("NFKC", draft.content).replace("\u2019", "'"))
    if found is None:
        return
    raise InvalidInput(
        "content",
        f"the words ask a question or state a possibility or plan ({found.group(0).strip()!r}), not a value "
        f"of key {draft.key!r}: as the key's value they would retire the value of now. Write it without a "
        "key (kept beside the key's fact, nothing retired), or write the value on the key once it holds "
        "(valid_from for a change that starts later)",
    )
