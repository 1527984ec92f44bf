"""Same-run A/B of the database secret read alone, between two checkouts, on the Lambda layer each builds.

    python bench/ab_secret_read.py <baseline checkout> <candidate checkout> [--runs 9] [--no-extension]

bench/ab_coldstart.py times the whole first answer (~1 s of CPU), in which the secret read is a part that
the machine's load blurs. This times only ``hindsight.bootstrap.database_url`` in a fresh interpreter of
each side's layer (built as ab_coldstart builds it, with the literal ``Globals`` environment of the side's
template), after importing what the MCP function has imported by then (bench/secret_read_probe.py): so
what is counted is what the read adds to a cold start, the AWS SDK's import and client included. The
secret is an RDS-shaped one in moto (server mode on 127.0.0.1, over HTTP); a side whose template gives
``PARAMETERS_SECRETS_EXTENSION_HTTP_PORT`` reads it through the Parameters and Secrets extension's
stand-in (``hindsight.local.secrets_extension``, in this process: its own CPU is not the probe's, as the
real extension is a process of its own), unless ``--no-extension``. Sides alternate A B, B A, ...
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def probe(python: str, side: Path, env: dict[str, str]) -> dict[str, float]:
    """One cold process on the side's layer: the read's wall and CPU ms, and whether the SDK was loaded."""
    from common import layer_probe

    result: dict[str, float] = layer_probe(python, side, "secret_read_probe.py", [], env, timeout=120)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("baseline", type=Path)
    parser.add_argument("candidate", type=Path)
    parser.add_argument("--runs", type=int, default=9, help="cold processes per side")
    parser.add_argument(
        "--python", default="python3.12", help="an interpreter of the Lambda runtime's version"
    )
    parser.add_argument("--no-extension", action="store_true", help="no extension stand-in for either side")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from ab_coldstart import (
        EXTENSION_PORT_VARIABLE,
        _sha,
        _stats,
        build_side,
        lambda_python,
        uses_extension,
    )
    from common import stack_database_secret_env, uptime

    from hindsight.config import Settings
    from hindsight.local.secrets_extension import SecretsExtensionStandIn
    from hindsight.local.sqs_emulator import SqsEmulator

    python = lambda_python(args.python)
    sides = {"a": args.baseline.resolve(), "b": args.candidate.resolve()}
    extension = {key: not args.no_extension and uses_extension(path) for key, path in sides.items()}
    work = Path(tempfile.mkdtemp(prefix="hindsight-ab-secret-"))
    samples: dict[str, list[dict[str, float]]] = {"a": [], "b": []}
    with contextlib.ExitStack() as running:
        running.callback(shutil.rmtree, work, ignore_errors=True)
        emulator = SqsEmulator().start()
        running.callback(emulator.stop)
        scratch = {key: build_side(path, work / key, python) for key, path in sides.items()}
        # The probe beside each layer, not run from this folder (whose modules would be on sys.path).
        for side in scratch.values():
            shutil.copy(HERE / "secret_read_probe.py", side / "probe" / "bench" / "secret_read_probe.py")
        settings = Settings.load(
            database_url="postgresql://hindsight@/hindsight?host=/nonexistent",  # only read, never opened
            aws_endpoint_url=emulator.endpoint_url,
        )
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("HINDSIGHT_", "POWERTOOLS_", "PYTHON"))
            },
            **stack_database_secret_env(settings),
            "HINDSIGHT_AWS_ENDPOINT_URL": emulator.endpoint_url,
            "HINDSIGHT_LOG_LEVEL": "WARNING",
        }
        side_env = {key: env for key in sides}
        if any(extension.values()):
            stand_in = running.enter_context(
                SecretsExtensionStandIn(emulator.endpoint_url, settings.aws_region, env["AWS_SESSION_TOKEN"])
            )
            for key in sides:
                if extension[key]:
                    side_env[key] = {**env, EXTENSION_PORT_VARIABLE: str(stand_in.port)}
        for key in ("a", "b"):  # unrecorded: the page cache holds both layers
            probe(python, scratch[key], side_env[key])
        uptime_before = uptime()
        for run in range(args.runs):
            for key in ("a", "b") if run % 2 == 0 else ("b", "a"):
                samples[key].append(probe(python, scratch[key], side_env[key]))
        uptime_after = uptime()
    print(f"A = {_sha(sides['a'])} ({sides['a']}), B = {_sha(sides['b'])} ({sides['b']})")
    print(f"uptime before: {uptime_before}\nuptime after:  {uptime_after}")
    for key in ("a", "b"):
        wall, cpu = _stats([s["ms"] for s in samples[key]]), _stats([s["cpu_ms"] for s in samples[key]])
        how = "extension" if extension[key] else "AWS SDK" if samples[key][0]["sdk"] else "no AWS SDK"
        print(
            f"{key.upper()} ({how}): secret read wall p50 {wall['p50']} / p90 {wall['p90']} ms, "
            f"CPU p50 {cpu['p50']} / p90 {cpu['p90']} ms (min {cpu['min']}), {wall['n']} runs"
        )


if __name__ == "__main__":
    main()
