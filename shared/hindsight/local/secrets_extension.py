"""A stand-in for the AWS Parameters and Secrets Lambda Extension, for tests and benchmarks on this machine.

The extension itself is a binary AWS ships as a Lambda layer; it runs only inside Lambda (it registers
with the Extensions API at start). What the function sees of it is an HTTP contract (AWS Lambda developer
guide, "Use Secrets Manager secrets in Lambda functions"): ``GET /secretsmanager/get?secretId=<id>``
(optionally ``versionId`` or ``versionStage``) on ``localhost:<PARAMETERS_SECRETS_EXTENSION_HTTP_PORT>``,
with the function's ``AWS_SESSION_TOKEN`` in the ``X-Aws-Parameters-Secrets-Token`` header, answered with
Secrets Manager's GetSecretValue response as JSON. This serves that contract on 127.0.0.1 from a Secrets
Manager endpoint (the moto emulator), so ``hindsight.adapters.aws_secrets`` can be tested and timed on it.

What it does not reproduce: the extension's cache (every request is a GetSecretValue call here), its
own start inside Lambda, and its error answers' exact statuses and texts (here: 401 for a missing or
wrong token, 400 with the Secrets Manager error's text, 404 for another path).
"""

from __future__ import annotations

import base64
import json
import threading
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

TOKEN_HEADER = "X-Aws-Parameters-Secrets-Token"  # noqa: S105 - a header's name
"""The header the extension requires, holding the function's session token."""


class SecretsExtensionStandIn:
    """The extension's HTTP contract on ``127.0.0.1:<port>`` (a free port unless given), answering from
    the Secrets Manager at ``endpoint_url`` in ``region``; requests must carry ``session_token``.

    ``start()`` serves from a daemon thread; ``stop()`` (idempotent) shuts it down. ``requests`` counts the
    secret reads served (tests check that a read went through here).
    """

    def __init__(self, endpoint_url: str, region: str, session_token: str, port: int = 0) -> None:
        import boto3

        from hindsight.local.sqs_emulator import use_dummy_aws_credentials

        use_dummy_aws_credentials()
        self.requests = 0
        self._client: Any = boto3.client("secretsmanager", endpoint_url=endpoint_url, region_name=region)
        self._token = session_token
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port it listens on (what ``PARAMETERS_SECRETS_EXTENSION_HTTP_PORT`` names)."""
        return int(self._server.server_address[1])

    def start(self) -> SecretsExtensionStandIn:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> SecretsExtensionStandIn:
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()

    def _answer(self, path: str, token: str | None) -> tuple[int, bytes]:
        """(status, body) for one GET."""
        url = urlparse(path)
        if url.path != "/secretsmanager/get":
            return 404, b"not found"
        if token != self._token:
            return 401, b"missing or invalid X-Aws-Parameters-Secrets-Token"
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        if "secretId" not in query:
            return 400, b"secretId is required"
        args = {"SecretId": query["secretId"]}
        for name, arg in (("versionId", "VersionId"), ("versionStage", "VersionStage")):
            if name in query:
                args[arg] = query[name]
        try:
            response = self._client.get_secret_value(**args)
        except Exception as exc:  # the extension answers Secrets Manager's refusals as errors too
            return 400, str(exc).encode()
        self.requests += 1
        response.pop("ResponseMetadata", None)
        if isinstance(response.get("SecretBinary"), bytes):  # base64 in JSON, as the API sends it
            response["SecretBinary"] = base64.b64encode(response["SecretBinary"]).decode()
        if isinstance(response.get("CreatedDate"), datetime):
            response["CreatedDate"] = response["CreatedDate"].isoformat()
        return 200, json.dumps(response).encode()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = stand_in._answer(self.path, self.headers.get(TOKEN_HEADER))
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if status == 200 else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_: Any) -> None:  # quiet: tests and benchmarks read their own output
                pass

        return Handler
