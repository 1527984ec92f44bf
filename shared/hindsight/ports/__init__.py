"""Ports: the Protocols use cases depend on. Adapters implement them; tests may fake them.

One module per area: ``clock``, ``embedding`` (the Embedder and ``Vector``), ``memory_store`` (reads,
writes, edits, the access log), ``queues`` (job queue, operation log), ``auth`` (API keys, bearer
tokens, rate limits), ``working_memory``, ``reflection``, ``maintenance`` (its store and sweeps),
``observability`` (metrics), ``inspection``, ``archive`` (export/import), ``reembedding`` and
``reranking``. Every
name is re-exported here: ``from hindsight.ports import X`` is the way to import a port.
"""

from hindsight.ports.archive import MemoryArchive
from hindsight.ports.auth import ApiKeyStore, BearerTokenVerifier, RateLimiter
from hindsight.ports.clock import Clock
from hindsight.ports.embedding import Embedder, Vector
from hindsight.ports.inspection import InspectionStore, QueueStats, SessionLister
from hindsight.ports.maintenance import MaintenanceStore, StuckWorkSweeper, WorkingMemorySweeper
from hindsight.ports.memory_store import (
    AccessLog,
    ChainDirection,
    ChainLink,
    EditedMemory,
    ForgetOutcome,
    MemoryEditor,
    MemoryReader,
    MemoryWriter,
    StoredVectors,
)
from hindsight.ports.observability import Metrics
from hindsight.ports.queues import (
    IdempotencyRecord,
    IdempotencyRecords,
    JobQueue,
    OperationLog,
    SessionSequence,
)
from hindsight.ports.reembedding import (
    EmbeddingMigrationStore,
    EmbeddingState,
    EmbeddingSwitch,
    PendingEmbedding,
)
from hindsight.ports.reflection import (
    ConflictJudge,
    ConflictRelation,
    ExperienceWriter,
    Reflector,
    WriteJudge,
)
from hindsight.ports.reranking import Reranker
from hindsight.ports.working_memory import SessionDecision, TokenCounter, WorkingMemoryStore

__all__ = [
    "AccessLog",
    "ApiKeyStore",
    "BearerTokenVerifier",
    "ChainDirection",
    "ChainLink",
    "Clock",
    "ConflictJudge",
    "ConflictRelation",
    "EditedMemory",
    "Embedder",
    "EmbeddingMigrationStore",
    "EmbeddingState",
    "EmbeddingSwitch",
    "ExperienceWriter",
    "ForgetOutcome",
    "IdempotencyRecord",
    "IdempotencyRecords",
    "InspectionStore",
    "JobQueue",
    "MaintenanceStore",
    "MemoryArchive",
    "MemoryEditor",
    "MemoryReader",
    "MemoryWriter",
    "Metrics",
    "OperationLog",
    "PendingEmbedding",
    "QueueStats",
    "RateLimiter",
    "Reflector",
    "Reranker",
    "SessionDecision",
    "SessionLister",
    "SessionSequence",
    "StoredVectors",
    "StuckWorkSweeper",
    "TokenCounter",
    "Vector",
    "WorkingMemoryStore",
    "WorkingMemorySweeper",
    "WriteJudge",
]
