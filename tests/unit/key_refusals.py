"""What the domain says of a keyed write in another person's words: the one helper the subject tests
share (test_trial18_subjects, test_trial19_subjects, test_review_dec7_keys, test_trial20_subjects)."""

from __future__ import annotations

from collections.abc import Sequence

from hindsight.domain.errors import InvalidInput
from hindsight.domain.key_subject import check_other_person_on_key, other_persons_subject
from hindsight.domain.memory import MemoryDraft


def other_person_refusal(content: str, key: str, values: Sequence[str]) -> str | None:
    """The refusal of ``content`` written on ``key`` holding ``values`` as another person's words, as
    ``"field <field>: <message>"``; None when the write is admitted (no other person's subject, or one whose
    words would retire none of the writer's values)."""
    draft = MemoryDraft(content=content, key=key)
    subject = other_persons_subject(draft)
    if subject is None:
        return None
    try:
        check_other_person_on_key(draft, subject, values)
    except InvalidInput as refused:
        return f"field {refused.field}: {refused}"
    return None


def refused_as_other_person(content: str, key: str, values: Sequence[str]) -> bool:
    """Whether ``other_person_refusal`` refuses the write."""
    return other_person_refusal(content, key, values) is not None
