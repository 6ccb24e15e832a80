"""Wall time until the CLI answers: `sebgen --help`, user errors, and `sebgen hof` of a finished run,
each against `python -c pass` measured in the same run (the interpreter's own start).

Every command runs ROUNDS times in a fresh process, interleaved with the baseline; the median
counts. The finished run for `hof` is a tiny real run (offline provider, local sandbox) made once
and kept in ~/.cache/sebgen/bench-cli-startup-run; pass `--run-dir DIR` to time another run.
Targets (idle machine): help and every user error < 1 s, hof < 1 s.
Last line: `cli_startup_error_s: X` (median wall time of the slower of the two config errors).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 5
ENV = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
TINY_RUN = [
    "--set",
    "sandbox.backend=local",
    "--set",
    "sandbox.reruns=1",
    "--set",
    "fitness.tasks_per_strategy=1",
    "--set",
    "fitness.oversample=1",
    "--set",
    "evolution.population=2",
    "--set",
    "evolution.generations=1",
]


def wall(argv: list[str], expect: int | None = None) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=ENV, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if expect is not None and proc.returncode != expect:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}, expected {expect}:\n{proc.stderr[-2000:]}")
    return elapsed


def finished_run(run_dir: Path | None) -> Path:
    if run_dir is not None:
        return run_dir
    cached = Path.home() / ".cache" / "sebgen" / "bench-cli-startup-run"
    if not (cached / "checkpoints").is_dir() or not any((cached / "checkpoints").glob("gen-*.json")):
        import shutil

        shutil.rmtree(cached, ignore_errors=True)
        print(f"making a tiny finished run in {cached} (once) ...", flush=True)
        proc = subprocess.run(
            [sys.executable, "-m", "evo.cli", "run", "configs/quickstart.yaml", "--run-dir", str(cached), *TINY_RUN],
            cwd=ROOT,
            env=ENV,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise SystemExit(f"could not make the run:\n{proc.stderr[-2000:]}")
    return cached


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    run_dir = finished_run(args.run_dir)
    cli = [sys.executable, "-m", "evo.cli"]
    cases = {
        "python -c pass": ([sys.executable, "-c", "pass"], 0),
        "sebgen --help": (cli + ["--help"], 0),
        "sebgen run missing.yaml": (cli + ["run", "missing.yaml"], 2),
        "sebgen run CONFIG --set evolution.populaton=3": (
            cli + ["run", "configs/quickstart.yaml", "--set", "evolution.populaton=3"],
            2,
        ),
        "sebgen hof /nonexistent": (cli + ["hof", "/nonexistent"], 2),
        "sebgen hof RUN_DIR": (cli + ["hof", str(run_dir)], 0),
    }
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):  # interleaved, so load changes hit every command alike
        for name, (argv, code) in cases.items():
            times[name].append(wall(argv, code))
    median = {name: statistics.median(values) for name, values in times.items()}
    base = median["python -c pass"]
    print(f"{'command':<48} {'median s':>9} {'minus python':>13} {'x python':>9}")
    for name, value in median.items():
        print(f"{name:<48} {value:>9.3f} {value - base:>13.3f} {value / base:>9.1f}")
    for name, limit in (
        ("sebgen --help", 1.0),
        ("sebgen run missing.yaml", 1.0),
        ("sebgen run CONFIG --set evolution.populaton=3", 1.0),
        ("sebgen hof /nonexistent", 1.0),
        ("sebgen hof RUN_DIR", 1.0),
    ):
        print(f"target {name} < {limit:.1f} s: {'met' if median[name] < limit else 'MISSED'}")
    print(f"cli_startup_help_s: {median['sebgen --help']:.3f}")
    print(f"cli_startup_hof_s: {median['sebgen hof RUN_DIR']:.3f}")
    print(
        "cli_startup_error_s: "
        f"{max(median['sebgen run missing.yaml'], median['sebgen run CONFIG --set evolution.populaton=3']):.3f}"
    )


if __name__ == "__main__":
    main()
