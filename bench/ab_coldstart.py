"""Same-run A/B of the MCP function's cold start between two checkouts, on the Lambda layer each builds.

    python bench/ab_coldstart.py <baseline checkout> <candidate checkout> [--runs 12] [--record] [--note TEXT]
                                 [--database-url | --no-extension]

What a Lambda cold start runs is the layer, not this virtualenv: the dependencies as Linux wheels for the
runtime's Python, ``.pyc`` precompiled for it (or not: ``infra/sam/Makefile``'s ``NO_PYC_REGEX``), minus
what the trim step drops. So each checkout's own ``infra/sam/Makefile`` builds its layer into a scratch
folder (``BUNDLE_AWS_SDK=1``: the boto3 the runtime would provide, so an import of it is paid as in
Lambda), and every probe gets the literal variables of that checkout's ``template.yaml`` ``Globals``
environment (``POWERTOOLS_*``, ...) and is a fresh interpreter of the Lambda version (``--python``, default
``python3.12``) started with ``-S``: no site-packages, only the standard library and the layer on
``PYTHONPATH`` (``/opt/python`` in Lambda). The probe is this checkout's ``bench/coldstart_probe.py``
beside a copy of the side's ``functions/`` (the handler Lambda imports), so both sides are timed alike.

One local stack (this checkout's code; the migrations must suit both sides) serves every probe. As
deployed, the functions find their database through ``HINDSIGHT_DATABASE_SECRET_ARN`` and read it from
Secrets Manager during the first invocation: so do the probes, from an RDS-shaped secret in the stack's
emulator (moto in server mode on 127.0.0.1, over HTTP; ``common.stack_database_secret_env``), with the three
credential variables Lambda gives a function. ``--database-url`` gives them the URL instead (no secret read:
this harness's only mode before 2026-12-05). A side whose template gives its functions
``PARAMETERS_SECRETS_EXTENSION_HTTP_PORT`` (the AWS Parameters and Secrets Lambda Extension's layer is
attached: template parameter ``SecretsExtensionLayerArn``) reads the secret through the extension: here a
stand-in serving the extension's documented HTTP contract from the same emulator
(``hindsight.local.secrets_extension``; the extension itself runs only inside Lambda, and its own start
there is not counted). ``--no-extension`` measures such a side as deployed without that parameter. Each
probe sends the canonical events of ``tests/events``: ``initialize`` (the first answer: what the issue
calls the cold start, import of app.py + first invocation), then ``memory_search`` twice (the first one
loads the embedder and the ranker, the second is warm). The sides alternate A B, B A, ... so the drift of
this shared machine's load falls on both alike. Not included: Lambda's own runtime start and the layer's
download and unzip (the same for both sides).

Prints the median (and p90) per side of wall and CPU time of each step, the ratio B/A, ``uptime``
before and after; ``--record`` also merges the result into ``bench/results/latest.json`` (section
``ab_coldstart``, one entry per pair) for ``bench/report.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
STEPS = ("first_answer", "first_search", "warm_search")
"""initialize (import of app.py + first invocation), the first memory_search, a warm memory_search."""
DATABASE_MODES = {
    "secret": "database from a Secrets Manager secret read at cold start (moto over HTTP), as deployed",
    "url": "database URL in the environment (no Secrets Manager read: not as deployed)",
}
"""How the probes find their database (``--database-url``), as the report says it."""
EXTENSION_PORT_VARIABLE = "PARAMETERS_SECRETS_EXTENSION_HTTP_PORT"


def lambda_python(wanted: str) -> str:
    """The interpreter itself (a pyenv shim for a version that is not selected exists but fails)."""
    for candidate in (
        wanted,
        *sorted(Path.home().glob(f".pyenv/versions/{wanted.removeprefix('python')}*/bin/python")),
    ):
        found = subprocess.run(
            [str(candidate), "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
        )
        if found.returncode == 0:
            return found.stdout.strip()
    raise SystemExit(f"no working {wanted}: pass --python /path/to/python{wanted.removeprefix('python')}")


def build_side(checkout: Path, scratch: Path, python: str) -> Path:
    """The checkout's layer (its own Makefile) and a probe folder: ``functions/`` + this probe."""
    layer = scratch / "layer"
    built = subprocess.run(
        [
            "make",
            "-s",
            "-f",
            str(checkout / "infra" / "sam" / "Makefile"),
            "build-HindsightLayer",
            f"ARTIFACTS_DIR={layer}",
            f"LAMBDA_PYTHON={python}",
            f"PYTHON={sys.executable}",
            "BUNDLE_AWS_SDK=1",
        ],
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        raise SystemExit(f"layer build failed for {checkout}:\n{built.stderr[-3000:]}")
    probe = scratch / "probe"
    shutil.copytree(checkout / "functions", probe / "functions")
    (probe / "bench").mkdir()
    shutil.copy(HERE / "coldstart_probe.py", probe / "bench" / "coldstart_probe.py")
    (scratch / "env.json").write_text(json.dumps(template_environment(checkout)))
    return scratch


def template_environment(checkout: Path) -> dict[str, str]:
    """The literal values of the checkout's template.yaml ``Globals`` function environment (those set by
    ``!Ref``/``!If`` are the deployment's: the probe gets the local stack's instead)."""
    return {k: v for k, v in template_variables(checkout).items() if isinstance(v, str)}


def uses_extension(checkout: Path) -> bool:
    """Whether the checkout's template gives its functions the Parameters and Secrets extension's port
    (then, with the extension's layer, its code reads secrets through the extension)."""
    return EXTENSION_PORT_VARIABLE in template_variables(checkout)


def template_variables(checkout: Path) -> dict[str, Any]:
    """The checkout's template.yaml ``Globals`` function environment (``!Ref``/``!If`` values as None)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    template = yaml.load((checkout / "template.yaml").read_text(), Loader=Loader)  # noqa: S506
    variables: dict[str, Any] = template["Globals"]["Function"]["Environment"]["Variables"]
    return variables


def events(token: str) -> list[dict[str, Any]]:
    def one(name: str) -> dict[str, Any]:
        text = (ROOT / "tests" / "events" / name).read_text().replace("${HINDSIGHT_TOKEN}", token)
        event: dict[str, Any] = json.loads(text)
        return event

    search = one("function_url_memory_search.json")
    return [one("function_url_initialize.json"), search, search]


def probe(scratch: Path, python: str, events_file: Path, env: dict[str, str]) -> dict[str, float]:
    """One cold process; wall and CPU ms of each step."""
    from common import layer_probe

    result = layer_probe(
        python, scratch, "coldstart_probe.py", ["mcp_http", str(events_file)], env, timeout=300
    )
    calls = result["calls"]
    if any(c["status"] != 200 for c in calls):
        raise SystemExit(f"probe ({scratch}): a call failed: {calls}")
    out = {
        "first_answer": result["import_ms"] + calls[0]["ms"],
        "first_answer_cpu": result["import_cpu_ms"] + calls[0]["cpu_ms"],
    }
    for step, call in zip(STEPS[1:], calls[1:], strict=True):
        out[step], out[f"{step}_cpu"] = call["ms"], call["cpu_ms"]
    return out


def _stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "n": len(values),
        "p50": round(statistics.median(values), 1),
        "p90": round(ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))], 1),
        "min": round(ordered[0], 1),
    }


def _machine() -> str:
    """CPU model, cores and kernel of this run (latest.json's page-wide ``machine`` is the last writer's,
    and the machines these sessions get are not always the same)."""
    from common import machine_info

    info = machine_info()
    return f"{info['cpu_model']}, {info['cores']} cores, {info['os']}"


def _dirty(checkout: Path) -> bool:
    return bool(
        subprocess.run(
            ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
        ).stdout.strip()
    )


def main() -> None:
    from common import checkout_sha

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--runs", type=int, default=12, help="cold processes per side")
    parser.add_argument(
        "--python", default="python3.12", help="an interpreter of the Lambda runtime's version"
    )
    parser.add_argument("--record", action="store_true", help="merge into bench/results/latest.json")
    parser.add_argument("--note", default="", help="what the pair isolates, for the report")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument(
        "--database-url",
        action="store_true",
        help="give the probes HINDSIGHT_DATABASE_URL instead of a secret to read (not as deployed)",
    )
    modes.add_argument(
        "--no-extension",
        action="store_true",
        help="no Parameters and Secrets extension stand-in, even for a side whose template can use one",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from common import stack_database_secret_env, stack_function_env, uptime

    from hindsight.local.secrets_extension import SecretsExtensionStandIn
    from hindsight.local.stack import LocalStack

    python = lambda_python(args.python)
    version = subprocess.run([python, "-V"], capture_output=True, text=True).stdout.strip()
    sides = {"a": args.baseline.resolve(), "b": args.candidate.resolve()}
    work = Path(tempfile.mkdtemp(prefix="hindsight-ab-cold-"))
    extension = {
        key: not args.database_url and not args.no_extension and uses_extension(path)
        for key, path in sides.items()
    }
    try:
        scratch = {key: build_side(path, work / key, python) for key, path in sides.items()}
        samples: dict[str, dict[str, list[float]]] = {"a": {}, "b": {}}
        with contextlib.ExitStack() as running:
            stack = running.enter_context(LocalStack(work / "stack", ephemeral=True))
            settings = stack.require_settings()
            events_file = work / "events.json"
            events_file.write_text(json.dumps(events(stack.mint_token("coldstart", "bench"))))
            env = {
                **{k: v for k, v in os.environ.items() if not k.startswith(("HINDSIGHT_", "POWERTOOLS_"))},
                **stack_function_env(settings),
            }
            env.pop("PYTHONPATH", None)
            if not args.database_url:
                env.pop("HINDSIGHT_DATABASE_URL")
                env.update(stack_database_secret_env(settings))
            side_env = {key: env for key in sides}
            if any(extension.values()):
                stand_in = running.enter_context(
                    SecretsExtensionStandIn(
                        str(settings.aws_endpoint_url), settings.aws_region, env["AWS_SESSION_TOKEN"]
                    )
                )
                for key in sides:
                    if extension[key]:
                        side_env[key] = {**env, EXTENSION_PORT_VARIABLE: str(stand_in.port)}
            for key in ("a", "b"):  # one unrecorded run each: the page cache holds both layers
                probe(scratch[key], python, events_file, side_env[key])
            uptime_before, load_before = uptime(), os.getloadavg()
            for run in range(args.runs):
                for key in ("a", "b") if run % 2 == 0 else ("b", "a"):
                    for name, value in probe(scratch[key], python, events_file, side_env[key]).items():
                        samples[key].setdefault(name, []).append(value)
                print(
                    f"run {run + 1}/{args.runs}, load {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True
                )
            uptime_after, load_after = uptime(), os.getloadavg()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary = {}
    for name in samples["a"]:
        a, b = _stats(samples["a"][name]), _stats(samples["b"][name])
        summary[name] = {"a": a, "b": b, "ratio_p50": round(b["p50"] / a["p50"], 3) if a["p50"] else None}
    result = {
        **{
            key: {
                "sha": checkout_sha(path),
                "dirty": _dirty(path),
                "checkout": str(path),
                "secrets_extension": extension[key],
            }
            for key, path in sides.items()
        },
        "runs": args.runs,
        "database": "url" if args.database_url else "secret",
        "python": version,
        "summary": summary,
        "uptime_before": uptime_before,
        "uptime_after": uptime_after,
        "load_1_5_15_before": [round(x, 2) for x in load_before],
        "load_1_5_15_after": [round(x, 2) for x in load_after],
        "command": "python " + shlex.join(sys.argv),
        "note": args.note,
        "machine": _machine(),
    }
    print(f"A = {result['a']['sha']} ({sides['a']}), B = {result['b']['sha']} ({sides['b']}); {version}")
    print(f"uptime before: {uptime_before}\nuptime after:  {uptime_after}")
    print(DATABASE_MODES[result["database"]])
    print(f"{'step':<20} {'A p50 / p90 ms':>18} {'B p50 / p90 ms':>18} {'B/A p50':>8}")
    for name, s in summary.items():
        print(
            f"{name:<20} {s['a']['p50']:>8} / {s['a']['p90']:>7} {s['b']['p50']:>8} / {s['b']['p90']:>7} "
            f"{s['ratio_p50']:>8}"
        )
    if args.record:
        from common import load_results, merge_results

        section = load_results().get("ab_coldstart") or {}
        mode = " --database-url" if args.database_url else " --no-extension" if args.no_extension else ""
        section[f"{result['a']['sha']}..{result['b']['sha']}{mode}"] = result  # a pair's modes side by side
        merge_results("ab_coldstart", section, result["command"])


if __name__ == "__main__":
    main()
