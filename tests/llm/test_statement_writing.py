"""The offline writer's statements from failure evidence (issue 30): every failing case with its
input, no test internals, titles the evidence confirms, a missing name asked for."""

import copy
import re
from dataclasses import replace

from llm.offline.writer import LISTED, TESTS, write_statement
from records import FailureEvidence

BUG = "Write a bug report for {repo}. Include reproduction steps and state the expected and actual behaviour."


def context(failures, subject="Fix rounding", functions=(), added=(), strategy="BUG_FIX"):
    return {
        "task": "write_statement",
        "strategy_type": strategy,
        "repo": "acme/money",
        "commit_subject": subject,
        "commit_body": "",
        "touched_functions": list(functions),
        "failing_tests": [{"id": f.test_id, "assertion": f.check or ""} for f in failures],
        "failures": [f.to_dict() for f in failures],
        "added_lines": list(added),
    }


def case(index: int, amount: str, wanted: str, got: str) -> FailureEvidence:
    return FailureEvidence(
        f"tests/test_money.py::test_format[{index}]",
        kind="compare",
        call=f"fmt({amount})",
        check="assert fmt(amount) == expected",
        op="==",
        expected=wanted,
        observed=got,
        params={"amount": amount, "expected": wanted},
        reproduction=f"from money import fmt\nassert fmt({amount}) == {wanted}",
        function="fmt",
    )


def test_every_failing_case_is_stated_with_its_input_and_value_never_its_parameter_names():
    cases = [case(i, f"{i}.5", f"'{i}.50'", f"'{i}.5'") for i in range(6)]
    text = write_statement(context(cases), BUG)["problem_statement"]
    for f in cases:
        assert f"`{f.call}`" in text and f"`{f.expected}`" in text and f"`{f.observed}`" in text
    assert "amount=" not in text and "expected=" not in text and "`expected`" not in text
    assert "test_format" not in text


def test_other_failing_tests_come_as_snippets_and_beyond_the_cap_as_one_line_each():
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS + 2)
    ]
    text = write_statement(context(tests), BUG)["problem_statement"]
    assert "test_t" not in text
    assert all(f"assert fmt({i}) == '{i}.00'" in text for i in range(TESTS))
    for i in (TESTS, TESTS + 1):  # past the snippets: call, what it gives, what it needs
        assert f"- `fmt({i})` gives `'{i}'`; it should be `'{i}.00'`" in text
    assert "not listed" not in text and "not spelled out" not in text


def test_past_the_snippets_a_call_that_reads_its_setup_is_counted_not_listed():
    """`e.value.args` alone states no input: without its `with ... as e` it is counted."""
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS)
    ]
    raised = replace(
        case(0, "0", "('bad',)", "('worse',)"),
        test_id="tests/test_money.py::test_raised",
        params=None,
        call="e.value.args",
        reproduction="import pytest\nfrom money import fmt\nwith pytest.raises(ValueError) as e:\n"
        "    fmt(-1)\nassert e.value.args == ('bad',)",
    )
    text = write_statement(context([*tests, raised]), BUG)["problem_statement"]
    assert "`e.value.args`" not in text and "1 more input like these fails the same way" in text


def test_past_the_snippets_a_requirement_only_a_snippet_could_state_is_counted_never_pointed_at():
    """A listed test shows no snippet: "the comparison at the end of the snippet should hold"
    would point at nothing. Such a test is counted."""
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS)
    ]
    local = replace(
        case(0, "7", "wanted", "'7'"),
        test_id="tests/test_money.py::test_local",
        params=None,
        check="assert fmt(7) == wanted",
        reproduction="from money import fmt\nwanted = make_wanted()\nassert fmt(7) == wanted",
    )
    text = write_statement(context([*tests, local]), BUG)["problem_statement"]
    assert "snippet should hold" not in text and "1 more input like these fails the same way" in text, text
    # a test too long to quote among the first ones is stated by its call alone: the same holds
    text = write_statement(context([replace(local, long=True), tests[0]]), BUG)["problem_statement"]
    assert "snippet should hold" not in text and "1 more input like these fails the same way" in text, text


def test_past_the_snippets_a_call_of_a_helper_its_snippet_defines_is_counted_not_listed():
    """`istrue('a[0] == 5')` names a test-suite helper: without the snippet defining it, the
    line calls what no reader has."""
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS)
    ]
    helper = FailureEvidence(
        "tests/test_money.py::test_index",
        kind="helper",
        call="istrue('a[0] == 5')",
        observed="False is not true",
        reproduction="from money import ev\ndef istrue(expr):\n    assert ev(expr)\nistrue('a[0] == 5')",
    )
    text = write_statement(context([*tests, helper]), BUG)["problem_statement"]
    assert "istrue" not in text and "1 more failing test is not spelled out here." in text


def test_beyond_the_listed_lines_the_rest_are_counted_in_plain_words():
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS + LISTED + 3)
    ]
    text = write_statement(context(tests), BUG)["problem_statement"]
    assert f"`fmt({TESTS + LISTED - 1})`" in text and f"`fmt({TESTS + LISTED})`" not in text
    assert "3 more inputs like these fail the same way and are not spelled out here." in text


def test_failing_tests_past_the_evidence_are_counted_with_the_rest():
    """add-trailing-comma: 127 tests failed and the run reports evidence of 64; the statement
    counted 8 of the 71 it did not spell out, so a solver took 63 failing tests for none."""
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(3)
    ]
    ctx = context(tests)
    ctx["failing_tests"] += [{"id": f"tests/test_money.py::test_more[{i}]", "assertion": ""} for i in range(5)]
    text = write_statement(ctx, BUG)["problem_statement"]
    assert all(f"fmt({i})" in text for i in range(3))
    assert "5 more failing tests are not spelled out here." in text, text


def test_a_word_cap_turns_snippets_into_lines_and_counts_the_rest_instead_of_cutting_them_off():
    """A statement over its words said less per test rather than lose its end: once the list
    of cases and the count of the rest were cut off unsaid (a rater saw tests never mentioned)."""
    for total in (TESTS + 2, TESTS + LISTED + 3):
        tests = [
            replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
            for i in range(total)
        ]
        text = write_statement(context(tests), BUG, max_tokens=400)["problem_statement"]
        assert len(text.split()) <= 400 * 0.75
        stated = [i for i in range(total) if f"`fmt({i})`" in text or f"assert fmt({i}) == '{i}.00'" in text]
        counted = re.search(r"(\d+) more inputs? like these fails? the same way", text)
        assert len(stated) + (int(counted.group(1)) if counted else 0) == total, (stated, text)
        assert len(stated) > 4  # one-line listings, not a few snippets and the rest cut


def test_a_listed_test_never_points_at_a_snippet_the_statement_does_not_show():
    """Past the snippets, a test whose requirement is "the comparison at the end of the snippet"
    states nothing in a line of its own: it is counted."""
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(TESTS)
    ]
    vague = FailureEvidence(  # the required value is a local of the snippet
        "tests/test_money.py::test_vague",
        kind="compare",
        call="(fmt(7),)",
        op="==",
        expected="made",
        error="TypeError: boom",
        observed="TypeError: boom",
        reproduction="from money import fmt, make\nmade, _ = make(7)\nassert (fmt(7),) == made",
    )
    text = write_statement(context([*tests, vague]), BUG)["problem_statement"]
    assert "end of the snippet" not in text.split("```")[-1], text
    assert "1 more failing test is not spelled out here." in text


def test_the_same_snippet_is_not_pasted_twice():
    one = case(0, "1.5", "'1.50'", "'1.5'")
    text = write_statement(context([one, replace(one, test_id="tests/test_other.py::test_same")]), BUG)
    assert text["problem_statement"].count("assert fmt(1.5) == '1.50'") == 1


def test_a_name_the_change_adds_is_asked_for_not_reported_as_a_crash():
    absent = FailureEvidence(
        "tests/test_money.py::test_round_half",
        kind="error",
        call="money.round_half(2.5)",
        error="AttributeError: module 'money' has no attribute 'round_half'",
        reproduction="import money\nmoney.round_half(2.5)",
        function="money.round_half",
        rest="assert money.round_half(2.5) == 3",
    )
    fn = {"file": "money.py", "name": "round_half", "signature": "def round_half(value)"}
    text = write_statement(context([absent], subject="Fix docs", functions=[fn]), BUG)["problem_statement"]
    title = text.splitlines()[0]
    assert "round_half" in title and "AttributeError" not in title and not title.startswith("Bug")
    assert "`money.round_half`" in text and "assert money.round_half(2.5) == 3" in text
    assert "raises `AttributeError" not in text  # the request is no crash story

    plain_bug = replace(absent, error="AttributeError: 'NoneType' object has no attribute 'value'")
    text = write_statement(context([plain_bug], functions=[fn]), BUG)["problem_statement"]
    assert "raises `AttributeError: 'NoneType' object has no attribute 'value'`" in text


def test_a_requested_argument_is_asked_for_the_callable_that_refuses_it():
    """fastjsonschema 38e0116c asked for "a `use_formats` argument for `JsonSchemaValueException`",
    the class the checked helper compares with; the error names `CodeGeneratorDraft07`."""
    refused = FailureEvidence(
        "tests/test_money.py::test_gen",
        kind="error",
        call="check({'a': 1}, use_cache=False)",
        error="TypeError: Gen.__init__() got an unexpected keyword argument 'use_cache'",
        reproduction="from money import Gen\ncheck = lambda d, **kw: Gen(d, **kw)\ncheck({'a': 1}, use_cache=False)",
        function="Oops",
    )
    title = write_statement(context([refused]), BUG)["problem_statement"].splitlines()[0]
    assert "a `use_cache` argument for `Gen`" in title and "Oops" not in title
    vowel = replace(refused, error=refused.error.replace("use_cache", "alias_is_default"))
    vowel = replace(vowel, reproduction=vowel.reproduction.replace("use_cache", "alias_is_default"))
    title = write_statement(context([vowel]), BUG)["problem_statement"].splitlines()[0]
    assert "an `alias_is_default` argument for `Gen`" in title


def test_a_requested_names_check_says_what_is_checked_never_a_bare_it():
    """attrs 862696af: "There is no `alias_is_default` yet. With it, ..., and it should be
    `attr.fields(C2Slots)`": the "it" had no referent. The checked call is named, or the
    snippet's comparison when the call is too long to quote."""
    from llm.offline.writer import _request_core

    flag = FailureEvidence(
        "tests/test_t.py::test_flag",
        kind="compare",
        call="f.alias_is_default",
        op="is",
        expected="False",
        error="AttributeError: 'Attribute' object has no attribute 'alias_is_default'",
        reproduction="f = attr.fields(C).x\nassert f.alias_is_default is False",
    )
    text = _request_core(flag, "alias_is_default")
    assert text.endswith("`f.alias_is_default` should be `False`."), text
    attribute = "Attribute(name='x', alias='x', default=None, validator=None, alias_is_default=True)"
    whole = replace(flag, call=f"({attribute}, {attribute})", op="==")
    text = _request_core(replace(whole, expected="attr.fields(C)"), "alias_is_default")
    assert text.endswith("the comparison at the end of the snippet should hold."), text
    assert ", and it should" not in text, text


def test_a_commit_subject_titles_the_statement_only_when_it_fits_the_check():
    vague = FailureEvidence(
        "tests/test_money.py::test_total",
        kind="truthy",
        call="Ledger([1, 2]).balanced()",
        check="assert Ledger([1, 2]).balanced()",
        reproduction="from money import Ledger\nassert Ledger([1, 2]).balanced()",
        function="Ledger",
    )
    unrelated = write_statement(context([vague], subject="Upgrade the linters to ruff 0.6"), BUG)
    assert "linters" not in unrelated["problem_statement"].splitlines()[0].lower()
    fitting = write_statement(context([vague], subject="Fix balanced() for ledgers of two entries"), BUG)
    assert "balanced()" in fitting["problem_statement"].splitlines()[0]
    # a subject in the imperative with a verb the subject parser has no kind for states the fix
    for subject in ("Convert entries to Decimal before balanced() sums them", "Force balanced() to round entries"):
        title = write_statement(context([vague], subject=subject), BUG)["problem_statement"].splitlines()[0]
        assert "balanced()" in title and not re.search(r"\b(?:Convert|Force)\b", title, re.I), title
    # a subject that opens with the function keeps its name's case (wcwidth's "Strip_sequences()")
    opening = write_statement(context([vague], subject="balanced() speed-up and rounding change (#17)"), BUG)
    assert opening["problem_statement"].startswith("balanced() "), opening["problem_statement"].splitlines()[0]


def test_a_failed_check_that_a_value_is_false_says_the_value_is_true():
    negated = FailureEvidence(
        "tests/test_spec.py::test_excludes",
        kind="truthy",
        call="spec.match(version)",
        check="self.assertFalse(spec.match(version))",
        expected="false",
        reproduction="from semver import Spec, Version\nspec = Spec('<1.0')\nversion = Version('1.0.0')\n"
        "spec.match(version)",
        function="Spec.match",
    )
    text = write_statement(context([negated]), BUG)["problem_statement"]
    assert "is true" in text and "should be false" in text and "is false;" not in text, text
    asserted = replace(negated, check="self.assertTrue(spec.match(version))", expected="true")
    text = write_statement(context([asserted]), BUG)["problem_statement"]
    assert "is false" in text and "is true;" not in text, text


def test_a_value_that_should_be_false_is_given_without_pytests_not():
    """isort 35baed2f: `assert not out` read "`out` gives `not 'Fixing file.py'`": pytest's
    `assert not 'Fixing file.py'`, where the value is what follows `not`."""
    from llm.offline.writer import _seen_clause

    printed = FailureEvidence(
        "tests/test_isort.py::test_quiet",
        kind="truthy",
        call="out",
        check="assert not out",
        expected="false",
        observed="not 'Fixing file.py\\n'",
        reproduction="import isort\nout = isort.run()\nassert not out",
    )
    assert _seen_clause(printed) == "gives `'Fixing file.py\\n'`", _seen_clause(printed)


