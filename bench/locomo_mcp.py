"""LoCoMo through the MCP URL: write every turn with the official MCP client, wait until the queue has
stored them, ask every question, print turn-level evidence recall@k.

    python bench/locomo_mcp.py                      # its own throw-away local stack, first conversation
    python bench/locomo_mcp.py --conversations 7    # the whole dev split
    python bench/locomo_mcp.py --url http://127.0.0.1:8080/mcp --token hsk_...   # a running `make run`

Each conversation is written as its own agent (agent_id = sample id), turns as episodic memories with
the session date as occurred_at, the speaker as an entity (as the in-process run writes it) and in metadata
with the dia_id.

Access: ``memory_search`` records each hit as recalled (access_count, the frequency prior), so a question's
answer would depend on the questions asked before it, which the in-process rows (bench/quality.py) do not
record. With its own stack the harness asks every question twice on the same stored rows: first with the
recorded access undone after each answer (it waits until the server's deferred update has landed, then
clears access_count and last_accessed_at of the agent's rows straight in the database: product code
untouched), scored as ``categories_1_4``, comparable with the in-process rows; then again as the service
does it, recording access, scored as ``recording_access``. With ``--url`` (no database at hand) only the
second way is possible and ``categories_1_4`` is that one (``access`` says which).

Keyword statistics: with its own stack the harness refreshes them once all turns are stored, as the
in-process run does (what scheduled maintenance would have counted by then); with ``--url`` they are
whatever the running service's maintenance has counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import Conversation, Scoreboard, load

from hindsight.client import ToolCallError, call, connect
from hindsight.logs import configure_local_logging


def _turn_args(conv: Conversation, turn: Any, positions: bool) -> dict[str, Any]:
    """memory_write's arguments for one turn (agent_id apart)."""
    return {
        "content": turn.content,
        "layer": "episodic",
        "occurred_at": turn.occurred_at.isoformat(),
        "entities": {"speaker": turn.speaker},  # as the in-process run (quality.jobs_for) writes it
        "metadata": {"dia_id": turn.dia_id, "session": turn.session, "speaker": turn.speaker},
        **(
            {
                "conversation_id": conv.sample_id,
                "session_index": turn.session,
                "turn_index": turn.turn_index,
                "session_at": turn.occurred_at.isoformat(),
            }
            if positions
            else {}
        ),
    }


async def ingest(
    client: Client, conv: Conversation, concurrency: int, positions: bool = True, batch: bool = True
) -> list[str]:
    """Write every turn; returns the write ids. ``positions``: with the turn's place in the conversation
    (conversation_id, session_index, turn_index, session_at), where the server takes them. ``batch``:
    100 turns a ``memory_write_batch`` call (where the server has it), else one ``memory_write`` each."""
    gate = asyncio.Semaphore(concurrency)
    if batch:

        async def write_batch(turns: list[Any]) -> list[str]:
            arguments = {"items": [_turn_args(conv, t, positions) for t in turns], "agent_id": conv.sample_id}
            while True:
                try:
                    async with gate:
                        result = await call(client, "memory_write_batch", arguments)
                    break
                except ToolCallError as exc:  # over the item budget (1,200 per 10 min): wait as told
                    if exc.kind != "rate_limited":
                        raise
                    await asyncio.sleep(float(exc.error.get("retry_after_s", 10)))
            refused = [r["error"]["message"] for r in result["results"] if r["status"] != "queued"]
            if refused:
                raise RuntimeError(f"{len(refused)} turns not queued: {refused[:3]}")
            return [str(r["id"]) for r in result["results"]]

        chunks = [conv.turns[i : i + 100] for i in range(0, len(conv.turns), 100)]
        return [i for ids in await asyncio.gather(*(write_batch(c) for c in chunks)) for i in ids]

    async def write(turn: Any) -> str:
        async with gate:
            ack = await call(
                client, "memory_write", {**_turn_args(conv, turn, positions), "agent_id": conv.sample_id}
            )
            return str(ack["id"])

    return list(await asyncio.gather(*(write(t) for t in conv.turns)))


NOT_DONE = {"pending", "queued", "unknown"}
"""memory_status answers "queued" (formerly "pending") until the worker has processed a write, and
"unknown" while the status log has not seen it yet."""


