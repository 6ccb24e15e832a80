"""JS/TS statements' reproductions (tasks.reproduction): which blocks run, what the text claims
each does on the current code, and the node:test probe that runs them (here on the host's node,
through the same file and spec the sandbox runs; the Docker path is in
test_reproduction_docker.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from records import FailureEvidence, ReproductionCheck
from tasks.reproduction import JS_PROBE, Claim, _js_value_stands_alone, _rewrite, js_blocks, js_claim, python_blocks

J = "```js\n"


def test_js_blocks_are_the_javascript_and_typescript_fences_only():
    statement = f"t\n\n{J}a(1);\n```\n\n```ts\nb(2);\n```\n\n```python\nc(3)\n```\n\n```\nd(4)\n```\n"
    assert [b.code for b in js_blocks(statement)] == ["a(1);\n", "b(2);\n"]
    assert [b.code for b in python_blocks(statement)] == ["c(3)\n", "d(4)\n"]


def claim_of(after: str, code: str = "f(1);\n", evidence=()) -> Claim:
    statement = f"t\n\nTo reproduce:\n\n{J}{code}```\n\n{after}\n"
    [block] = js_blocks(statement)
    return js_claim(statement, block, list(evidence))


def test_the_text_after_a_block_says_what_it_does_on_the_current_code():
    thrown = claim_of("On the current code it throws `TypeError: x is not a function`.")
    assert (thrown.error, thrown.said) == ("TypeError", "TypeError: x is not a function")
    # what it should throw is a requirement, not what it does today
    wanted = claim_of("On the current code nothing is thrown; it should throw `RangeError`.")
    assert (wanted.error, wanted.no_raise) == ("", True)
    code = "const assert = require('node:assert');\nassert.strictEqual(f(1), 2);\n"
    seen = FailureEvidence("t.js::f", kind="compare", call="f(1)", observed='"a"', expected="2", reproduction=code)
    assert claim_of('On the current code `f(1)` is `"a"`; it should be `2`.', code, [seen]).observed == '"a"'
    # a value the text does not state is no claim; nor is one the block's last check does not compare
    assert claim_of("On the current code this check fails.", code, [seen]).observed is None
    ok = "const assert = require('node:assert');\nassert.ok(f(1) instanceof A);\n"
    other = FailureEvidence("t.js::f", kind="compare", call="f(1)", observed="B", expected="A", reproduction=ok)
    assert claim_of("On the current code `f(1)` is `B`.", ok, [other]).observed is None
    # an instanceof check followed by later equalities (a helper's checks written in): its
    # observed type is no side of the last assert
    helper = ok + "assert.strictEqual(f(1).code, 'x');\n"
    typed = FailureEvidence(
        "t.js::f", kind="compare", call="f(1)", op="toBeInstanceOf", observed="B", expected="A", reproduction=helper
    )
    assert (
        claim_of("On the current code `f(1)` is `B`, which is not an instance of `A`.", helper, [typed]).observed
        is None
    )


@pytest.fixture
def probe_run(tmp_path):
    """Run the probe with node:test on a one-file package whose `add` subtracts, as the sandbox
    runs it; -> {case id: {"buggy"/"fixed"/"seen": (ok, message)}}."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node on this machine")
    root = tmp_path / "pkg"
    (root / "_sebgen_reproductions").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "@demo/calc", "main": "index.js"}))
    (root / "index.js").write_text(
        "exports.add = (a, b) => a - b;\nexports.boom = () => { throw new TypeError('no'); };\n"
    )

    def run(cases: list[dict], timeout_s: float = 5, package: dict | None = None) -> dict:
        if package is not None:
            (root / "package.json").write_text(json.dumps(package))
        (root / "_sebgen_reproductions" / "probe.test.cjs").write_text(JS_PROBE.read_text())
        spec = {"timeout_s": timeout_s, "cases": cases}
        (root / "_sebgen_reproductions" / "sebgen_reproductions.json").write_text(json.dumps(spec))
        out = subprocess.run(
            [node, "--test", "--test-reporter=tap", "_sebgen_reproductions/probe.test.cjs"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
        found: dict = {}
        for m in re.finditer(r"^(not ok|ok) \d+ - \[(b\d+v\d+)-(\w+)\]\n(?:  ---\n(?:.*\n)*?  \.\.\.)?", out, re.M):
            found.setdefault(m.group(2), {})[m.group(3)] = (m.group(1) == "ok", m.group(0))
        return found

    return run


def case(i: int, code: str, module: bool = False, **claim) -> dict:
    spec = {"error": "", "no_raise": False, "observed": None, "bare": False, **claim}
    return {"id": f"b{i}v0", "code": code, "module": module, "claim": spec, "seen": True}


def test_the_probe_runs_each_block_against_the_package_itself_and_judges_the_stated_outcome(probe_run):
    got = probe_run(
        [
            # a stated value found on the failed check's actual side (CommonJS, the package by its name)
            case(
                0,
                "const assert = require('node:assert');\nconst { add } = require('@demo/calc');\n"
                "assert.strictEqual(add(1, 2), 3);\n",
                observed="-1",
            ),
            # the stated error, in an ES module
            case(1, "import { boom } from '@demo/calc';\nboom();\n", module=True, error="TypeError"),
            # "nothing is thrown": its assert.throws fails
            case(2, "const assert = require('node:assert');\nassert.throws(() => 1);\n", no_raise=True),
            # a block that passes on this state does not behave as stated (it claims a failure)
            case(3, "const assert = require('node:assert');\nassert.strictEqual(1, 1);\n"),
            # a wrong value stated
            case(
                4,
                "const assert = require('node:assert');\nconst { add } = require('@demo/calc');\n"
                "assert.strictEqual(add(1, 2), 3);\n",
                observed="7",
            ),
            # jest's globals do not exist in plain node
            case(5, "expect(1).toBe(2);\n"),
            case(6, "while (true) {}\n"),
            # the stated error is the one assert.throws(fn, /wanted/) got instead of the wanted one
            case(
                7,
                "const assert = require('node:assert');\nconst { boom } = require('@demo/calc');\n"
                "assert.throws(() => boom(), /wanted/);\n",
                error="TypeError",
                said="TypeError: no",
            ),
            case(8, "const { boom } = require('@demo/calc');\nboom();\n", error="TypeError", said="TypeError: no"),
            case(9, "const { boom } = require('@demo/calc');\nboom();\n", error="RangeError", said="RangeError: no"),
        ],
        timeout_s=3,
    )
    assert got["b0v0"]["buggy"][0] and not got["b0v0"]["fixed"][0]
    assert "actual value is -1" in got["b0v0"]["seen"][1]
    assert got["b7v0"]["buggy"][0] and got["b8v0"]["buggy"][0] and not got["b9v0"]["buggy"][0]
    assert got["b1v0"]["buggy"][0] and "threw TypeError: no" in got["b1v0"]["fixed"][1]
    assert got["b2v0"]["buggy"][0]
    assert not got["b3v0"]["buggy"][0] and got["b3v0"]["fixed"][0]
    assert not got["b4v0"]["buggy"][0]
    assert got["b5v0"]["buggy"][0] and "ReferenceError: expect is not defined" in got["b5v0"]["seen"][1]
    assert not got["b6v0"]["buggy"][0] and "did not finish within 3 s" in got["b6v0"]["seen"][1]


def test_a_package_whose_entry_is_built_is_built_first_with_its_own_build_script(probe_run, tmp_path):
    package = {
        "name": "@demo/calc",
        "main": "dist/index.js",
        "scripts": {"build": "mkdir -p dist && cp index.js dist/index.js"},
    }
    code = "const assert = require('node:assert');\nconst { add } = require('@demo/calc');\n"
    code += "assert.strictEqual(add(3, 1), 2);\n"
    got = probe_run([case(0, code)], package=package)
    assert got["b0v0"]["fixed"][0], got
    assert (tmp_path / "pkg" / "dist" / "index.js").exists()


def test_a_dropped_blocks_outcome_stays_when_it_names_a_call_of_the_package_and_its_value():
    imported = "const assert = require('node:assert');\nconst cookie = require('cookie');\nassert.ok(1);\n"
    local = "const program = new Command();\nassert.ok(1);\n"
    statement = (
        f"t\n\nTo reproduce:\n\n{J}{imported}```\n\n"
        "On the current code `cookie.serialize('a', 'b')` is `a=b`; it should be `a=b; Secure`.\n"
        "The same test also requires:\n- `x.should.equal(1)`\n\n"
        f"This shows it:\n\n{J}{local}```\n\n"
        "On the current code `program.opts()` is `{}`; it should be `{ a: 1 }`.\n\n"
        f"Reproduction:\n\n{J}{imported}```\n\nOn the current code it throws `TypeError: no`.\n\n"
        f"Again:\n\n{J}{imported}```\n\nOn the current code `cookie.parse('a=b')` is `Object {{\n  a: 1,\n}}`.\n"
    )
    blocks = js_blocks(statement)
    dropped = [ReproductionCheck(b.code, "dropped", "why", claim="", buggy="", fixed="") for b in blocks]
    text = _rewrite(statement, blocks, dropped, stands_alone=_js_value_stands_alone)
    # the package's call and its value stand alone; a block's own variable, or "it", does not
    assert text == (
        "t\n\nOn the current code `cookie.serialize('a', 'b')` is `a=b`; it should be `a=b; Secure`.\n\n"
        "On the current code `cookie.parse('a=b')` is `Object {\n  a: 1,\n}`.\n\n"
        "2 more failing tests are not spelled out here."  # the two blocks whose outcome went with them
    )


def test_a_statement_whose_examples_were_all_dropped_and_that_states_no_case_is_vague():
    from records import LayerResult, ReproductionReport, Task
    from tasks.reproduction import unstated_after_drops
    from tasks.validate import Validator, check_semantic

    failure = FailureEvidence(
        "test/a.test.js::parse > trims", kind="compare", call="parse(' a ')", expected='"a"', observed='" a "'
    )
    task = Task("i", "o/r", "c", "", "", "", "", "BUG_FIX", "s", FAIL_TO_PASS=[failure.test_id])
    task.validation["functional"] = LayerResult(
        True, 1.0, "", details={"failures": {failure.test_id: failure.to_dict()}}
    )
    task.reproduction = ReproductionReport([ReproductionCheck("parse(' a ');\n", "dropped", "ran without an error")])
    task.problem_statement = "Bug: parsing keeps spaces\n\nThe current code of o/r gets the case below wrong."
    result = check_semantic(task, Validator())
    assert (result.passed, result.category) == (False, "vague_statement")
    assert "dropped every example (1 block)" in result.reason
    # the case stated in prose (its call and the value it requires) is something to check against
    task.problem_statement += '\n\nOn the current code `parse(\' a \')` is `" a "`; it should be `"a"`.'
    assert unstated_after_drops(task) == ""
