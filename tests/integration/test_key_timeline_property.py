"""A key's timeline is what its values' stated periods say, whatever happens to them (trial 3): a property
test over random sequences of writes of bounded and open values on one key, forgets of bounded values,
forgets undone by a restore, moves of a bounded value's end (refused only when a value of the key begins
inside the longer period), moves of a bounded value onto another key (it leaves this key's timeline),
a value written while another is archived (then restored: new-user trial F5), and a value restored over
the values that began inside its period, then each of those archived and restored (trial 2 HIGH 3),
against real Postgres (the use cases and the worker's store, no queue). After each step, at every probe
instant at most one live value of the key holds, and it is the value with the latest stated start among
the unforgotten ones whose stated period contains the instant. (Forgetting a key's open value, or moving
it off the key, leaves no value after it: not a stated-period rule, so not drawn.)"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hindsight.domain.auth import Principal
from hindsight.domain.errors import HindsightError
from hindsight.domain.memory import MemoryChanges, MemoryDraft
from hindsight.local.stack import LocalStack
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.remember import Remember
from tests.integration.test_maintenance import _container, _rows
from tests.unit.fakes import ListQueue

pytestmark = [pytest.mark.integration]
KEY = "sam.city"
ELSEWHERE = "sam.hometown"
"""The key a value is moved to (``memory_update`` with a new key): another key's timeline."""
DAY0 = datetime(2026, 1, 1, tzinfo=UTC)
WEEKS = 30
PROBES = [DAY0 + timedelta(weeks=w, days=3) for w in range(-1, WEEKS + 12)]
"""Mid-week instants from before the first value to after the last end."""

OPS = st.one_of(
    # a value from week start, for ``weeks`` weeks (None: open)
    st.tuples(st.just("write"), st.integers(0, WEEKS), st.one_of(st.none(), st.integers(1, 10))),
    st.tuples(st.just("forget"), st.integers(0, 30), st.just(None)),
    st.tuples(st.just("forget+restore"), st.integers(0, 30), st.just(None)),
    # a bounded value's end moved to ``weeks`` weeks after its start
    st.tuples(st.just("end"), st.integers(0, 30), st.integers(1, 10)),
    st.tuples(st.just("move"), st.integers(0, 30), st.just(None)),
    # a value archived, a value written (from week, for weeks) while it is, then the first restored
    st.tuples(
        st.just("archive+write+restore"),
        st.integers(0, 30),
        st.tuples(st.integers(0, WEEKS), st.one_of(st.none(), st.integers(1, 10))),
    ),
    # a value restored over the values that began inside its period (they never held: retired), then each
    # of those archived and restored, earliest first (their periods back: as the stated periods say)
    st.tuples(st.just("restore-over+archive+restore"), st.integers(0, 30), st.just(None)),
)
"""One step: (kind, a week or the pick of a value written so far, weeks)."""


@dataclass
class Value:
    id: uuid.UUID
    city: str
    start: datetime
    end: datetime | None
    n: int
    forgotten: bool = False


def _expected(values: list[Value], at: datetime) -> list[str]:
    holding = [v for v in values if not v.forgotten and v.start <= at and (v.end is None or at < v.end)]
    return [max(holding, key=lambda v: (v.start, v.n)).city] if holding else []


def _held(stack: LocalStack, tenant: str, at: datetime) -> list[str]:
    rows = _rows(
        stack,
        """SELECT content FROM memories
           WHERE tenant_id = %s AND key = 'sam.city' AND status IN ('active', 'superseded')
             AND valid_from <= %s AND (valid_to IS NULL OR %s < valid_to) ORDER BY content""",
        tenant,
        at,
        at,
    )
    return [str(r[0]).removeprefix("Sam lives in ") for r in rows]


def _retired(stack: LocalStack, tenant: str) -> list[uuid.UUID]:
    """The values of the key a restore retired (an empty period: they never held), earliest start first."""
    rows = _rows(
        stack,
        """SELECT id FROM memories
           WHERE tenant_id = %s AND key = 'sam.city' AND status = 'superseded' AND valid_to <= valid_from
           ORDER BY valid_from, id""",
        tenant,
    )
    return [r[0] for r in rows]


