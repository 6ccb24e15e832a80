"""Container validation wall time vs native (local backend) wall time of the same test runs.

For a few bug-fix commits of the bundled corpus, both backends run the full functional check
(bug state and gold state, one run each) on warm environments; image and venv builds are
done in a warm-up pass and not counted. Every Docker run uses a fresh container.
Last line: `sandbox_overhead_ratio: X` (docker time / local time; target <= 1.5).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus.builder import ensure_corpus, load_manifest  # noqa: E402
from environment import make_sandbox  # noqa: E402
from sandbox import Limits, check_functional  # noqa: E402

N_COMMITS = 4
ROUNDS = 2  # each task is checked this many times per backend, alternating, to even out noise


def git_diff(repo: Path, a: str, b: str, paths: list[str]) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "diff", a, b, "--", *paths], capture_output=True, text=True, check=True
    ).stdout
    return out


def bug_fix_tasks(n: int) -> list[tuple[Path, str, str, str, list[str]]]:
    """(repo, base_commit, bug_patch, gold_patch, test_files) of the first n bug fixes, round-robin over repos."""
    repos = ensure_corpus()
    manifest = load_manifest(repos[0].parent)
    per_repo = []
    for name, entry in sorted(manifest["repos"].items()):
        repo = repos[0].parent / entry["path"]
        fixes = [c for c in entry["commits"] if c["kind"] == "bug_fix" and c["source_files"] and c["test_files"]]
        per_repo.append([(repo, c) for c in fixes])
    picked = []
    while len(picked) < n and any(per_repo):
        for fixes in per_repo:
            if fixes and len(picked) < n:
                picked.append(fixes.pop(0))
    tasks = []
    for repo, c in picked:
        bug = git_diff(repo, c["sha"], c["parent"], c["source_files"])  # reversed fix
        gold = git_diff(repo, c["parent"], c["sha"], c["source_files"])
        tasks.append((repo, c["sha"], bug, gold, c["test_files"]))
    return tasks


def main() -> None:
    tasks = bug_fix_tasks(N_COMMITS)
    limits = Limits(timeout_s=120)
    with tempfile.TemporaryDirectory(prefix="sebgen-bench-") as cache:
        quiet = lambda m: None  # noqa: E731
        local = make_sandbox("local", limits=limits, cache_dir=Path(cache), log=quiet)
        docker = make_sandbox("docker", limits=limits, cache_dir=Path(cache), log=quiet)
        for repo, sha, _, _, files in tasks:  # warm-up: builds are not what is measured
            local.run_tests(repo, sha, (), files)
            docker.run_tests(repo, sha, (), files)
        totals = {"local": 0.0, "docker": 0.0}
        for round_no in range(ROUNDS):
            for repo, sha, bug, gold, files in tasks:
                row = []
                order = (("local", local), ("docker", docker))
                for name, backend in order if round_no % 2 == 0 else order[::-1]:
                    start = time.monotonic()
                    res = check_functional(backend, repo, sha, bug, gold, files, reruns=1)
                    took = time.monotonic() - start
                    totals[name] += took
                    row.append(
                        f"{name} {took:5.2f} s ({'ok' if res.passed else 'rejected'}: {len(res.fail_to_pass)} F2P)"
                    )
                print(f"round {round_no + 1} {repo.name}@{sha[:8]}: " + "; ".join(sorted(row)))
        docker.close()
    print(
        f"total: local {totals['local']:.2f} s, docker {totals['docker']:.2f} s "
        f"({len(tasks)} tasks x 2 states x {ROUNDS} rounds; fresh container per docker run)"
    )
    print(f"sandbox_overhead_ratio: {totals['docker'] / totals['local']:.2f}")


if __name__ == "__main__":
    main()
