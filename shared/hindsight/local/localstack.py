"""LocalStack in host mode (no Docker) as the local stack's AWS emulator: ``hindsight run --emulator
localstack`` (``make run EMULATOR=localstack``) uses its SQS instead of moto's.

``localstack-core`` needs Python ≥ 3.13 (it imports ``warnings.deprecated``), so it lives in a virtualenv
of its own (``make`` creates ``.venv-localstack`` with ``python3.13``) and runs as
``<that python> -m localstack.runtime.main`` in a process group of its own. Host mode needs, on a
machine without Docker: ``OVERRIDE_IN_DOCKER=0`` (a ``/.dockerenv`` file would make it think it runs in
its container), the hypercorn gateway (the default one listens on every interface whatever
``GATEWAY_LISTEN`` says), its DNS server and event reporting off, no certificate download, and its
folders under the stack's data folder. ``SQS_ENDPOINT_STRATEGY=path`` and ``LOCALSTACK_HOST`` give queue
URLs of the form ``http://127.0.0.1:<port>/queue/<region>/000000000000/<name>`` (by default the host is
``localhost.localstack.cloud``, a public DNS name).

What works here: SQS (queues, redrive to the DLQs), EventBridge rules, Secrets Manager, CloudFormation
and the Lambda *API* (functions, event source mappings, URLs are created). What does not: running a
Lambda function — its only executor is Docker — so the local pollers still play the event source
mappings, as with moto (docs/deployment.md, "LocalStack without Docker").
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import time
import urllib.request
from pathlib import Path

from hindsight.local.ports import free_port
from hindsight.local.process_group import stop_group
from hindsight.local.sqs_emulator import use_dummy_aws_credentials

SERVICES = "sqs,events,scheduler,secretsmanager,lambda,iam,sts,cloudformation,logs"


def host_mode_environment(port: int, root: Path) -> dict[str, str]:
    """The variables LocalStack needs to run on this machine without Docker, bound to 127.0.0.1:``port``
    only, keeping its files under ``root``."""
    for sub in ("fs", "config", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    return {
        "OVERRIDE_IN_DOCKER": "0",
        "GATEWAY_LISTEN": f"127.0.0.1:{port}",
        "GATEWAY_SERVER": "hypercorn",
        "DNS_ADDRESS": "0",
        "DISABLE_EVENTS": "1",
        "SKIP_SSL_CERT_DOWNLOAD": "1",
        "SQS_ENDPOINT_STRATEGY": "path",
        "LOCALSTACK_HOST": f"127.0.0.1:{port}",  # the host in the URLs it returns (default: a DNS name)
        "SERVICES": SERVICES,
        "FILESYSTEM_ROOT": str(root / "fs"),
        "CONFIG_DIR": str(root / "config"),
        "TMPDIR": str(root / "tmp"),
    }


class LocalStackEmulator:
    """LocalStack's gateway on 127.0.0.1, started from ``python`` (an interpreter with localstack-core).

    Same surface as ``SqsEmulator`` (``start``, ``stop``, ``alive``, ``pid``, ``port``, ``endpoint_url``),
    so the local stack can use either. Its state is in memory: a restart starts with no queues.
    """

    def __init__(self, python: str | Path, root: Path, port: int | None = None) -> None:
        self.python = str(python)
        self.root = root
        self.port = port or free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 90.0) -> LocalStackEmulator:
        """Start and wait until its SQS answers. Raises RuntimeError (with the log's tail) if it does not."""
        if not Path(self.python).exists():
            raise RuntimeError(
                f"no LocalStack interpreter at {self.python}: run `make run EMULATOR=localstack` (it creates "
                ".venv-localstack with Python 3.13 and localstack-core)"
            )
        use_dummy_aws_credentials()
        self.root.mkdir(parents=True, exist_ok=True)
        log = (self.root / "localstack.log").open("ab")
        env = {**os.environ, **host_mode_environment(self.port, self.root)}
        self._process = subprocess.Popen(  # noqa: S603 - a fixed module of a configured interpreter
            [self.python, "-m", "localstack.runtime.main"],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # like the moto emulator: Ctrl-C must leave it to the stack's stop
        )
        log.close()
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                break
            if self._sqs_ready():
                self._warm_up(deadline)
                return self
            time.sleep(0.2)
        tail = self.log_tail()
        self.stop()
        raise RuntimeError(f"LocalStack did not start on port {self.port}:\n{tail}")

    def _sqs_ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.endpoint_url}/_localstack/health", timeout=1) as response:  # noqa: S310
                services = json.loads(response.read()).get("services", {})
        except (OSError, ValueError):
            return False
        return services.get("sqs") in ("available", "running")

    def _warm_up(self, deadline: float) -> None:
        """One SQS call with a long timeout: LocalStack loads a service on its first request, which can
        take longer than the stack's own clients wait (5 s) on a busy machine."""
        import boto3
        from botocore.config import Config

        remaining = max(5.0, deadline - time.monotonic())
        config = Config(connect_timeout=5, read_timeout=remaining, retries={"max_attempts": 0})
        sqs = boto3.client("sqs", endpoint_url=self.endpoint_url, region_name="us-east-1", config=config)
        sqs.list_queues()

    def log_tail(self, lines: int = 30) -> str:
        path = self.root / "localstack.log"
        try:
            return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def stop(self) -> None:
        """SIGTERM its process group, SIGKILL after 10 s; idempotent."""
        process, self._process = self._process, None
        if process is None:
            return
        atexit.unregister(self.stop)
        stop_group(process, 10)
