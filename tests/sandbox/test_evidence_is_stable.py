"""Failure evidence is the same on every run of a test: it feeds the statement, and a fixed seed
must give the same statement (object addresses, thread idents and the local backend's temporary
tree folder differ from run to run)."""

from __future__ import annotations

from environment import make_sandbox
from sandbox import Limits
from tests.sandbox_fixtures import make_repo

TEST = """import threading


class Box:
    pass


def test_identity():
    box, thread = Box(), threading.Thread(target=lambda: None)
    thread.start()
    thread.join()
    assert [box, thread] == [], f"left {box!r} {thread!r}"


def test_mock():
    from unittest.mock import Mock

    assert Mock().wait() == 0


def test_missing_module():
    import os

    assert os.path.exists("pkg/absent.py"), os.path.abspath("pkg/absent.py")
"""


def test_two_runs_of_a_failing_test_give_the_same_evidence(tmp_path):
    files = {"tests/test_box.py": TEST, "pyproject.toml": '[project]\nname = "box"\nversion = "0"\n'}
    repo, sha = make_repo(tmp_path / "repo", files)
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    runs = [backend.run_tests(repo, sha, [], ["tests/test_box.py"]) for _ in range(2)]
    evidence = [r.failures["tests/test_box.py::test_identity"] for r in runs]
    assert evidence[0]["message"].startswith("left <test_box.Box object at ")
    assert "0x" not in str(evidence[0]) and "stopped …)>" in evidence[0]["message"]
    assert evidence[0] == evidence[1]
    # a Mock's repr holds its id in decimal (typer's `<Mock name='mock.wait()' id='140632504272784'>`)
    mocks = [r.failures["tests/test_box.py::test_mock"]["message"] for r in runs]
    assert "id='…'" in mocks[0] and mocks[0] == mocks[1], mocks
    paths = [r.failures["tests/test_box.py::test_missing_module"]["message"] for r in runs]
    assert paths[0].startswith("pkg/absent.py"), paths[0]  # relative to the tree, not its temp folder
    assert paths[0] == paths[1]


def test_a_test_file_that_fails_to_load_gets_its_import_error_as_evidence(tmp_path):
    """Its tests never run (no report of their own): the file's collection error says why, under
    the file's name, with the line of the failing import."""
    files = {
        "box.py": "def make():\n    return 1\n",
        "tests/test_load.py": "import os\nfrom box import make, Sealed\n\n\ndef test_sealed():\n    assert Sealed\n",
        "pyproject.toml": '[project]\nname = "box"\nversion = "0"\n',
    }
    repo, sha = make_repo(tmp_path / "repo", files)
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    run = backend.run_tests(repo, sha, [], ["tests/test_load.py"])
    evidence = run.failures["tests/test_load.py"]
    assert evidence["when"] == "collect" and evidence["type"] == "ImportError", evidence
    assert evidence["message"].startswith("cannot import name 'Sealed' from 'box'"), evidence
    assert evidence["line"] == 2


def test_expected_failures_take_no_evidence_slot_from_a_real_failure(tmp_path):
    """w3lib: 76 xfail cases raised first and used up every evidence slot, so the one real
    failure, a unittest method after them, had none and its statement said only "gives a
    different result"."""
    from sandbox._report_plugin import EVIDENCE_TESTS

    xfails = EVIDENCE_TESTS + 4
    test = (
        "import unittest\n\nimport pytest\n\n\n"
        f"@pytest.mark.xfail(reason='known')\n@pytest.mark.parametrize('n', range({xfails}))\n"
        "def test_known(n):\n    assert n < 0\n\n\n"
        "def test_xfail_call():\n    pytest.xfail('not yet')\n\n\n"
        "class CaseTest(unittest.TestCase):\n    def test_real(self):\n        self.assertEqual('a'.upper(), 'a')\n"
    )
    run = _run_test_file(tmp_path, "tests/test_zz.py", test)
    assert run.outcomes["tests/test_zz.py::CaseTest::test_real"] == "failed"
    assert list(run.failures) == ["tests/test_zz.py::CaseTest::test_real"], list(run.failures)[:3]
    assert "'A' != 'a'" in run.failures["tests/test_zz.py::CaseTest::test_real"]["message"]


