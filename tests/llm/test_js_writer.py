"""The offline writer on JS/TS evidence (llm/offline/js_writer.py): the provider hands a context
that says `"language": "javascript"` to it; its statement quotes the reproduction in a ```js
block with the expected and received values, names no test (but in TEST_DRIVEN), and is the same
for the same context and seed. Python contexts never reach it."""

import dataclasses
import json
import re

from llm.offline.js_writer import is_js_context, write_js_statement
from llm.offline.provider import respond
from records import FailureEvidence

REPRO = (
    "import assert from 'node:assert';\nimport { parseQuery } from \"ufo\";\n\n"
    'const query = "a=1&a=2";\nassert.deepEqual(parseQuery(query), { a: ["1", "2"] });'
)
TEST_ID = "test/query.test.ts::parseQuery > keeps a repeated key"
LOOP_ID = 'test/base.test.ts::withBase > "/admin" + "/admin-dashboard"'


def context(strategy: str = "BUG_FIX") -> dict:
    failures = [
        FailureEvidence(
            TEST_ID,
            kind="compare",
            check='expect(parseQuery(query)).toEqual({ a: ["1", "2"] });',
            call="parseQuery(query)",
            op="==",
            expected='{"a":["1","2"]}',
            observed='{"a":"2"}',
            error="",
            exact=False,
            reproduction=REPRO,
            function="parseQuery",
        ),
        FailureEvidence(
            LOOP_ID,
            kind="compare",
            check="expect(withBase(t.input, t.base)).toBe(t.out);",
            call="withBase(t.input, t.base)",
            op="==",
            expected='"/admin/admin-dashboard"',
            observed='"/admin-dashboard"',
            error="",
            exact=True,
            unbound=["t"],
            function="withBase",
        ),
    ]
    return {
        "task": "write_statement",
        "language": "javascript",
        "strategy_type": strategy,
        "repo": "unjs/ufo",
        "commit_subject": "fix(parseQuery): keep repeated keys",
        "touched_functions": [
            {"file": "src/query.ts", "name": "parseQuery", "signature": "export function parseQuery(q)"}
        ],
        "failures": [f.to_dict() for f in failures],
        "added_lines": ["      out[key] = [].concat(out[key], value);"],
    }


def test_a_js_statement_quotes_the_reproduction_and_the_values_without_test_names():
    statement = write_js_statement(context(), "Write a bug report.")["problem_statement"]
    assert f"```js\n{REPRO}\n```" in statement
    assert '`{"a":"2"}`' in statement and '`{"a":["1","2"]}`' in statement
    assert "expect(withBase(t.input, t.base)).toBe(t.out);" in statement  # the loop's check, as the test writes it
    assert 'the result of `withBase` is `"/admin-dashboard"`' in statement
    assert "keeps a repeated key" not in statement and "query.test.ts" not in statement
    assert "```python" not in statement
    assert "out[key] = [].concat" not in statement  # the fix is never shown


def test_a_test_driven_js_statement_lists_the_tests():
    statement = write_js_statement(context("TEST_DRIVEN"), "List the failing tests by name.")["problem_statement"]
    assert f"- `{TEST_ID}`" in statement and f"- `{LOOP_ID}`" in statement


def test_the_provider_sends_js_contexts_to_the_js_writer_and_is_deterministic():
    messages = [{"role": "user", "content": f"Write a bug report.<context>{json.dumps(context())}</context>"}]
    first = json.loads(respond(messages))
    assert first == json.loads(respond(messages))
    assert "```js\n" in first["problem_statement"]
    python = {k: v for k, v in context().items() if k != "language"}
    assert is_js_context(context()) and not is_js_context(python)


