"""Operator commands on one agent's memory: ``write`` (through the real write path), ``search`` (with every
hit's per-signal scores) and ``inspect`` (counts, recent writes, sessions, queue depths)."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from hindsight.cli.common import (
    console,
    err_console,
    fail,
    operator_principal,
    print_json,
    run_or_exit,
    with_container,
)
from hindsight.cli.options import DEFAULT_TENANT, Agent, DataDir, JsonOut, Tenant
from hindsight.domain.limits import DEFAULT_AGENT_ID, SearchText


def _fmt(value: float | None, digits: int = 3) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _sid(value: object) -> str:
    """A short id for tables: the last 8 hex digits (UUIDv7 ids share their leading, time-based ones)."""
    return "…" + str(value)[-8:]


def _status(memory: Any) -> str:
    """'active', or 'active (now superseded by …1a2b3c4d)': its status then, today's when it differs."""
    now = memory.status_now
    successor = f" by {_sid(memory.superseded_by)}" if memory.superseded_by else ""
    if now is not None and now != memory.status:
        return f"{memory.status} (now {now}{successor})"
    return f"{memory.status}{successor}"


async def _write_queue_depths(settings: Any) -> tuple[int, int] | None:
    """(waiting, in progress) jobs on the write queues (both lanes), as SQS approximates them; None when
    they cannot be read."""
    from hindsight.adapters.sqs_queue import sqs_client
    from hindsight.adapters.sqs_stats import SqsQueueStats
    from hindsight.domain.errors import Unavailable

    stats = SqsQueueStats(
        sqs_client(settings.aws_region, settings.aws_endpoint_url),
        {"writes": settings.write_queue_url, "bulk writes": settings.bulk_queue_url},
    )
    try:
        depths = await stats.depths()
    except Unavailable:
        return None
    waiting = sum(int(d["visible"] or 0) + int(d["delayed"] or 0) for d in depths)  # type: ignore[call-overload]
    return waiting, sum(int(d["in_flight"] or 0) for d in depths)  # type: ignore[call-overload]


def still_queued(depths: tuple[int, int] | None) -> str:
    """Why a write waited in vain, as far as the write queues tell (trial F5: "is a worker running?" was
    said of a worker busy with a long write): jobs in progress mean a worker is busy; none in progress
    with jobs waiting, that no worker is taking them."""
    if depths is None:
        return "the write queues could not be read; is a worker running? (`hindsight run` runs one)"
    waiting, busy = depths
    if busy:
        return (
            f"a worker is busy: {busy} job(s) in progress, {waiting} waiting (this one among them); "
            "it is stored when its turn comes (`--timeout-s` waits longer)"
        )
    return f"{waiting} job(s) waiting and none in progress: is a worker running? (`hindsight run` runs one)"


