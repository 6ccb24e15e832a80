"""Helpers for end-to-end tests: run the real `sebgen` CLI in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


def generated_tasks(directory: Path, n: int, repo_name: str = "pyledger", strategy: str = "BUG_FIX") -> Path:
    """Tasks made by `sebgen generate` on a bundled repo, in the local sandbox."""
    require_mark("slow", "generates a task panel end to end")
    from corpus.builder import ensure_corpus

    repo = next(p for p in ensure_corpus() if p.name == repo_name)
    out = Path(directory) / "tasks.jsonl"
    sebgen(
        "generate",
        repo,
        "--strategy",
        strategy,
        "--n",
        n,
        "--out",
        out,
        "--set",
        "sandbox.backend=local",
        "--set",
        "sandbox.reruns=1",
        check=True,
    )
    return out