def test_a_long_helper_call_is_not_quoted_again_under_its_snippet():
    source = "'" + "x = 1\\n" * 30 + "'"
    helper = FailureEvidence(
        "tests/test_lint.py::T::test_long",
        kind="helper",
        call=f"flakes({source})",
        observed="Lists differ: [] != ['UnusedImport']",
        reproduction=f"from lint import flakes\nflakes({source})",
    )
    text = write_statement(context([helper]), BUG)["problem_statement"]
    assert text.count(source) == 1 and "the check the last line runs fails" in text, text
    short = replace(helper, call="flakes('import os')", reproduction="from lint import flakes\nflakes('import os')")
    assert "the check inside `flakes('import os')` fails" in write_statement(context([short]), BUG)["problem_statement"]


def test_the_title_never_blames_a_setup_function_the_check_does_not_call():
    made = FailureEvidence(
        "tests/test_make.py::test_frozen",
        kind="compare",
        call="C(1).x",
        check="assert C(1).x == 2",
        op="==",
        expected="2",
        observed="1",
        reproduction="import attr\nC = attr.make_class('C', ['x'])\nassert C(1).x == 2",
        function="attr.make_class",
    )
    title = write_statement(context([made]), BUG)["problem_statement"].splitlines()[0]
    assert "`C(1).x` is `1` where `2` is expected" in title and not title.startswith("`attr.make_class` returns")
    unrelated = replace(made, reproduction="import attr\nfrom app import C\nassert C(1).x == 2")
    title = write_statement(context([unrelated]), BUG)["problem_statement"].splitlines()[0]
    assert "make_class" not in title and "`C(1).x`" in title  # the snippet never calls it


def test_the_leak_filter_never_cuts_a_line_out_of_the_tests_reproduction():
    """boltons' short headers: the fix adds `headers = []` and the test builds
    `Table([[1, 2]], headers=[])`; cutting that line left `t` unbound in the snippet."""
    padded = FailureEvidence(
        "tests/test_tableutils.py::test_padded",
        kind="error",
        call="t.to_text()",
        error="IndexError: list index out of range",
        reproduction="from tables import Table\nt = Table([[1, 2]], headers=[])\nt.headers = ['a']\nt.to_text()",
        function="Table.to_text",
    )
    leaky = BUG + " Never reveal the fix."
    text = write_statement(context([padded], added=["        headers = []"]), leaky)["problem_statement"]
    assert "t = Table([[1, 2]], headers=[])\nt.headers = ['a']" in text


def test_a_title_never_uses_the_snippets_import_alias():
    aliased = FailureEvidence(
        "tests/test_asyncio.py::test_retry",
        kind="error",
        call="await test()",
        error="TypeError: 'int' object does not support the context manager protocol",
        reproduction="from tenacity import _asyncio as tasyncio\nasync def test():\n    tasyncio.AsyncRetrying()",
        function="tasyncio.AsyncRetrying",
    )
    title = write_statement(context([aliased]), BUG)["problem_statement"].splitlines()[0]
    assert "tasyncio" not in title and "`AsyncRetrying`" in title


def test_a_case_whose_input_is_an_object_of_the_tests_is_counted_not_quoted():
    lead = replace(case(0, "1.5", "'1.50'", "'1.5'"), params={"cls": "Money"})
    hidden = replace(lead, test_id="tests/test_money.py::test_format[1]", params={"cls": "<class 'tests.test_x.C'>"})
    text = write_statement(context([lead, hidden]), BUG)["problem_statement"]
    assert "tests.test_x" not in text and "1 more input like these fails the same way" in text


def test_a_case_whose_input_is_an_object_of_the_tests_is_shown_by_its_own_snippet():
    lead = replace(case(0, "1.5", "'1.50'", "'1.5'"), params={"cls": "<class 'tests.test_x.A'>"})
    other = replace(
        lead,
        test_id="tests/test_money.py::test_format[1]",
        params={"cls": "<class 'tests.test_x.C'>"},
        reproduction="from money import fmt\nclass C:\n    pass\nassert fmt(1.5, C) == '1.50'",
    )
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "assert fmt(1.5, C) == '1.50'" in text and "tests.test_x" not in text
    assert "not spelled out" not in text


def test_the_request_leads_when_one_failing_test_shows_a_missing_name():
    plain = case(0, "1.5", "'1.50'", "'1.5'")
    absent = FailureEvidence(
        "tests/test_money.py::test_round_half",
        kind="error",
        call="money.round_half(2.5)",
        error="AttributeError: module 'money' has no attribute 'round_half'",
        reproduction="import money\nmoney.round_half(2.5)",
        function="money.round_half",
    )
    fn = {"file": "money.py", "name": "round_half", "signature": "def round_half(value)"}
    text = write_statement(context([plain, absent], functions=[fn]), BUG)["problem_statement"]
    assert "round_half" in text.splitlines()[0] and "assert fmt(1.5) == '1.50'" in text


def test_a_module_the_change_adds_to_the_package_is_asked_for_not_reported_as_a_crash():
    """bleach: the tests import `bleach.parse_shim`, new with the change; the title read
    "`urlparse(...).fragment` raises `ModuleNotFoundError`"."""
    absent = FailureEvidence(
        "tests/test_shim.py::test_parse",
        kind="error",
        call="urlparse('a:b')",
        error="ModuleNotFoundError: No module named 'money.shim'",
        reproduction="from money.shim import urlparse\nurlparse('a:b')",
        function="urlparse",
    )
    title = write_statement(context([absent]), BUG)["problem_statement"].splitlines()[0]
    assert "a module `money.shim` with `urlparse`" in title and "ModuleNotFoundError" not in title, title


def test_a_request_for_a_private_helper_never_leads_the_public_calls_that_go_wrong():
    """humanize's fix adds `time._rounding_by_fmt`, which one test calls: the statement led with
    "Feature request: `_rounding_by_fmt`", and the public `precisedelta` results came last."""
    plain = case(0, "1.5", "'1.50'", "'1.5'")
    private = FailureEvidence(
        "tests/test_money.py::test_rounding",
        kind="error",
        call="money._round_half(2.5)",
        error="AttributeError: module 'money' has no attribute '_round_half'",
        reproduction="import money\nmoney._round_half(2.5)",
        function="money._round_half",
    )
    fn = {"file": "money.py", "name": "_round_half", "signature": "def _round_half(value)"}
    text = write_statement(context([private, plain], functions=[fn]), BUG)["problem_statement"]
    title, _, body = text.partition("\n")
    assert "_round_half" not in title and "fmt" in title
    assert body.index("assert fmt(1.5) == '1.50'") < body.index("_round_half")  # still asked for, after


def test_a_case_whose_input_is_a_lambda_is_listed_by_its_call_which_writes_the_lambda():
    """fastjsonschema's cases pass `lambda value: value in ('a', 'b')`, reported as
    `<function <lambda> at …>`: each such case got a whole snippet of its own, the budget ran out,
    and cases went uncounted in the text."""
    lead = replace(
        case(0, "1.5", "'1.50'", "'1.5'"),
        params={"rule": "'^[ab]$'"},
        call="fmt(1.5, rule='^[ab]$')",
        reproduction="from money import fmt\nassert fmt(1.5, rule='^[ab]$') == '1.50'",
    )
    other = replace(
        lead,
        test_id="tests/test_money.py::test_format[1]",
        params={"rule": "<function <lambda> at …>"},
        call="fmt(1.5, rule=lambda v: v in 'ab')",
        reproduction="from money import fmt\nassert fmt(1.5, rule=lambda v: v in 'ab') == '1.50'",
    )
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "- `fmt(1.5, rule=lambda v: v in 'ab')`" in text and text.count("```python") == 1


def test_a_listed_case_whose_call_reads_a_module_the_lead_never_imports_gets_its_import_in_the_snippet():
    """humanize's cases pass `dt.timedelta(days=32)`, where the lead case passes a number: the
    listed calls read `dt`, which no block imported (and the line named `datetime.timedelta(...)`,
    the repr, "in place of" the lead's value)."""
    lead = replace(case(0, "1.5", "'1.50'", "'1.5'"), params={"v": "1.5"})
    other = replace(
        lead,
        test_id="tests/test_money.py::test_format[1]",
        params={"v": "datetime.timedelta(days=32)"},
        call="fmt(dt.timedelta(days=32))",
        observed="'x'",
        reproduction="import datetime as dt\nfrom money import fmt\nassert fmt(dt.timedelta(days=32)) == '1.50'",
    )
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert block.startswith("import datetime as dt\n") and "- `fmt(dt.timedelta(days=32))`" in text
    assert "in place of" not in text


def test_a_listed_case_whose_own_value_reads_a_name_the_lead_never_imports_gets_its_import():
    """charset_normalizer: a case's line put `raw = BytesIO(b64decode(...))` in place of the
    lead's bytes value, and no block imported `BytesIO`."""
    rest = "if isinstance(raw, str):\n    raw = float(raw)\nassert fmt(raw) == '1.50'"
    lead = replace(
        case(0, "raw", "'1.50'", "'1.5'"),
        params={"raw": "1.5"},
        reproduction=f"from money import fmt\nraw = 1.5\n{rest}",
    )
    other = replace(
        lead,
        test_id="tests/test_money.py::test_format[1]",
        params={"raw": "Decimal('1.5')"},
        reproduction=f"from decimal import Decimal\nfrom money import fmt\nraw = Decimal('1.5')\n{rest}",
    )
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert "Decimal('1.5')" in text.split("```")[-1], text
    assert block.startswith("from decimal import Decimal\n"), text


def test_what_a_later_test_requires_after_its_failing_check_is_stated_too():
    tests = [
        replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"tests/test_money.py::test_t{i}", params=None)
        for i in range(5)
    ]
    tests[4] = replace(tests[4], rest="assert fmt(40) == '40.00'")
    text = write_statement(context(tests), BUG)["problem_statement"]
    assert "assert fmt(40) == '40.00'" in text


def test_a_title_never_blames_a_string_method_or_a_test_helper_the_check_ends_with():
    stripped = FailureEvidence(
        "tests/test_cli.py::test_echo",
        kind="compare",
        call="result.output.strip()",
        check="assert result.output.strip() == 'hi'",
        op="==",
        expected="'hi'",
        observed="''",
        reproduction="from app import run\nresult = run('echo hi')\nassert result.output.strip() == 'hi'",
        function="strip",
    )
    title = write_statement(context([stripped]), BUG)["problem_statement"].splitlines()[0]
    # the call with its input written in: a reader needs no snippet to know what `result` was
    assert "`strip`" not in title and "`run('echo hi').output.strip()`" in title
    helper = replace(
        stripped,
        call="check_output(result)",
        check="assert check_output(result) == 'hi'",
        reproduction="from app import run\nfrom tests.helpers import check_output\nresult = run('x')\n"
        "assert check_output(result) == 'hi'",
        function="check_output",
    )
    title = write_statement(context([helper]), BUG)["problem_statement"].splitlines()[0]
    assert not title.startswith("`check_output` returns") and "`check_output`" not in title.split(",")[0]
    method = replace(
        stripped,
        call="table.get_string().strip()",
        check="assert table.get_string().strip() == 'hi'",
        reproduction="from app import Table\ntable = Table()\nassert table.get_string().strip() == 'hi'",
        function="Table.strip",
    )
    title = write_statement(context([method], subject="Fix strip of get_string"), BUG)["problem_statement"]
    assert "Table.strip" not in title.splitlines()[0]


def test_a_missing_piece_of_output_reads_as_a_sentence_in_the_title():
    lacking = FailureEvidence(
        "tests/test_cli.py::test_help",
        kind="compare",
        call="result.output",
        check="assert '[x|y]' in result.output",
        op="in",
        expected="'[x|y]'",
        observed="'Usage: cli'",
        reproduction="from app import run\nresult = run('help')\nassert '[x|y]' in result.output",
        function="run",
    )
    title = write_statement(context([lacking]), BUG)["problem_statement"].splitlines()[0]
    assert "Result of With" not in title and "lacks `'[x|y]'`" in title
    title = write_statement(context([replace(lacking, op="not in")]), BUG)["problem_statement"].splitlines()[0]
    assert "contains `'[x|y]'`, which it should not" in title and "should not contain" not in title


def test_a_tests_nonlocal_becomes_global_in_its_module_level_snippet():
    hook = FailureEvidence(
        "tests/test_make.py::test_pre_init",
        kind="compare",
        call="seen",
        check="assert 200 == seen",
        op="==",
        expected="200",
        observed="100",
        reproduction="from money import Money\nseen = None\nclass M(Money):\n    def hook(self, v):\n"
        "        nonlocal seen\n        seen = v\nM(200)\nassert 200 == seen",
    )
    text = write_statement(context([hook]), BUG)["problem_statement"]
    assert "        global seen\n" in text and "nonlocal" not in text

    nested = "from money import Money\ndef run():\n    seen = None\n    def hook(v):\n        nonlocal seen\n"
    nested += "        seen = v\n    Money(hook)\n    return seen\nassert run() == 200"
    text = write_statement(context([replace(hook, reproduction=nested)]), BUG)["problem_statement"]
    assert "        nonlocal seen\n" in text  # valid where it is: left as written


def test_slowness_is_stated_as_slowness_not_as_a_wrong_value():
    slow = FailureEvidence(
        "tests/test_render.py::test_nested",
        kind="compare",
        call="elapsed",
        check="assert elapsed < 0.5",
        op="<",
        expected="0.5",
        observed="3.2",
        reproduction="import time\nfrom md import render\nstart = time.perf_counter()\nrender('[' * 5000)\n"
        "elapsed = time.perf_counter() - start\nassert elapsed < 0.5",
        function="render",
    )
    text = write_statement(context([slow]), BUG)["problem_statement"]
    title = text.splitlines()[0]
    assert "`render` is too slow (`elapsed` reaches `3.2`, the limit is `0.5`)" in title
    assert "wrong value" not in text and "returns `3.2`" not in text
    assert "The snippet is too slow on the current code, `elapsed` reaches `3.2`; it should stay below `0.5`." in text