def test_a_check_in_a_helper_is_shown_with_the_tests_own_lines_but_not_its_name():
    """No reproduction (the check sits in a helper): the test's lines set the check up; the line
    that names the test is left out."""
    ctx = context()
    ctx["failures"] = [
        FailureEvidence(
            "tests/exit.test.js::.exitOverride > when excess argument then throw",
            kind="compare",
            check="expect(err.message).toBe(message);",
            call="err.message",
            op="==",
            expected='"error: too many arguments: excess."',
            observed='"error: too many arguments."',
            error="",
            exact=True,
            source=[
                "  test('when excess argument then throw', () => {",
                "    const program = new commander.Command();",
                "    let caughtErr;",
                "    try {",
                "      program.parse(['node', 'test', 'excess']);",
                "    } catch (err) {",
                "      caughtErr = err;",
                "    }",
                "    expectCommanderError(caughtErr, 1, 'commander.excessArguments', 'error: too many: excess.');",
                "  });",
            ],
        ).to_dict()
    ]
    statement = write_js_statement(ctx, "Write a bug report.")["problem_statement"]
    assert "```js\nconst program = new commander.Command();\nlet caughtErr;\ntry {\n" in statement
    assert "when excess argument then throw" not in statement


def test_with_no_failure_evidence_the_lines_the_change_adds_to_a_test_are_shown():
    ctx = context()
    ctx["failures"] = []
    ctx["failing_tests"] = [
        {"id": TEST_ID, "assertion": "", "added_lines": ["expect(parseQuery('a=1&a=2')).toEqual({ a: ['1', '2'] });"]}
    ]
    statement = write_js_statement(ctx, "Write a bug report.")["problem_statement"]
    assert "```js\nexpect(parseQuery('a=1&a=2')).toEqual({ a: ['1', '2'] });\n```" in statement


def test_an_error_with_no_call_under_test_titles_the_statement():
    ctx = context()
    ctx["failures"] = [
        FailureEvidence(
            "tests/args.test.js::allowExcessArguments > when false then error",
            kind="error",
            error="TypeError: program.allowExcessArguments is not a function",
            source=["  test('when false then error', () => {", "    program.allowExcessArguments(false);"],
        ).to_dict()
    ]
    statement = write_js_statement(ctx, "Write a bug report.")["problem_statement"]
    assert statement.splitlines()[0].endswith(
        "The code below throws `TypeError: program.allowExcessArguments is not a function`"
    )


def test_an_error_value_is_quoted_by_its_first_line_never_its_stack():
    ctx = context()
    stack = (
        "Error: maxAge should be a Number\n    at Object.serialize (/work/tree/index.js:123:30)\n    at next (x.js:1:1)"
    )
    ctx["failures"] = [
        FailureEvidence(
            "test/serialize.js::serialize > maxAge",
            kind="compare",
            call="cookie.serialize('foo', 'bar', { maxAge: 'buzz' })",
            op="==",
            expected="/option maxAge is invalid/",
            observed=stack,
            error="",
            reproduction="var cookie = require('cookie');\ncookie.serialize('foo', 'bar', { maxAge: 'buzz' });",
        ).to_dict()
    ]
    statement = write_js_statement(ctx, "Write a bug report.")["problem_statement"]
    assert "`Error: maxAge should be a Number`" in statement and "Object.serialize" not in statement


def test_the_judges_know_the_names_a_self_contained_js_reproduction_binds():
    from records import LayerResult, Task
    from tasks.validate import js_known_names, judge_evidence

    evidence = FailureEvidence.from_dict(context()["failures"][0])
    assert {"parseQuery", "query", "assert", "true", "null"} <= js_known_names([evidence])
    assert {"Array", "JSON", "Object"} <= js_known_names([evidence])  # JS's globals: a later check's `Array.isArray`
    looped = FailureEvidence.from_dict(context()["failures"][1])  # unbound: its names are not vouched for
    assert "withBase" not in js_known_names([looped])
    python = FailureEvidence("tests/test_q.py::test_q", kind="compare", reproduction="from q import parse\nparse(x)")
    assert js_known_names([python]) == set()
    task = Task(
        instance_id="i", repo="unjs/ufo", base_commit="c", patch="", test_patch="", problem_statement="",
        bug_patch="", strategy_type="BUG_FIX", strategy_id="s", FAIL_TO_PASS=[TEST_ID],
    )  # fmt: skip
    task.record("functional", LayerResult(True, 1.0, "", details={"failures": {TEST_ID: evidence.to_dict()}}))
    assert "parseQuery" in judge_evidence(task)["known_names"]


def _ctx(failures: list[FailureEvidence], added: list[str] | None = None, subject: str = "fix: things") -> dict:
    return {
        "task": "write_statement",
        "language": "javascript",
        "strategy_type": "BUG_FIX",
        "repo": "acme/lib",
        "commit_subject": subject,
        "failures": [f.to_dict() for f in failures],
        "added_lines": added or [],
    }


