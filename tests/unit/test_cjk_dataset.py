"""The Chinese retrieval set (bench/data/cjk_retrieval.json) is what its description says: enough
hand-written memories and questions, mixed languages, and a background that answers no question."""

from __future__ import annotations

import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "bench" / "data" / "cjk_retrieval.json"
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_ID = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2,3}-?\d[\d-]{2,}\d(?!\d)")


def test_hand_written_part_is_large_enough_and_mixed() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    memories, questions = data["memories"], data["questions"]
    assert len(memories) >= 60
    assert len(questions) >= 40
    chinese = [q for q in questions if q["lang"] == "zh"]
    assert len(chinese) >= 40
    assert all(_CJK.search(q["question"]) for q in chinese)
    assert {"en", "ja", "ko"} <= {q["lang"] for q in questions}
    assert sum(1 for m in memories if not _CJK.search(m["content"])) >= 3  # some English memories too
    assert sum(1 for q in questions if q["anchor"] == "id") >= 5


def test_every_evidence_is_a_hand_written_memory_and_no_background_record_shares_its_ids() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    core = {m["id"]: m["content"] for m in data["memories"]}
    background = data["background"]
    ids = list(core) + [m["id"] for m in background]
    assert len(ids) == len(set(ids))
    for q in data["questions"]:
        assert q["evidence"], q
        assert set(q["evidence"]) <= set(core), q
    core_ids = {i for text in core.values() for i in _ID.findall(text)}
    assert core_ids
    for m in background:
        assert not set(_ID.findall(m["content"])) & core_ids, m
