"""The JS/TS evidence producer (tasks/evidence/js.py) on test files in the styles of jest, vitest,
mocha with node:assert (qunit UI) and mocha with chai's should, read with tree-sitter: the failing
check, the call under test, the checks before it, and a reproduction that runs outside the runner."""

import shutil
import subprocess
from pathlib import Path

import pytest

from records import FailureEvidence
from tasks.evidence.js import explain_failure, failure_evidence, find_test, parse, syntax_error

DATA = Path(__file__).resolve().parents[1] / "data" / "js"


def source(name: str) -> str:
    return (DATA / name).read_text()


def compare(line: int, expected: str, observed: str, op: str) -> dict:
    """A failure as sandbox.js_report reports a failed comparison."""
    return FailureEvidence(
        "",
        kind="compare",
        expected=expected,
        observed=observed,
        op=op,
        error="",
        error_type="AssertionError",
        line=line,
    ).to_dict()


def test_a_vitest_check_becomes_a_node_assert_reproduction_with_the_package_entry_point():
    test_id = "test/url.test.ts::parseQuery > keeps a repeated key"
    evidence = explain_failure(
        source("url.test.ts"), test_id, compare(18, '{"a":["1","2"]}', '{"a":"2"}', "toEqual"), package="ufo"
    )
    assert evidence.check == 'expect(parseQuery(query)).toEqual({ a: ["1", "2"] });'
    assert (evidence.call, evidence.function, evidence.op) == ("parseQuery(query)", "parseQuery", "==")
    assert evidence.passed_checks == ['expect(parseQuery("")).toEqual({});']
    assert evidence.rest == 'expect(parseQuery("b")).toEqual({ b: "" });'
    assert evidence.reproduction == (
        "import assert from 'node:assert';\n"
        'import { parseQuery } from "ufo";\n'
        "\n"
        'const query = "a=1&a=2";\n'
        'assert.deepEqual(parseQuery(query), { a: ["1", "2"] });'
    )
    assert evidence.exact is False and evidence.source[0].strip().startswith('test("keeps a repeated key"')


def test_a_loop_generated_test_gets_the_values_of_the_case_its_title_names():
    test_id = 'test/url.test.ts::withBase > "/admin" + "/admin-dashboard"'
    evidence = explain_failure(
        source("url.test.ts"), test_id, compare(9, '"/admin/admin-dashboard"', '"/admin-dashboard"', "toBe"), "ufo"
    )
    assert evidence.check == 'expect(withBase("/admin-dashboard", "/admin")).toBe("/admin/admin-dashboard");'
    assert evidence.call == 'withBase("/admin-dashboard", "/admin")' and not evidence.unbound
    assert evidence.reproduction.endswith(
        'assert.strictEqual(withBase("/admin-dashboard", "/admin"), "/admin/admin-dashboard");'
    )
    assert evidence.exact is True


LOOPS = """import { expect, it, test } from "vitest";
import { getQuery, trail } from "../src";

const table = { "#": "#", bar: "bar/", "a?b": "a/?b" };
for (const input in table) {
  test(input, () => {
    expect(trail(input, true)).toBe(table[input]);
  });
}

[{ url: "/?x=1", out: { x: "1" } }, { url: "/?y", out: { y: "" } }].forEach((c) => {});
const urls = [{ url: "/?x=1", out: { x: "1" } }, { url: "/?y", out: { y: "" } }];
urls.forEach((c) => {
  it(`parses ${c.url}`, () => {
    expect(getQuery(c.url)).toEqual(c.out);
  });
});

it.each([["foo,bar"], ['foo"bar']])("keeps name: %s", (name) => {
  expect(trail(name, false)).toEqual(`${name}=baz`);
});

for (const t of makeCases()) {
  test(`case ${t.name}`, () => {
    expect(trail(t.input)).toBe(t.out);
  });
}
"""


