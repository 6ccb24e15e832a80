"""What `sebgen evaluate` reads: a tasks JSONL, the SWE-bench JSONL of `sebgen export` (its rows
become tasks again, their repository found by commit), or a run folder's kept tasks; after a
small run, the oracle resolves every kept task from the run folder and from its export alike."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness import read_tasks
from harness.swebench import swebench_record
from records import Task, TaskFileError, UserError, write_jsonl
from tests.e2e import sebgen
from tests.sandbox_fixtures import CALC_FIXED, diff_for, make_repo

CALC_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


@pytest.fixture
def task(tmp_path) -> Task:
    repo, sha = make_repo(tmp_path / "calc", {"calc.py": CALC_FIXED, "tests/test_calc.py": CALC_TEST})
    bug = diff_for(repo, {"calc.py": CALC_FIXED.replace("a + b", "a - b")})
    return Task(
        instance_id="calc__1",
        repo="calc",
        base_commit=sha,
        patch="diff --git a/calc.py b/calc.py\n",
        test_patch="diff --git a/tests/test_calc.py b/tests/test_calc.py\n",
        problem_statement="add subtracts",
        bug_patch=bug,
        strategy_type="BUG_FIX",
        strategy_id="s1",
        created_at="2025-03-04T05:06:07+00:00",
        FAIL_TO_PASS=["tests/test_calc.py::test_add"],
        PASS_TO_PASS=["tests/test_calc.py::test_sub"],
        difficulty=0.42,
        difficulty_level="medium",
        repo_path=str(repo),
    )


def exported(task: Task, path: Path, buggy_commit: str | None = None) -> Path:
    write_jsonl([swebench_record(task, buggy_commit)], path)
    return path


EVALUATED_FIELDS = (
    "instance_id",
    "base_commit",
    "patch",
    "test_patch",
    "bug_patch",
    "problem_statement",
    "created_at",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "difficulty",
    "difficulty_level",
    "repo_path",
)


def test_an_export_row_is_the_task_evaluate_needs(task, tmp_path):
    elsewhere, _ = make_repo(tmp_path / "other", {"x.py": "X = 1\n"})
    listed = []
    [back] = read_tasks(
        exported(task, tmp_path / "rows.jsonl"), lambda: listed.append(1) or [elsewhere, Path(task.repo_path)]
    )
    assert {f: getattr(back, f) for f in EVALUATED_FIELDS} == {f: getattr(task, f) for f in EVALUATED_FIELDS}
    assert back.repo == "sebgen/calc" and listed == [1]


def test_a_mirror_export_still_names_the_fixed_commit_of_the_source(task, tmp_path):
    rows = exported(task, tmp_path / "rows.jsonl", buggy_commit="b" * 40)
    assert json.loads(rows.read_text())["base_commit"] == "b" * 40
    [back] = read_tasks(rows, lambda: [Path(task.repo_path)])
    assert (back.base_commit, back.bug_patch) == (task.base_commit, task.bug_patch)


def test_a_task_file_is_read_as_it_is_and_no_repository_is_looked_for(task, tmp_path):
    write_jsonl([task], tmp_path / "tasks.jsonl")
    [back] = read_tasks(tmp_path / "tasks.jsonl", lambda: pytest.fail("a task file needs no repository"))
    assert back == task


def test_an_export_whose_repository_is_not_here_says_where_it_looked(task, tmp_path):
    elsewhere, _ = make_repo(tmp_path / "calc2", {"x.py": "X = 1\n"})
    with pytest.raises(TaskFileError) as info:
        read_tasks(exported(task, tmp_path / "rows.jsonl"), lambda: [elsewhere])
    message = str(info.value)
    assert f"sebgen/calc's commit {task.base_commit[:12]}" in message and str(elsewhere) in message
    assert "--config" in message


def test_a_swebench_row_not_made_by_sebgen_is_refused_by_name(task, tmp_path):
    row = swebench_record(task)
    del row["bug_patch"], row["sebgen_fixed_commit"]
    write_jsonl([row], tmp_path / "foreign.jsonl")
    with pytest.raises(TaskFileError, match="line 1 is a SWE-bench row without bug_patch, sebgen_fixed_commit"):
        read_tasks(tmp_path / "foreign.jsonl", lambda: [])


def test_reading_errors_are_user_errors(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"FAIL_TO_PASS": "[]"}\nnot json\n')
    with pytest.raises(UserError):
        read_tasks(tmp_path / "bad.jsonl", lambda: [])
    with pytest.raises(UserError, match="does not exist"):
        read_tasks(tmp_path / "absent.jsonl", lambda: [])


@pytest.fixture(scope="module")
def small_run(quickstart_run, tmp_path_factory) -> Path:
    """A copy of the FAST quickstart run (tests/conftest.py): `sebgen evaluate` writes into it."""
    run_dir = tmp_path_factory.mktemp("evaluate") / "run"
    shutil.copytree(quickstart_run, run_dir)
    return run_dir


def per_task(document: dict) -> dict[str, bool]:
    return {instance_id: result["resolved"] for instance_id, result in document["tasks"].items()}


@pytest.mark.slow
def test_oracle_resolves_every_kept_task_of_a_run_and_of_its_export(small_run, tmp_path):
    from evo.runfolder import RunFolder

    kept = {t["instance_id"] for t in RunFolder(small_run).kept_tasks()}
    assert kept, "the run must keep a task"
    sebgen("evaluate", small_run, "--agent", "oracle", "--set", "sandbox.backend=local", check=True)
    from_run = json.loads((small_run / "results" / "oracle.json").read_text())
    assert per_task(from_run) == dict.fromkeys(kept, True)

    rows = tmp_path / "ds" / "tasks.jsonl"
    sebgen("export", small_run, "--format", "swebench", "--out", rows, check=True)
    out = tmp_path / "from-export.json"
    sebgen("evaluate", rows, "--agent", "oracle", "--set", "sandbox.backend=local", "--out", out, check=True)
    from_export = json.loads(out.read_text())
    assert per_task(from_export) == per_task(from_run)
    assert from_export["summary"] == from_run["summary"]
