"""`sebgen farm` over the Python dev-set bundles, in Docker, the way users call it.

Clones each bundle of `../shared/real-repos/` into a temp folder and farms them all into one
dataset (`--since`, `--limit` spread over the repositories by the farm's interleaving) with the
given workers. Per repository: units tried, kept, kept per attempt, validations per kept task,
PR against commit tasks, tasks per hour, the rejections by reason and the difficulty histogram
of the kept tasks. Tasks per hour count the time the repository's units took (the rows'
`seconds`, over the workers), not the wall clock: a run resumed the next day must not count the
night.

    python bench/farm_dataset.py [--since 2021-01-01] [--limit 16] [--workers 1] [--repos attrs,click]
                                 [--unit both] [--min-lines N] [--min-source-files N] [--min-hunks N]
                                 [--timeout-s S] [--out DIR] [--clones DIR] [--report-only]

A farm of hundreds of units outlives a session: give `--out` and `--clones` (kept folders), and
the same command after a kill continues the dataset from the same clones. `--report-only` prints
the table of an existing `--out` without farming.

`--timeout-s` raises the sandbox's per-run limit (`sandbox.timeout_s`): on a loaded machine a
larger suite's state can pass 120 s and be rejected as a timeout.

Long (image builds, validations): run it in the background with a log.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from corpus import dev_set  # noqa: E402
from evo.dataset import DatasetFolder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--since", default="2021-01-01")
    parser.add_argument("--limit", type=int, default=16)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--repos", default="", help="Comma-separated names (default: all four).")
    parser.add_argument("--unit", default="both")
    parser.add_argument("--min-lines", type=int, default=0, help="Units whose gold patch changes at least N lines.")
    parser.add_argument("--min-source-files", type=int, default=0)
    parser.add_argument("--min-hunks", type=int, default=0)
    parser.add_argument("--timeout-s", type=float, default=None, help="sandbox.timeout_s (default: the config's).")
    parser.add_argument("--out", type=Path, default=None, help="Dataset folder (default: a temp folder).")
    parser.add_argument("--clones", type=Path, default=None, help="Clone folder, reused (default: a temp folder).")
    parser.add_argument("--report-only", action="store_true", help="Print the table of --out; farm nothing.")
    args = parser.parse_args()
    if args.report_only:
        report(DatasetFolder(args.out), None, args)
        return
    work = args.clones or Path(tempfile.mkdtemp(prefix="farm-bench-"))
    wanted = [r for r in args.repos.split(",") if r]
    clones = []
    for bundle in sorted(dev_set("python").glob("*.bundle")):
        if wanted and not any(w in bundle.stem for w in wanted):
            continue
        dest = work / bundle.stem.split("__")[-1]
        if not dest.exists():
            subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
        clones.append(dest)
    if not clones:
        sys.exit(f"farm_dataset: no Python dev-set bundle under {dev_set('python')} (set SEBGEN_REAL_REPOS or --repos)")
    out = args.out or work / "dataset"
    command = [sys.executable, "-m", "evo.cli", "farm", *map(str, clones), "--out", str(out)]
    command += ["--since", args.since, "--limit", str(args.limit), "--workers", str(args.workers)]
    command += ["--unit", args.unit, "--set", "sandbox.backend=docker"]
    for option in ("min_lines", "min_source_files", "min_hunks"):
        command += ["--" + option.replace("_", "-"), str(getattr(args, option))]
    if args.timeout_s:
        command += ["--set", f"sandbox.timeout_s={args.timeout_s}"]
    started = time.monotonic()
    proc = subprocess.run(command, cwd=ROOT, text=True, capture_output=True)
    wall = time.monotonic() - started
    sys.stderr.write(proc.stderr[-4000:])
    print(proc.stdout)
    report(DatasetFolder(out), wall, args)


def report(folder: DatasetFolder, wall: float | None, args) -> None:
    if not folder.versions():
        sys.exit(f"farm_dataset: {folder.path} holds no dataset version yet (the farm wrote nothing: see above)")
    version = folder.versions()[-1]
    rows = [r for r in folder.rows() if r.get("version") == version["version"]]
    wall_text = f"{wall / 60:.1f} min" if wall is not None else "not timed (--report-only)"
    print(f"farm: {len(rows)} rows, version {version['version']}, workers {args.workers}, wall {wall_text}")
    header = "| repository | units tried | kept | kept/attempt | validations/kept | PR kept | commit kept |"
    print(header + " tasks/hour | difficulty | duplicates | top rejections |")
    print("|---" * 11 + "|")
    # a unit kept and then found to repeat a task already in the dataset ends as a duplicate: no task
    duplicates = {r["unit"] for r in rows if r["outcome"] == "duplicate"}
    repos = sorted({r["repo"] for r in rows})
    for repo in repos:
        mine = [r for r in rows if r["repo"] == repo and r["outcome"] != "duplicate"]
        kept = [r for r in mine if r["outcome"] == "kept" and r["unit"] not in duplicates]
        repeated = sum(r["unit"] in duplicates for r in mine)
        validations = sum(r.get("validations", 0) for r in mine)
        busy_hours = sum(r.get("seconds", 0.0) for r in mine) / 3600 / max(1, args.workers)
        difficulty = Counter(r["task"].get("difficulty_level") or "unrated" for r in kept)
        reasons = Counter(f"{r['layer'] or 'error'}/{r['category']}" for r in mine if r["outcome"] != "kept")
        print(
            f"| {repo} | {len(mine)} | {len(kept)} | {len(kept) / len(mine):.2f} | "
            f"{validations / len(kept) if kept else float('nan'):.1f} | "
            f"{sum(r['kind'] == 'pr' for r in kept)} | {sum(r['kind'] == 'commit' for r in kept)} | "
            f"{len(kept) / busy_hours if busy_hours else float('nan'):.1f} | {dict(difficulty)} | {repeated} | "
            f"{dict(reasons.most_common(3))} |"
        )
    tried = [r for r in rows if r["outcome"] != "duplicate"]
    kept = [r for r in tried if r["outcome"] == "kept" and r["unit"] not in duplicates]
    print(f"farm_kept_per_attempt: {len(kept) / max(1, len(tried)):.3f}")
    print(json.dumps({"wall_s": round(wall) if wall is not None else None, "rows": len(rows), "kept": len(kept)}))


if __name__ == "__main__":
    main()
