"""Evolution on the farm: one held-back window of history farmed with three strategies.

Clones the Python dev-set bundles of `../shared/real-repos/` into a temp folder. Per repository the
window is the newest `--holdout` share of its farm units (commits and merged pull requests, by
date): `--since` is the day of the oldest unit in that share. The window is farmed three times,
each arm in its own dataset folder, with the same seed, the same `--limit` of units per
repository and one environment cache (`SEBGEN_CACHE`, `--cache`), so each environment is built
once whichever arm needs it first:

    evolved   --strategy-from RUN --strategy-pick best-evolved   the best strategy evolution made
    seed      --strategy-from RUN --strategy-pick best-seed      that run's best generation-1 strategy
    random-S  --random-strategy S                                a random strategy drawn with seed S
                                                                 (one arm per seed of --random-seeds)

Each arm tries the units its strategy takes, in the order its selection genes prefer, up to
`--limit` per repository. Side by side: units tried, container validations, kept, kept per
validation, kept per attempt and the difficulty histogram of the kept tasks (0.2-wide bins of
the difficulty score, as the dataset card bins them).

    python bench/farm_strategies.py --run RUN_DIR [--repos attrs,click] [--holdout 0.3] [--limit 8]
                                    [--random-seeds 0,1] [--seed 0] [--timeout-s S] [--cache DIR] [--out DIR]
                                    [--arms evolved,seed,random]

The run is usually a quickstart run (`sebgen run configs/quickstart.yaml --run-dir RUN`): it
evolved on the bundled corpus, so every dev-set commit is unseen by it. A rerun with the same
`--out` extends every arm: each farms its next `--limit` units per repository as a new dataset
version (the farm plans from the whole window in the strategy's order and skips what it tried, so
two runs of `--limit 4` try the units one run of `--limit 8` would). The table counts every
version; "farm min" is the versions' own wall time (planning and mining excluded).

Long (image builds, validations): run it in the background with a log and `nice -n 10`.
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
from datetime import datetime
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from corpus import dev_set  # noqa: E402
from evo.config import Config, farm_settings  # noqa: E402
from evo.dataset import DatasetFolder  # noqa: E402
from evo.farm import farm_strategy, repo_units  # noqa: E402

ARMS = ("evolved", "seed", "random")
PICKS = {"evolved": "best-evolved", "seed": "best-seed"}  # --strategy-pick of the arms taken from the run


def arm_settings(arm: str, args) -> dict:
    """The arm's strategy options, as `farm_settings` takes them."""
    if arm.startswith("random-"):
        return {"random_strategy": int(arm.removeprefix("random-"))}
    return {"strategy_from": str(args.run), "strategy_pick": PICKS[arm]}


def arm_options(arm: str, args) -> list[str]:
    return ["--" + k.replace("_", "-") + "=" + str(v) for k, v in arm_settings(arm, args).items()]


BINS = ("0.0-0.2", "0.2-0.4", "0.4-0.6", "0.6-0.8", "0.8-1.0")


def window_start(clone: Path, holdout: float) -> tuple[str, int, int]:
    """(the first day of the newest `holdout` share of the repository's units, units in the
    window, units in the whole history)."""
    units = repo_units(Config(), clone, farm_settings())
    if not units:
        raise SystemExit(f"{clone.name}: no farm unit in its history")
    first = units[min(len(units) - 1, int(len(units) * (1 - holdout)))]
    since = first.candidate.created_at[:10]
    return since, sum(u.candidate.created_at[:10] >= since for u in units), len(units)


