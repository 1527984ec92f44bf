"""The agents of the chaos soak: concurrent MCP clients of several tenants, and the ledger of what each
was told (bench/chaos.py).

Every call goes through the official MCP client (``hindsight.client.connect``) and is recorded as a
``Call``: when it started and ended, and how it ended — ``ok``, a refusal the caller caused
(``not_found``, ``invalid_arguments``: legitimate answers), ``retryable`` (dependency down, 503), a
``server_error`` (a crash, a 5xx other than 503, an error without a structured reason), or ``transport``
(no answer: connection refused or reset, timeout). Both ways a tool error can come back are understood:
a JSON-RPC error and a ``CallToolResult`` with ``isError`` and ``structuredContent.error``.

The ledger keeps, per write, the content's unique marker, the arguments and every answer, so the
checker can tell a lost write from one never acknowledged, and a duplicate from a retry. Rules that keep
"at most one row per marker" a promise the service makes, not luck: only writes with an idempotency key
are retried; a duplicate without a key repeats an *immutable* write (never updated or forgotten, so the
worker's near-duplicate merge applies); every working-memory value is new, so a promotion never repeats
an older value; every episodic write carries ``occurred_at`` (the same event reported twice merges).

Tenant-confusion probes: an agent of tenant A replays, with its own valid key, ids, task ids, idempotency
keys and session ids of tenant B. Every answer is scanned for B's data (B's tenant tag or one of B's ids
not sent in the request); a hit is a leak.
"""

from __future__ import annotations

import json
import random
import re
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
from mcp_types import CONNECTION_CLOSED  # the client's own error when the connection drops mid-call

from hindsight.client import connect

UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_WORD_TEXT = (
    "copper violin glacier pepper orbit lantern meadow quartz harbor falcon maple cobalt saffron "
    "tundra walnut ember prism lagoon thistle canyon velvet beacon juniper marble sparrow nectar "
    "pylon quiver raven summit topaz umber vortex willow zephyr alpine basalt cedar delta fjord garnet "
    "hazel indigo jasper kelp lumen mosaic nimbus opal pollen quill ripple sable tide vellum wicker "
    "yarrow zinc anchor bramble cinder dune estuary fern gorse heron ivy jetty kiln loam mica nettle "
    "oxbow pebble quarry reed shale talon upland vale wharf yew acorn birch clover drift egret flint "
)
WORDS = _WORD_TEXT.split()


# ---- one call, classified -------------------------------------------------------------------------


@dataclass
class Call:
    """One tool call as the soak saw it. Times are seconds since the soak started."""

    tool: str
    tenant: str
    started: float
    ended: float = 0.0
    outcome: str = "ok"
    """ok | not_found | invalid_arguments | forbidden | unauthorized | retryable | server_error | transport"""
    detail: str = ""
    result: dict[str, Any] | None = None


def classify_error(code: int | None, kind: str | None, retryable: bool | None) -> str:
    """The soak's outcome class for a structured tool error or JSON-RPC error."""
    if retryable or kind in ("unavailable", "rate_limited") or code in (-32001, -32029):
        return "retryable"
    if kind == "not_found" or code == -32002:
        return "not_found"
    if kind == "invalid_arguments" or code == -32602:
        return "invalid_arguments"
    if kind == "forbidden" or code == -32003:
        return "forbidden"
    if kind == "unauthorized" or code == -32004:
        return "unauthorized"
    return "server_error"


@dataclass
class Journal:
    """Every call and every HTTP status the clients saw, plus leak reports."""

    t0: float
    calls: list[Call] = field(default_factory=list)
    http: list[tuple[float, int]] = field(default_factory=list)
    """(time, status) of every HTTP response with status ≥ 500."""
    leaks: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    """Answers that break a promise at once (an idempotent retry with another id, …)."""

    def now(self) -> float:
        return time.monotonic() - self.t0

    async def on_response(self, response: Any) -> None:
        if response.status_code >= 500:
            self.http.append((self.now(), int(response.status_code)))