def test_a_statement_that_shows_no_block_never_speaks_of_a_snippet():
    """The only failure's snippet cannot be quoted (it reads a name it never binds): no opening
    announces a snippet, and no expected/actual pair is written about one."""
    unquotable = replace(case(0, "x", "'1.00'", "'1'"), unbound=["x"], call="fmt(x)", params=None)
    openings = set()
    for n in range(12):  # enough seeds that every opening is drawn
        text = write_statement(context([unquotable], subject=f"Fix rounding {n}"), BUG)["problem_statement"]
        assert "```" not in text and "snippet" not in text.lower()
        openings.add(text.split("\n\n")[1])
    assert len(openings) > 1
    quotable = write_statement(context([case(0, "1", "'1.00'", "'1'")]), BUG)["problem_statement"]
    assert "```" in quotable and "Expected behaviour: `fmt(1)` should be `'1.00'`" in quotable


def test_a_long_text_is_stated_by_its_first_differing_line_never_as_a_different_value():
    got, want = "+---+\n| a |\n+---+", "+---+\n|  a |\n+---+"
    table = FailureEvidence(
        "tests/test_table.py::test_render",
        kind="compare",
        call="t.render()",
        check="assert t.render() == expected",
        op="==",
        expected=repr(want),
        observed=repr(got),
        reproduction=f"from table import T\nt = T('a')\nassert t.render() == {want!r}",
        function="T.render",
    )
    tail = "\n" + "-" * 150  # too long to quote inline
    table = replace(table, observed=repr(got + tail), expected=repr(want + tail))
    text = write_statement(context([table]), BUG)["problem_statement"]
    assert "gives text whose line 2 is `'| a |'` where `'|  a |'` is expected" in text
    assert "different value" not in text

    # a text the runner cut has lines of its own: python-hcl2's differed only at its (cut) end
    from sandbox._report_plugin import _cut

    hcl = "locals {\n" + "".join(f"  value_{i} = {i}.5\n" for i in range(20)) + "}\n"
    cut = replace(table, observed=_cut(repr(hcl + "\n")), expected=_cut(repr(hcl)))
    text = write_statement(context([cut]), BUG)["problem_statement"]
    assert "whose line" not in text, text
    # a listed case whose value the run could not show states what it needs, nothing more
    vague = replace(case(1, "2", "'2.00'", ""), observed=None)
    text = write_statement(context([case(0, "1", "'1.00'", "'1'"), vague]), BUG)["problem_statement"]
    assert "different value" not in text and "`fmt(2)`" in text and "`'2.00'`" in text
    # nor when what it needs cannot be shown either: the line is left out, never half a sentence
    nothing = replace(vague, expected="'" + "2" * 300 + "'")
    text = write_statement(context([case(0, "1", "'1.00'", "'1'"), nothing]), BUG)["problem_statement"]
    assert "different value" not in text and "` the comparison" not in text


def test_a_title_names_the_touched_function_the_setup_uses_never_the_projects_test_runner():
    runner = FailureEvidence(
        "tests/test_types.py::test_path_type",
        kind="compare",
        call="result.return_value",
        check="assert result.return_value == pathlib.Path('a')",
        op="==",
        expected="pathlib.Path('a')",
        observed="b'a'",
        reproduction="import pathlib\nimport click\nfrom click.testing import CliRunner\nrunner = CliRunner()\n"
        "cli = click.Command('cli', params=[click.Argument(['p'], type=click.Path(path_type=pathlib.Path))])\n"
        "result = runner.invoke(cli, ['a'], standalone_mode=False)\nassert result.return_value == pathlib.Path('a')",
        function="CliRunner.invoke",
    )
    touched = [{"name": "Path", "file": "src/click/types.py", "signature": "Path(...)"}]
    title = write_statement(context([runner], functions=touched), BUG)["problem_statement"].splitlines()[0]
    assert "CliRunner" not in title and "`Path`" in title


def test_a_long_text_that_lacks_a_piece_says_so():
    output = FailureEvidence(
        "tests/test_cli.py::test_help",
        kind="compare",
        call="result.output",
        check="assert '(Deprecated)' in result.output",
        op="in",
        expected="'(Deprecated)'",
        observed=repr("Usage: cmd [OPTIONS]\n\n  CLI HELP (DEPRECATED)\n" + "x" * 150),
        reproduction="from app import run\nresult = run('--help')\nassert '(Deprecated)' in result.output",
        function="run",
    )
    text = write_statement(context([output]), BUG)["problem_statement"]
    assert "`run('--help').output` does not contain it" in text and "different value" not in text


def test_a_case_that_fails_at_another_check_gets_its_own_snippet():
    """Case 1 passes the lead's first check and fails at the next one: no line may say it fails
    the lead's check."""
    lead = replace(case(0, "1", "1", "2"), check="assert len(parse(1)) == 1", call="len(parse(1))")
    lead = replace(lead, reproduction="from money import parse\nassert len(parse(1)) == 1", params={"amount": "1"})
    later = replace(
        lead,
        test_id="tests/test_money.py::test_format[1]",
        check="assert parse(2)[0] == 'x'",
        call="parse(2)[0]",
        expected="'x'",
        observed="'y'",
        params={"amount": "2"},
        reproduction="from money import parse\nassert len(parse(2)) == 1\nassert parse(2)[0] == 'x'",
    )
    text = write_statement(context([lead, later]), BUG)["problem_statement"]
    assert "assert parse(2)[0] == 'x'" in text and "`'y'`" in text
    assert "`2` in place of `1`" not in text


def test_an_exception_with_the_wrong_message_is_never_said_not_to_be_raised():
    frozen = FailureEvidence(
        "tests/test_frozen.py::test_message",
        kind="raises",
        call="frozen.x = 2",
        expected="FrozenInstanceError",
        match="can't set attribute",
        observed="Regex pattern did not match.",
        message="Regex pattern did not match.\n  Expected regex: \"can't set attribute\"\n  Actual message: ''",
        reproduction="import pytest\nfrom app import Frozen, FrozenInstanceError\nfrozen = Frozen(1)\n"
        'with pytest.raises(FrozenInstanceError, match="can\'t set attribute"):\n    frozen.x = 2',
        function="Frozen",
    )
    text = write_statement(context([frozen]), BUG)["problem_statement"]
    assert "does not raise" not in text
    assert "`frozen.x = 2` raises `FrozenInstanceError` with the wrong message (`''`)" in text.splitlines()[0]
    assert "ends with a `FrozenInstanceError` whose message is `''`" in text
    # jsonargparse: "ends with a `ArgumentError`" read wrong
    argument = replace(frozen, expected="ArgumentError", reproduction=frozen.reproduction.replace("Frozen", "Argument"))
    text = write_statement(context([argument]), BUG)["problem_statement"]
    assert "ends with an `ArgumentError` whose message" in text


def test_a_dict_key_spread_into_a_class_the_test_defines_is_no_argument_to_ask_for():
    spread = FailureEvidence(
        "tests/test_funcs.py::TestEvolve::test_dicts",
        kind="error",
        call="Cls1({'foo': 42, 'param2': 42})",
        error="TypeError: TestEvolve.test_dicts.<locals>.Cls2.__init__() got an unexpected keyword argument 'foo'",
        reproduction="import attr\n@attr.s\nclass Cls2:\n    param2 = attr.ib()\nobj = {'foo': 42, 'param2': 42}\n"
        "attr.evolve(Cls2(1), param2=obj)",
        function="attr.evolve",
    )
    fn = {"file": "attr/_funcs.py", "name": "evolve", "signature": "def evolve(inst, **changes)"}
    text = write_statement(context([spread], functions=[fn]), BUG)["problem_statement"]
    assert "`foo` argument" not in text and "There is no `foo`" not in text
    older = replace(spread, error="TypeError: __init__() got an unexpected keyword argument 'foo'")  # no qualname
    assert "`foo` argument" not in write_statement(context([older], functions=[fn]), BUG)["problem_statement"]
    # the same error from the library's own function stays a request, a spread dict's key too
    passed = replace(
        spread,
        error="TypeError: evolve() got an unexpected keyword argument 'recurse'",
        reproduction="import attr\n@attr.s\nclass C:\n    x = attr.ib()\nattr.evolve(C(1), x=2, **{'recurse': False})",
        call="attr.evolve(C(1), x=2, **{'recurse': False})",
    )
    text = write_statement(context([passed], functions=[fn]), BUG)["problem_statement"]
    assert "`recurse` argument" in text.splitlines()[0]
    # a keyword the test never passes: the project called its own function with it (loguru's
    # `filter_module(parent=...)` under `logger.info(...)`), a bug, not an argument to ask for
    internal = replace(
        spread,
        error="TypeError: filter_module() got an unexpected keyword argument 'parent'",
        reproduction="from loguru import logger\nlogger.add(print, filter='tests')\nlogger.info('ok')",
        call="logger.info('ok')",
    )
    text = write_statement(context([internal], functions=[fn]), BUG)["problem_statement"]
    assert "`parent` argument" not in text and "There is no `parent`" not in text, text
    assert "TypeError" in text, text


def test_a_check_on_a_bare_test_local_name_makes_no_step_without_the_tests_lines():
    failing = [{"id": "tests/test_functional.py::test_cmp", "assertion": "assert rv == attr.fields(C).x.cmp"}]
    ctx = {**context([]), "failing_tests": failing}
    text = write_statement(ctx, BUG)["problem_statement"]
    assert "`rv`" not in text and "Evaluate" not in text and "gives the correct result" not in text
    called = [{"id": "tests/test_money.py::test_fmt", "assertion": "assert fmt(1.5) == '1.50'"}]
    text = write_statement({**context([]), "failing_tests": called}, BUG)["problem_statement"]
    assert "`fmt(1.5)`" in text  # a check that names a call still makes the steps


def test_an_error_is_stated_without_the_tests_own_scopes_in_its_qualname():
    local = FailureEvidence(
        "tests/test_money.py::TestFmt::test_cls",
        kind="error",
        call="fmt(Amount(1))",
        error="TypeError: TestFmt.test_cls.<locals>.Amount.__format__() takes 1 positional argument",
        reproduction="from money import fmt\nclass Amount:\n    pass\nfmt(Amount(1))",
        function="fmt",
    )
    text = write_statement(context([local]), BUG)["problem_statement"]
    assert "<locals>" not in text and "TestFmt" not in text and "`TypeError: Amount.__format__()" in text


def test_a_membership_check_that_raised_is_stated_as_the_test_wrote_it():
    """click's progress bar: `'Custom None' in lines[0]` raised IndexError; the statement read
    "`lines[0] in 'Custom None'` raises", the comparison backwards."""
    raised = FailureEvidence(
        "tests/test_bar.py::test_bar",
        kind="compare",
        call="lines[0]",
        op="in",
        expected="'Custom None'",
        error="IndexError: list index out of range",
        observed="IndexError: list index out of range",
        reproduction="from bar import render\nlines = render()\nassert 'Custom None' in lines[0]",
        function="render",
    )
    text = write_statement(context([raised]), BUG)["problem_statement"]
    assert "`'Custom None' in render()[0]`" in text and "render()[0] in 'Custom None'" not in text


def test_a_long_required_text_is_given_whole_in_a_block_for_every_case():
    """A text too long to quote inline was stated by its first differing line only (and a case's
    long expected value listed as an "input"): a fix could match that line and miss the rest.
    Each case's whole text is given in a block under its call."""
    want = [f"row {i}\n" + "\n".join(f"cell {i}.{j} " + "x" * 20 for j in range(8)) for i in range(2)]
    cases = [
        replace(
            case(i, str(i), repr(w), repr(w.replace("cell", "cel"))),
            long=True,
            params={"amount": str(i), "expected": repr(w)},
        )
        for i, w in enumerate(want)
    ]
    text = write_statement(context(cases), BUG)["problem_statement"]
    for i, w in enumerate(want):
        assert f"`fmt({i})` should give exactly this text:\n\n```text\n{w}\n```" in text
    assert "in place of" not in text and "comparison at the end of the snippet" not in text
    assert "given in full below" in text
    assert "snippet" not in text.split("\n\n")[1]  # no python block is shown: none is announced


def test_a_long_required_value_is_given_right_under_its_own_snippet():
    """attrs: the whole value stood below a later snippet, so "given in full below" pointed past
    a snippet that was not its own."""
    want = "header\n" + "\n".join(f"line {j} " + "y" * 30 for j in range(8))
    first = FailureEvidence(
        "tests/test_r.py::test_report",
        kind="compare",
        call="report(rows)",
        check="assert report(rows) == expected",
        op="==",
        expected=repr(want),
        observed=repr(want.replace("line", "lin")),
        reproduction=f"from rep import report\nrows = [1, 2]\nassert report(rows) == {want!r}",
        function="report",
    )
    second = FailureEvidence(
        "tests/test_r.py::test_total",
        kind="compare",
        call="total(rows)",
        check="assert total(rows) == 3",
        op="==",
        expected="3",
        observed="2",
        reproduction="from rep import total\nrows = [1, 2]\nassert total(rows) == 3",
        function="total",
    )
    text = write_statement(context([first, second]), BUG)["problem_statement"]
    block = f"```text\n{want}\n```"
    assert text.count(block) == 1, text
    assert text.index("assert report(rows) ==") < text.index(block) < text.index("assert total(rows) == 3"), text


def test_inputs_that_reach_the_check_through_local_names_are_written_into_the_stated_call():
    """`text = 'ab ' * 3; result = render(text); assert result == ...`: prose that says `result`
    states no input; the call with its inputs written in does, without the snippet. An object
    built over several statements (`t.add_row(...)`) stays the snippet's name."""
    through_locals = FailureEvidence(
        "tests/test_t.py::test_rep",
        kind="compare",
        call="result",
        check="assert result == expected",
        op="==",
        expected="'AB AB AB'",
        observed="'ab ab ab'",
        reproduction="from tbl import render\ntext = 'ab ' * 3\nresult = render(text)\nexpected = 'AB AB AB'\n"
        "assert result == expected",
        function="render",
    )
    text = write_statement(context([through_locals]), BUG)["problem_statement"]
    assert "`render('ab ' * 3)` returns `'ab ab ab'` where `'AB AB AB'` is expected" in text.splitlines()[0]
    assert "`result`" not in text
    built = replace(
        through_locals,
        call="t.render()",
        check="assert t.render() == 'AB'",
        reproduction="from tbl import Table\nt = Table()\nt.add_row('a', 'b')\nassert t.render() == 'AB'",
    )
    assert "`t.render()`" in write_statement(context([built]), BUG)["problem_statement"]
    named_want = replace(
        through_locals,
        check="assert result == want",
        expected="want",
        reproduction="from tbl import Row, render\nwant = Row('AB')\nresult = render('ab')\nassert result == want",
    )
    text = write_statement(context([named_want]), BUG)["problem_statement"]
    assert "`Row('AB')`" in text and "`want`" not in text


