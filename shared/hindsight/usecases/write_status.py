"""Write status: is my queued write stored yet?"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from hindsight.domain.auth import Principal
from hindsight.ports import MemoryWriter

StatusName = Literal["pending", "stored", "merged", "failed"]


class WriteStatus(BaseModel):
    """One write's state. ``pending``: accepted and not processed yet (or an id this tenant never wrote).
    ``merged``: it was a near-duplicate; ``memory_id`` is the memory it was merged into."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    status: StatusName
    memory_id: UUID | None = None
    reason: str | None = None


class GetWriteStatus:
    """``memory_status``."""

    def __init__(self, store: MemoryWriter) -> None:
        self._store = store

    async def __call__(self, principal: Principal, ids: Sequence[UUID]) -> list[WriteStatus]:
        recorded = await self._store.write_results(principal.tenant_id, list(dict.fromkeys(ids)))
        out = []
        for job_id in ids:
            result = recorded.get(job_id)
            if result is None:
                out.append(WriteStatus(id=job_id, status="pending"))
            else:
                out.append(
                    WriteStatus(
                        id=job_id, status=result.outcome, memory_id=result.memory_id, reason=result.reason
                    )
                )
        return out
