"""Ranking AUC of the offline judge on labelled statements (tests/data/judge_statements.json).

The judge's score of a statement is the mean of the criteria that read the statement:
task_correctness (quality judge), clarity and solvability (semantic judge). AUC is the share
of (good, bad) pairs of the same split ranked correctly, ties counting half.

    python bench/judge_calibration.py [-v]
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from llm.offline import judge_quality, judge_semantic  # noqa: E402

DATA = ROOT / "tests" / "data"


def judge_score(statement: str, case: dict, patches: dict) -> float:
    context = {
        "problem_statement": statement,
        "patch": patches[case["patch_of"]]["patch"],
        "test_patch": patches[case["patch_of"]]["test_patch"],
        "fail_to_pass": case["fail_to_pass"],
        "touched_functions": case["touched_functions"],
    }
    quality, semantic = judge_quality(context), judge_semantic(context)
    return statistics.fmean(
        [quality["task_correctness"]["score"], semantic["clarity"]["score"], semantic["solvability"]["score"]]
    )


def auc(scored: list[tuple[float, int]]) -> float:
    good = [s for s, label in scored if label]
    bad = [s for s, label in scored if not label]
    pairs = [(g > b) + 0.5 * (g == b) for g in good for b in bad]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def main(verbose: bool = "-v" in sys.argv) -> None:
    cases = json.loads((DATA / "judge_statements.json").read_text(encoding="utf-8"))["cases"]
    patches = {c["id"]: c for c in json.loads((DATA / "leakage_pairs.json").read_text(encoding="utf-8"))["cases"]}
    by_split: dict[str, list[tuple[float, int]]] = defaultdict(list)
    by_mode: dict[str, list[float]] = defaultdict(list)
    for case in cases:
        for item in case["statements"]:
            score = judge_score(item["text"], case, patches)
            by_split[case["split"]].append((score, item["good"]))
            by_mode[("good: " if item["good"] else "bad: ") + item["mode"]].append(score)
            if verbose:
                print(f"  {score:5.2f} {'GOOD' if item['good'] else 'bad '} {case['id']}/{item['mode']}")
    for mode in sorted(by_mode):
        print(f"  mean score {statistics.fmean(by_mode[mode]):5.2f}  {mode} ({len(by_mode[mode])})")
    for split in ("dev", "holdout", "fresh"):
        rows = by_split[split]
        print(
            f"{split:8s}: {len(rows)} statements ({sum(g for _, g in rows)} good) from "
            f"{sum(c['split'] == split for c in cases)} tasks: AUC {auc(rows):.3f}"
        )
    rows = by_split["dev"] + by_split["holdout"] + by_split["fresh"]
    print(f"all     : {len(rows)} statements ({sum(g for _, g in rows)} good): AUC {auc(rows):.3f}")
    print(f"judge ranking AUC: {auc(rows):.3f}")


if __name__ == "__main__":
    main()
