"""The ZPD curriculum: width rule, zone counts and easy-medium-easy-medium-hard interleaving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from harness.curriculum import (
    CurriculumError,
    capability_profile,
    curriculum,
    interleave,  # noqa: E402
    zone_counts,
    zpd_width,
)
from records import Task, write_jsonl  # noqa: E402
from tests.task_records import task_record  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LEVEL_SCORE = {"easy": 0.2, "medium": 0.45, "hard": 0.8}


def make_task(i: int, level: str, month: str = "2025-01") -> Task:
    return task_record(
        f"t{i:02d}-{level}",
        base_commit="c",
        problem_statement="",
        strategy_id="s",
        created_at=f"{month}-01T00:00:00",
        difficulty=LEVEL_SCORE[level] + i / 1000,
        difficulty_level=level,
    )


def panel() -> list[Task]:
    levels = ["easy"] * 6 + ["medium"] * 5 + ["hard"] * 4
    return [make_task(i, lvl) for i, lvl in enumerate(levels)]


def results_for(tasks: list[Task], solved: set[str]) -> dict:
    return {"tasks": {t.instance_id: {"resolved": t.instance_id in solved} for t in tasks}}


def test_interleaving_follows_the_pattern_and_keeps_hard_sparse():
    order = [t.difficulty_level for t in interleave(panel())]
    assert order[:10] == ["easy", "medium", "easy", "medium", "hard"] * 2
    # a level that runs out is skipped within its cycle
    assert order[10:] == ["easy", "medium", "easy", "hard", "hard"]
    assert sorted(order) == sorted(t.difficulty_level for t in panel())


def test_width_widens_after_success_and_narrows_after_failure():
    assert zpd_width(0.9) == pytest.approx(0.45)
    assert zpd_width(0.5) == pytest.approx(0.3)
    assert zpd_width(0.1) == pytest.approx(0.15)


def test_ability_weights_harder_tasks_more():
    tasks = panel()
    easy_only = capability_profile(
        results_for(tasks, {t.instance_id for t in tasks if t.difficulty_level == "easy"}), tasks
    )
    hard_only = capability_profile(
        results_for(tasks, {t.instance_id for t in tasks if t.difficulty_level == "hard"}), tasks
    )
    assert hard_only.ability > easy_only.ability
    assert easy_only.by_level["easy"] == 1.0 and easy_only.by_level["hard"] == 0.0


def test_zone_counts_and_curriculum_starts_inside_the_zone():
    tasks = panel()
    profile = capability_profile(
        results_for(tasks, {t.instance_id for t in tasks if t.difficulty_level != "hard"}), tasks
    )
    counts = zone_counts(tasks, profile)
    assert sum(counts.values()) == len(tasks) and counts["below"] > 0
    order = curriculum(tasks, profile)
    assert profile.low <= order[0].difficulty <= profile.high
    assert len(order) == len(tasks)


def test_results_without_shared_tasks_is_an_error():
    with pytest.raises(CurriculumError):
        capability_profile({"tasks": {"other": {"resolved": True}}}, panel())


@pytest.mark.slow  # runs the CLI in a subprocess (or builds an environment): seconds each
def test_cli_prints_counts_and_writes_the_order(tmp_path):
    tasks = panel()
    write_jsonl(tasks, tmp_path / "t.jsonl")
    (tmp_path / "r.json").write_text(json.dumps(results_for(tasks, set())))
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "evo.cli",
            "curriculum",
            str(tmp_path / "t.jsonl"),
            "--results",
            str(tmp_path / "r.json"),
            "--out",
            str(tmp_path / "o.jsonl"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "below 0, within 0, above 15" in proc.stdout  # ability 0, width 0.15: every task is above
    levels = [json.loads(line)["difficulty_level"] for line in (tmp_path / "o.jsonl").read_text().splitlines()]
    assert levels[:5] == ["easy", "medium", "easy", "medium", "hard"]


def test_the_public_curriculum_is_the_function_whatever_is_loaded_first():
    """`curriculum` is both a module of harness and its public function; loading the module
    through another of its names must not hide the function (the CLI imports them together)."""
    import subprocess
    import sys

    code = "from harness import capability_profile, curriculum; print(callable(curriculum))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.stdout.strip() == "True", proc.stderr
