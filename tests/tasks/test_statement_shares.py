"""The statements bench's shares of issue 30, on hand-made statements and evidence."""

from records import FailureEvidence
from tests.bench_modules import load_bench

bench = load_bench("statements")

CASE = "tests/test_url.py::test_navigate[{}]"
NAVIGATE = dict(kind="error", call="url.navigate(path)", error="TypeError: boom", function="URL.navigate")


def navigate_case(ident: str, base: str, paths: str) -> FailureEvidence:
    params = {"base": base, "expected": "'https://host/b'", "paths": paths}
    reproduction = f"url = URL({base})\nfor path in {paths}:\n    url = url.navigate(path)"
    return FailureEvidence(CASE.format(ident), params=params, reproduction=reproduction, **NAVIGATE)


def test_a_case_is_mentioned_only_with_all_its_inputs_and_its_expected_value():
    shown = navigate_case("paths1", "'https://host'", "('a', 'b')")
    hidden = navigate_case("paths2", "'https://host/a'", "(None, 'b')")
    table = FailureEvidence(
        "tests/test_table.py::test_padded",
        kind="compare",
        call="t.to_text()",
        op="==",
        expected="'a | b'",
        reproduction=(
            "from tables import Table\nt = Table([[1]])\nt.headers = ['a', 'b']\nassert t.to_text() == 'a | b'"
        ),
    )
    failures = {f.test_id: f for f in (shown, hidden, table)}
    statement = (
        "`URL.navigate` raises\n\n```python\nurl = URL('https://host')\nfor path in ('a', 'b'):\n"
        '    url = url.navigate(path)\n```\n\nIt should give "https://host/b".\n\n'
        "Also `t.to_text()` should be `'a | b'` after `t = Table([[1]])`."
    )
    found = bench.unmentioned_cases(statement, [*failures, "tests/test_x.py::test_gone"], failures)
    assert [line.split(" (")[0] for line in found] == ["test_navigate[paths2]", "test_padded", "test_gone"]
    assert "'https://host/a'" in found[0] and "(None, 'b')" in found[0]
    assert "t.headers = ['a', 'b']" in found[1] and "expected" not in found[1]
    assert found[2] == "test_gone (no evidence)"

    flag = FailureEvidence("t.py::test_flag[a]", kind="compare", call="Option(['-a']).flag", params={"o": "<Option a>"})
    assert bench.unmentioned_cases("`Option(['-a']).flag` is wrong", [flag.test_id], {flag.test_id: flag}) == []
    assert bench.unmentioned_cases("`Option` is wrong", [flag.test_id], {flag.test_id: flag}) == [
        "test_flag[a] (input \"Option(['-a']).flag\")"
    ]

    complete = statement + "\nWith `t.headers = ['a', 'b']` too; and from 'https://host/a' with paths (None, 'b')."
    assert bench.unmentioned_cases(complete, list(failures), failures) == []


def test_past_the_cap_the_rest_is_mentioned_by_an_honest_count():
    """add-trailing-comma: 127 failing tests; a statement spells out a cap of them and counts
    the rest, as the issue asks. Below the cap, or with a count short of the rest, a test is not
    mentioned."""
    cap = bench.SPELLED_OUT_CAP
    failures = {
        f"t.py::test_fix[{i}]": FailureEvidence(
            f"t.py::test_fix[{i}]", kind="compare", call=f"fix({i})", op="==", expected=f"'{i},'"
        )
        for i in range(cap + 5)
    }
    ids = [*failures, "t.py::test_main"]
    lines = "\n".join(f"- `fix({i})` should be `'{i},'`" for i in range(cap))
    counted = f"T\n\n{lines}\n\n6 more failing tests are not spelled out here."
    assert bench.unmentioned_cases(counted, ids, failures) == []
    short = counted.replace("6 more", "5 more")
    assert len(bench.unmentioned_cases(short, ids, failures)) == 6
    below = counted.replace(f"- `fix({cap - 1})` should be `'{cap - 1},'`\n", "").replace("6 more", "7 more")
    assert len(bench.unmentioned_cases(below, ids, failures)) == 7


