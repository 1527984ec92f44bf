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
from datetime import datetime
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo-dev.json"
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


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def locomo_path() -> Path:
    """``$LOCOMO_PATH`` or ``../shared/data/locomo/locomo-dev.json`` next to the checkout."""
    return Path(os.environ.get("LOCOMO_PATH", DEFAULT_PATH))


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

    def add(self, category: int, retrieved: Sequence[str], evidence: Sequence[str]) -> None:
        scores = {f"recall_at_{k}": recall_at_k(retrieved, evidence, k) for k in self.ks}
        scores["ndcg_at_10"] = ndcg_at_k(retrieved, evidence, 10)
        self.rows.append((category, scores))

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
