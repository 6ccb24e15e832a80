"""FAIL_TO_PASS holds only tests that fail for the change's own reason: a test that never ran on
the buggy state (a conftest or its module failed to load) counts only when the test patch adds or
changes it; a task left with none is rejected (the attrs PR tasks whose conftest imports a name
the fix adds, with a thousand "failing" tests). Real pytest runs through the local sandbox."""

import subprocess
from pathlib import Path

from environment import make_sandbox
from records import Task
from sandbox import Limits
from tasks.validate import Validator, check_functional_layer, definition_lines

SOURCE = "def add(a, b):\n    return a + b\n"
FLAG = "FLAG = True\n"
PASSING = "".join(
    f"def test_still_{i}():\n    from pkg import add\n    assert add({i}, 1) == {i + 1}\n\n\n" for i in range(5)
)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def repo_with(tmp_path: Path, before: dict[str, str], after: dict[str, str]) -> tuple[Path, str]:
    """A repository whose HEAD turns `before` into `after` (files not named stay as they are)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "t@example.com")
    _git(repo, "config", "user.name", "t")
    for files in (before, after):
        for rel, text in files.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "change")
    return repo, _git(repo, "rev-parse", "HEAD").strip()


def task_of(repo: Path, sha: str, tests: list[str]) -> Task:
    source = _git(repo, "diff", f"{sha}^", sha, "--", "pkg")
    return Task(
        instance_id="t",
        repo="t/repo",
        base_commit=sha,
        patch=source,
        test_patch=_git(repo, "diff", f"{sha}^", sha, "--", *tests),
        problem_statement="x",
        bug_patch=_git(repo, "diff", sha, f"{sha}^", "--", "pkg"),
        strategy_type="BUG_FIX",
        strategy_id="s",
    )


def functional(repo: Path, task: Task):
    validator = Validator(backend=make_sandbox("local", limits=Limits(timeout_s=120)), reruns=1)
    return check_functional_layer(task, validator, repo)


def test_a_task_whose_conftest_imports_the_fixs_name_is_rejected_not_kept_with_every_test(tmp_path):
    repo, sha = repo_with(
        tmp_path,
        {"pkg/__init__.py": SOURCE, "conftest.py": "", "tests/test_old.py": PASSING},
        {"pkg/__init__.py": SOURCE + FLAG, "conftest.py": "from pkg import FLAG  # noqa\n"},
    )
    task = task_of(repo, sha, ["conftest.py"])
    result = functional(repo, task)
    assert not result.passed and result.category == "no_f2p"
    assert result.reason.startswith("no test fails for the change's own reason: 5 test(s) never ran")
    assert task.FAIL_TO_PASS == []


def test_tests_kept_from_loading_by_a_conftest_leave_fail_to_pass_and_the_real_failure_stays(tmp_path):
    buggy, fixed = "def add(a, b):\n    return a - b\n", SOURCE + FLAG
    repo, sha = repo_with(
        tmp_path,
        {"pkg/__init__.py": buggy, "tests/sub/conftest.py": "", "tests/sub/test_old.py": PASSING},
        {
            "pkg/__init__.py": fixed,
            "tests/sub/conftest.py": "from pkg import FLAG  # noqa\n",
            "tests/sub/test_old.py": PASSING + "# a line outside its tests: the module runs\n",
            "tests/test_add.py": "from pkg import add\n\n\ndef test_add():\n    assert add(2, 1) == 3\n",
        },
    )
    task = task_of(repo, sha, ["tests"])
    result = functional(repo, task)
    assert result.passed, result.reason
    assert task.FAIL_TO_PASS == ["tests/test_add.py::test_add"]
    assert "5 test(s) never ran with bug_patch applied" in result.reason and "left out of FAIL_TO_PASS" in result.reason


def test_a_new_test_module_that_imports_the_new_name_stays_fail_to_pass(tmp_path):
    old_module = "from pkg import add\n\n\n" + PASSING
    new_module = "from pkg import FLAG, add\n\n\n" + PASSING + "def test_flag():\n    assert FLAG\n"
    repo, sha = repo_with(
        tmp_path,
        {"pkg/__init__.py": SOURCE, "tests/test_old.py": old_module},
        {"pkg/__init__.py": SOURCE + FLAG, "tests/test_old.py": new_module},
    )
    task = task_of(repo, sha, ["tests"])
    result = functional(repo, task)
    # the module fails to import on the buggy state: its new test counts (the test patch added
    # it), the five it only kept from loading do not
    assert result.passed, result.reason
    assert task.FAIL_TO_PASS == ["tests/test_old.py::test_flag"]


# a linter plugin's item per test module, as pytest-mypy's `::mypy`: it fails while the module
# uses a name the package lacks
LINTER_CONFTEST = """import re

import pytest


class Lint(pytest.Item):
    def runtest(self):
        import pkg

        for name in re.findall(r"from pkg import (\\w+)", self.path.read_text()):
            assert hasattr(pkg, name), f"{name} is not defined in pkg"


class Module(pytest.File):
    def collect(self):
        yield Lint.from_parent(self, name="mypy")


def pytest_collect_file(file_path, parent):
    if file_path.name.startswith("test_") and file_path.suffix == ".py":
        return Module.from_parent(parent, path=file_path)