@pytest.mark.parametrize(
    "test_id, line, check",
    [
        ("test/loops.test.ts::bar", 7, 'expect(trail("bar", true)).toBe("bar/");'),
        ("test/loops.test.ts::a?b", 7, 'expect(trail("a?b", true)).toBe("a/?b");'),
        ("test/loops.test.ts::parses /?y", 15, 'expect(getQuery("/?y")).toEqual({ y: "" });'),
        ('test/loops.test.ts::keeps name: foo"bar', 20, 'expect(trail("foo\\"bar", false)).toEqual(`foo"bar=baz`);'),
    ],
)
def test_for_in_tables_for_each_and_it_each_cases_are_read_from_their_titles(test_id, line, check):
    evidence = explain_failure(LOOPS, test_id, compare(line, '"x"', '"y"', "toBe"), "ufo")
    assert evidence.check == check and not evidence.unbound and evidence.reproduction


def test_a_loop_over_values_the_file_does_not_spell_out_stays_unbound():
    evidence = explain_failure(LOOPS, "test/loops.test.ts::case one", compare(25, '"x"', '"y"', "toBe"), "ufo")
    assert evidence.check == "expect(trail(t.input)).toBe(t.out);"
    assert evidence.reproduction is None and evidence.unbound == ["t"]


def test_a_typescript_reproduction_is_plain_js():
    source_ts = 'import { expect, it } from "vitest";\nimport { f } from "../src";\n\nit("x", () => {\n'
    source_ts += '  const v: string = "a";\n  expect(f(v, { value: 1 } as any)!).toBe("b");\n});\n'
    evidence = explain_failure(source_ts, "test/t.test.ts::x", compare(6, '"b"', '"c"', "toBe"), "pkg")
    assert evidence.call == "f(v, { value: 1 })"
    assert 'const v = "a";' in evidence.reproduction and " as any" not in evidence.reproduction
    assert 'assert.strictEqual(f(v, { value: 1 }), "b");' in evidence.reproduction


def test_a_helper_import_keeps_a_test_from_a_reproduction():
    test_id = "test/url.test.ts::parseQuery > reads the fixture"
    evidence = explain_failure(source("url.test.ts"), test_id, compare(23, "null", "null", "toBe"), "ufo")
    assert evidence.check == "expect(parseQuery(fixture)).not.toBe(null);"
    assert evidence.reproduction is None and evidence.unbound == ["fixture"]


def test_a_mocha_qunit_assert_throws_keeps_its_own_words():
    test_id = "test/serialize.js::serialize maxAge"
    report = FailureEvidence(
        "", kind="error", error="AssertionError: Missing expected exception.", error_type="AssertionError", line=19
    ).to_dict()
    evidence = explain_failure(source("serialize.js"), test_id, report, package="cookie")
    assert evidence.kind == "raises" and evidence.function == "cookie.serialize"
    assert evidence.passed_checks == [
        "assert.throws(function () { cookie.serialize('foo', 'bar', { maxAge: 'buzz' }); }, /option maxAge is invalid/)"
    ]
    assert evidence.reproduction == (
        "var assert = require('assert');\nvar cookie = require('cookie');\n\n"
        "assert.throws(function () {\n  cookie.serialize('foo', 'bar', {\n    maxAge: Infinity\n  })\n"
        "}, /option maxAge is invalid/)"
    )
    # what the test checks after the failing check is kept whole, one check a line
    assert evidence.rest == "assert.equal('foo=bar; Max-Age=1000', cookie.serialize('foo', 'bar', { maxAge: 1000 }))"
    first = FailureEvidence(
        "", kind="error", error="AssertionError: Missing expected exception.", error_type="AssertionError", line=13
    ).to_dict()
    assert explain_failure(source("serialize.js"), test_id, first, package="cookie").rest.splitlines() == [
        "assert.throws(function () { cookie.serialize('foo', 'bar', { maxAge: Infinity }) }, "
        "/option maxAge is invalid/)",
        "assert.equal('foo=bar; Max-Age=1000', cookie.serialize('foo', 'bar', { maxAge: 1000 }))",
    ]