class Session:
    """An agent's MCP client: a connection per call (``hindsight.client.connect``), so a restart of the
    server or a dropped connection only ever fails the call in progress, and the client's task group
    lives and dies inside that call (a client kept open across calls would wrap the agent's own code in
    its cancel scope, and a transport failure would cancel the agent instead of the call)."""

    def __init__(
        self,
        endpoint: Callable[[], tuple[str, str]],
        token: str,
        mode: str,
        journal: Journal,
        timeout_s: float,
    ) -> None:
        self._endpoint = endpoint
        self._token = token
        self._mode = mode
        self._journal = journal
        self._timeout_s = timeout_s

    async def call(self, tenant: str, tool: str, arguments: dict[str, Any]) -> Call:
        record = Call(tool=tool, tenant=tenant, started=self._journal.now())
        try:
            url, _ = self._endpoint()
            with anyio.fail_after(self._timeout_s):
                async with connect(
                    url,
                    self._token,
                    mode=self._mode,
                    timeout_s=self._timeout_s,
                    on_response=self._journal.on_response,
                ) as client:
                    result = await client.call_tool(tool, arguments)
        except Exception as exc:
            error = _jsonrpc_error(exc)
            if error is not None and error.code != CONNECTION_CLOSED:
                data = error.data if isinstance(error.data, dict) else {}
                record.outcome = classify_error(error.code, None, data.get("retryable"))
                record.detail = f"{error.code}: {error.message[:200]}"
            else:
                record.outcome = "transport"
                record.detail = f"{type(exc).__name__}: {str(exc)[:200]}"
        else:
            structured = result.structured_content if isinstance(result.structured_content, dict) else None
            if result.is_error:
                error_obj = structured.get("error") if structured else None
                if isinstance(error_obj, dict):
                    record.outcome = classify_error(
                        error_obj.get("code"), error_obj.get("kind"), error_obj.get("retryable")
                    )
                    record.detail = f"{error_obj.get('kind')}: {str(error_obj.get('message'))[:200]}"
                else:  # the SDK's wrapping of an unexpected exception: a crash
                    text = " ".join(getattr(b, "text", "") for b in result.content)
                    record.outcome = "server_error"
                    record.detail = text[:300]
            elif structured is None:
                record.outcome = "server_error"
                record.detail = "no structured result"
            else:
                record.result = structured
        record.ended = self._journal.now()
        self._journal.calls.append(record)
        return record


def _jsonrpc_error(exc: BaseException) -> Any:
    """The JSON-RPC error (``MCPError.error``) in ``exc``, also inside an exception group; else None."""
    error = getattr(exc, "error", None)
    if error is not None and hasattr(error, "code"):
        return error
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            found = _jsonrpc_error(inner)
            if found is not None:
                return found
    return None


# ---- the ledger -----------------------------------------------------------------------------------


@dataclass
class Write:
    """One logical write (memory_write, a batch item, a promotion, a supersede, a reflection)."""

    marker: str
    tenant: str
    agent: str
    via: str
    arguments: dict[str, Any]
    idempotency_key: str | None = None
    task_id: str | None = None
    acks: list[str] = field(default_factory=list)
    """Ids answered (retries and deliberate duplicates of one idempotent write answer the same id)."""
    unknown: int = 0
    """Attempts with no answer (transport failure): stored at most once, maybe not at all."""
    immutable: bool = False

    @property
    def acknowledged(self) -> bool:
        return bool(self.acks)


@dataclass
class Edit:
    """What an agent did to one of its memories: the content it set and the statuses, each with whether
    the answer was ok (applied), unknown (transport: maybe applied) — refusals are not kept."""

    memory_id: str
    tenant: str
    agent: str
    original: str
    keyed: bool
    contents: list[tuple[str, str]] = field(default_factory=list)
    """(content, "ok" | "unknown") in call order."""
    statuses: list[tuple[str, str]] = field(default_factory=list)
    """(status: active | forgotten | archived | deleted | superseded, "ok" | "unknown") in call order."""
    supersede_ids: list[str] = field(default_factory=list)


@dataclass
class WorkingSession:
    tenant: str
    agent: str
    session_id: str
    possible: dict[str, set[str | None]] = field(default_factory=dict)
    """key → values it may have now (None: absent)."""


