"""Wall time until the CLI answers: `sebgen --help`, a usage error of every command, and `sebgen hof`
of a finished run, each against `python -c pass` measured in the same run (the interpreter's own start).

Every command runs ROUNDS times in a fresh process, interleaved with the baseline; the median
counts. The usage errors are the mistakes a user makes first: a path that is not a repository,
a run folder or a tasks file, a malformed tasks or predictions file, a config key typo. The
finished run for `hof` is a tiny real run (offline provider, local sandbox) made once and kept in
~/.cache/sebgen/bench-cli-startup-run; pass `--run-dir DIR` to time another run.
Targets (idle machine): help, every usage error and hof < 1 s.
Last line: `cli_startup_error_s: X` (median wall time of the slowest usage error).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evo.runfolder import RunFolder  # noqa: E402  (the run folder's layout has one home)

ROUNDS = 5
LIMIT_S = 1.0  # every answer below, on an idle machine
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
    if not RunFolder(cached).is_run() or RunFolder(cached).checkpoint() is None:
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


def usage_errors(scratch: Path) -> dict[str, list[str]]:
    """One usage error of every command (each exits 2 with one sentence), on files made in `scratch`."""
    plain = scratch / "plain"  # a folder that is neither a repository nor a run folder
    plain.mkdir(exist_ok=True)
    (plain / "notes.txt").write_text("not a corpus\n")
    bad_tasks = scratch / "tasks.jsonl"
    bad_tasks.write_text('{"instance_id": "a"\n')
    bad_predictions = scratch / "predictions.jsonl"
    bad_predictions.write_text('{"instance_id": 3, "model_patch": ""}\n')
    missing = scratch / "missing"
    return {
        "run": ["run", "missing.yaml"],
        "run --set typo": ["run", "configs/quickstart.yaml", "--set", "evolution.populaton=3"],
        "resume": ["resume", str(missing)],
        "hof": ["hof", str(missing)],
        "generate": ["generate", str(plain), "--out", str(scratch / "out.jsonl")],
        "farm": ["farm", str(plain), "--out", str(scratch / "dataset")],
        "validate": ["validate", str(bad_tasks)],
        "evaluate": ["evaluate", str(bad_tasks), "--predictions", str(bad_predictions)],
        "export": ["export", str(plain), "--format", "swebench", "--out", str(scratch / "export.jsonl")],
        "report": ["report", str(plain)],
        "mine": ["mine", str(plain)],
        "doctor": ["doctor", "--config", "missing.yaml"],
        "curriculum": ["curriculum", str(bad_tasks), "--results", str(missing)],
        "corpus": ["corpus", str(plain)],
        "setup": ["setup", str(plain)],
        "experiment": ["experiment", "missing.yaml"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    args = parser.parse_args()
    run_dir = finished_run(args.run_dir)
    cli = [sys.executable, "-m", "evo.cli"]
    with tempfile.TemporaryDirectory(prefix="sebgen-cli-startup-") as scratch:
        errors = {f"sebgen {name} (usage error)": argv for name, argv in usage_errors(Path(scratch)).items()}
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], 0),
            "sebgen --help": (cli + ["--help"], 0),
            **{name: (cli + argv, 2) for name, argv in errors.items()},
            "sebgen hof RUN_DIR": (cli + ["hof", str(run_dir)], 0),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):  # interleaved, so load changes hit every command alike
            for name, (argv, code) in cases.items():
                times[name].append(wall(argv, code))
    median = {name: statistics.median(values) for name, values in times.items()}
    base = median["python -c pass"]
    print(f"{'command':<40} {'median s':>9} {'minus python':>13} {'x python':>9}")
    for name, value in median.items():
        print(f"{name:<40} {value:>9.3f} {value - base:>13.3f} {value / base:>9.1f}")
    for name in [name for name in median if name != "python -c pass"]:
        print(f"target {name} < {LIMIT_S:.1f} s: {'met' if median[name] < LIMIT_S else 'MISSED'}")
    print(f"cli_startup_help_s: {median['sebgen --help']:.3f}")
    print(f"cli_startup_hof_s: {median['sebgen hof RUN_DIR']:.3f}")
    print(f"cli_startup_error_s: {max(median[name] for name in errors):.3f}")


if __name__ == "__main__":
    main()