async def wait_until_stored(
    client: Client, ids: list[str], timeout_s: float, agent_id: str | None = None
) -> dict[str, int]:
    """Poll memory_status until no write is pending. Returns counts per status."""
    deadline = time.monotonic() + timeout_s
    pending = list(ids)
    counts: dict[str, int] = {}
    scope = {"agent_id": agent_id} if agent_id else {}
    while pending:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{len(pending)} writes still pending after {timeout_s:.0f}s")
        still: list[str] = []
        for start in range(0, len(pending), 100):
            chunk = pending[start : start + 100]
            result = await call(client, "memory_status", {"ids": chunk, **scope})
            for entry in result["writes"]:
                if entry["status"] in NOT_DONE:
                    still.append(entry["id"])
                else:
                    counts[entry["status"]] = counts.get(entry["status"], 0) + 1
        pending = still
        if pending:
            await asyncio.sleep(0.5)
    return counts


class AccessEraser:
    """Undoes what ``memory_search`` records (access_count, last_accessed_at) for one tenant, straight in
    the database of a throw-away stack: bench only, so each question is asked as if it were the first."""

    def __init__(self, database_url: str, tenant: str) -> None:
        self._url, self._tenant = database_url, tenant
        self._conn: Any = None

    async def __aenter__(self) -> AccessEraser:
        import psycopg

        self._conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
        # row-level security keys on this setting (session-wide here: autocommit, one tenant)
        await self._conn.execute("SELECT set_config('hindsight.tenant_id', %s, false)", (self._tenant,))
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._conn.close()

    async def erase(self, agent_id: str, timeout_s: float = 60.0) -> None:
        """Wait until the last search's access update is visible (the server records it right after
        answering, in one UPDATE), then clear every recorded access of the agent's memories. Raises
        TimeoutError if the update never lands."""
        deadline = time.monotonic() + timeout_s
        # the agent's recorded accesses (migration 018: rows of memory_access; before it, columns of
        # memories: last_accessed_at IS NOT NULL)
        where = """tenant_id = %s AND memory_id IN (
                       SELECT id FROM memories WHERE tenant_id = %s AND agent_id = %s)"""
        params = (self._tenant, self._tenant, agent_id)
        while True:
            cur = await self._conn.execute(f"SELECT count(*) FROM memory_access WHERE {where}", params)
            row = await cur.fetchone()
            if row and row[0] > 0:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"no access recorded for {agent_id} after {timeout_s:.0f}s")
            await asyncio.sleep(0.02)
        await self._conn.execute(f"DELETE FROM memory_access WHERE {where}", params)


async def refresh_keyword_stats(database_url: str, tenant: str, agents: list[str]) -> None:
    """What scheduled maintenance (every 15 minutes in AWS) would have counted by now: each agent's
    keyword statistics, which search's rare-word probe and common-word cut read. Only this step, as the
    in-process run (bench/quality.py) does it: decay would archive the 2023 conversations at once."""
    from hindsight.adapters.postgres.maintenance import PostgresMaintenanceStore
    from hindsight.adapters.postgres.pool import open_pool
    from hindsight.domain.memory import Scope

    pool = await open_pool(database_url, min_size=1, max_size=1, timeout_s=30)
    try:
        for agent in agents:
            await PostgresMaintenanceStore(pool).refresh_keyword_stats(
                Scope(tenant_id=tenant, agent_id=agent)
            )
    finally:
        await pool.close()


async def ask(
    client: Client,
    conv: Conversation,
    board: Scoreboard,
    top_k: int,
    eraser: AccessEraser | None = None,
    timings: list[float] | None = None,
) -> None:
    """Every question with evidence through ``memory_search``, scored into ``board`` (each call's round
    trip in ms appended to ``timings``); with ``eraser``, the access each search records is undone
    before the next question."""
    for q in conv.questions:
        if not q.evidence:
            continue
        # asked when the in-process run asks it (bench/quality.py: the day after the last session), so
        # "last week", "recently" and recency mean the same there and here, not today's date
        asked = q.as_of
        started = time.perf_counter()
        found = await call(
            client,
            "memory_search",
            {"query": q.question, "top_k": top_k, "agent_id": conv.sample_id, "as_of": asked.isoformat()},
        )
        if timings is not None:
            timings.append((time.perf_counter() - started) * 1000)
        retrieved = [r["memory"]["metadata"].get("dia_id", "") for r in found["results"]]
        board.add(q.category, retrieved, q.evidence, conv.sample_id)
        if eraser is not None and found["results"]:
            await eraser.erase(conv.sample_id)


