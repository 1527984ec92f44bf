"""The container: everything one process needs, built once by the composition root
(``hindsight.bootstrap.build_container``). Its own module, so what is built from a container (the
operator tools) and what serves one (the API) depend on it without depending on the composition root."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hindsight.factories import make_maintenance

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool

    from hindsight.adapters.postgres.access_log import DeferredAccessLog
    from hindsight.adapters.postgres.memory_edits import PostgresMemoryEditor
    from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
    from hindsight.adapters.postgres.memory_writes import PostgresMemoryWriter
    from hindsight.adapters.system_clock import SystemClock
    from hindsight.config import Settings
    from hindsight.ports import Embedder
    from hindsight.usecases.api_keys import Authenticate, ManageKeys
    from hindsight.usecases.maintain import Maintain
    from hindsight.usecases.manage_memory import ManageMemory
    from hindsight.usecases.rate_limits import CheckRateLimit
    from hindsight.usecases.recall import Recall
    from hindsight.usecases.reflect import Reflect, SubmitReflection
    from hindsight.usecases.remember import Remember, RememberBatch
    from hindsight.usecases.search_budget import SearchWithinBudget
    from hindsight.usecases.store_memories import StoreMemories
    from hindsight.usecases.summarize import Summarize
    from hindsight.usecases.working_memory import WorkingMemory
    from hindsight.usecases.write_status import GetWriteStatus, SweepStuckWork


@dataclass
class Container:
    """Everything one process needs, built once. ``remember`` is None where no queue is configured."""

    settings: Settings
    pool: AsyncConnectionPool
    embedder: Embedder
    clock: SystemClock
    recall: Recall
    search: SearchWithinBudget
    """``memory_search``: recall fitted into a token budget when one is asked (``max_tokens``)."""
    summarize: Summarize
    """``memory_summarize``: the experience hint (extractive, or by the configured chat model)."""
    store_memories: StoreMemories
    authenticate: Authenticate
    keys: ManageKeys
    reader: PostgresMemoryReader
    writer: PostgresMemoryWriter
    editor: PostgresMemoryEditor
    access_log: DeferredAccessLog
    manage: ManageMemory
    write_status: GetWriteStatus
    reflect: Reflect
    remember: Remember | None = None
    remember_batch: RememberBatch | None = None
    """``memory_write_batch`` (None where no queue is configured); its items count against the rate
    limit's item budget (wired in ``build_container``)."""
    submit_reflection: SubmitReflection | None = None
    sweeper: SweepStuckWork | None = None
    redis: Any = None
    working_memory: WorkingMemory | None = None
    metrics: Any = None
    """The Metrics port (``hindsight.adapters.observability``): EMF in Lambda, in memory locally."""
    rate_limit: CheckRateLimit | None = None
    """Per-caller budgets of tool calls (None: off)."""
    reranker: Any = None
    """The second-stage Reranker of recall (None: off)."""
    redactor: Any = None
    """The Redactor (``domain.redaction``) writes use: the MCP argument check refuses an identifier
    argument it would change (``domain.limits.Identifier``)."""
    store_id: str = ""
    """The database's identity (``hindsight_meta.store_id``): namespaces what is kept for it in Redis."""
    _maintain: Maintain | None = field(default=None, repr=False)

    @property
    def maintain(self) -> Maintain:
        """Scheduled maintenance, built on first use: the request path never needs it, so the MCP
        function's cold start does not import it."""
        if self._maintain is None:
            self._maintain = make_maintenance(
                self.settings, self.pool, self.embedder, self.clock, self.redis, self.sweeper, self.store_id
            )
        return self._maintain

    async def aclose(self) -> None:
        await self.access_log.flush()
        if self.reranker is not None and hasattr(self.reranker, "aclose"):
            await self.reranker.aclose()
        if self.working_memory is not None:
            await self.working_memory.aclose()
        await self.pool.close()