def test_chai_should_keeps_the_call_that_enables_it_and_only_the_imports_it_uses():
    test_id = "test/parser.mjs::yargs-parser > configuration > should not parse known short option groups"
    evidence = explain_failure(
        source("parser.mjs"),
        test_id,
        compare(16, '{"_":["-known"]}', '{"_":[],"k":true}', "deepStrictEqual"),
        package="yargs-parser",
    )
    assert evidence.check == "argv.should.deep.equal({ _: ['-known'] })" and evidence.op == "=="
    assert evidence.reproduction.splitlines()[:3] == [
        "import { should } from 'chai'",
        "import parser from 'yargs-parser'",
        "should()",
    ]
    assert "node:fs" not in evidence.reproduction


def test_chai_should_enabled_by_a_require_line_keeps_that_line():
    text = (
        "require('chai').should()\n"
        "const parser = require('../')\n\n"
        "describe('parser', function () {\n"
        "  it('parses a flag', function () {\n"
        "    const argv = parser(['--foo'])\n"
        "    argv.foo.should.equal(true)\n"
        "  })\n"
        "})\n"
    )
    evidence = explain_failure(
        text, "test/parser.js::parser > parses a flag", compare(7, "true", "undefined", "strictEqual"), "yargs-parser"
    )
    assert evidence.reproduction.splitlines()[:2] == [
        "const parser = require('yargs-parser')",
        "require('chai').should()",
    ]
    assert evidence.reproduction.endswith("argv.foo.should.equal(true)")


def test_the_entry_point_is_the_first_call_of_a_name_the_projects_own_imports_bind():
    # `path.resolve` runs first, but `path` is no import of the project: `parser` is the entry point
    text = (
        "const path = require('path')\n"
        "const { expect } = require('chai')\n"
        "const parser = require('../')\n\n"
        "describe('parser', function () {\n"
        "  it('reads a config', function () {\n"
        "    const file = path.resolve(__dirname, 'x.json')\n"
        "    const argv = parser(['--settings', file])\n"
        "    expect(argv.a).to.equal(1)\n"
        "  })\n"
        "})\n"
    )
    test_id = "test/parser.js::parser > reads a config"
    evidence = explain_failure(text, test_id, compare(9, "1", "undefined", "strictEqual"), "yargs-parser")
    assert evidence.reproduction and evidence.entry_point == "parser"
    constructed = text.replace("parser(['--settings', file])", "new parser.Parser(file)")
    evidence = explain_failure(constructed, test_id, compare(9, "1", "undefined", "strictEqual"), "yargs-parser")
    assert evidence.entry_point == "parser.Parser"
    # no project name called: no entry point
    alone = text.replace("    const argv = parser(['--settings', file])\n", "    const argv = { a: 2 }\n")
    evidence = explain_failure(alone, test_id, compare(9, "1", "2", "strictEqual"), "yargs-parser")
    assert evidence.reproduction and evidence.entry_point is None


def test_a_check_in_a_helper_is_written_in_with_the_tests_arguments_and_the_checks_before_are_unstated():
    test_id = "tests/command.test.js::.exitOverride > when excess argument then throw"
    evidence = explain_failure(
        source("command.test.js"), test_id, compare(6, '"error: too many arguments"', '"error"', "toBe"), "commander"
    )
    # the helper's names (`err`, `message`) give way to the test's arguments
    assert evidence.check == "expect(caughtErr.message).toBe('error: too many arguments');"
    assert evidence.call == "caughtErr.message"
    assert evidence.passed_checks is None and not evidence.unbound
    assert evidence.reproduction.endswith(
        "} catch (err) {\n  caughtErr = err;\n}\n"
        "assert.ok(caughtErr instanceof commander.CommanderError);\n"
        "assert.strictEqual(caughtErr.exitCode, 1);\n"
        "assert.strictEqual(caughtErr.message, 'error: too many arguments');"
    )
    assert "expectCommanderError" not in evidence.reproduction
    assert evidence.source[-1].strip() == "});"