def test_test_internals_are_found_and_a_plain_statement_has_none():
    case = navigate_case("https://host-paths2", "'https://host'", "(None, 'b')")
    failures = {case.test_id: case}
    statement = (
        "`test_navigate` fails for paths2.\n\n"
        "- with `base='https://host', paths=(None, 'b')`: the check needs `expected`\n\n"
        "```python\nif False:\n    url = None\nassert url.navigate('b') == actual\n```"
    )
    assert bench.test_internals(statement, list(failures), failures) == [
        "test name test_navigate",
        "parametrize id paths2",
        "parametrize argument base",
        "parametrize argument paths",
        "placeholder expected",
        "placeholder actual",
        "dead block if False:",
    ]
    plain = (
        "`URL('https://host').navigate(None)` raises `TypeError`.\n\n"
        "```python\nexpected = 'https://host/b'\nassert url.navigate('b').to_text() == expected\n```"
    )
    assert bench.test_internals(plain, list(failures), failures) == []
    # the test file's path names a file of the repository, whose stem the test's name may share
    on_file = "```python\nfixtures = Path('tests/test_navigate.py').parent / 'data'\n```"
    assert bench.test_internals(on_file, list(failures), failures) == []
    assert bench.test_internals(on_file + "\n\nSee `test_navigate`.", list(failures), failures) == [
        "test name test_navigate"
    ]


def test_a_parametrize_id_that_the_commit_subject_says_is_no_test_internal():
    """add-trailing-comma's "Match sequence without braces": the title is the subject, and the case
    `test_noop[sequence without braces]` is named in the same words; a one-word id still counts."""
    test_id = "tests/features/match_test.py::test_noop[sequence without braces]"
    statement = "Match sequence without braces (`_fix_src`)\n\nIt gives a different value."
    failures = {test_id: FailureEvidence(test_id)}
    assert bench.test_internals(statement, [test_id], failures) == ["parametrize id sequence without braces"]
    assert bench.test_internals(statement, [test_id], failures, subject="Match sequence without braces") == []


def test_a_parametrize_id_that_is_a_public_name_of_the_repository_is_no_test_internal():
    style = FailureEvidence("tests/test_table.py::test_style[MARKDOWN]", params={"style": "16"})
    statement = "```python\nfrom table import MARKDOWN, T\nT().set_style(MARKDOWN)\n```"
    failures = {style.test_id: style}
    assert bench.test_internals(statement, list(failures), failures) == ["parametrize id MARKDOWN"]
    assert bench.test_internals(statement, list(failures), failures, frozenset({"MARKDOWN", "T"})) == []


def test_a_title_naming_code_the_checks_do_not_run_is_off_the_call_path():
    month = FailureEvidence(
        "tests/test_locale.py::test_month_name",
        kind="compare",
        call="locale.month_name(3)",
        check="assert locale.month_name(3) == 'mars'",
        expected="'mars'",
        observed="'March'",
        error="",
        reproduction="from arrow.locales import FrenchLocale\nlocale = FrenchLocale()",
    )
    assert bench.off_path_title("`humanize()` returns the wrong value\n\nbody", [month]) == ["humanize"]
    assert bench.off_path_title("`FrenchLocale.month_name` gives `'March'`\n\nbody", [month]) == []
    raised = FailureEvidence("t.py::test_x", kind="error", call="parse('x')", error="ParserError: no")
    assert bench.off_path_title("`parse('x')` raises `ParserError`, not `None`", [raised]) == []
    assert bench.off_path_title("`humanize()` is wrong", []) == []


JS_STATEMENT = """`withBase` gives the wrong path

```js
import assert from 'node:assert';
import { withBase } from "ufo";

const base = "/admin";
assert.strictEqual(withBase("/admin-dashboard", base), "/admin/admin-dashboard");
```

The same holds for `withBase("/x", { partitioned: true })` and `withoutBase(t.input, t.base)`.
"""


def test_js_statements_have_their_unbound_names_read_as_js():
    # `{ partitioned: true }` binds nothing (a Python reading sees two names); `t` is a test's loop variable
    assert bench.js_unbound_names(JS_STATEMENT, {"withoutBase"}) == ["t"]
    assert bench.js_unbound_names(JS_STATEMENT, set()) == ["t", "withoutBase"]
    runner = "```js\nconst spy = jest.fn();\nexpect(spy).toHaveBeenCalled();\n```"
    assert bench.js_unbound_names(runner, set()) == ["expect", "jest"]


