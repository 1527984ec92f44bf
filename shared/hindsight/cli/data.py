"""Moving memory in and out in bulk: ``export`` (JSON Lines), ``import`` (an export, optionally into another
tenant) and ``ingest`` (memory writes or a LoCoMo file, through the queue or directly)."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn
from uuid import UUID

import typer
from rich.progress import Progress

from hindsight.cli.common import (
    console,
    err_console,
    error_object,
    exit_code,
    fail,
    operator_principal,
    print_json,
    run_or_exit,
    with_container,
)
from hindsight.cli.options import DEFAULT_TENANT, DataDir, JsonOut, Tenant
from hindsight.cli.progress import progress_bar
from hindsight.domain.errors import HindsightError
from hindsight.domain.limits import DEFAULT_AGENT_ID

WAIT_STALL_S = 900.0
"""``ingest --wait`` gives up after this long without any of its jobs getting a result (``--wait-timeout``):
longer than one queue visibility timeout (the local stack's 30 s, the SAM queues' 720 s: a job that failed
is delivered again after it), so a job still being retried is waited for, one in the dead-letter queue
(which never gets a result) is not waited for for ever."""


def export_(
    tenant: Tenant = DEFAULT_TENANT,
    agent: Annotated[str | None, typer.Option(help="Only this agent (default: the whole tenant).")] = None,
    embeddings: Annotated[bool, typer.Option(help="Include the vectors (else import re-embeds).")] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
    data_dir: DataDir = None,
) -> None:
    """Export a tenant's (or one agent's) memory as JSON Lines: every column of every memory, chunks,
    relations, history, write outcomes; vectors on request."""

    async def body(container: Any) -> dict[str, int]:
        from hindsight.operator_tools import operator_tools

        tools = operator_tools(container)
        sink = output.open("w", encoding="utf-8") if output is not None else sys.stdout
        counts: dict[str, int] = {}
        try:
            async for record in tools.export(tenant, agent, with_embeddings=embeddings):
                sink.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
                if record["kind"] == "footer":
                    counts = record["counts"]
        finally:
            if output is not None:
                sink.close()
        return counts

    counts = run_or_exit(lambda: with_container(data_dir, body))
    summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
    err_console.print(f"exported {summary or 'nothing'}" + (f" to {output}" if output else ""))


def import_(
    file: Annotated[Path, typer.Argument(help="A file written by `hindsight export` ('-' for stdin).")],
    tenant: Annotated[str | None, typer.Option(help="Target tenant (default: the exported one).")] = None,
    remap_ids: Annotated[
        bool, typer.Option(help="Give every memory a new id (copy beside the original).")
    ] = False,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Import an export. Ids are kept unless --remap-ids; existing rows are skipped; memories without
    vectors (or of another model) are re-embedded with the configured embedder."""
    failed = {"complete": False, "report": None}  # --json: what a failure prints besides its error
    if str(file) != "-":
        _check_readable(file, as_json, failed)

    def records() -> Iterator[tuple[int, dict[str, Any]]]:
        """Each record with its line number; a line that is no JSON object (or no UTF-8 text) stops the
        import there."""
        from hindsight.domain.export_records import RecordRefused

        stream = sys.stdin.buffer if str(file) == "-" else file.open("rb")
        try:
            for number, raw in enumerate(stream, start=1):
                try:  # a byte order mark (some editors write one) is dropped from the first line
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise RecordRefused(
                        number, "", f"not UTF-8 text (byte {exc.start} of the line)"
                    ) from None
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise RecordRefused(number, "", f"not JSON: {exc.msg}") from None
                if not isinstance(record, dict):
                    raise RecordRefused(number, "", "not a JSON object: an export line is one object")
                yield number, record
        finally:
            if str(file) != "-":
                stream.close()

    async def body(container: Any) -> Any:
        from hindsight.operator_tools import operator_tools

        tools = operator_tools(container)
        with progress_bar() as progress:
            task = progress.add_task("importing", total=None)
            return await tools.import_(
                records(),
                tenant_id=tenant,
                remap_ids=remap_ids,
                progress=lambda n: progress.advance(task, n),
            )

    async def answered(container: Any) -> Any:
        """``body``'s report, or with --json the error it raised (printed as JSON below)."""
        from hindsight.domain.errors import HindsightError

        try:
            return await body(container)
        except HindsightError as exc:
            if not as_json:
                raise
            return exc

    report = run_or_exit(lambda: with_container(data_dir, answered), as_json=as_json, document=failed)
    if isinstance(report, HindsightError):
        partial = getattr(report, "partial", None)
        document = {**failed, "report": partial.model_dump(mode="json") if partial is not None else None}
        fail(str(report), as_json=True, code=exit_code(report), error=error_object(report), document=document)
    if as_json:
        print(report.model_dump_json())
    else:
        inserted = ", ".join(f"{n} {k}" for k, n in report.inserted.items()) or "nothing new"
        console.print(
            f"imported into {report.tenant_id}: {inserted}; skipped {report.skipped} existing; "
            f"re-embedded {report.reembedded}; causal links {report.causal_links}"
        )
        for settled in report.settled:  # a key names one fact: what met a fact of the tenant on its key
            console.print(f"key {settled.key} ({settled.agent_id}): {settled.memory_id} {settled.reason}")
    if not report.complete:
        err_console.print("[yellow]warning:[/] the file has no footer or its counts differ: truncated?")
        raise typer.Exit(1)


