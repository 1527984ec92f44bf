"""Memory models: what an agent writes, what is queued, what is stored and what search returns."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hindsight.domain.limits import (
    DEFAULT_AGENT_ID,
    DEFAULT_IMPORTANCE,
    AgentId,
    Content,
    Importance,
    MemoryKey,
    Metadata,
    RecallHint,
    Timestamp,
)

Layer = Literal["episodic", "semantic"]
"""Long-term layers. Working memory lives in Redis and is not a row (see the spec, "Memory model")."""

MemoryStatus = Literal["active", "superseded", "archived"]
WriteOutcome = Literal["stored", "merged", "failed"]


class Scope(BaseModel):
    """Whose memory: every read and write is bound to one tenant and one agent within it."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    agent_id: str = DEFAULT_AGENT_ID


class MemoryDraft(BaseModel):
    """A memory as an agent submits it, already validated against the limits."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: Content
    layer: Layer = "semantic"
    key: MemoryKey | None = None
    query: RecallHint | None = None
    importance: Importance = DEFAULT_IMPORTANCE
    metadata: Metadata = Field(default_factory=dict)
    occurred_at: Timestamp | None = None


class WriteJob(BaseModel):
    """The SQS message body for one accepted write. ``id`` is the memory id and the idempotency key."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["memory.write"] = "memory.write"
    id: UUID
    tenant_id: str = Field(min_length=1, max_length=128)
    agent_id: AgentId
    submitted_at: Timestamp
    draft: MemoryDraft

    @property
    def scope(self) -> Scope:
        return Scope(tenant_id=self.tenant_id, agent_id=self.agent_id)

    @property
    def content_hash(self) -> str:
        return content_hash(self.draft.content)


class StoredMemory(BaseModel):
    """A long-term memory row as search and get return it."""

    model_config = ConfigDict(frozen=True)

    id: UUID
    tenant_id: str
    agent_id: str
    layer: Layer
    key: str | None
    query: str | None
    content: str
    importance: float
    access_count: int
    last_accessed_at: datetime | None
    created_at: datetime
    occurred_at: datetime | None
    metadata: dict[str, JsonValue]
    status: MemoryStatus


class StoreResult(BaseModel):
    """What the worker did with one write job."""

    model_config = ConfigDict(frozen=True)

    job_id: UUID
    outcome: WriteOutcome
    memory_id: UUID | None = None
    """The row the job ended in: its own id when stored, the existing memory's id when merged."""
    reason: str | None = None


class SearchRequest(BaseModel):
    """A validated recall request (filters are applied before ranking)."""

    model_config = ConfigDict(frozen=True)

    text: str
    top_k: int
    key: str | None = None
    min_importance: float = 0.0


class Candidate(BaseModel):
    """One memory that at least one retrieval signal returned, with its rank under each signal (1 = best)."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory
    vector_rank: int | None = None
    vector_similarity: float | None = None
    keyword_rank: int | None = None
    keyword_score: float | None = None


class Scores(BaseModel):
    """Per-signal scores of one hit, so a caller can see why it was recalled."""

    model_config = ConfigDict(frozen=True)

    vector: float | None = Field(description="Cosine similarity to the query, if the vector signal found it.")
    keyword: float | None = Field(description="Full-text rank (ts_rank_cd), if the keyword signal found it.")
    rrf: float = Field(description="Reciprocal rank fusion of the signals.")
    relevance: float = Field(description="RRF normalised to 0–1 by the best possible fused score.")
    importance: float
    final: float = Field(description="The score results are ordered by.")


class SearchHit(BaseModel):
    """One recalled memory and its scores."""

    model_config = ConfigDict(frozen=True)

    memory: StoredMemory
    scores: Scores


_WS = re.compile(r"\s+")


def content_hash(content: str) -> str:
    """SHA-256 hex of the content with whitespace collapsed and case folded (exact-duplicate key)."""
    normalised = _WS.sub(" ", content).strip().casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()