@pytest.mark.anyio
@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@example(  # trial 3 H5/H9: the bounded value forgotten
    ops=[("write", 0, None), ("write", 8, 4), ("forget", 1, None)]
)
@example(  # trial 3 H10: the split value forgotten and restored
    ops=[("write", 0, None), ("write", 8, 4), ("forget+restore", 0, None)]
)
@example(  # trial 3 H6: the bounded value's end moved earlier, then later
    ops=[("write", 0, None), ("write", 8, 4), ("end", 1, 2), ("end", 1, 6)]
)
@example(  # a past value forgotten and restored (found by this test: it became the fact over the next)
    ops=[("write", 0, None), ("write", 1, None), ("forget+restore", 0, None)]
)
@example(  # a bounded value forgotten that cut a bounded value whose end lies inside its period
    ops=[("write", 0, None), ("write", 4, 6), ("write", 8, 4), ("forget", 1, None)]
)
@example(  # found by this test: a bounded value's end moved before its own continuation (deleted now)
    ops=[("write", 28, 10), ("end", 0, 1), ("write", 22, 10), ("end", 1, 1)]
)
@example(  # found by this test: a past value cut by a later one, forgotten (its instants filled), restored
    ops=[("write", 22, None), ("write", 0, None), ("write", 13, None), ("forget+restore", 2, None)]
)
@example(  # found by this test: a split value given the end it already held until (its cut)
    ops=[("write", 17, 4), ("write", 19, 1), ("end", 0, 2)]
)
@example(  # trial LOW-5: a bounded value's end moved to where the next value begins (was refused)
    ops=[("write", 0, None), ("write", 8, 4), ("write", 18, None), ("end", 1, 10)]
)
@example(  # trial F10: a bounded value moved onto another key left the instants it had cut empty
    ops=[("write", 0, None), ("write", 8, 4), ("move", 0, None)]
)
@example(  # new-user trial F5: a value written while the open value is archived, then it is restored
    ops=[("write", 0, None), ("archive+write+restore", 0, (8, None))]
)
@example(  # the restored value holds again after a bounded value written meanwhile
    ops=[("write", 0, None), ("archive+write+restore", 0, (8, 4))]
)
@example(  # found by this test: a past value archived, restored after a value written meanwhile
    ops=[("write", 17, None), ("write", 19, None), ("archive+write+restore", 0, (15, 5))]
)
@example(  # a forgotten bounded fact left a gap: a value written before a past value stayed active over it
    ops=[("write", 12, 8), ("write", 21, 8), ("forget", 1, None), ("write", 7, 9)]
)
@example(  # an open value written before a bounded past value that split the fact held over it too
    ops=[("write", 0, None), ("write", 20, 5), ("write", 15, None)]
)
@example(  # trial 2 HIGH 3: Paris restored over Rome, Rome archived and restored: no value from Rome's start
    ops=[("write", 0, None), ("write", 8, None), ("restore-over+archive+restore", 0, None)]
)
@example(  # the same over an open value split around a bounded one
    ops=[("write", 0, None), ("write", 8, None), ("write", 16, 4), ("restore-over+archive+restore", 0, None)]
)
@given(ops=st.lists(OPS, min_size=2, max_size=8))
async def test_a_keys_timeline_is_what_the_stated_periods_say(
    stack: LocalStack, ops: list[tuple[Any, ...]]
) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    principal = Principal(tenant_id=tenant, key_id="property")
    queue = ListQueue()
    values: list[Value] = []
    async with _container(stack) as c:
        manage = ManageMemory(c.reader, c.editor, c.embedder, Remember(queue, c.clock), c.redactor, c.clock)

        async def write(n: int, at: int, weeks: int | None) -> None:
            start = DAY0 + timedelta(weeks=at)
            if any(v.start == start for v in values):
                return  # one stated start per value: a tie is a correction, not tested here
            end = start + timedelta(weeks=weeks) if weeks is not None else None
            city = f"City{n}"
            draft = MemoryDraft(content=f"Sam lives in {city}", key=KEY, valid_from=start, valid_to=end)
            await Remember(queue, c.clock)(principal, None, draft)
            jobs, queue.jobs[:] = list(queue.jobs), []
            [result] = await c.store_memories(jobs)
            assert result.outcome == "stored", result
            assert result.memory_id is not None
            values.append(Value(result.memory_id, city, start, end, n))

        for n, (kind, at, weeks) in enumerate(ops):
            if kind == "write":
                await write(n, at, weeks)
            elif not (live := [v for v in values if not v.forgotten]):
                continue
            elif kind == "forget":
                if not (bounded := [v for v in live if v.end is not None]):
                    continue  # forgetting a key's open value leaves no value after it (key_rejoin)
                value = bounded[at % len(bounded)]
                await manage.forget(principal, None, value.id, hard=False, reason=None)
                value.forgotten = True
            elif kind == "forget+restore":
                value = live[at % len(live)]
                await manage.forget(principal, None, value.id, hard=False, reason=None)
                await manage.update(principal, None, value.id, "restore", MemoryChanges(), None)
            elif kind == "move":  # as a forget: a key's open value moved off it leaves no value after it
                if not (bounded := [v for v in live if v.end is not None]):
                    continue
                value = bounded[at % len(bounded)]
                await manage.update(principal, None, value.id, "update", MemoryChanges(key=ELSEWHERE), None)
                value.forgotten = True  # a value of another key now
            elif kind == "archive+write+restore":
                value = live[at % len(live)]
                await manage.update(principal, None, value.id, "archive", MemoryChanges(), None)
                await write(n, *weeks)
                await manage.update(principal, None, value.id, "restore", MemoryChanges(), None)
            elif kind == "restore-over+archive+restore":
                value = live[at % len(live)]
                await manage.update(principal, None, value.id, "restore", MemoryChanges(), None)
                for retired in _retired(stack, tenant):
                    await manage.update(principal, None, retired, "archive", MemoryChanges(), None)
                    await manage.update(principal, None, retired, "restore", MemoryChanges(), None)
            elif (value := live[at % len(live)]).end is not None:
                end = value.start + timedelta(weeks=weeks)
                try:
                    changes = MemoryChanges(valid_to=end)
                    await manage.update(principal, None, value.id, "update", changes, None)
                except HindsightError:  # nothing changed; only when a value begins inside the longer period
                    inside = [v for v in live if v is not value and value.start < v.start < end]
                    assert inside, ("refused", n, ops[: n + 1])
                else:
                    value.end = end
            for probe in PROBES:
                assert _held(stack, tenant, probe) == _expected(values, probe), (n, ops[: n + 1], probe)
