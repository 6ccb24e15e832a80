"""The offline writer on JS/TS evidence (llm/offline/js_writer.py): the provider hands a context
that says `"language": "javascript"` to it; its statement quotes the reproduction in a ```js
block with the expected and received values, names no test (but in TEST_DRIVEN), and is the same
for the same context and seed. Python contexts never reach it."""

import json

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