def _case(i: int) -> FailureEvidence:
    return FailureEvidence(
        f"test/t.test.ts::trail > case {i}",
        kind="compare",
        check=f'expect(trail("/a{i}/#x")).toBe("/a{i}#x");',
        call=f'trail("/a{i}/#x")',
        op="==",
        expected=f'"/a{i}#x"',
        observed=f'"/a{i}/#x"',
        error="",
        reproduction=(
            "import assert from 'node:assert';\nimport { trail } from \"lib\";\n\n"
            f'assert.strictEqual(trail("/a{i}/#x"), "/a{i}#x");'
        ),
        function="trail",
    )


def test_every_failing_case_is_stated_with_its_input_and_its_value():
    statement = write_js_statement(_ctx([_case(i) for i in range(6)]), "Write a bug report.")["problem_statement"]
    for i in range(6):  # one block for the function, then every case on a line
        assert f'`trail("/a{i}/#x")`' in statement and f'`"/a{i}#x"`' in statement
    assert statement.count("```js") == 1
    assert "Other checks fail the same way" not in statement


def test_many_failing_cases_are_listed_up_to_a_cap_and_the_rest_counted():
    statement = write_js_statement(_ctx([_case(i) for i in range(25)]), "Write a bug report.")["problem_statement"]
    assert '`trail("/a19/#x")`' in statement and '`trail("/a20/#x")`' not in statement
    assert "and 5 more cases of the same kind" in statement


def test_a_missing_method_the_fix_defines_is_asked_for_not_reported_as_a_crash():
    failure = FailureEvidence(
        "test/args.test.js::allowExcessArguments > when excess then error",
        kind="error",
        error="TypeError: program.exitOverride(...).allowExcessArguments is not a function",
        source=[
            "  test('when excess then error', () => {",
            "    const program = new commander.Command();",
            "    program.exitOverride().allowExcessArguments(false);",
            "    expect(() => program.parse(['excess'], { from: 'user' })).toThrow();",
            "  });",
        ],
        rest="expect(() => program.parse(['excess'], { from: 'user' })).toThrow();",
    )
    added = ["  allowExcessArguments(allowExcess = true) {", "    this._allowExcessArguments = !!allowExcess;"]
    statement = write_js_statement(_ctx([failure], added), "Write a bug report.")["problem_statement"]
    title = statement.splitlines()[0]
    assert "the `allowExcessArguments` method" in title and not title.startswith(("Bug", "Unexpected"))
    assert "`allowExcessArguments()`" not in title  # no call of a name that does not exist yet
    assert "TypeError" not in title
    assert "program.parse(['excess'], { from: 'user' })).toThrow();" in statement  # the example says what is wanted
    # the same error for a name the fix does not define is a bug report
    plain = write_js_statement(_ctx([failure], ["  other() {"]), "Write a bug report.")["problem_statement"]
    assert "`allowExcessArguments` method" not in plain.splitlines()[0]


def test_a_requested_method_is_stated_with_the_calls_the_tests_make_of_it():
    def failure(title: str, call: str) -> FailureEvidence:
        return FailureEvidence(
            f"tests/error.test.js::{title}",
            kind="error",
            error="TypeError: program.error is not a function",
            call=call,
            function="program.error",
            reproduction=f"const commander = require('commander');\nconst program = new commander.Command();\n{call};",
        )

    failures = [
        failure("exit code 1", "program.error('Goodbye')"),
        failure("exit code 2", "program.error('Goodbye', { exitCode: 2 })"),
        failure("same call", "program.error('Goodbye')"),
    ]
    added = ["  error(message, errorOptions) {"]
    statement = write_js_statement(_ctx(failures, added), "Write a bug report.")["problem_statement"]
    assert "the `error` method" in statement.splitlines()[0]
    assert "Usage: `program.error('Goodbye')` and `program.error('Goodbye', { exitCode: 2 })`." in statement
    # the example that checks the most (an error code) comes among the first shown
    coded = failure("error code", "program.error('Goodbye', { code: 'my.code' })")
    coded.reproduction += "\nassert.strictEqual(caught.code, 'my.code');\nassert.strictEqual(caught.exitCode, 1);"
    many = [failure(f"case {i}", f"program.error('m{i}')") for i in range(10)] + [coded]
    statement = write_js_statement(_ctx(many, added), "Write a bug report.")["problem_statement"]
    assert "assert.strictEqual(caught.code, 'my.code');" in statement


