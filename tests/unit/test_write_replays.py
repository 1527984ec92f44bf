"""Idempotency keys bound to their write's arguments, and redaction reported in the write's answer
(issue 12, item 7), over in-memory fakes of our own ports."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest

from hindsight.domain.auth import Principal
from hindsight.domain.errors import IdempotencyKeyReused, Unavailable
from hindsight.domain.memory import MemoryDraft, write_fingerprint
from hindsight.domain.redaction import Redactor, redact_model
from hindsight.ports import IdempotencyRecord
from hindsight.usecases.remember import Remember
from tests.unit.fakes import ListQueue

pytestmark = pytest.mark.anyio
ALICE = Principal(tenant_id="acme", key_id="k1")
T0 = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


class StepClock:
    """Each call is a day later than the one before."""

    def __init__(self) -> None:
        self.calls = 0

    def now(self) -> datetime:
        self.calls += 1
        return T0 + timedelta(days=self.calls - 1)


class DictRecords:
    """The IdempotencyRecords port in a dict (``down``: every claim raises Unavailable)."""

    def __init__(self, down: bool = False) -> None:
        self.records: dict[tuple[str, UUID], IdempotencyRecord] = {}
        self.down = down

    async def claim(
        self, tenant_id: str, job_id: UUID, record: IdempotencyRecord
    ) -> IdempotencyRecord | None:
        if self.down:
            raise Unavailable("records down")
        first = self.records.get((tenant_id, job_id))
        if first is None:
            self.records[(tenant_id, job_id)] = record
        return first

    async def release(self, tenant_id: str, job_id: UUID) -> None:
        self.records.pop((tenant_id, job_id), None)


def test_the_fingerprint_ignores_argument_order_defaults_and_the_key_itself() -> None:
    a = MemoryDraft.model_validate(
        {"content": "Invoice 881 was paid", "tags": ["billing"], "idempotency_key": "k"}
    )
    b = MemoryDraft.model_validate(
        {
            "tags": ["billing"],
            "layer": "semantic",
            "content": "Invoice 881 was paid",
            "idempotency_key": "other",
        }
    )
    assert write_fingerprint(a, False) == write_fingerprint(b, False)
    assert write_fingerprint(a, False) != write_fingerprint(a, True)
    changed = a.model_copy(update={"content": "Invoice 881 was refunded"})
    assert write_fingerprint(a, False) != write_fingerprint(changed, False)
    assert write_fingerprint(a, False) != write_fingerprint(a.model_copy(update={"importance": 0.9}), False)


def test_session_at_is_one_instant_however_its_offset_is_written() -> None:
    def print_of(session_at: str, content: str = "Mia: I adopted a cat") -> str:
        draft = MemoryDraft.model_validate(
            {"content": content, "conversation_id": "chat-7", "session_at": session_at}
        )
        return write_fingerprint(draft, False)

    assert print_of("2026-03-01T10:00:00+02:00") == print_of("2026-03-01T08:00:00Z")
    assert print_of("2026-03-01T08:00:00+00:00") == print_of("2026-03-01T08:00:00Z")
    assert print_of("2026-03-01T10:00:00+02:00") != print_of("2026-03-01T09:00:00Z")
    # the same instant on another local day: relative words count from that day, another write
    assert print_of("2026-03-01T01:00:00+02:00") != print_of("2026-02-28T23:00:00Z")


async def test_a_replay_gets_the_first_answer_and_different_arguments_are_refused() -> None:
    queue, records = ListQueue(), DictRecords()
    remember = Remember(queue, StepClock(), idempotency=records)
    draft = MemoryDraft(content="Invoice 881 was paid", idempotency_key="inv-881")
    first = await remember(ALICE, None, draft)
    again = await remember(ALICE, None, draft)
    assert (again.id, again.submitted_at, again.replayed) == (first.id, first.submitted_at, True)
    assert first.replayed is None
    assert [j.submitted_at for j in queue.jobs] == [T0, T0]  # the replay's job is the first one again
    with pytest.raises(IdempotencyKeyReused) as refused:
        await remember(ALICE, None, draft.model_copy(update={"content": "Invoice 882 was paid"}))
    assert refused.value.field == "idempotency_key"
    assert refused.value.details() == {"id": str(first.id)}
    assert len(queue.jobs) == 2  # nothing queued for the refused call
    # another agent's key is another write
    other = await remember(ALICE, "billing-bot", draft.model_copy(update={"content": "Invoice 882 was paid"}))
    assert other.id != first.id
    assert other.replayed is None


async def test_a_replay_from_another_key_is_admitted_as_the_first_write_was() -> None:
    queue, records = ListQueue(), DictRecords()
    remember = Remember(queue, StepClock(), idempotency=records)
    trusted = ALICE.model_copy(update={"key_id": "k2", "trusted": True})
    draft = MemoryDraft(content="Invoice 881 was paid", importance=0.9, source="agent_inferred")
    capped = draft.model_copy(update={"idempotency_key": "inv-881"})
    first = await remember(ALICE, None, capped)
    again = await remember(trusted, None, capped)  # the first was capped: so is its replay
    kept = await remember(trusted, None, draft.model_copy(update={"idempotency_key": "inv-882"}))
    kept_again = await remember(ALICE, None, draft.model_copy(update={"idempotency_key": "inv-882"}))
    assert (first.importance_capped_from, again.importance_capped_from) == (0.9, 0.9)
    assert (kept.importance_capped_from, kept_again.importance_capped_from) == (None, None)
    assert [j.draft.importance for j in queue.jobs] == [0.5, 0.5, 0.9, 0.9]


async def test_a_key_whose_first_write_was_not_queued_is_free_again() -> None:
    records = DictRecords()
    draft = MemoryDraft(content="Invoice 881 was paid", idempotency_key="inv-881")
    with pytest.raises(Unavailable):
        await Remember(ListQueue(fail=True), StepClock(), idempotency=records)(ALICE, None, draft)
    assert records.records == {}
    ack = await Remember(ListQueue(), StepClock(), idempotency=records)(
        ALICE, None, draft.model_copy(update={"content": "Invoice 881 was refunded"})
    )
    assert ack.replayed is None


async def test_unreadable_records_do_not_stop_a_write() -> None:
    queue = ListQueue()
    draft = MemoryDraft(content="Invoice 881 was paid", idempotency_key="inv-881")
    ack = await Remember(queue, StepClock(), idempotency=DictRecords(down=True))(ALICE, None, draft)
    assert ack.status == "queued"
    assert len(queue.jobs) == 1


async def test_the_answer_names_what_redaction_replaced() -> None:
    queue = ListQueue()
    remember = Remember(queue, StepClock())
    ack = await remember(
        ALICE, None, MemoryDraft(content="Mail maya@example.com or call +44 20 7946 0958", tags=["contact"])
    )
    assert ack.redacted == ["email", "phone"]
    assert "[REDACTED:email]" in queue.jobs[0].draft.content
    clean = await remember(ALICE, None, MemoryDraft(content="Maya prefers e-mail"))
    assert clean.redacted is None


def test_redact_model_collects_rule_names_from_every_field() -> None:
    found: set[str] = set()
    draft = MemoryDraft(content="nothing here", metadata={"note": "password=hunter2"}, context="ping a@b.io")
    redacted = redact_model(Redactor(), draft, ("content", "metadata", "context"), found)
    assert found == {"password", "email"}
    assert redacted.metadata == {"note": "password=[REDACTED:password]"}
