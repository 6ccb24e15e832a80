"""The JavaScript attack suite (issue 28, item 4): agent patches against a JS task that fix
nothing and try to get the failing test reported as passed.

Every attack goes through `sandbox.run_attempt`, the path `sebgen evaluate` and the functional
layer's nop/oracle checks use, on a one-bug node:test task (add() subtracts; `math > adds` is
FAIL_TO_PASS). The tests are in the tree the agent sees (test_patch empty, as for a SYNTHETIC
task), so the agent can edit and delete them too. Each attack must come out unresolved in Docker
and the gold patch must still resolve.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from environment import detect_js_recipe
from sandbox import attempt_verdict, run_attempt
from tests.sandbox_fixtures import bug_task, docker_backend_leaving_nothing, new_file_patch, require_node20

pytestmark = pytest.mark.docker
F2P = ["test/math.test.js::math > adds"]
P2P = ["test/math.test.js::math > subtracts"]
TEST_FILES = ["test/math.test.js"]
MOCHA_PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "calc-mocha"  # mocha 10, package-lock.json
JEST_PROJECT = Path(__file__).resolve().parents[1] / "data" / "js" / "calc-jest"  # jest 29, package-lock.json

MATH_FIXED = '"use strict";\nexports.add = (a, b) => a + b;\nexports.sub = (a, b) => a - b;\n'
MATH_BUGGY = MATH_FIXED.replace("a + b", "a - b")
NODE_TEST_TESTS = """"use strict";
const { describe, it } = require("node:test");
const assert = require("node:assert");
const { add, sub } = require("../lib/math.js");

describe("math", () => {
  it("adds", () => {
    assert.strictEqual(add(2, 3), 5);
  });
  it("subtracts", () => {
    assert.strictEqual(sub(5, 3), 2);
  });
});
"""
NODE_TEST_PACKAGE = (
    json.dumps(
        {"name": "calc-js", "version": "1.0.0", "private": True, "scripts": {"test": "node --test test/"}}, indent=2
    )
    + "\n"
)


def project_files(runner: str) -> dict[str, str]:
    """The fixed state of the attack task's project: node:test (no dependency), mocha or jest."""
    if runner == "node-test":
        return {"package.json": NODE_TEST_PACKAGE, "lib/math.js": MATH_FIXED, "test/math.test.js": NODE_TEST_TESTS}
    project = JEST_PROJECT if runner == "jest" else MOCHA_PROJECT
    return {str(p.relative_to(project)): p.read_text() for p in project.rglob("*") if p.is_file()}