def test_titles_say_the_relation_in_words_never_the_matchers_name():
    base = {"kind": "compare", "error": "", "function": "f"}
    undefined = FailureEvidence("t.test.js::a", call="src.get('x')", op="toBeUndefined", expected="undefined",
                                observed='"default"', **base)  # fmt: skip
    instance = FailureEvidence("t.test.js::b", call="err", op="toBeInstanceOf", expected="CommanderError",
                               observed="TypeError", **base)  # fmt: skip
    thrown = FailureEvidence("t.test.js::c", call="f.bind(null, 1)", op="throws", expected="/invalid/",
                             observed="Error: bad number", **{**base, "function": "f.bind"})  # fmt: skip
    titles = [write_js_statement(_ctx([f]), "Write a bug report.")["problem_statement"].splitlines()[0] for f in
              (undefined, instance, thrown)]  # fmt: skip
    assert not any(m in t for t in titles for m in ("toBeUndefined", "toBeInstanceOf", "(throws)"))
    assert '`"default"` where `undefined` is expected' in titles[0]
    assert "which is not an instance of `CommanderError`" in titles[1]
    assert "throws `Error: bad number` instead of `/invalid/`" in titles[2]


def test_a_check_that_calls_nothing_titles_the_project_entry_point_its_reproduction_calls():
    # `argv.should.deep.equal(...)` calls no project function: the title names the one the
    # producer found the reproduction calling first (the record's `entry_point`)
    reproduction = (
        "import { should } from 'chai'\nimport parser from 'yargs-parser'\nshould()\n\n"
        "const argv = parser('-k --u-u', { narg: { k: 1 } })\nargv.should.deep.equal({ _: [], k: '--u-u' })"
    )
    long_value = "{" + ", ".join(f'"k{i}": {i}' for i in range(12)) + "}"
    check = FailureEvidence("test/parser.js::narg > keeps dashes", kind="compare", op="==", expected=long_value,
                            observed="{}", error="", reproduction=reproduction, entry_point="parser")  # fmt: skip
    title = write_js_statement(_ctx([check]), "Write a bug report.")["problem_statement"].splitlines()[0]
    assert "`parser`" in title and "chai" not in title and "should" not in title
    # no entry point recorded: the title names none
    checks_only = dataclasses.replace(check, entry_point=None)
    title = write_js_statement(_ctx([checks_only]), "Write a bug report.")["problem_statement"].splitlines()[0]
    assert "parser" not in title and "chai" not in title


def test_a_property_of_a_test_local_never_titles_the_statement():
    # `caughtErr.code` reads the test's own variable: a solver finds no such name in the
    # repository, so the title names the project's entry point instead
    reproduction = (
        "const assert = require('node:assert');\nconst commander = require('commander');\n"
        "const program = new commander.Command();\nlet caughtErr;\n"
        "try { program.parse(['node', 'test', '--x']); } catch (err) { caughtErr = err; }\n"
        "assert.strictEqual(caughtErr.code, 'commander.unknownOption');"
    )
    check = FailureEvidence("tests/command.test.js::unknown option", kind="compare", op="==",
                            call="caughtErr.code", expected="'commander.unknownOption'", observed="undefined",
                            error="", reproduction=reproduction, entry_point="commander.Command")  # fmt: skip
    title = write_js_statement(_ctx([check]), "Write a bug report.")["problem_statement"].splitlines()[0]
    assert "caughtErr" not in title and "`commander.Command`" in title
    # a property read from the project's own name, or a call, still titles it
    own = dataclasses.replace(check, call="commander.version")
    title = write_js_statement(_ctx([own]), "Write a bug report.")["problem_statement"].splitlines()[0]
    assert "`commander.version`" in title
    called = dataclasses.replace(check, call="program.opts()")
    title = write_js_statement(_ctx([called]), "Write a bug report.")["problem_statement"].splitlines()[0]
    assert "`program.opts()`" in title


