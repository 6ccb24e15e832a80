"""A run whose quartile filter drops a task: `sebgen export RUN_DIR` writes exactly the
archive's tasks, and every task that passed every layer but is not in the dataset has a line
in the run's output saying why."""

from __future__ import annotations

import json

import pytest

from evo.runfolder import RunFolder
from tests.e2e import ROOT, sebgen
from tests.marks import require_mark

QUICKSTART = ROOT / "configs" / "quickstart.yaml"
# two generations of three strategies, two tasks each: the judged tasks' bottom quartile of
# test_completeness (offline judge) holds a task that passed every layer (with one generation,
# since the writer's round 2, every judged task ties at the cutoff and none is dropped)
DROPPING = [
    "--set",
    "sandbox.backend=local",
    "--set",
    "sandbox.reruns=1",
    "--set",
    "evolution.population=3",
    "--set",
    "evolution.generations=2",
    "--set",
    "fitness.tasks_per_strategy=2",
    "--set",
    "fitness.oversample=2",
    "--set",
    "fitness.quartile_min_judged=4",
]


@pytest.fixture(scope="module")
def dropping_run(tmp_path_factory):
    require_mark("slow", "runs an evolution end to end")
    run_dir = tmp_path_factory.mktemp("drop") / "run"
    proc = sebgen("run", QUICKSTART, "--run-dir", run_dir, *DROPPING, check=True, timeout=1800)
    return run_dir, proc


def passed_every_layer(task: dict) -> bool:
    return bool(task.get("validation")) and all(v.get("passed") for v in task["validation"].values())


@pytest.mark.slow
def test_export_of_a_run_whose_filter_dropped_a_task_is_the_archive(dropping_run, tmp_path):
    run_dir, proc = dropping_run
    folder = RunFolder(run_dir)
    archived = {t["instance_id"] for t in folder.kept_tasks()}
    before_filter = {t["instance_id"] for t in folder.attempted_tasks() if passed_every_layer(t)}
    dropped = before_filter - archived
    assert dropped, "the fixture run must drop a task that passed every layer:\n" + proc.stderr[-3000:]
    assert archived and archived <= before_filter
    out = tmp_path / "run.swebench.jsonl"
    sebgen("export", run_dir, "--format", "swebench", "--out", out, check=True)
    exported = [json.loads(line)["instance_id"] for line in out.read_text().splitlines() if line.strip()]
    assert sorted(exported) == sorted(archived)  # exactly the archive's rows, once each
    assert not dropped & set(exported)


@pytest.mark.slow
def test_no_task_that_passed_every_layer_disappears_without_a_line(dropping_run):
    run_dir, proc = dropping_run
    folder = RunFolder(run_dir)
    archived = {t["instance_id"] for t in folder.kept_tasks()}
    for task in folder.attempted_tasks():
        if passed_every_layer(task) and task["instance_id"] not in archived:
            [line] = [ln for ln in proc.stderr.splitlines() if f"{task['instance_id']} not kept: " in ln]
            assert "bottom quartile of the" in line and "judged tasks of the run on" in line and "< cutoff" in line
