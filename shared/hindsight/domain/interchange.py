"""Files people bring to ``hindsight ingest``: JSON Lines of memory writes, or a LoCoMo-format dataset
(Maharana et al., ACL 2024: a list of conversations with ``session_<n>`` turn lists and
``session_<n>_date_time`` dates). Pure parsing: the caller reads the file.

Every item gets an idempotency key (its own, the LoCoMo turn id, or a hash of the line), so ingesting a
file twice stores nothing twice.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ValidationError

from hindsight.domain.errors import InvalidInput
from hindsight.domain.memory import MemoryDraft

Format = Literal["jsonl", "locomo"]
_SESSION = re.compile(r"^session_(\d+)$")
_AGENT_UNSAFE = re.compile(r"[^A-Za-z0-9_.:@-]+")


@dataclass(frozen=True)
class IngestItem:
    """One memory to write: the draft, the agent it belongs to (None: the caller's default), and where
    it came from (line number, or the LoCoMo turn id) for error messages."""

    draft: MemoryDraft
    agent_id: str | None
    origin: str


def detect_format(head: str) -> Format:
    """``locomo`` when the file is one JSON array, else ``jsonl``."""
    return "locomo" if head.lstrip().startswith("[") else "jsonl"


def _line_key(agent_id: str | None, payload: dict[str, Any]) -> str:
    canonical = json.dumps([agent_id, payload], sort_keys=True, ensure_ascii=False, default=str)
    return "ingest:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]


def items_from_jsonl(lines: Iterable[str]) -> Iterator[IngestItem]:
    """One ``memory_write``-shaped object per line (``content`` required; ``agent_id`` optional; blank
    lines and ``#`` comments skipped). Raises InvalidInput naming the line and the field."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            payload = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {number}", f"not JSON: {exc.msg}") from None
        if not isinstance(payload, dict):
            raise InvalidInput(f"line {number}", "expected a JSON object with at least 'content'")
        agent_id = payload.pop("agent_id", None)
        payload.setdefault("idempotency_key", _line_key(agent_id, payload))
        try:
            draft = MemoryDraft.model_validate(payload)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or "line"
            raise InvalidInput(f"line {number}: {field}", err["msg"]) from None
        yield IngestItem(draft=draft, agent_id=agent_id, origin=f"line {number}")


def _locomo_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → 2023-05-08 13:56 UTC (the dataset has no time zones)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def items_from_locomo(data: Any, agent_id: str | None = None) -> Iterator[IngestItem]:
    """Every dialogue turn as an episodic memory: "<speaker>: <text>" (plus the image caption), at the
    session's date, the speaker as an entity, sample/dialogue ids in metadata, and its place in the
    conversation (conversation_id = sample id, session_index, turn_index within the session, session_at).
    Each conversation goes to the agent named by its ``sample_id`` unless ``agent_id`` is given. Raises
    InvalidInput on a file that is not LoCoMo-shaped."""
    if not isinstance(data, list):
        raise InvalidInput("file", "a LoCoMo file is a JSON array of conversations")
    for index, sample in enumerate(data):
        conv = sample.get("conversation") if isinstance(sample, dict) else None
        if not isinstance(conv, dict):
            raise InvalidInput(f"conversation {index}", "no 'conversation' object: not a LoCoMo file")
        sample_id = str(sample.get("sample_id") or f"conv-{index}")
        agent = agent_id or _AGENT_UNSAFE.sub("-", sample_id)[:64]
        sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)))
        for number, key in sessions:
            try:
                when = _locomo_date(conv[f"{key}_date_time"])
            except (KeyError, ValueError) as exc:
                raise InvalidInput(f"{sample_id} {key}", f"unreadable session date: {exc}") from None
            for position, turn in enumerate(conv[key]):
                caption = turn.get("blip_caption")
                content = f"{turn['speaker']}: {turn['text']}" + (f" [image: {caption}]" if caption else "")
                draft = MemoryDraft(
                    content=content,
                    layer="episodic",
                    occurred_at=when,
                    entities={"speaker": turn["speaker"]},
                    metadata={"sample_id": sample_id, "dia_id": turn["dia_id"], "session": number},
                    idempotency_key=f"locomo:{sample_id}:{turn['dia_id']}"[:128],
                    conversation_id=sample_id[:128],
                    session_index=number,
                    turn_index=position,
                    session_at=when,
                )
                yield IngestItem(draft=draft, agent_id=agent, origin=f"{sample_id} {turn['dia_id']}")