def test_to_throw_becomes_assert_throws():
    test_id = "tests/command.test.js::.exitOverride > throws on a clash"
    report = FailureEvidence("", kind="error", error="Error: expected a throw", line=24).to_dict()
    evidence = explain_failure(source("command.test.js"), test_id, report, "commander")
    assert evidence.kind == "raises" and evidence.function == "program.option"
    assert evidence.reproduction.endswith(
        "assert.throws(() => program.option('--cheese'), (error) => error.message.includes('clash'));"
    )
    assert evidence.reproduction.startswith(
        "const assert = require('node:assert');\nconst commander = require('commander');"
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_reproduction_runs_under_node_and_fails_as_the_test_did(tmp_path):
    """The reproduction is real JS: with a stand-in package that has the bug, node exits with the
    assertion error; with the fixed package it exits 0."""
    test_id = "test/url.test.ts::parseQuery > keeps a repeated key"
    evidence = explain_failure(
        source("url.test.ts"), test_id, compare(18, '{"a":["1","2"]}', '{"a":"2"}', "toEqual"), package="ufo"
    )
    package = tmp_path / "node_modules" / "ufo"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "ufo", "type": "module", "main": "index.js"}')
    script = tmp_path / "repro.mjs"
    script.write_text(evidence.reproduction)
    for body, code in (("return Object.fromEntries(new URLSearchParams(q))", 1), (FIXED, 0)):
        (package / "index.js").write_text(
            f"export function withBase() {{}}\nexport function parseQuery(q) {{ {body} }}\n"
        )
        run = subprocess.run(["node", str(script)], cwd=tmp_path, capture_output=True, text=True)
        assert run.returncode == code, run.stderr
        assert ("AssertionError" in run.stderr) == (code == 1)


FIXED = "const o = {}; for (const [k, v] of new URLSearchParams(q)) o[k] = k in o ? [].concat(o[k], v) : v; return o"


def test_find_test_by_titles_and_qunit_suites():
    root = parse(source("serialize.js"), "test/serialize.js").root_node
    assert find_test(root, "test/serialize.js::serialize basic", None).title == "basic"
    assert find_test(root, "test/serialize.js::serialize > basic", None).title == "basic"
    assert find_test(root, "test/serialize.js::serialize nothing", None) is None


@pytest.mark.parametrize(
    ("text", "path", "error"),
    [
        ("const a: number = 1;\n", "a.ts", None),
        ("const a = <div>{x}</div>;\n", "a.jsx", None),
        ("const a = <T,>(x: T) => x;\n", "a.tsx", None),
        ("function f( {\n  return 1\n}\n", "a.js", "line 1"),
        ("const a: number = ;\n", "a.mts", "line 1"),
    ],
)
def test_syntax_errors_by_grammar(text, path, error):
    found = syntax_error(text, path)
    assert (found is None) if error is None else found.startswith(error)


def test_an_each_test_gets_its_case_values_from_its_title():
    """`it.each(table)("... %s", (name) => ...)`: the failing case's value is read back from the
    test's title, named as the callback's parameter, and the reproduction defines it."""
    text = (
        'import * as cookie from "../src/index";\n\n'
        'describe("serialize", () => {\n'
        '  it.each([["foo"], [\'foo"bar\']])("should serialize name: %s", (name) => {\n'
        '    expect(cookie.serialize(name, "baz")).toEqual(`${name}=baz`);\n'
        "  });\n"
        "});\n"
    )
    test_id = 'src/serialize.spec.ts::serialize > should serialize name: foo"bar'
    report = FailureEvidence("", kind="error", error='TypeError: argument name is invalid: foo"bar', line=5)
    evidence = explain_failure(text, test_id, report.to_dict(), package="cookie")
    assert evidence.params == {"name": '"foo\\"bar"'}
    assert evidence.unbound is None
    # the case's value is written where the test reads its parameter (in a template, as its text)
    assert evidence.call == 'cookie.serialize("foo\\"bar", "baz")'
    assert evidence.reproduction == (
        "import assert from 'node:assert';\n"
        'import * as cookie from "cookie";\n\n'
        'assert.deepEqual(cookie.serialize("foo\\"bar", "baz"), `foo"bar=baz`);'
    )


