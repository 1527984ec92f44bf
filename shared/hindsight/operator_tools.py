"""What operators use beside the agents' tools (CLI, inspector): inspection, export/import, ingestion and
re-embedding, built on demand from a container, so the Lambda workers never construct them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from uuid import UUID

from hindsight.config import Settings
from hindsight.factories import make_embedder, make_redactor

if TYPE_CHECKING:  # the use cases are imported when the tools are built, not with this module
    from hindsight.container import Container
    from hindsight.usecases.archive import ExportMemories, ImportMemories
    from hindsight.usecases.ingest import Ingest
    from hindsight.usecases.inspect import InspectAgent
    from hindsight.usecases.reembed import Reembed
    from hindsight.usecases.remember import ProcessedIds


@dataclass(frozen=True)
class OperatorTools:
    """What operators use beside the agents' tools (CLI, inspector): built on demand from a container,
    so the Lambda workers never construct them."""

    inspect: InspectAgent
    """An agent's memories, sessions and queue depths (``hindsight inspect``, the inspector page)."""
    export: ExportMemories
    """``hindsight export``."""
    import_: ImportMemories
    """``hindsight import``."""
    ingest: Ingest
    """``hindsight ingest`` (through the queue, or directly)."""


def operator_tools(container: Container) -> OperatorTools:
    """Inspection (with working-memory sessions and queue depths), export/import and ingestion."""
    from hindsight.adapters.postgres.archive import PostgresArchive
    from hindsight.adapters.postgres.inspection import PostgresInspection
    from hindsight.adapters.redis_sessions import RedisSessionLister
    from hindsight.usecases.archive import ExportMemories, ImportMemories
    from hindsight.usecases.ingest import Ingest
    from hindsight.usecases.inspect import InspectAgent
    from hindsight.usecases.remember import RememberBatch

    settings = container.settings
    queues = None
    if settings.write_queue_url:
        from hindsight.adapters.sqs_queue import sqs_client
        from hindsight.adapters.sqs_stats import SqsQueueStats

        queues = SqsQueueStats(
            sqs_client(settings.aws_region, settings.aws_endpoint_url),
            {
                "writes": settings.write_queue_url,
                "bulk writes": settings.bulk_queue_url,
                "reflections": settings.reflect_queue_url,
            },
        )
    archive = PostgresArchive(container.pool)
    return OperatorTools(
        inspect=InspectAgent(
            PostgresInspection(container.pool),
            container.reader,
            container.recall,
            container.clock,
            sessions=RedisSessionLister(container.redis, container.store_id)
            if container.redis is not None
            else None,
            queues=queues,
        ),
        export=ExportMemories(archive, container.clock, container.embedder),
        import_=ImportMemories(archive, container.embedder),
        # an operator's import is not an agent's call: no rate limit on its items
        ingest=Ingest(
            RememberBatch(container.remember, processed=_processed_ids(container))
            if container.remember is not None
            else None,
            container.store_memories,
            container.clock,
            make_redactor(settings),
        ),
    )


def _processed_ids(container: Container) -> ProcessedIds:
    """The ids among a tenant's write jobs that the worker has processed (``RememberBatch``)."""

    async def processed(tenant_id: str, ids: list[UUID]) -> set[UUID]:
        return set(await container.writer.write_results(tenant_id, ids))

    return processed


def make_reembed(container: Container, target: Settings) -> Reembed:
    """The re-embedding run from ``container``'s store to the embedder ``target`` configures."""
    from hindsight.adapters.postgres.reembed import PostgresEmbeddingMigration
    from hindsight.usecases.reembed import Reembed

    return Reembed(PostgresEmbeddingMigration(container.pool), make_embedder(target))