def test_a_commit_subject_the_evidence_does_not_bear_out_is_not_the_title():
    long_value = "Object {\n  " + ",\n  ".join(f'"k{i}": {i}' for i in range(8)) + "\n}"
    failure = FailureEvidence(
        "src/parse.spec.ts::parseSetCookie > ignores values",
        kind="compare",
        call='parseSetCookie("key=value; HttpOnly=true; Secure=false; Path=/")',
        op="==",
        expected=long_value,
        observed="Object {}",
        error="",
        function="parseSetCookie",
    )
    unrelated = write_js_statement(_ctx([failure], subject="fix: skip over of boolean attributes"), "Write a report.")
    title = unrelated["problem_statement"].splitlines()[0]
    assert "parseSetCookie" in title and "skip over" not in title
    confirmed = write_js_statement(_ctx([failure], subject="fix: parseSetCookie drops boolean flags"), "Write.")
    assert "drops boolean flags" in confirmed["problem_statement"].splitlines()[0]


def test_the_tests_own_comments_stay_out_of_the_shown_lines():
    from llm.offline.js_writer import test_lines

    failure = FailureEvidence(
        "t.test.js::x",
        kind="error",
        error="TypeError: boom",
        source=["test('x', () => {", "  // the old code forgot the flag", "  const p = make();", "  p.run();"],
    )
    assert test_lines(failure) == "const p = make();\np.run();"


def test_cases_a_line_cannot_tell_apart_each_get_their_example():
    def clash(flags: str) -> FailureEvidence:
        code = f"assert.throws(() => {{\n  program.option('-c, --cheese').option('{flags}');\n}}, /Cannot add/);"
        return FailureEvidence(
            f"t.test.js::clash {flags}",
            kind="raises",
            call=f"() => {{\n  program.option('-c, --cheese').option('{flags}');\n}}",
            expected="/Cannot add/",
            reproduction=f"const assert = require('node:assert');\n\n{code}",
            function="program.option",
        )

    statement = write_js_statement(_ctx([clash("-H, --cheese"), clash("-c, --conflict")]), "Write.")
    text = statement["problem_statement"]
    assert "option('-H, --cheese')" in text and "option('-c, --conflict')" in text
    assert text.count("```js") == 2 and "- the result of" not in text


def test_the_checks_a_test_makes_after_the_failing_one_are_stated_with_it():
    failure = FailureEvidence(
        "test/serialize.js::serialize > priority",
        kind="compare",
        call="cookie.serialize('foo', 'bar', { priority: 'Low' })",
        op="==",
        expected='"foo=bar; Priority=Low"',
        observed='"foo=bar"',
        error="",
        function="cookie.serialize",
        reproduction="var assert = require('assert');\nvar cookie = require('cookie');\n\n"
        "assert.equal(cookie.serialize('foo', 'bar', { priority: 'Low' }), 'foo=bar; Priority=Low')",
        rest="assert.equal(cookie.serialize('foo', 'bar', { priority: 'HIGH' }), 'foo=bar; Priority=High')\n"
        "assert.throws(cookie.serialize.bind(cookie, 'foo', 'bar', { priority: 'foo' }), /option priority is invalid/)",
    )
    statement = write_js_statement(_ctx([failure]), "Write a bug report.")["problem_statement"]
    assert (
        "- `assert.equal(cookie.serialize('foo', 'bar', { priority: 'HIGH' }), 'foo=bar; Priority=High')`" in statement
    )
    assert "/option priority is invalid/)`" in statement
    assert statement.index("priority: 'HIGH'") > statement.index("```\n\nOn the current code")
    # in the outcome's paragraph, so that a dropped block takes them along
    assert 'is exactly `"foo=bar; Priority=Low"`.\nThe same test' in statement or ".\nAfter that check" in statement


