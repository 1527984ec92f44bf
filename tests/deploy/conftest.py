"""Fixtures of the deploy checks (``make check-deploy``; every test here is marked ``deploy``)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.support import ROOT, lambda_python, load_template, tool


@pytest.fixture(scope="session")
def template() -> dict[str, Any]:
    return load_template()


@pytest.fixture(scope="session")
def sam_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``sam build`` of template.yaml into a temporary folder (once per session); yields the folder.

    With a Python 3.12 at hand the layer gets precompiled .pyc, as `sam build --use-container` does."""
    sam = tool("sam")
    build_dir = tmp_path_factory.mktemp("sam-build")
    env = dict(os.environ, SAM_CLI_TELEMETRY="0")
    python312 = lambda_python()
    if python312:
        env["LAMBDA_PYTHON"] = python312
    started = time.monotonic()
    result = subprocess.run(
        [sam, "build", "--template-file", str(ROOT / "template.yaml"), "--build-dir", str(build_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    print(f"sam build: {time.monotonic() - started:.0f} s")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return build_dir
