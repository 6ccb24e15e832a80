"""Throughput of strategy evaluation with 2 workers against 1, on the bundled corpus.

Both sides evaluate the same 12 distinct strategies after a warm-up (model load, venv/image
build), with functional-result reuse off, so the ratio measures parallel evaluation, not caching.
Extra `a.b=v` arguments override the config (e.g. `sandbox.backend=local`). Last line: `parallel_speedup_2_vs_1: X`.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evo.config import load_config  # noqa: E402
from evo.parallel import PoolRunner  # noqa: E402
from tasks.strategy import Strategy, StrategyType  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def jobs(config, run_dir: Path, count: int, offset: int) -> list[dict]:
    types = [StrategyType.BUG_FIX, StrategyType.FEATURE_ADD]
    out = []
    for i in range(offset, offset + count):
        s = Strategy(
            types[i % 2],
            f"Write an issue for {{repo}} (variant {i}). Include reproduction steps. Never reveal the fix.",
            temperature=0.5 + 0.01 * i,
        )
        out.append(
            {
                "config": config.model_dump(mode="json"),
                "run_dir": str(run_dir),
                "generation": 1,
                "strategy": s.to_dict(),
            }
        )
    return out


def timed(workers: int, config, run_dir: Path) -> float:
    runner = PoolRunner("pool", workers, log=lambda *_: None)
    try:
        list(runner.run(jobs(config, run_dir, workers, 100 * workers), lambda: False))  # warm-up
        start = time.perf_counter()
        results = list(runner.run(jobs(config, run_dir, 12, 0), lambda: False))
        elapsed = time.perf_counter() - start
    finally:
        runner.close()
    print(
        f"{workers} worker(s): {len(results)} evaluations in {elapsed:.1f}s "
        f"({len(results) / elapsed:.3f} evaluations/s)"
    )
    return len(results) / elapsed


def main() -> None:
    import tempfile

    config = load_config(
        ROOT / "configs" / "quickstart.yaml",
        [
            "fitness.tasks_per_strategy=2",
            "fitness.oversample=2",
            "sandbox.reruns=1",
            "fitness.reuse_functional_results=false",
        ]
        + sys.argv[1:],
    )
    from archive import Archive

    with tempfile.TemporaryDirectory() as tmp:
        Archive.open(Path(tmp) / "archive").close()  # workers open the run's archive read-only
        one = timed(1, config, Path(tmp))
        two = timed(2, config, Path(tmp))
    print(f"sandbox backend: {config.sandbox.backend}; cores: {os.cpu_count()}")
    print(f"parallel_speedup_2_vs_1: {two / one:.2f}")


if __name__ == "__main__":
    main()
