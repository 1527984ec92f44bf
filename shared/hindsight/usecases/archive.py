"""Export and import a tenant's (or one agent's) memory as JSON Lines: the CLI's ``export`` / ``import``.

The file: a ``header`` line (format, version, source tenant and agent, embedding model and dimension,
whether vectors are included), then one line per record — ``memory`` (every column of the row, and its
``embedding`` when asked), ``chunk`` (later chunks of long memories), ``relation``, ``history``,
``write_result`` (so ``memory_status`` still answers for imported writes) and ``pending_link`` — and a
``footer`` with the counts, so a truncated file is noticed.

Import puts the records into a tenant (the exported one by default). Memory ids are kept, so agents'
references stay valid; ``remap_ids`` gives every id a new one (UUIDv5 of the target tenant and the old
id, the same on every re-run) and rewrites every reference, for a copy beside the original in one
database. Without vectors in the file, or with vectors of another model or dimension, the memories are
re-embedded with the configured embedder exactly as the write path embeds them. Re-importing the same
file skips what is already there.

A key names one fact: an imported active fact on a key the target agent already has an active fact on
(an export of another tenant, or a ``remap_ids`` copy into the same one) is settled with it by the write
path's rules — the value that began to hold later is the fact, the other a past value of it, an inference
never replaces what the user stated, an addition stays beside it — with supersedes links and history
rows, and each such settlement is listed in the report (``settled``). An imported past value (superseded
in the file, with its end) is fitted among the key's values by the same rule, so a ``valid_at`` read
answers one value of the key at each instant (a value of the target it interrupts holds again after it).
The import is not refused: an import is a stream committed in batches, and merging one memory into
another is what it is for; what was replaced can be read (``valid_at``, history) and restored.

Each record is checked against its table's rules (``domain.export_records``) before anything of it is
stored. A bad line (a value the schema refuses, a line that is not JSON) stops the import there: the
records before it are imported, nothing of it or after it — what a file cut off at that line imports —,
and the error (``RecordRefused``) names the line, the record, the field and the limit. Until the whole
file is imported the tenant is incomplete (a memory without its relations, history, write results, or
successor). Importing the fixed file again (same options: ``remap_ids`` gives the same ids on every run)
completes it to exactly what one import of it gives: a record is skipped only when it is there by its own
identity, so the relations, history and write results of memories the stopped run inserted are added.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable
from datetime import datetime
from typing import Any, Literal
from uuid import UUID, uuid5

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hindsight.domain.embedding_text import first_passage
from hindsight.domain.errors import InvalidInput
from hindsight.domain.export_records import RecordRefused, check_record
from hindsight.domain.limits import key_form
from hindsight.domain.timetravel import RESUMES_METADATA_KEY
from hindsight.ports import Clock, Embedder, MemoryArchive
from hindsight.ports.archive import KeySettlement

EXPORT_FORMAT = "hindsight-export"
EXPORT_VERSION = 1
REMAP_NAMESPACE = UUID("0b7f4e3c-9a51-4d2e-8c66-68696e647369")
RecordKind = Literal["memory", "chunk", "relation", "history", "write_result", "pending_link"]
KINDS: tuple[RecordKind, ...] = ("memory", "chunk", "relation", "history", "write_result", "pending_link")
_ID_FIELDS: dict[str, tuple[str, ...]] = {
    "memory": ("id", "causal_parent"),
    "chunk": ("memory_id",),
    "relation": ("from_id", "to_id"),
    "history": ("memory_id",),
    "write_result": ("job_id", "memory_id"),
    "pending_link": ("child_id", "parent_id"),
}
"""Every column holding a memory (or job) id, per record kind: what ``remap_ids`` rewrites."""
_TEXT_FIELDS: dict[str, tuple[str, ...]] = {
    "memory": ("metadata",),
    "relation": ("reason",),
    "history": ("reason", "changes"),
    "write_result": ("reason",),
}
"""Columns (text or JSON) that may name a memory of the file inside them — a summary's representative, a
continuation's ``resumes``, a history row's members, "superseded by <id>" —: ``remap_ids`` rewrites each
id of a memory the file holds there too (new-user trial L5: the copy's metadata named the source's ids)."""
_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")


def _is_uuid(text: str) -> bool:
    try:
        UUID(text)
    except ValueError:
        return False
    return True


class ExportHeader(BaseModel):
    """The first line of an export."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["header"] = "header"
    format: str = EXPORT_FORMAT
    version: int = EXPORT_VERSION
    exported_at: datetime
    tenant_id: str
    agent_id: str | None = None
    embedding_model: str
    embedding_dim: int
    with_embeddings: bool