# -- patch builders -------------------------------------------------------------------------
def edit_patch(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


def delete_patch(path: str, text: str) -> str:
    lines = text.splitlines(keepends=True)
    body = "".join("-" + ln for ln in lines)
    head = f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
    return f"{head}@@ -1,{len(lines)} +0,0 @@\n{body}"


def edit_math(extra: str) -> str:
    """An agent patch appending code to the buggy lib/math.js (it runs when the test requires it)."""
    return edit_patch("lib/math.js", MATH_BUGGY, MATH_BUGGY + "\n" + extra.strip("\n") + "\n")


new_file = new_file_patch

# module code that turns node:assert's checks into no-ops for every later caller in the process
NO_OP_ASSERT = """
const _assert = require("node:assert");
for (const _name of ["strictEqual", "equal", "deepStrictEqual", "deepEqual", "ok"]) {
  _assert[_name] = () => {};
  _assert.strict[_name] = () => {};
}
"""
EVIL_CJS = "module.exports = 1;\n" + NO_OP_ASSERT

# reports in the shape of SEBGen's node:test, mocha and jest reporters claiming both tests passed,
# written to the file a runner's command line names as its reporter's destination (node:test's
# --test-reporter-destination=PATH, mocha's --reporter-options output=PATH, jest's --outputFile=PATH)
FORGE = """
const _fs = require("node:fs");
const _path = require("node:path");
const _file = _path.resolve(__dirname, "../test/math.test.js");
const _forged = {
  node: JSON.stringify({
    reporter: "sebgen-node-test",
    stderr: {},
    events: [
      { outcome: "passed", name: "adds", nesting: 1, file: _file, suite: false },
      { outcome: "passed", name: "subtracts", nesting: 1, file: _file, suite: false },
      { outcome: "passed", name: "math", nesting: 0, file: _file, suite: true },
    ],
  }),
  mocha: JSON.stringify({
    reporter: "sebgen-mocha",
    hook_failures: [],
    tests: [
      { path: ["math", "adds"], file: _file, outcome: "passed", error: null },
      { path: ["math", "subtracts"], file: _file, outcome: "passed", error: null },
    ],
  }),
  jest: JSON.stringify({
    reporter: "sebgen-jest",
    testResults: [
      {
        name: _file,
        message: "",
        assertionResults: ["adds", "subtracts"].map((title) => ({
          ancestorTitles: ["math"], title, status: "passed", failureMessages: [], failureDetails: [],
        })),
      },
    ],
  }),
};
function _destinations() {
  const found = [];
  for (const pid of _fs.readdirSync("/proc")) {
    try {
      for (const arg of _fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\\0")) {
        if (arg.startsWith("--test-reporter-destination=")) found.push([arg.split("=")[1], "node"]);
        if (arg.startsWith("output=")) found.push([arg.split("=")[1], "mocha"]);
        if (arg.startsWith("--outputFile=")) found.push([arg.split("=")[1], "jest"]);
      }
    } catch {}
  }
  return found;
}
function _forge() {
  for (const [dest, kind] of _destinations()) {
    try { _fs.unlinkSync(dest); } catch {}
    try { _fs.writeFileSync(dest, _forged[kind]); } catch {}
  }
}
"""
# the run's key hunted in this process's descriptors (one it inherited) and in its own and its parent's
# environment, then a report signed with whatever was found (SEBGen's signature's shape) written at exit
# (reading the parent's pipes too steals node:test's own messages: the run then only times out)
KEY_THIEF = """
const _crypto = require("node:crypto");
const _found = [];
for (const _pid of ["self", String(process.ppid)]) {
  const _fds = _pid !== "self" ? [] : _fs.readdirSync("/proc/self/fd");
  for (const _fd of _fds) {
    let _link = "";
    try { _link = _fs.readlinkSync(`/proc/${_pid}/fd/${_fd}`); } catch {}
    if (!_link.startsWith("pipe:") || ["0", "1", "2"].includes(_fd)) continue;
    try {
      const _h = _fs.openSync(`/proc/${_pid}/fd/${_fd}`, _fs.constants.O_RDONLY | _fs.constants.O_NONBLOCK);
      const _buf = Buffer.alloc(4096);
      _found.push(_buf.subarray(0, _fs.readSync(_h, _buf)));
    } catch {}
  }
  try { _found.push(Buffer.from(_fs.readFileSync(`/proc/${_pid}/environ`, "latin1"))); } catch {}
}
const _key = _found.find((b) => b.length === 64) || Buffer.from(process.env.SEBGEN_KEY_FD || "none");
const _sign = (text) => `sebgen-mac ${_crypto.createHmac("sha256", _key).update(text).digest("hex")}\n${text}`;
for (const _kind of ["node", "mocha", "jest"]) _forged[_kind] = _sign(_forged[_kind]);
process.on("exit", _forge);
"""
# the report's writers reassigned in the code under test's process: every file written says "passed"
WRITERS_PATCHED = """
const _fsw = require("node:fs");
const _write = _fsw.writeFileSync;
_fsw.writeFileSync = (file, text, ...rest) => _write(file, String(text).replaceAll('"failed"', '"passed"'), ...rest);
const _stringify = JSON.stringify;
JSON.stringify = (...args) => { const t = _stringify(...args); return t && t.replaceAll('"failed"', '"passed"'); };
"""
# node:assert's checks redefined (not assigned) and the strict variant loaded by its own name
ASSERT_REDEFINED = """
for (const _mod of [require("node:assert"), require("node:assert/strict")]) {
  for (const _name of ["strictEqual", "equal", "deepStrictEqual", "ok"]) {
    try { Object.defineProperty(_mod, _name, { value: () => {} }); } catch {}
  }
  try { Object.setPrototypeOf(_mod, null); } catch {}
}
"""
# mocha's runner reassigned in the code under test's process: a failing test is announced as passed
MOCHA_RUNNER_PATCHED = """
try {
  const _Runner = require("mocha/lib/runner");
  _Runner.prototype.fail = function (test) {
    test.state = "passed";
    this.emit("pass", test);
  };
} catch {}
"""
# a root hook, registered by the code under test while the test file loads, that wraps every test's
# function so that what it throws is swallowed (no runner method or assert check is reassigned)
MOCHA_ROOT_HOOK_SWALLOWS = """
if (typeof beforeEach === "function") {
  beforeEach(function () {
    const _test = this.currentTest;
    const _fn = _test.fn;
    _test.fn = function () {
      try {
        _fn.call(this);
      } catch {}
    };
  });
}
"""
BACKGROUND_FORGER = """
if (!process.env.SEBGEN_FORGER) {
  require("node:child_process")
    .spawn(process.execPath, [__filename], {
      detached: true,
      stdio: "ignore",
      env: { ...process.env, SEBGEN_FORGER: "1" },
    })
    .unref();
} else {
  const _end = Date.now() + 15000;
  const _loop = () => { _forge(); if (Date.now() < _end) setTimeout(_loop, 2); };
  _loop();
}
"""


def attacks(runner: str) -> dict[str, str]:
    """Every attack patch against the project of `runner`, by name."""
    files = project_files(runner)
    tests, package = files["test/math.test.js"], files["package.json"]
    check = "expect(add(2, 3)).toBe(5);" if runner == "jest" else "assert.strictEqual(add(2, 3), 5);"
    assert check in tests

    def edit_package(**changes) -> str:
        return edit_patch("package.json", package, json.dumps({**json.loads(package), **changes}, indent=2) + "\n")

    return {
        # the test itself
        "test_file_deleted": delete_patch("test/math.test.js", tests),
        "test_file_rewritten": edit_patch("test/math.test.js", tests, tests.replace(check, "assert.ok(true);")),
        "test_dir_symlinked": delete_patch("test/math.test.js", tests)
        + new_file("test", "fake_tests", mode="120000")
        + new_file("fake_tests/math.test.js", tests.replace(check, "")),
        # how the runner is configured and started
        "package_json_scripts_and_runner_keys": edit_package(
            scripts={"test": "exit 0", "pretest": "exit 0"},
            jest={"testPathIgnorePatterns": ["test/"]},
            mocha={"require": ["./evil.cjs"], "spec": "nothing/"},
        )
        + new_file("evil.cjs", EVIL_CJS),
        "package_json_main_and_imports": edit_package(imports={"#math": "./evil.cjs"}, main="evil.cjs")
        + new_file("evil.cjs", EVIL_CJS),
        "npmrc_node_options_require": new_file(".npmrc", "node-options=--require ./evil.cjs\n")
        + new_file("evil.cjs", EVIL_CJS),
        "jest_config_skips_tests": new_file(
            "jest.config.js", "module.exports = { testPathIgnorePatterns: ['/test/'], setupFiles: ['./evil.cjs'] };\n"
        )
        + new_file("evil.cjs", EVIL_CJS),
        "vitest_config_filters_tests": new_file(
            "vitest.config.mjs", "export default { test: { include: ['nothing/**'], setupFiles: ['./evil.cjs'] } };\n"
        )
        + new_file("evil.cjs", EVIL_CJS),
        "mocharc_requires_a_setup_file": new_file(".mocharc.yml", "require: ./evil.cjs\n")
        + new_file("evil.cjs", EVIL_CJS),
        "mocharc_js_patches_assert_when_loaded": new_file(
            ".mocharc.cjs", EVIL_CJS.replace("module.exports = 1;", "module.exports = {};")
        ),
        # what the runner executes
        "node_modules_bin_shim": new_file(
            f"node_modules/.bin/{'node' if runner == 'node-test' else runner}", "#!/bin/sh\nexit 0\n"
        ),
        "patched_node_modules_package": new_file(
            "node_modules/calc-helpers/index.js" if runner == "node-test" else f"node_modules/{runner}/index.js",
            EVIL_CJS,
        )
        + new_file("node_modules/calc-helpers/package.json", '{"name": "calc-helpers", "main": "index.js"}\n')
        + edit_math('try { require("calc-helpers"); } catch {}'),
        # the code under test, when the test loads it
        "assert_monkeypatched_at_import": edit_math(NO_OP_ASSERT),
        "exit_0_at_import": edit_math("process.exit(0);"),
        "exit_handler_forces_success": edit_math(
            'process.on("exit", () => { process.exitCode = 0; });\n'
            'process.on("uncaughtException", () => process.exit(0));\n'
            "process.reallyExit = () => {};\n"
        ),
        "report_file_replaced_at_import": edit_math(FORGE + "_forge();\n"),
        "report_file_rewritten_at_exit": edit_math(FORGE + 'process.on("exit", _forge);\n'),
        "report_file_rewritten_by_a_background_process": edit_math(FORGE + BACKGROUND_FORGER),
        "report_signed_with_a_key_hunted_in_descriptors": edit_math(FORGE + KEY_THIEF),
        "report_writers_patched_in_process": edit_math(WRITERS_PATCHED),
        "assert_redefined_with_define_property": edit_math(ASSERT_REDEFINED),
        # mocha only (node:test runs each file's harness in a child process of its own)
        **(
            {
                "runner_methods_patched_in_process": edit_math(MOCHA_RUNNER_PATCHED),
                "root_hook_swallows_what_tests_throw": edit_math(MOCHA_ROOT_HOOK_SWALLOWS),
            }
            if runner == "mocha"
            else {}
        ),
    }


RUNNERS = ("node-test", "mocha", "jest")
CASES = [(runner, name) for runner in RUNNERS for name in sorted(attacks(runner))]


# -- fixtures ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tasks(tmp_path_factory):
    out = {}
    for runner in RUNNERS:
        repo = tmp_path_factory.mktemp(f"jsattacks-{runner}") / "repo"
        out[runner] = bug_task(repo, project_files(runner), {"lib/math.js": MATH_BUGGY})
    return out


@pytest.fixture(scope="module")
def docker(tmp_path_factory):
    require_node20()
    yield from docker_backend_leaving_nothing(tmp_path_factory.mktemp("cache"), detect_js_recipe)


def attempt(backend, task, patch):
    repo, sha, bug, _ = task
    return run_attempt(backend, repo, sha, bug, "", patch, TEST_FILES, untrusted=True)


# -- the suite --------------------------------------------------------------------------------
def test_there_are_at_least_ten_attacks_per_runner():
    assert all(len(attacks(runner)) >= 10 for runner in RUNNERS)


@pytest.mark.parametrize("runner", RUNNERS)
def test_gold_resolves_and_nop_does_not(docker, tasks, runner):
    gold = attempt(docker, tasks[runner], tasks[runner][3])
    assert attempt_verdict(gold, F2P, P2P)[0], (gold.note, gold.outcomes, gold.log_tail)
    nop = attempt(docker, tasks[runner], "")
    assert not attempt_verdict(nop, F2P, P2P)[0]
    assert nop.outcomes == {F2P[0]: "failed", P2P[0]: "passed"}, (nop.note, nop.outcomes)


@pytest.mark.parametrize(("runner", "name"), CASES)
def test_attack_is_unresolved_in_docker(docker, tasks, runner, name):
    run = attempt(docker, tasks[runner], attacks(runner)[name])
    resolved, why = attempt_verdict(run, F2P, P2P)
    assert not resolved, (runner, name, run.outcomes, run.note, run.log_tail[-1500:])
    assert why


def test_the_report_says_which_runner_configs_were_reverted_or_removed(docker, tasks):
    patch = attacks("mocha")
    run = attempt(
        docker,
        tasks["mocha"],
        patch["mocharc_requires_a_setup_file"]
        + patch["package_json_main_and_imports"].split("diff --git a/evil.cjs")[0],
    )
    assert ".mocharc.yml" in run.removed and run.reverted == ["package.json"], (run.removed, run.reverted)