def test_a_listed_case_whose_check_spans_lines_is_its_assert_form_on_one_line():
    repro = (
        "const assert = require('node:assert');\nconst commander = require('commander');\n\n"
        "const program = new commander.Command();\nassert.doesNotThrow(() => {\n"
        "  program.parse(['excess'], { from: 'user' });\n});"
    )
    failures = [
        FailureEvidence(
            f"tests/a.test.js::no error {i}",
            kind="error",
            error="CommanderError: error: too many arguments.",
            check="expect(() => { program.parse(['excess'], { from: 'user' }); }).not.toThrow();",
            reproduction=repro.replace("excess", f"excess{i}"),
            function="program.parse",
        )
        for i in range(2)
    ]
    statement = write_js_statement(_ctx(failures), "Write a bug report.")["problem_statement"]
    # with the statement before it that makes its input: the check alone reads a name nothing binds
    listed = (
        "- `const program = new commander.Command(); "
        "assert.doesNotThrow(() => { program.parse(['excess1'], { from: 'user' }); })` should pass"
    )
    assert listed in statement
    assert "expect(" not in statement


def test_a_commit_subject_titles_the_statement_only_when_it_names_the_checked_function_or_value():
    def title(subject: str, **fields) -> str:
        base = {"kind": "compare", "error": "", "op": "==", "observed": "{" + '"a": 1, ' * 20 + "}"}
        failure = FailureEvidence("test/p.js::p", **{**base, **fields})
        ctx = _ctx([failure], subject=subject)
        return write_js_statement(ctx, "Write a bug report.")["problem_statement"].splitlines()[0]

    # the subject tells the fix ("remove the regexp"): never a title unless the evidence bears it out
    assert "regexp" not in title("Remove inaccurate regexp used by unknown-options-as-args", function="parser")
    assert "regexp" not in title("Remove inaccurate regexp used by unknown-options-as-args", expected='"--k-u"')
    assert "parser" in title("parser keeps dashed values after a known flag", function="parser")


def _chai_case(flag: str, value: str) -> FailureEvidence:
    """A chai check of a result that calls nothing: the input is in the statement before it."""
    return FailureEvidence(
        f"test/p.js::parser > parses {flag}",
        kind="compare",
        check=f"argv.{flag}.should.eql({value})",
        call=f"argv.{flag}",
        op="==",
        expected=value,
        observed=f"[100, {value}]",
        error="",
        reproduction=f"const parser = require('p')\nrequire('chai').should()\n\n"
        f"var argv = parser(['--{flag}', '{value}'], {{\n  number: ['{flag}']\n}})\nargv.{flag}.should.eql({value})",
    )


def test_a_listed_case_whose_check_calls_nothing_states_the_call_that_gives_its_value():
    from llm.offline.js_writer import case_line

    line = case_line(_chai_case("foo", "99"))
    assert line == (
        "- `var argv = parser(['--foo', '99'], { number: ['foo'] }); argv.foo.should.eql(99)` should pass "
        "(today it is `[100, 99]`)."
    )  # the check's own argument says what it should be
    # a check that makes its call itself needs no statement before it
    direct = FailureEvidence("test/p.js::p > q", kind="compare", call="parser('-x')", expected="1", observed="2")
    assert case_line(direct) == "- `parser('-x')` is `1`; today it is `2`."


def test_a_statement_lists_each_case_with_its_input_when_its_blocks_are_capped():
    failures = [_chai_case(f"f{i}", str(i)) for i in range(5)]
    statement = write_js_statement(_ctx(failures), "Write a bug report.")["problem_statement"]
    for i in range(5):
        assert f"parser(['--f{i}', '{i}'], {{ number: ['f{i}'] }})" in statement
    assert "the checked value" not in statement


def test_a_missing_apis_examples_take_a_new_required_value_before_a_repeated_one():
    from llm.offline.js_writer import by_new_values

    def error_case(name: str, message: str) -> FailureEvidence:
        return FailureEvidence(
            f"t.test.js::{name}",
            kind="error",
            error="TypeError: p.strict is not a function",
            reproduction=f'const p = make();\np.strict();\nassert.strictEqual(p.run(), "{message}");',
        )

    a, b, c = error_case("a", "too many"), error_case("b", "too many"), error_case("c", "too many for 'x'")
    assert by_new_values([a, b, c]) == [a, c, b]