def test_a_failing_pass_of_a_loop_over_a_case_table_is_stated_with_its_input():
    row = FailureEvidence(
        "tests/test_t.py::test_cases",
        kind="compare",
        call="render(raw)",
        check="assert render(raw) == want",
        op="==",
        expected="'B'",
        observed="'b'",
        reproduction="from tbl import render\nCASES = [('a', 'A'), ('b', 'B')]\nfor raw, want in CASES:\n"
        "    assert render(raw) == want",
        loop_value="raw, want = 'b', 'B'",
        function="render",
    )
    text = write_statement(context([row]), BUG)["problem_statement"]
    assert "`render('b')` gives `'b'`" in text and "`render(raw)`" not in text


def test_a_value_the_runner_cut_is_never_quoted():
    cut = FailureEvidence(
        "tests/test_t.py::test_long",
        kind="compare",
        call="render('word ' * 100)",
        check="assert render(text) == 'WORD ' * 100",
        op="==",
        expected="'WORD ' * 100",
        observed="'word word ...[295 chars]...word '",
        reproduction="from tbl import render\ntext = 'word ' * 100\nassert render(text) == 'WORD ' * 100",
        function="render",
    )
    text = write_statement(context([cut]), BUG)["problem_statement"]
    assert "chars]" not in text and "```python\nfrom tbl import render\ntext = 'word ' * 100" in text


def test_a_loop_pass_or_a_whole_value_the_runner_cut_is_not_stated_as_a_value():
    cut = "Attribute(name='auto', default=NOTHING, metadata=mappingp ...  converter=None, alias='auto')"
    looped = FailureEvidence(
        "tests/test_t.py::test_loop",
        kind="compare",
        call="a.flag",
        check="assert a.flag == b.flag",
        op="==",
        expected="True",
        observed="False",
        reproduction="from tbl import rows\nfor a in rows():\n    b = a\n    assert a.flag == True",
        loop_value=f"a = {cut}",
        function="rows",
    )
    text = write_statement(context([looped]), BUG)["problem_statement"]
    assert "mappingp" not in text and "pass of the loop" not in text
    long_cut = "'" + "x" * 150 + " ... " + "y" * 80 + "'"
    whole = replace(looped, call="render()", expected=long_cut, observed="''", loop_value=None)
    assert "x" * 150 not in write_statement(context([whole]), BUG)["problem_statement"]
    # the report plugin's cut of a long list (reprlib's "..." before the closing bracket)
    long_list = "[" + ", ".join(f"'item-{i:03}'" for i in range(12)) + ", ...]"
    listed = replace(whole, expected=long_list)
    assert "item-011" not in write_statement(context([listed]), BUG)["problem_statement"]


def test_a_body_sentence_naming_what_only_the_fix_has_stays_out():
    failure = case(0, "1.5", "'1.50'", "'1.5'")
    ctx = context([failure], added=["    return CentPadder(amount).render()", "    raise TypeError(amount)"])
    ctx["commit_body"] = (
        "The CentPadder keeps the cents of every amount in the report.\n\n"
        "Amounts with a single decimal lose their trailing zero in every report and raise TypeError."
    )
    text = write_statement(ctx, BUG)["problem_statement"]
    # a builtin name (`TypeError`) is a symptom the fix also names, not the fix's own
    assert "The CentPadder keeps the cents" not in text and "lose their trailing zero" in text


def test_a_lambda_and_a_display_of_calls_are_written_into_the_stated_call():
    """`actual = list(split(..., lambda c: bool(c)))`: the lambda reads only its own argument,
    so the call is stated whole; so is a list of calls of imported names on the expected side."""
    split = FailureEvidence(
        "tests/test_t.py::test_split",
        kind="compare",
        call="actual",
        check="assert actual == expected",
        op="==",
        expected="expected",
        observed="[[]]",
        reproduction="from more import Part, split\nactual = list(split([], lambda c: bool(c)))\n"
        "expected = [Part(key='a'), Part(key='b')]\nassert actual == expected",
        function="split",
    )
    text = write_statement(context([split]), BUG)["problem_statement"]
    assert "`list(split([], lambda c: bool(c)))` gives `[[]]`" in text
    assert "[Part(key='a'), Part(key='b')]`" in text
    assert "`actual`" not in text and "`expected`" not in text
    shadowed = replace(
        split, reproduction="from more import split\nc = 3\nactual = split([], lambda c: c)\nassert actual == []"
    )
    assert (
        "`split([], lambda c: c)`"
        in write_statement(context([replace(shadowed, expected="[]")]), BUG)["problem_statement"]
    )


def test_a_local_that_cannot_be_written_in_is_never_named_as_if_it_were_an_api():
    """A value built over several statements stays in the snippet: the prose speaks of the
    list the snippet builds and of the comparison it ends with, never of `actual` / `expected`."""
    built = FailureEvidence(
        "tests/test_t.py::test_split",
        kind="compare",
        call="actual",
        check="assert actual == expected",
        op="==",
        expected="expected",
        observed="[[]]",
        reproduction="from more import split\nactual = []\nfor c in 'ab':\n    actual.append(split(c))\n"
        "expected = ['a']\nexpected.append('b')\nassert actual == expected",
        function="split",
    )
    text = write_statement(context([built]), BUG)["problem_statement"]
    assert "the list the snippet builds gives `[[]]`" in text.lower()
    assert "the comparison at the end of the snippet should hold" in text
    assert "`actual`" not in text and "`expected`" not in text


def test_a_check_of_the_caught_exceptions_class_says_which_class_is_raised_and_which_should_be():
    """tenacity: `with pytest.raises(Exception) as exc_ctx: f()` then `assert exc_ctx.type is
    ValueError`: the statement said the call "gives a `Exception` whose details are `<class
    'tenacity.RetryError'>`, but it should raise `Exception`", which names neither class."""
    typed = FailureEvidence(
        "tests/test_t.py::test_cls",
        kind="compare",
        call="exc_ctx.type",
        check="assert exc_ctx.type is ValueError, 'Should remap to specific exception type'",
        op="is",
        expected="ValueError",
        observed="<class 'tenacity.RetryError'>",
        reproduction="import pytest\nfrom pkg import f\nwith pytest.raises(Exception) as exc_ctx:\n    f(2)\n"
        "assert exc_ctx.type is ValueError, 'Should remap to specific exception type'",
        function="f",
        raised="Exception",
        raised_by="f(2)",
    )
    text = write_statement(context([typed]), BUG)["problem_statement"]
    assert text.splitlines()[0] == "`f(2)` raises `RetryError` instead of `ValueError`"
    assert "`f(2)` raises a `RetryError`, but it should raise a `ValueError`" in text, text
    assert not re.search(r"raises `RetryError`", text.split("\n", 1)[1])  # no exception escapes the snippet
    assert "gives a `Exception`" not in text and "should raise `Exception`" not in text


def test_an_ordering_that_raised_is_stated_as_the_test_wrote_it():
    """boltons: `assert cab <= complement('a')` raised inside `cab.__le__`; the evidence reads it
    from the right (`complement('a') >= cab`), and the statement said that mirrored comparison
    raises, which runs `__ge__` and holds: the reproduction check dropped the claim, and the
    title blamed `complement('a')`, which does not raise."""
    f = FailureEvidence(
        "tests/test_setutils.py::test_complement_set",
        kind="compare",
        call="complement('a')",
        check="assert cab <= complement('a')",
        op=">=",
        expected="cab",
        checked_side="right",
        error="AttributeError: 'set' object has no attribute 'issupserset'",
        observed="AttributeError: 'set' object has no attribute 'issupserset'",
        reproduction="from pkg import complement\ncab = complement('ab')\nassert cab <= complement('a')",
        function="complement",
    )
    text = write_statement(context([f]), BUG)["problem_statement"]
    assert text.splitlines()[0].startswith("`complement('ab') <= complement('a')` raises `AttributeError`"), text
    assert ">=" not in text


def test_a_message_checked_after_the_raising_call_is_stated_with_that_call():
    """`with pytest.raises(E) as e: call()` then a check of `e.value`: the call should raise `E`
    with that message; `e.value.args` names nothing a solver can find."""
    message = FailureEvidence(
        "tests/test_t.py::test_bad",
        kind="compare",
        call="str(e.value)",
        check="assert str(e.value) == 'bad input: x y'",
        op="==",
        expected="'bad input: x y'",
        observed="'bad'",
        reproduction="from pkg import parse\nimport pytest\ntext = 'x y'\nwith pytest.raises(ValueError) as e:\n"
        "    parse(text)\nassert str(e.value) == 'bad input: x y'",
        function="parse",
        raised="ValueError",
        raised_by="parse(text)",
    )
    text = write_statement(context([message]), BUG)["problem_statement"]
    assert "`parse('x y')` raises `ValueError` with the wrong message" in text.splitlines()[0]
    assert "`parse('x y')` gives a `ValueError` whose message is `'bad'`" in text
    assert "it should raise `ValueError` with the message `'bad input: x y'`" in text
    assert "`str(e.value)`" not in text
    arguments = replace(
        message,
        call="e.value.args",
        expected="('bad a',)",
        observed="('bad',)",
        test_id="t.py::test_args",
        reproduction="from pkg import parse\nimport pytest\nwith pytest.raises(ValueError) as e:\n    parse('a')\n"
        "assert e.value.args == ('bad a',)",
        raised_by="parse('a')",
    )
    contains = replace(
        message,
        op="in",
        expected="'bad'",
        observed="'oops'",
        test_id="t.py::test_in",
        reproduction="from pkg import parse\nimport pytest\nwith pytest.raises(ValueError) as e:\n    parse('b')\n"
        "assert 'bad' in str(e.value)",
        raised_by="parse('b')",
    )
    text = write_statement(context([message, arguments, contains]), BUG)["problem_statement"]
    assert "with the arguments `('bad a',)`" in text and "with a message that contains `'bad'`" in text
    assert "`e.value.args`" not in text


def test_a_required_value_that_is_a_parameter_is_stated_by_its_value():
    """`assert result.output == expect` with `expect` a parametrize argument: the case's value,
    never the argument's name."""
    param = FailureEvidence(
        "tests/test_t.py::test_out[a]",
        kind="compare",
        call="render('a')",
        check="assert render('a') == expect",
        op="==",
        expected="expect",
        params={"expect": "'A!'"},
        reproduction="from tbl import render\nexpect = 'A' + '!'\nassert render('a') == expect",
        function="render",
    )
    text = write_statement(context([param]), BUG)["problem_statement"]
    assert "it should be `'A!'`" in text and "`expect`" not in text


def test_a_test_that_describes_itself_states_its_requirement_where_the_prose_names_no_call():
    """A value the snippet builds over several lines names no call in prose: the test's own
    docstring (`intent`) says what it requires, in a sentence that needs no block; it changes
    no other choice of the writer, and a statement that names the call does without it."""
    from tasks.evidence.python import test_intent

    lines = ["def test_old(frozen):", '    """', "    Old pickles still load.", "", "    More.", '    """', "    x = 1"]
    assert test_intent(lines) == "Old pickles still load."
    assert test_intent(["def test_a():", '    """Regression test for #12."""']) == ""
    assert test_intent(["def test_a():", "    assert f() == 1"]) == ""
    # bitstring: a caveat about the test is no requirement of it
    note = "    # Note that e5m2mxfp in saturate mode will not pass this test, as inf -> inf -> max_value."
    assert test_intent(["def test_roundtrips(fmt):", note]) == ""
    assert test_intent(["def test_a():", '    """TODO: also check the empty case of this parser."""']) == ""
    built = FailureEvidence(
        "tests/test_t.py::test_old",
        kind="compare",
        call="loaded",
        check="assert loaded == a",
        op="==",
        expected="a",
        error="AttributeError: 'A' object has no attribute 'x'",
        observed="AttributeError: 'A' object has no attribute 'x'",
        reproduction="import pickle\nfrom pkg import A\na = A(1)\ndata = b'\\x80' + a.__module__.encode()\n"
        "loaded = pickle.loads(data)\nloaded.restore()\nassert loaded == a",
    )
    plain = context([built])
    described = copy.deepcopy(plain)
    described["failing_tests"][0]["intent"] = "Old pickles still load."
    text, before = (write_statement(c, BUG)["problem_statement"] for c in (described, plain))
    sentence = (
        'What the failing test requires, in its own words: "Old pickles still load." On the current code it'
        " fails with `AttributeError: 'A' object has no attribute 'x'`."
    )
    assert sentence in text and sentence not in before
    assert text.replace(f" {sentence}", "") == before
    cut = replace(built, error="RetryError: RetryError[<Future at … state=finished>]")
    described["failures"] = [cut.to_dict()]
    assert "fails with" not in write_statement(described, BUG)["problem_statement"]  # a cut value is never quoted
    named = FailureEvidence(
        "tests/test_t.py::test_old", kind="compare", call="f(1)", op="==", expected="2", observed="1"
    )
    with_call = context([named])
    with_call["failing_tests"][0]["intent"] = "Old pickles still load."
    assert "in its own words" not in write_statement(with_call, BUG)["problem_statement"]
    # a docstring that names what only the fix adds tells the fix, as a commit body may
    described["failures"] = [built.to_dict()]
    described["added_lines"] = ["    return LegacyUnpickler(data).load()"]
    described["failing_tests"][0]["intent"] = "Old pickles load through the LegacyUnpickler."
    assert "through the LegacyUnpickler" not in write_statement(described, BUG)["problem_statement"]


