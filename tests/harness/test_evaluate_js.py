"""`sebgen evaluate` on JavaScript tasks (tests/harness/js_tasks.py) through SEBGen's own Docker
backend: predictions are an adversary's patches, run without network as non-root; the gold
patches resolve every task, empty patches none, and a patch that rewrites the test file too
resolves nothing more than its source change does."""

from __future__ import annotations

import json

import pytest

from records import write_jsonl
from tests.e2e import sebgen
from tests.harness.js_tasks import MATH_TEST, fix_history, js_task

pytestmark = [pytest.mark.docker, pytest.mark.slow]
DOCKER = ["--set", "sandbox.backend=docker", "--set", "sandbox.reruns=1"]


@pytest.fixture(scope="module")
def js_tasks(tmp_path_factory):
    from tests.sandbox_fixtures import require_docker

    require_docker()
    work = tmp_path_factory.mktemp("js-eval")
    repo = fix_history(work / "repo")
    tasks = [js_task(repo, 0), js_task(repo, 1)]
    write_jsonl(tasks, work / "tasks.jsonl")
    return work / "tasks.jsonl", tasks


def _resolved(tasks_file, tmp_path, patches: dict[str, str]) -> dict[str, bool]:
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(
            json.dumps({"instance_id": i, "model_patch": p, "model_name_or_path": "m"}) + "\n"
            for i, p in patches.items()
        )
    )
    out = tmp_path / "results.json"
    proc = sebgen("evaluate", tasks_file, "--predictions", preds, "--out", out, *DOCKER)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {i: t["resolved"] for i, t in json.loads(out.read_text())["tasks"].items()}


def test_gold_resolves_every_js_task_and_empty_patches_none(js_tasks, tmp_path):
    tasks_file, tasks = js_tasks
    assert _resolved(tasks_file, tmp_path, {t.instance_id: t.patch for t in tasks}) == {
        t.instance_id: True for t in tasks
    }
    assert _resolved(tasks_file, tmp_path, {t.instance_id: "" for t in tasks}) == {t.instance_id: False for t in tasks}


def test_a_patch_that_rewrites_the_js_test_file_resolves_nothing(js_tasks, tmp_path):
    tasks_file, tasks = js_tasks
    cheat = (
        f"diff --git a/{MATH_TEST} b/{MATH_TEST}\nnew file mode 100644\n--- /dev/null\n+++ b/{MATH_TEST}\n"
        "@@ -0,0 +1,2 @@\n"
        '+const { describe, it } = require("node:test");\n'
        '+describe("math", () => { it("adds", () => {}); it("subtracts", () => {}); });\n'
    )
    assert _resolved(tasks_file, tmp_path, {t.instance_id: cheat for t in tasks}) == {
        t.instance_id: False for t in tasks
    }
