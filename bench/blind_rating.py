"""A blind rating of task statements, with SWE-bench Verified's rubric (`bench/rating_rubric.md`).

`make` shuffles the tasks of a JSONL file (seeded), gives each an anonymous id, and splits them
into N rater files holding only what a rater needs (the statement, the gold and test patches,
FAIL_TO_PASS). The key that maps ids back to instance ids goes to a separate file that raters
never see. Each rater is a person or an agent that sees only its rater file and the rubric, and
writes one answer line per task. `tally` joins the answers with the key and prints how many
tasks were discarded (2 or more on either axis) and leaked, and which ones.

    python bench/blind_rating.py make TASKS.jsonl --out-dir DIR --prefix js --raters 3 [--seed 0]
    python bench/blind_rating.py tally DIR/answers-js-*.jsonl --key DIR/js-key.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

RUBRIC = Path(__file__).with_name("rating_rubric.md")
RATER_FIELDS = ("repo", "problem_statement", "patch", "test_patch", "FAIL_TO_PASS")
DISCARD_AT = 2


def make(tasks_file: Path, out_dir: Path, prefix: str, raters: int, seed: int) -> list[Path]:
    tasks = [json.loads(line) for line in tasks_file.read_text().splitlines() if line.strip()]
    if not tasks:
        raise SystemExit(f"blind_rating: {tasks_file} holds no task")
    random.Random(seed).shuffle(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    key: dict[str, str] = {}
    shares: list[list[dict]] = [[] for _ in range(max(1, raters))]
    for index, task in enumerate(tasks):
        anonymous = f"t{index:02d}"
        key[anonymous] = task["instance_id"]
        shares[index % len(shares)].append({"id": anonymous, **{k: task.get(k) for k in RATER_FIELDS}})
    files = []
    for number, share in enumerate(shares, 1):
        path = out_dir / f"{prefix}-{number}.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in share))
        files.append(path)
    (out_dir / f"{prefix}-key.json").write_text(json.dumps(key, indent=1))
    return files


def tally(answer_files: list[Path], key_file: Path) -> dict:
    key = json.loads(key_file.read_text())
    answers: dict[str, dict] = {}
    for path in answer_files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                answers[row["id"]] = row
            except (json.JSONDecodeError, KeyError, TypeError) as error:
                raise SystemExit(f"blind_rating: {path}:{number} is not an answer line ({error})") from error
    unanswered = sorted(set(key) - set(answers))
    discarded = [
        (key[i], a)
        for i, a in sorted(answers.items())
        if max(int(a.get("underspecified", 0)), int(a.get("tests_valid", 0))) >= DISCARD_AT
    ]
    leaked = [(key[i], a) for i, a in sorted(answers.items()) if a.get("leak") is True]
    return {"rated": len(answers), "unanswered": unanswered, "discarded": discarded, "leaked": leaked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    making = commands.add_parser("make", help="Write the rater files and the key.")
    making.add_argument("tasks", type=Path)
    making.add_argument("--out-dir", type=Path, required=True)
    making.add_argument("--prefix", required=True)
    making.add_argument("--raters", type=int, default=3)
    making.add_argument("--seed", type=int, default=0)
    tallying = commands.add_parser("tally", help="Count the discards and leaks of the answers.")
    tallying.add_argument("answers", type=Path, nargs="+")
    tallying.add_argument("--key", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "make":
        for path in make(args.tasks, args.out_dir, args.prefix, args.raters, args.seed):
            print(path)
        print(f"rubric: {RUBRIC}")
        return
    result = tally(args.answers, args.key)
    rated = result["rated"]
    print(f"rated {rated}; discarded {len(result['discarded'])}/{rated}; leaks {len(result['leaked'])}/{rated}")
    for title, rows in (("discarded", result["discarded"]), ("leaked", result["leaked"])):
        for instance_id, answer in rows:
            scores = f"u={answer.get('underspecified')} t={answer.get('tests_valid')}"
            print(f"  {title}: {instance_id} ({scores}): {answer.get('reason', '')}")
    if result["unanswered"]:
        print(f"unanswered: {', '.join(result['unanswered'])}", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
