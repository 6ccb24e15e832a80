"""Real repositories: `sebgen generate` in Docker on the verified commits, the way users call it.

Reads `../shared/real-repos/commits.json` (next to the repo; `--dev-set js`:
`../shared/real-repos-js/`, whose FAIL_TO_PASS ids are compared with describe paths spelled with
spaces) and clones each bundle into a temp folder. Four modes:

- `--mode per-commit` (default): one `generate --commit SHA` call per verified commit. Per
  repository: whether `sebgen setup` builds the environment at HEAD, the yield (tasks whose
  FAIL_TO_PASS contains a verified test / verified commits), the functional validation time per
  task (median, p90, mean; over every repository too) and, for a few commits, container/native
  time of one warm run with whether both gave the same outcomes (native for JS: the same run
  script on the host with the image's Node and node_modules). Last line `real_repo_yield: X`.
- `--mode batch`: one `generate` call per repository with all its verified commits named. The
  yield counts verified commits whose task is in the output file; every other one must have
  its outcome line and a rejects-file record (both are checked and reported). Last line
  `batch_yield: X`.
- `--mode whole-repo`: `generate REPO --n 30` per repository (no commit named: mined history,
  the quartile filter on). Per repository: kept per attempt, the funnel by reason (from the
  rejects file), container validations per kept task (attempts that reached the functional
  layer / kept), tasks per hour, and why mined commits were not tried. Last line
  `whole_repo_kept_per_attempt: X`.
- `--mode ratio`: only container/native (see `container_vs_native`) on the first
  `--ratio-commits` verified commits of each repository, with the seconds per run by phase
  (image and venv checks, the tree's tar, taking a started container, sending the job, the
  tree's unpacking, pytest, cleanup, the container's removal) for each backend, and what a busy
  machine stretches told apart from what the container adds (`at_test_speed`: the tests' CPU
  time container/native, the seconds outside the tests). Last lines
  `container_native_worst_repository: X` and `container_native_median: X` (over repositories).

    python bench/real_repos.py [--mode per-commit|batch|whole-repo|ratio] [--dev-set python|js] [--repos attrs,click]
                               [--limit N] [--first-parent-only | --pr-branch-only] [--ratio-commits 2]
                               [--ratio-rounds 3] [--cgroup-parent auto|""|/sebgen] [--n 30] [--strategy BUG_FIX|auto]
                               [--skip-setup]

Long (image builds, many generate runs): run it in the background with a log.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
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
from records import file_of_test  # noqa: E402

REAL = dev_set("python")  # `--dev-set js` points it at the JavaScript/TypeScript dev set
PATH_SEPARATOR = " > "  # between a JS test id's describe titles (sandbox.js_report)


def comparable(test_ids) -> set[str]:
    """Test ids with a JS describe path joined by spaces (as the dev set's checker spells mocha's
    ids, `sandbox.comparable_id`); Python ids have no describe path and stay as they are."""
    out = set()
    for test_id in test_ids:
        file, sep, path = str(test_id).partition("::")
        out.add(f"{file}{sep}{' '.join(t for t in path.split(PATH_SEPARATOR) if t)}" if sep else str(test_id))
    return out


SETS = ["--set", "sandbox.backend=docker"]
OUTCOME = re.compile(r"^\s+(kept|rejected) ([0-9a-f]{12})\b(.*)$")


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
    # a bundle whose HEAD names a branch it does not hold clones with no checkout: check its
    # first branch out, as a user would
    if subprocess.run(["git", "-C", str(dest), "rev-parse", "-q", "--verify", "HEAD"], capture_output=True).returncode:
        branches = subprocess.run(
            ["git", "-C", str(dest), "for-each-ref", "--format=%(refname:strip=3)", "refs/remotes/origin"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        branch = next((b for b in branches if b != "HEAD"), "")
        if branch:
            subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-b", branch, f"origin/{branch}"], check=True)
    return dest


def quantile(values: list[float], q: float) -> float:
    """The q-quantile by linear interpolation between the closest ranks (nan for no values)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


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


