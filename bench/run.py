"""Hindsight benchmarks: ``python bench/run.py locomo|cjk|latency|throughput|all|report``.

Each piece starts its own throw-away local stack, writes its section into bench/results/latest.json
(other sections are kept) and regenerates docs/benchmarks.md. ``make bench`` runs them all.

    python bench/run.py locomo [--conversations 7] [--mcp-conversations 1]
    python bench/run.py cjk             # Chinese/mixed memories (bench/data/cjk_retrieval.json)
    python bench/run.py latency [--sizes 1000,10000,100000] [--searches 200] [--warmup 20] [--search-only]
    python bench/run.py latency --sizes 1000000 --search-only   # 1M, once (~1 h here; see docs/benchmarks.md)
    python bench/run.py latency --sizes 1000000 --search-only --keep-stack   # load once, reuse after
    python bench/run.py throughput [--db-only]   # --db-only: the model alone and the worker's DB part
    python bench/run.py neighbours [--import-size 1000] [--writes 40] [--phases ...]   # lanes, A/B in one run
    python bench/run.py report          # only regenerate docs/benchmarks.md and the plot
"""

from __future__ import annotations

import argparse
import logging
import shlex
import signal
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_results, log, merge_results

from hindsight.logs import configure_local_logging


def _command() -> str:
    return "python bench/run.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def run_locomo(args: argparse.Namespace) -> None:
    import quality

    if getattr(args, "mcp_only", False):
        # Only the end-to-end MCP-URL run, merged into the locomo section measured before.
        section = load_results().get("locomo")
        if not section:
            raise SystemExit("no locomo section in bench/results/latest.json yet: run `locomo` first")
        section["mcp"] = quality.mcp_run(max(1, args.mcp_conversations))
        merge_results("locomo", section, _command())
        return
    result = quality.run(args.conversations, args.mcp_conversations)
    merge_results("locomo", quality.flatten(result), _command())


def run_cjk(_: argparse.Namespace) -> None:
    import cjk

    merge_results("cjk", cjk.run(), _command())


def _kept_stack(given: str | None, default: Path) -> Path | None:
    """``--keep-stack``'s folder: None without the flag, ``default`` for the bare flag, else the DIR given."""
    if given is None:
        return None
    return Path(given) if given else default


def run_latency(args: argparse.Namespace) -> None:
    import latency

    sizes = [int(s) for s in args.sizes.split(",") if s]
    result = latency.run(
        sizes,
        searches=args.searches,
        warmup=args.warmup,
        cold_runs=args.cold_runs,
        search_only=args.search_only,
        keep_stack=_kept_stack(args.keep_stack, latency.KEPT_STACKS / "latency"),
    )
    # each tier carries its own command and time: a --search-only run merges tiers of different runs
    stamp = {"measured_at": datetime.now(UTC).isoformat(timespec="seconds"), "command": _command()}
    for tier in result["latency"].values():
        tier["measured"] = stamp
    if args.search_only:  # only the sizes measured are replaced; the rest of the section stays
        data = load_results()
        kept = data.get("latency", {})
        before = data.get("sections", {}).get("latency", {})
        for tier in kept.values():  # tiers measured before tiers were stamped: the section's stamp
            tier.setdefault("measured", {k: before.get(k, "?") for k in ("measured_at", "command")})
        merge_results("latency", {**kept, **result["latency"]}, _command())
        return
    merge_results("latency", result["latency"], _command())
    for key in ("write_ack", "write_ack_p50_ms", "cold_start", "synthetic"):
        merge_results(key, result[key], _command())


def run_throughput(args: argparse.Namespace) -> None:
    import throughput

    if not getattr(args, "db_only", False):
        merge_results("throughput", throughput.run(), _command())
        return
    # Only the model alone and the worker's database part, merged into the section measured before; each
    # part keeps the time and command it was measured with.
    data = load_results()
    section = data.get("throughput")
    if not section:
        raise SystemExit("no throughput section in bench/results/latest.json yet: run `throughput` first")
    before = data.get("sections", {}).get("throughput", {})
    section.setdefault("runs_measured", {k: before.get(k, "?") for k in ("measured_at", "command")})
    section.update(throughput.run_db_part())
    section["db_part_measured"] = {
        "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": _command(),
    }
    merge_results("throughput", section, _command())


def run_neighbours(args: argparse.Namespace) -> None:
    import neighbours

    result = neighbours.run(
        import_size=args.import_size,
        writes=args.writes,
        interval_s=args.interval,
        huge_chars=args.huge_chars,
        phases=args.phases.split(",") if args.phases else neighbours.DEFAULT_PHASES,
    )
    merge_results("neighbours", result, _command())


def run_report(_: argparse.Namespace) -> None:
    import report

    report.write()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="piece", required=True)
    for name in ("locomo", "all"):
        p = sub.add_parser(name)
        p.add_argument("--conversations", type=int, default=7)
        p.add_argument("--mcp-conversations", type=int, default=1, help="0 skips the MCP-URL run")
        if name == "locomo":
            p.add_argument("--mcp-only", action="store_true", help="only the MCP-URL run, merged in")
        if name == "all":
            _latency_args(p)
    sub.add_parser("cjk")
    _latency_args(sub.add_parser("latency"))
    p = sub.add_parser("throughput")
    p.add_argument(
        "--db-only", action="store_true", help="only the model alone and the worker's DB part, merged in"
    )
    p = sub.add_parser("neighbours")
    p.add_argument("--import-size", type=int, default=1000, help="memories the other tenant imports")
    p.add_argument("--writes", type=int, default=40, help="the interactive agent's writes")
    p.add_argument("--interval", type=float, default=0.5, help="seconds between the agent's writes")
    p.add_argument("--huge-chars", type=int, default=32_000, help="emoji in the huge-write phases' write")
    p.add_argument(
        "--phases",
        help="comma-separated, run in this order (default and names: bench/neighbours.py)",
    )
    sub.add_parser("report")
    args = parser.parse_args()
    # A plain `kill` must still stop the throw-away stacks (their context managers run on SystemExit).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    configure_local_logging("WARNING")
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    started = time.monotonic()
    pieces = {
        "locomo": [run_locomo],
        "cjk": [run_cjk],
        "latency": [run_latency],
        "throughput": [run_throughput],
        "neighbours": [run_neighbours],
        "report": [],
        "all": [run_locomo, run_cjk, run_latency, run_throughput],
    }[args.piece]
    for piece in pieces:
        piece(args)
    run_report(args)
    log(f"bench {args.piece}: done in {time.monotonic() - started:.0f}s")


def _latency_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="1000,10000,100000")
    p.add_argument("--searches", type=int, default=200)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--cold-runs", type=int, default=5)
    p.add_argument(
        "--search-only",
        action="store_true",
        help="in-process search, floor, HNSW recall and SQL plan only (no MCP, write acks, cold starts); "
        "merges the sizes measured into the latency section",
    )
    p.add_argument(
        "--keep-stack",
        nargs="?",
        const="",
        default=None,
        metavar="DIR",
        help="keep the loaded stack in DIR (default var/bench-stack/latency) and reuse it when it holds the "
        "same tier: the 1M tier is loaded and indexed once (stop it with the run; delete DIR to free ~6 GB)",
    )


if __name__ == "__main__":
    main()