def test_a_js_statement_quoting_a_check_that_passed_is_counted():
    failure = FailureEvidence("t.test.ts::a", kind="compare", passed_checks=['expect(parseQuery("")).toEqual({});'])
    quoting = 'It works for `expect(parseQuery("")).toEqual({});` but not for "a=1&a=2".'
    assert bench.js_passing_quotes(quoting, {"t.test.ts::a": failure})
    assert not bench.js_passing_quotes('`parseQuery("a=1&a=2")` drops a value.', {"t.test.ts::a": failure})


def test_a_required_value_written_with_the_snippets_constants_is_mentioned():
    """The test requires `[f'{START}link', 'more']`; the statement gives the value with the
    snippet's constants written in, as the writer states it, and that states the case."""
    required = "[f'{START}link', 'more']"
    link = FailureEvidence(
        "tests/test_w.py::test_wrap[5]",
        kind="compare",
        call="wrap(f'{START}linkmore', 5)",
        op="==",
        expected=required,
        reproduction="from w import wrap\nSTART = '\\x1b]8;;'\nassert wrap(f'{START}linkmore', 5) == " + required,
    )
    shown = "`wrap('\\x1b]8;;linkmore', 5)` gives `['\\x1b]8;;linkm', 'ore']`; "
    shown += "it should be `['\\x1b]8;;link', 'more']`."
    assert bench.unmentioned_cases(shown, [link.test_id], {link.test_id: link}) == []
    wrong = shown.replace("it should be `['\\x1b]8;;link', 'more']`", "it should be different")
    assert bench.unmentioned_cases(wrong, [link.test_id], {link.test_id: link})


def test_a_long_expected_text_shown_whole_by_its_own_lines_is_mentioned():
    """A long required text is stated by a block of its own lines, not by its one-line repr: the
    share counts it as stated (a one-line string still needs its quotes)."""
    want = "header\n" + "\n".join(f"row {i}" for i in range(30))
    table = FailureEvidence(
        "tests/test_t.py::test_render",
        kind="compare",
        call="render()",
        op="==",
        expected=repr(want),
        reproduction=f"from t import render\nassert render() == {want!r}",
    )
    shown = f"`render()` should give exactly this text:\n\n```text\n{want}\n```"
    assert bench.unmentioned_cases(shown, [table.test_id], {table.test_id: table}) == []
    cut = shown.replace("row 29", "row 28")
    assert bench.unmentioned_cases(cut, [table.test_id], {table.test_id: table})
    assert not bench.states("the value is x", "'x'") and bench.states("it gives `'x'`", "'x'")
    assert bench.states("should be [1, 2, 3]", "[1,2,3]")
    # a backtick in a string as the writer spells it inside markdown (the same value)
    assert bench.states("should be `'a\\x60b'`", "'a`b'") and not bench.states("should be `'a'b'`", "'a`b'")


def test_a_case_stated_by_its_call_with_the_local_inputs_written_in_is_mentioned():
    through_locals = FailureEvidence(
        "tests/test_t.py::test_rep",
        kind="compare",
        call="result",
        op="==",
        expected="'AB AB AB'",
        reproduction="from t import render\ntext = 'ab ' * 3\nresult = render(text)\nassert result == 'AB AB AB'",
    )
    failures = {through_locals.test_id: through_locals}
    stated = "On the current code `render('ab ' * 3)` gives `'ab ab ab'`; it should be `'AB AB AB'`."
    assert bench.unmentioned_cases(stated, list(failures), failures) == []
    assert bench.unmentioned_cases(stated.replace("* 3", "* 2"), list(failures), failures)


def test_a_message_check_is_mentioned_by_the_call_that_raised_and_the_message():
    caught = FailureEvidence(
        "tests/test_t.py::test_bad",
        kind="compare",
        call="str(e.value)",
        op="==",
        expected="'bad input: x y'",
        reproduction="from pkg import parse\nimport pytest\ntext = 'x y'\nwith pytest.raises(ValueError) as e:\n"
        "    parse(text)\nassert str(e.value) == 'bad input: x y'",
        raised="ValueError",
        raised_by="parse(text)",
    )
    failures = {caught.test_id: caught}
    stated = "`parse('x y')` should raise `ValueError` with the message `'bad input: x y'`."
    assert bench.unmentioned_cases(stated, list(failures), failures) == []
    assert bench.unmentioned_cases(stated.replace("x y'`.", "x'`."), list(failures), failures)
    assert bench.unmentioned_cases(stated.replace("('x y')", "()"), list(failures), failures)


