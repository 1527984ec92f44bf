"""The Host header as the DNS-rebinding allow-list compares it (``api.http_guard.canonical_host``)."""

from __future__ import annotations

import pytest

from hindsight.api.http_guard import canonical_host


@pytest.mark.parametrize(
    ("host", "scheme", "port", "expected"),
    [
        ("LOCALHOST:18431", "http", 18431, "localhost:18431"),
        ("localhost", "http", 80, "localhost:80"),  # no port: the scheme's default, where we listen
        ("localhost", "https", 443, "localhost:443"),
        ("localhost", "http", 18431, "localhost"),  # another server's port: left to be refused
        ("localhost", "https", 80, "localhost"),
        ("[::1]", "http", 80, "[::1]:80"),
        ("[::1]:8080", "http", 80, "[::1]:8080"),
        ("Evil.Example", "http", 80, "evil.example:80"),  # still not an allowed host
        ("", "http", 80, ""),
    ],
)
def test_case_and_the_default_port(host: str, scheme: str, port: int, expected: str) -> None:
    assert canonical_host(host, scheme, port) == expected