@dataclass
class Ledger:
    tenants: dict[str, str] = field(default_factory=dict)
    """tenant → its tag (a word only that tenant's contents carry)."""
    writes: list[Write] = field(default_factory=list)
    edits: dict[str, Edit] = field(default_factory=dict)
    sessions: dict[tuple[str, str, str], WorkingSession] = field(default_factory=dict)
    ids_by_tenant: dict[str, set[str]] = field(default_factory=dict)
    ops: Counter[str] = field(default_factory=Counter)
    probes: Counter[str] = field(default_factory=Counter)

    def own_id(self, tenant: str, memory_id: str) -> None:
        self.ids_by_tenant.setdefault(tenant, set()).add(memory_id)

    def foreign_ids(self, tenant: str) -> set[str]:
        return {i for t, ids in self.ids_by_tenant.items() if t != tenant for i in ids}


def scan_for_leaks(ledger: Ledger, tenant: str, call: Call, arguments: dict[str, Any]) -> list[str]:
    """Another tenant's tag or id in an answer to ``tenant`` (values the request itself sent excluded)."""
    if call.result is None:
        return []
    sent = json.dumps(arguments)
    text = json.dumps(call.result)
    found = []
    for other, tag in ledger.tenants.items():
        if other != tenant and tag in text and tag not in sent:
            found.append(f"{call.tool}: {tenant} saw tenant {other}'s tag")
    foreign = ledger.foreign_ids(tenant)
    for memory_id in set(UUID_RE.findall(text)) - set(UUID_RE.findall(sent)):
        if memory_id in foreign:
            found.append(f"{call.tool}: {tenant} saw {memory_id} of another tenant")
    if call.tool == "memory_search":  # hits never carry another tenant's content, whatever the query
        for hit in call.result.get("results", []):
            content = str(hit.get("memory", {}).get("content", ""))
            for other, tag in ledger.tenants.items():
                if other != tenant and tag in content:
                    found.append(f"memory_search: {tenant} got a hit of tenant {other}")
    return found


# ---- an agent ---------------------------------------------------------------------------------------

OPS: dict[str, float] = {
    "write_plain": 14,
    "write_idem": 12,
    "write_keyed": 6,
    "dup_idem": 5,
    "dup_plain": 4,
    "write_batch": 4,
    "update": 8,
    "supersede": 3,
    "archive_restore": 3,
    "forget": 5,
    "wm_set": 10,
    "wm_get": 4,
    "wm_clear": 3,
    "wm_promote": 3,
    "reflect": 5,
    "dup_reflect": 2,
    "search": 12,
    "status": 3,
    "confusion": 6,
}
"""Relative weights of the operations an agent picks from (``write_batch`` only if the server has it)."""


