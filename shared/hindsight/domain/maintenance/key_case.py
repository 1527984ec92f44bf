"""What the maintenance step ``key_case`` did on one scope: keys brought to their stored form and how the
values that met on a key because of it were settled.

Keys are stored and compared in one form (``domain.limits.key_form``; migration 029 lowered every key
stored before it). A key the old code still stored as written while a deploy was under way ("User.Home",
after 029 ran, before the new code served) would stay out of sight of the new code's comparisons; the step
applies 029's rule to it (``hindsight_settle_key_case``, migrations 030, 031), and the write path's
``key_resume`` split where the key's fact is a bounded value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyCaseCounts:
    """One scope's ``key_case`` work: ``lowered`` memories whose key was brought to its stored form; of the
    active values of another spelling on a key they joined, ``superseded`` (past values of the key's fact),
    ``kept`` (a user statement beside a later inference, linked ``contradicts``) and ``related`` (beside a
    fact that adds, "also …"); ``resumed``: values that hold again after a bounded fact (continuations)."""

    lowered: int = 0
    superseded: int = 0
    kept: int = 0
    related: int = 0
    resumed: int = 0

    def as_counts(self) -> dict[str, int]:
        """The non-zero counts, by name (a step report's ``counts``)."""
        return {name: n for name, n in vars(self).items() if n}
