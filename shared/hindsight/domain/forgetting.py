"""What a forget takes with it (``memory_forget``). Pure: no I/O.

A user who asks to forget (or erase, GDPR art. 17) something must not find it again in what maintenance
derived from it. Maintenance derives two kinds of memory (spec, "Forgetting and maintenance"):

- a **consolidation summary** (metadata ``consolidation``) stands for the near-identical repeats it
  archived, linked to it by ``part_of``; it keeps every identifier, number and name of each, so its text
  states what each of them says;
- an **inferred memory** (metadata ``inferred_from``, source ``agent_inferred``) quotes the preference
  statement or lesson that each piece of its evidence (linked from it by ``related``) shares.

So a derived memory quotes each of its sources, and a forget of a memory takes along, in the same
transaction and in the same way (soft: status ``forgotten`` with a history row; hard: deleted with its
relations and history):

1. forgetting a summary: its members that are not active (the archived originals it stood for; a member
   restored to active is a memory of its own again and stays);
2. forgetting a memory that is a source of a derived memory (a member of a summary, evidence of an
   inference), or that went along by rule 1: the derived memory — whether other sources remain or not,
   since its text is the forgotten text. What remains is derived again by maintenance from what remains
   (a hard-deleted inference comes back while ≥ 3 episodes still state it; a soft-forgotten one never
   does, ``maintenance.patterns``);
3. a summary that goes by rule 2 no longer stands for its other members: those still archived are made
   active again (history ``restored``), so they are found by a default search, as before they were
   consolidated.

4. a value of a key split around a bounded value inside its period is one statement in two memories (the
   one written, and its continuation, metadata ``resumes``: ``adapters.postgres.key_resume``): a forget
   of either takes the other along.

Memories the user wrote are never taken along, whatever they are linked to: only derived ones are (and
the other piece of a split value, which states the same words).

5. forgetting the middle of a chain of corrections (A superseded by B, B by C; forget B) leaves A
   superseded — C, the value after the forgotten one, still replaces it: "lives in Seattle", then
   "Tacoma", then "Portland"; with Tacoma forgotten Seattle is still not where Tom lives — and says so:
   C is linked ``supersedes`` to A (``carried_over``), so A's ``superseded_by`` names C and not nothing,
   and the forget's note names A, C and the call that restores A if it holds after all
   (``carried_over_note``; trial11 finding 2: A was left superseded by nothing, without a word). Nothing
   is restored: the forgotten value may have been wrong while C is right.
"""

from __future__ import annotations

from dataclasses import dataclass
from uuid import UUID


@dataclass(frozen=True)
class ForgottenAlong:
    """A memory a forget took along: its id and why (a sentence naming the memory it went with)."""

    id: UUID
    reason: str


def summarised_member(summary_id: UUID) -> str:
    """Rule 1's reason, for a member of the forgotten summary ``summary_id``."""
    return f"an original that summary {summary_id} stood for"


def summary_of(source_id: UUID) -> str:
    """Rule 2's reason, for a summary of the forgotten memory ``source_id``."""
    return f"a consolidation summary that states forgotten memory {source_id}"


def inferred_from(source_id: UUID) -> str:
    """Rule 2's reason, for an inferred memory with the forgotten memory ``source_id`` as evidence."""
    return f"inferred from forgotten memory {source_id}, whose statement it quotes"


def same_value(source_id: UUID) -> str:
    """Rule 4's reason, for a piece of the same value as the forgotten memory ``source_id`` (a
    continuation, or the memory a continuation continues: ``adapters.postgres.key_resume``)."""
    return f"the same value of its key as forgotten memory {source_id}, split around a bounded value"


def restored_member(summary_id: UUID) -> str:
    """Rule 3's history reason, for a member made active again."""
    return f"its summary {summary_id} was forgotten with a memory it stated"


def carried_over(forgotten_id: UUID, retired_id: UUID) -> str:
    """Rule 5's relation reason: why the successor of ``forgotten_id`` now supersedes ``retired_id``."""
    return (
        f"carried over from forgotten memory {forgotten_id}, which had superseded {retired_id} and was "
        "superseded by this memory"
    )


def _quoted(content: str) -> str:
    return repr(content if len(content) <= 120 else content[:117] + "\u2026")


def carried_over_note(successor: tuple[UUID, str], retired: list[tuple[UUID, str]]) -> str:
    """Rule 5's note on a forget: the memories the forgotten one had superseded (``retired``: id and
    content, not empty) stay superseded, now by ``successor`` (id and content), the memory that had
    superseded the forgotten one; with the call that restores each."""
    named = ", ".join(f"{i} ({_quoted(c)})" for i, c in retired)
    one = len(retired) == 1
    calls = " and ".join(f'{{"id": "{i}", "action": "restore"}}' for i, _ in retired)
    return (
        f"the forgotten memory had superseded {named} and was itself superseded by {successor[0]} "
        f"({_quoted(successor[1])}): {'it stays' if one else 'they stay'} superseded, now by "
        f"{successor[0]} (linked supersedes); if {'it still holds' if one else 'they still hold'}, make "
        f"{'it' if one else 'them'} current again with memory_update {calls}"
    )
