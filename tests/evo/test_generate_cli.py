"""`sebgen generate` on a bundled repo: 5 BUG_FIX tasks (after the batch filter) whose tests really fail, then pass."""

import json
from pathlib import Path

import pytest

from corpus.builder import ensure_corpus
from environment import make_sandbox
from sandbox import Limits
from tests.e2e import sebgen
from tests.marks import require_mark  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    require_mark("slow", "generates tasks end to end")
    repo = next(p for p in ensure_corpus() if p.name == "algos")
    out = tmp_path_factory.mktemp("gen") / "t.jsonl"
    proc = sebgen(
        "generate",
        repo,
        "--strategy",
        "BUG_FIX",
        "--n",
        "5",
        "--out",
        out,
        "--set",
        "sandbox.backend=local",
        check=True,
    )
    return [json.loads(line) for line in out.read_text().splitlines()], proc


def test_writes_five_tasks_with_fail_to_pass(generated):
    tasks, proc = generated
    # generate goes on until five survive SWE-MERA's bottom-quartile filter over its batch
    assert len(tasks) == 5, proc.stderr
    assert "Loading weights" not in proc.stderr and "it/s]" not in proc.stderr  # no third-party bars
    for task in tasks:
        assert task["FAIL_TO_PASS"], task["instance_id"]
        assert all(v["passed"] for v in task["validation"].values())
        assert task["strategy_type"] == "BUG_FIX" and task["created_at"]


def test_rerun_shows_fail_then_pass(generated):
    tasks, _ = generated
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda *_: None)
    for task in tasks:
        repo = Path(task["repo_path"])
        tests = task["FAIL_TO_PASS"] + task["PASS_TO_PASS"]
        files = sorted({t.split("::")[0] for t in tests})
        buggy = backend.run_tests(repo, task["base_commit"], [task["bug_patch"]], files).outcomes
        fixed = backend.run_tests(repo, task["base_commit"], [], files).outcomes
        for test in task["FAIL_TO_PASS"]:
            assert buggy.get(test, "error") in ("failed", "error"), (task["instance_id"], test)
            assert fixed[test] == "passed", (task["instance_id"], test)
        for test in task["PASS_TO_PASS"]:
            assert buggy[test] == "passed" and fixed[test] == "passed", (task["instance_id"], test)
