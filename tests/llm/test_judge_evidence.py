"""The offline judges on real tests: checks counted however a test asserts, and the failure
evidence of the buggy state's run read for solvability."""

from __future__ import annotations

import os
from dataclasses import replace

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import pytest  # noqa: E402

from llm.offline import judge_quality, judge_semantic  # noqa: E402
from llm.offline.judge import count_checks, evidence_defects  # noqa: E402
from records import FailureEvidence  # noqa: E402

PATCH = """diff --git a/pkg/sizes.py b/pkg/sizes.py
--- a/pkg/sizes.py
+++ b/pkg/sizes.py
@@ -1,2 +1,3 @@
 def naturalsize(n):
-    return f'{n} Bytes'
+    unit = 'Byte' if n == 1 else 'Bytes'
+    return f'{n} {unit}'
"""


def lines(text: str) -> list[str]:
    return text.strip("\n").splitlines()


@pytest.mark.parametrize(
    "test, checks",
    [
        # a `with` block of pytest.raises: the block is the check
        ("def test_bad():\n    with pytest.raises(ValueError, match='size'):\n        naturalsize(-1)\n", 1),
        # pytest.warns
        ("def test_warns():\n    with pytest.warns(DeprecationWarning):\n        naturalsize(1, old=True)\n", 1),
        # unittest methods, as statements and as a context manager
        (
            "class T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(naturalsize(1), '1 Byte')\n"
            "        with self.assertRaises(TypeError):\n            naturalsize(None)\n",
            2,
        ),
        # a helper of the test file that asserts, called twice
        (
            "def check(n, text):\n    assert naturalsize(n) == text\n\n\ndef test_units():\n"
            "    check(1, '1 Byte')\n    check(2, '2 Bytes')\n",
            2,
        ),
        # an assert inside a `with` block that is not a check itself
        ("def test_ctx():\n    with open_sizes() as s:\n        assert s.first() == '1 Byte'\n", 1),
    ],
    ids=["pytest.raises", "pytest.warns", "unittest", "helper", "with-block"],
)
def test_checks_are_counted_however_a_test_asserts(test, checks):
    assert count_checks(lines(test)) == checks


def test_a_test_whose_changed_lines_hold_no_assert_counts_its_failing_check():
    changed = ["    (1, '1 Byte'),"]  # a new case in a parametrize list: the assert itself is unchanged
    assert count_checks(changed) == 0
    failures = [{"id": "t.py::test_units[1]", "kind": "compare", "check": "assert naturalsize(n) == want"}]
    assert count_checks(changed, [FailureEvidence.from_dict(f) for f in failures]) == 1
    context = {
        "problem_statement": "x",
        "patch": PATCH,
        "test_patch": "diff --git a/t.py b/t.py\n--- a/t.py\n+++ b/t.py\n@@ -1,1 +1,2 @@\n [\n+    (1, '1 Byte'),\n",
        "fail_to_pass": ["t.py::test_units[1]"],
        "touched_functions": ["naturalsize"],
        "failures": failures,
    }
    assert "1 failing tests with 1 asserts" == judge_quality(context)["test_completeness"]["reasoning"]


GOOD = """Bug: `naturalsize(1)` returns `'1 Bytes'` where `'1 Byte'` is expected

Formatting one byte gives a plural unit.

Steps to reproduce:

```python
from pkg.sizes import naturalsize
assert naturalsize(1) == '1 Byte'
```

On the current code `naturalsize(1)` is `'1 Bytes'`; it should be exactly `'1 Byte'`.
"""
FAILURES = [
    {
        "id": "tests/test_sizes.py::test_one",
        "kind": "compare",
        "check": "assert naturalsize(1) == '1 Byte'",
        "call": "naturalsize(1)",
        "op": "==",
        "observed": "'1 Bytes'",
        "expected": "'1 Byte'",
        "passed_checks": ["assert naturalsize(2) == '2 Bytes'"],
    }
]
EVIDENCE = [FailureEvidence.from_dict(f) for f in FAILURES]  # as the judge reads the context's JSON