def test_a_subtest_failing_in_a_helper_gets_the_tests_line_and_the_helpers_frame(tmp_path):
    """unittest catches a subTest's failure in the helper's `with`, so the traceback starts there
    and never shows the test's frame: the evidence had no line, and no snippet was built (a
    template library's table tests). The test's frame is still running when unittest reports it."""
    test = (
        "import unittest\n\n\ndef double(x):\n    return x * 2 + (x == 3)\n\n\n"
        "class T(unittest.TestCase):\n    def check_all(self, cases):\n        for x, want in cases:\n"
        "            with self.subTest(x=x):\n                self.assertEqual(double(x), want)\n\n"
        "    def test_double(self):\n        self.check_all([(1, 2), (3, 6)])\n"
    )
    run = _run_test_file(tmp_path, "tests/test_sub.py", test)
    assert run.outcomes["tests/test_sub.py::T::test_double"] == "failed"
    evidence = run.failures["tests/test_sub.py::T::test_double"]
    lines = test.splitlines()
    assert evidence["line"] == lines.index("        self.check_all([(1, 2), (3, 6)])") + 1
    assert evidence["frames"] == [[lines.index("                self.assertEqual(double(x), want)") + 1, "check_all"]]
    assert evidence["message"] == "7 != 6"


def test_a_hypothesis_test_gets_the_line_in_its_body_and_the_falsifying_example(tmp_path):
    """Hypothesis's `given` runs the test from a wrapper with the test's name, file and first
    line: the evidence pointed at the `def` line (attrs' `test_programmatic`), and no snippet was
    built. The test's own frame is the last of its name; its locals hold the failing example."""
    test = (
        "from hypothesis import given\nfrom hypothesis.strategies import booleans\n\n\n"
        "class TestBox:\n    @given(booleans())\n    def test_flag(self, flag):\n"
        "        seen = flag or 1\n        assert seen == 2\n"
    )
    run = _run_test_file(tmp_path, "tests/test_hyp.py", test)
    evidence = run.failures["tests/test_hyp.py::TestBox::test_flag"]
    assert evidence["line"] == test.splitlines().index("        assert seen == 2") + 1
    assert evidence["locals"]["flag"] in ("True", "False") and evidence["locals"]["seen"] in ("True", "1")


def _run_test_file(tmp_path, path: str, test: str):
    """One run of the test file `path` in a one-file project, on the local backend."""
    files = {path: test, "pyproject.toml": '[project]\nname = "box"\nversion = "0"\n'}
    repo, sha = make_repo(tmp_path / "repo", files)
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    return backend.run_tests(repo, sha, [], [path])


def test_a_test_whose_node_id_is_megabytes_long_is_counted_not_reported(tmp_path):
    """python-multipart builds parametrize ids from 5 MB inputs: two 10 MB node ids filled the
    report past its limit, and every run of the suite was void ("the report is over 4 MiB"),
    losing 7 of 10 verified commits. Such a test has no outcome (never a pass), and the run says so."""
    from sandbox import report
    from sandbox._report_plugin import ID_CHARS

    assert report.ID_CHARS == ID_CHARS
    test = (
        "import pytest\n\n\n@pytest.mark.parametrize('data', ['\\r\\n' * 3_000_000, 'ab'])\n"
        "def test_parse(data):\n    assert data\n\n\ndef test_short():\n    assert 1 + 1 == 3\n"
    )
    run = _run_test_file(tmp_path, "tests/test_long.py", test)
    assert not run.broken, run.note
    assert run.outcomes == {"tests/test_long.py::test_parse[ab]": "passed", "tests/test_long.py::test_short": "failed"}
    assert run.note == f"1 test(s) with node ids over {ID_CHARS:,} characters are not reported"


def test_a_long_text_compared_is_cut_with_the_marker_the_writer_knows(tmp_path):
    """numpydoc compares a 1,400-character table: reprlib cut it with a bare "..." that reads as
    part of the text, and the statement quoted the cut as the exact text required. The cut is
    `_cut`'s " ... ", which the writer never gives in full."""
    test = "def test_table():\n    table = '+' + '-' * 1400 + '+'\n    assert table == '+'\n"
    run = _run_test_file(tmp_path, "tests/test_table.py", test)
    left = run.failures["tests/test_table.py::test_table"]["compare"]["left"]
    assert left.startswith("'+---") and " ... " in left and left.endswith("---+'"), left