def test_a_check_in_a_loop_over_literal_values_is_stated_with_all_of_them():
    """`for t in ((1, 0), (1,)): assert v < t`: the failing pass is only the first that fails;
    the test checks every value, so the statement names them, and the loop's variable stays in
    the stated comparison (it was cut to "`Version(0, 4) < `")."""
    raising = FailureEvidence(
        "tests/test_v.py::test_tuples",
        kind="compare",
        call="v",
        check="assert v < t",
        op="<",
        expected="t",
        observed="TypeError: '<' not supported between instances of 'Version' and 'tuple'",
        error="TypeError: '<' not supported between instances of 'Version' and 'tuple'",
        reproduction="from ver import Version\nv = Version(0, 4)\nfor t in ((1, 0), (1,)):\n    assert v < t",
        function="Version",
    )
    text = write_statement(context([raising]), BUG)["problem_statement"]
    assert "`Version(0, 4) < t` raises `TypeError" in text
    assert "The check must hold for each `t` in `((1, 0), (1,))`." in text
    assert "Expected behaviour: `Version(0, 4) < t` holds." in text
    assert "Actual behaviour: `Version(0, 4) < t` raises `TypeError" in text


def test_a_check_in_a_loop_over_built_values_states_the_call_and_no_pass_repr():
    """`for k in [key(), key('a')]: p = load(dump(k)); assert len(p.__dict__) == 0`: the stated
    call is what is computed from the loop's variable, the loop's calls are listed, and the
    failing pass's repr (`k = ()`, a key object that prints like a tuple) is no input."""
    built = FailureEvidence(
        "tests/test_k.py::test_pickle",
        kind="compare",
        call="len(p.__dict__)",
        check="assert len(p.__dict__) == 0",
        op="==",
        expected="0",
        observed="1",
        loop_value="k = ()",
        reproduction="from keys import key, load, dump\nfor k in [key(), key('a')]:\n    p = load(dump(k))\n"
        "    assert len(p.__dict__) == 0",
        function="key",
    )
    text = write_statement(context([built]), BUG)["problem_statement"]
    assert "`len(load(dump(k)).__dict__)` gives `1`" in text
    assert "for each `k` in `[key(), key('a')]`" in text and "`k = ()`" not in text
    plain = replace(
        built,
        loop_value="k = 'a'",
        reproduction="from keys import load, dump\nfor k in ['', 'a']:\n    p = load(dump(k))\n"
        "    assert len(p.__dict__) == 0",
    )
    text = write_statement(context([plain]), BUG)["problem_statement"]
    assert "`len(load(dump('a')).__dict__)`" in text and "pass of the loop where `k = 'a'`" in text


def test_a_mismatch_pytest_diffed_item_by_item_quotes_the_items_it_printed():
    """pytest cut both lists (`[B(...al='a')] == [B(...al='b')]`), then printed the first
    differing item and the missing one: the statement quotes them, never "gives a different value"."""
    cut = FailureEvidence(
        "tests/test_p.py::test_parse[a=\\nb=c-expected0]",
        kind="compare",
        call="list(parse('a=\\nb=c'))",
        check="assert list(result) == expected",
        op="==",
        checked_side="left",  # the producer's word: the left side is the call
        expected="[B(key='a', value=''), B(key='b', value='c')]",
        observed="",
        params={"expected": "[B(key='a', value=''), B(key='b', value='c')]"},  # the check's `expected`
        message="assert [B(key=...e='b=c')] == [B(key=...value='c')]\n  \n"
        "  At index 0 diff: B(key='a', value='b=c') != B(key='a', value='')\n"
        "  Right contains one more item: B(key='b', value='c')\n  Use -v to get more diff",
        reproduction="from p import B, parse\nresult = parse('a=\\nb=c')\nassert list(result) == "
        "[B(key='a', value=''), B(key='b', value='c')]",
        function="parse",
    )
    text = write_statement(context([cut]), BUG)["problem_statement"]
    assert (
        "gives a sequence whose item 0 is `B(key='a', value='b=c')` where `B(key='a', value='')` is expected,"
        " and lacks the item `B(key='b', value='c')`" in text
    )
    assert "different value" not in text
    extra = replace(cut, message="assert [1, 2, 3] == [1, 2]\n  Left contains one more item: 3")
    assert "gives a sequence that has an extra item `3`" in write_statement(context([extra]), BUG)["problem_statement"]
    # the required value on the left (`assert ['x', 'y'] == names(C)`): pytest's "Left" is what is required
    required_left = replace(
        extra,
        call="names(C)",
        check="assert ['x', 'y'] == names(C)",
        checked_side="right",
        expected="['x', 'y']",
        message="assert ['x', 'y'] == ['x']\n  Left contains one more item: 'y'",
        reproduction="from p import C, names\nassert ['x', 'y'] == names(C)",
    )
    text = write_statement(context([required_left]), BUG)["problem_statement"]
    assert "gives a sequence that lacks the item `'y'`" in text and "extra item" not in text
    unknown = replace(  # the producer did not say which side is checked
        required_left,
        checked_side=None,
        check="assert want == names(C)",
        reproduction="from p import C, names, want\nassert want == names(C)",
    )
    assert "gives a sequence" not in write_statement(context([unknown]), BUG)["problem_statement"]


def test_a_case_that_runs_the_same_snippet_is_not_listed_as_another_input():
    """A test that takes a fixture's setting and never reads it fails twice with one snippet: a
    second line "with input `True`: the snippet raises ..." names no input a solver can use."""
    lead = FailureEvidence(
        "tests/test_s.py::test_unpickle[False]",
        kind="compare",
        call="loads(data)",
        check="assert loads(data) == A(1)",
        op="==",
        expected="A(1)",
        observed="AttributeError: 'A' object has no attribute 'x'",
        error="AttributeError: 'A' object has no attribute 'x'",
        params={"frozen": "False"},
        reproduction="from p import A, loads\ndata = b'A1'\nassert loads(data) == A(1)",
        function="loads",
    )
    other = replace(lead, test_id="tests/test_s.py::test_unpickle[True]", params={"frozen": "True"})
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "`True`" not in text and "more input" not in text
    differs = replace(other, reproduction="from p import A, loads\ndata = b'A2'\nassert loads(data) == A(1)")
    assert "`True`" in write_statement(context([lead, differs]), BUG)["problem_statement"]


def memo_case(reproduction: str, expected: str = "(0, 0, 128, 0)") -> FailureEvidence:
    return FailureEvidence(
        "tests/test_memo.py::test_user_function",
        kind="compare",
        call="cached.info()",
        check=f"assert cached.info() == {expected}",
        op="==",
        expected=expected,
        observed="AttributeError: 'function' object has no attribute 'info'",
        error="AttributeError: 'function' object has no attribute 'info'",
        reproduction=reproduction,
    )


MEMO = {"file": "memo.py", "name": "memo", "signature": "def memo(maxsize=128, typed=False)"}


def test_a_function_passed_where_a_plain_parameter_goes_is_asked_for_as_a_bare_decorator():
    direct = memo_case("from memo import memo\ncached = memo(lambda n: n)\nassert cached.info() == (0, 0, 128, 0)")
    text = write_statement(context([direct], functions=[MEMO]), BUG)["problem_statement"]
    title = text.splitlines()[0]
    assert "`@memo`" in title and "without parentheses" in title and "raises" not in title
    assert "`memo(lambda n: n)`" in text and "default `maxsize` of `128`" in text
    assert "should be `(0, 0, 128, 0)`" in text


def test_a_default_the_tests_never_state_is_not_given():
    direct = memo_case("from memo import memo\ncached = memo(lambda n: n)\nassert cached.info() == (0, 0)", "(0, 0)")
    text = write_statement(context([direct], functions=[MEMO]), BUG)["problem_statement"]
    assert "`@memo`" in text.splitlines()[0] and "128" not in text


def test_a_function_passed_to_a_parameter_that_takes_callables_stays_a_bug_report():
    keyed = {"file": "memo.py", "name": "memo", "signature": "def memo(key=None)"}
    direct = memo_case("from memo import memo\ncached = memo(lambda n: n)\nassert cached.info() == (0, 0, 128, 0)")
    text = write_statement(context([direct], functions=[keyed]), BUG)["problem_statement"]
    assert "without parentheses" not in text and "bare decorator" not in text


def test_a_builtin_type_the_tests_require_is_stated_with_the_type_the_run_saw():
    coerced = FailureEvidence(
        "tests/test_version.py::test_strings",
        kind="truthy",
        call="isinstance(v.major, int)",
        check="assert isinstance(v.major, int)",
        expected="true",
        observed="False (where False = isinstance('1', int))",
        reproduction="from version import Version\nv = Version('1', '2')\nassert isinstance(v.major, int)",
        function="Version",
    )
    text = write_statement(context([coerced]), BUG)["problem_statement"]
    assert "should be an `int`; on the current code it is a `str`." in text
    wanted_text = replace(
        coerced,
        call="isinstance(v.major, str)",
        check="assert isinstance(v.major, str)",
        observed="False (where False = isinstance(1, str))",
        reproduction="from version import Version\nv = Version(1, 2)\nassert isinstance(v.major, str)",
    )
    text = write_statement(context([wanted_text]), BUG)["problem_statement"]
    assert "should be a `str`; on the current code it is an `int`." in text


def test_an_exact_type_comes_from_the_later_check_that_names_it():
    exact = FailureEvidence(
        "tests/test_events.py::test_enum_code",
        kind="compare",
        call="type(r.code)",
        check="assert type(r.code) is not type(Status.OK)",
        op="is not",
        expected="type(Status.OK)",
        message="assert <enum 'Status'> is not <enum 'Status'>",
        rest="assert type(r.code) is int",
        reproduction="from events import Response, Status\nr = Response(code=Status.OK)\n"
        "assert type(r.code) is not type(Status.OK)",
        function="Response",
    )
    text = write_statement(context([exact]), BUG)["problem_statement"]
    assert (
        "`Response(code=Status.OK).code` should be of type `int` itself, not of a subclass;"
        " on the current code it is a `Status`." in text
    )
    other = replace(exact, rest="assert r.code == 200")  # no builtin type named: the plain outcome
    assert "itself" not in write_statement(context([other]), BUG)["problem_statement"]


def test_a_non_finite_float_of_the_runner_is_written_the_way_python_builds_it():
    """pytest writes `float('nan')` as `nan` and `-inf` as `-inf`: in a span of a value those are
    names no reader's Python binds; the test's own code (`math.inf`) and strings stay as written."""
    lead = FailureEvidence(
        "tests/test_order.py::test_order[0]",
        kind="compare",
        call="order(given)",
        check="assert order(given) == expected",
        op="==",
        expected="[None, nan, -inf, 'inf']",
        observed="[-inf, None, nan, 'inf']",
        params={"alg": "0"},
        reproduction="import math\nfrom acme import order\ngiven = [math.inf, None]\nassert order(given) == [None]",
        function="order",
    )
    other = replace(lead, test_id="tests/test_order.py::test_order[1]", params={"alg": "-inf"})
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "`[None, float('nan'), float('-inf'), 'inf']`" in text
    assert "given = [math.inf, None]" in text
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", " ", text, flags=re.S))
    bare = [s for s in spans if re.search(r"(?<![.'\w])(?:inf|nan)\b(?!')", s)]
    assert spans and not bare, bare
    # a project's own repr (an interval `[-inf,+inf]`: Python writes no `+inf`, and ", " between
    # items) keeps its text: its `inf` may be the project's object
    interval = replace(lead, expected="[-inf,+inf]", observed="[-inf,-inf]", params=None)
    text = write_statement(context([interval]), BUG)["problem_statement"]
    assert "`[-inf,+inf]`" in text and "float(" not in text


def _parsing_case(flag: str, passed: list[str]) -> FailureEvidence:
    code = (
        f"from acme import parse\nflag = {flag}\ntext = '12:00'\nresult = parse(text, strict=flag)\n"
        "text = '12:00:00.123+01'\nresult = parse(text, strict=flag)"
    )
    return FailureEvidence(
        f"tests/test_parse.py::test_parse[{flag}]",
        kind="error",
        call="parse(text, strict=flag)",
        check="result = parse(text, strict=flag)",
        observed="ValueError: unconverted data remains: +01",
        error="ValueError: unconverted data remains: +01",
        passed_checks=passed,
        then="assert type(result) == Time",
        params={"flag": flag},
        reproduction=code,
        function="parse",
    )


def test_another_case_names_the_line_binding_its_value_and_a_check_that_passed_is_not_required_again():
    """A case whose value the snippet binds on a line of its own is stated by that line (a bare
    `True` in place of `False` leaves the reader to find which `False`); the check after the
    raising line is not quoted when the same check passed earlier in the test (it reads as one
    the current code already meets)."""
    passed = ["assert type(result) == Time"]
    text = write_statement(context([_parsing_case("False", passed), _parsing_case("True", passed)]), BUG)[
        "problem_statement"
    ]
    assert "`flag = True` in place of `flag = False`" in text
    assert "assert type(result) == Time" not in text
    # a check that comes only after the raising line is still required
    text = write_statement(context([_parsing_case("False", []), _parsing_case("True", [])]), BUG)["problem_statement"]
    assert "`assert type(result) == Time` should hold" in text


def test_a_check_helpers_failure_message_is_quoted_as_prose_not_as_code():
    """`False is not true` (a TestCase's assertTrue) in a code span read as code using a name
    `true` that nothing defines."""
    helper = FailureEvidence(
        "tests/test_money.py::T::test_index",
        kind="helper",
        call="istrue(\"a['x'] == 1\")",
        observed="False is not true",
        reproduction="from money import run\ndef istrue(expr):\n    assert run(expr)\nistrue(\"a['x'] == 1\")",
        function="run",
    )
    text = write_statement(context([helper]), BUG)["problem_statement"]
    assert 'fails with the message "False is not true"' in text and "`False is not true`" not in text