def semantic(statement: str) -> dict:
    return judge_semantic(
        {"problem_statement": statement, "patch": PATCH, "failures": FAILURES, "known_names": ["pkg"]}
    )["solvability"]


def test_a_good_statement_has_no_evidence_defect():
    assert evidence_defects(GOOD, EVIDENCE, {"pkg"}) == {"unbound": [], "passing": [], "omitted": []}
    assert semantic(GOOD)["score"] >= 8


def test_a_reproduction_with_unbound_names_is_less_solvable():
    bad = GOOD.replace("assert naturalsize(1) == '1 Byte'", "assert naturalsize(*test_args) == expected")
    assert evidence_defects(bad, EVIDENCE, {"pkg"})["unbound"] == ["expected", "test_args"]
    judged = semantic(bad)
    assert (
        judged["score"] <= semantic(GOOD)["score"] - 4 and "never defines: expected, test_args" in judged["reasoning"]
    )


def test_a_file_path_in_the_prose_is_no_reproduction():
    """`pyledger/interest.py` parses as a division that reads `interest`: a refactor statement
    naming the file its new API lives in was judged to use names it never defines."""
    named = GOOD + "\n\nThe function lives in `pkg/interest.py`."
    assert evidence_defects(named, EVIDENCE, {"pkg"})["unbound"] == []


def test_quoting_a_check_that_passes_on_the_buggy_code_is_less_solvable():
    bad = GOOD + "\nAlso `naturalsize(2)` should return `'2 Bytes'`.\n"
    assert evidence_defects(bad, EVIDENCE, {"pkg"})["passing"] == ["assert naturalsize(2) == '2 Bytes'"]
    assert semantic(bad)["score"] <= semantic(GOOD)["score"] - 4


def test_omitting_the_value_the_failing_check_requires_is_less_solvable():
    bad = "Bug: `naturalsize` is wrong for one byte\n\nCall `naturalsize(1)`: the unit is wrong on the current code.\n"
    assert evidence_defects(bad, EVIDENCE, {"pkg"})["omitted"] == ["'1 Byte'"]
    assert "omits the value" in semantic(bad)["reasoning"]


def test_a_signature_the_hunk_header_shows_is_no_leak():
    from llm import leak_report

    patch = (
        "diff --git a/pkg/core.py b/pkg/core.py\n--- a/pkg/core.py\n+++ b/pkg/core.py\n"
        '@@ -10,3 +10,6 @@ def frozen_delattr(self, name):\n     """Attached to frozen classes."""\n'
        "+    if isinstance(self, BaseException) and name in ('__notes__',):\n"
        "+        BaseException.__delattr__(self, name)\n+        return\n     raise FrozenError\n"
    )
    assert not leak_report("It concerns `frozen_delattr(self, name)` in `pkg/core.py`.", patch).leaks()
    assert leak_report("Call `BaseException.__delattr__(self, name)` there.", patch).leaks()  # the fix itself


def test_the_signature_of_a_new_function_the_tests_call_is_no_leak_over_several_lines():
    """pydoclint 4e1136c5: the statement's interface `insertAt(index: int, arg: Arg)` matched the
    fix's parameter lines `index: int,` and `arg: Arg,`, which a test data file also has: a
    signature read as text the tests pin. Its body stays the fix."""
    from llm import leak_report

    patch = (
        "diff --git a/pkg/arg.py b/pkg/arg.py\n--- a/pkg/arg.py\n+++ b/pkg/arg.py\n"
        "@@ -1,2 +1,9 @@ class ArgList:\n     pass\n"
        "+    def insertAt(\n+        self,\n+        index: int,\n+        arg: Arg,\n"
        "+        where: str,\n+    ) -> None:\n"
        "+        self.infoList.insert(index, arg)\n+        self.lookup[arg.name] = arg\n"
    )
    test_patch = (
        "diff --git a/tests/data/f.py b/tests/data/f.py\n--- a/tests/data/f.py\n+++ b/tests/data/f.py\n"
        "@@ -0,0 +1,6 @@\n+def f(\n+        index: int,\n+        arg: Arg,\n+        where: str,\n+) -> None:\n"
        "+    args.insertAt(1, a, 'x')\n"
    )
    interface = "Proposed interface:\n- `insertAt(index: int, arg: Arg, where: str)` in `pkg/arg.py`"
    assert not leak_report(interface, patch, test_patch).leaks(), leak_report(interface, patch, test_patch)
    fix = interface + "\n\nIt should do `self.infoList.insert(index, arg)` and `self.lookup[arg.name] = arg`."
    assert leak_report(fix, patch, test_patch).leaks()


