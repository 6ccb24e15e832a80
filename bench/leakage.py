"""Precision and recall of the leak check on labelled statement/patch pairs (tests/data/leakage_pairs.json).

python bench/leakage.py            # dev and held-out cases, then all
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from llm import leak_report  # noqa: E402

DATA = ROOT / "tests" / "data" / "leakage_pairs.json"


def scores(pairs: list[tuple[bool, bool]]) -> tuple[float, float, int, int]:
    tp = sum(1 for truth, found in pairs if truth and found)
    fp = sum(1 for truth, found in pairs if not truth and found)
    fn = sum(1 for truth, found in pairs if truth and not found)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, len(pairs), sum(t for t, _ in pairs)


def main(verbose: bool = "-v" in sys.argv) -> None:
    cases = json.loads(DATA.read_text(encoding="utf-8"))["cases"]
    results: dict[str, list[tuple[bool, bool]]] = {"dev": [], "holdout": [], "fresh": []}
    for case in cases:
        for item in case["statements"]:
            report = leak_report(item["text"], case["patch"], case["test_patch"])
            found = report.leaks()
            results[case["split"]].append((bool(item["leak"]), found))
            if verbose and found != bool(item["leak"]):
                print(
                    f"  MISS {case['id']}/{item['mode']}: label {item['leak']}, found {report.kinds} "
                    f"{report.evidence[:60]!r}"
                )
    for split in ("dev", "holdout", "fresh"):
        p, r, n, leaks = scores(results[split])
        print(
            f"{split:8s}: {n} pairs ({leaks} leaks) from {sum(c['split'] == split for c in cases)} patches: "
            f"precision {p:.3f}, recall {r:.3f}"
        )
    p, r, n, leaks = scores(results["dev"] + results["holdout"] + results["fresh"])
    print(f"all     : {n} pairs ({leaks} leaks): precision {p:.3f}, recall {r:.3f}")
    print(f"leakage precision/recall: {p:.3f}/{r:.3f}")


if __name__ == "__main__":
    main()
