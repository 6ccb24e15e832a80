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

from harness.export import ExportError, load_tasks  # noqa: E402
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


# ------------------------------------------------------------ SWE-bench mirror (buggy state per branch)

def _git(repo: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, input=stdin)


def _pytest(worktree: Path, ids: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)  # the task's repo, not SEBGen, must be what the tests import
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids],
                          cwd=worktree, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def mirrored(panel, tmp_path_factory) -> tuple[Path, Path]:
    """The panel exported through the CLI with --mirror: (records JSONL, mirror folder)."""
    folder = tmp_path_factory.mktemp("mirrored")
    out, mirror = folder / "swebench.jsonl", folder / "mirror"
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(out), "--mirror", str(mirror))
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    return out, mirror


def test_mirror_records_follow_the_swebench_harness_sequence(panel, mirrored, tmp_path):
    """Check out base_commit, apply test_patch: F2P fail; apply patch: F2P and P2P pass (SWE-bench's order)."""
    out, mirror = mirrored
    tasks = {t.instance_id: t for t in read_jsonl(panel)}
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["instance_id"] for r in rows) == sorted(tasks)
    for row in rows:
        task = tasks[row["instance_id"]]
        repo = Path(row["repo"])
        assert repo.is_dir() and repo.resolve().is_relative_to(mirror.resolve())
        assert row["base_commit"] != task.base_commit
        assert row["environment_setup_commit"] == row["base_commit"]
        assert row["sebgen_fixed_commit"] == task.base_commit and row["bug_patch"] == task.bug_patch
        assert (row["patch"], row["test_patch"]) == (task.patch, task.test_patch)
        assert json.loads(row["FAIL_TO_PASS"]) == task.FAIL_TO_PASS
        parent = _git(repo, "rev-parse", f"{row['base_commit']}^").stdout.strip()
        assert parent == task.base_commit
        branch = _git(repo, "rev-parse", f"refs/heads/sebgen/{task.instance_id}").stdout.strip()
        assert branch == row["base_commit"]

        worktree = tmp_path / task.instance_id
        added = _git(repo, "worktree", "add", "--detach", str(worktree), row["base_commit"])
        assert added.returncode == 0, added.stderr
        try:
            # the withheld tests are at their pre-fix versions (or absent) in the buggy state:
            # they differ from the fixed commit's, and test_patch turns them into exactly those
            test_files = sorted({t.split("::")[0] for t in task.FAIL_TO_PASS})
            for rel in test_files:
                fixed = _git(repo, "show", f"{task.base_commit}:{rel}").stdout
                assert not (worktree / rel).exists() or (worktree / rel).read_text() != fixed
            applied = _git(worktree, "apply", "-", stdin=row["test_patch"])
            assert applied.returncode == 0, applied.stderr
            _git(worktree, "add", "-A")  # so files test_patch creates are compared too
            assert _git(worktree, "diff", "--cached", task.base_commit, "--", *test_files).stdout == ""
            failing = _pytest(worktree, task.FAIL_TO_PASS)
            assert failing.returncode == 1, failing.stdout[-2000:]
            applied = _git(worktree, "apply", "-", stdin=row["patch"])
            assert applied.returncode == 0, applied.stderr
            passing = _pytest(worktree, task.FAIL_TO_PASS + task.PASS_TO_PASS)
            assert passing.returncode == 0, passing.stdout[-2000:]
            # buggy state + test_patch + patch is exactly the fixed commit
            _git(worktree, "add", "-A")
            assert _git(worktree, "diff", "--cached", "--stat", task.base_commit).stdout == ""
        finally:
            _git(repo, "worktree", "remove", "--force", str(worktree))


def test_materialize_is_idempotent_and_deterministic(panel, mirrored, tmp_path):
    from harness.export import materialize
    tasks = list(read_jsonl(panel))
    _, mirror = mirrored
    published = {json.loads(line)["instance_id"]: json.loads(line)["base_commit"]
                 for line in mirrored[0].read_text().splitlines()}
    again = materialize(tasks, mirror)
    assert again == published  # re-running over the same mirror changes nothing
    fresh = materialize(tasks, tmp_path / "other-mirror")
    assert fresh == published  # same SHAs in an unrelated mirror: identity and date are fixed
    branches = _git(mirror / tasks[0].repo, "for-each-ref", "--format=%(refname)", "refs/heads/sebgen/").stdout
    assert sorted(branches.split()) == sorted(f"refs/heads/sebgen/{t.instance_id}" for t in tasks)


def test_swebench_without_mirror_warns_on_one_line(panel, tmp_path):
    proc = sebgen("export", str(panel), "--format", "swebench", "--out", str(tmp_path / "o.jsonl"))
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "--mirror" in warnings[0]


def test_mirror_with_harbor_is_a_user_error(panel, tmp_path):
    proc = sebgen("export", str(panel), "--format", "harbor", "--out", str(tmp_path / "h"),
                  "--mirror", str(tmp_path / "m"))
    assert proc.returncode == 2 and "--mirror" in proc.stderr and "Traceback" not in proc.stderr