def test_the_constructor_of_a_new_class_the_tests_call_is_its_signature_not_a_leak():
    """dirty-equals 3269e790: `IsDict(expected: Dict[Any, Any])` matched the new class's
    `__init__` line, a name no test uses: the class is called by its own name."""
    from llm import leak_report

    patch = (
        "diff --git a/pkg/d.py b/pkg/d.py\n--- a/pkg/d.py\n+++ b/pkg/d.py\n@@ -1,1 +1,6 @@\n import x\n"
        "+class IsDict(Base):\n+    def __init__(self, expected: Dict[Any, Any]):\n"
        "+        self.expected_values = dict(expected)\n+        self.strict = len(expected) > 3\n"
    )
    test_patch = (
        "diff --git a/tests/t.py b/tests/t.py\n--- a/tests/t.py\n+++ b/tests/t.py\n"
        "@@ -0,0 +1,2 @@\n+def test_d():\n+    assert {} == IsDict({})\n"
    )
    asked = "Proposed interface:\n- `IsDict(expected: Dict[Any, Any])` in `pkg/d.py`"
    assert not leak_report(asked, patch, test_patch).leaks(), leak_report(asked, patch, test_patch)
    assert leak_report(asked + "\n\nIt keeps `self.expected_values = dict(expected)`.", patch, test_patch).leaks()


def test_a_parameter_an_existing_signature_gains_that_the_tests_pass_is_no_leak():
    """pydoclint: `Visitor` gains `style: str = 'numpy',` on a line of its own; the tests pass
    `style=`. Stating that parameter is the request, not the fix."""
    from llm import leak_report

    patch = (
        "diff --git a/pkg/v.py b/pkg/v.py\n--- a/pkg/v.py\n+++ b/pkg/v.py\n"
        "@@ -1,5 +1,7 @@ class Visitor:\n     def __init__(\n         self,\n"
        "+        style: str = 'numpy',\n         check: bool = True,\n     ) -> None:\n"
        "+        self.style = style + '-docstring'\n         self.check = check\n"
        # a hunk that starts inside a long signature: the parameter's line alone
        "@@ -40,3 +42,4 @@ class Visitor:\n         a: int,\n+        strict: bool = False,\n         b: int,\n"
    )
    test_patch = (
        "diff --git a/tests/t.py b/tests/t.py\n--- a/tests/t.py\n+++ b/tests/t.py\n"
        "@@ -0,0 +1,2 @@\n+def test_v():\n+    assert Visitor(style='google', **{'strict': True}).check\n"
    )
    asked = "The API this asks for:\n- `Visitor` gains `style: str = 'numpy'` and `strict: bool = False`"
    assert not leak_report(asked, patch, test_patch).leaks(), leak_report(asked, patch, test_patch)
    assert leak_report(asked + "\n\nSet `self.style = style + '-docstring'`.", patch, test_patch).leaks()


def test_a_doctest_of_the_fix_is_documentation_not_a_leak():
    from llm import leak_report

    patch = "\n".join(
        [
            "diff --git a/pkg/t.py b/pkg/t.py",
            "--- a/pkg/t.py",
            "+++ b/pkg/t.py",
            "@@ -1,3 +1,6 @@ def isoparse(text):",
            '     """Parse.',
            "+    >>> isoparse('1970-01-01T00:00:00.851')",
            "+    datetime.datetime(1970, 1, 1, 0, 0, 0, 851000)",
            '     """',
            "-    args = [int(p) for p in split(text)]",
            "+    args = scale([int(p) for p in split(text)])",
            "",
        ]
    )
    said = (
        "On the current code it is `datetime.datetime(2020, 1, 2, 3, 4, 5, 851)`; "
        "it should be `datetime.datetime(2020, 1, 2, 3, 4, 5, 851000)`."
    )
    assert not leak_report(said, patch).leaks()
    assert leak_report("Use `args = scale([int(p) for p in split(text)])`.", patch).leaks()  # the fix's code is