def test_a_listed_line_keeps_a_function_bodys_statements_apart_and_drops_a_trailing_comment():
    from llm.offline.js_writer import case_line

    f = FailureEvidence(
        "test/p.js::p > coerces",
        kind="compare",
        call="parsed.foo",
        expected='"a!"',
        observed='"b"',
        reproduction="const parser = require('p')\n\n"
        "var parsed = parser(['--foo', 'a'], {\n  coerce: {\n    foo: function (val) {\n"
        "      val += '!'\n      return val\n    }\n  }\n})\n"
        "parsed.foo.should.equal('a!') // eslint-disable-line",
    )
    line = case_line(f)
    assert "{ val += '!'; return val } } })" in line
    assert "eslint" not in line and line.startswith("- `var parsed = parser(")


def test_an_undefined_the_runner_reports_for_a_missing_property_is_not_stated_as_the_value():
    from llm.offline.js_writer import case_line

    f = FailureEvidence(
        "test/p.js::p > nests",
        kind="compare",
        call="argv",
        op="==",
        expected="undefined",
        observed='{"_": []}',
        reproduction="const parser = require('p')\n\nvar argv = parser([])\nargv.should.have.property('nested')",
    )
    assert "`undefined`" not in case_line(f)


def test_the_imports_the_listed_lines_read_are_named_once_before_the_list():
    failures = [_chai_case(f"f{i}", str(i)) for i in range(5)]
    statement = write_js_statement(_ctx(failures), "Write a bug report.")["problem_statement"]
    said = "The cases below start from `const parser = require('p')` and `require('chai').should()`."
    assert statement.count(said) == 1


def test_a_listed_line_leaves_out_the_spy_stand_in_and_calls_jest_fn_as_the_test_does():
    from llm.offline.js_writer import case_line

    stand_in = (
        "// jest.fn() and jest.spyOn() in plain Node: functions that record their calls\n"
        "const jest = {\n  fn(impl) {\n"
        "    const spy = (...args) => (spy.mock.calls.push(args), impl && impl(...args));\n"
        "    spy.mock = { calls: [] };\n    return spy;\n  },\n};\n"
    )
    f = FailureEvidence(
        "tests/a.test.js::a > b",
        kind="compare",
        call="caughtErr.code",
        expected="'x.unknown'",
        reproduction="const assert = require('node:assert');\n\n" + stand_in + "const act = jest.fn();\n"
        "let caughtErr;\ntry {\n  run(['--u'], act);\n} catch (err) {\n  caughtErr = err;\n}\n"
        "assert.strictEqual(caughtErr.code, 'x.unknown');",
    )
    line = case_line(f)
    assert line.startswith("- `const act = jest.fn(); let caughtErr; try { run(['--u'], act); }")
    assert "spy.mock" not in line and "// " not in line


def test_a_case_the_run_said_nothing_of_is_listed_with_the_tests_own_lines():
    from llm.offline.js_writer import case_line

    f = FailureEvidence(
        "tests/a.test.js::a > c",
        source=[
            "  test('c', () => {",
            "    const p = make();",
            "    p.parse(['x']);",
            "    expect(p.ok).toBe(true);",
            "  });",
        ],
    )
    assert case_line(f) == "- `const p = make(); p.parse(['x']); expect(p.ok).toBe(true)` should pass."


def _polluting(reproduction_call: str) -> list[FailureEvidence]:
    head = "const parse = require('acme')\nrequire('chai').should()\n\n"
    root = FailureEvidence(
        "test/t.js::parse > keeps the prototype clean", kind="compare", op="==", expected="0", observed="2",
        check="Object.keys({}.__proto__).length.should.equal(0)", line=40,
        reproduction=f"{head}{reproduction_call}\nObject.keys({{}}.__proto__).length.should.equal(0)",
    )  # fmt: skip
    later = FailureEvidence(
        "test/t.js::parse > a default", kind="compare", op="==", expected="7", observed="[123, 7]",
        check="argv.a.b.should.eql(7)", line=90,
        reproduction=f"{head}var argv = parse(['--a.b', '7'])\nargv.a.b.should.eql(7)",
    )  # fmt: skip
    other = FailureEvidence(
        "test/t.js::parse > a flag", kind="compare", op="==", expected="true", observed="false",
        check="argv.x.should.equal(true)", line=20,
        reproduction=f"{head}var argv = parse(['-x'])\nargv.x.should.equal(true)",
    )  # fmt: skip
    return [other, later, root]