def histogram(tasks: list[dict]) -> dict[str, int]:
    counts = Counter()
    for task in tasks:
        low = min(int(float(task.get("difficulty") or 0.0) * 5), 4) / 5
        counts[f"{low:.1f}-{low + 0.2:.1f}"] += 1
    return {b: counts.get(b, 0) for b in BINS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="The evolution run folder (a quickstart run).")
    parser.add_argument("--repos", default="", help="Comma-separated names (default: all four).")
    parser.add_argument("--holdout", type=float, default=0.3, help="The newest share of each history farmed.")
    parser.add_argument("--limit", type=int, default=8, help="Units each arm tries per repository.")
    parser.add_argument("--random-seeds", default="0", help="Comma-separated: one random arm per seed.")
    parser.add_argument("--seed", type=int, default=0, help="The farm's --seed (every arm).")
    parser.add_argument("--timeout-s", type=float, default=None, help="sandbox.timeout_s (default: the config's).")
    parser.add_argument("--cache", type=Path, default=None, help="SEBGEN_CACHE for every arm (default: the usual).")
    parser.add_argument("--arms", default=",".join(ARMS), help="Comma-separated arms to run, in this order.")
    parser.add_argument("--out", type=Path, default=None, help="Bench folder (default: a temp folder).")
    args = parser.parse_args()
    named = [a for a in args.arms.split(",") if a]
    if unknown := [a for a in named if a not in ARMS]:
        raise SystemExit(f"unknown arm {unknown[0]!r}; arms are {', '.join(ARMS)}")
    seeds = [int(s) for s in args.random_seeds.split(",") if s.strip()]
    arms = [a for name in named for a in ([f"random-{s}" for s in seeds] if name == "random" else [name])]
    work = args.out or Path(tempfile.mkdtemp(prefix="farm-strategies-"))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    if args.cache:
        env["SEBGEN_CACHE"] = str(args.cache)
    wanted = [r for r in args.repos.split(",") if r]
    clones = []
    for bundle in sorted(dev_set("python").glob("*.bundle")):
        if wanted and not any(w in bundle.stem for w in wanted):
            continue
        dest = work / "clones" / bundle.stem.split("__")[-1]
        if not dest.exists():
            subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
        clones.append(dest)
    windows = {clone.name: window_start(clone, args.holdout) for clone in clones}
    for name, (since, held, total) in windows.items():
        print(f"window {name}: since {since}, {held} of {total} units")
    strategies = {}
    for arm in arms:
        s = strategies[arm] = farm_strategy(farm_settings(**arm_settings(arm, args)))
        print(f"arm {arm}: strategy {s.id} {s.strategy_type.value} ({s.operator}, generation {s.generation})")
    load_before = os.getloadavg()
    walls: dict[tuple[str, str], float] = {}
    for arm in arms:
        for clone in clones:
            out = work / arm / clone.name
            command = [sys.executable, "-m", "evo.cli", "farm", str(clone), "--out", str(out), *arm_options(arm, args)]
            command += ["--since", windows[clone.name][0], "--limit", str(args.limit), "--seed", str(args.seed)]
            command += ["--set", "sandbox.backend=docker"]
            if args.timeout_s:
                command += ["--set", f"sandbox.timeout_s={args.timeout_s}"]
            print("$ " + " ".join(command[1:]), flush=True)
            started = time.monotonic()
            proc = subprocess.run(command, cwd=ROOT, env=env, text=True, capture_output=True)
            walls[arm, clone.name] = time.monotonic() - started
            (work / f"{arm}-{clone.name}.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
            if proc.returncode != 0:
                sys.stderr.write(proc.stderr[-3000:])
                raise SystemExit(f"farm of {clone.name} for arm {arm} failed (exit {proc.returncode})")
            print(f"  {walls[arm, clone.name] / 60:.1f} min", flush=True)
    report(work, arms, [c.name for c in clones], strategies, load_before)


def farm_minutes(folder: DatasetFolder) -> float:
    """The wall time of the folder's finished versions (planning excluded)."""
    seconds = 0.0
    for v in folder.versions():
        if v.get("finished_at"):
            seconds += (datetime.fromisoformat(v["finished_at"]) - datetime.fromisoformat(v["started_at"])).seconds
    return seconds / 60


def report(work: Path, arms: list[str], repos: list[str], strategies: dict, load_before) -> None:
    header = ["arm", "strategy", "units tried", "validations", "kept", "kept/validation", "kept/attempt"]
    header += [f"difficulty {b}" for b in BINS] + ["farm min"]
    print("| " + " | ".join(header) + " |")
    print("|---" * len(header) + "|")
    summary = {}
    for arm in arms:
        rows, tasks, wall = [], [], 0.0
        for repo in repos:
            folder = DatasetFolder(work / arm / repo)
            rows += [r for r in folder.rows() if r["outcome"] != "duplicate"]
            tasks += [t.to_dict() for t in folder.tasks()]
            wall += farm_minutes(folder)
        kept = sum(r["outcome"] == "kept" for r in rows)
        validations = sum(r.get("validations", 0) for r in rows)
        hist = histogram(tasks)
        s = strategies[arm]
        cells = [arm, f"{s.id} {s.strategy_type.value}", str(len(rows)), str(validations), str(kept)]
        cells += [f"{kept / validations:.2f}" if validations else "-", f"{kept / len(rows):.2f}" if rows else "-"]
        cells += [str(hist[b]) for b in BINS] + [f"{wall:.1f}"]
        print("| " + " | ".join(cells) + " |")
        summary[arm] = {"tried": len(rows), "validations": validations, "kept": kept, "histogram": hist}
        causes = Counter(f"{r['layer'] or 'error'}/{r['category']}" for r in rows if r["outcome"] != "kept")
        print(f"  {arm} rejections: {dict(causes.most_common(5))}", file=sys.stderr)
    print(f"load average before {load_before[0]:.1f}, after {os.getloadavg()[0]:.1f}")
    print(json.dumps(summary, sort_keys=True))


if __name__ == "__main__":
    main()
