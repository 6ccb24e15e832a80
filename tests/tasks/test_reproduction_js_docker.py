"""A JS statement's reproductions run on both states in the Docker sandbox (tasks.reproduction):
the project is tests/data/js/tiny-node-test with `sub` broken on the buggy state. One statement
holds a block that fails as stated, one that runs backwards (it fails on the fixed state too)
and one in jest's words (plain node has no `expect`); its check runs once (two container runs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from environment import make_sandbox
from records import FailureEvidence, LayerResult, Task
from sandbox import Limits
from tasks.reproduction import check_reproductions, js_blocks

try:
    from tests.sandbox_fixtures import git, make_repo, require_node20
except ImportError:  # tests/ is not a package
    from sandbox_fixtures import git, make_repo, require_node20

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "tiny-node-test"
J = "```js\n"
HEADER = 'const assert = require("node:assert");\nconst { sub, add } = require("sebgen-tiny-node-test");\n\n'
KEPT = HEADER + "assert.strictEqual(sub(5, 3), 2);\n"
BACKWARDS = HEADER + "assert.throws(() => add(1, 2));\n"
JEST = "expect(sub(5, 3)).toBe(2);\n"
STATEMENT = (
    "`sub(5, 3)` gives `-2`\n\nTo reproduce:\n\n"
    f"{J}{KEPT}```\n\nOn the current code `sub(5, 3)` is `-2`; it should be `2`.\n\n"
    f"This shows it:\n\n{J}{BACKWARDS}```\n\nOn the current code nothing is thrown; it should throw an error.\n\n"
    f"The failing check:\n\n{J}{JEST}```\n\nOn the current code this check fails.\n\n"
    "All the failing cases:\n- `sub(5, 3)` is `2`; today it is `-2`.\n"
)
F2P = "test/math.test.js::math > subtracts"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    require_node20()
    root = tmp_path_factory.mktemp("tiny")
    files = {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}
    files = {k: v for k, v in files.items() if k in ("package.json", "lib/math.js", "test/math.test.js")}
    # the package by its name is its entry file, as its users require it
    files["package.json"] = files["package.json"].replace('"version"', '"main": "lib/math.js",\n  "version"')
    repo, sha = make_repo(root / "repo", files)
    (repo / "lib/math.js").write_text(files["lib/math.js"].replace("(a, b) => a - b", "(a, b) => b - a"))
    bug = git(repo, "diff") + "\n"
    git(repo, "checkout", "--", "lib/math.js")
    evidence = FailureEvidence(
        F2P, kind="compare", call="sub(5, 3)", op="==", observed="-2", expected="2", reproduction=KEPT.strip()
    )
    task = Task("tiny-1", "tiny", sha, "", "", STATEMENT, bug, "BUG_FIX", "s", FAIL_TO_PASS=[F2P], repo_path=str(repo))
    task.record("functional", LayerResult(True, 1.0, "ok", details={"failures": {F2P: evidence.to_dict()}}))
    backend = make_sandbox(
        "docker", limits=Limits(timeout_s=90), cache_dir=root / "cache", log=lambda m: None, setup_attempts=1
    )
    try:
        report = check_reproductions(task, backend, repo, timeout_s=10)
    finally:
        backend.close()
    return task, report


def test_a_js_block_that_fails_as_stated_is_kept_and_the_others_are_dropped(checked):
    task, report = checked
    verdicts = {c.code: c for c in report.checks}
    assert verdicts[KEPT].verdict == "kept", verdicts[KEPT]
    assert verdicts[KEPT].claim == "the final check sees -2" and "actual value is -2" in verdicts[KEPT].buggy
    assert verdicts[KEPT].fixed == "ran without an error"
    # it claims nothing is thrown today, and the fixed code throws nothing either: its check fails there
    assert verdicts[BACKWARDS].verdict == "dropped" and "on the fixed state" in verdicts[BACKWARDS].reason
    assert verdicts[JEST].verdict == "dropped" and "expect is not defined" in verdicts[JEST].reason
    # the statement keeps only the block that behaved, without the paragraphs of the dropped ones
    assert [b.code for b in js_blocks(task.problem_statement)] == [KEPT]
    assert "nothing is thrown" not in task.problem_statement and "This shows it" not in task.problem_statement
    assert "- `sub(5, 3)` is `2`; today it is `-2`." in task.problem_statement