def strategy_args(strategy: str) -> list[str]:
    return [] if strategy == "auto" else ["--strategy", strategy]


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(ln) for ln in path.read_text().splitlines() if ln.strip()] if path.exists() else []


def rejects_of(out: Path) -> list[dict]:
    stem = out.name[: -len(".jsonl")] if out.name.endswith(".jsonl") else out.name
    return read_jsonl(out.with_name(stem + ".rejected.jsonl"))


def outcome_lines(stderr: str) -> dict[str, list[str]]:
    """12-char sha -> the outcome lines `generate` printed for it."""
    found: dict[str, list[str]] = {}
    for line in stderr.splitlines():
        m = OUTCOME.match(line)
        if m:
            found.setdefault(m[2], []).append(line.strip())
    return found


def generate_one(repo: Path, record: dict, out: Path, strategy: str = "BUG_FIX") -> dict:
    start = time.monotonic()
    try:
        proc = cli(
            "generate",
            str(repo),
            "--commit",
            record["commit"],
            *strategy_args(strategy),
            "--out",
            str(out),
            *SETS,
            timeout=1500,
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
    verified = comparable(record["tests"])
    hit = [t for t in tasks if verified & comparable(t.get("FAIL_TO_PASS", []))]
    duration = None
    for t in hit or tasks:
        duration = (t.get("validation", {}).get("functional", {}).get("details", {}) or {}).get("duration_s")
    why = ""
    if not hit:
        records = rejects_of(out)
        rejected = [ln.strip() for ln in proc.stderr.splitlines() if "rejected" in ln]
        why = (
            f"{records[0]['layer']} [{records[0]['category']}]: {records[0]['reason']}"
            if records
            else (rejected[-1] if rejected else last_line(proc.stderr) or f"exit code {proc.returncode}")
        )
        if tasks:
            why = f"task kept but FAIL_TO_PASS {tasks[0].get('FAIL_TO_PASS')} misses {sorted(verified)[:2]}"
    return {
        "yield": bool(hit),
        "wall_s": wall,
        "validation_s": duration,
        "why": why,
        "fixes": (hit or tasks or [{}])[0].get("environment_setup", {}).get("fixes", []),
    }


class JsNative:
    """The `run_tests` of a JS snapshot on the host, as the container runs it: the image's own Node
    (NODE_HOME) and installed node_modules, copied out of the image once per image, and the same
    run script (`_js_run.py`: node_modules symlink, the recipe's build steps, the runner with
    SEBGen's reporter, unsigned: there is no supervisor). Only for the container/native ratio."""

    def __init__(self, docker, host_dir: Path):
        self.docker, self.host_dir, self.copied = docker, host_dir, {}

    def _toolchain(self, tag: str) -> Path:
        """NODE_HOME and JS_APP/node_modules of image `tag`, under a host folder."""
        import io
        import tarfile

        from sandbox import JS_APP, NODE_HOME

        if tag not in self.copied:
            root = self.host_dir / tag.replace(":", "-").replace("/", "-")
            client = self.docker.js_backend().client
            container = client.containers.create(tag, command=["true"])
            try:
                for path in (NODE_HOME, f"{JS_APP}/node_modules"):
                    dest = root / path.lstrip("/")
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    stream, _ = container.get_archive(path)
                    with tarfile.open(fileobj=io.BytesIO(b"".join(stream))) as tar:
                        tar.extractall(dest.parent, filter="tar")
            finally:
                container.remove(force=True)
            self.copied[tag] = root
        return self.copied[tag]

    def run_tests(self, repo: Path, commit: str, patches=(), test_files=None):
        from sandbox import JS_APP, NODE_HOME, prepare_tree
        from sandbox.js_run import JOB_NAME, js_job, js_test_run

        js = self.docker.js_backend()  # the Docker backend of JS recipes, with their repairs learnt
        recipe = js._recipe(repo, commit)
        root = self._toolchain(js._ensure_image(repo, commit))
        with tempfile.TemporaryDirectory(prefix="sebgen-native-") as tmp:
            start = time.monotonic()
            tree = prepare_tree(Path(repo), commit, patches, Path(tmp) / "tree")
            private = Path(tmp) / "private"
            private.mkdir()
            job = js_job(recipe, test_files, str(tree), str(private))
            spec = json.loads(job["files"][JOB_NAME])
            spec["node_modules"] = str(root / JS_APP.lstrip("/") / "node_modules")
            job["files"][JOB_NAME] = json.dumps(spec)
            for name, text in job["files"].items():
                (private / name).write_text(text)
            node_bin = str(root / NODE_HOME.lstrip("/") / "bin")
            env = {**job["env"], "PATH": job["env"]["PATH"].replace(f"{NODE_HOME}/bin", node_bin)}
            read_end, write_end = os.pipe()
            proc = subprocess.Popen(
                job["cmd"],
                env={**env, "SEBGEN_REPORT_FD": str(write_end)},
                pass_fds=(write_end,),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            os.close(write_end)
            with os.fdopen(read_end, "rb") as pipe:
                report = pipe.read().decode(errors="replace")
            log = proc.communicate()[0].decode(errors="replace")
            verdict = {"exit_code": proc.returncode, "report": report, "log_tail": log[-4000:]}
            duration = time.monotonic() - start
            return js_test_run(recipe, verdict, test_files, str(tree), "host", duration, 600, None, job["canary"])


BACKENDS = ("docker", "local")
SIDE = ("wall", "pytest_cpu")  # in the breakdown's sums but not steps of the wall time


def container_vs_native(
    repo: Path,
    records: list[dict],
    rounds: int = 3,
    back_to_back: int = 2,
    cgroup_parent: str = "auto",
    tmp: Path | None = None,
) -> dict | None:
    """Container against native wall time of each record's verified tests at its commit, warm.

    Native is the local backend for Python; for JS, the same run script on the host with the
    image's Node and node_modules (`JsNative`). Per record: a warm-up run on each backend (image
    and venv builds, the first spare), then `rounds` rounds; in each, `back_to_back` runs on one
    backend and then as many on the other (which goes first alternates), as a validation's
    bug-state and gold-state runs follow each other. A round's ratio is its docker time over its
    native time; the repository's figure is the median of its rounds' ratios. Also returned: the
    seconds by phase (`TestRun.phases`, "tree+other" being the rest of the wall time: the tree's
    export, the setup wrapper) summed over the timed runs, the run count, and whether both
    backends gave the same outcomes."""
    from environment import make_sandbox
    from sandbox import Limits

    quiet = lambda m: None  # noqa: E731
    limits = Limits(timeout_s=600, cgroup_parent=cgroup_parent)
    docker = make_sandbox("docker", limits=limits, log=quiet, setup_attempts=3)
    local = None
    ratios: list[float] = []
    phases: dict[str, Counter] = {name: Counter() for name in BACKENDS}
    runs, same = 0, True
    try:
        for rec in records:
            files = sorted({file_of_test(t) for t in rec["tests"]})
            docker.run_tests(repo, rec["commit"], (), files)  # warm-up: builds, recipe repairs, spare containers
            if docker.is_javascript(repo, rec["commit"]):
                native = JsNative(docker, Path(tmp or tempfile.gettempdir()))
            else:
                local = local or make_sandbox("local", limits=limits, log=quiet, setup_attempts=3)
                native = local
            made = {"docker": docker, "local": native}
            native.run_tests(repo, rec["commit"], (), files)  # warm-up
            for round_no in range(rounds):
                wall, outcomes = {}, {}
                for name in BACKENDS if round_no % 2 == 0 else BACKENDS[::-1]:
                    start = time.monotonic()
                    for _ in range(back_to_back):
                        began = time.monotonic()
                        run = made[name].run_tests(repo, rec["commit"], (), files)
                        took = time.monotonic() - began
                        outcomes[name] = run.outcomes
                        phases[name].update(run.phases)
                        steps = sum(v for k, v in run.phases.items() if k != "pytest_cpu")
                        phases[name]["tree+other"] += took - steps
                        phases[name]["wall"] += took
                    wall[name] = time.monotonic() - start
                runs += back_to_back
                ratios.append(wall["docker"] / wall["local"])
                same &= bool(outcomes["docker"]) and outcomes["docker"] == outcomes["local"]
    except Exception as exc:  # the ratio is a side figure: say why it is missing
        print(f"  container/native: not measured ({type(exc).__name__}: {str(exc).splitlines()[0]})", flush=True)
        return None
    finally:
        docker.close()
        if local is not None:
            local.close()
    return {"ratio": statistics.median(ratios), "ratios": ratios, "phases": phases, "runs": runs, "same": same}


def at_test_speed(result: dict) -> dict:
    """What a busy machine stretches apart from what the container adds: per run, the wall time
    outside the tests on each backend, the tests' CPU time container/native, and container/native
    had the tests run as fast as natively (the native test time plus the container's overhead: an
    upper bound, the native figure also pays the interpreter's and pytest's start the container's
    waiting pytest has paid already)."""
    runs = result["runs"] or 1
    docker, local = result["phases"]["docker"], result["phases"]["local"]
    over = {name: (ph["wall"] - ph["pytest"]) / runs for name, ph in result["phases"].items()}
    return {
        "overhead": over,
        "cpu_ratio": docker["pytest_cpu"] / local["pytest_cpu"] if local["pytest_cpu"] else float("nan"),
        "equal_speed": (local["pytest"] + over["docker"] * runs) / local["wall"] if local["wall"] else float("nan"),
    }


def breakdown(result: dict) -> list[str]:
    """Lines of mean seconds per run by phase, docker beside local."""
    runs = result["runs"] or 1
    lines = []
    for name in BACKENDS:
        ph = result["phases"][name]
        parts = [f"{k} {v / runs:.3f}" for k, v in sorted(ph.items(), key=lambda kv: -kv[1]) if k not in SIDE]
        cpu = f" (pytest CPU {ph['pytest_cpu'] / runs:.3f})"
        lines.append(f"    {name:6s} {ph['wall'] / runs:.3f} s/run = " + ", ".join(parts) + cpu)
    speed = at_test_speed(result)
    lines.append(
        f"    outside the tests: docker {speed['overhead']['docker']:.3f} s/run, local "
        f"{speed['overhead']['local']:.3f} s/run; tests' CPU container/native {speed['cpu_ratio']:.2f}; "
        f"container/native at native test speed {speed['equal_speed']:.2f}"
    )
    return lines


def generate_batch(repo: Path, recs: list[dict], out: Path, strategy: str) -> list[dict]:
    """One `generate` call naming every verified commit of the repository: per commit, whether
    its task is in the output (with a verified test in FAIL_TO_PASS), its outcome lines and its
    rejects-file record."""
    named = [a for rec in recs for a in ("--commit", rec["commit"])]
    start = time.monotonic()
    try:
        proc = cli("generate", str(repo), *named, *strategy_args(strategy), "--out", str(out), *SETS, timeout=4 * 3600)
        stderr, code = proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        stderr, code = (exc.stderr or b"").decode(errors="replace") if isinstance(exc.stderr, bytes) else "", -1
    wall = time.monotonic() - start
    tasks, rejects, lines = read_jsonl(out), rejects_of(out), outcome_lines(stderr)
    rows = []
    for rec in recs:
        sha, verified = rec["commit"], comparable(rec["tests"])
        task = next((t for t in tasks if t["base_commit"] == sha), None)
        record = next((r for r in rejects if r["commit"] == sha), None)
        said = lines.get(sha[:12], [])
        why = ""
        if task is not None and not verified & comparable(task.get("FAIL_TO_PASS", [])):
            why = f"task kept but FAIL_TO_PASS {task.get('FAIL_TO_PASS')} misses {sorted(verified)[:2]}"
        elif task is None:
            why = (
                f"{record['layer']} [{record['category']}]: {record['reason']}"
                if record
                else (said[-1] if said else f"no line, no record (exit code {code}: {last_line(stderr)})")
            )
        rows.append(
            {
                "commit": sha,
                "first_parent": rec["first_parent"],
                "yield": task is not None and not why,
                "in_output": task is not None,
                "lines": len(said),
                "record": record is not None,
                "why": why,
                "wall_s": wall,
            }
        )
    return rows


def validations(tasks: list[dict]) -> int:
    """Attempts that ran the functional layer in a container (a reused identical result aside)."""
    return sum(
        1
        for t in tasks
        if (f := (t.get("validation") or {}).get("functional"))
        and not (f.get("details") or {}).get("reused_result_of_identical_state")
    )


def functional_seconds(tasks: list[dict]) -> list[float]:
    """The functional layer's time of each task that ran it (an image build on first use included)."""
    out = []
    for t in tasks:
        details = ((t.get("validation") or {}).get("functional") or {}).get("details") or {}
        if details.get("duration_s") is not None and not details.get("reused_result_of_identical_state"):
            out.append(float(details["duration_s"]))
    return out


def whole_repo(repo: Path, out: Path, n: int, strategy: str) -> dict:
    start = time.monotonic()
    timed_out = False
    try:
        proc = cli("generate", str(repo), "--n", str(n), *strategy_args(strategy), "--out", str(out), *SETS,
                   timeout=8 * 3600)  # fmt: skip
        stderr = proc.stderr
    except subprocess.TimeoutExpired:
        stderr, timed_out = "", True
    wall = time.monotonic() - start
    kept, rejects = read_jsonl(out), rejects_of(out)
    attempted = [r["task"] for r in rejects if r.get("task")]
    funnel = Counter(f"{r['layer']}/{r['category']}" for r in rejects)
    return {
        "kept": len(kept),
        "attempts": len(kept) + len(attempted),
        "funnel": funnel,
        "validations": validations(kept) + validations(attempted),
        "validation_s": functional_seconds(kept + attempted),
        "wall_s": wall,
        "summary": "timed out" if timed_out else last_line(stderr),
        "examples": {
            key: next(r["reason"] for r in rejects if f"{r['layer']}/{r['category']}" == key) for key in funnel
        },
    }


def select(args) -> dict[str, list[dict]]:
    records = json.loads((REAL / "commits.json").read_text())
    by_repo: dict[str, list[dict]] = {}
    for rec in records:
        if args.repos and not any(s in rec["repo"] for s in args.repos.split(",")):
            continue
        if (args.first_parent_only and not rec["first_parent"]) or (args.pr_branch_only and rec["first_parent"]):
            continue
        by_repo.setdefault(rec["repo"], []).append(rec)
    for name, recs in by_repo.items():
        recs = recs[args.offset :]
        by_repo[name] = recs[: args.limit] if args.limit else recs
    return by_repo


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=("per-commit", "batch", "whole-repo", "ratio"), default="per-commit")
    ap.add_argument("--dev-set", choices=("python", "js"), default="python", help="which dev set (commits.json)")
    ap.add_argument("--repos", default="", help="comma-separated substrings of repo names to keep")
    ap.add_argument("--limit", type=int, default=0, help="commits per repo (0: all)")
    ap.add_argument("--offset", type=int, default=0, help="skip this many commits per repo (to split a run)")
    ap.add_argument("--first-parent-only", action="store_true", help="skip commits of merged PR branches")
    ap.add_argument("--pr-branch-only", action="store_true", help="only commits of merged PR branches")
    ap.add_argument("--ratio-commits", type=int, default=2, help="commits per repo for container/native")
    ap.add_argument("--skip-setup", action="store_true", help="per-commit mode: no `sebgen setup` at HEAD first")
    ap.add_argument("--ratio-rounds", type=int, default=3, help="timed rounds per commit for container/native")
    ap.add_argument("--cgroup-parent", default="auto", help="the containers' cgroup parent ('': the engine's own)")
    ap.add_argument("--n", type=int, default=30, help="whole-repo mode: tasks to keep per repository")
    ap.add_argument("--strategy", default="BUG_FIX", help="the --strategy users pass ('auto': none, the classifier's)")
    args = ap.parse_args()
    global REAL
    REAL = dev_set("javascript" if args.dev_set == "js" else "python")
    by_repo = select(args)
    with tempfile.TemporaryDirectory(prefix="sebgen-real-") as tmp:
        modes = {"per-commit": per_commit, "batch": batch, "whole-repo": whole, "ratio": ratio_only}
        modes[args.mode](args, by_repo, Path(tmp))


def ratio_only(args, by_repo: dict[str, list[dict]], tmp: Path) -> None:
    """Container/native alone, per repository, with where the time goes."""
    medians, rows = {}, {}
    for name, recs in by_repo.items():
        slug = name.replace("/", "__")
        repo = clone(REAL / f"{slug}.bundle", tmp / slug)
        measured = container_vs_native(repo, recs[: args.ratio_commits], args.ratio_rounds, 2, args.cgroup_parent)
        if measured is None:
            continue
        medians[name] = measured["ratio"]
        rows[name] = at_test_speed(measured)
        rounds = " ".join(f"{r:.2f}" for r in measured["ratios"])
        print(f"{name}: container/native {measured['ratio']:.2f} (median of rounds: {rounds})", flush=True)
        print("\n".join(breakdown(measured)), flush=True)
    print(
        "| repository | container/native (median of rounds) | tests' CPU container/native | "
        "s/run outside the tests docker / local | container/native at native test speed |"
    )
    print("|---|---|---|---|---|")
    for name, ratio in medians.items():
        r = rows[name]
        print(
            f"| {name} | {ratio:.2f} | {r['cpu_ratio']:.2f} | {r['overhead']['docker']:.2f} / "
            f"{r['overhead']['local']:.2f} | {r['equal_speed']:.2f} |"
        )
    worst = max(medians.values(), default=float("nan"))
    print(f"container_native_worst_repository: {worst:.2f}")
    print(f"container_native_median: {statistics.median(medians.values()) if medians else float('nan'):.2f}")


def batch(args, by_repo: dict[str, list[dict]], tmp: Path) -> None:
    total = hits = unexplained = 0
    for name, recs in by_repo.items():
        slug = name.replace("/", "__")
        repo = clone(REAL / f"{slug}.bundle", tmp / slug)
        rows = generate_batch(repo, recs, tmp / f"{slug}.jsonl", args.strategy)
        for rec, r in zip(recs, rows):
            explained = r["in_output"] or (r["lines"] == 1 and r["record"])
            unexplained += not explained
            print(
                f"  {rec['commit'][:10]} {'first-parent' if rec['first_parent'] else 'PR-branch   '} "
                f"{'YIELD' if r['yield'] else 'miss '} lines={r['lines']} record={'yes' if r['record'] else 'no'}"
                + (f" -- {r['why']}" if r["why"] else ""),
                flush=True,
            )
        n_hit = sum(r["yield"] for r in rows)
        wall = rows[0]["wall_s"] if rows else 0.0
        print(f"{name}: batch yield={n_hit}/{len(recs)} in one call of {wall:.0f}s", flush=True)
        total += len(recs)
        hits += n_hit
    print(f"misses without exactly one line and a rejects record: {unexplained}")
    print(f"batch_yield: {hits / total if total else 0:.3f}")


def whole(args, by_repo: dict[str, list[dict]], tmp: Path) -> None:
    rows = []
    for name in by_repo:
        slug = name.replace("/", "__")
        repo = clone(REAL / f"{slug}.bundle", tmp / slug)
        r = whole_repo(repo, tmp / f"{slug}.jsonl", args.n, args.strategy)
        rows.append((name, r))
        hours = r["wall_s"] / 3600
        print(
            f"{name}: kept {r['kept']}/{r['attempts']} attempts "
            f"({r['kept'] / r['attempts'] if r['attempts'] else 0:.2f} per attempt), "
            f"{r['validations'] / r['kept'] if r['kept'] else float('nan'):.2f} validations per kept task, "
            f"{r['kept'] / hours if hours else 0:.1f} tasks/h ({r['wall_s']:.0f}s), functional validation "
            f"median {quantile(r['validation_s'], 0.5):.1f} s p90 {quantile(r['validation_s'], 0.9):.1f} s",
            flush=True,
        )
        for reason, count in r["funnel"].most_common():
            print(f"    {count:3d} {reason}  e.g. {r['examples'][reason][:150]}", flush=True)
        print(f"    final line: {r['summary']}", flush=True)
    print("| repository | attempts | kept | kept/attempt | validations/kept | tasks/h | rejected by reason |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rows:
        hours = r["wall_s"] / 3600
        reasons = ", ".join(f"{k} {v}" for k, v in r["funnel"].most_common())
        print(
            f"| {name} | {r['attempts']} | {r['kept']} | {r['kept'] / r['attempts'] if r['attempts'] else 0:.2f} | "
            f"{r['validations'] / r['kept'] if r['kept'] else float('nan'):.2f} | "
            f"{r['kept'] / hours if hours else 0:.1f} | {reasons or '-'} |"
        )
    kept = sum(r["kept"] for _, r in rows)
    attempts = sum(r["attempts"] for _, r in rows)
    print(f"whole_repo_kept_per_attempt: {kept / attempts if attempts else 0:.3f}")


def per_commit(args, by_repo: dict[str, list[dict]], tmp: Path) -> None:
    total = hits = fp_total = fp_hits = 0
    all_ok = True
    all_durations: list[float] = []
    for name, recs in by_repo.items():
        repo = clone(REAL / f"{name.replace('/', '__')}.bundle", tmp / name.replace("/", "__"))
        head = setup_at_head(repo) if not args.skip_setup else {"ok": True, "why": "--skip-setup"}
        all_ok &= head["ok"]
        print(
            f"{name}: setup@HEAD {'skipped' if args.skip_setup else 'yes' if head['ok'] else 'no'} "
            + (
                f"({head['counts']}, {head['attempts']} attempt(s), fixes {head['fixes']})"
                if head.get("counts")
                else f"({head['why']})"
            ),
            flush=True,
        )
        results = []
        for i, rec in enumerate(recs):
            r = generate_one(repo, rec, tmp / f"{name.replace('/', '__')}-{i}.jsonl", args.strategy)
            results.append(r)
            print(
                f"  {rec['commit'][:10]} {'first-parent' if rec['first_parent'] else 'PR-branch   '} "
                f"{'YIELD' if r['yield'] else 'miss '} {r['wall_s']:.0f}s"
                + (f" fixes={r['fixes']}" if r["fixes"] else "")
                + (f" -- {r['why']}" if r["why"] else ""),
                flush=True,
            )
        measured = container_vs_native(repo, recs[: args.ratio_commits], tmp=tmp) if args.ratio_commits else None
        ratio = measured["ratio"] if measured else None
        agree = "" if measured is None else ("same outcomes" if measured["same"] else "outcomes differ")
        n_hit = sum(r["yield"] for r in results)
        durations = [r["validation_s"] for r in results if r["validation_s"] is not None]
        all_durations += durations
        print(
            f"{name}: setup@HEAD={'skipped' if args.skip_setup else 'yes' if head['ok'] else 'no'} "
            f"yield={n_hit}/{len(recs)} "
            f"validation_s median={quantile(durations, 0.5):.1f} p90={quantile(durations, 0.9):.1f} "
            f"mean={sum(durations) / len(durations) if durations else float('nan'):.1f} "
            f"container/native={'n/a' if ratio is None else f'{ratio:.2f}'}" + (f" ({agree})" if agree else ""),
            flush=True,
        )
        total += len(recs)
        hits += n_hit
        fp_total += sum(rec["first_parent"] for rec in recs)
        fp_hits += sum(r["yield"] for r, rec in zip(results, recs) if rec["first_parent"])
    if not args.skip_setup:
        print(f"every repo set up at HEAD: {'yes' if all_ok else 'no'}")
    print(f"first-parent commits: {fp_hits}/{fp_total}; merged-PR-branch commits: {hits - fp_hits}/{total - fp_total}")
    print(
        f"functional validation per task over {len(all_durations)} tasks: median "
        f"{quantile(all_durations, 0.5):.1f} s, p90 {quantile(all_durations, 0.9):.1f} s"
    )
    print(f"real_repo_yield: {hits / total if total else 0:.3f}")


if __name__ == "__main__":
    main()