"""


def test_a_linter_item_that_fails_on_the_buggy_state_leaves_fail_to_pass(tmp_path):
    """docopt-ng f467cbc7: pytest-mypy's `tests/test_docopt.py::mypy` failed before the fix only
    because the new tests import `lint_docstring`; no statement can tell a solver about it."""
    new_test = "def test_flag():\n    from pkg import FLAG\n\n    assert FLAG\n"
    repo, sha = repo_with(
        tmp_path,
        {"pkg/__init__.py": SOURCE, "conftest.py": LINTER_CONFTEST, "tests/test_old.py": PASSING},
        {"pkg/__init__.py": SOURCE + FLAG, "tests/test_new.py": new_test},
    )
    task = task_of(repo, sha, ["tests"])
    result = functional(repo, task)
    assert result.passed, result.reason
    assert task.FAIL_TO_PASS == ["tests/test_new.py::test_flag"]
    assert "1 linter item(s) failed on the buggy state (tests/test_new.py::mypy)" in result.reason


def test_a_task_whose_only_failure_is_a_linter_item_is_rejected(tmp_path):
    # only the linter sees the new name: no test of the module fails
    remark = "# a later change will: from pkg import FLAG\n\n\n"
    repo, sha = repo_with(
        tmp_path,
        {"pkg/__init__.py": SOURCE, "conftest.py": LINTER_CONFTEST, "tests/test_old.py": PASSING},
        {"pkg/__init__.py": SOURCE + FLAG, "tests/test_old.py": remark + PASSING},
    )
    result = functional(repo, task_of(repo, sha, ["tests"]))
    assert not result.passed and result.category == "no_f2p", result.reason
    assert "linter item(s) failed on the buggy state" in result.reason


def test_definition_lines_find_a_method_with_its_decorators_and_a_js_test():
    source = "import pytest\n\n\nclass TestA:\n    @pytest.mark.x\n    def test_b(self):\n        pass\n"
    assert definition_lines(source, "tests/test_a.py::TestA::test_b[1-2]") == (5, 7)
    assert definition_lines(source, "tests/test_a.py::TestA::test_missing") is None
    js = "describe('a', () => {\n  it('b', () => {\n    expect(1).toBe(1);\n  });\n});\n"
    assert definition_lines(js, "test/a.test.js::a > b") == (2, 4)


def test_a_task_left_without_own_failures_is_filed_as_no_f2p_even_with_a_flaky_test():
    # attrs 6731eea0: one of the 1089 tests was flaky in the gold state; the loss is still no_f2p
    from sandbox import FunctionalResult
    from tasks.validate import NO_OWN_FAILURE, _functional_category

    result = FunctionalResult(False, f"{NO_OWN_FAILURE}: 1088 test(s) never ran", flaky=["tests/test_a.py::test_x"])
    assert _functional_category(result) == "no_f2p"
    assert _functional_category(FunctionalResult(False, "1 flaky test(s) dropped", flaky=["t::x"])) == "flaky"
    # "no test ran" quotes the file's load error: its words (build, apply) do not make it another category
    quoted = "no test ran in t.py: t.py does not load: ImportError: cannot import name 'build_index' from 'lib'"
    assert _functional_category(FunctionalResult(False, quoted)) == "no_f2p"


def test_a_task_whose_test_wants_the_references_last_digits_is_rejected_as_narrow(tmp_path):
    """coloraide 19e491b5: the tests compare wavelengths that the buggy state gets right to 13
    digits; only a fix repeating the reference's arithmetic passes, and raters discarded it."""
    before = {"pkg/__init__.py": "def total(xs):\n    return sum(xs)\n"}
    after = {
        "pkg/__init__.py": "import math\n\n\ndef total(xs):\n    return math.fsum(xs)\n",
        "tests/test_total.py": "from pkg import total\n\n\ndef test_tenths():\n    assert total([0.1] * 10) == 1.0\n",
    }
    repo, sha = repo_with(tmp_path, before, after)
    result = functional(repo, task_of(repo, sha, ["tests"]))
    assert not result.passed and result.category == "narrow_tests", result.reason
    assert "requires 1.0 where the buggy state gives 0.9999999999999999" in result.reason


def test_last_digits_only_reads_numbers_and_their_structures_not_other_values():
    from records import FailureEvidence
    from tasks.validate import last_digits_only

    def compare(observed: str, expected: str) -> FailureEvidence:
        return FailureEvidence("t.py::t", kind="compare", op="==", observed=observed, expected=expected)

    assert last_digits_only([compare("[0.6697060045245519, 1]", "[0.6697060045245415, 1]")])
    assert not last_digits_only([compare("[0.67, 1]", "[0.6697060045245415, 1]")])  # a wrong value
    assert not last_digits_only([compare("[1, 2]", "[1, 3]")])  # integers: no rounding
    assert not last_digits_only([compare("'0.30000000000000004'", "'0.3'")])  # a text is what it says
    assert not last_digits_only([compare("[0.1, 0.2]", "[0.1, 0.2, 0.3]")])  # one more value


def test_a_value_made_of_the_tests_own_name_is_narrow():
    """mashumaro: the required `$ref` holds `test_jsonschema_for_dataclass__locals__DataClass`,
    the qualname of a class the test defines; the statement could state it only by naming the test."""
    from records import FailureEvidence
    from tasks.validate import names_the_test

    def compare(observed: str, expected: str) -> FailureEvidence:
        test_id = "tests/t.py::test_schema_for_dataclass"
        return FailureEvidence(test_id, kind="compare", op="==", observed=observed, expected=expected)

    wanted = "{'$ref': '#/$defs/test_schema_for_dataclass__locals__DataClass'}"
    assert "the test's own name" in names_the_test([compare("{'$ref': '#/$defs/DataClass'}", wanted)])
    assert not names_the_test([compare(wanted.replace("DataClass'", "Other'"), wanted)])  # it differs elsewhere
    assert not names_the_test([compare("{'$ref': '#/$defs/DataClass'}", "{'$ref': '#/$defs/Data'}")])