async def run(
    url: str,
    token: str,
    conversations: list[Conversation],
    *,
    mode: str,
    concurrency: int,
    top_k: int,
    database: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """Write, wait until stored, ask. ``database``: (database URL, tenant) of a throw-away stack, to ask
    each question first with its recorded access undone (see the module's docstring)."""
    board, recording = Scoreboard(), Scoreboard()
    timings: list[float] = []
    async with connect(url, token, mode=mode) as client:
        # memory_status is per agent where the server takes agent_id (each conversation is an agent)
        tools = {t.name: t for t in (await client.list_tools()).tools}
        per_agent = "agent_id" in tools["memory_status"].input_schema.get("properties", {})
        positions = "conversation_id" in tools["memory_write"].input_schema.get("properties", {})
        batch = "memory_write_batch" in tools
        started = time.monotonic()
        ids: dict[str, list[str]] = {}
        for conv in conversations:
            ids[conv.sample_id] = await ingest(client, conv, concurrency, positions, batch)
        acked = time.monotonic()
        outcome: dict[str, int] = {}
        for agent, agent_ids in ids.items():
            counts = await wait_until_stored(client, agent_ids, 600, agent if per_agent else None)
            for status, n in counts.items():
                outcome[status] = outcome.get(status, 0) + n
        stored = time.monotonic()
        if database is not None:
            await refresh_keyword_stats(database[0], database[1], list(ids))
            async with AccessEraser(*database) as eraser:
                for conv in conversations:
                    await ask(client, conv, board, top_k, eraser, timings)
        else:
            for conv in conversations:
                await ask(client, conv, recording, top_k, timings=timings)
        asked = time.monotonic()
        if database is not None:  # then as the service does it, on the same rows, nothing recorded yet
            for conv in conversations:
                await ask(client, conv, recording, top_k)
    main = board if board.rows else recording
    return {
        "conversations": [c.sample_id for c in conversations],
        "writes": "memory_write_batch" if batch else "memory_write",
        "turns": sum(len(v) for v in ids.values()),
        "write_outcomes": outcome,
        "seconds": {
            "write_ack": round(acked - started, 1),
            "until_stored": round(stored - started, 1),
            "questions": round(asked - stored, 1),
        },
        "search_ms_mean": round(sum(timings) / max(1, len(timings)), 1),
        "keyword_stats": "refreshed once stored (as in-process)" if database is not None else "the service's",
        "access": (
            "undone after each question (as the in-process rows); recording_access: as the service records it"
            if database is not None
            else "recorded (memory_search as the service does it)"
        ),
        "categories_1_4": main.summary((1, 2, 3, 4)),
        "category_5": main.summary((5,)),
        **(
            {
                "recording_access": {
                    "categories_1_4": recording.summary((1, 2, 3, 4)),
                    "category_5": recording.summary((5,)),
                }
            }
            if database is not None
            else {}
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="MCP URL of a running Hindsight (default: start a throw-away stack)")
    parser.add_argument("--token", help="API key for --url")
    parser.add_argument("--conversations", type=int, default=1, help="how many conversations (dev split: 7)")
    parser.add_argument("--mode", default="legacy", choices=["legacy", "2026-07-28", "auto"])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--top-k", type=int, default=25)
    parser.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    configure_local_logging("WARNING")
    conversations = load()[: args.conversations]

    with ExitStack() as stack:
        url, token = args.url, args.token
        database: tuple[str, str] | None = None
        if url is None:
            from hindsight.local.serve import BackgroundServer
            from hindsight.local.stack import LocalStack

            local = stack.enter_context(
                LocalStack(Path(tempfile.mkdtemp(prefix="hindsight-locomo-")), ephemeral=True)
            )
            local.start_write_poller(background=True)
            server = BackgroundServer(local.require_settings()).start()
            stack.callback(server.stop)
            url, token = server.url, local.mint_token("locomo")
            database = (local.require_settings().require_database_url(), "locomo")
        if not token:
            parser.error("--token is required with --url")
        result = asyncio.run(
            run(
                url,
                token,
                conversations,
                mode=args.mode,
                concurrency=args.concurrency,
                top_k=args.top_k,
                database=database,
            )
        )
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    s = result["categories_1_4"]
    print(
        f"\nLoCoMo {', '.join(result['conversations'])}: {s['questions']} questions (categories 1-4): "
        f"recall@5 = {s['recall_at_5']:.3f}, recall@10 = {s['recall_at_10']:.3f} (access {result['access']})"
    )
    if "recording_access" in result:
        r = result["recording_access"]["categories_1_4"]
        print(f"recording access: recall@5 = {r['recall_at_5']:.3f}, recall@10 = {r['recall_at_10']:.3f}")


if __name__ == "__main__":
    main()