def _table_case(path: str, first: str, note: str = "") -> FailureEvidence:
    """A case of a table-driven test: its whole `Case(...)` is one parameter, bound on one line."""
    value = f"Case(path={path!r}, want=[{path!r}]{note})"
    return FailureEvidence(
        f"tests/test_lex.py::test_lex[{path}]",
        kind="compare",
        call="tokens",
        check="assert tokens == case.want",
        op="==",
        expected="case.want",
        observed=f"[{first!r}, {path[len(first) :]!r}]",
        params={"case": value},
        reproduction=f"from lexer import Case, lex\ncase = {value}\ntokens = lex(case.path)\n"
        "assert tokens == case.want",
        function="lex",
    )


def test_cases_that_replace_one_setup_line_name_that_line_once_and_then_only_their_own():
    """Every other case differs from the lead in the one line binding its `Case(...)`: the line
    it stands in for is said once above the list, not repeated on every line (a long setup line
    per case pushed the cases past the statement's length and they went unstated)."""
    words = {"anderson": "and", "order": "or", "nullable": "null", "trueblue": "true", "falsehood": "false"}
    note = ", description='" + "a name that starts with a keyword is one bare property; " * 3 + "'"
    cases = [_table_case(path, first, note) for path, first in words.items()]
    text = write_statement(context(cases), BUG)["problem_statement"]
    lead_line = f"case = Case(path='anderson', want=['anderson']{note})"
    assert text.count(lead_line) == 2, text  # in the snippet, and once above the list
    assert f"in place of `{lead_line}`" in text
    for path in list(words)[1:]:
        assert f"- `case = Case(path={path!r}, want=[{path!r}]{note})`:" in text, text
    assert "\n- with `case = " not in text
    # short cases are stated by their own calls: no line is said to be replaced
    text = write_statement(context([_table_case(path, first) for path, first in words.items()]), BUG)
    assert "- `lex(Case(path='order', want=['order']).path)` gives" in text["problem_statement"]
    assert "in place of" not in text["problem_statement"]


def test_a_test_failing_like_an_earlier_one_comes_after_the_tests_that_fail_otherwise():
    """A sync and an async variant of one test fail at the same call with the same error: when
    the statement has room for two snippets, the second shows the other failure, not a repeat."""
    from llm.offline.writer import distinct_failures

    def failing(test: str, call: str, error: str) -> FailureEvidence:
        return FailureEvidence(
            f"tests/test_find.py::{test}",
            kind="error",
            call=call,
            check=call,
            observed=error,
            error=error,
            reproduction=f"from jsonpath import compile\n{call}",
            function="compile",
        )

    sync, lexed = (
        failing("test_find", "compile('andy')", "SyntaxError: and"),
        failing("test_lex", "lex('andy')", "AssertionError"),
    )
    async_variant = failing("test_find_async", "compile('andy')", "SyntaxError: and")
    order = [g[0].test_id.split("::")[1] for g in distinct_failures([sync, async_variant, lexed])]
    assert order == ["test_find", "test_lex", "test_find_async"]


HELPER = (
    "from money import fmt\n"
    "def check(amount, wanted):\n"
    "    got = fmt(amount)\n"
    "    assert got == wanted\n"
    "    return got\n"
    "run = check"
)


def helper_test(name: str, amount: str, wanted: str, extra: str = "") -> FailureEvidence:
    return FailureEvidence(
        f"tests/test_money.py::{name}",
        kind="compare",
        call=f"fmt({amount})",
        check="assert got == wanted",
        op="==",
        expected=wanted,
        observed=f"'{amount}'",
        reproduction=f"{HELPER}\n{extra}run({amount}, {wanted})",
        function="fmt",
    )


