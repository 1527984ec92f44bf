"""Database credentials from AWS Secrets Manager (read once at cold start, never from plain env vars)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hindsight.domain.errors import ConfigurationError


def database_url_from_secret(secret_arn: str, *, endpoint_url: str | None = None) -> str:
    """A libpq URL from an RDS-style secret (``host``, ``port``, ``username``, ``password``, ``dbname``).

    Uses Powertools Parameters (cached per process). Raises ConfigurationError naming the missing keys
    or the secret that could not be read.
    """
    from aws_lambda_powertools.utilities import parameters

    try:
        provider = parameters.SecretsProvider(
            boto3_client=_client(endpoint_url) if endpoint_url else None,
        )
        secret: Any = provider.get(secret_arn, transform="json")
    except Exception as exc:
        raise ConfigurationError(f"cannot read database secret {secret_arn}: {exc}") from exc
    if not isinstance(secret, dict):
        raise ConfigurationError(f"database secret {secret_arn} is not a JSON object")
    missing = [k for k in ("host", "username", "password") if not secret.get(k)]
    if missing:
        raise ConfigurationError(f"database secret {secret_arn} lacks {', '.join(missing)}")
    user = quote(str(secret["username"]), safe="")
    password = quote(str(secret["password"]), safe="")
    host = secret["host"]
    port = int(secret.get("port") or 5432)
    dbname = quote(str(secret.get("dbname") or "hindsight"), safe="")
    return f"postgresql://{user}:{password}@{host}:{port}/{dbname}?sslmode=prefer"


def _client(endpoint_url: str) -> Any:
    import boto3

    return boto3.client("secretsmanager", endpoint_url=endpoint_url)