def test_a_failure_from_shared_state_shows_the_call_that_changes_it_then_that_call_and_a_later_check_in_one_snippet():
    failures = _polluting("parse(['--__proto__.b', '123'])")
    text = write_js_statement(_ctx(failures), "Write a bug report.")["problem_statement"]
    blocks = re.findall(r"```js\n(.*?)```", text, flags=re.S)
    # the root's own reproduction first, then one snippet: the root's call, then the later check
    assert "Object.keys({}.__proto__).length.should.equal(0)" in blocks[0]
    combined = blocks[1]
    assert combined.index("parse(['--__proto__.b', '123'])") < combined.index("argv.a.b.should.eql(7)")
    assert combined.count("require('acme')") == 1 and "`[123, 7]`" in text
    # every case is still listed
    assert "parse(['-x'])" in text


def test_a_shared_state_check_whose_input_writes_no_prototype_gets_no_cause_section():
    failures = _polluting("parse(['--b', '123'])")
    text = write_js_statement(_ctx(failures), "Write a bug report.")["problem_statement"]
    blocks = re.findall(r"```js\n(.*?)```", text, flags=re.S)
    assert not any("parse(['--b', '123'])" in b and "argv.a.b.should.eql(7)" in b for b in blocks)


def test_the_wording_is_seeded_by_the_tasks_name_never_by_its_evidence():
    """A field the evidence record gains (or a value worded otherwise) keeps every phrasing; another
    task (another change, other failing tests) draws its own."""
    from llm.offline.js_writer import wording_rng

    def draws(ctx: dict) -> list[float]:
        rng = wording_rng(ctx, "Write a bug report.", 0.7, 1.0, 1024)
        return [rng.random() for _ in range(4)]

    base = context()
    grown = json.loads(json.dumps(base))
    for f in grown["failures"]:
        f["entry_point"] = "parseQuery"
        f["observed"] = (f.get("observed") or "") + " "
    assert draws(grown) == draws(base)
    other_change = {**base, "commit_subject": "fix(withBase): keep the base"}
    other_tests = {**base, "failures": base["failures"][:1]}
    assert draws(other_change) != draws(base)
    assert draws(other_tests) != draws(base)


def _parser_case(i: int, imports: str = "") -> FailureEvidence:
    head = "const parser = require('p')\nrequire('chai').should()\n" + imports
    return FailureEvidence(
        f"test/p.js::parser > case {i}",
        kind="compare",
        check=f"argv.k{i}.should.eql({i})",
        call=f"argv.k{i}",
        op="==",
        expected=str(i),
        observed=f"[100, {i}]",
        error="",
        reproduction=f"{head}\nvar argv = parser(['--k{i}', '{i}'], {{ number: ['k{i}'], note: '{'x' * 200}' }})\n"
        f"argv.k{i}.should.eql({i})",
        function="parser",
    )


def test_the_list_of_cases_fits_the_word_budget_with_fewer_blocks_then_a_count():
    """Many long cases: the word cap never cuts the list off unsaid; blocks go first, then the
    lines past what fits are counted."""
    ctx = _ctx([_parser_case(i) for i in range(30)])
    statement = write_js_statement(ctx, "Write a bug report.", max_tokens=600)["problem_statement"]
    budget = int(600 * 0.75) - 6
    assert len(statement.split()) <= budget
    listed = [ln for ln in statement.splitlines() if ln.startswith("- `")]
    counted = re.search(r"- and (\d+) more cases of the same kind\.", statement)
    assert listed and counted and len(listed) + int(counted.group(1)) >= 29  # every case listed or counted
    assert statement.count("```js") == 1


def test_a_case_line_says_where_a_name_comes_from_when_no_block_shows_it():
    from llm.offline.js_writer import _bound_case_line, case_line

    case = _parser_case(1, imports="const path = require('path')\n")
    case.reproduction = case.reproduction.replace("var argv", "var p = path.sep\nvar argv")
    line = _bound_case_line(case, given=set())
    # `parser` and `path` from the reproduction's own imports: no block above binds them
    assert line.startswith("- `const parser = require('p'); const path = require('path'); var p = path.sep;")
    given = {"const parser = require('p')", "const path = require('path')"}
    assert _bound_case_line(case, given) == case_line(case)