class Agent:
    """One agent of one tenant: picks operations at random (seeded), one at a time, until ``deadline``."""

    def __init__(
        self,
        *,
        name: str,
        tenant: str,
        tenant_index: int,
        session: Session,
        ledger: Ledger,
        journal: Journal,
        rng: random.Random,
        run_tag: str,
        has_batch: bool,
    ) -> None:
        self.name = name
        self.tenant = tenant
        self.tenant_index = tenant_index
        self.session = session
        self.ledger = ledger
        self.journal = journal
        self.rng = rng
        self.run_tag = run_tag
        self.has_batch = has_batch
        self.tag = ledger.tenants[tenant]
        self.n = 0
        self.mine: list[Write] = []
        self.live: list[Edit] = []
        """Memories this agent may still change (acknowledged, not hard-deleted, not superseded)."""
        self.session_ids = [f"s{self.run_tag}{tenant_index}{name}{k}" for k in range(2)]
        self.task_ids: list[str] = []

    # -- helpers --

    def _marker(self) -> str:
        self.n += 1
        return f"m{self.run_tag}t{self.tenant_index}{self.name}x{self.n}"

    def _content(self, marker: str) -> str:
        words = " ".join(self.rng.sample(WORDS, 7))
        return f"{self.tag} {self.name} notes {marker}: {words}"

    async def call(self, tool: str, arguments: dict[str, Any]) -> Call:
        call = await self.session.call(self.tenant, tool, arguments)
        self.ledger.ops[f"{tool}:{call.outcome}"] += 1
        self.journal.leaks.extend(scan_for_leaks(self.ledger, self.tenant, call, arguments))
        return call

    def _write_args(self, marker: str, *, episodic: bool | None = None) -> dict[str, Any]:
        episodic = self.rng.random() < 0.4 if episodic is None else episodic
        args: dict[str, Any] = {
            "content": self._content(marker),
            "agent_id": self.name,
            "importance": round(self.rng.uniform(0.2, 0.9), 2),
            "tags": [self.rng.choice(["chaos", "soak", "probe"])],
        }
        if episodic:
            args["layer"] = "episodic"
            occurred = datetime(2026, 11, 1, tzinfo=UTC) + timedelta(minutes=self.rng.randrange(50_000))
            args["occurred_at"] = occurred.isoformat()
        return args

    async def _send_write(self, write: Write, retries: int) -> None:
        """memory_write, retried (same arguments) on a transport failure or a retryable error when the
        write has an idempotency key; records every id answered."""
        for attempt in range(retries + 1):
            call = await self.call("memory_write", write.arguments)
            if call.outcome == "ok" and call.result is not None:
                self._acked(write, str(call.result["id"]))
                return
            if call.outcome == "transport":
                write.unknown += 1
            if call.outcome not in ("transport", "retryable") or attempt == retries:
                return
            await anyio.sleep(min(2.0, 0.25 * 2**attempt))

    def _acked(self, write: Write, memory_id: str) -> None:
        if write.acks and memory_id != write.acks[0]:
            self.journal.violations.append(
                f"{write.via} {write.marker}: a retry or duplicate answered {memory_id}, "
                f"first {write.acks[0]}"
            )
        write.acks.append(memory_id)
        self.ledger.own_id(self.tenant, memory_id)

    def _new_write(self, via: str, arguments: dict[str, Any], marker: str, **kw: Any) -> Write:
        write = Write(marker=marker, tenant=self.tenant, agent=self.name, via=via, arguments=arguments, **kw)
        self.ledger.writes.append(write)
        self.mine.append(write)
        return write

    def _track(self, write: Write, keyed: bool) -> None:
        if write.acknowledged and not write.immutable and write.via != "reflect":
            edit = Edit(
                memory_id=write.acks[0],
                tenant=self.tenant,
                agent=self.name,
                original=write.arguments["content"],
                keyed=keyed,
            )
            self.ledger.edits[edit.memory_id] = edit
            self.live.append(edit)

    # -- operations --

    async def write_plain(self) -> None:
        marker = self._marker()
        immutable = self.rng.random() < 0.5  # a source for later duplicates without a key
        write = self._new_write("memory_write", self._write_args(marker), marker, immutable=immutable)
        await self._send_write(write, retries=0)  # no key: never retried (a retry could be a new fact)
        self._track(write, keyed=False)

    async def write_idem(self) -> None:
        marker = self._marker()
        args = self._write_args(marker) | {"idempotency_key": f"ik-{marker}"}
        write = self._new_write("memory_write", args, marker, idempotency_key=args["idempotency_key"])
        await self._send_write(write, retries=4)
        self._track(write, keyed=False)

    async def write_keyed(self) -> None:
        marker = self._marker()
        key = f"pref.{self.name}.k{self.rng.randrange(3)}"
        args = self._write_args(marker, episodic=False) | {"key": key, "idempotency_key": f"ik-{marker}"}
        write = self._new_write("memory_write", args, marker, idempotency_key=args["idempotency_key"])
        await self._send_write(write, retries=4)
        self._track(write, keyed=True)

    async def dup_idem(self) -> None:
        sources = [w for w in self.mine if w.idempotency_key and w.via == "memory_write"]
        if not sources:
            return await self.write_idem()
        await self._send_write(self.rng.choice(sources), retries=2)

    async def dup_plain(self) -> None:
        sources = [w for w in self.mine if w.immutable and w.acknowledged]
        if not sources:
            return await self.write_plain()
        source = self.rng.choice(sources)
        call = await self.call("memory_write", source.arguments)
        if call.outcome == "ok" and call.result is not None:
            source.acks.append(str(call.result["id"]))  # another job id; it must merge into the first
            self.ledger.own_id(self.tenant, str(call.result["id"]))
        elif call.outcome == "transport":
            source.unknown += 1

    async def write_batch(self) -> None:
        if not self.has_batch:
            return await self.write_idem()
        items, writes = [], []
        for _ in range(self.rng.randint(2, 6)):
            marker = self._marker()
            item = self._write_args(marker) | {"idempotency_key": f"ik-{marker}"}
            item.pop("agent_id")
            items.append(item)
            writes.append(
                self._new_write("memory_write_batch", item, marker, idempotency_key=item["idempotency_key"])
            )
        for attempt in range(3):
            call = await self.call("memory_write_batch", {"items": items, "agent_id": self.name})
            if call.outcome == "ok" and call.result is not None:
                answers = next((v for v in call.result.values() if isinstance(v, list)), [])
                for write, answer in zip(writes, answers, strict=False):
                    if isinstance(answer, dict) and answer.get("id") and answer.get("status") == "queued":
                        self._acked(write, str(answer["id"]))
                break
            if call.outcome == "transport":
                for write in writes:
                    write.unknown += 1
            if call.outcome not in ("transport", "retryable"):
                break
            await anyio.sleep(0.5 * (attempt + 1))
        for write in writes:
            self._track(write, keyed=False)

    def _pick_live(self, status: str | None = "active") -> Edit | None:
        candidates = [e for e in self.live if status is None or _believed_status(e) == status]
        return self.rng.choice(candidates) if candidates else None

    async def update(self) -> None:
        edit = self._pick_live()
        if edit is None:
            return await self.write_idem()
        content = f"{edit.original} revised r{self.rng.randrange(10**6)}"
        call = await self.call(
            "memory_update",
            {
                "id": edit.memory_id,
                "action": "update",
                "content": content,
                "reason": "chaos soak correction",
                "agent_id": self.name,
            },
        )
        if call.outcome in ("ok", "transport"):
            edit.contents.append((content, "ok" if call.outcome == "ok" else "unknown"))

    async def supersede(self) -> None:
        edit = self._pick_live()
        if edit is None:
            return await self.write_idem()
        marker = self._marker()
        content = self._content(marker)
        args = {"id": edit.memory_id, "action": "supersede", "content": content, "agent_id": self.name}
        call = await self.call("memory_update", args)
        if call.outcome == "ok" and call.result is not None and call.result.get("queued"):
            new_id = str(call.result["queued"]["id"])
            write = self._new_write("supersede", {"content": content}, marker)
            self._acked(write, new_id)
            edit.statuses.append(("superseded", "ok"))
            edit.supersede_ids.append(new_id)
            self.live.remove(edit)
        elif call.outcome == "transport":
            # Maybe queued: its new memory is unknown to us (no id), so the marker may hold 0 or 1 rows.
            self._new_write("supersede", {"content": content}, marker).unknown += 1
            edit.statuses.append(("superseded", "unknown"))

    async def archive_restore(self) -> None:
        archived = self._pick_live("archived") or self._pick_live("forgotten")
        if archived is not None and not archived.keyed and self.rng.random() < 0.6:
            edit, action, status = archived, "restore", "active"
        else:
            picked = self._pick_live()
            if picked is None:
                return await self.write_idem()
            edit, action, status = picked, "archive", "archived"
        call = await self.call(
            "memory_update", {"id": edit.memory_id, "action": action, "agent_id": self.name}
        )
        if call.outcome in ("ok", "transport"):
            edit.statuses.append((status, "ok" if call.outcome == "ok" else "unknown"))

    async def forget(self) -> None:
        edit = self._pick_live()
        if edit is None:
            return await self.write_idem()
        hard = self.rng.random() < 0.4
        call = await self.call(
            "memory_forget",
            {"id": edit.memory_id, "hard": hard, "agent_id": self.name, "reason": "chaos soak forget"},
        )
        if call.outcome in ("ok", "transport"):
            edit.statuses.append(
                ("deleted" if hard else "forgotten", "ok" if call.outcome == "ok" else "unknown")
            )
            if hard and call.outcome == "ok":
                self.live.remove(edit)

    def _wm(self, session_id: str) -> WorkingSession:
        key = (self.tenant, self.name, session_id)
        if key not in self.ledger.sessions:
            self.ledger.sessions[key] = WorkingSession(self.tenant, self.name, session_id)
        return self.ledger.sessions[key]

    async def wm_set(self) -> None:
        session = self._wm(self.rng.choice(self.session_ids))
        key = f"{session.session_id}.k{self.rng.randrange(4)}"
        value = self._content(self._marker())
        call = await self.call(
            "working_memory_set",
            {"session_id": session.session_id, "key": key, "content": value, "agent_id": self.name},
        )
        if call.outcome == "ok":
            session.possible[key] = {value}
        elif call.outcome == "transport":
            session.possible.setdefault(key, {None}).add(value)

    async def wm_get(self) -> None:
        session = self._wm(self.rng.choice(self.session_ids))
        await self.call("working_memory_get", {"session_id": session.session_id, "agent_id": self.name})

    async def wm_clear(self) -> None:
        session = self._wm(self.rng.choice(self.session_ids))
        whole = self.rng.random() < 0.25
        keys = list(session.possible) if whole else [f"{session.session_id}.k{self.rng.randrange(4)}"]
        args: dict[str, Any] = {"session_id": session.session_id, "agent_id": self.name}
        if not whole:
            args["key"] = keys[0]
        call = await self.call("working_memory_clear", args)
        for key in keys:
            if call.outcome == "ok":
                session.possible[key] = {None}
            elif call.outcome == "transport":
                session.possible.setdefault(key, {None}).add(None)

    async def wm_promote(self) -> None:
        session = self._wm(self.rng.choice(self.session_ids))
        present = [k for k, v in session.possible.items() if len(v) == 1 and None not in v]
        if not present:
            return await self.wm_set()
        key = self.rng.choice(present)
        (value,) = session.possible[key]
        assert value is not None
        marker = value.split(" notes ", 1)[1].split(":", 1)[0]
        call = await self.call(
            "working_memory_promote", {"session_id": session.session_id, "key": key, "agent_id": self.name}
        )
        existing = next((w for w in self.mine if w.marker == marker and w.via == "promote"), None)
        write = existing or self._new_write("promote", {"content": value, "key": key}, marker)
        if call.outcome == "ok" and call.result is not None:
            write.acks.append(str(call.result["id"]))  # a second promotion merges into the first
            self.ledger.own_id(self.tenant, str(call.result["id"]))
        elif call.outcome == "transport":
            write.unknown += 1

    async def reflect(self) -> None:
        marker = self._marker()
        task_id = f"task-{marker}"
        args = {
            "task_id": task_id,
            "goal": f"{self.tag} {self.name} task {marker}: {' '.join(self.rng.sample(WORDS, 5))}",
            "outcome": self.rng.choice(["success", "partial", "failure", "aborted"]),
            "steps": [f"step {i} {self.rng.choice(WORDS)}" for i in range(self.rng.randint(1, 3))],
            "agent_id": self.name,
        }
        write = self._new_write("reflect", args, marker, task_id=task_id)
        self.task_ids.append(task_id)
        await self._send_reflect(write, retries=3)

    async def _send_reflect(self, write: Write, retries: int) -> None:
        for attempt in range(retries + 1):
            call = await self.call("task_reflect", write.arguments)
            if call.outcome == "ok" and call.result is not None:
                self._acked(write, str(call.result["id"]))
                return
            if call.outcome == "transport":
                write.unknown += 1
            if call.outcome not in ("transport", "retryable") or attempt == retries:
                return
            await anyio.sleep(min(2.0, 0.25 * 2**attempt))

    async def dup_reflect(self) -> None:
        sources = [w for w in self.mine if w.via == "reflect"]
        if not sources:
            return await self.reflect()
        await self._send_reflect(self.rng.choice(sources), retries=1)

    async def search(self) -> None:
        own = [w for w in self.mine if w.acknowledged]
        query = self.rng.choice(own).arguments.get("content", "notes") if own else "notes"
        await self.call("memory_search", {"query": query[:200], "top_k": 10, "agent_id": self.name})

    async def status(self) -> None:
        ids = list({a for w in self.rng.sample(self.mine, min(20, len(self.mine))) for a in w.acks})[:50]
        if ids:
            await self.call("memory_status", {"ids": ids, "agent_id": self.name})

    async def confusion(self, others: list[Agent]) -> None:
        """Tenant A's valid key replaying tenant B's ids, task ids, idempotency keys and session ids."""
        victims = [a for a in others if a.tenant != self.tenant and a.mine]
        if not victims:
            return
        victim = self.rng.choice(victims)
        their = [w for w in victim.mine if w.acknowledged]
        probe = self.rng.choice(
            ["get", "update", "forget", "status", "link", "chain", "idem", "task", "session", "search"]
        )
        self.ledger.probes[probe] += 1
        expect_not_found = None
        if probe in ("get", "update", "forget", "link", "chain", "status") and their:
            target = self.rng.choice(their).acks[0]
            if probe == "get":
                expect_not_found = await self.call("memory_get", {"id": target, "agent_id": victim.name})
            elif probe == "update":
                expect_not_found = await self.call(
                    "memory_update",
                    {
                        "id": target,
                        "action": "update",
                        "content": f"{self.tag} overwrite",
                        "agent_id": victim.name,
                    },
                )
            elif probe == "forget":
                expect_not_found = await self.call(
                    "memory_forget", {"id": target, "hard": True, "agent_id": victim.name}
                )
            elif probe == "link":
                own = [w for w in self.mine if w.acknowledged]
                if own:
                    expect_not_found = await self.call(
                        "memory_link",
                        {
                            "from_id": own[0].acks[0],
                            "to_id": target,
                            "kind": "related",
                            "agent_id": self.name,
                        },
                    )
            elif probe == "chain":
                expect_not_found = await self.call(
                    "memory_recall_chain", {"id": target, "agent_id": victim.name}
                )
            else:
                call = await self.call("memory_status", {"ids": [target], "agent_id": victim.name})
                if call.outcome == "ok" and call.result is not None:
                    status = call.result["writes"][0]["status"]
                    if status != "unknown":
                        self.journal.leaks.append(
                            f"memory_status: {self.tenant} saw {status} for {victim.tenant}'s write"
                        )
        elif probe == "idem":
            keyed = [
                w for w in victim.mine if w.idempotency_key and w.acknowledged and w.via == "memory_write"
            ]
            if keyed:
                source = self.rng.choice(keyed)
                marker = self._marker()
                args = self._write_args(marker) | {"idempotency_key": source.idempotency_key}
                args["agent_id"] = victim.name  # same agent name, same key: only the tenant differs
                write = self._new_write("memory_write", args, marker, idempotency_key=source.idempotency_key)
                await self._send_write(write, retries=0)
                if write.acks and write.acks[0] in source.acks:
                    self.journal.leaks.append(
                        f"idempotency key of {victim.tenant} answered its id to {self.tenant}"
                    )
        elif probe == "task" and victim.task_ids:
            task_id = self.rng.choice(victim.task_ids)
            marker = self._marker()
            args = {
                "task_id": task_id,
                "goal": f"{self.tag} {self.name} replays {marker}",
                "outcome": "success",
                "agent_id": victim.name,
            }
            write = self._new_write("reflect", args, marker, task_id=task_id)
            await self._send_reflect(write, retries=0)
            theirs = {a for w in victim.mine if w.task_id == task_id for a in w.acks}
            if write.acks and write.acks[0] in theirs:
                self.journal.leaks.append(
                    f"task id of {victim.tenant} answered its memory id to {self.tenant}"
                )
        elif probe == "session":
            session_id = self.rng.choice(victim.session_ids)
            call = await self.call("working_memory_get", {"session_id": session_id, "agent_id": victim.name})
            if call.outcome == "ok" and call.result is not None and call.result.get("count", 0) > 0:
                # Its own session of that name could only hold what this tenant set: it never sets any.
                self.journal.leaks.append(
                    f"working_memory_get: {self.tenant} read a session of {victim.tenant}"
                )
        elif probe == "search" and their:
            query = str(self.rng.choice(their).arguments.get("content", ""))[:200]
            await self.call("memory_search", {"query": query or "notes", "agent_id": victim.name})
        if expect_not_found is not None and expect_not_found.outcome == "ok":
            self.journal.leaks.append(
                f"{expect_not_found.tool}: {self.tenant} acted on {victim.tenant}'s memory"
            )

    async def run(self, running: Callable[[], bool], others: list[Agent]) -> None:
        """Operations back to back while ``running()``."""
        names = [op for op in OPS if op != "write_batch" or self.has_batch]
        weights = [OPS[op] for op in names]
        while running():
            op = self.rng.choices(names, weights)[0]
            if op == "confusion":
                await self.confusion(others)
            else:
                method: Callable[[], Awaitable[None]] = getattr(self, op)
                await method()
            await anyio.sleep(self.rng.uniform(0.0, 0.05))


def _believed_status(edit: Edit) -> str:
    """The status the agent last set (acknowledged or not: it only steers what to try next)."""
    return edit.statuses[-1][0] if edit.statuses else "active"


def new_run_tag(rng: random.Random) -> str:
    """A short token making this run's markers unique in a database reused across runs."""
    return uuid.UUID(int=rng.getrandbits(128)).hex[:5]