def test_a_case_stated_with_its_lambda_written_in_is_mentioned():
    split = FailureEvidence(
        "tests/test_t.py::test_split",
        kind="compare",
        call="actual",
        op="==",
        expected="[]",
        reproduction="from more import split\nactual = list(split([], lambda c: bool(c)))\nassert actual == []",
    )
    failures = {split.test_id: split}
    stated = "`list(split([], lambda c: bool(c)))` gives `[[]]`; it should be `[]`."
    assert bench.unmentioned_cases(stated, list(failures), failures) == []


def test_a_name_the_snippet_assigns_named_as_a_value_in_prose_is_a_test_internal():
    block = "```python\nfrom d import OMD\nomd = OMD([('a', 1)])\nshallow = omd.copy()\nassert shallow == omd\n```"
    named = f"Copy is wrong\n\n{block}\n\nCurrently `shallow` gives a different value; it should be `omd`."
    assert bench.test_internals(named, [], {}) == ["snippet local shallow", "snippet local omd"]
    stated = f"Copy is wrong\n\n{block}\n\nCurrently `omd.copy()` gives `OMD([])`; it should be `OMD([('a', 1)])`."
    assert bench.test_internals(stated, [], {}) == []
    public = "Copy is wrong\n\n```python\nfrom d import MODE\nMODE = 2\n```\n\nIt should be `MODE`."
    assert bench.test_internals(public, [], {}, frozenset({"MODE"})) == []
    # argh a620f2ba: the parameter the fix adds, which the test also names a local after
    keyword = (
        "Add it\n\n```python\nfrom d import run\nflush = True\nrun(flush=flush)\n```\n\n`flush` is not available yet."
    )
    assert bench.test_internals(keyword, [], {}) == []
    assert bench.test_internals(keyword.replace("run(flush=flush)", "run(flush)"), [], {}) == ["snippet local flush"]


def test_a_check_written_over_several_lines_is_at_the_failing_line_it_holds():
    """The runner reports the line of the call inside `self.assertEqual(` over three lines:
    that check is the failing one, not one that passed before it."""
    source = (
        "class T:\n    def test_it(self):\n        self.assertEqual(f(1), 1)\n        self.assertEqual(\n"
        "            f(2),\n            3,\n        )\n"
    )
    checks = bench.test_asserts(source, "t.py::T::test_it", line=5)
    assert [(line, expression) for line, expression, _, _ in checks] == [(3, "f(1) == 1"), (5, "f(2) == 3")]
    assert [line for line, *_ in bench.test_asserts(source, "t.py::T::test_it")] == [3, 4]


def test_a_test_name_in_several_classes_reads_the_one_holding_the_failing_line():
    """packaging has `test_empty_platforms` in three classes: the checks of the first were read
    as checks that passed before the third's failing line, and its quote counted as a defect."""
    source = (
        "class A:\n    def test_it(self):\n        assert f(1) == []\n\n\n"
        "class B:\n    def test_it(self):\n        assert g(1) == []\n"
    )
    checks = bench.test_asserts(source, "t.py::B::test_it", line=8)
    assert [(line, expression) for line, expression, _, _ in checks] == [(8, "g(1) == []")]


def test_a_non_finite_float_is_mentioned_as_the_writer_spells_it():
    """The runner's `[None, nan, -inf]` is written `[None, float('nan'), float('-inf')]` (no
    names a reader's Python lacks): that states the case's value; another list does not."""
    ordering = FailureEvidence(
        "tests/test_sort.py::test_order[1024-expected1]",
        kind="compare",
        call="order(given)",
        op="==",
        expected="[None, nan, -inf]",
        params={"alg": "1024", "expected": "[None, nan, -inf]"},
    )
    failures = {ordering.test_id: ordering}
    written = "`order(given)` should be `[None, float('nan'), float('-inf')]`, input `1024`."
    assert bench.unmentioned_cases(written, [ordering.test_id], failures) == []
    other = "`order(given)` should be `[None, float('-inf')]`, input `1024`."
    assert bench.unmentioned_cases(other, [ordering.test_id], failures) != []