def test_a_long_reproduction_and_a_title_naming_the_failure_keep_a_statement_clear():
    """A dev-set statement the semantic judge once rejected as vague (clarity 4): its code block
    counted as one 37-word 'sentence', and the failure quoted after a colon as a restated title."""
    code = "\n".join(f"step_{i} = run_step({i}, retries=2, reraise=True)" for i in range(12))
    statement = (
        "`retry`: No exception caught\n\nWhen using tenacity I hit the problem described below.\n\n"
        f"Reproduction:\n\n```python\nfrom tenacity import retry\n{code}\nassert False, 'No exception caught'\n```\n\n"
        "On the current code the reproduction ends in the test's own failure: `No exception caught`.\n\n"
        "Expected behaviour: The reproduction runs to its end.\nActual behaviour: It fails with `No exception caught`."
    )
    clarity = judge_semantic({"problem_statement": statement, "patch": "", "fail_to_pass": ["t.py::test_a"]})["clarity"]
    assert clarity["score"] >= 8 and "boilerplate" not in clarity["reasoning"], clarity
    filler = statement.replace("When using tenacity I hit the problem described below.", "No exception caught.")
    restated = judge_semantic({"problem_statement": filler, "patch": "", "fail_to_pass": ["t.py::test_a"]})["clarity"]
    assert "title restated" in restated["reasoning"]  # a sentence that only repeats the title still is filler


def test_parametrized_cases_of_a_raises_check_are_listed_with_their_inputs():
    """click's colour validation: 36 cases of one `pytest.raises` block; the statement lists
    the inputs (a blind rater once saw only the first and called the tests unfair)."""
    from llm.offline.writer import CASES, _case_line

    lead = FailureEvidence(
        "t[0]", kind="raises", call="", expected="ValueError", params={"value": "-1"}, reproduction="style(x, fg=-1)"
    )
    other = replace(lead, test_id="t[1]", params={"value": "256", "channel": "'bg'"}, observed="no exception")
    line = _case_line(other, lead)
    # the values, never the test's parameter names
    assert (
        line == "- with `256` in place of `-1`, input `'bg'`: the snippet does not raise; it should raise `ValueError`"
    )
    assert _case_line(replace(other, params={}), lead) == ""  # without inputs, nothing tells the cases apart
    assert CASES >= 12


def test_a_cases_value_that_the_leads_later_check_holds_is_stated_as_what_it_must_give():
    """A parametrized expected output is no input: markdown-it-py's `render('###')` raises, and
    the check after it wants `'<h3></h3>\\n'`; the `'#'` case's `'<h1></h1>\\n'` replaces that."""
    from llm.offline.writer import _case_line

    lead = FailureEvidence(
        "t[###]",
        kind="error",
        call="md.render('###')",
        error="IndexError: list index out of range",
        params={"text": "'###'", "out": "'<h3></h3>\\n'"},
        reproduction="md = MarkdownIt()\ntext = md.render('###')",
        rest="assert text == '<h3></h3>\\n'",
    )
    other = replace(lead, test_id="t[#]", call="md.render('#')", params={"text": "'#'", "out": "'<h1></h1>\\n'"})
    line = _case_line(other, lead)
    assert "input" not in line, line
    assert "`'<h1></h1>\\n'` in place of `'<h3></h3>\\n'` in the check that follows" in line, line
    assert line.endswith("it should not raise"), line


