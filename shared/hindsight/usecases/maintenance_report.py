"""What a maintenance run reports: each step's status, counts and time, and the run as a whole (what the
maintenance function returns and ``hindsight maintenance run`` prints)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hindsight.domain.maintenance import StepName

StepStatus = Literal["done", "partial", "skipped", "failed"]


class StepReport(BaseModel):
    """What one step did in this run. ``partial``: out of time, resumes next run; ``skipped``: not run
    (``detail`` says why); ``failed``: an error stopped it (``detail`` names it)."""

    model_config = ConfigDict(frozen=True)

    name: StepName
    status: StepStatus
    counts: dict[str, int] = Field(default_factory=dict)
    detail: str | None = None
    duration_s: float = 0.0


class MaintenanceReport(BaseModel):
    """One run: its steps in cycle order, whether the cycle finished in it, and how long it took."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    tenant_id: str | None = Field(description="Set when the run was limited to one tenant.")
    started_at: datetime
    duration_s: float
    budget_s: float
    finished: bool = Field(description="The cycle completed in this run (False: the next run resumes it).")
    resumed: bool = Field(description="This run continued a cycle an earlier run had begun.")
    steps: list[StepReport]