def test_public_names_are_read_from_a_source_file_that_is_not_utf8(tmp_path):
    """A Latin-1 module in a repository crashed the bench's analysis after every task was made."""
    import subprocess

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "legacy.py").write_bytes(
        b"# -*- coding: latin-1 -*-\nNAME = 'Stra\xdfe'\n\ndef public():\n    pass\n"
    )
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    names = bench.repo_public_names(tmp_path, "HEAD")
    assert {"public", "NAME", "legacy"} <= names


def test_an_exception_as_the_runner_shows_it_is_no_reproduction_with_unbound_names():
    """`raises `NotImplementedError: BinOp(left=Name(id='str'))`` parses as an annotation; its
    words were counted as names the statement never binds. A call in a span still counts."""
    shown = "`f(s)` raises `NotImplementedError: BinOp(left=Name(id='str'), op=BitOr())` at the moment."
    assert bench.unbound_names(shown, {"f"}) == ["s"]
    assert bench.unbound_names("`g(BinOp())` fails", set()) == ["BinOp", "g"]


def test_a_dict_view_as_the_runner_shows_it_is_a_value_not_an_unbound_name():
    """python-json-logger: "`log_json.keys()` gives `dict_keys(['message'])`" was counted as a
    call of a name the statement never binds; `dict_keys` is the repr of a builtin type."""
    shown = "```python\nlog_json = {}\n```\n\nNow `log_json.keys()` gives `dict_keys(['message'])`."
    assert bench.unbound_names(shown, set()) == []
    assert bench.unbound_names("`keys_of(log_json)` fails", set()) == ["keys_of", "log_json"]


def test_a_file_path_in_a_span_is_no_reproduction_with_unbound_names():
    """tzlocal: "the cases are in `tests/test_data/broken/etc/conf.d/clock`" parsed as a division
    of names, each counted as unbound. A division in a call still counts."""
    assert bench.unbound_names("The cases are in `tests/test_data/broken/etc/conf.d/clock`.", set()) == []
    assert bench.unbound_names("`f(total / count)` fails", {"f"}) == ["count", "total"]


def test_a_url_inside_a_quoted_message_is_no_invisible_reference():
    """w3lib: the runner's message "assert 'http://::1' == 'http://[::1]'" quotes the test's
    inputs; a link in the prose is still one."""
    quoted = "Right now it fails with the message \"assert 'http://::1' == 'http://[::1]'\"."
    assert bench.invisible_references(quoted) == []
    assert bench.invisible_references("See https://example.org/issues/3 and issue 12.") == ["https://", "issue 12"]


def test_a_task_is_delivered_only_when_every_layer_it_went_through_passed():
    """The shares are also given among the delivered tasks: a task a layer rejected never reaches a solver."""
    passed, failed = {"passed": True, "details": {}}, {"passed": False, "details": {}}
    assert bench.delivered({"validation": {"functional": passed, "semantic": passed}})
    assert not bench.delivered({"validation": {"functional": passed, "semantic": failed}})
    assert not bench.delivered({"validation": {}})  # never validated: nothing says it is a task


def test_a_check_another_failing_test_requires_in_the_same_words_is_no_passing_quote(tmp_path):
    """typing_extensions: `Child.__required_keys__ == frozenset(['a'])` passes before one test's
    failing line, and a second test requires the same words after its own: the statement quotes
    the second's requirement, which the bench had counted as quoting a check that passes."""
    import subprocess

    source = (
        "def test_one():\n    Child = make()\n    assert Child.keys == {'a'}\n    assert Child.other == {'b'}\n\n\n"
        "def test_two():\n    Child = other()\n    assert Child.other == {'b'}\n    assert Child.keys == {'a'}\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_k.py").write_text(source)
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "t"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    failures = {
        "tests/test_k.py::test_one": FailureEvidence("tests/test_k.py::test_one", line=4),
        "tests/test_k.py::test_two": FailureEvidence("tests/test_k.py::test_two", line=10),
    }
    task = {"base_commit": head, "FAIL_TO_PASS": list(failures), "problem_statement": "It needs `Child.keys == {'a'}`."}
    assert bench.passing_quotes(task, tmp_path, failures) == []
    only_two = {"tests/test_k.py::test_two": failures["tests/test_k.py::test_two"]}
    task = {**task, "FAIL_TO_PASS": list(only_two), "problem_statement": "It needs `Child.other == {'b'}`."}
    assert bench.passing_quotes(task, tmp_path, only_two) == ["test_two: `Child.other == {'b'}` (line 9, fails at 10)"]