def _check_readable(file: Path, as_json: bool, document: dict[str, Any]) -> None:
    """Stop the command (``fail``, field "file") when ``file`` does not exist or cannot be opened."""
    try:
        with file.open("rb"):
            pass
    except FileNotFoundError:
        fail(f"{file}: no such file", as_json=as_json, error={"field": "file"}, document=document)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        fail(f"{file}: cannot read it: {reason}", as_json=as_json, error={"field": "file"}, document=document)


def ingest(
    file: Annotated[
        Path,
        typer.Argument(help="JSON Lines of memory writes, or a LoCoMo-format JSON file.", show_default=False),
    ],
    tenant: Tenant = DEFAULT_TENANT,
    agent: Annotated[
        str | None, typer.Option(help="Agent (default: 'default'; LoCoMo: each sample_id).")
    ] = None,
    file_format: Annotated[
        str,
        typer.Option(
            "--format", help="auto (a file starting with '[' is LoCoMo, else JSON Lines), jsonl or locomo."
        ),
    ] = "auto",
    direct: Annotated[
        bool,
        typer.Option(help="Embed and store in this process instead of through the queue (bulk loads)."),
    ] = False,
    wait: Annotated[
        bool,
        typer.Option(
            help="Queue mode: wait until every job this run queued has been processed by the worker."
        ),
    ] = False,
    wait_timeout: Annotated[
        float,
        typer.Option(
            min=1,
            help="With --wait: stop waiting (exit 1) once no job has been processed for this many seconds "
            "(a job in the dead-letter queue never is).",
        ),
    ] = WAIT_STALL_S,
    batch_size: Annotated[int, typer.Option(min=1, max=1000, help="Direct mode: memories per batch.")] = 64,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Write many memories from a file with a progress bar. Queue mode (default) goes through the same
    path as an agent's memory_write; --direct embeds in big batches here, several times faster.

    All or nothing: the whole file is checked before anything is written. If any line (JSON Lines) or
    turn (LoCoMo) is bad, every bad one is listed with its line number or place and nothing is ingested
    (exit 1). JSON Lines: one JSON object per line with at least "content" and any other memory_write
    field, plus agent_id, idempotency_key, valid_from, valid_to; blank lines and # comments are skipped.

    Ingesting a file again stores nothing twice (each item's idempotency key: its own, the LoCoMo turn
    id, or a hash of the line). A file using one idempotency_key twice with different content or fields
    is refused (the lines are listed); twice with identical ones stores it once. Items already processed
    are not queued again (already_processed). With --wait, the command returns once every job it queued
    has a result; a job an earlier run queued and the worker has not processed yet is queued again, and
    --wait returns once either copy is processed (the other then stores nothing).
    """
    from hindsight.domain.interchange import EXPECTED, Format, InvalidFile, detect_format, read_items

    if file_format not in ("auto", "jsonl", "locomo"):
        fail(
            "--format must be auto, jsonl or locomo",
            as_json=as_json,
            code=2,
            error={"field": "--format", "limit": {"one_of": ["auto", "jsonl", "locomo"]}},
        )
    text = _read_text(file, as_json)
    kind: Format = detect_format(text[:100]) if file_format == "auto" else file_format  # type: ignore[assignment]
    try:
        # now: a line's period without valid_from starts when it is written (checked as the worker would)
        items = read_items(text, kind, agent, default_agent=agent or DEFAULT_AGENT_ID, now=datetime.now(UTC))
    except InvalidFile as exc:
        _refuse_invalid_file(file, exc, EXPECTED[kind], as_json)
    if not items:
        fail(f"{file} has no items; nothing was ingested", as_json=as_json, error={"field": "file"})

    async def body(container: Any) -> Any:
        from hindsight.operator_tools import operator_tools

        tools = operator_tools(container)
        mode: Literal["queue", "direct"] = "direct" if direct else "queue"
        with progress_bar() as progress:
            task = progress.add_task(f"ingesting ({mode})", total=len(items))
            report = await tools.ingest(
                items,
                tenant_id=tenant,
                default_agent=agent or DEFAULT_AGENT_ID,
                mode=mode,
                batch_size=batch_size,
                progress=lambda n: progress.advance(task, n),
            )
            if wait and mode == "queue":
                report = await _wait_stored(container, tenant, report, progress, wait_timeout)
        return report

    report = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
    if as_json:
        print(report.model_dump_json(exclude={"ids"}))
    else:
        detail = ", ".join(f"{n} {k}" for k, n in report.outcomes.items()) or f"{report.queued} queued"
        if report.already_processed:
            detail += f" ({report.already_processed} processed by an earlier run: not queued again)"
        console.print(f"ingested {report.items} items from {file.name} ({kind}, {report.mode}): {detail}")
    for failure in report.not_stored[:20]:
        err_console.print(f"not stored: job {failure}", markup=False, soft_wrap=True)
    if report.unfinished:
        err_console.print(
            f"error: {report.unfinished} queued jobs had no result after {wait_timeout:g} s without progress "
            "(still queued, or in the dead-letter queue: see `hindsight inspect`); stopped waiting",
            markup=False,
            soft_wrap=True,
        )
    if report.failed:
        _print_item_failures(report.failures, "stored" if report.mode == "direct" else "queued")
    if report.failed or report.unfinished or report.not_stored:
        raise typer.Exit(1)


SHOWN_PROBLEMS = 50
"""Bad lines listed on the terminal when a file is refused (the count says how many more)."""
SHOWN_FAILURES = 20
"""Items not queued (not stored) listed on the terminal, of each kind (the count says how many more)."""


def _print_item_failures(failures: list[Any], done: str) -> None:
    """The items the service did not take (``usecases.ingest.ItemFailure``), worded by kind: an item whose
    data it refused is refused again until its line is fixed (no "retry"); one that met a transient
    failure (queue unavailable, rate limited) may be retried as is, keeping its id."""
    refused = [f for f in failures if not f.retryable]
    transient = [f for f in failures if f.retryable]
    for failure in refused[:SHOWN_FAILURES]:
        err_console.print(f"refused: {failure}", markup=False, highlight=False, soft_wrap=True)
    if len(refused) > SHOWN_FAILURES:
        err_console.print(f"  … and {len(refused) - SHOWN_FAILURES} more refused", markup=False)
    for failure in transient[:SHOWN_FAILURES]:
        err_console.print(f"not {done}: {failure}", markup=False, highlight=False, soft_wrap=True)
    if len(transient) > SHOWN_FAILURES:
        err_console.print(f"  … and {len(transient) - SHOWN_FAILURES} more not {done}", markup=False)
    if refused:
        err_console.print(
            f"error: {len(refused)} items not {done}: the service refused their data (the field and limit "
            "are named above); fix those lines, then ingest the file again (what was taken is not "
            "written twice)",
            markup=False,
            soft_wrap=True,
        )
    if transient:
        err_console.print(
            f"error: {len(transient)} items not {done} for a transient reason (a dependency unavailable or a "
            "rate limit); ingest the file again later: what was taken is not written twice, and these keep "
            "their ids",
            markup=False,
            soft_wrap=True,
        )


def _read_text(file: Path, as_json: bool) -> str:
    """The file as UTF-8 text (with or without a byte order mark); a clear error (field "file", and the
    line when the text is not UTF-8) and exit 1 when it cannot be read or is not UTF-8."""
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        fail(f"{file}: no such file", as_json=as_json, error={"field": "file"})
    except OSError as exc:
        reason = exc.strerror or str(exc)
        fail(f"{file}: cannot read it: {reason}", as_json=as_json, error={"field": "file"})
    try:
        return raw.decode("utf-8-sig")  # a leading byte order mark (some editors write one) is dropped
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        fail(
            f"{file}: line {line} (byte {exc.start}): not UTF-8 text; nothing was ingested",
            as_json=as_json,
            error={"field": "file", "line": line, "limit": {"encoding": "utf-8"}},
        )


_LINE = re.compile(r"^line (\d+)\b")


def _refuse_invalid_file(file: Path, exc: Any, expected: str, as_json: bool) -> NoReturn:
    """Every problem of a refused file (the first SHOWN_PROBLEMS on stderr; with --json all those kept, on
    stdout, each with its line when it has one), and what the format looks like; exit 1."""
    records = "line(s)" if exc.format == "jsonl" else "record(s)"
    name = "JSON Lines" if exc.format == "jsonl" else "LoCoMo"
    message = f"{file}: {exc.count} bad {records} (read as {name}); nothing was ingested"
    err_console.print(f"error: {message}", markup=False, soft_wrap=True)
    for problem in exc.problems[:SHOWN_PROBLEMS]:
        err_console.print(f"  {problem}", markup=False, highlight=False, soft_wrap=True)
    if exc.count > SHOWN_PROBLEMS:
        err_console.print(f"  … and {exc.count - SHOWN_PROBLEMS} more", markup=False)
    err_console.print(f"expected: {expected}", markup=False, highlight=False, soft_wrap=True)
    if as_json:
        problems = []
        for problem in exc.problems:
            found = _LINE.match(problem.where)
            line = int(found.group(1)) if found else None
            problems.append({"where": problem.where, "line": line, "message": problem.message})
        first = problems[0]
        error = {
            "kind": "invalid_input",
            "message": message,
            "field": first["where"],
            "line": first["line"],
            "limit": None,
        }
        print_json(
            {
                "error": error,
                "format": exc.format,
                "count": exc.count,
                "problems": problems,
                "expected": expected,
            }
        )
    raise typer.Exit(1)


async def _wait_stored(
    container: Any, tenant: str, report: Any, progress: Progress, stall_s: float = WAIT_STALL_S
) -> Any:
    """Poll ``memory_status`` until every job ``report`` queued has a result, or no job has had one for
    ``stall_s`` seconds (a job the queue gave up on, in its dead-letter queue, never gets one: the
    report then counts the jobs still ``unfinished``). A ``failed`` job's reason goes to ``not_stored``."""
    task = progress.add_task("stored by the worker", total=len(report.ids))
    outcomes: dict[str, int] = {}
    not_stored: list[str] = []
    remaining: list[UUID] = list(report.ids)
    loop = asyncio.get_running_loop()
    last_progress = loop.time()
    while remaining:
        done_now: list[UUID] = []
        for start in range(0, len(remaining), 100):
            batch = remaining[start : start + 100]
            for st in await container.write_status(operator_principal(tenant), batch, any_agent=True):
                if st.status not in ("queued", "unknown"):
                    outcomes[st.status] = outcomes.get(st.status, 0) + 1
                    done_now.append(st.id)
                    if st.status == "failed":
                        not_stored.append(f"{st.id}: {st.reason}")
        finished = set(done_now)
        remaining = [i for i in remaining if i not in finished]
        progress.advance(task, len(done_now))
        if done_now:
            last_progress = loop.time()
        elif loop.time() - last_progress >= stall_s:
            break
        if remaining:
            await asyncio.sleep(0.5)
    return report.model_copy(
        update={"outcomes": outcomes, "not_stored": not_stored, "unfinished": len(remaining)}
    )
