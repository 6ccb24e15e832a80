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
