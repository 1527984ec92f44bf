"""Secrets read at cold start from a real Secrets Manager API: moto in server mode over HTTP (the same
emulator the local stack uses for SQS), so botocore and the parsing are real. The AWS Parameters and
Secrets Lambda Extension runs only inside Lambda: its path is tested against a stand-in serving the
extension's documented HTTP contract from the same emulator (hindsight.local.secrets_extension)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from hindsight.adapters.aws_secrets import api_key_from_secret, database_url_from_secret
from hindsight.bootstrap import make_embedder, resolve_secrets
from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError
from hindsight.local.ports import free_port
from hindsight.local.secrets_extension import SecretsExtensionStandIn
from hindsight.local.sqs_emulator import SqsEmulator

REGION = "us-east-1"


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    emulator = SqsEmulator().start()
    try:
        yield emulator.endpoint_url
    finally:
        emulator.stop()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HINDSIGHT_OPENAI_API_KEY", "HINDSIGHT_CHAT_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)


def _secret(endpoint: str, name: str, value: str) -> str:
    client: Any = boto3.client("secretsmanager", endpoint_url=endpoint, region_name=REGION)
    arn: str = client.create_secret(Name=name, SecretString=value)["ARN"]
    return arn


def test_database_url_from_an_rds_style_secret(moto_endpoint: str) -> None:
    arn = _secret(
        moto_endpoint,
        "db-rds-style",
        json.dumps(
            {
                "engine": "postgres",
                "host": "db.internal",
                "port": 5433,
                "username": "hs",
                "password": "p@ss/w:rd",
            }
        ),
    )
    url = database_url_from_secret(arn, endpoint_url=moto_endpoint, region=REGION)
    # dbname defaults to hindsight (the created cluster's DatabaseName); the password is URL-quoted.
    assert url == "postgresql://hs:p%40ss%2Fw%3Ard@db.internal:5433/hindsight?sslmode=prefer"


def test_database_secret_without_host_names_the_missing_keys(moto_endpoint: str) -> None:
    arn = _secret(moto_endpoint, "db-no-host", json.dumps({"username": "hs", "password": "x"}))
    with pytest.raises(ConfigurationError, match="lacks host"):
        database_url_from_secret(arn, endpoint_url=moto_endpoint, region=REGION)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("key-plain", "sk-test-plain"),
        ("key-json", json.dumps({"api_key": "sk-test-plain"})),
        ("key-json-env-style", json.dumps({"OPENAI_API_KEY": "sk-test-plain", "org": "x"})),
    ],
)
def test_api_key_from_a_plain_or_json_secret(moto_endpoint: str, name: str, value: str) -> None:
    arn = _secret(moto_endpoint, name, value)
    assert api_key_from_secret(arn, endpoint_url=moto_endpoint, region=REGION) == "sk-test-plain"


def test_api_key_secret_without_a_key_is_refused_without_quoting_it(moto_endpoint: str) -> None:
    arn = _secret(moto_endpoint, "key-json-wrong", json.dumps({"token": "sk-should-not-leak"}))
    with pytest.raises(ConfigurationError, match="without any of api_key") as info:
        api_key_from_secret(arn, endpoint_url=moto_endpoint, region=REGION)
    assert "sk-should-not-leak" not in str(info.value)


def test_an_unknown_secret_names_the_arn(moto_endpoint: str) -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope-AbCdEf"
    with pytest.raises(ConfigurationError, match=r"cannot read API key secret .*nope-AbCdEf"):
        api_key_from_secret(arn, endpoint_url=moto_endpoint, region=REGION)


def test_settings_accept_a_secret_arn_instead_of_the_openai_key() -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:openai-AbCdEf"
    settings = Settings.load(
        embedder="openai",
        embedding_dim=1536,
        openai_api_key_secret_arn=arn,
        reflection_provider="openai",
        chat_model="gpt-4o-mini",
    )
    assert settings.openai_api_key is None
    with pytest.raises(ConfigurationError, match="HINDSIGHT_OPENAI_API_KEY_SECRET_ARN"):
        Settings.load(embedder="openai", embedding_dim=1536)


def test_resolve_secrets_reads_the_openai_key_at_cold_start(moto_endpoint: str) -> None:
    arn = _secret(moto_endpoint, "openai-cold-start", json.dumps({"api_key": "sk-from-secrets-manager"}))
    settings = Settings.load(
        embedder="openai",
        embedding_dim=1536,
        openai_api_key_secret_arn=arn,
        aws_endpoint_url=moto_endpoint,
        aws_region=REGION,
        reflection_provider="openai",
        chat_model="gpt-4o-mini",
    )
    resolved = resolve_secrets(settings)
    assert resolved.openai_api_key is not None
    assert resolved.openai_api_key.get_secret_value() == "sk-from-secrets-manager"
    assert "sk-from-secrets-manager" not in repr(resolved)
    embedder: Any = make_embedder(resolved)
    assert embedder._api_key == "sk-from-secrets-manager"
    # The chat model (reflection, write judge) uses the same key unless HINDSIGHT_CHAT_API_KEY is set.
    from hindsight.adapters.reflection import _chat_model

    chat: Any = _chat_model(resolved)
    assert "sk-from-secrets-manager" in json.dumps(vars(chat), default=str)


def test_resolve_secrets_makes_no_call_when_the_key_is_given() -> None:
    settings = Settings.load(
        embedder="openai",
        embedding_dim=1536,
        openai_api_key="sk-direct",
        openai_api_key_secret_arn="arn:aws:secretsmanager:us-east-1:123456789012:secret:x-AbCdEf",
        aws_endpoint_url="http://127.0.0.1:9",  # nothing listens: a call would fail
    )
    assert resolve_secrets(settings) is settings
    plain = Settings.load()
    assert resolve_secrets(plain) is plain


# ---- through the AWS Parameters and Secrets Lambda Extension (its HTTP contract, served by a stand-in) --


SESSION_TOKEN = "session-token-of-this-function"


@pytest.fixture
def extension(moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[SecretsExtensionStandIn]:
    monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION_TOKEN)
    with SecretsExtensionStandIn(moto_endpoint, REGION, SESSION_TOKEN) as stand_in:
        yield stand_in


def test_the_database_url_is_read_through_the_extension(
    moto_endpoint: str, extension: SecretsExtensionStandIn
) -> None:
    value = json.dumps({"host": "db.internal", "username": "hs", "password": "p@ss"})
    arn = _secret(moto_endpoint, "db-via-extension", value)
    # No endpoint and no region: with the extension the process itself calls no AWS API.
    url = database_url_from_secret(arn, extension_port=extension.port)
    assert url == "postgresql://hs:p%40ss@db.internal:5432/hindsight?sslmode=prefer"
    assert extension.requests == 1


def test_an_api_key_is_read_through_the_extension_by_resolve_secrets(
    moto_endpoint: str, extension: SecretsExtensionStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = _secret(moto_endpoint, "openai-via-extension", json.dumps({"api_key": "sk-through-extension"}))
    monkeypatch.setenv("PARAMETERS_SECRETS_EXTENSION_HTTP_PORT", str(extension.port))
    settings = Settings.load(
        embedder="openai",
        embedding_dim=1536,
        openai_api_key_secret_arn=arn,
        aws_endpoint_url="http://127.0.0.1:9",  # nothing listens: a call past the extension would fail
    )
    assert settings.secrets_extension_port == extension.port
    resolved = resolve_secrets(settings)
    assert resolved.openai_api_key is not None
    assert resolved.openai_api_key.get_secret_value() == "sk-through-extension"
    assert extension.requests == 1


def test_the_extension_refuses_a_wrong_token_and_the_error_says_so(
    moto_endpoint: str, extension: SecretsExtensionStandIn, monkeypatch: pytest.MonkeyPatch
) -> None:
    arn = _secret(
        moto_endpoint, "db-wrong-token", json.dumps({"host": "h", "username": "u", "password": "p"})
    )
    monkeypatch.setenv("AWS_SESSION_TOKEN", "another-token")
    with pytest.raises(ConfigurationError, match=r"cannot read database secret .*answered 401"):
        database_url_from_secret(arn, extension_port=extension.port)
    monkeypatch.delenv("AWS_SESSION_TOKEN")
    with pytest.raises(ConfigurationError, match="AWS_SESSION_TOKEN is not"):
        database_url_from_secret(arn, extension_port=extension.port)
    assert extension.requests == 0


def test_an_unknown_secret_through_the_extension_names_the_arn(extension: SecretsExtensionStandIn) -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:nope-via-extension-AbCdEf"
    with pytest.raises(
        ConfigurationError, match=r"cannot read API key secret .*nope-via-extension.*answered 400"
    ):
        api_key_from_secret(arn, extension_port=extension.port)


def test_an_extension_port_where_nothing_listens_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION_TOKEN)
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:db-AbCdEf"
    with pytest.raises(ConfigurationError, match=r"does not answer on localhost:.*layer attached"):
        database_url_from_secret(arn, extension_port=free_port())


def test_the_extension_port_is_read_from_the_extensions_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PARAMETERS_SECRETS_EXTENSION_HTTP_PORT", raising=False)
    assert Settings.load().secrets_extension_port is None
    monkeypatch.setenv("PARAMETERS_SECRETS_EXTENSION_HTTP_PORT", "2773")
    assert Settings.load().secrets_extension_port == 2773
    monkeypatch.setenv("PARAMETERS_SECRETS_EXTENSION_HTTP_PORT", "0")
    with pytest.raises(
        ConfigurationError, match=r"^invalid configuration:\n  PARAMETERS_SECRETS_EXTENSION_HTTP_PORT:"
    ):
        Settings.load()
