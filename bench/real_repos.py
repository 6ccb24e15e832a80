"""Real repositories: `sebgen generate --commit` in Docker for every verified commit.

Reads `../shared/real-repos/commits.json` (next to the repo), clones each bundle into a temp
folder and, per repository, prints:
- setup@HEAD: whether `sebgen setup` builds the environment at HEAD and runs its suite
  (yes/no), with its pass/fail counts and the repairs it made;
- yield: tasks whose FAIL_TO_PASS contains a verified test / verified commits;
- mean validation time per task (the functional layer's duration, from the task record);
- container/native: for a few commits, one run of the verified tests in a container divided by
  one run of the same tests natively (the local backend), both on warm environments.
Then why each missed commit missed. Last line `real_repo_yield: X`.

    python bench/real_repos.py [--repos attrs,click] [--limit N] [--first-parent-only | --pr-branch-only]
                               [--ratio-commits 2]

Long (image builds, 40 generate runs): run it in the background with a log.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REAL = ROOT.parent / "shared" / "real-repos"
SETS = ["--set", "sandbox.backend=docker"]


def cli(*args: str, timeout: float = 3600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "evo.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=timeout,
        check=False,
    )


def clone(bundle: Path, dest: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(bundle), str(dest)], check=True)
    return dest


def last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def setup_at_head(repo: Path) -> dict:
    proc = cli("setup", str(repo), "--json", *SETS)
    if proc.returncode != 0:
        return {"ok": False, "why": last_line(proc.stderr)}
    report = json.loads(proc.stdout)
    c = report["counts"]
    ok = c["passed"] > 0 and not report["timed_out"]
    return {
        "ok": ok,
        "counts": c,
        "fixes": report["fixes"],
        "attempts": len(report["attempts"]),
        "why": "" if ok else (report["note"] or "no test passed"),
    }


def generate_one(repo: Path, record: dict, out: Path) -> dict:
    start = time.monotonic()
    try:
        proc = cli(
            "generate", str(repo), "--commit", record["commit"], "--n", "1", "--out", str(out), *SETS, timeout=1500
        )
    except subprocess.TimeoutExpired:
        return {
            "yield": False,
            "wall_s": time.monotonic() - start,
            "validation_s": None,
            "why": "generate did not finish in 1500 s",
            "fixes": [],
        }
    wall = time.monotonic() - start
    tasks = [json.loads(ln) for ln in out.read_text().splitlines() if ln.strip()] if out.exists() else []
    verified = set(record["tests"])
    hit = [t for t in tasks if verified & set(t.get("FAIL_TO_PASS", []))]
    duration = None
    for t in hit or tasks:
        duration = (t.get("validation", {}).get("functional", {}).get("details", {}) or {}).get("duration_s")
    why = ""
    if not hit:
        rejected = [ln.strip() for ln in proc.stderr.splitlines() if "rejected" in ln]
        why = rejected[-1] if rejected else last_line(proc.stderr) or f"exit code {proc.returncode}"
        if tasks:
            why = f"task kept but FAIL_TO_PASS {tasks[0].get('FAIL_TO_PASS')} misses {sorted(verified)[:2]}"
    return {
        "yield": bool(hit),
        "wall_s": wall,
        "validation_s": duration,
        "why": why,
        "fixes": (hit or tasks or [{}])[0].get("environment_setup", {}).get("fixes", []),
    }


def container_vs_native(repo: Path, records: list[dict]) -> float | None:
    """Docker time / local time of one warm run of each record's verified tests at its commit."""
    from environment import make_sandbox
    from sandbox import Limits

    quiet = lambda m: None  # noqa: E731
    docker = make_sandbox("docker", limits=Limits(timeout_s=600), log=quiet, setup_attempts=3)
    local = make_sandbox("local", limits=Limits(timeout_s=600), log=quiet, setup_attempts=3)
    times = {"docker": 0.0, "local": 0.0}
    try:
        for rec in records:
            files = sorted({t.split("::")[0] for t in rec["tests"]})
            for name, backend in (("docker", docker), ("local", local)):
                backend.run_tests(repo, rec["commit"], (), files)  # warm-up: builds, spare containers
                start = time.monotonic()
                backend.run_tests(repo, rec["commit"], (), files)
                times[name] += time.monotonic() - start
    except Exception as exc:  # the ratio is a side figure: say why it is missing
        print(f"  container/native: not measured ({type(exc).__name__}: {str(exc).splitlines()[0]})", flush=True)
        return None
    finally:
        docker.close()
        local.close()
    return times["docker"] / times["local"] if times["local"] else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repos", default="", help="comma-separated substrings of repo names to keep")
    ap.add_argument("--limit", type=int, default=0, help="commits per repo (0: all)")
    ap.add_argument("--offset", type=int, default=0, help="skip this many commits per repo (to split a run)")
    ap.add_argument("--first-parent-only", action="store_true", help="skip commits of merged PR branches")
    ap.add_argument("--pr-branch-only", action="store_true", help="only commits of merged PR branches")
    ap.add_argument("--ratio-commits", type=int, default=2, help="commits per repo for container/native")
    args = ap.parse_args()
    records = json.loads((REAL / "commits.json").read_text())
    by_repo: dict[str, list[dict]] = {}
    for rec in records:
        if args.repos and not any(s in rec["repo"] for s in args.repos.split(",")):
            continue
        if (args.first_parent_only and not rec["first_parent"]) or (args.pr_branch_only and rec["first_parent"]):
            continue
        by_repo.setdefault(rec["repo"], []).append(rec)
    total = hits = fp_total = fp_hits = 0
    all_ok = True
    with tempfile.TemporaryDirectory(prefix="sebgen-real-") as tmp:
        for name, recs in by_repo.items():
            recs = recs[args.offset :]
            recs = recs[: args.limit] if args.limit else recs
            repo = clone(REAL / f"{name.replace('/', '__')}.bundle", Path(tmp) / name.replace("/", "__"))
            head = setup_at_head(repo)
            all_ok &= head["ok"]
            print(
                f"{name}: setup@HEAD {'yes' if head['ok'] else 'no'} "
                + (
                    f"({head['counts']}, {head['attempts']} attempt(s), fixes {head['fixes']})"
                    if head.get("counts")
                    else f"({head['why']})"
                ),
                flush=True,
            )
            results = []
            for i, rec in enumerate(recs):
                r = generate_one(repo, rec, Path(tmp) / f"{name.replace('/', '__')}-{i}.jsonl")
                results.append(r)
                print(
                    f"  {rec['commit'][:10]} {'first-parent' if rec['first_parent'] else 'PR-branch   '} "
                    f"{'YIELD' if r['yield'] else 'miss '} {r['wall_s']:.0f}s"
                    + (f" fixes={r['fixes']}" if r["fixes"] else "")
                    + (f" -- {r['why']}" if r["why"] else ""),
                    flush=True,
                )
            ratio = container_vs_native(repo, recs[: args.ratio_commits]) if args.ratio_commits else None
            n_hit = sum(r["yield"] for r in results)
            durations = [r["validation_s"] for r in results if r["validation_s"] is not None]
            mean = sum(durations) / len(durations) if durations else float("nan")
            print(
                f"{name}: setup@HEAD={'yes' if head['ok'] else 'no'} yield={n_hit}/{len(recs)} "
                f"mean_validation_s={mean:.1f} container/native={'n/a' if ratio is None else f'{ratio:.2f}'}",
                flush=True,
            )
            total += len(recs)
            hits += n_hit
            fp_total += sum(rec["first_parent"] for rec in recs)
            fp_hits += sum(r["yield"] for r, rec in zip(results, recs) if rec["first_parent"])
    print(f"every repo set up at HEAD: {'yes' if all_ok else 'no'}")
    print(f"first-parent commits: {fp_hits}/{fp_total}; merged-PR-branch commits: {hits - fp_hits}/{total - fp_total}")
    print(f"real_repo_yield: {hits / total if total else 0:.3f}")


if __name__ == "__main__":
    main()
