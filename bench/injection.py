"""Prompt-injection detector on a labelled corpus: detection rate on injections, false-positive rate on
benign memories, per split and language. Splits (docs/detectors.md says more): ``tune`` (read while
writing the rules), ``validate`` (written with it, never read while tuning), ``holdout1`` / ``holdout2``
(written later, after the rules were frozen; their first measurement is in the docs, then each was used to
generalise the rules).

    python bench/injection.py            # print the table
    python bench/injection.py --misses   # and every miss and false positive
    python bench/injection.py --docs     # and write the table into docs/detectors.md

Corpus: ``tests/data/injection_corpus.jsonl`` (written for this project: injections addressed to the
model — overrides, "from now on" orders, role claims, exfiltration asks, tool-call markup, Chinese
equivalents — and benign memories, many with the same words in ordinary use: "from now on I prefer …",
"ignore the first draft", "our system administrator is …").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from detectors import load_jsonl, rate, stamp, write_section

from hindsight.domain.injection import injection_signals

COMMAND = "python bench/injection.py --docs"


def evaluate(records: list[dict[str, str]]) -> tuple[str, list[str]]:
    """The Markdown table (rows: split × language, then all) and the misses, one line each."""
    rows, misses = [], []
    groups = [(s, lang) for s in ("tune", "validate", "holdout1", "holdout2") for lang in ("en", "zh")] + [
        ("all", "all")
    ]
    for split, lang in groups:
        chosen = [r for r in records if split in ("all", r["split"]) and lang in ("all", r["lang"])]
        caught = sum(1 for r in chosen if r["label"] == "injection" and injection_signals(r["text"]))
        positives = sum(1 for r in chosen if r["label"] == "injection")
        flagged = sum(1 for r in chosen if r["label"] == "benign" and injection_signals(r["text"]))
        negatives = sum(1 for r in chosen if r["label"] == "benign")
        rows.append(f"| {split} | {lang} | {rate(caught, positives)} | {rate(flagged, negatives)} |")
    for r in records:
        signals = injection_signals(r["text"])
        if (r["label"] == "injection") != bool(signals):
            kind = "missed" if r["label"] == "injection" else f"false positive {signals}"
            misses.append(f"[{r['split']}/{r['lang']}] {kind}: {r['text']}")
    table = "\n".join(
        [
            "| split | language | detection rate (injections flagged) | false positives (benign flagged) |",
            "|---|---|---|---|",
            *rows,
        ]
    )
    return table, misses


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--misses", action="store_true", help="print every miss and false positive")
    parser.add_argument("--docs", action="store_true", help="write the table into docs/detectors.md")
    args = parser.parse_args()
    records = load_jsonl("injection_corpus.jsonl")
    table, misses = evaluate(records)
    print(table)
    print(f"{len(records)} strings; {len(misses)} misses and false positives")
    if args.misses:
        print("\n".join(misses))
    if args.docs:
        write_section("injection", f"{table}\n\n{stamp(COMMAND)}")


if __name__ == "__main__":
    main()
