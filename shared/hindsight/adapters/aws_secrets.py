"""Credentials from AWS Secrets Manager (read once at cold start, never from plain env vars).

The database secret is RDS-shaped JSON; the OpenAI key secret is the key itself (``SecretString``) or
JSON with an ``api_key`` field. Both are read with botocore's Secrets Manager client: the SDK itself
rather than boto3 on top of it (``import boto3`` also imports s3transfer and multiprocessing, which a
secret read never uses) or Powertools Parameters (whose import also brings boto3 and the providers of
AppConfig, DynamoDB and SSM). CPU of the read in the MCP function's process after its imports
(bench/ab_secret_read.py: p50 of 9 cold processes, against moto, load ~9): 152 ms, against 172 ms through
Powertools Parameters on boto3.
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
    text = _read(secret_arn, "database secret", endpoint_url, region)
    try:
        secret = json.loads(text)
    except ValueError:
        raise ConfigurationError(f"database secret {secret_arn} is not valid JSON") from None
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
    text = _read(secret_arn, "API key secret", endpoint_url, region).strip()
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


def _read(secret_arn: str, what: str, endpoint_url: str | None, region: str | None) -> str:
    """The secret's value as text (``SecretString``, else ``SecretBinary`` decoded as UTF-8)."""
    try:
        response = _from_api(secret_arn, endpoint_url, region)
        if response.get("SecretString") is not None:
            return str(response["SecretString"])
        binary = response.get("SecretBinary")
        return bytes(binary or b"").decode()
    except Exception as exc:
        raise ConfigurationError(f"cannot read {what} {secret_arn}: {type(exc).__name__}: {exc}") from exc


def _from_api(secret_arn: str, endpoint_url: str | None, region: str | None) -> dict[str, Any]:
    """GetSecretValue through botocore (credentials and region from the environment unless given)."""
    import botocore.session

    client: Any = botocore.session.get_session().create_client(
        "secretsmanager", region_name=region, endpoint_url=endpoint_url
    )
    response: dict[str, Any] = client.get_secret_value(SecretId=secret_arn)
    return response
