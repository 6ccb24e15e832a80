"""The files the failing tests read that change with them are shown as diffs (`changed_test_inputs`).

flake8-bugbear's `test_eval[B902]` reads `tests/eval_files/b902.py`, whose new lines are the code
the checker must report on: the tests are withheld, so five blind raters discarded statements that
only pointed at the file."""

from __future__ import annotations

from llm.offline import write_statement
from records import FailureEvidence, Task
from tasks.mining import Candidate
from tasks.statement import TEST_INPUT_LINES, changed_test_inputs, data_files_in_tree
from tests.sandbox_fixtures import diff_for, git, make_repo, write

TEST = "import pytest\n\n\n@pytest.mark.parametrize('code', ['B902'])\ndef test_eval(code):\n    assert code\n"
EVAL = "class Meta(type):\n    def __new__(mcs, name): ...\n"
NEW_EVAL = EVAL + "\n\nclass Dotted(abc.ABCMeta):\n    def __init__(self, name): ...  # B902: 17\n"


def _task_and_candidate(tmp_path, changes: dict[str, str]):
    files = {"tests/test_checks.py": TEST, "tests/eval_files/b902.py": EVAL, "tests/eval_files/b903.py": EVAL}
    repo, _ = make_repo(tmp_path / "repo", files)
    test_patch = diff_for(repo, changes)
    write(repo, changes)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "tests")
    sha = git(repo, "rev-parse", "HEAD")
    task = Task(
        "t-1",
        "acme/check",
        sha,
        "",
        test_patch,
        "",
        "",
        "BUG_FIX",
        "s",
        FAIL_TO_PASS=["tests/test_checks.py::test_eval[B902]"],
    )
    candidate = Candidate("acme/check", str(repo), sha, "", "Fix B902", "", "", ["bugbear.py"], [], "bug_fix")
    return task, candidate


def test_the_input_file_a_failing_test_names_is_shown_and_others_are_not(tmp_path):
    changes = {
        "tests/eval_files/b902.py": NEW_EVAL,
        "tests/eval_files/b903.py": NEW_EVAL,  # no failing test names it
        "tests/test_other.py": TEST + "\n\ndef test_more():\n    assert 1\n",  # a test module
    }
    task, candidate = _task_and_candidate(tmp_path, changes)
    inputs = changed_test_inputs(candidate, task)
    assert [i["path"] for i in inputs] == ["tests/eval_files/b902.py"]
    assert "+    def __init__(self, name): ...  # B902: 17" in inputs[0]["diff"] and inputs[0]["omitted"] == 0


def test_a_long_input_is_cut_and_says_how_much_is_left_out(tmp_path):
    long_eval = EVAL + "".join(f"x{i} = {i}  # B902: {i}\n" for i in range(TEST_INPUT_LINES + 20))
    task, candidate = _task_and_candidate(tmp_path, {"tests/eval_files/b902.py": long_eval})
    (item,) = changed_test_inputs(candidate, task)
    assert len(item["diff"].splitlines()) == TEST_INPUT_LINES and item["omitted"] > 0


def test_the_statement_shows_the_inputs_diff_and_the_check_does_not_run_it():
    failure = FailureEvidence(
        "tests/test_checks.py::test_eval[B902]",
        kind="compare",
        call="run_checks('tests/eval_files/b902.py')",
        check="assert errors == expected",
        op="==",
        expected="[(6, 17, 'B902')]",
        observed="[]",
        reproduction=(
            "from bugbear import run_checks\nassert run_checks('tests/eval_files/b902.py') == [(6, 17, 'B902')]"
        ),
        function="run_checks",
    )
    diff = "@@ -1,2 +1,6 @@\n class Meta(type):\n     def __new__(mcs, name): ...\n+\n+\n+class Dotted(abc.ABCMeta):\n"
    context = {
        "task": "write_statement",
        "strategy_type": "BUG_FIX",
        "repo": "acme/check",
        "commit_subject": "Fix B902 for dotted metaclasses",
        "commit_body": "",
        "failing_tests": [{"id": failure.test_id, "assertion": failure.check}],
        "failures": [failure.to_dict()],
        "added_lines": [],
        "test_inputs": [{"path": "tests/eval_files/b902.py", "diff": diff, "omitted": 0}],
    }
    from tasks.reproduction import python_blocks

    text = write_statement(context, "Write an issue. Include a reproduction. no_leak")["problem_statement"]
    assert "The failing tests read `tests/eval_files/b902.py`, which changes with them" in text
    assert "```diff\n@@ -1,2 +1,6 @@" in text and "+class Dotted(abc.ABCMeta):" in text
    assert all("class Dotted" not in b.code for b in python_blocks(text))  # a diff is no snippet to run
    without = write_statement({**context, "test_inputs": []}, "Write an issue. Include a reproduction. no_leak")
    assert text.startswith(without["problem_statement"].split("\n\n")[0])  # the same title: the seed is unchanged


def test_data_the_change_adds_outside_both_patches_is_named_as_in_the_tree(tmp_path):
    """mdit-py-plugins' `tests/fixtures/subscript.md` (the cases a new plugin must render) is in
    neither patch: the solver's tree has it, and the statement says where the cases are."""
    files = {"tests/test_sub.py": "FIXTURES = 'subscript.md'\n\n\ndef test_all():\n    assert FIXTURES\n"}
    repo, parent = make_repo(tmp_path / "repo", files)
    write(repo, {"tests/fixtures/subscript.md": "~a~\n.\n<p><sub>a</sub></p>\n", "docs/index.md": "# docs\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fixtures")
    sha = git(repo, "rev-parse", "HEAD")
    task = Task("t-1", "acme/md", sha, "", "", "", "", "FEATURE_ADD", "s", FAIL_TO_PASS=["tests/test_sub.py::test_all"])
    candidate = Candidate("acme/md", str(repo), sha, parent, "Add subscript", "", "", [], [], "feature_add")
    assert data_files_in_tree(candidate, task) == ["tests/fixtures/subscript.md"]
    context = {
        "task": "write_statement",
        "strategy_type": "FEATURE_ADD",
        "repo": "acme/md",
        "commit_subject": "Add subscript plugin",
        "failing_tests": [{"id": "tests/test_sub.py::test_all", "assertion": "assert FIXTURES"}],
        "test_data": ["tests/fixtures/subscript.md"],
    }
    text = write_statement(context, "Write an issue.")["problem_statement"]
    assert "The cases and results the failing tests check are in `tests/fixtures/subscript.md`" in text


def test_a_file_whose_stem_is_only_a_word_of_a_test_name_is_no_input(tmp_path):
    """dateparser: `docs/settings.rst`, edited by the change, was named as where the cases are,
    because "settings" is a word of `test_check_settings_17`; the tests never read it."""
    files = {"tests/test_conf.py": "def test_check_settings():\n    assert True\n"}
    repo, parent = make_repo(tmp_path / "repo", files)
    write(repo, {"docs/settings.rst": "Settings\n========\n", "tests/data/test_check_settings.txt": "x\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "docs")
    sha = git(repo, "rev-parse", "HEAD")
    task = Task(
        "t-1",
        "acme/d",
        sha,
        "",
        "",
        "",
        "",
        "FEATURE_ADD",
        "s",
        FAIL_TO_PASS=["tests/test_conf.py::test_check_settings"],
    )
    candidate = Candidate("acme/d", str(repo), sha, parent, "Add a setting", "", "", [], [], "feature_add")
    assert data_files_in_tree(candidate, task) == ["tests/data/test_check_settings.txt"]  # named after the test
