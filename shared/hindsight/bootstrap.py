"""Composition root: settings → adapters → use cases, once per process (Lambda cold start, CLI, tests).

What it wires with lives beside it and is re-exported here: the factories from settings in
``hindsight.factories``, the ``Container`` it fills (``hindsight.container``) and ``SystemClock``
(``hindsight.adapters.system_clock``). The operator tools built from a container are in
``hindsight.operator_tools``, which depends on the container, not on this module."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
from hindsight.adapters.postgres.access_log import DeferredAccessLog
from hindsight.adapters.postgres.api_keys import PostgresApiKeyStore
from hindsight.adapters.postgres.hnsw import PINNED_EF_SEARCH
from hindsight.adapters.postgres.memory_edits import PostgresMemoryEditor
from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.adapters.postgres.memory_writes import PostgresMemoryWriter
from hindsight.adapters.postgres.migrations import (
    check_schema,
    default_migrations_dir,
    load_migrations,
    migrate,
    store_identity,
)
from hindsight.adapters.postgres.pool import one_connection, open_pool
from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.redis_operations import RedisOperationLog
from hindsight.adapters.redis_pipelines import SharedPipelines
from hindsight.adapters.redis_session_sequence import RedisSessionSequence
from hindsight.adapters.reflection import (
    make_conflict_judge,
    make_experience_writer,
    make_reflector,
    make_write_judge,
)
from hindsight.adapters.system_clock import SystemClock
from hindsight.adapters.tiktoken_counter import TiktokenCounter
from hindsight.config import Settings
from hindsight.container import Container
from hindsight.factories import (
    maintenance_policy,
    make_embedder,
    make_jwt_verifier,
    make_maintenance,
    make_rate_limit,
    make_redactor,
    make_reranker,
    make_working_memory,
    ranking_policy,
)
from hindsight.ports import Embedder, Metrics
from hindsight.usecases.api_keys import Authenticate, ManageKeys
from hindsight.usecases.causal_parents import CheckCausalParent
from hindsight.usecases.key_values import KeyValues
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.recall import Recall
from hindsight.usecases.reflect import Reflect, ShouldRemember, SubmitReflection
from hindsight.usecases.remember import Remember, RememberBatch
from hindsight.usecases.search_budget import SearchWithinBudget
from hindsight.usecases.store_memories import StoreMemories
from hindsight.usecases.summarize import Summarize
from hindsight.usecases.write_status import GetWriteStatus, SweepStuckWork

if TYPE_CHECKING:
    pass

__all__ = [
    "Container",
    "SystemClock",
    "build_container",
    "database_url",
    "maintenance_policy",
    "make_embedder",
    "make_jwt_verifier",
    "make_maintenance",
    "make_rate_limit",
    "make_redactor",
    "make_working_memory",
    "ranking_policy",
    "resolve_secrets",
    "run_migrations",
    "session_settings",
]


def database_url(settings: Settings) -> str:
    """HINDSIGHT_DATABASE_URL, else the URL built from HINDSIGHT_DATABASE_SECRET_ARN (AWS; read through
    the Parameters and Secrets extension when PARAMETERS_SECRETS_EXTENSION_HTTP_PORT is set)."""
    if settings.database_url is None and settings.database_secret_arn:
        from hindsight.adapters.aws_secrets import database_url_from_secret

        return database_url_from_secret(
            settings.database_secret_arn,
            endpoint_url=settings.aws_endpoint_url,
            region=settings.aws_region,
            extension_port=settings.secrets_extension_port,
        )
    return settings.require_database_url()


def resolve_secrets(settings: Settings) -> Settings:
    """Settings with the secrets named by ARN read in (AWS, at cold start): today the OpenAI key
    (``HINDSIGHT_OPENAI_API_KEY_SECRET_ARN`` → ``openai_api_key``, which is also the chat model's key
    unless ``HINDSIGHT_CHAT_API_KEY`` is set). A key given directly wins; no secret, no call."""
    if settings.openai_api_key is not None or not settings.openai_api_key_secret_arn:
        return settings
    from hindsight.adapters.aws_secrets import api_key_from_secret

    key = api_key_from_secret(
        settings.openai_api_key_secret_arn,
        endpoint_url=settings.aws_endpoint_url,
        region=settings.aws_region,
        extension_port=settings.secrets_extension_port,
    )
    return settings.replace(openai_api_key=key)


def session_settings(settings: Settings) -> dict[str, str]:
    """Per-connection GUCs: iterative scans so filtered ANN queries still fill their LIMIT (pgvector ≥
    0.8), and, when ``hnsw_ef_search`` is set, that breadth pinned (``hindsight.hnsw_ef_search``, which
    the tenant setting of every statement then keeps; unset, it follows the store's size:
    adapters/postgres/hnsw.py)."""
    out = {"hnsw.iterative_scan": "relaxed_order"}
    if settings.hnsw_ef_search is not None:
        pinned = str(settings.hnsw_ef_search)
        out |= {"hnsw.ef_search": pinned, PINNED_EF_SEARCH: pinned}
    return out


async def run_migrations(settings: Settings) -> list[int]:
    """Apply pending migrations to the configured database (``hindsight migrate``, the migration
    function, the local stack). Returns the versions applied now; idempotent and safe concurrently."""
    migrations = load_migrations(default_migrations_dir(settings.migrations_dir))
    conn = await one_connection(database_url(settings))
    try:
        return await migrate(
            conn,
            migrations,
            embedding_dim=settings.embedding_dim,
            embedding_model=make_embedder(settings).model_name,
        )
    finally:
        await conn.close()


async def build_container(
    settings: Settings,
    *,
    with_queue: bool = True,
    verify_schema: bool = True,
    embedder: Embedder | None = None,
    metrics: Metrics | None = None,
) -> Container:
    """Connect and wire. Raises ConfigurationError (schema/dimension mismatch, missing settings) or
    Unavailable (database unreachable). ``metrics`` defaults to what ``settings.metrics`` names."""
    from hindsight.adapters.embedders.timed import TimedEmbedder
    from hindsight.adapters.observability import make_metrics

    settings = resolve_secrets(settings)
    metrics = metrics if metrics is not None else make_metrics(settings.metrics)
    embedder = embedder or make_embedder(settings)
    if embedder.dim != settings.embedding_dim:
        from hindsight.domain.errors import ConfigurationError

        raise ConfigurationError(
            f"embedder {embedder.model_name} produces {embedder.dim} dimensions but HINDSIGHT_EMBEDDING_DIM "
            f"is {settings.embedding_dim}"
        )
    pool = await open_pool(
        database_url(settings),
        min_size=settings.db_pool_min,
        max_size=settings.db_pool_max,
        timeout_s=settings.db_connect_timeout_s,
        session_settings=session_settings(settings),
        role=settings.db_app_role,  # row-level security applies (migration 004)
    )
    try:
        if verify_schema:
            migrations = load_migrations(default_migrations_dir(settings.migrations_dir))
            async with pool.connection() as conn:
                await check_schema(
                    conn,
                    latest_version=migrations[-1].version,
                    embedding_dim=settings.embedding_dim,
                    embedding_model=embedder.model_name,
                )
        async with pool.connection() as conn:
            store_id = await store_identity(conn)
        clock = SystemClock()
        derive = maintenance_policy(settings)  # an edit derives summaries and inferences again by them
        reader, writer, editor = (
            PostgresMemoryReader(pool),
            PostgresMemoryWriter(pool, conflict_cosine=settings.conflict_cosine),
            PostgresMemoryEditor(
                pool, derive.consolidation.min_size, derive.patterns, settings.conflict_cosine
            ),
        )
        key_store = PostgresApiKeyStore(pool)
        access_log = DeferredAccessLog(editor)
        redactor = make_redactor(settings)
        redis = redis_client(settings.redis_url)  # lazy: connects on first use, so Redis may be down now
        # a write's operation-log entry and its rate-limit lease go to Redis in one round trip
        pipelines = SharedPipelines(redis)
        operations = RedisOperationLog(redis, store_id, pipelines)
        remember, submit_reflection, sweeper = None, None, None
        if with_queue:
            from hindsight.adapters.sqs_queue import SqsJobQueue, sqs_client

            queue = SqsJobQueue(
                lambda: sqs_client(settings.aws_region, settings.aws_endpoint_url),
                settings.require_write_queue_url(),
                settings.reflect_queue_url,
                settings.bulk_queue_url,
            )
            remember = Remember(
                queue,
                clock,
                redactor,
                operations,
                metrics=metrics,
                idempotency=operations,
                sessions=RedisSessionSequence(redis, store_id),
                parents=CheckCausalParent(reader, writer, operations),
                bulk_bytes=settings.bulk_write_bytes or None,
                key_values=KeyValues(reader, clock),
            )
            submit_reflection = SubmitReflection(queue, clock, redactor, operations, idempotency=operations)
            sweeper = SweepStuckWork(operations, writer, queue)
        reranker = make_reranker(settings)
        tokens = TiktokenCounter()  # one tokenizer for working memory's budget and search's max_tokens
        recall = Recall(
            reader,
            CachedQueryEmbedder(TimedEmbedder(embedder, metrics)),
            clock,
            access_log,
            ranking_policy(settings),
            candidate_pool=settings.candidate_pool,
            metrics=metrics,
            trace_content=settings.log_level == "DEBUG",
            reranker=reranker,
            rerank_top_n=settings.rerank_top_n,
        )
        container = Container(
            settings=settings,
            pool=pool,
            reranker=reranker,
            embedder=embedder,
            clock=clock,
            recall=recall,
            search=SearchWithinBudget(recall, tokens, reader),
            summarize=Summarize(recall, reader, clock, make_experience_writer(settings)),
            store_memories=StoreMemories(
                writer,
                TimedEmbedder(embedder, metrics),
                settings.dedup_cosine,
                ShouldRemember(make_write_judge(settings)),
                metrics=metrics,
                conflict_judge=make_conflict_judge(settings),
            ),
            authenticate=Authenticate(
                key_store, ttl_s=settings.token_cache_ttl_s, jwt=make_jwt_verifier(settings)
            ),
            keys=ManageKeys(key_store, clock),
            reader=reader,
            writer=writer,
            editor=editor,
            access_log=access_log,
            manage=ManageMemory(reader, editor, embedder, remember, redactor, clock, writer),
            write_status=GetWriteStatus(writer, operations),
            reflect=Reflect(make_reflector(settings)),
            remember=remember,
            submit_reflection=submit_reflection,
            sweeper=sweeper,
            redis=redis,
            metrics=metrics,
            redactor=redactor,
            store_id=store_id,
        )
        container.working_memory = make_working_memory(
            settings, clock, container.remember, redactor, redis, tokens, store_id
        )
        container.rate_limit = make_rate_limit(settings, redis, store_id, pipelines)
        if remember is not None:
            charge = container.rate_limit.items if container.rate_limit is not None else None
            container.remember_batch = RememberBatch(remember, charge, bulk_items=settings.bulk_batch_items)
        return container
    except BaseException:
        await pool.close()
        raise