def test_a_matcher_without_values_is_a_failed_check_with_the_messages_values():
    text = (
        "const commander = require('../');\n"
        "test('source is undefined', () => {\n"
        "  const program = new commander.Command();\n"
        "  expect(program.getOptionValueSource('foo')).toBeUndefined();\n"
        "});\n"
    )
    report = FailureEvidence(
        "",
        kind="error",
        error="Error: expect(received).toBeUndefined()",
        message='expect(received).toBeUndefined()\n\nReceived: "cli"',
        line=4,
    ).to_dict()
    evidence = explain_failure(text, "tests/source.test.js::source is undefined", report, "commander")
    assert (evidence.kind, evidence.error, evidence.observed, evidence.expected, evidence.op) == (
        "compare",
        "",
        '"cli"',
        "undefined",
        "toBeUndefined",
    )
    assert evidence.reproduction.endswith("assert.strictEqual(program.getOptionValueSource('foo'), undefined);")


def test_assert_equal_with_the_literal_first_checks_the_call():
    evidence = explain_failure(
        "var assert = require('assert');\nvar cookie = require('..');\n"
        "test('sameSite', function() {\n"
        "  assert.equal('foo=bar; SameSite=None', cookie.serialize('foo', 'bar'));\n});\n",
        "test/serialize.js::sameSite",
        FailureEvidence("", kind="error", error="TypeError: option sameSite is invalid", line=4).to_dict(),
        "cookie",
    )
    assert (evidence.call, evidence.function) == ("cookie.serialize('foo', 'bar')", "cookie.serialize")


def test_a_to_throw_with_text_checks_the_message_and_names_bound_in_the_checked_callback_count():
    text = (
        "const { Command } = require('../');\n"
        "test('clash', () => {\n"
        "  expect(() => {\n"
        "    const program = new Command();\n"
        "    program.option('-c, --cheese').option('-c, --conflict');\n"
        "  }).toThrow('Cannot add option');\n"
        "});\n"
    )
    report = FailureEvidence("", kind="raises", expected='"Cannot add option"', line=3).to_dict()
    evidence = explain_failure(text, "tests/clash.test.js::clash", report, package="commander")
    assert not evidence.unbound  # `program` is declared inside the callback the check calls
    assert evidence.reproduction.endswith("}, (error) => error.message.includes('Cannot add option'));")


def test_a_failed_not_to_throw_is_the_error_the_code_throws_today_never_a_missing_throw():
    text = (
        "const commander = require('../');\n\n"
        "test('when excess then no error', () => {\n"
        "  const program = new commander.Command();\n"
        "  program.exitOverride();\n"
        "  expect(() => {\n"
        "    program.parse(['excess'], { from: 'user' });\n"
        "  }).not.toThrow();\n"
        "});\n"
    )
    message = (
        'expect(received).not.toThrow()\n\nError name:    "CommanderError"\n'
        'Error message: "error: too many arguments. Expected 0 arguments but got 1."\n'
    )
    report = FailureEvidence("", kind="error", error="Error: expect(received).not.toThrow()", message=message, line=6)
    evidence = explain_failure(text, "tests/a.test.js::when excess then no error", report.to_dict(), "commander")
    assert evidence.kind == "error" and evidence.op is None and evidence.expected is None
    assert evidence.error == "CommanderError: error: too many arguments. Expected 0 arguments but got 1."
    assert evidence.reproduction.endswith(
        "assert.doesNotThrow(() => {\n  program.parse(['excess'], { from: 'user' });\n});"
    )


SPY_TEST = (
    "const commander = require('../');\n\n"
    "test('when error called then message on stderr', () => {\n"
    "  const exitSpy = jest.spyOn(process, 'exit').mockImplementation(() => { });\n"
    "  const writeErr = jest.fn();\n"
    "  const program = new commander.Command();\n"
    "  program.configureOutput({ writeErr });\n"
    "  program.error('Goodbye', { exitCode: 2 });\n"
    "  expect(writeErr).toHaveBeenCalledWith('Goodbye\\n');\n"
    "  expect(exitSpy).toHaveBeenCalledTimes(1);\n"
    "  exitSpy.mockRestore();\n"
    "});\n"
)


