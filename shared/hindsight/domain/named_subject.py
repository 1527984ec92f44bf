"""One person named two ways: "My son Tom" and "Tom" (trial23 M1). Pure: no I/O.

"My son Tom is allergic to shellfish", then "Tom is no longer allergic to shellfish, he outgrew it" (no
keys) was neither superseded nor flagged: the frames' subjects differ ("my son tom" / "tom"), so the rules
read two subjects. With the same subject written both times the pair is a take-back of the old fact. A
subject that is a relation of the writer's with a name ("My son Tom", "our daughter Mia") and one that is
that name alone name one person as likely as not — another Tom is possible, so the caller (``contradiction``)
only ever flags what the aligned pair says (a wrong supersede hides a true fact from every default read).
"""

from __future__ import annotations

import re

from hindsight.domain.relations import RELATION_ALT

_NAMED_RELATION = re.compile(
    rf"^\W*(?P<subject>(?i:my|our)\s+(?:[a-z]+\s+)?(?i:{RELATION_ALT})\s+(?P<name>[A-Z][a-z]+))\b(?!')"
)
"""A relation of the writer's with a name opening the words ("My son Tom", "My little brother Sam")."""
_NAME = re.compile(
    r"^\W*(?P<name>[A-Z][a-z]+)\b(?!')(?=\s+(?:is|was|has|had|does|doesn't|isn't|no\s+longer)\b)"
)
"""A name alone opening the words before its verb ("Tom is …", "Tom has …", "Tom no longer …"); not a
possessive ("Tom's school")."""


def aligned_subject(new: str, old: str) -> str | None:
    """``new`` with its subject written as ``old`` writes it, when one opens with a relation of the
    writer's and a name (``_NAMED_RELATION``: "My son Tom") and the other with that name alone
    (``_NAME``: "Tom is …"): "Tom is no longer allergic to shellfish" against "My son Tom is allergic to
    shellfish" gives "My son Tom is no longer allergic to shellfish"; against "Tom is allergic …", "My son
    Tom is no longer …" gives "Tom is no longer …". None when they do not so name one person."""
    relation, alone = _NAMED_RELATION.match(old), _NAME.match(new)
    if relation is not None and alone is not None and relation.group("name") == alone.group("name"):
        return new[: alone.start("name")] + relation.group("subject") + new[alone.end("name") :]
    relation, alone = _NAMED_RELATION.match(new), _NAME.match(old)
    if relation is not None and alone is not None and relation.group("name") == alone.group("name"):
        return new[: relation.start("subject")] + alone.group("name") + new[relation.end("subject") :]
    return None