def test_a_snippet_on_the_setup_of_the_one_above_shows_only_what_follows_it():
    first, second = helper_test("test_a", "1", "'1.00'"), helper_test("test_b", "2", "'2.00'", "fmt.cache = {}\n")
    text = write_statement(context([first, second]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 1  # the helper is shown once
    assert f"{first.reproduction}\n```" in text
    shown = "```python\nfmt.cache = {}\nrun(2, '2.00')\n```"
    assert shown in text
    heading = text[: text.index(shown)].rstrip().rsplit("\n\n", 1)[-1]
    assert "the same setup as above" in heading and "`run = check`" in heading


def test_a_snippet_lacking_a_setup_line_of_the_one_above_or_importing_more_still_shares_its_setup():
    """starlette: the first snippet also imports a mock and makes a spy, the next does not; both
    build the same 20-line app setup, which was shown twice."""
    spying = HELPER.replace("from money import fmt\n", "from money import fmt\nfrom money import rates\nrates.load()\n")
    first = replace(helper_test("test_a", "1", "'1.00'"), reproduction=f"{spying}\nrun(1, '1.00')")
    second = helper_test("test_b", "decimal.Decimal(2)", "'2.00'")
    second = replace(second, reproduction="import decimal\n" + second.reproduction, rest="assert fmt(3) == '3.00'")
    third = helper_test("test_c", "3", "'3.00'")
    text = write_statement(context([first, second, third]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 1
    assert "```python\nimport decimal\nrun(decimal.Decimal(2), '2.00')\n```" in text  # its own import, then its end
    assert "```python\nrun(3, '3.00')\n```" in text  # on the same setup, though a rest section came between
    assert text.count("the same setup as above") == 2


LONG_HELPER = (
    "def check(amount, wanted):\n"
    "    got = fmt(amount)\n"
    "    assert isinstance(got, str)\n"
    "    assert got == wanted\n"
    "    assert fmt(got) == got\n"
    "    return got\n"
)


def test_a_helper_an_earlier_snippet_shows_word_for_word_is_shown_once_and_named_in_the_heading():
    """bigtree e305dc6c: 15 tests of one module each defined its 20-line check helpers; with each
    snippet showing them again, 4 tests did not fit the statement and went untold."""
    first = replace(
        helper_test("test_a", "1", "'1.00'"), reproduction=f"from money import fmt\n{LONG_HELPER}check(1, '1.00')"
    )
    own_setup = f"from money import fmt, rates\n{LONG_HELPER}rates.load()\ncheck(2, '2.00')"
    second = replace(helper_test("test_b", "2", "'2.00'"), reproduction=own_setup)
    text = write_statement(context([first, second]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 1
    shown = "```python\nfrom money import fmt, rates\nrates.load()\ncheck(2, '2.00')\n```"
    assert shown in text
    heading = text[: text.index(shown)].rstrip().rsplit("\n\n", 1)[-1]
    assert heading.endswith(", with `check` as defined above:")
    # click 1a4d8c1b: a helper after a line that sets what its decorator reads is shown where it is
    set_first = replace(second, reproduction=own_setup.replace(LONG_HELPER, "scale = 2\n" + LONG_HELPER))
    text = write_statement(context([first, set_first]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 2 and "as defined above" not in text
    # a helper written otherwise is the snippet's own: it is shown where it is used
    other = replace(second, reproduction=own_setup.replace("    return got\n", "    return got.strip()\n"))
    text = write_statement(context([first, other]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 2 and "as defined above" not in text


def test_a_short_shared_setup_or_one_the_rest_reads_differently_is_shown_again():
    short = [replace(case(0, f"{i}", f"'{i}.00'", f"'{i}'"), test_id=f"t.py::test_{i}", params=None) for i in (1, 2)]
    text = write_statement(context(short), BUG)["problem_statement"]
    assert text.count("from money import fmt") == 2 and "the same setup as above" not in text
    # the first binds `rate` after the shared lines; the second reads `rate` without binding it the same way
    first = helper_test("test_a", "1", "'1.00'", "rate = 2\n")
    second = replace(helper_test("test_b", "2", "rate", "rate = 3\n"), expected="rate")
    second = replace(second, reproduction=second.reproduction.replace("rate = 3\n", "") + "\nprint(rate)")
    text = write_statement(context([first, second]), BUG)["problem_statement"]
    assert text.count("def check(amount, wanted):") == 2


def test_pytests_line_is_quoted_only_when_a_reader_can_run_it():
    """arrow: pytest reported `assert tzutc() == tzfile('/usr/share/zoneinfo/UTC')`, the values'
    reprs, where the snippet binds neither name: quoted, it reads as code that cannot run."""
    runnable = case(0, "1.5", "'1.50'", "'1.5'")
    runnable = replace(runnable, message="assert '1.5' == '1.50'")
    text = write_statement(context([runnable]), BUG)["problem_statement"]
    assert "pytest reports `assert '1.5' == '1.50'`" in text
    reprs = replace(runnable, message="assert tzutc() == tzfile('/usr/share/zoneinfo/UTC')")
    text = write_statement(context([reprs]), BUG)["problem_statement"]
    assert "tzutc" not in text and "pytest reports" not in text


def test_a_test_that_gives_up_with_a_message_is_stated_as_a_snippet_that_must_run_to_its_end():
    """asgiref: a test that waits for a child process and calls `pytest.fail(msg)` when it hangs
    was stated as "`raise AssertionError('...')` gives `...`; it should be true"."""
    gives_up = FailureEvidence(
        "tests/test_sync.py::test_exit",
        kind="truthy",
        call="raise AssertionError('event loop deadlocked')",
        check='pytest.fail("event loop deadlocked")',
        observed="event loop deadlocked",
        reproduction="import money\nif money.hangs():\n    raise AssertionError('event loop deadlocked')",
    )
    text = write_statement(context([gives_up]), BUG)["problem_statement"]
    assert 'fails with the message "event loop deadlocked"; it should run to its end' in text
    assert "should be true" not in text and "Expected behaviour: The snippet runs to its end." in text


def test_a_checked_local_is_named_by_the_call_it_holds_though_the_call_reads_the_snippets_names():
    """pyfakefs: `result = f0.seek(3)` inside a `with` was "the value the snippet builds", and the
    title named `result`."""
    checked = FailureEvidence(
        "tests/t.py::test_seek",
        kind="compare",
        call="result",
        op="==",
        checked_side="right",
        expected="3",
        observed="None",
        reproduction="with open('x') as f0:\n    result = f0.seek(3)\n    assert 3 == result",
        function="seek",
        check="assert 3 == result",
    )
    text = write_statement(context([checked]), BUG)["problem_statement"]
    assert "`f0.seek(3)` gives `None`" in text and "`result`" not in text
    twice = replace(
        checked, reproduction=checked.reproduction.replace("    assert", "    result = f0.seek(3)\n    assert")
    )
    assert "`f0.seek(3)`" not in write_statement(context([twice]), BUG)["problem_statement"]  # which one is checked?
    # autoflake eecb1cc8: `args, success = merge(original)` checks the first item the call returns
    unpacked = replace(
        checked, reproduction=checked.reproduction.replace("result = f0.seek(3)", "result, moved = f0.seek(3)")
    )
    assert "`f0.seek(3)[0]` gives `None`" in write_statement(context([unpacked]), BUG)["problem_statement"]


def test_a_failing_test_left_out_that_describes_itself_is_stated_in_its_own_words():
    """filelock: a second test whose snippet cannot be built was "1 more input like these fails
    the same way", and a fix that met the first test failed it."""
    shown = case(0, "1", "'1.00'", "'1'")
    hidden = replace(shown, test_id="tests/test_money.py::test_cached", unbound=["mocker"], params=None)
    other = replace(shown, test_id="tests/test_money.py::test_other", unbound=["mocker"], params=None)
    ctx = context([shown, hidden, other])
    ctx["failing_tests"][1]["intent"] = "A cached rate that goes stale is fetched again, not reused."
    text = write_statement(ctx, BUG)["problem_statement"]
    assert '"A cached rate that goes stale is fetched again, not reused."' in text
    assert "1 more input like these fails the same way and is not spelled out here." in text  # the other one


def test_one_description_shared_by_two_test_classes_is_quoted_once():
    """elementpath e96d18a4: `test_auxiliary_tokens` of `XPath2ParserTest` and of its subclass
    `LxmlXPath2ParserTest` quoted the same docstring twice, one after the other."""
    shown = case(0, "1", "'1.00'", "'1'")
    first = replace(shown, test_id="tests/test_money.py::Base::test_cached", unbound=["self"], params=None)
    second = replace(shown, test_id="tests/test_money.py::Lxml::test_cached", unbound=["self"], params=None)
    ctx = context([shown, first, second])
    for test in ctx["failing_tests"][1:]:
        test["intent"] = "A cached rate that goes stale is fetched again, not reused."
    text = write_statement(ctx, BUG)["problem_statement"]
    assert text.count("A cached rate that goes stale is fetched again, not reused.") == 1, text


def test_a_checked_call_too_long_for_prose_is_named_by_its_callee():
    """isort: `assert isort.check_code('...', append_only=True, ...)` read "The snippet should be
    true"; the prose names the call by its callee, with its arguments left to the snippet."""
    call = (
        "isort.check_code('class C:\\n    pass\\n' * 3, append_only=True, "
        "add_imports=['from __future__ import annotations'], show_diff=True)"
    )
    checked = FailureEvidence(
        "tests/t.py::test_it",
        kind="truthy",
        call=call,
        observed="False",
        reproduction=f"import isort\nassert {call}",
        function="check_code",
        check=f"assert {call}",
    )
    text = write_statement(context([checked]), BUG)["problem_statement"]
    assert "Expected behaviour: The `isort.check_code(...)` call in the snippet should be true." in text
    assert "The snippet should be true" not in text


def test_the_leads_own_words_that_open_the_statement_are_not_said_again_for_its_untold_test():
    """traitlets 3ef7ba9c: the lead had no quotable snippet; its docstring opened the statement
    and was then quoted again as "a further failing test"."""
    lead = replace(case(0, "1", "'1.00'", "'1'"), call="", unbound=["self"], params=None)
    ctx = context([lead])
    ctx["failing_tests"][0]["intent"] = "A rate fetched before the app existed is fetched again after."
    text = write_statement(ctx, BUG)["problem_statement"]
    assert text.count("A rate fetched before the app existed is fetched again after.") == 1


def test_a_loop_shown_at_its_failing_first_pass_states_every_pass_it_must_hold_for():
    """astroid: the snippet set `ext = 'pyc'`, and the suffixes after it were never mentioned."""
    first = FailureEvidence(
        "tests/t.py::test_stub",
        kind="compare",
        call="modutils.get_source_file(compiled)",
        op="==",
        expected="'mod.pyi'",
        observed="'mod.pyc'",
        reproduction="from pkg import modutils\next = 'pyc'\ncompiled = f'mod.{ext}'\n"
        "assert modutils.get_source_file(compiled) == 'mod.pyi'",
        loop_over="ext in ('pyc', 'pyo', *modutils.EXTS)",
        function="modutils.get_source_file",
    )
    text = write_statement(context([first]), BUG)["problem_statement"]
    assert "The check must hold for each `ext` in `('pyc', 'pyo', *modutils.EXTS)`." in text


def test_a_requested_exception_class_says_who_raises_it():
    """cattrs a829300d asked only for "`CattrsError`" (its import was the failing check, which
    named the failure after the class): the raters could not tell when it is raised."""
    absent = FailureEvidence(
        "tests/test_enums.py::test_enum_failure",
        kind="compare",
        check="from money.errors import MoneyError",
        error="ImportError: cannot import name 'MoneyError' from 'money.errors' (src/money/errors.py)",
        phase="collect",
        raised="MoneyError",
        raised_by="converter.structure('', kind)",
        reproduction="from money.errors import MoneyError\nwith raises(MoneyError):\n    converter.structure('', kind)",
        unbound=["kind"],
        function="Converter.structure",
    )
    functions = [
        {"file": "src/money/errors.py", "name": "MoneyError", "signature": "class MoneyError(Exception)"},
        {"file": "src/money/convert.py", "name": "Converter.structure", "signature": "def structure(self, obj, cl)"},
    ]
    added = ["class MoneyError(Exception):"]
    for seed in range(3):
        ctx = context([absent], functions=functions, added=added, strategy="FEATURE_ADD")
        ctx["repo"] = f"acme/money{seed}"  # another seed for the writer's choices
        text = write_statement(ctx, BUG)["problem_statement"]
        assert "an exception `MoneyError` for `Converter.structure` to raise" in text.splitlines()[0], text


def test_tests_that_fail_only_through_their_modules_import_are_counted_beside_the_one_that_uses_the_name():
    """pyprobables f3b5e228: 16 of 24 tests failed only because their module imports the new
    `SimilarityError`; their snippets (which never name it) ran fine today, were dropped, and left
    requests for the class under snippets that did not use it."""
    error = "ImportError: cannot import name 'SimilarityError' from 'probables.exceptions' (probables/exceptions.py)"
    uses = FailureEvidence(
        "tests/bloom_test.py::test_union_diff",
        kind="raises",
        expected="SimilarityError",
        error=error,
        phase="collect",
        call="blm.union(other)",
        reproduction="import pytest\nfrom probables import Bloom\nfrom probables.exceptions import SimilarityError\n"
        "blm, other = Bloom(10), Bloom(100)\nwith pytest.raises(SimilarityError):\n    blm.union(other)",
    )
    only_import = [
        FailureEvidence(
            f"tests/bloom_test.py::test_invalid_{n}",
            kind="raises",
            expected="TypeError",
            error=error,
            phase="collect",
            call=f"blm.{n}(1)",
            reproduction=f"import pytest\nfrom probables import Bloom\nblm = Bloom(10)\n"
            f"with pytest.raises(TypeError):\n    blm.{n}(1)",
        )
        for n in ("union", "jaccard")
    ]
    functions = [{"file": "probables/exceptions.py", "name": "SimilarityError", "signature": "class SimilarityError"}]
    ctx = context([uses, *only_import], functions=functions, added=["class SimilarityError(ProbablesBaseException):"])
    text = write_statement(ctx, BUG)["problem_statement"]
    assert "blm.union(other)" in text and "blm.union(1)" not in text and "blm.jaccard(1)" not in text, text
    assert (
        "2 more failing tests fail today only because `SimilarityError` cannot be imported from "
        "`probables.exceptions`; they need nothing else." in text
    )
    assert "not spelled out" not in text
    # one the sandbox saw fail on its own lines (`held` False) is stated, not counted
    seen = [replace(only_import[0], held=False), replace(only_import[1], held=True)]
    text = write_statement(context([uses, *seen], functions=functions), BUG)["problem_statement"]
    assert "blm.union(1)" in text and "blm.jaccard(1)" not in text, text
    assert "1 more failing test fails today only because `SimilarityError` cannot be imported" in text
    # with no test left that uses the name, nothing is counted away: each test is stated
    text = write_statement(context(only_import, functions=functions), BUG)["problem_statement"]
    assert "only because" not in text and "blm.union(1)" in text, text


def test_the_other_names_the_change_adds_that_the_tests_import_are_asked_for_too():
    """dirty-equals 92a98eac: the import error names only `IsFloatInf`, the first name the test
    module lacks; the tests of `IsFloatNan` were counted as needing nothing else, and the raters
    found the other names asked for nowhere."""
    error = "ImportError: cannot import name 'IsFloatInf' from 'dirty_equals' (dirty_equals/__init__.py)"
    inf = FailureEvidence(
        "tests/test_numeric.py::test_inf",
        kind="compare",
        op="!=",
        call="1",
        expected="IsFloatInf",
        error=error,
        phase="collect",
        reproduction="from dirty_equals import IsFloatInf\nassert 1 != IsFloatInf",
    )
    nan = replace(
        inf,
        test_id="tests/test_numeric.py::test_nan",
        expected="IsFloatNan",
        reproduction="from dirty_equals import IsFloatNan\nassert 1 != IsFloatNan",
    )
    old = replace(
        inf, test_id="tests/test_numeric.py::test_int", reproduction="from dirty_equals import IsInt\nassert 1 == IsInt"
    )
    added = ["class IsFloatInf(IsFloat):", "class IsFloatNan(IsFloat):", "    IsFloatNan,"]
    functions = [{"file": "dirty_equals/_numeric.py", "name": "IsFloatInf", "signature": "class IsFloatInf(IsFloat)"}]
    text = write_statement(context([inf, nan, old], functions=functions, added=added), BUG)["problem_statement"]
    assert "The failing tests also import `IsFloatNan` from `dirty_equals`, which does not have it yet." in text, text
    # the test of `IsFloatNan` lacks more than the import of `IsFloatInf`: it is no "nothing else" case
    assert "1 more failing test fails today only because `IsFloatInf` cannot be imported" in text, text


def test_a_failing_test_whose_two_sides_print_alike_is_never_stated_in_a_line_of_prose():
    """bytecode 4ba05df3: "`disassemble(source)` gives `<ControlFlowGraph block#=8>` at the moment;
    it should be `<ControlFlowGraph block#=8>`" said nothing a solver could act on."""
    lead = FailureEvidence(
        "tests/test_bc.py::test_eq",
        kind="compare",
        op="==",
        call="Bytecode.from_code(code)",
        expected="Bytecode.from_code(code)",
        observed="<Bytecode []>",
        reproduction="from bytecode import Bytecode\ncode = compile('x', '', 'exec')\n"
        "assert Bytecode.from_code(code) == Bytecode.from_code(code)",
    )
    alike = FailureEvidence(
        "tests/test_cfg.py::test_cfg_eq",
        kind="compare",
        op="==",
        call="disassemble(source)",
        expected="<ControlFlowGraph block#=8>",
        observed="<ControlFlowGraph block#=8>",
        unbound=["disassemble"],
    )
    text = write_statement(context([lead, replace(alike, unbound=None)]), BUG)["problem_statement"]
    assert "`disassemble(source)`" not in text and "1 more failing test is not spelled out here." in text, text


def test_a_name_only_the_projects_code_reaches_for_is_a_crash_not_a_request():
    """cattrs 573915b6 became "Please add `working_set`": the project's own code read the
    attribute its fix adds, and the test never names it. The raters read a request for a name
    nobody asked for."""
    crash = FailureEvidence(
        "tests/test_money.py::test_nested",
        kind="error",
        call="converter.structure(raw, Wallet)",
        error="AttributeError: 'Converter' object has no attribute 'working_set'",
        reproduction="from money import Converter, Wallet\nconverter = Converter()\nconverter.structure({}, Wallet)",
        function="Converter.structure",
    )
    functions = [{"file": "money.py", "name": "Converter.structure", "signature": "def structure(self, obj, cl)"}]
    added = ["        self.working_set = set()"]
    text = write_statement(context([crash], functions=functions, added=added), BUG)["problem_statement"]
    title = text.splitlines()[0]
    assert "working_set" not in title and "add" not in title.lower(), title
    asked = replace(crash, reproduction=crash.reproduction + "\nassert converter.working_set == set()")
    text = write_statement(context([asked], functions=functions, added=added), BUG)["problem_statement"]
    assert "`working_set`" in text.splitlines()[0], text


def test_a_title_never_ends_in_the_colon_of_a_helpers_message():
    """yapf 51da81c0's title ended in its helper's "Code format mismatch:", which reads as a
    heading (the reproduction check then dropped it with the block under it)."""
    helper = FailureEvidence(
        "tests/t.py::T::test_lines",
        kind="helper",
        call="assertCodeEqual(expected_formatted_code, code)",
        check="self.assertCodeEqual(expected_formatted_code, code)",
        error="",
        message="Code format mismatch:\nExpected:\n > a\nActual:\n > b",
        observed="Code format mismatch:",
        error_type="AssertionError",
        reproduction="from money import fmt\ncode = fmt('b')\nassert code == 'a', 'Code format mismatch:'",
        function="fmt",
    )
    for seed in range(3):
        ctx = context([helper])
        ctx["repo"] = f"acme/money{seed}"  # another seed for the writer's choices
        title = write_statement(ctx, BUG)["problem_statement"].splitlines()[0]
        assert title.strip() and not title.endswith(":"), title


def test_no_sentence_speaks_of_a_snippet_when_none_is_shown():
    """numpydoc dec2b9e2: every case read `capsys` (unbound), so no block was shown, yet its case
    lines said "the snippet gives ..." and "the snippet should be the text given in full below";
    the raters called it garbled."""
    cases = [
        FailureEvidence(
            f"tests/test_main.py::test_lint[args{i}]",
            kind="compare",
            call="err",
            check="assert err == expected",
            op="==",
            expected=wanted,
            observed="'+---+'",
            params={"args": args},
            reproduction=f"import pkg.cli\npkg.cli.main({args})\nerr = capsys.readouterr().err\nassert err == {wanted}",
            unbound=["capsys"],
            function="pkg.cli.main",
        )
        for i, (args, wanted) in enumerate([("[]", "'| a |'"), ("['--ignore', 'SS03']", "''")])
    ]
    text = write_statement(context(cases), BUG)["problem_statement"]
    assert "```python" not in text and "snippet" not in text.lower(), text


def test_a_check_of_captured_output_names_the_stream_not_the_buffer():
    """A snippet reads what it printed from the redirect's `captured_err`: the prose says
    "what the snippet writes to stderr", not the buffer's `getvalue()`."""
    printed = FailureEvidence(
        "tests/test_cli.py::test_lint",
        kind="compare",
        call="captured_err.getvalue().strip()",
        op="==",
        expected="'| a |'",
        observed="''",
        reproduction=(
            "import contextlib\nimport io\nimport pkg.cli\ncaptured_out, captured_err = io.StringIO(), io.StringIO()\n"
            "with contextlib.redirect_stdout(captured_out), contextlib.redirect_stderr(captured_err):\n"
            "    pkg.cli.main(['lint'])\nassert captured_err.getvalue().strip() == '| a |'"
        ),
        function="pkg.cli.main",
    )
    text = write_statement(context([printed]), BUG)["problem_statement"]
    assert "what the snippet writes to stderr" in text.lower() and "getvalue" not in text.split("```")[0], text


def test_a_helpers_message_that_is_a_rendered_value_is_no_title():
    """marko's `assert_case` asserts with the HTML it rendered as its message: the title read
    "With `Markdown`, `assert_case(md, html)`: <p>hello ~google~</p>"."""
    helper = FailureEvidence(
        "tests/test_spec.py::TestGFM::test_tilde",
        kind="helper",
        call="assert_case(md, html)",
        observed="<p>hello ~google~</p>",
        reproduction=(
            "from marko import render\ndef assert_case(text, html):\n    result = render(text)\n"
            "    assert result == html, result\nmd = 'hello ~google~'\nhtml = '<p>hello <del>google</del></p>'\n"
            "assert_case(md, html)"
        ),
        function="render",
    )
    title = write_statement(context([helper]), BUG)["problem_statement"].splitlines()[0]
    assert "<p>" not in title and "fails" in title, title
    pytests = replace(helper, observed="assert [{'error': 'E..., 'path': []}] == [{'error': 'E..., 'path': []}]")
    assert "assert [" not in write_statement(context([pytests]), BUG)["problem_statement"].splitlines()[0]
    worded = replace(helper, observed="strikethrough is not rendered")
    title = write_statement(context([worded]), BUG)["problem_statement"].splitlines()[0]
    assert "strikethrough is not rendered" in title, title


def test_a_title_states_a_bound_as_a_bound():
    """tenacity's `assertGreaterEqual(fn(state), 5)` gave the title "`fn(...)` is `2.08` where `5`
    is expected", which asks for exactly 5."""
    bound = replace(case(0, "1", "5", "2"), op=">=", check="assert fmt(amount) >= expected")
    title = write_statement(context([bound]), BUG)["problem_statement"].splitlines()[0]
    assert "where at least `5` is expected" in title, title
    exact = write_statement(context([case(0, "1", "5", "2")]), BUG)["problem_statement"].splitlines()[0]
    assert "where `5` is expected" in exact, exact


def test_a_check_of_values_that_differ_per_run_is_stated_without_them():
    """attrs 947bfb54: `assert hash(C('1')) == hash(C(1))` was stated as "`hash(C('1'))` is
    -2887286346790881258 where -7172814344535181514 is expected": str hashes are salted per
    process, so the snippet never printed those numbers and was dropped, leaving no example."""
    from tasks.evidence.python import explain_failure

    source = (
        "import attr\n\n\ndef test_hash():\n    @attr.s(hash=True)\n    class C(object):\n"
        "        x = attr.ib(eq=str)\n\n    assert hash(C('1')) == hash(C(1))\n"
    )
    compared = {"op": "==", "left": "-2887286346790881258", "right": "-7172814344535181514"}
    found = explain_failure(source, "tests/t.py::test_hash", {"type": "AssertionError", "line": 9, "compare": compared})
    assert found.observed == "" and found.expected == ""
    text = write_statement(context([found]), BUG)["problem_statement"]
    assert "2887286346790881258" not in text and "7172814344535181514" not in text
    assert "```python\nimport attr\n" in text and "the comparison at the end of the snippet should hold" in text


def test_an_absent_method_of_a_class_is_asked_for_by_its_qualified_name():
    """jaraco/path: "Feature request: `home`" over `home = Path.home()`: the bare name read as the
    snippet's own local (the bench flagged it), where the request is `Path.home`."""
    absent = FailureEvidence(
        "test_path.py::TestBasics::test_home",
        kind="error",
        call="Path.home()",
        error="AttributeError: type object 'Path' has no attribute 'home'",
        function="Path.home",
        reproduction="from path import Path\nhome = Path.home()",
        rest="assert isinstance(home, Path)",
    )
    text = write_statement(context([absent], functions=[{"name": "home"}], strategy="FEATURE"), BUG)
    statement = text["problem_statement"]
    assert statement.splitlines()[0].endswith(": `Path.home`"), statement
    assert "`home`" not in statement and "Expected behaviour: `Path.home` exists" in statement


def test_a_vague_subjects_stand_in_is_never_an_account_of_how_the_code_fails_inside():
    """A vague subject gives its place to the body's first telling sentence; dynaconf's was
    "`handle_metavalues` returned without recursing, so ...", the fix's mechanism, and the title
    carrying it was rated a leak."""
    # values too long for a title: the evidence's title can only say "wrong", so the change's words speak
    failure = replace(
        case(0, "1.5", "'1.50'", "'1.5'"), expected="'" + "1.50" * 30 + "'", observed="'" + "1.5" * 30 + "'"
    )
    ctx = context([failure], subject="Update money")
    ctx["commit_body"] = (
        "When an amount has one decimal, `pad_cents` returned without recursing, so 1.5 never got its zero.\n\n"
        "Amounts with a single decimal lose their trailing zero in every report."
    )
    text = write_statement(ctx, BUG)["problem_statement"]
    assert "recursing" not in text, text


def test_a_line_that_repeats_the_tests_own_call_is_no_leak_of_the_fix():
    """deepdiff's title "`DeepDiff(uuid1, uuid2, ignore_uuid_types=True)` raises `ValueError`" shares
    `ignore_uuid_types = True` with a line of the fix: the leak filter dropped the title, and the
    statement began without one. What the fix says outside the test's call still goes."""
    from llm.offline.text import _strip_leaks

    fix = ["                ignore_uuid_types = True"]
    call = "DeepDiff(uuid1, uuid2, ignore_uuid_types=True)"
    title = f"Unexpected behaviour: `{call}` raises `ValueError`"
    assert _strip_leaks(title, fix) == ""
    assert _strip_leaks(title, fix, [call]) == title
    told = "Set `ignore_uuid_types = True` when the groups hold uuid and str."
    assert _strip_leaks(f"{title}\n{told}", fix, [call]) == title


def test_a_truth_check_of_a_local_unpacked_from_a_call_is_stated_by_that_call():
    """flynt: `new, changed = transform(...)`, then `assert changed`; the title and the outcome
    read "`changed` gives a wrong result", a name of the snippet's own."""
    code = "from money import split\nparts, ok = split('1.5')\nassert ok"
    check = FailureEvidence(
        "tests/test_money.py::test_split",
        kind="truthy",
        check="assert ok",
        call="ok",
        expected="true",
        observed="False",
        reproduction=code,
        function="split",
    )
    text = write_statement(context([check]), BUG)["problem_statement"]
    assert "`split('1.5')[1]` gives `False`" in text and "`ok`" not in text, text


def test_a_message_that_cannot_be_read_is_told_with_one_but_to_a_sentence():
    """parsimonious c42ee4ee: "... gives a `ParseError`, but reading its message raises
    `TypeError`, but it should raise ..." (the phrasing varies with the task, so several are read)."""
    unreadable = FailureEvidence(
        "tests/test_t.py::test_bad",
        kind="compare",
        call="str(e.value)",
        check="assert 'no match' in str(e.value)",
        op="in",
        expected="'no match'",
        observed="TypeError: list.count() takes exactly one argument (3 given)",
        error="TypeError: list.count() takes exactly one argument (3 given)",
        reproduction="from pkg import parse\nimport pytest\nwith pytest.raises(ValueError) as e:\n"
        "    parse('x')\nassert 'no match' in str(e.value)",
        function="parse",
        raised="ValueError",
        raised_by="parse('x')",
    )
    seen = set()
    for n in range(12):
        ctx = context([replace(unreadable, test_id=f"tests/test_t.py::test_bad_{n}")])
        text = write_statement({**ctx, "instance_id": f"t-{n}"}, BUG)["problem_statement"]
        told = [s for s in re.split(r"(?<=\.)\s", text) if "reading its message raises" in s]
        assert told, text
        seen |= {s.split(" ", 1)[0] for s in told}
        assert all(s.count(", but ") <= 1 for s in told), told
    assert len(seen) > 1  # more than one phrasing was read


def test_cases_that_fail_at_the_same_line_but_require_other_values_after_it_are_listed():
    """DataProperty 65914964 (discarded on check set 24): six cases of a dequote test all fail at
    `Preprocessor(dequote=True)`; the checks after it read each case's values, yet only the first
    case was told, as if the others ran the very same snippet."""
    code = "from pkg import Preprocessor\npreprocessor = Preprocessor(dequote=True)"
    error = "TypeError: Preprocessor.__init__() got an unexpected keyword argument 'dequote'"

    def case(value: str, expected: str) -> FailureEvidence:
        return FailureEvidence(
            f"tests/test_p.py::test_dequote[{value}]",
            kind="error",
            call="Preprocessor(dequote=True)",
            error=error,
            observed=error,
            reproduction=code,
            rest=f"data = preprocessor.preprocess({value!r})\nassert data == {expected!r}",
            params={"value": repr(value), "expected": repr(expected)},
            function="Preprocessor",
        )

    cases = [case('"abc efg"', "abc efg"), case('"abc" "efg"', '"abc" "efg"'), case("'abc efg'", "abc efg")]
    text = write_statement(context(cases), BUG)["problem_statement"]
    for value in ('\'"abc" "efg"\'', "\"'abc efg'\""):
        assert value in text, text


def flush_case(flag: str, rest: str, setup: str = "") -> FailureEvidence:
    return FailureEvidence(
        f"tests/test_out.py::test_flush[{flag}]",
        kind="error",
        call=f"run(out, flush={flag})",
        check="run(out, flush=flush)",
        error="TypeError: run() got an unexpected keyword argument 'flush'",
        params={"flush": flag},
        reproduction=f"from unittest.mock import Mock\nfrom money import run\n{setup}out = Mock()\n"
        f"run(out, flush={flag})",
        rest=rest,
        function="run",
    )


def test_a_case_whose_test_goes_on_with_checks_of_its_own_gets_its_own_snippet():
    """argh a620f2ba: the `always_flush=True` case was a line, "should not raise"; its test then
    counts the flushes, where the `False` case asserts none, and the statement never said so."""
    lead, other = (
        flush_case("False", "out.flush.assert_not_called()"),
        flush_case("True", "assert out.flush.call_count == 2"),
    )
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "assert out.flush.call_count == 2" in text and "run(out, flush=True)" in text
    alike = replace(other, rest=lead.rest)  # the same later checks: a line says it
    text = write_statement(context([lead, alike]), BUG)["problem_statement"]
    assert "flush=True)` raises" in text and text.count("```python\nfrom unittest.mock import Mock") == 1


def test_a_case_naming_a_class_its_own_snippet_defines_gets_that_snippet():
    """pyee 349f91b0: "with `EventedFixture` in place of `CustomEmitterFixture`", classes of the
    test module the statement never showed."""
    lead = flush_case("Loud", "", "class Loud:\n    pass\n")
    other = flush_case("Quiet", "", "class Quiet:\n    level = 0\n")
    lead, other = replace(lead, rest=None, params={"kind": "Loud"}), replace(other, rest=None, params={"kind": "Quiet"})
    text = write_statement(context([lead, other]), BUG)["problem_statement"]
    assert "class Quiet:\n    level = 0" in text and "in place of" not in text


def test_a_computed_element_of_a_fixed_container_is_what_should_change():
    """faker 0ecfc2e4: the statement said "`RuProvider.last_names` lacks 'Nikandr'", asking a
    class constant to gain a first name, where the surname the call gives is wrong."""
    member = FailureEvidence(
        "tests/test_person.py::TestRu::test_owner",
        kind="compare",
        call="surname",
        check="assert surname in RuProvider.last_names",
        op="in",
        checked_side="left",
        observed="'Nikandr'",
        expected="RuProvider.last_names",
        function="Faker.passport_owner",
        reproduction="from pkg import Faker\nfrom pkg.ru import Provider as RuProvider\n"
        "surname, given_name = Faker('ru').passport_owner()\nassert surname in RuProvider.last_names",
    )
    text = write_statement(context([member]), BUG)["problem_statement"]
    assert "lacks" not in text and "should contain" not in text, text
    assert "gives `'Nikandr'`, which is not in `RuProvider.last_names`" in text.splitlines()[0], text
    assert "`Faker('ru').passport_owner()[0]` should be one of `RuProvider.last_names`" in text, text


def test_a_local_bound_again_from_a_tuple_is_named_by_its_last_value():
    """isort 35baed2f: `out, error = (captured_out.getvalue(), ...)` after each of three runs, then
    `assert not out`: the statement called the value "`out`", a name the reader cannot look up."""
    from llm.offline.writer import _assigned_call

    code = (
        "import isort\nout, error = (first.getvalue(), first_err.getvalue())\n"
        "isort.file(path)\nout, error = (captured_out.getvalue(), captured_err.getvalue())\nassert not out"
    )
    assert _assigned_call("out", code) == "captured_out.getvalue()"
    branched = "if flag:\n    out = f()\nout = g()\nassert not out"
    assert _assigned_call("out", branched) == "out"
    once = "args, ok = parse(x)\nassert ok"
    assert _assigned_call("ok", once) == "parse(x)[1]"


def test_a_subject_of_several_sentences_is_no_title():
    """faker 58f49e09: two commit sentences glued into one title, with "is missing" after them."""
    checked = FailureEvidence(
        "tests/test_file.py::test_file_name",
        kind="truthy",
        call="re.search('\\\\w+$', file_name)",
        check="assert re.search('\\\\w+$', file_name)",
        expected="true",
        observed="None",
        function="Faker.file_name",
        reproduction="import re\nfrom faker import Faker\nfile_name = Faker().file_name(extension='')\n"
        "assert re.search('\\\\w+$', file_name)",
    )
    subject = "Extension in file_path to take a list of extensions. Remove dot from file_name when extension is empty"
    title = write_statement(context([checked], subject=subject), BUG)["problem_statement"].splitlines()[0]
    assert "Remove dot" not in title and "file_name" in title, title


def test_pytests_explanation_of_a_call_is_given_as_the_call_with_its_values():
    """faker 58f49e09: "gives `None (where None = <function search at …>('\\\\w+$', 'past.'))`"
    quoted pytest's explanation raw; the values the call got are what a reader needs."""
    from llm.offline.writer import _seen_clause

    searched = FailureEvidence(
        "tests/test_file.py::test_file_name",
        kind="truthy",
        call="re.search('\\\\w+$', file_name)",
        check="assert re.search('\\\\w+$', file_name)",
        expected="true",
        observed="None (where None = <function search at …>('\\\\w+$', 'past.'))",
        reproduction="import re\nfile_name = make()\nassert re.search('\\\\w+$', file_name)",
    )
    assert _seen_clause(searched) == "gives `None` (it runs `search('\\\\w+$', 'past.')`)", _seen_clause(searched)
    method = replace(searched, observed="False (where False = <built-in method startswith of str object at …>('x'))")
    assert _seen_clause(method) == "gives `False`", _seen_clause(method)  # werkzeug 9a21003d: no receiver to show


def test_a_local_holding_an_attribute_is_named_by_it():
    """mako 21c11f3f: `spec = template.module.__spec__; assert spec is not None` read "The value
    the snippet builds gives `None`": the attribute read is what a reader can look up."""
    checked = FailureEvidence(
        "test/test_template.py::T::test_spec",
        kind="compare",
        call="spec",
        check="assert spec is not None",
        op="is not",
        observed="None",
        expected="None",
        function="Template",
        reproduction="from mako.template import Template\ntemplate = Template('hello world')\n"
        "spec = template.module.__spec__\nassert spec is not None",
    )
    text = write_statement(context([checked]), BUG)["problem_statement"]
    assert "`Template('hello world').module.__spec__`" in text and "the snippet builds" not in text, text


def test_a_fresh_folder_is_not_written_into_the_check():
    """isort 35baed2f: `tmpdir = py.path.local(tempfile.mkdtemp())` was written into the check,
    "`settings._find_config(str(py.path.local(tempfile.mkdtemp())))[1]` gives `{}`": a new,
    empty folder, not the one the snippet wrote its config into."""
    from llm.offline.writer import stated_call

    code = (
        "import tempfile\nimport py\nfrom isort import settings\n"
        "tmpdir = py.path.local(tempfile.mkdtemp())\ntmp_config = tmpdir.join('.isort.cfg')\n"
        "tmp_config.write_text('[isort]', 'utf8')\nassert settings._find_config(str(tmpdir))[1]"
    )
    assert stated_call("settings._find_config(str(tmpdir))[1]", code) == "settings._find_config(str(tmpdir))[1]"
    plain = "from pkg import render\ntext = 'ab' * 3\nassert render(text) == 'x'"
    assert stated_call("render(text)", plain) == "render('ab' * 3)"
