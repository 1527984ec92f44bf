"""Credentials from AWS Secrets Manager (read once at cold start, never from plain env vars).

The database secret is RDS-shaped JSON; the OpenAI key secret is the key itself (``SecretString``) or
JSON with an ``api_key`` field. Two ways to read one, the same answer (GetSecretValue's):

* through the AWS Parameters and Secrets Lambda Extension, when ``PARAMETERS_SECRETS_EXTENSION_HTTP_PORT``
  is set (``Settings.secrets_extension_port``; template.yaml sets it with the extension's layer): an HTTP
  GET on ``localhost:<port>/secretsmanager/get?secretId=<arn>`` with the function's session token in the
  ``X-Aws-Parameters-Secrets-Token`` header, answered with GetSecretValue's JSON (AWS Lambda developer
  guide, "Use Secrets Manager secrets in Lambda functions"). Only the standard library's ``http.client``
  (which the MCP function imports anyway): no AWS SDK in the process. CPU of the read in the MCP
  function's process after its imports (bench/ab_secret_read.py: p50 of 9 cold processes, against moto,
  load 9-10): 4 ms this way, 152-154 ms with botocore, 172 ms with Powertools Parameters on boto3;
* otherwise with botocore's Secrets Manager client: the SDK itself rather than boto3 on top of it
  (``import boto3`` also imports s3transfer and multiprocessing, which a secret read never uses) or
  Powertools Parameters (whose import also brings boto3 and the providers of AppConfig, DynamoDB and SSM).
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

from hindsight.domain.errors import ConfigurationError

API_KEY_FIELDS = ("api_key", "OPENAI_API_KEY", "apiKey", "key")
"""JSON fields an API-key secret may use (the first one present wins)."""
EXTENSION_TIMEOUT_S = 10.0
"""Socket timeout of the request to the extension. It answers from its cache or after one Secrets Manager
call; well past that it is not running (no layer attached) or cannot reach Secrets Manager, and a cold
start should fail with that message rather than wait for the function's own timeout."""
ERROR_BODY_CHARS = 300
"""How much of an extension's error answer goes into the ConfigurationError (its text names the problem;
an error answer carries no secret value)."""


def database_url_from_secret(
    secret_arn: str,
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    extension_port: int | None = None,
) -> str:
    """A libpq URL from an RDS-style secret (``host``, ``port``, ``username``, ``password``, ``dbname``).

    Raises ConfigurationError naming the missing keys or the secret that could not be read.
    """
    text = _read(secret_arn, "database secret", endpoint_url, region, extension_port)
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
    secret_arn: str,
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    extension_port: int | None = None,
) -> str:
    """An API key from a secret holding the key itself or JSON with one of ``API_KEY_FIELDS``.

    Raises ConfigurationError when the secret cannot be read or holds no key (the key is never quoted).
    """
    text = _read(secret_arn, "API key secret", endpoint_url, region, extension_port).strip()
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


def _read(
    secret_arn: str, what: str, endpoint_url: str | None, region: str | None, extension_port: int | None
) -> str:
    """The secret's value as text (``SecretString``, else ``SecretBinary`` decoded as UTF-8)."""
    try:
        if extension_port is not None:
            response = _from_extension(secret_arn, extension_port)
        else:
            response = _from_api(secret_arn, endpoint_url, region)
        if response.get("SecretString") is not None:
            return str(response["SecretString"])
        binary = response.get("SecretBinary")
        if isinstance(binary, str):  # the extension's JSON carries it base64-encoded, as the API's does
            import base64

            binary = base64.b64decode(binary)
        return bytes(binary or b"").decode()
    except ConfigurationError:
        raise
    except Exception as exc:
        raise ConfigurationError(f"cannot read {what} {secret_arn}: {type(exc).__name__}: {exc}") from exc


def _from_extension(secret_arn: str, port: int) -> dict[str, Any]:
    """GetSecretValue's answer through the Parameters and Secrets extension listening on ``port``."""
    import http.client

    token = os.environ.get("AWS_SESSION_TOKEN")
    if not token:
        raise ConfigurationError(
            "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT is set but AWS_SESSION_TOKEN is not: the extension "
            "admits only requests carrying the function's session token"
        )
    conn = http.client.HTTPConnection("localhost", port, timeout=EXTENSION_TIMEOUT_S)
    try:
        conn.request(
            "GET",
            f"/secretsmanager/get?secretId={quote(secret_arn, safe='')}",
            headers={"X-Aws-Parameters-Secrets-Token": token},
        )
        answer = conn.getresponse()
        body = answer.read()
    except OSError as exc:
        raise ConnectionError(
            f"the Parameters and Secrets extension does not answer on localhost:{port} ({exc}); is its "
            "layer attached to the function?"
        ) from exc
    finally:
        conn.close()
    if answer.status != 200:
        raise ConnectionError(
            f"the Parameters and Secrets extension answered {answer.status}: "
            f"{body[:ERROR_BODY_CHARS].decode(errors='replace')}"
        )
    data = json.loads(body)
    if not isinstance(data, dict):
        raise ValueError("the extension's answer is not a JSON object")
    return data


def _from_api(secret_arn: str, endpoint_url: str | None, region: str | None) -> dict[str, Any]:
    """GetSecretValue through botocore (credentials and region from the environment unless given)."""
    import botocore.session

    client: Any = botocore.session.get_session().create_client(
        "secretsmanager", region_name=region, endpoint_url=endpoint_url
    )
    response: dict[str, Any] = client.get_secret_value(SecretId=secret_arn)
    return response
