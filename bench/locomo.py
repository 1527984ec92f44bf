"""LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational Memory of LLM Agents", ACL 2024):
loading the dataset and scoring turn-level evidence retrieval.

The data is read from ``../shared/data/locomo/`` beside the checkout (licence CC BY-NC 4.0: it is
never copied into this repository).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

_RELATIVE = Path("shared") / "data" / "locomo" / "locomo-dev.json"
DEFAULT_PATH = Path(__file__).resolve().parents[2] / _RELATIVE
TUNE_CONVERSATIONS = 4
"""The protocol's split (issue 13): the first 4 conversations of the dev file are ``tune`` (anything
fitted or chosen is fitted or chosen on them), the last 3 ``validate`` (reported, never fitted on)."""
CATEGORY_NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_SESSION = re.compile(r"^session_(\d+)$")
_DIA = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    """One dialogue turn: ``dia_id`` like 'D3:7', the session's date, and the text to store."""

    sample_id: str
    dia_id: str
    session: int
    speaker: str
    text: str
    caption: str | None
    occurred_at: datetime

    @property
    def turn_index(self) -> int:
        """0-based position of the turn in its session ('D3:7' → 6)."""
        match = _DIA.search(self.dia_id)
        return int(match.group(2)) - 1 if match else 0

    @property
    def content(self) -> str:
        """What is written as a memory: speaker, words, and the image caption when there is one."""
        body = f"{self.speaker}: {self.text}"
        return f"{body} [image: {self.caption}]" if self.caption else body


@dataclass(frozen=True)
class Question:
    sample_id: str
    question: str
    category: int
    evidence: tuple[str, ...]
    asked_at: datetime

    @property
    def as_of(self) -> datetime:
        """When the benchmarks ask it: the day after its conversation's last session, in UTC (the dataset
        has no time zones), so "last week" and recency read as they did then, not as of today."""
        return self.asked_at.replace(tzinfo=UTC) + timedelta(days=1)


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def locomo_path() -> Path:
    """``$LOCOMO_PATH``, else ``shared/data/locomo/locomo-dev.json`` in the nearest folder above the
    checkout that has one (``../shared`` beside a clone, ``../../shared`` beside a worktree)."""
    if "LOCOMO_PATH" in os.environ:
        return Path(os.environ["LOCOMO_PATH"])
    for parent in Path(__file__).resolve().parents[1:]:
        if (parent / _RELATIVE).exists():
            return parent / _RELATIVE
    return DEFAULT_PATH


def split_of(conversations: Sequence[Conversation]) -> dict[str, str]:
    """sample_id → "tune" or "validate", by position in the file (first TUNE_CONVERSATIONS: tune)."""
    return {
        c.sample_id: ("tune" if i < TUNE_CONVERSATIONS else "validate") for i, c in enumerate(conversations)
    }


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' → datetime (naive; the dataset has no time zones)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def normalise_evidence(raw: Iterable[str]) -> tuple[str, ...]:
    """Evidence ids as 'D<session>:<turn>', fixing the dataset's malformed ones ('D8:6; D9:17', 'D:11:26')."""
    out: list[str] = []
    for item in raw:
        for match in _DIA.finditer(item):
            dia = f"D{int(match.group(1))}:{int(match.group(2))}"
            if dia not in out:
                out.append(dia)
    return tuple(out)


def load(path: Path | None = None) -> list[Conversation]:
    """Every conversation with its turns (in order) and its questions (asked after the last session)."""
    data: list[dict[str, Any]] = json.loads((path or locomo_path()).read_text())
    conversations = []
    for sample in data:
        conv = sample["conversation"]
        item = Conversation(sample_id=sample["sample_id"], speakers=(conv["speaker_a"], conv["speaker_b"]))
        sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.match(key)))
        last = datetime.min
        for number, key in sessions:
            when = parse_session_date(conv[f"{key}_date_time"])
            last = max(last, when)
            for turn in conv[key]:
                item.turns.append(
                    Turn(
                        sample_id=item.sample_id,
                        dia_id=turn["dia_id"],
                        session=number,
                        speaker=turn["speaker"],
                        text=turn["text"],
                        caption=turn.get("blip_caption"),
                        occurred_at=when,
                    )
                )
        for qa in sample["qa"]:
            item.questions.append(
                Question(
                    sample_id=item.sample_id,
                    question=qa["question"],
                    category=int(qa["category"]),
                    evidence=normalise_evidence(qa.get("evidence", [])),
                    asked_at=last,
                )
            )
        conversations.append(item)
    return conversations


def recall_at_k(retrieved: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Share of the evidence turns found in the first k retrieved (LoCoMo's retrieval metric)."""
    top = set(retrieved[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def ndcg_at_k(retrieved: Sequence[str], evidence: Sequence[str], k: int) -> float:
    """Binary-relevance nDCG@k (Järvelin and Kekäläinen, 2002)."""
    relevant = set(evidence)
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(retrieved[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return dcg / ideal if ideal else 0.0


@dataclass
class Scoreboard:
    """Running means of recall@k and nDCG@10, overall and per category."""

    ks: tuple[int, ...] = (1, 5, 10, 25)
    rows: list[tuple[int, dict[str, float]]] = field(default_factory=list)
    conversations: list[str] = field(default_factory=list)
    """The conversation of each row (parallel to ``rows``; "" when not given)."""

    def add(
        self, category: int, retrieved: Sequence[str], evidence: Sequence[str], conversation: str = ""
    ) -> None:
        scores = {f"recall_at_{k}": recall_at_k(retrieved, evidence, k) for k in self.ks}
        scores["ndcg_at_10"] = ndcg_at_k(retrieved, evidence, 10)
        self.rows.append((category, scores))
        self.conversations.append(conversation)

    def only(self, conversations: Iterable[str]) -> Scoreboard:
        """The rows of some conversations, as a scoreboard of their own."""
        wanted = set(conversations)
        out = Scoreboard(self.ks)
        for row, conv in zip(self.rows, self.conversations, strict=True):
            if conv in wanted:
                out.rows.append(row)
                out.conversations.append(conv)
        return out

    def split_summary(
        self, split: dict[str, str], categories: Iterable[int] = (1, 2, 3, 4)
    ) -> dict[str, Any]:
        """The protocol's report: ``all``, ``tune``, ``validate`` (each with per-category figures) and
        ``per_conversation`` (split named), for the given categories."""
        cats = tuple(categories)
        out: dict[str, Any] = {"all": self.summary(cats)}
        for part in ("tune", "validate"):
            out[part] = self.only(c for c, p in split.items() if p == part).summary(cats)
        out["per_conversation"] = {
            conv: {"split": split.get(conv, "?"), **self.only([conv]).summary(cats)}
            for conv in dict.fromkeys(self.conversations)
        }
        return out

    def summary(self, categories: Iterable[int] = (1, 2, 3, 4)) -> dict[str, Any]:
        wanted = set(categories)
        chosen = [s for c, s in self.rows if c in wanted]
        out: dict[str, Any] = {"questions": len(chosen)}
        for name in chosen[0] if chosen else []:
            out[name] = round(sum(s[name] for s in chosen) / len(chosen), 4)
        out["per_category"] = {}
        for cat in sorted({c for c, _ in self.rows}):
            rows = [s for c, s in self.rows if c == cat]
            out["per_category"][CATEGORY_NAMES.get(cat, str(cat))] = {
                "questions": len(rows),
                **{n: round(sum(r[n] for r in rows) / len(rows), 4) for n in rows[0]},
            }
        return out