def test_jest_spies_get_a_plain_node_stand_in_and_a_statement_that_threw_runs_with_the_rest_of_the_test():
    """`program.error` is missing (it threw before any check): the reproduction runs that line and
    the test's later checks as node:assert calls over the stand-in's recorded calls."""
    report = FailureEvidence("", kind="error", error="TypeError: program.error is not a function", line=8)
    evidence = explain_failure(
        SPY_TEST, "tests/e.test.js::when error called then message on stderr", report.to_dict(), "commander"
    )
    assert not evidence.unbound
    assert (evidence.call, evidence.function) == ("program.error('Goodbye', { exitCode: 2 })", "program.error")
    code = evidence.reproduction
    assert "const jest = {" in code and "const { isDeepStrictEqual } = require('node:util');" in code
    assert code.endswith(
        "program.error('Goodbye', { exitCode: 2 });\n"
        "assert.ok(writeErr.mock.calls.some((args) => isDeepStrictEqual(args, ['Goodbye\\n'])));\n"
        "assert.strictEqual(exitSpy.mock.calls.length, 1);"
    )  # the spy's mockRestore() checks nothing: left out
    assert evidence.rest is None  # the later checks are in the snippet, not listed again


def test_vitest_spies_imported_from_vitest_get_the_stand_in_and_an_earlier_throw_check_runs_for_its_effect():
    text = (
        'import { expect, test, vi } from "vitest";\n'
        'import { run } from "../src";\n\n'
        'test("calls back with the error", () => {\n'
        "  const callback = vi.fn();\n"
        "  let caught;\n"
        "  expect(() => { try { run(callback); } catch (e) { caught = e; throw e; } }).toThrow();\n"
        '  expect(callback).toHaveBeenCalledWith(caught, "done");\n'
        "});\n"
    )
    report = FailureEvidence("", kind="compare", expected="", observed="", op="toHaveBeenCalledWith", line=8)
    evidence = explain_failure(text, "test/run.test.ts::calls back with the error", report.to_dict(), "runner")
    code = evidence.reproduction
    assert not evidence.unbound and "vitest" not in code and "const vi = {" in code
    assert code.startswith("import assert from 'node:assert';\nimport { isDeepStrictEqual } from 'node:util';")
    assert 'import { run } from "runner";' in code
    assert "assert.throws(() => { try { run(callback); } catch (e) { caught = e; throw e; } });" in code
    assert code.endswith('assert.ok(callback.mock.calls.some((args) => isDeepStrictEqual(args, [caught, "done"])));')


def test_a_spy_object_used_beyond_its_factories_stays_unbound():
    text = (
        "test('timers', () => {\n"
        "  jest.useFakeTimers();\n"
        "  const f = jest.fn();\n"
        "  expect(f).toHaveBeenCalled();\n"
        "});\n"
    )
    report = FailureEvidence("", kind="compare", expected="", observed="", line=4).to_dict()
    evidence = explain_failure(text, "t.test.js::timers", report)
    assert evidence.reproduction is None and evidence.unbound == ["jest"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_reproduction_with_spies_fails_on_the_buggy_package_and_passes_on_the_fixed_one(tmp_path):
    report = FailureEvidence("", kind="error", error="TypeError: program.error is not a function", line=8)
    evidence = explain_failure(
        SPY_TEST, "tests/e.test.js::when error called then message on stderr", report.to_dict(), "commander"
    )
    package = tmp_path / "node_modules" / "commander"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "commander", "main": "index.js"}')
    script = tmp_path / "repro.cjs"
    script.write_text(evidence.reproduction)
    fixed = "error(message, options) { this.out.writeErr(message + '\\n'); process.exit(options.exitCode); }"
    for method, code in (("", 1), (fixed, 0)):
        (package / "index.js").write_text(
            "class Command { configureOutput(out) { this.out = out; } " + method + " }\nexports.Command = Command;\n"
        )
        run = subprocess.run(["node", str(script)], cwd=tmp_path, capture_output=True, text=True)
        assert run.returncode == code, run.stderr
        assert ("program.error is not a function" in run.stderr) == (code == 1)