def write(
    content: Annotated[str, typer.Argument(help="What to remember.")],
    tenant: Tenant = DEFAULT_TENANT,
    agent: Agent = DEFAULT_AGENT_ID,
    layer: Annotated[str, typer.Option(help="semantic (facts) or episodic (events).")] = "semantic",
    key: Annotated[str | None, typer.Option(help="One fact per key: a new value supersedes the old.")] = None,
    query: Annotated[str | None, typer.Option(help="When it should be recalled.")] = None,
    importance: Annotated[float, typer.Option(min=0.0, max=1.0)] = 0.5,
    source: Annotated[str, typer.Option(help="user_stated or agent_inferred.")] = "user_stated",
    tag: Annotated[list[str] | None, typer.Option(help="Tag (repeatable).")] = None,
    entity: Annotated[list[str] | None, typer.Option(help="Entity as name=value (repeatable).")] = None,
    occurred_at: Annotated[
        str | None,
        typer.Option(help="When it happened: ISO 8601, a partial date such as 2026-11 or 2026 allowed."),
    ] = None,
    wait: Annotated[bool, typer.Option(help="Wait until the worker has stored it.")] = True,
    timeout_s: Annotated[float, typer.Option(help="How long --wait waits.")] = 30.0,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Write a memory through the real write path (queue → worker) and, by default, wait for it."""
    from pydantic import ValidationError
    from rich.markup import escape

    from hindsight.domain.memory import MemoryDraft

    entities: dict[str, Any] = {}
    for item in entity or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            fail("--entity: expected name=value", as_json=as_json, code=2, error={"field": "--entity"})
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
            occurred_at=occurred_at,
        )
    except ValidationError as exc:
        errors = [
            {"field": ".".join(map(str, e["loc"])), "message": e["msg"].removeprefix("Value error, ")}
            for e in exc.errors(include_url=False, include_input=False)
        ]
        message = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        fail(message, as_json=as_json, error={"field": errors[0]["field"], "errors": errors})

    async def body(container: Any) -> tuple[Any, Any, tuple[int, int] | None]:
        if container.remember is None:
            from hindsight.domain.errors import ConfigurationError

            raise ConfigurationError("no write queue configured: set HINDSIGHT_WRITE_QUEUE_URL")
        ack = await container.remember(operator_principal(tenant), agent, draft)
        status = None
        deadline = time.monotonic() + timeout_s
        while wait:
            (status,) = await container.write_status(operator_principal(tenant), [ack.id], agent)
            if status.status != "queued" or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.2)
        stuck = status is not None and status.status == "queued"
        depths = await _write_queue_depths(container.settings) if stuck else None
        return ack, status, depths

    ack, status, depths = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
    state = status.status if status is not None else "queued"
    # what memory_write's answer says beside the id (an operator's write is never importance-capped):
    # what redaction replaced, a time the words name that was not read (trial21 M9: the CLI said only
    # "stored", so the memory was placed at the write time with no word said), the key as stored, and that
    # an episode's key is not the key's value
    changed = ack.model_dump(
        mode="json", include={"redacted", "time_not_read", "key", "key_note"}, exclude_none=True
    )
    if as_json:
        print_json(
            {
                "id": str(ack.id),
                "status": state,
                **changed,
                **({"status_detail": status.model_dump(mode="json")} if status else {}),
            }
        )
    else:
        detail = f" ({status.reason})" if status is not None and status.reason else ""
        console.print(f"{ack.id}  {state}{detail}")
        if "redacted" in changed:
            err_console.print(f"[yellow]redacted before storing:[/] {', '.join(changed['redacted'])}")
        if "time_not_read" in changed:
            err_console.print(
                f"[yellow]time not read:[/] {escape(changed['time_not_read'])}", highlight=False
            )
        if "key_note" in changed:
            err_console.print(f"[yellow]key:[/] {escape(changed['key_note'])}", highlight=False)
    if wait and state == "queued":
        err_console.print(f"[yellow]still queued after {timeout_s:g} s:[/] {still_queued(depths)}")
        raise typer.Exit(1)
    if state == "failed":
        raise typer.Exit(1)


def search(
    query: Annotated[str, typer.Argument(help="What to recall.")],
    tenant: Tenant = DEFAULT_TENANT,
    agent: Agent = DEFAULT_AGENT_ID,
    top_k: Annotated[int, typer.Option(min=1, max=100)] = 10,
    layer: Annotated[str | None, typer.Option(help="Only this layer.")] = None,
    status: Annotated[list[str] | None, typer.Option(help="Statuses to include (default: active).")] = None,
    time_range: Annotated[str | None, typer.Option(help="'last week', '2026-11-01..2026-11-15', …")] = None,
    as_of: Annotated[
        str | None, typer.Option(help="Ask as at this time (relative phrases, recency).")
    ] = None,
    valid_at: Annotated[str | None, typer.Option(help="What was true at this time (valid time).")] = None,
    known_at: Annotated[str | None, typer.Option(help="What the store held at this time.")] = None,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Search like memory_search and show every hit's per-signal scores. An operator's search is not
    counted as a recall (access counts are left alone). --as-of, --valid-at and --known-at
    take the ISO forms memory_search takes (a partial date means its last instant); with the last two,
    each hit shows its status then and, when it changed since, today's (status_now) and the memory that
    superseded it (superseded_by)."""
    from pydantic import TypeAdapter, ValidationError

    from hindsight.domain.isotime import AsOfTime
    from hindsight.usecases.recall import RecallQuery, resolve

    def checked(kind: Any, value: str, option: str) -> Any:
        # the MCP tool's own field types: the CLI refuses what memory_search refuses, in its words
        try:
            return TypeAdapter(kind).validate_python(value)
        except ValidationError as exc:
            reason = exc.errors(include_url=False, include_input=False)[0]["msg"].removeprefix(
                "Value error, "
            )
            fail(f"{option}: {reason}", as_json=as_json, error={"field": option})

    query = checked(SearchText, query, "QUERY")
    times: dict[str, Any] = {}
    for name, value in (("as_of", as_of), ("valid_at", valid_at), ("known_at", known_at)):
        option = f"--{name.replace('_', '-')}"
        times[name] = None if value is None else checked(AsOfTime, value, option)

    async def body(container: Any) -> list[Any]:
        request_query = RecallQuery(
            text=query,
            top_k=top_k,
            layers=(layer,) if layer else ("episodic", "semantic"),  # type: ignore[arg-type]
            statuses=tuple(status) if status else ("active",),  # type: ignore[arg-type]
            time_range=time_range,
            **times,
        )
        request = resolve(request_query, request_query.as_of or container.clock.now())
        return await container.recall.search(  # type: ignore[no-any-return]
            operator_principal(tenant).scope(agent), request, record_access=False
        )

    hits = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
    if as_json:
        print_json(
            [
                {
                    "id": str(h.memory.id),
                    "content": h.memory.content,
                    "layer": h.memory.layer,
                    "status": h.memory.status,
                    "status_now": h.memory.status_now,
                    "superseded_by": h.memory.superseded_by and str(h.memory.superseded_by),
                    "valid_from": h.memory.valid_from and h.memory.valid_from.isoformat(),
                    "valid_to": h.memory.valid_to and h.memory.valid_to.isoformat(),
                    "scores": h.scores.model_dump(),
                    "flags": h.flags,
                }
                for h in hits
            ]
        )
        return
    # every score takes ~50 columns: a narrower terminal shows relevance and final only, so the content
    # stays readable (it wraps there), and says how to see the rest
    narrow = console.width < WIDE_TABLE_COLUMNS
    table = Table(
        title=f"{len(hits)} hit(s) for {query!r}",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        caption=f"relevance and final only: every score with --json or COLUMNS>={WIDE_TABLE_COLUMNS}"
        if narrow
        else None,
        caption_justify="left",
    )
    table.add_column("rank id", no_wrap=True, min_width=12)
    table.add_column("layer", no_wrap=True, min_width=8)
    # A point-in-time search (or one asking for other statuses) shows each hit's status then, and today's
    # with its successor when it changed since (``status_now``, ``superseded_by``).
    show_status = bool(valid_at or known_at or status) or any(
        h.memory.status_now or h.memory.superseded_by or h.memory.status != "active" for h in hits
    )
    if show_status:
        table.add_column("status (now)", no_wrap=True, min_width=12)
    if narrow:
        table.add_column("content", min_width=24, ratio=1, overflow="fold")
    else:
        table.add_column("content", no_wrap=True, overflow="ellipsis", max_width=30)
    names = ("relev", "final") if narrow else SCORE_COLUMNS
    for name in names:
        table.add_column(
            name, no_wrap=True, justify="right", min_width=6 if name == "rrf" else max(len(name), 4)
        )
    table.add_column("flags")
    for rank, h in enumerate(hits, start=1):
        scores = _score_cells(h.scores)
        table.add_row(
            f"{rank:>2} {_sid(h.memory.id)}",
            h.memory.layer,
            *([_status(h.memory)] if show_status else []),
            " ".join(h.memory.content.split()),
            *(scores[name] for name in names),
            ",".join(h.flags),
        )
    console.print(table)


MAX_RECENT_WRITES = 1000
"""The most recent writes ``inspect --writes`` shows (one read of the operation log; 0 shows none)."""
WIDE_TABLE_COLUMNS = 130
"""Terminal width from which ``search`` shows every score column."""
SCORE_COLUMNS = ("vector", "keyword", "entity", "rrf", "relev", "time", "freq", "imp", "final")


def _score_cells(s: Any) -> dict[str, str]:
    """A hit's scores as the table's cells, by column name."""
    return {
        "vector": _fmt(s.vector, 2),
        "keyword": _fmt(s.keyword, 2),
        "entity": "" if s.entity is None else str(s.entity),
        "rrf": _fmt(s.rrf, 4),
        "relev": _fmt(s.relevance, 2),
        "time": _fmt(s.time, 2),
        "freq": _fmt(s.frequency, 2),
        "imp": _fmt(s.importance, 2),
        "final": f"[bold]{s.final:.3f}[/]",
    }


def inspect(
    positional_agent: Annotated[
        str | None,
        typer.Argument(
            metavar="AGENT", help="The agent, as --agent gives it (the older spelling).", show_default=False
        ),
    ] = None,
    tenant: Tenant = DEFAULT_TENANT,
    agent: Annotated[
        str | None,
        typer.Option(help=f"Agent within the tenant (default: {DEFAULT_AGENT_ID}).", show_default=False),
    ] = None,
    writes: Annotated[int, typer.Option(min=0, max=MAX_RECENT_WRITES, help="Recent writes to show.")] = 10,
    data_dir: DataDir = None,
    as_json: JsonOut = False,
) -> None:
    """Counts per layer and status, recent writes, working-memory sessions, queue and DLQ depth. The
    agent is --agent, as for write and search; `hindsight inspect AGENT` still works."""
    from hindsight.domain.memory import Scope
    from hindsight.operator_tools import operator_tools

    if agent is not None and positional_agent is not None and agent != positional_agent:
        fail(
            f"two agents given, '{positional_agent}' and --agent '{agent}': give the agent once, with "
            "--agent",
            as_json=as_json,
            code=2,
            error={"field": "--agent"},
        )
    if agent is None:  # an empty --agent is left to the scope's check, never taken for the default
        agent = positional_agent if positional_agent is not None else DEFAULT_AGENT_ID

    async def body(container: Any) -> Any:
        tools = operator_tools(container)
        return await tools.inspect.overview(
            Scope(tenant_id=tenant, agent_id=agent), write_limit=writes, with_memories=False
        )

    view = run_or_exit(lambda: with_container(data_dir, body), as_json=as_json)
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