def test_a_name_in_a_value_the_run_printed_is_no_unbound_name(tmp_path):
    """arrow: `tzutc()` is the repr the runner printed for the required value; a statement that
    quotes it reads the project's name, as the judge counts it, not an unbound one."""
    import subprocess

    from records import Task

    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    for text in ("def when():\n    return None\n", "def when():\n    return 1\n"):
        (tmp_path / "clock.py").write_text(text)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "t"], check=True)
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    statement = "`when()` gives the wrong zone:\n\n```python\nfrom clock import when\nassert when() == tzutc()\n```\n"
    task = Task("x__clock-1", "x/clock", head, "", "", statement, "", "BUG_FIX", "seed").to_dict()
    task["FAIL_TO_PASS"] = ["tests/test_clock.py::test_when"]
    printed = FailureEvidence(task["FAIL_TO_PASS"][0], kind="compare", call="when()", op="==", expected="tzutc()")
    rows = bench.analyse([task], {"x/clock": tmp_path}, {task["instance_id"]: {printed.test_id: printed}})
    assert rows["unbound"] == []
    rows = bench.analyse([task], {"x/clock": tmp_path}, {})  # no value printed names it
    assert rows["unbound"] == ["x__clock-1: tzutc"]


def test_an_expected_value_stated_by_the_code_that_builds_it_is_mentioned():
    """flake8-bugbear: `errors == errors_(*expected)` after `expected = [B038(11, 8), ...]`; the
    value pytest printed is its evaluation, which no statement writes: the snippet that shows
    the building code with the lines it reads states it."""
    checked = FailureEvidence(
        "tests/test_bugbear.py::BugbearTestCase::test_b038",
        kind="compare",
        call="errors",
        op="==",
        expected="[(11, 8, 'B038 editing a loop')]",
        check="self.assertEqual(errors, self.errors(*expected))",
        reproduction=(
            "from bugbear import B038, BugBearChecker\ndef errors_(*errors):\n    return list(errors)\n"
            "errors = list(BugBearChecker('b038.py').run())\nexpected = [B038(11, 8)]\n"
            "assert errors == errors_(*expected)"
        ),
    )
    failures = {checked.test_id: checked}
    shown = f"The comparison at the end fails:\n\n```python\n{checked.reproduction}\n```"
    assert bench.unmentioned_cases(shown, list(failures), failures) == []
    without_cases = shown.replace("expected = [B038(11, 8)]\n", "")
    assert bench.unmentioned_cases(without_cases, list(failures), failures)


def test_an_expected_value_built_in_a_shown_check_helper_call_is_mentioned():
    """marshmallow_dataclass fa6c2898: `assertFieldsEqual(field_for_schema(...), union_field.Union(...))`
    compares inside the helper the snippet defines; pytest's values were cut, so no statement
    writes them. The shown call and helper state the required value; without the helper, not."""
    helper = "def same(a, b):\n    assert a.__class__ == b.__class__\n    assert vars(a) == vars(b)"
    checked = FailureEvidence(
        "tests/test_f.py::T::test_union",
        kind="compare",
        call="field_for_schema(U)",
        expected="{'a': ' ... '}",
        check="self.same(field_for_schema(U), Union([1], required=False))",
        reproduction=(
            f"from m import field_for_schema, Union, U\n{helper}\nsame(field_for_schema(U), Union([1], required=False))"
        ),
    )
    failures = {checked.test_id: checked}
    shown = f"It fails:\n\n```python\n{checked.reproduction}\n```"
    assert bench.unmentioned_cases(shown, list(failures), failures) == []
    without_helper = shown.replace(helper + "\n", "")
    assert bench.unmentioned_cases(without_helper, list(failures), failures)


def test_a_check_inside_a_closing_loop_states_its_value_by_the_code_that_builds_it():
    """python-hcl2: each suite's file is read and compared in a `for` loop; the required text
    (the file's, which the tree has) is built by `original_hcl = hcl_path.read_text()`."""
    checked = FailureEvidence(
        "test/test_round_trip.py::T::test_direct",
        kind="compare",
        call="reconstructed_hcl",
        op="==",
        expected="'locals {\\n  a = 1 ... \\n}\\n'",
        check="self.assertMultiLineEqual(reconstructed_hcl, original_hcl)",
        reproduction=(
            "from hcl2 import again\nfor path in PATHS:\n    original_hcl = path.read_text()\n"
            "    reconstructed_hcl = again(original_hcl)\n    assert reconstructed_hcl == original_hcl"
        ),
    )
    failures = {checked.test_id: checked}
    shown = f"The comparison at the end fails:\n\n```python\n{checked.reproduction}\n```"
    assert bench.unmentioned_cases(shown, list(failures), failures) == []
    unread = shown.replace("    original_hcl = path.read_text()\n", "")
    assert bench.unmentioned_cases(unread, list(failures), failures)