def test_a_unittest_assertion_gets_the_two_values_it_compared(tmp_path):
    """unittest's message for two sets gives no value ("Items in the first set but not the
    second: ..."), and the statement said only "gives a different value". The values come from
    the assert method's own frame, a set's items in an order every run gives."""
    test = (
        "import unittest\n\n\nclass T(unittest.TestCase):\n"
        "    def test_tags(self):\n        self.assertEqual({'b', 'a', 'c'}, {'a', 'b'})\n\n"
        "    def test_member(self):\n        self.assertIn('z', ['x', 'y'])\n"
    )
    run = _run_test_file(tmp_path, "tests/test_sets.py", test)
    tags = run.failures["tests/test_sets.py::T::test_tags"]
    assert tags["compare"] == {"op": "==", "left": "{'a', 'b', 'c'}", "right": "{'a', 'b'}"}, tags
    member = run.failures["tests/test_sets.py::T::test_member"]
    assert member["compare"] == {"op": "in", "left": "'z'", "right": "['x', 'y']"}, member


def test_the_plugin_reads_each_unittest_assertion_as_the_snippet_writes_it():
    """The plugin restates the comparisons (it imports nothing of SEBGen): they must agree."""
    from sandbox._report_plugin import _unittest_op
    from tasks.evidence.outcome import UNITTEST_OPS

    assert {name: _unittest_op(name) for name in UNITTEST_OPS} == {
        name: ("" if name == "assertCountEqual" else op) for name, op in UNITTEST_OPS.items()
    }


def test_a_hypothesis_test_is_stated_with_the_values_it_drew_not_those_it_rebound(tmp_path):
    """bitstring's Hypothesis tests rebind their drawn arguments (`if start is None: start = 0`):
    the frame's locals at the failure are the rebound values, so the snippet's case was not the
    one that failed. Hypothesis's falsifying example (its note on the error) gives the drawn ones."""
    from tasks.evidence.python import explain_failure

    test = (
        "from hypothesis import given, strategies as st\n\n\n"
        "@given(start=st.none(), stop=st.just(3))\n"
        "def test_span(start, stop):\n"
        "    if start is None:\n"
        "        start = stop - 1\n"
        "    assert stop - start == 3\n"
    )
    files = {"tests/test_span.py": test, "pyproject.toml": '[project]\nname = "span"\nversion = "0"\n'}
    repo, sha = make_repo(tmp_path / "repo", files)
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    report = backend.run_tests(repo, sha, [], ["tests/test_span.py"]).failures["tests/test_span.py::test_span"]
    assert "Falsifying example: test_span(" in report["notes"], report
    assert report["locals"]["start"] == "2"  # rebound
    found = explain_failure(test, "tests/test_span.py::test_span", report)
    lines = found.reproduction.splitlines()
    assert "start = None" in lines and "start = 2" not in lines, found.reproduction


def test_a_test_a_wrapper_of_another_module_runs_reports_its_own_line(tmp_path):
    """parameterized.expand runs each case through `standalone_func`, a wrapper in its own module
    without `__wrapped__`: the report gave the wrapper's line as the test file's (dateparser's
    cases pointed into another test's decorator), and no case got evidence."""
    wrapper = (
        "def expand(cases):\n    def make(func):\n        def standalone_func(*a):\n"
        "            return func(*(a + cases[0]))\n        standalone_func.__name__ = func.__name__ + '_0'\n"
        "        return standalone_func\n    return make\n"
    )
    # the case's name is not its function's, as parameterized names it (`<function>_<index>`)
    test = "from wrap import expand\n\n\ndef sums(a, b):\n    total = a + b\n    assert total == 4\n\n\n"
    test += "test_sum_0 = expand([(1, 2)])(sums)\n"
    files = {"wrap.py": wrapper, "tests/test_sum.py": test, "pyproject.toml": '[project]\nname = "s"\nversion = "0"\n'}
    repo, sha = make_repo(tmp_path / "repo", files)
    backend = make_sandbox("local", limits=Limits(timeout_s=120), log=lambda m: None)
    report = backend.run_tests(repo, sha, [], ["tests/test_sum.py"]).failures["tests/test_sum.py::test_sum_0"]
    assert report["line"] == 6 and report["locals"]["total"] == "3", report


def test_a_case_parameter_is_reported_whole_up_to_a_long_input(tmp_path):
    """attrs' `test_can_unpickle_25_3_attributes` takes 370-character pickles: cut at the
    values' 240 characters, the statement could only give each case's input with a `...` in it."""
    from sandbox._report_plugin import PARAM_CHARS, VALUE_CHARS

    data = bytes(range(256)) + b"tail"
    assert VALUE_CHARS < len(repr(data)) < PARAM_CHARS
    test = (
        f"import pytest\n\n\n@pytest.mark.parametrize('data', [{data!r}])\n"
        "def test_load(data):\n    assert data == b''\n"
    )
    run = _run_test_file(tmp_path, "tests/test_pickles.py", test)
    (evidence,) = run.failures.values()
    assert evidence["params"]["data"] == repr(data)