def test_a_suite_variable_set_by_a_before_hook_and_a_helper_of_the_file_come_into_the_reproduction():
    text = (
        "const commander = require('../');\n\n"
        "function expectCode(err, code) {\n"
        "  expect(err.code).toBe(code);\n"
        "}\n\n"
        "describe('errors', () => {\n"
        "  let stderrSpy;\n"
        "  beforeAll(() => {\n"
        "    stderrSpy = jest.spyOn(process.stderr, 'write').mockImplementation(() => { });\n"
        "  });\n"
        "  afterEach(() => {\n"
        "    stderrSpy.mockClear();\n"
        "  });\n\n"
        "  test('excess', () => {\n"
        "    const program = new commander.Command();\n"
        "    program.exitOverride().allowExcessArguments(false);\n"
        "    let caught;\n"
        "    try { program.parse(['x'], { from: 'user' }); } catch (err) { caught = err; }\n"
        "    expect(stderrSpy).toHaveBeenCalled();\n"
        "    expectCode(caught, 'commander.excessArguments');\n"
        "  });\n"
        "});\n"
    )
    error = "TypeError: program.exitOverride(...).allowExcessArguments is not a function"
    report = FailureEvidence("", kind="error", error=error, line=17).to_dict()
    evidence = explain_failure(text, "tests/e.test.js::errors > excess", report, "commander")
    assert not evidence.unbound
    code = evidence.reproduction
    assert "function expectCode(err, code) {\n  assert.strictEqual(err.code, code);\n}\nlet stderrSpy;\n" in code
    assert "stderrSpy = jest.spyOn(process.stderr, 'write')" in code and "mockClear" not in code
    assert code.count("let caught;") == 1
    assert code.endswith(
        "assert.ok(stderrSpy.mock.calls.length > 0);\nexpectCode(caught, 'commander.excessArguments');"
    )


def test_the_tests_comments_stay_out_of_the_reproduction():
    text = (
        "const { parse } = require('../');\n"
        "test('parses', () => {\n"
        "  // the fix for the linked issue trims here\n"
        "  const input = ' a ';\n"
        "  expect(parse(input)).toBe('a');\n"
        "});\n"
    )
    report = FailureEvidence("", kind="compare", expected="'a'", observed="' a '", op="toBe", line=5).to_dict()
    evidence = explain_failure(text, "t.test.js::parses", report, "pkg")
    assert "//" not in evidence.reproduction and "const input = ' a ';" in evidence.reproduction


def test_a_check_in_a_bare_block_is_found_with_its_blocks_lines_and_not_an_earlier_blocks():
    text = (
        "require('chai').should()\n"
        "const parser = require('../')\n\n"
        "describe('parser', function () {\n"
        "  it('parses two forms', function () {\n"
        "    const prefix = '--'\n"
        "    {\n"
        "      const argv = parser([prefix + 'a'])\n"
        "      argv.should.deep.equal({ _: [], a: true })\n"
        "    }\n"
        "    {\n"
        "      const argv = parser([prefix + 'b', 'x'], { string: ['b'] })\n"
        "      argv.should.deep.equal({\n"
        "        _: [],\n"
        "        b: 'x'\n"
        "      })\n"
        "    }\n"
        "  })\n"
        "})\n"
    )
    test_id = "test/parser.js::parser > parses two forms"
    evidence = explain_failure(text, test_id, compare(13, '{"_": [], "b": "x"}', '{"_": []}', "deepEqual"), "p")
    assert evidence.check == "argv.should.deep.equal({ _: [], b: 'x' })"
    lines = evidence.reproduction.splitlines()
    assert "const prefix = '--'" in lines and "const argv = parser([prefix + 'b'], { string: ['b'] })" not in lines
    assert "const argv = parser([prefix + 'b', 'x'], { string: ['b'] })" in lines
    assert "parser([prefix + 'a'])" not in evidence.reproduction


def test_every_failing_test_of_a_large_failure_gets_evidence(tmp_path):
    # more than twenty failing tests: each one gets its record, so a statement can state each case
    tests = "".join(
        f"  it('case {i}', function () {{\n    parser(['-a']).a.should.equal({i})\n  }})\n" for i in range(30)
    )
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "p.js").write_text(
        f"const parser = require('../')\nrequire('chai').should()\n\ndescribe('p', function () {{\n{tests}}})\n"
    )
    (tmp_path / "package.json").write_text('{"name": "acme"}')
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(tmp_path)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    ids = [f"test/p.js::p > case {i}" for i in range(30)]
    reports = {t: compare(6 + 3 * i, str(i), "true", "strictEqual") for i, t in enumerate(ids)}
    found = failure_evidence(str(tmp_path), commit, reports, ids)
    assert set(found) == set(ids) and all(f.derived for f in found.values())


