"""Exports: SWE-bench JSONL read back by `datasets`, Harbor folders built and verified in Docker."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from fitness.export import ExportError, load_tasks  # noqa: E402
from fitness.task import read_jsonl  # noqa: E402

from tests.e2e import ROOT, generated_tasks, sebgen  # noqa: E402

BASE_IMAGE = "sebgen-base:bookworm"


@pytest.fixture(scope="module")
def panel(tmp_path_factory) -> Path:
    """Tasks generated once per module from the bundled pyledger repo."""
    out = generated_tasks(tmp_path_factory.mktemp("panel"), 2)
    return out


def test_swebench_export_round_trips_through_datasets(panel, tmp_path):
    try:
        import datasets
    except ImportError:
        pytest.fail("the `datasets` package is required for this test (pip install datasets; pyproject dev extra)")
    out = tmp_path / "swebench.jsonl"
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    tasks = {t.instance_id: t for t in read_jsonl(panel)}
    rows = datasets.load_dataset("json", data_files=str(out), split="train",
                                 cache_dir=str(tmp_path / "hf-cache"))
    assert len(rows) == len(tasks)
    for row in rows:
        task = tasks[row["instance_id"]]
        assert isinstance(row["FAIL_TO_PASS"], str)  # SWE-bench ships the lists as JSON strings
        assert json.loads(row["FAIL_TO_PASS"]) == task.FAIL_TO_PASS
        assert json.loads(row["PASS_TO_PASS"]) == task.PASS_TO_PASS
        assert (row["patch"], row["base_commit"], row["bug_patch"]) == (task.patch, task.base_commit, task.bug_patch)


def test_harbor_layout_withholds_the_tests(panel, tmp_path):
    proc = sebgen("export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"))
    assert proc.returncode == 0, proc.stderr
    task = next(iter(read_jsonl(panel)))
    folder = tmp_path / "h" / task.instance_id
    for rel in ("task.toml", "instruction.md", "environment/Dockerfile", "environment/bug.patch",
                "tests/test.sh", "solution/solve.sh", "solution/fix.patch"):
        assert (folder / rel).is_file(), rel
    toml = (folder / "task.toml").read_text()
    assert "allow_internet = false" in toml and "[verifier]" in toml and "build_timeout_sec" in toml
    test_file = task.FAIL_TO_PASS[0].split("::")[0]
    assert not (folder / "environment" / "repo" / test_file).exists()
    assert (folder / "tests" / "files" / test_file).is_file()
    assert not (folder / "environment" / "repo" / ".git").exists()
    assert (folder / "instruction.md").read_text().strip() == task.problem_statement.strip()


def test_export_errors_are_one_sentence(tmp_path):
    with pytest.raises(ExportError):
        load_tasks(tmp_path)
    proc = sebgen("export", str(tmp_path), "--format", "harbor", "--out", str(tmp_path / "x"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def _docker_ready() -> str | None:
    """None when docker and the base image answer, else the reason."""
    if shutil.which("docker") is None:
        return "no docker CLI"
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker engine answers"
    if subprocess.run(["docker", "image", "inspect", BASE_IMAGE], capture_output=True).returncode != 0:
        return f"base image {BASE_IMAGE} is missing (build it with sandbox.build_offline_base_image())"
    return None


@pytest.mark.docker
def test_harbor_task_builds_and_rewards_only_the_solution(panel, tmp_path):
    reason = _docker_ready()
    if reason:
        if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
            pytest.fail(f"SEBGEN_REQUIRE_DOCKER=1 but {reason}")
        pytest.skip(reason)
    proc = sebgen("export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"))
    assert proc.returncode == 0, proc.stderr
    task = next(iter(read_jsonl(panel)))
    folder = tmp_path / "h" / task.instance_id
    tag = f"sebgen-harbor-test:{uuid.uuid4().hex[:12]}"
    build = subprocess.run(["docker", "build", "-q", "--network", "host", "-t", tag, str(folder / "environment")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    try:
        def reward(command: str, logs: Path) -> str:
            logs.mkdir()
            subprocess.run(["docker", "run", "--rm", "--network", "none", "-v", f"{folder / 'tests'}:/tests:ro",
                            "-v", f"{folder / 'solution'}:/solution:ro", "-v", f"{logs}:/logs/verifier",
                            tag, "bash", "-c", command], capture_output=True, text=True, timeout=600)
            return (logs / "reward.txt").read_text().strip()

        assert reward("bash /tests/test.sh", tmp_path / "logs-bug") == "0"
        assert reward("bash /solution/solve.sh && bash /tests/test.sh", tmp_path / "logs-fix") == "1"
    finally:
        subprocess.run(["docker", "image", "rm", "-f", tag], capture_output=True)
