"""JS/TS runner reports become per-test outcomes and failure evidence.

The fixtures in tests/data/js are real reports, cut to a few tests and with the repository root
rewritten to /repo: jest 29 and vitest 2 on fix commits of tj/commander.js and jshttp/cookie
(buggy state), and jest 26, vitest 4, mocha and node:test (Node 20 and 22) on a small file of
cases (a failing check, a pass, skip, todo, a failing hook, a thrown TypeError) plus files that
fail to load (a syntax error, a missing module)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from sandbox.js_report import (
    JEST_REPORTER,
    MOCHA_REPORTER,
    NODE_TEST_REPORTER,
    VITEST_REPORTER,
    RunnerReportError,
    comparable_id,
    mocha_options_from_script,
    parse_report,
    read_report,
    runner_command,
)

DATA = Path(__file__).parents[1] / "data" / "js"
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs node on PATH (the JS runners' runtime)")


def report(name: str, runner: str):
    return parse_report(runner, (DATA / name).read_text(), "/repo")


EXIT_OVERRIDE = "tests/command.exitOverride.test.js::.exitOverride and error details > "


def test_jest_report_keys_tests_by_file_and_describe_path_and_keeps_matcher_values():
    parsed = report("jest-commander-2e96cd38-buggy.json", "jest")
    assert parsed.outcomes == {
        EXIT_OVERRIDE + "when specify unknown program option then throw CommanderError": "passed",
        EXIT_OVERRIDE + "when specify excess argument then throw CommanderError": "failed",
        EXIT_OVERRIDE + "when specify command with excess argument then throw CommanderError": "failed",
    }
    evidence = parsed.failures[EXIT_OVERRIDE + "when specify excess argument then throw CommanderError"]
    assert (evidence.kind, evidence.op, evidence.error_type) == ("compare", "toBe", "AssertionError")
    assert evidence.expected == '"error: too many arguments. Expected 0 arguments but got 1: excess."'
    assert evidence.observed == '"error: too many arguments. Expected 0 arguments but got 1."'
    assert evidence.line == 15  # the check inside the test file's helper, the innermost frame there
    assert evidence.test_id == EXIT_OVERRIDE + "when specify excess argument then throw CommanderError"


def test_jest_26_report_without_failure_details_still_gives_outcomes_values_and_load_errors():
    parsed = report("jest26-cases.json", "jest")
    assert parsed.outcomes == {
        "tests/sample.test.js::math > add > adds two numbers": "failed",
        "tests/sample.test.js::math > add > adds zero": "passed",
        "tests/sample.test.js::math > add > skipped one": "skipped",
        "tests/sample.test.js::math > add > todo one": "skipped",
        "tests/sample.test.js::math > add > objects": "failed",
        "tests/sample.test.js::math > hooked > never runs": "failed",  # jest does not tell a hook apart
        "tests/sample.test.js::throws type error": "failed",
    }
    adds = parsed.failures["tests/sample.test.js::math > add > adds two numbers"]
    assert (adds.kind, adds.op, adds.expected, adds.observed, adds.line) == ("compare", "toBe", "5", "-1", 5)
    thrown = parsed.failures["tests/sample.test.js::throws type error"]
    assert (thrown.kind, thrown.error_type, thrown.line) == ("error", "TypeError", 17)
    assert thrown.message == "Cannot read properties of null (reading 'x')"
    assert parsed.failures["tests/sample.test.js::math > add > objects"].kind == "error"  # a diff, no one-line values
    assert set(parsed.load_errors) == {"tests/syntax.test.js", "tests/missing.test.js"}
    assert "Cannot find module 'no-such-module'" in parsed.load_errors["tests/missing.test.js"]
    assert parsed.outcome("tests/missing.test.js::y") == "error"
    assert parsed.outcome("tests/sample.test.js::no such test") is None


def test_vitest_report_keys_tests_and_reads_the_error_head_and_the_test_file_line():
    parsed = report("vitest2-cookie-8be4b82b-buggy.json", "vitest")
    suite = "src/serialize.spec.ts::cookie.serialize(name, value) > "
    assert parsed.outcomes == {
        suite + "should serialize name and value": "passed",
        suite + "should serialize name: foo,bar": "failed",
        suite + "should serialize name: foo/bar": "failed",
    }
    evidence = parsed.failures[suite + "should serialize name: foo,bar"]
    assert (evidence.kind, evidence.error_type, evidence.line) == ("error", "TypeError", 47)
    assert evidence.message == "argument name is invalid: foo,bar"


CASES = {
    "math > add > adds two numbers": "failed",
    "math > add > adds zero": "passed",
    "math > add > skipped one": "skipped",
    "math > add > todo one": "skipped",
    "math > add > objects": "failed",
    "math > hooked > never runs": "failed",  # vitest does not tell a failing hook apart either
    "throws type error": "failed",
}


@pytest.mark.parametrize("name", ["vitest4-cases.json", "vitest034-cases.json"])
def test_vitest_reporter_gives_outcomes_load_errors_and_the_values_vitest_json_loses(name):
    parsed = report(name, "vitest")
    assert parsed.outcomes == {f"test/sample.test.mjs::{path}": outcome for path, outcome in CASES.items()}
    adds = parsed.failures["test/sample.test.mjs::math > add > adds two numbers"]
    assert (adds.kind, adds.op, adds.expected, adds.observed, adds.line) == ("compare", "strictEqual", "5", "-1", 6)
    thrown = parsed.failures["test/sample.test.mjs::throws type error"]
    assert (thrown.kind, thrown.error_type, thrown.expected, thrown.line) == ("error", "TypeError", None, 18)
    assert set(parsed.load_errors) == {"test/syntax.test.mjs", "test/missing.test.mjs"}
    assert "no-such-module" in parsed.load_errors["test/missing.test.mjs"]


def test_vitest_0_json_report_with_its_empty_file_suite_and_passed_load_failures():
    parsed = report("vitest034-json-cases.json", "vitest")
    assert parsed.outcomes == {f"test/sample.test.mjs::{path}": outcome for path, outcome in CASES.items()}
    assert set(parsed.load_errors) == {"test/syntax.test.mjs", "test/missing.test.mjs"}  # reported "passed"


@pytest.mark.parametrize("name", ["node-test20-cases.json", "node-test22-cases.json"])
def test_node_test_report_rebuilds_describe_paths_and_tells_hooks_and_load_failures_apart(name):
    parsed = report(name, "node-test")
    assert parsed.outcomes == {
        "test/math.test.mjs::math > add > adds two numbers": "failed",
        "test/math.test.mjs::math > add > adds zero": "passed",
        "test/math.test.mjs::math > add > skipped one": "skipped",
        "test/math.test.mjs::math > add > todo one": "skipped",
        "test/math.test.mjs::math > hooked > never runs": "error",
        "test/math.test.mjs::top level deep": "failed",
        "test/math.test.mjs::throws type error": "failed",
    }
    adds = parsed.failures["test/math.test.mjs::math > add > adds two numbers"]
    assert (adds.kind, adds.op, adds.expected, adds.observed, adds.line) == ("compare", "strictEqual", "5", "-1", 7)
    deep = parsed.failures["test/math.test.mjs::top level deep"]
    assert (deep.expected, deep.observed) == ('{"a": [1, 3]}', '{"a": [1, 2]}')
    hook = parsed.failures["test/math.test.mjs::math > hooked > never runs"]
    assert (hook.phase, hook.message, hook.line) == ("setup", "setup broke", 14)
    assert set(parsed.load_errors) == {"test/syntax.test.mjs", "test/missing.test.mjs"}
    assert "SyntaxError: Unexpected end of input" in parsed.load_errors["test/syntax.test.mjs"]
    assert "Cannot find package 'no-such-module'" in parsed.load_errors["test/missing.test.mjs"]


def test_mocha_report_keeps_describe_titles_apart_and_assert_values():
    parsed = report("mocha10-cookie-84a15674-buggy.json", "mocha")
    suite, option, title = "cookie.serialize(name, value, options)", 'with "partitioned" option', "should include"
    failing = f"test/serialize.js::{suite} > {option} > {title} partitioned flag when true"
    assert parsed.outcomes == {
        "test/serialize.js::cookie.serialize(name, value) > should serialize name and value": "passed",
        failing: "failed",
    }
    evidence = parsed.failures[failing]
    assert (evidence.kind, evidence.op, evidence.error_type) == ("compare", "==", "AssertionError")
    assert (evidence.expected, evidence.observed, evidence.line) == ('"foo=bar; Partitioned"', '"foo=bar"', 118)
    # mocha's own json reporter spells the same test with spaces only: the two spellings compare equal
    checker = (
        f"test/serialize.js::cookie.serialize(name, value, options) {option} should include partitioned flag when true"
    )
    assert comparable_id(failing) == comparable_id(checker)


def test_mocha_report_puts_tests_a_failing_hook_kept_from_running_in_error():
    parsed = report("mocha10-cases.json", "mocha")
    assert parsed.outcomes == {
        "test/sample.js::throws type error": "failed",
        "test/sample.js::math > add > adds two numbers": "failed",
        "test/sample.js::math > add > adds zero": "passed",
        "test/sample.js::math > add > skipped one": "skipped",
        "test/sample.js::math > add > todo one": "skipped",
        "test/sample.js::math > add > objects": "failed",
        "test/sample.js::math > hooked > never runs": "error",
        "test/sample.js::math > hooked > never runs either": "error",
        "test/sample.js::math > before all hooked > not run": "error",
    }
    hook = parsed.failures["test/sample.js::math > hooked > never runs either"]
    assert (hook.phase, hook.message, hook.line) == ("setup", "setup broke", 14)
    objects = parsed.failures["test/sample.js::math > add > objects"]
    assert objects.expected == '{"a": [1, 2]}'
    assert objects.observed == "{ a: [ 1, 0 ], f: undefined }"  # not JSON: util.inspect's words


def test_real_node_test_and_mocha_11_reports_give_the_failing_check_values():
    head = report("node-test22-commander-head-buggy.json", "node-test")  # a synthetic bug at HEAD
    failing = EXIT_OVERRIDE.replace(".exitOverride and error details", "Command.exitOverride") + (
        "when specify excess argument then throw CommanderError"
    )
    assert head.outcomes[failing] == "failed" and list(head.outcomes.values()).count("passed") == 1
    assert (head.failures[failing].expected, head.failures[failing].line) == (
        '"error: too many arguments. Expected 0 arguments but got 1: excess."',
        15,
    )
    yargs = report("mocha11-yargs-parser-60f2db5d-buggy.json", "mocha")
    (tid,) = [t for t, outcome in yargs.outcomes.items() if outcome == "failed"]
    assert tid.startswith("test/yargs-parser.mjs::yargs-parser > configuration > unknown-options-as-args = true > ")
    evidence = yargs.failures[tid]
    assert (evidence.op, evidence.expected, evidence.observed) == (
        "deepStrictEqual",
        '{"_": ["-known"]}',
        '{"_": [], "known": true}',
    )
    assert evidence.line == 3357


@pytest.mark.parametrize("runner", ["jest", "vitest", "mocha", "node-test"])
@pytest.mark.parametrize("text", ["", "{", "[]", '{"testResults": 3}', '{"reporter": "other", "tests": []}'])
def test_a_report_that_does_not_parse_is_an_error_never_an_empty_run(runner, text):
    with pytest.raises(RunnerReportError):
        parse_report(runner, text, "/repo")


def test_a_run_that_wrote_no_report_is_an_error(tmp_path):
    with pytest.raises(RunnerReportError, match="the mocha run wrote no report"):
        read_report("mocha", tmp_path / "report.json", str(tmp_path))


def test_a_test_file_outside_the_repository_is_refused():
    text = json.dumps({"testResults": [{"name": "/elsewhere/a.test.js", "assertionResults": []}]})
    with pytest.raises(RunnerReportError, match="outside the repository root"):
        parse_report("jest", text, "/repo")


def test_a_title_repeated_in_one_describe_keeps_the_worst_outcome_and_is_flagged():
    tests = [
        {"ancestorTitles": ["d"], "title": "same", "status": "failed", "failureMessages": ["Error: x"]},
        {"ancestorTitles": ["d"], "title": "same", "status": "passed", "failureMessages": []},
    ]
    text = json.dumps({"testResults": [{"name": "/repo/a.test.js", "status": "failed", "assertionResults": tests}]})
    parsed = parse_report("jest", text, "/repo")
    assert parsed.outcomes == {"a.test.js::d > same": "failed"}
    assert parsed.duplicates == {"a.test.js::d > same"}
    assert "a.test.js::d > same" in parsed.failures


def test_empty_describe_titles_are_left_out_so_vitest_versions_agree_and_spellings_compare():
    tests = [{"ancestorTitles": ["", "getQuery"], "title": "http://foo.com/?a=", "status": "passed"}]
    text = json.dumps({"testResults": [{"name": "/repo/test/query.test.ts", "assertionResults": tests}]})
    (tid,) = parse_report("vitest", text, "/repo").outcomes
    assert tid == "test/query.test.ts::getQuery > http://foo.com/?a="
    assert comparable_id(tid) == comparable_id("test/query.test.ts:: > getQuery > http://foo.com/?a=")
    assert comparable_id("test/s.js::cookie.serialize a > b") == "test/s.js::cookie.serialize a b"


def test_runner_commands_call_the_runner_directly_with_its_machine_readable_reporter():
    files = ["test/a.test.ts", "test/b.test.ts"]
    jest = runner_command("jest", files, "/out/r.json")
    assert jest[0] == "node_modules/.bin/jest" and jest[-3:] == ["--runTestsByPath", *files]
    # SEBGen's reporter writes jest's --json document, signed; jest's own --json is not asked for
    assert {f"--reporters={JEST_REPORTER}", "--outputFile=/out/r.json", "--coverage=false"} <= set(jest)
    assert "--json" not in jest
    vitest = runner_command("vitest", files, "/out/r.json")
    assert vitest[:2] == ["node_modules/.bin/vitest", "run"] and vitest[-2:] == files
    assert {f"--reporter={VITEST_REPORTER}", "--outputFile=/out/r.json"} <= set(vitest)
    mocha = runner_command("mocha", files, "/out/r.json", options=["--ui", "qunit"])
    assert mocha[:3] == ["node_modules/.bin/mocha", "--ui", "qunit"]
    assert [str(MOCHA_REPORTER), "--reporter-options", "output=/out/r.json"] == mocha[4:7]
    node = runner_command("node-test", files, "/out/r.json")
    assert node == [
        "node",
        "--test",
        f"--test-reporter={NODE_TEST_REPORTER}",
        "--test-reporter-destination=/out/r.json",
        *files,
    ]
    with pytest.raises(ValueError, match="known: jest, vitest, mocha, node-test"):
        runner_command("ava", files, "/out/r.json")


@pytest.mark.parametrize(
    ("script", "options"),
    [
        ("mocha --reporter spec --bail --check-leaks --ui qunit test/", ["--check-leaks", "--ui", "qunit"]),
        ("c8 --reporter=text --reporter=html mocha test/*.js", []),
        (
            "nyc mocha -r ts-node/register --timeout=5000 test/*.ts && npm run lint",
            ["-r", "ts-node/register", "--timeout=5000"],
        ),
        ("jest && tsc", []),
    ],
)
def test_mocha_options_that_tests_need_are_kept_and_reporters_bail_and_wrappers_dropped(script, options):
    assert mocha_options_from_script(script) == options


@needs_node
def test_the_node_test_reporter_runs_on_this_node_and_its_report_parses(tmp_path):
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "cut.test.mjs").write_text(
        "import { describe, it } from 'node:test';\n"
        "import assert from 'node:assert/strict';\n"
        "describe('cut', () => {\n"
        "  it('keeps the head', () => { assert.equal('abc'.slice(0, 2), 'ab'); });\n"
        "  it('drops the tail', () => { assert.equal('abc'.slice(0, 2), 'a'); });\n"
        "});\n"
    )
    argv = runner_command("node-test", ["test/cut.test.mjs"], str(tmp_path / "report.json"))
    subprocess.run(argv, cwd=tmp_path, capture_output=True, timeout=120)
    parsed = read_report("node-test", tmp_path / "report.json", str(tmp_path))
    assert parsed.outcomes == {
        "test/cut.test.mjs::cut > keeps the head": "passed",
        "test/cut.test.mjs::cut > drops the tail": "failed",
    }
    evidence = parsed.failures["test/cut.test.mjs::cut > drops the tail"]
    assert (evidence.expected, evidence.observed, evidence.line) == ('"a"', '"ab"', 5)
