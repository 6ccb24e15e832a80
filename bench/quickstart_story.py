"""The figures the README's quickstart story quotes, read from a finished run folder.

    python bench/quickstart_story.py runs/quickstart

Per generation: the population's mean EV and the hall of fame's best EV (the CLI's and the
report's figure); the offspring and how each was made; the final hall of fame's top entries
with their operator, EV, kept tasks and validations per kept task; the rejections by layer and
reason; the kept dataset and, when `sebgen evaluate RUN --agent oracle` ran, its resolved count.
The README names the commit whose run it quotes, so the story cannot drift from the code.
Last line: `quickstart_best_ev: X` (the hall of fame's best EV at the last generation).
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evo.report import read_run  # noqa: E402
from evo.runfolder import RunFolder  # noqa: E402


def main(run_dir: Path) -> None:
    run = read_run(run_dir)
    folder = RunFolder(run_dir)
    print(f"run {run_dir}: {run.generation} generations, {run.evaluations} evaluations, {len(run.kept)} kept tasks")
    means = {g: avg for g, avg, _ in run.series.get("exploration_value", [])}
    for generation, best in run.hof_best:
        made = Counter(s.get("operator", "?") for s in folder.offspring().get(generation, []))
        mix = ", ".join(f"{n} {op}" for op, n in sorted(made.items()))
        mean = means.get(generation, 0.0)
        print(f"generation {generation}: mean EV {mean:.3f}, hall-of-fame best EV {best:.3f}; {mix}")
    print("hall of fame (last generation):")
    for entry in run.hof[:5]:
        print(
            f"  {entry['id']} {entry['strategy_type']:<11} {entry.get('operator', '?'):<16} "
            f"EV {entry['exploration_value']:.3f}  kept {entry.get('tasks_passed', 0)}/"
            f"{entry.get('tasks_attempted', 0)}"
            f"  validations/kept {entry.get('validations_per_kept')}"
        )
    print("rejections by layer and reason:", ", ".join(f"{layer}/{reason} {n}" for layer, reason, n in run.reasons))
    for result in run.results:
        summary = result.get("summary") or {}
        overall = summary.get("overall") or {}  # the leaderboard document of `sebgen evaluate`
        print(f"agent {result.get('model')}: resolved {overall.get('resolved', '?')}/{overall.get('tasks', '?')}")
    best = run.hof_best[-1][1] if run.hof_best else 0.0
    print(f"quickstart_best_ev: {best:.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python bench/quickstart_story.py RUN_DIR")
    main(Path(sys.argv[1]))