def test_a_cases_value_that_its_own_line_requires_is_not_listed_as_an_input():
    """wcwidth's `wrap(text, w) == expected` cases: each line states its call and the value it
    should give; the `expected` parameter said again as "with input `[...]`" read as an input."""
    from llm.offline.writer import _case_line

    lead = FailureEvidence(
        "t[0]",
        kind="compare",
        call="wrap('abcmore', 5)",
        op="==",
        expected="['abc', 'more']",
        observed="['abcm', 'ore']",
        params={"expected": "['abc', 'more']", "text": "'abcmore'", "w": "5"},
        reproduction="result = wrap('abcmore', 5)\nassert result == ['abc', 'more']",
    )
    other = replace(
        lead,
        test_id="t[1]",
        call="wrap('prefixabc', 6)",
        expected="['prefix', 'abc']",
        observed="['prefixa', 'bc']",
        params={"expected": "['prefix', 'abc']", "text": "'prefixabc'", "w": "6"},
    )
    line = _case_line(other, lead)
    assert line.startswith("- `wrap('prefixabc', 6)` gives `['prefixa', 'bc']`"), line
    assert "input" not in line and line.endswith("`['prefix', 'abc']`"), line


def test_a_cases_values_in_the_checks_that_follow_are_named_in_reading_order_and_placed_once():
    """DataProperty 65914964: each dequote case changes the input and the expected value, both
    read by the checks after the raising line. The line named the expected value first and said
    "in the check that follows" after each value; the input comes first and the place once."""
    from llm.offline.writer import _case_line

    lead = FailureEvidence(
        "t[a]",
        kind="error",
        call="Preprocessor(dequote=True)",
        error="TypeError: unexpected keyword argument 'dequote'",
        params={"expected": "'abc'", "value": "'\"abc\"'"},
        reproduction="preprocessor = Preprocessor(dequote=True)",
        rest="data = preprocessor.preprocess('\"abc\"')\nassert data == 'abc'",
    )
    other = replace(
        lead,
        test_id="t[b]",
        params={"expected": "'xyz'", "value": "'\"xyz\"'"},
        rest="data = preprocessor.preprocess('\"xyz\"')\nassert data == 'xyz'",
    )
    line = _case_line(other, lead)
    assert line.count("in the check") == 1, line
    assert line.index("'\"xyz\"'") < line.index("'xyz'"), line
    assert "in the checks that follow" in line, line


def test_a_helpers_class_comparison_is_stated_on_the_type_of_the_call():
    """marshmallow_dataclass 65ed180a: `assertFieldsEqual(field_for_schema(set), ...)` compares
    `a.__class__ == b.__class__`. The prose said `field_for_schema(set)` gives `<class 'Raw'>`,
    which the call never gives (it gives a Raw object): the reproduction check dropped the
    claim, and the required class went unsaid."""
    from llm.offline.writer import _readable

    f = FailureEvidence(
        "t",
        kind="compare",
        call="field_for_schema(set)",
        observed="<class 'marshmallow.fields.Raw'>",
        expected="<class 'marshmallow_dataclass.collection_field.Set'>",
        reproduction="from pkg import field_for_schema, check\ncheck(field_for_schema(set), 1)",
    )
    assert _readable(f).call == "type(field_for_schema(set))"
    assert _readable(replace(f, call="type(x)")).call == "type(x)"
    assert _readable(replace(f, observed="1", expected="2")).call == "field_for_schema(set)"


def test_a_cases_line_places_only_the_values_its_own_call_does_not_show():
    """bigtree 73975536: the case's line said "`'data[0][1][1]'` in place of `'data[0][0]'`" and
    "`'test11'` in place of `'test'`" though its call and its required value show both; only its
    data, which the call does not show, goes in place of the lead's."""
    from llm.offline.writer import _case_line

    lead = FailureEvidence(
        "t[a]",
        kind="compare",
        call="get(n, 'd[0]')",
        observed="None",
        expected="'x'",
        params={"path": "'d[0]'", "data": "['x', 'y']", "result": "'x'"},
        reproduction="n = A(['x', 'y'])\nassert get(n, 'd[0]') == 'x'",
    )
    other = replace(
        lead,
        test_id="t[b]",
        call="get(n, 'd[1][1]')",
        expected="'z'",
        params={"path": "'d[1][1]'", "data": "['x', ['y', 'z']]", "result": "'z'"},
        reproduction="n = A(['x', ['y', 'z']])\nassert get(n, 'd[1][1]') == 'z'",
    )
    line = _case_line(other, lead)
    assert "`['x', ['y', 'z']]` in place of `['x', 'y']`" in line, line
    assert line.count("in place of") == 1, line