def test_a_test_with_no_report_takes_its_files_exit_trace_when_the_line_is_inside_it(tmp_path):
    """A test that called process.exit ended its file's run: the run's log trace, recorded under
    the file's name with the test's line, becomes that test's evidence (the call that exited, the
    rest of the test as its reproduction); another test of the file does not take it."""
    import subprocess

    from tasks.evidence.js import failure_evidence

    source = (
        "const commander = require('../');\n"
        "test('exits', () => {\n"
        "  const program = new commander.Command();\n"
        "  program.parse(['node', 'test', '--debug']);\n"
        "  expect(program.opts().debug).toEqual(true);\n"
        "});\n"
        "test('other', () => {\n"
        "  expect(1).toBe(1);\n"
        "});\n"
    )
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "tests" / "a.test.js").write_text(source)
    (repo / "package.json").write_text('{"name": "commander"}')
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", "-C", str(repo), *args], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True)
    commit = head.stdout.strip()
    trace = {"id": "tests/a.test.js", "kind": "error", "error": 'process.exit called with "1"', "line": 4}
    found = failure_evidence(
        repo, commit, {"tests/a.test.js": trace}, ["tests/a.test.js::exits", "tests/a.test.js::other"]
    )
    exits = found["tests/a.test.js::exits"]
    assert exits.error == 'process.exit called with "1"'
    assert exits.call == "program.parse(['node', 'test', '--debug'])"
    assert "assert.deepEqual(program.opts().debug, true);" in (exits.reproduction or "")
    other = found.get("tests/a.test.js::other")
    assert other is None or other.error is None


def test_a_value_the_runner_printed_over_several_lines_is_put_on_one():
    from tasks.evidence.js import explain_failure, one_line_value

    printed = 'Object {\n  "toString": Array [\n    [Function toString],\n    "foo",\n  ],\n}'
    assert one_line_value(printed) == '{ "toString": [ [Function toString], "foo" ] }'
    assert one_line_value('"a\nb"') == '"a\nb"'  # a string's own line break stays
    assert one_line_value('{\n  "a": "x\ny",\n}') == '{\n  "a": "x\ny",\n}'
    report = {"kind": "compare", "op": "toEqual", "expected": 'Object {\n  "toString": "foo",\n}', "observed": printed}
    evidence = explain_failure("", "test/q.test.ts::getQuery > x", report)
    assert evidence.expected == '{ "toString": "foo" }' and evidence.observed.startswith('{ "toString": [')


def test_a_test_of_several_checks_the_runner_said_nothing_of_is_reproduced_whole():
    """No runner word on the test (its run ended elsewhere): every check is required and none is
    known to pass, so the reproduction runs them all and ends with the last; read again, the same."""
    from tasks.evidence.js import explain_failure

    source = (
        "const parser = require('../');\n"
        "require('chai').should();\n"
        "describe('env', () => {\n"
        "  it('applies nested vars', () => {\n"
        "    process.env.T_A = 'a';\n"
        "    const result = parser(['--x.foo', 'bar'], { envPrefix: 'T' });\n"
        "    result.should.have.property('a', 'a');\n"
        "    expect(result.x).toEqual({ foo: 'bar' });\n"
        "  });\n"
        "});\n"
    )
    test_id = "test/p.test.js::env > applies nested vars"
    evidence = explain_failure(source, test_id, {}, "yargs-parser")
    assert evidence.kind == "compare" and evidence.call == "result.x" and evidence.expected == "{ foo: 'bar' }"
    assert evidence.passed_checks == []  # none is known to have passed
    assert "result.should.have.property('a', 'a');" in evidence.reproduction
    assert evidence.reproduction.endswith("assert.deepEqual(result.x, { foo: 'bar' });")
    again = explain_failure(source, test_id, evidence.to_dict(), "yargs-parser")
    assert again.reproduction == evidence.reproduction and again.kind == "compare"
