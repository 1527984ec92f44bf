"""docs/reliability.md from a chaos soak result (bench/chaos.py --docs): the figures of that run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

PAGE_START = "<!-- chaos-soak:start -->"
PAGE_END = "<!-- chaos-soak:end -->"


def figures(result: dict[str, Any]) -> str:
    """The generated part: configuration, faults by kind with recovery, operations, invariant counts."""
    c, cfg = result["counts"], result["config"]
    lines = [
        f"Run of {result['measured_at']} — `{result['command']}` (seed **{cfg['seed']}**; "
        f"{cfg['agents']} agents of {cfg['tenants']} tenants, {cfg['workers']} extra workers, "
        f"{result['load_s']:g} s of load, embedder `{cfg['embedder']}`, visibility timeout "
        f"{cfg['visibility']} s; machine load average {result['machine']['load_average_1_5_15']}).",
        "",
        f"A probe (write → stored → found) took {result.get('probe_baseline_s')} s at the start of the load, "
        "with no fault: recovery times include the queue's backlog under load, not only the fault.",
        "",
        "| fault | injected | recovery p50 s | recovery max s |",
        "|---|---|---|---|",
    ]
    for kind, n in sorted(result["faults_by_kind"].items()):
        rec = result["recovery_s"].get(kind, {})
        lines.append(f"| `{kind}` | {n} | {rec.get('p50', '–')} | {rec.get('max', '–')} |")
    every = result["recovery_s"].get("all", {})
    lines += [
        f"| **all** | **{len(result['faults'])}** | **{every.get('p50', '–')}** | "
        f"**{every.get('max', '–')}** |",
        "",
        "| tool | ok | refused (not found / invalid) | retryable | no answer | server error |",
        "|---|---|---|---|---|---|",
    ]
    for tool, outcomes in sorted(result["ops"].items()):
        refused = sum(outcomes.get(k, 0) for k in ("not_found", "invalid_arguments", "forbidden"))
        crashed = outcomes.get("server_error", 0) + outcomes.get("unauthorized", 0)
        lines.append(
            f"| `{tool}` | {outcomes.get('ok', 0)} | {refused} | {outcomes.get('retryable', 0)} | "
            f"{outcomes.get('transport', 0)} | {crashed} |"
        )
    statuses = ", ".join(
        f"{k.removeprefix('status_')} {v}" for k, v in sorted(c.items()) if k.startswith("status_")
    )
    lines += [
        "",
        f"Writes attempted {c.get('writes', 0)}, acknowledged {c.get('acknowledged', 0)} (final status of "
        f"each id answered: {statuses}); never acknowledged {c.get('not_acknowledged', 0)} "
        "(each stored at most once). "
        f"Updates acknowledged {c.get('updates_acknowledged', 0)}, status changes (archive, restore, forget) "
        f"{c.get('changes_acknowledged', 0)}; working-memory items checked {c.get('wm_items', 0)}. "
        f"Tenant-confusion probes: {sum(result['probes'].values())} "
        f"({', '.join(f'{k} {v}' for k, v in sorted(result['probes'].items()))}). "
        f"Poison messages sent {result['poison_sent']}; dead letters at the end {c.get('dlq', 0)} "
        f"(poison {c.get('dlq_poison', 0)}, final jobs {c.get('dlq_final_jobs', 0)}; the emulator keeps its "
        "dead-letter queues in memory, so a later `restart_sqs` or `kill_run` empties them, which is why "
        f"{c.get('final_poison', 0)} of the poison messages were sent after the last fault: each must be in "
        f"the DLQ at the end, and {c.get('dlq_poison_missing', 0)} was not).",
        "",
        "| invariant | count |",
        "|---|---|",
    ]
    for key in (
        "lost",
        "duplicated",
        "leaked",
        "unapplied",
        "wm_mismatch",
        "server_errors",
        "errors_outside_faults",
        "dlq_unexplained",
        "failed_without_reason",
        "unrecovered",
        "violations",
    ):
        lines.append(f"| {key.replace('_', ' ')} | **{c.get(key, 0)}** |")
    fuzz = result.get("fuzz")
    if fuzz and fuzz.get("skipped"):
        lines += ["", f"HTTP fuzzing skipped: {fuzz['skipped']}."]
    elif fuzz:
        lines += [
            "",
            f"HTTP layer under atheris (coverage-guided, `bench/fuzz_http.py`) for {fuzz['seconds']} s: "
            f"**{fuzz['executions']} executions** ({fuzz['executions_per_s']}/s), coverage features "
            f"{fuzz['coverage_features']}, **{fuzz['crashes']} crashes**"
            + (f" ({fuzz['crashes_by_kind']})" if fuzz["crashes"] else "")
            + ".",
        ]
    return "\n".join(lines)


def write_page(result: dict[str, Any], page: Path) -> None:
    """Replace the generated block of ``page`` (between the markers) with this run's figures."""
    text = page.read_text()
    head, _, rest = text.partition(PAGE_START)
    _, _, tail = rest.partition(PAGE_END)
    page.write_text(f"{head}{PAGE_START}\n{figures(result)}\n{PAGE_END}{tail}")
