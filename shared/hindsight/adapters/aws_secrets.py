"""Credentials from AWS Secrets Manager (read once at cold start, never from plain env vars).

The database secret is RDS-shaped JSON; the OpenAI key secret is the key itself (``SecretString``) or
JSON with an ``api_key`` field. Both are read through Powertools Parameters (cached per process).
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from hindsight.domain.errors import ConfigurationError

API_KEY_FIELDS = ("api_key", "OPENAI_API_KEY", "apiKey", "key")
"""JSON fields an API-key secret may use (the first one present wins)."""


def database_url_from_secret(
    secret_arn: str, *, endpoint_url: str | None = None, region: str | None = None
) -> str:
    """A libpq URL from an RDS-style secret (``host``, ``port``, ``username``, ``password``, ``dbname``).

    Raises ConfigurationError naming the missing keys or the secret that could not be read.
    """
    secret = _read(secret_arn, "database secret", endpoint_url, region, transform="json")
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


def api_key_from_secret(
    secret_arn: str, *, endpoint_url: str | None = None, region: str | None = None
) -> str:
    """An API key from a secret holding the key itself or JSON with one of ``API_KEY_FIELDS``.

    Raises ConfigurationError when the secret cannot be read or holds no key (the key is never quoted).
    """
    raw = _read(secret_arn, "API key secret", endpoint_url, region, transform=None)
    text = raw.decode() if isinstance(raw, bytes) else str(raw or "")
    text = text.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            raise ConfigurationError(f"API key secret {secret_arn} is not valid JSON") from None
        fields = data if isinstance(data, dict) else {}
        found = next(
            (fields[f] for f in API_KEY_FIELDS if isinstance(fields.get(f), str) and fields[f]), None
        )
        if found is None:
            raise ConfigurationError(
                f"API key secret {secret_arn} is a JSON object without any of {', '.join(API_KEY_FIELDS)}"
            )
        text = found.strip()
    if not text:
        raise ConfigurationError(f"API key secret {secret_arn} is empty")
    return text


def _read(secret_arn: str, what: str, endpoint_url: str | None, region: str | None, transform: Any) -> Any:
    from aws_lambda_powertools.utilities import parameters

    try:
        client = _client(endpoint_url, region) if endpoint_url or region else None
        provider = parameters.SecretsProvider(boto3_client=client)
        return provider.get(secret_arn, transform=transform)
    except Exception as exc:
        raise ConfigurationError(f"cannot read {what} {secret_arn}: {type(exc).__name__}: {exc}") from exc


def _client(endpoint_url: str | None, region: str | None) -> Any:
    import boto3

    return boto3.client("secretsmanager", endpoint_url=endpoint_url, region_name=region)
