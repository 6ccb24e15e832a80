"""`sebgen farm` resumed after kill -9, on a real bundle: is the dataset the uninterrupted one?

Clones one dev-set bundle (`../shared/real-repos/`, default tenacity) into a temp folder and farms
it twice with the same command (`--limit` units, `--seed`, Docker, 1 worker):

1. uninterrupted, into `straight/`;
2. into `resumed/`, killed with SIGKILL `--kills` times, each time at a random moment inside a
   random unit (the kill lands after the state file holds a randomly drawn number of rows, plus
   a random delay while that unit still runs), then the same command once more to finish.

A killed farm cannot remove its containers; the next command's backend reaps containers whose
owner is dead, and this bench removes (and counts) those labelled with the killed pid, so the
engine is left as found.

Prints: the kills that landed mid-version, each run's wall time, the units per state file, the
validations repeated (a unit with more than one outcome row: a finished validation run again,
must be 0), the units re-tried because a kill caught them in flight (their work is lost, not
repeated), and whether the released dataset (task content and every unit's outcome) equals
the uninterrupted one. Last line `farm_resume_equal: 1` (or 0).

    python bench/farm_resume.py [--repo tenacity] [--limit 8] [--kills 3] [--since 2021-01-01]
                                [--unit both] [--min-lines N] [--timeout-s S] [--seed 7] [--work DIR]

Long (Docker validations, two farms): run it in the background with a log and `nice -n 10`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
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


def dataset(path: Path) -> tuple[list[dict], dict[str, str]]:
    """What must be equal between two farms: the released tasks' content and every unit's outcome."""
    folder = DatasetFolder(path)
    tasks = [
        {k: t.to_dict()[k] for k in ("instance_id", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")}
        | {"problem_statement": t.problem_statement, "difficulty": t.difficulty}
        for t in folder.tasks()
    ]
    outcomes = {r["unit"]: f"{r['outcome']} {r['layer']}/{r['category']}" for r in folder.rows()}
    return tasks, outcomes


def differences(a: tuple[list[dict], dict[str, str]], b: tuple[list[dict], dict[str, str]]) -> list[str]:
    lines = []
    for unit in sorted(set(a[1]) | set(b[1])):
        if a[1].get(unit) != b[1].get(unit):
            lines.append(f"  outcome of {unit}: {a[1].get(unit)} | {b[1].get(unit)}")
    by_id_a, by_id_b = {t["instance_id"]: t for t in a[0]}, {t["instance_id"]: t for t in b[0]}
    for iid in sorted(set(by_id_a) | set(by_id_b)):
        ta, tb = by_id_a.get(iid), by_id_b.get(iid)
        if ta != tb:
            fields = sorted(k for k in (ta or tb) if (ta or {}).get(k) != (tb or {}).get(k))
            lines.append(f"  task {iid}: differs in {', '.join(fields)}")
    return lines


def state_rows(out: Path) -> int:
    state = out / "state.jsonl"
    return len(state.read_text().splitlines()) if state.exists() else 0


def version_finished(out: Path) -> bool:
    versions = DatasetFolder(out).versions() if (out / "dataset.json").exists() else []
    return bool(versions and versions[-1].get("finished_at"))


def remove_containers_of(pid: int) -> int:
    """Remove the containers a killed farm process left (label sebgen.pid); how many there were."""
    import docker

    client = docker.from_env()
    removed = 0
    for info in client.api.containers(all=True, filters={"label": ["sebgen=1", f"sebgen.pid={pid}"]}):
        client.api.remove_container(info["Id"], force=True, v=True)
        removed += 1
    return removed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default="tenacity")
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--kills", type=int, default=3)
    parser.add_argument("--since", default="2021-01-01")
    parser.add_argument("--unit", default="both")
    parser.add_argument("--min-lines", type=int, default=0, help="Units whose gold patch changes at least N lines.")
    parser.add_argument("--timeout-s", type=float, default=None, help="sandbox.timeout_s (default: the config's).")
    parser.add_argument("--seed", type=int, default=7, help="The farm's seed and the kill moments' seed.")
    parser.add_argument("--work", type=Path, default=None, help="Working folder (default: a temp folder).")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="farm-resume-"))
    work.mkdir(parents=True, exist_ok=True)
    bundle = next((b for b in sorted(dev_set("python").glob("*.bundle")) if args.repo in b.stem), None)
    if bundle is None:
        sys.exit(f"no dev-set bundle matches {args.repo!r}")
    clone = work / bundle.stem.split("__")[-1]
    if not clone.exists():
        subprocess.run(["git", "clone", "-q", str(bundle), str(clone)], check=True)

    def command(out: Path) -> list[str]:
        timeout = ["--set", f"sandbox.timeout_s={args.timeout_s}"] if args.timeout_s else []
        return [
            sys.executable, "-m", "evo.cli", "farm", str(clone), "--out", str(out), "--since", args.since,
            "--limit", str(args.limit), "--unit", args.unit, "--min-lines", str(args.min_lines),
            "--seed", str(args.seed), "--set", "sandbox.backend=docker", *timeout,
        ]  # fmt: skip

    print(f"farm_resume: {clone.name}, {args.limit} units, {args.kills} kills, work {work}", flush=True)
    straight = work / "straight"
    started = time.monotonic()
    proc = subprocess.run(command(straight), cwd=ROOT, text=True, capture_output=True)
    straight_wall = time.monotonic() - started
    if proc.returncode != 0:
        sys.exit(f"the uninterrupted farm failed ({proc.returncode}): {proc.stderr[-2000:]}")
    print(f"uninterrupted: {state_rows(straight)} rows in {straight_wall / 60:.1f} min", flush=True)

    resumed = work / "resumed"
    rng = random.Random(args.seed)
    targets = sorted(rng.sample(range(args.limit), min(args.kills, args.limit)))
    kills, left, resumed_wall, retried = [], 0, 0.0, 0
    for target in targets:
        if version_finished(resumed):
            break
        started = time.monotonic()
        log = open(work / f"resumed-{len(kills) + 1}.log", "w")
        proc = subprocess.Popen(command(resumed), cwd=ROOT, text=True, stdout=log, stderr=subprocess.STDOUT)
        while proc.poll() is None and state_rows(resumed) < target:
            time.sleep(0.2)
        # a random moment inside the next unit: at most 60 s in, and before that unit's row lands
        until = time.monotonic() + rng.uniform(0.0, 60.0)
        while proc.poll() is None and time.monotonic() < until and state_rows(resumed) <= target:
            time.sleep(0.2)
        if proc.poll() is None:
            rows = state_rows(resumed)
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            kills.append(rows)
            left += remove_containers_of(proc.pid)
            retried += 1  # a unit in flight (if any) has no outcome: the next command tries it from the start
        else:
            proc.wait()
        log.close()
        resumed_wall += time.monotonic() - started
    if not version_finished(resumed):
        started = time.monotonic()
        proc = subprocess.run(command(resumed), cwd=ROOT, text=True, capture_output=True)
        resumed_wall += time.monotonic() - started
        if proc.returncode != 0:
            sys.exit(f"the finishing farm failed ({proc.returncode}): {proc.stderr[-2000:]}")
    print(f"killed at {len(kills)} points (state rows then: {kills}); containers left by the kills: {left}")
    print(f"resumed: {state_rows(resumed)} rows in {resumed_wall / 60:.1f} min (kills and restarts included)")

    rows = [r for r in DatasetFolder(resumed).rows() if r["outcome"] != "duplicate"]
    repeated = sum(n - 1 for n in Counter(r["unit"] for r in rows).values() if n > 1)
    a, b = dataset(straight), dataset(resumed)
    kept = sum(1 for r in rows if r["outcome"] == "kept")
    print(f"units: {len(a[1])} uninterrupted, {len(b[1])} resumed; kept {kept}; released {len(b[0])}")
    print(f"validations repeated: {repeated}; kills that could catch a unit in flight: {retried}")
    print(json.dumps({"kills": len(kills), "repeated": repeated, "retried_in_flight": retried, "left": left}))
    equal = a == b
    print("datasets " + ("equal" if equal else "NOT equal"))
    for line in differences(a, b):
        print(line)
    print(f"farm_resume_equal: {int(equal and repeated == 0 and len(kills) > 0)}")


if __name__ == "__main__":
    main()
