"""A real OAuth issuer's JWKS on loopback, for the JWT tests: an RSA key made with `cryptography`, its
public half served as a JWKS by a threaded HTTP server on 127.0.0.1, and tokens signed with it."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

ISSUER = "https://issuer.example/pool-1"
AUDIENCE = "hindsight-test"


def _handler(issuer: LoopbackIssuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            issuer.fetches += 1
            if self.path != "/.well-known/jwks.json":
                self.send_error(404)
                return
            body = json.dumps(issuer.jwks()).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:  # quiet
            return

    return Handler


class LoopbackIssuer:
    """Start with ``start()``; ``jwks_url`` serves the public keys; ``token(**claims)`` signs one."""

    def __init__(self, kid: str = "key-1") -> None:
        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.fetches = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def jwks_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/.well-known/jwks.json"

    def jwks(self) -> dict[str, Any]:
        public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def start(self) -> LoopbackIssuer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def token(
        self,
        *,
        tenant: str | None = "acme",
        scope: str | None = "memory:read memory:write",
        lifetime_s: float = 300,
        key: Any = None,
        kid: str | None = None,
        headers: dict[str, Any] | None = None,
        **claims: Any,
    ) -> str:
        now = int(time.time())
        payload: dict[str, Any] = {
            "iss": ISSUER,
            "aud": AUDIENCE,
            "sub": "agent-runner-7",
            "iat": now,
            "nbf": now,
            "exp": now + int(lifetime_s),
        }
        if tenant is not None:
            payload["tenant_id"] = tenant
        if scope is not None:
            payload["scope"] = scope
        payload.update(claims)
        payload = {k: v for k, v in payload.items() if v is not None}
        return jwt.encode(
            payload,
            key or self.key,
            algorithm="RS256",
            headers={"kid": kid or self.kid, **(headers or {})},
        )