def test_a_value_the_runner_cut_in_the_middle_is_stated_by_what_it_kept_in_order():
    """graphql-core: pytest printed the required list cut as `[{'error': "Expected ..." ... must
    be non-null.", 'path': []}]`; the statement gives it whole, and the share counted it missing."""
    cut = "[{'error': 'Expected a', 'path': []} ... 'must be non-null.', 'path': []}]"
    whole = "`_test(x, [{'error': 'Expected a', 'path': []}, {'error': 'must be non-null.', 'path': []}])`"
    assert bench.states(whole, cut)
    assert not bench.states(whole.replace("Expected a", "Expected b"), cut)
    swapped = "`[{'error': 'must be non-null.', 'path': []}, {'error': 'Expected a', 'path': []}]`"
    assert not bench.states(swapped, cut)


def test_a_parametrize_id_that_is_an_english_word_counts_only_as_a_name():
    """wheel's case id `single` is also the English word: "a single tag" names no case."""
    case = FailureEvidence("tests/test_tags.py::test_compress[single]", params={"tags": "['py3']"})
    failures = {case.test_id: case}
    prose = "Building a wheel with a single tag should keep it as is."
    assert bench.test_internals(prose, list(failures), failures) == []
    assert bench.test_internals(prose + " The `single` case fails.", list(failures), failures) == [
        "parametrize id single"
    ]
    hyphened = FailureEvidence("tests/test_tags.py::test_compress[single-tag]", params={"tags": "['py3']"})
    failures = {hyphened.test_id: hyphened}
    assert bench.test_internals("It fails for single-tag wheels.", list(failures), failures) == [
        "parametrize id single-tag"
    ]


def test_a_test_whose_own_lines_hold_is_mentioned_by_the_name_its_module_lacks():
    """parsimonious c42ee4ee: `test_optional` failed only because its module imports the new
    `Quantifier`; its own lines ran clean on both states, so its block went, and the statement
    asks for `Quantifier`. A test whose own lines were not run clean is still unmentioned."""
    code = "from pkg import Optional\nassert Optional('a').match('bb') == 0"
    held = FailureEvidence(
        "tests/test_x.py::T::test_optional",
        kind="error",
        phase="collect",
        message="cannot import name 'Quantifier' from 'pkg' (pkg/__init__.py)",
        reproduction=code,
    )
    task = {
        "reproduction": {
            "checks": [{"code": code + "\n", "buggy": "ran without an exception", "fixed": "ran without an exception"}]
        }
    }
    failures = {held.test_id: held}
    assert bench.held_tests(task, failures) == {held.test_id}
    asked = "There is no `Quantifier` yet. With it, the module's other checks should run."
    assert bench.unmentioned_cases(asked, [held.test_id], failures, bench.held_tests(task, failures)) == []
    assert bench.unmentioned_cases("Add a quantifier.", [held.test_id], failures, bench.held_tests(task, failures))
    failing = {
        "reproduction": {
            "checks": [{"code": code, "buggy": "raised ValueError: x", "fixed": "ran without an exception"}]
        }
    }
    assert bench.held_tests(failing, failures) == frozenset()
    assert bench.unmentioned_cases(asked, [held.test_id], failures, bench.held_tests(failing, failures))


def test_cases_failing_at_one_shared_call_are_mentioned_by_their_own_values():
    """DataProperty 65914964: six dequote cases fail at `Preprocessor(dequote=True)` and differ in
    the checks after it; the shared call in the text mentioned none of them but the first."""
    error = "TypeError: unexpected keyword argument 'dequote'"

    def case(value: str) -> FailureEvidence:
        return FailureEvidence(
            f"tests/test_p.py::test_dequote[{value}]",
            kind="error",
            call="Preprocessor(dequote=True)",
            error=error,
            reproduction="preprocessor = Preprocessor(dequote=True)",
            rest=f"assert preprocessor.preprocess({value!r})",
            params={"value": repr(value)},
        )

    one, two = case('"a b"'), case("'c d'")
    failures = {one.test_id: one, two.test_id: two}
    stated = "`Preprocessor(dequote=True)` raises `TypeError`; with it, `preprocess('\"a b\"')` should work."
    [missing] = bench.unmentioned_cases(stated, list(failures), failures)
    assert missing.startswith("test_dequote['c d']"), missing
    both = stated + " So should `preprocess(\"'c d'\")`."
    assert bench.unmentioned_cases(both, list(failures), failures) == []