def _header(line: int, record: dict[str, Any]) -> ExportHeader:
    """The header line ``line`` as an ``ExportHeader``. Raises RecordRefused naming its first bad field
    (a header missing a field, or with one of the wrong type: not an export's)."""
    try:
        return ExportHeader.model_validate(record)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        field = ".".join(str(p) for p in first["loc"]) or "header"
        raise RecordRefused(
            line, f"header: {field}", f"{first['msg']} (not a Hindsight export header)"
        ) from None


class ImportReport(BaseModel):
    """What an import did."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    source_tenant_id: str
    inserted: dict[str, int] = Field(default_factory=dict)
    skipped: int = 0
    reembedded: int = 0
    causal_links: int = 0
    remapped_ids: bool = False
    settled: list[KeySettlement] = Field(default_factory=list)
    """Imported facts (active, or past values) that met values of the tenant on their key, and how each
    was settled (module doc): never two holders of one key, one value at each instant."""
    complete: bool = True
    """False when the file had no footer or its counts disagree (a truncated file)."""


def _report(state: _ImportState, links: int, complete: bool) -> ImportReport:
    """The report of what ``state`` imported (its header read)."""
    assert state.header is not None
    return ImportReport(
        tenant_id=state.tenant,
        source_tenant_id=state.header.tenant_id,
        inserted={k: v for k, v in state.inserted.items() if v},
        skipped=state.skipped,
        reembedded=len(state.reembedded_ids & state.new_memories),
        causal_links=links,
        remapped_ids=state.remap_ids,
        settled=state.settled,
        complete=complete,
    )


def remap(old: str, tenant_id: str) -> str:
    """The id a record gets in ``tenant_id`` under ``remap_ids`` (stable across re-runs)."""
    return str(uuid5(REMAP_NAMESPACE, f"{tenant_id}\x1f{old}"))


class ExportMemories:
    """Streams the export records of a tenant or one agent."""

    def __init__(self, archive: MemoryArchive, clock: Clock, embedder: Embedder) -> None:
        self._archive = archive
        self._clock = clock
        self._embedder = embedder

    async def __call__(
        self, tenant_id: str, agent_id: str | None = None, *, with_embeddings: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        header = ExportHeader(
            exported_at=self._clock.now(),
            tenant_id=tenant_id,
            agent_id=agent_id,
            embedding_model=self._embedder.model_name,
            embedding_dim=self._embedder.dim,
            with_embeddings=with_embeddings,
        )
        yield header.model_dump(mode="json")
        counts = dict.fromkeys(KINDS, 0)
        async for record in self._archive.export_records(tenant_id, agent_id, with_embeddings):
            counts[record["kind"]] += 1
            yield record
        yield {"kind": "footer", "counts": counts}


NumberedRecord = tuple[int, dict[str, Any]]
"""An export record and its line in the file (1-based): what errors name."""


class ImportMemories:
    """Reads export records (any iterable of (line, record), e.g. a file's) into a tenant."""

    def __init__(self, archive: MemoryArchive, embedder: Embedder, batch_size: int = 64) -> None:
        self._archive = archive
        self._embedder = embedder
        self._batch_size = batch_size

    async def __call__(
        self,
        records: Iterable[NumberedRecord] | AsyncIterable[NumberedRecord],
        *,
        tenant_id: str | None = None,
        remap_ids: bool = False,
        progress: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Raises InvalidInput (not an export, unknown version, a record before the header, an id of
        another tenant without ``remap_ids``, a column the schema does not have) and RecordRefused (a
        line with a value its table refuses, or one the reader could not read: the records before it
        are imported, nothing from it on; module doc)."""
        state = _ImportState(tenant_id, remap_ids)
        pending: list[dict[str, Any]] = []
        try:
            async for line, record in _aiter(records):
                kind = record.get("kind")
                if kind == "header":
                    state.start(_header(line, record), self._embedder)
                    continue
                if kind == "footer":
                    state.footer = record.get("counts") or {}
                    continue
                if kind not in KINDS:
                    raise InvalidInput("file", f"unknown record kind {kind!r}: not a Hindsight export line")
                if state.header is None:
                    raise InvalidInput(
                        "file", "no header line: not a Hindsight export (or not its beginning)"
                    )
                check_record(line, kind, record)
                state.seen[kind] = state.seen.get(kind, 0) + 1
                if pending and (len(pending) >= self._batch_size or kind != pending[-1]["kind"]):
                    await self._flush(state, pending, progress)
                    pending = []
                prepared = state.prepare(record, line)
                if prepared is not None:
                    pending.append(prepared)
        except RecordRefused as refused:
            # the records before the bad line are imported (those read, or of its batch the database
            # rolled back), nothing of it or after it: as a file cut off there
            before = [r for r in pending if r["line"] < refused.line]
            if before:
                await self._flush(state, before, progress)
            if state.header is not None:  # what was imported before it (``hindsight import --json``)
                refused.partial = _report(state, links=0, complete=False)
            raise
        if pending:
            await self._flush(state, pending, progress)
        if state.header is None:
            raise InvalidInput("file", "empty: no header line")
        links = await self._archive.link_causal_parents(
            state.tenant, [link for link in state.causal_links if str(link[0]) in state.present]
        )
        complete = state.footer is not None and all(
            int(state.footer.get(k, 0)) == state.seen.get(k, 0) for k in KINDS
        )
        return _report(state, links, complete)

    async def _flush(
        self, state: _ImportState, batch: list[dict[str, Any]], progress: Callable[[int], None] | None
    ) -> None:
        kind = batch[0]["kind"]
        if kind == "memory":  # already there (a re-run): skipped before anything is embedded
            present = await self._archive.existing(state.tenant, [str(r["row"]["id"]) for r in batch])
            state.present |= present
            state.skipped += sum(1 for r in batch if str(r["row"]["id"]) in present)
            batch = [r for r in batch if str(r["row"]["id"]) not in present]
        else:
            # rows of the file's memories in the tenant, inserted now or by an earlier run (one stopped at a
            # bad line): each is inserted unless there by its own identity, so the re-run completes them
            batch = [r for r in batch if state.belongs(r)]
            if kind == "chunk":  # a chunk already there is not embedded again
                there = await self._archive.existing_chunks(state.tenant, [_chunk_key(r) for r in batch])
                state.skipped += sum(1 for r in batch if _chunk_key(r) in there)
                batch = [r for r in batch if _chunk_key(r) not in there]
        if not batch:
            if progress is not None:
                progress(0)
            return
        if kind in ("memory", "chunk"):
            missing = [r for r in batch if "embedding" not in r]
            if missing:
                texts = [
                    first_passage(
                        r["row"]["content"],
                        query=r["row"].get("query"),
                        context=r["row"].get("context"),
                        window=self._embedder.passage_window(),
                    )
                    if kind == "memory"
                    else r["row"]["content"]
                    for r in missing
                ]
                for record, vector in zip(missing, await self._embedder.embed_passages(texts), strict=True):
                    record["embedding"] = vector
                if kind == "memory":
                    state.reembedded_ids.update(str(r["row"]["id"]) for r in missing)
        counts, new_memories, settled = await self._archive.import_records(state.tenant, batch)
        state.new_memories |= new_memories
        state.present |= new_memories
        state.settled += settled
        state.inserted[kind] = state.inserted.get(kind, 0) + counts.get(kind, 0)
        state.skipped += counts.get("skipped", 0)
        if progress is not None:
            progress(len(batch))


class _ImportState:
    """Ids, counts and the header of one import run."""

    def __init__(self, tenant_id: str | None, remap_ids: bool) -> None:
        self.target = tenant_id
        self.remap_ids = remap_ids
        self.header: ExportHeader | None = None
        self.keep_vectors = False
        self.footer: dict[str, Any] | None = None
        self.seen: dict[str, int] = {}
        self.inserted: dict[str, int] = {}
        self.skipped = 0
        self.reembedded_ids: set[str] = set()
        self.causal_links: list[tuple[UUID, UUID]] = []
        self.new_memories: set[str] = set()
        self.present: set[str] = set()
        """The file's memories in the tenant: inserted by this run, or there already (an earlier run)."""
        self.history_seen: dict[bytes, int] = {}
        """How often each history entry (a digest of its values) was read so far: its ``occurrence``."""
        self.settled: list[KeySettlement] = []
        self.source_ids: set[str] = set()
        """The ids (as in the file, lower case) of the file's memories read so far: under ``remap_ids`` an
        id of one of these inside a text or JSON column is a reference to rewrite (``_TEXT_FIELDS``)."""

    @property
    def tenant(self) -> str:
        assert self.header is not None
        return self.target or self.header.tenant_id

    def start(self, header: ExportHeader, embedder: Embedder) -> None:
        if header.format != EXPORT_FORMAT:
            raise InvalidInput("file", f"format {header.format!r} is not {EXPORT_FORMAT!r}")
        if header.version > EXPORT_VERSION:
            raise InvalidInput(
                "file", f"export version {header.version} is newer than this code ({EXPORT_VERSION})"
            )
        if self.header is not None:
            raise InvalidInput("file", "a second header line: two exports concatenated?")
        self.header = header
        self.keep_vectors = (
            header.with_embeddings
            and header.embedding_model == embedder.model_name
            and header.embedding_dim == embedder.dim
        )

    def _id(self, value: Any) -> Any:
        if value is None or not self.remap_ids:
            return value
        return remap(str(value), self.tenant)

    def _ids_within(self, value: Any) -> Any:
        """``value`` (text, or a JSON value: strings at any depth, never member names) with every id of a
        memory of the file (``source_ids``: read so far, or named as a continuation's) remapped."""
        if isinstance(value, str):
            return _UUID.sub(
                lambda m: self._id(m[0].lower()) if m[0].lower() in self.source_ids else m[0], value
            )
        if isinstance(value, list):
            return [self._ids_within(item) for item in value]
        if isinstance(value, dict):
            return {name: self._ids_within(item) for name, item in value.items()}
        return value

    def prepare(self, record: dict[str, Any], line: int) -> dict[str, Any] | None:
        kind = record["kind"]
        row = dict(record["row"])
        row["tenant_id"] = self.tenant
        for name in _ID_FIELDS[kind]:
            if name in row:
                row[name] = self._id(row[name])
        if kind == "memory":
            self.source_ids.add(str(record["row"]["id"]).lower())
            if isinstance(row.get("key"), str):  # an export from before migration 029 keeps its spelling
                row["key"] = key_form(row["key"])
        elif kind == "history" and isinstance(row.get("changes"), dict):
            row["changes"] = _keys_in_stored_form(row["changes"])
        metadata = row.get("metadata") if kind == "memory" else None
        resumes = metadata.get(RESUMES_METADATA_KEY) if isinstance(metadata, dict) else None
        if self.remap_ids and isinstance(metadata, dict) and isinstance(resumes, str) and _is_uuid(resumes):
            # a continuation names the memory it continues (adapters.postgres.key_resume): one more reference
            self.source_ids.add(resumes.lower())
        if self.remap_ids:
            for name in _TEXT_FIELDS.get(kind, ()):
                if row.get(name) is not None:
                    row[name] = self._ids_within(row[name])
        if kind == "memory" and row.get("causal_parent") is not None:
            self.causal_links.append((UUID(row["id"]), UUID(row["causal_parent"])))
            row["causal_parent"] = None  # set once every memory is in (the parent may come later)
        out: dict[str, Any] = {"kind": kind, "row": row, "line": line}
        if kind == "history":
            # a history entry has no identity but its values (its serial id is the target's own): the n-th
            # identical entry of the file is inserted unless the memory has n of them already
            text = json.dumps(row, sort_keys=True, default=str)
            identity = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            self.history_seen[identity] = self.history_seen.get(identity, 0) + 1
            out["occurrence"] = self.history_seen[identity]
        if self.keep_vectors and "embedding" in record:
            out["embedding"] = record["embedding"]
        return out

    def belongs(self, record: dict[str, Any]) -> bool:
        row = record["row"]
        kind = record["kind"]
        if kind == "relation":
            return row["from_id"] in self.present or row["to_id"] in self.present
        if kind == "write_result":
            return row.get("memory_id") in self.present
        if kind == "pending_link":
            return row["child_id"] in self.present
        return row["memory_id"] in self.present


def _keys_in_stored_form(changes: dict[str, Any]) -> dict[str, Any]:
    """A history row's ``changes`` with the keys of a ``key`` change in their stored form (``key_form``),
    as migration 029 left the history of the store: a read at an earlier ``known_at`` filters by them. The
    spelling they were written in is kept under ``written``."""
    change = changes.get("key")
    if not isinstance(change, dict):
        return changes
    ends = {end: change.get(end) for end in ("from", "to")}
    formed = {end: key_form(value) if isinstance(value, str) else value for end, value in ends.items()}
    if formed == ends:
        return changes
    return {**changes, "key": {**change, **formed, "written": ends}}


def _chunk_key(record: dict[str, Any]) -> tuple[str, int]:
    """A chunk record's identity: (memory id, chunk number)."""
    return str(record["row"]["memory_id"]), int(record["row"]["chunk_no"])


async def _aiter(
    records: Iterable[NumberedRecord] | AsyncIterable[NumberedRecord],
) -> AsyncIterator[NumberedRecord]:
    if isinstance(records, AsyncIterable):
        async for record in records:
            yield record
    else:
        for record in records:
            yield record
