"""Helpers for end-to-end tests: run the real `sebgen` CLI in a subprocess."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.marks import require_mark

ROOT = Path(__file__).resolve().parents[1]

# Small but complete: every layer runs, in the local sandbox, on the bundled corpus.
FAST = [
    "--set",
    "sandbox.backend=local",
    "--set",
    "sandbox.reruns=1",
    "--set",
    "fitness.tasks_per_strategy=1",
    "--set",
    "fitness.oversample=2",
    "--set",
    "evolution.population=3",
    "--set",
    "evolution.generations=2",
]


def env() -> dict:
    e = dict(os.environ)
    e.update(LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    return e


def sebgen(*args: str, check: bool = False, timeout: float = 900) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "evo.cli", *map(str, args)],
        cwd=ROOT,
        env=env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"sebgen {' '.join(map(str, args))} failed:\n{proc.stderr[-3000:]}")
    return proc


def popen(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "evo.cli", *map(str, args)],
        cwd=ROOT,
        env=env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def hof_all(run_dir: Path, generations: int) -> list:
    return [
        json.loads(sebgen("hof", run_dir, "--gen", g, "--json", check=True).stdout) for g in range(1, generations + 1)
    ]


def journal_lines(run_dir: Path) -> int:
    path = Path(run_dir) / "evaluations.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


def paid_llm_calls(run_dir: Path) -> int:
    """Requests actually sent to the model (replayed answers are not in the log twice)."""
    return sum(len(p.read_text().splitlines()) for p in (Path(run_dir) / "llm_replay").glob("*.jsonl"))


# The largest panel a test asks for: `generate --n k` keeps the first k tasks that `--n 4` keeps
# (the same records but for timings), so one panel of this size serves every smaller request.
SHARED_PANEL_SIZE = 4


def generated_tasks(directory: Path, n: int, repo_name: str = "pyledger", strategy: str = "BUG_FIX") -> Path:
    """Tasks made by `sebgen generate` on a bundled repo, in the local sandbox: the first `n`
    of a panel generated once per session, written to `directory/tasks.jsonl` for the caller."""
    require_mark("slow", "generates a task panel end to end")
    panel = _shared_panel(repo_name, strategy, max(n, SHARED_PANEL_SIZE))
    out = Path(directory) / "tasks.jsonl"
    out.write_text("".join(panel.read_text().splitlines(keepends=True)[:n]))
    return out


@functools.cache
def _shared_panel(repo_name: str, strategy: str, n: int) -> Path:
    from corpus.builder import ensure_corpus

    repo = next(p for p in ensure_corpus() if p.name == repo_name)
    work = Path(tempfile.mkdtemp(prefix=f"sebgen-panel-{repo_name}-"))
    atexit.register(shutil.rmtree, work, True)
    return generate_kept(
        work / "tasks.jsonl",
        repo,
        "--strategy",
        strategy,
        "--n",
        n,
        "--set",
        "sandbox.backend=local",
        "--set",
        "sandbox.reruns=1",
    )


def generate_kept(out: Path, *args) -> Path:
    """`sebgen generate *args --out out`, which must keep a task: when it keeps none, the test
    fails here with the run's summary and the rejected attempts' reasons."""
    proc = sebgen("generate", *args, "--out", out, check=True)
    if not out.is_file() or not out.read_text().strip():
        rejected = out.with_suffix(".rejected.jsonl")
        reasons = [
            f"{r.get('instance_id')}: {r.get('layer')} {r.get('reason')}"
            for r in (json.loads(line) for line in (rejected.read_text().splitlines() if rejected.is_file() else []))
        ]
        raise AssertionError(f"sebgen generate kept no task:\n{proc.stderr[-2000:]}\n" + "\n".join(reasons))
    return out