def test_a_case_whose_later_checks_are_its_own_is_mentioned_only_with_them():
    """argh a620f2ba: `always_flush=True` was listed as "should not raise"; its test then counts
    the flushes (`call_count == 2`), where the `False` case asserts none, and no line said so."""

    def flush_case(flag: str, rest: str) -> FailureEvidence:
        return FailureEvidence(
            f"t.py::test_flush[{flag}]",
            kind="error",
            call=f"run(flush={flag})",
            params={"flush": flag},
            reproduction=f"from m import run\nrun(flush={flag})",
            rest=rest,
        )

    lead = flush_case("False", "out.flush.assert_not_called()")
    other = flush_case("True", "assert out.flush.call_count == 2")
    failures = {f.test_id: f for f in (lead, other)}
    listed = (
        "```python\nfrom m import run\nrun(flush=False)\n```\n\n```python\nout.flush.assert_not_called()\n```\n\n"
        "- `run(flush=True)` should not raise"
    )
    assert bench.unmentioned_cases(listed, list(failures), failures) == [
        "test_flush[True] (later check 'assert out.flush.call_count == 2')"
    ]
    stated = listed + "\n\n```python\nassert out.flush.call_count == 2\n```"
    assert bench.unmentioned_cases(stated, list(failures), failures) == []


def test_a_case_whose_later_checks_share_a_stated_cases_shape_is_mentioned_by_its_values():
    """click 1a4d8c1b: `'[FLOAT]'` in place of `'[BOOLEAN]'` in the check that follows states the
    float case's later check, which has the stated boolean case's shape."""

    def case(name: str, metavar: str, rest: str | None) -> FailureEvidence:
        return FailureEvidence(
            f"t.py::test_show[{name}]",
            kind="error",
            call=f"show({name!r})",
            params={"metavar": metavar},
            reproduction=f"from m import show\nshow({name!r})",
            rest=rest,
        )

    cases = [
        case("bool", "'[BOOLEAN]'", "assert '[BOOLEAN]' in out"),
        case("float", "'[FLOAT]'", "assert '[FLOAT]' in out"),
        case("text", "'[TEXT]'", None),  # it failed at its later check: another shape
    ]
    failures = {f.test_id: f for f in cases}
    base = (
        "```python\nfrom m import show\nshow('bool')\n```\n\n```python\nassert '[BOOLEAN]' in out\n```\n\n"
        "- `show('text')` raises\n"
    )
    named = base + "- `show('float')`, with `'[FLOAT]'` in place of `'[BOOLEAN]'` in the check that follows, raises\n"
    assert bench.unmentioned_cases(named, list(failures), failures) == []
    unnamed = base + "- `show('float')` raises\n"
    assert bench.unmentioned_cases(unnamed, list(failures), failures) == [
        "test_show[float] (later check \"assert '[FLOAT]' in out\")"
    ]


def test_a_parametrize_argument_the_snippets_pass_as_the_apis_keyword_is_no_test_internal():
    """attrs 862696af: the new keyword `alias_is_default`, which the snippets pass to `Attribute`,
    is also the name of a parametrize argument; the interface section's `alias_is_default=None`
    was counted as a test internal."""
    case = navigate_case("https://host-paths2", "'https://host'", "(None, 'b')")
    failures = {case.test_id: case}
    statement = (
        "Proposed interface:\n- `URL` gains `paths=None`\n\n"
        "```python\nfrom pkg import URL\nassert URL('https://host', paths=(None, 'b')).to_text() == 'x'\n```"
    )
    assert bench.test_internals(statement, list(failures), failures) == []
    listed = statement.replace("URL('https://host', paths=(None, 'b'))", "URL('https://host')")
    assert bench.test_internals(listed, list(failures), failures) == ["parametrize argument paths"]
