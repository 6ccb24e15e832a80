"""How SEBGen runs a real project's suite: whatever the suite's configuration says (restrictive
ini filters, testpaths, `-x`, a coverage threshold), the canaries are collected and checked,
the task's tests get their outcomes, and the suite's own session policies are no verdict.

The local tests need no install (a venv without pip); the Docker ones (marked) share one
backend and build one environment image with pytest-cov.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from environment import make_sandbox
from sandbox import BuildError, Limits, SandboxError, check_functional, export_tree
from sandbox.report import parse_report
from sandbox.tree import submodule_shown
from tests.sandbox_fixtures import bug_and_gold, bug_task, git, make_repo, require_docker, write

CALC = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
CALC_BUG = CALC.replace("return a + b", "return a - b")
CHECKS = (
    "from calc import add, sub\n\n\n"
    "def check_add():\n    assert add(2, 3) == 5\n\n\n"
    "def check_sub():\n    assert sub(5, 3) == 2\n\n\n"
    "class CheckCalc:\n    def check_both(self):\n        assert add(1, sub(2, 1)) == 2\n"
)
# every filter pytest offers is restrictive here, and -x would end the session at the first failure
RESTRICTIVE = """\
[tool.pytest.ini_options]
python_files = ["check_*.py"]
python_classes = ["Check"]
python_functions = ["check_"]
testpaths = ["checks"]
addopts = "-x -m 'not slow' -k 'not nothing_matches_this'"
"""
OUTSIDE = "def check_never():\n    assert False, 'outside testpaths: never collected'\n"
LOCAL = Limits(timeout_s=120)


def restrictive_task(root, pyproject: str = RESTRICTIVE, extra: dict | None = None):
    files = {"pyproject.toml": pyproject, "calc.py": CALC, "checks/check_calc.py": CHECKS, "other/check_x.py": OUTSIDE}
    return bug_task(root, {**files, **(extra or {})}, {"calc.py": CALC_BUG})


@pytest.fixture
def local(tmp_path):
    backend = make_sandbox("local", limits=LOCAL, cache_dir=tmp_path / "cache", log=lambda m: None)
    yield backend
    backend.close()


def test_canaries_are_collected_whatever_the_ini_filters_and_testpaths_say(local, tmp_path):
    repo, sha, bug, gold = restrictive_task(tmp_path / "repo")
    suite = local.run_tests(repo, sha, [], None)  # no files: the suite's testpaths decide
    assert not suite.broken, suite.note
    assert suite.outcomes == {
        "checks/check_calc.py::check_add": "passed",
        "checks/check_calc.py::check_sub": "passed",
        "checks/check_calc.py::CheckCalc::check_both": "passed",
    }, suite.log_tail
    # the bug state: the canaries ran (no broken run) and -x did not end the session at the first failure
    result = check_functional(local, repo, sha, bug, gold, ["checks/check_calc.py"], reruns=1)
    assert result.passed, result.reason
    assert result.fail_to_pass == ["checks/check_calc.py::CheckCalc::check_both", "checks/check_calc.py::check_add"]
    assert result.pass_to_pass == ["checks/check_calc.py::check_sub"]


def test_a_session_pytest_ends_before_any_test_is_no_tampering():
    # the must-fail canary never ran because pytest itself gave up: not a verdict, not an attack
    report = '{"outcomes": {}, "collect_errors": [], "exitstatus": 3}'
    parsed = parse_report(report, 3, ["tests/test_x.py"], False, ("test_aa", "test_bb"))
    assert not parsed.broken and "internal error (exit 3) before any test ran" in parsed.note
    assert parsed.outcomes == {"tests/test_x.py": "error"}  # nothing passes
    # the canaries ran and pytest still says 3: untrusted (never resolves), said as what it is
    ran = '{"outcomes": {"x.py::test_aa": "failed", "x.py::test_bb": "passed"}, "exitstatus": 3}'
    after = parse_report(ran, 3, None, False, ("test_aa", "test_bb"))
    assert after.broken and "internal error (exit 3) after its tests began" in after.note
    assert "tamper" not in after.note
    # a session whose report names a passing must-fail canary is still tampering
    forged = '{"outcomes": {"x.py::test_aa": "passed", "x.py::test_bb": "passed"}, "exitstatus": 0}'
    assert "tampered" in parse_report(forged, 0, None, False, ("test_aa", "test_bb")).note


def test_a_session_pytest_gave_up_on_says_why_from_its_output():
    log = (Path(__file__).resolve().parent.parent / "data" / "pytest9_gone_warning_class.log").read_text()
    parsed = parse_report("", 4, ["tests/test_objects.py"], False, ("test_aa", "test_bb"), log)
    assert parsed.outcomes == {"tests/test_objects.py": "error"} and not parsed.broken
    assert parsed.note.startswith("pytest exited with code 4 and wrote no report: ERROR: while parsing")
    assert parsed.note.endswith("AttributeError: module 'pytest' has no attribute 'PytestRemovedIn8Warning'")
    usage = "ERROR: usage: pytest [options]\npytest: error: unrecognized arguments: --cov\n  rootdir: /r\n"
    assert parse_report("", 4, None, False, None, usage).note.endswith(
        "... pytest: error: unrecognized arguments: --cov"
    )
    stopped = '{"outcomes": {}, "collect_errors": [], "exitstatus": 4}'
    assert parse_report(stopped, 4, None, False, ("test_aa", "test_bb"), usage).note.startswith(
        "pytest stopped with a usage error (exit 4) before any test ran: ERROR: usage:"
    )
    # no error line (or an ordinary failing run): the note stays as it was
    assert parse_report("", 4, None, False, None, "").note == "pytest exited with code 4 and wrote no report"
    assert parse_report("", 1, None, False, None, log).note == "pytest exited with code 1 and wrote no report"
    assert len(parse_report("", 4, None, False, None, "ERROR: " + "x" * 1000).note) < 400


# -- git submodules ------------------------------------------------------------------------
SUB_CONFTEST = (
    "import pathlib\n\nDATA = (pathlib.Path(__file__).parent.parent / 'vendor' / 'data' / 'values.txt').read_text()\n"
)
SUB_TEST = (
    "from tests.conftest import DATA\n\n\ndef test_reads_the_submodule():\n    assert DATA.split() == ['1', '2']\n"
)


def superproject(tmp_path):
    """(superproject, its commit, the submodule's pinned sha): the tests read vendor/data from a submodule."""
    sub, sub_sha = make_repo(tmp_path / "data-src", {"values.txt": "1 2\n", "nested/readme.txt": "x\n"})
    top, _ = make_repo(tmp_path / "top-src", {"tests/__init__.py": "", "tests/conftest.py": SUB_CONFTEST})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/data")
    write(top, {"tests/test_sub.py": SUB_TEST})
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "tests read the vendored data")
    return top, git(top, "rev-parse", "HEAD"), sub_sha


def test_a_snapshot_includes_each_submodule_at_its_pinned_commit(local, tmp_path):
    top, sha, sub_sha = superproject(tmp_path)
    clone = tmp_path / "with"
    git(tmp_path, "-c", "protocol.file.allow=always", "clone", "-q", "--recurse-submodules", str(top), str(clone))
    tree = export_tree(clone, sha, tmp_path / "tree")
    assert (tree / "vendor" / "data" / "values.txt").read_text() == "1 2\n"
    assert (tree / "vendor" / "data" / "nested" / "readme.txt").is_file()
    run = local.run_tests(clone, sha, [], ["tests/test_sub.py"])
    assert run.outcomes == {"tests/test_sub.py::test_reads_the_submodule": "passed"}, run.log_tail


def test_a_missing_submodule_the_tests_read_rejects_the_commit_after_the_run_with_one_sentence(local, tmp_path):
    top, sha, sub_sha = superproject(tmp_path)
    clone = tmp_path / "without"
    git(tmp_path, "clone", "-q", str(top), str(clone))  # no --recurse-submodules: vendor/data is empty
    with pytest.raises(SandboxError) as err:
        local.run_tests(clone, sha, [], ["tests/test_sub.py"])
    message = str(err.value)
    assert "\n" not in message and "needs the submodule vendor/data" in message and sub_sha[:10] in message
    assert "git submodule update --init" in message
    assert "vendor/data/values.txt" in message  # the run's own line that shows it
    assert local.builds  # tried first: the commit was run, not refused on sight


def without_submodule(tmp_path):
    """(clone without vendor/data, a commit whose tests read it, a later one whose tests do not)."""
    top, needs, _ = superproject(tmp_path)
    git(top, "rm", "-q", "tests/test_sub.py")
    test_add = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    write(top, {"tests/conftest.py": "", "calc.py": CALC, "tests/test_calc.py": test_add})
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "calc; the tests no longer read vendor/data (the gitlink stays)")
    free = git(top, "rev-parse", "HEAD")
    clone = tmp_path / "without"
    git(tmp_path, "clone", "-q", str(top), str(clone))
    return clone, needs, free


def check_submodule_try_first(backend, tmp_path):
    clone, needs, free = without_submodule(tmp_path)
    bug, gold = bug_and_gold(clone, free, {"calc.py": CALC}, {"calc.py": CALC.replace("a + b", "a - b")})
    result = check_functional(backend, clone, free, bug, gold, ["tests/test_calc.py"])
    assert result.passed and result.fail_to_pass == ["tests/test_calc.py::test_add"], result
    with pytest.raises(SandboxError, match="needs the submodule vendor/data at .*vendor/data/values.txt"):
        backend.run_tests(clone, needs, [], ["tests/test_sub.py"])


def test_a_commit_whose_tests_never_read_the_missing_submodule_is_validated_as_any_other(local, tmp_path):
    check_submodule_try_first(local, tmp_path)


def test_an_install_that_reads_the_missing_submodule_names_it(local, tmp_path):
    check_install_reads_missing_submodule(local, tmp_path)


def check_install_reads_missing_submodule(backend, tmp_path):
    clone, _, free = without_submodule(tmp_path)
    setup_py = "from setuptools import setup\n\nsetup(name='calc', version=open('vendor/data/values.txt').read())\n"
    write(clone, {"setup.py": setup_py})
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "the version comes from the vendored data")
    sha = git(clone, "rev-parse", "HEAD")
    with pytest.raises(SandboxError, match="needs the submodule vendor/data") as err:
        backend.run_tests(clone, sha, [], ["tests/test_calc.py"])
    assert not isinstance(err.value, BuildError)  # no repair loop for what only the clone can fix


def test_only_a_log_line_reading_or_importing_the_missing_submodule_names_it(tmp_path):
    top, sha, _ = superproject(tmp_path)
    clone = tmp_path / "without"
    git(tmp_path, "clone", "-q", str(top), str(clone))
    assert submodule_shown(clone, sha, "FileNotFoundError: '/w/tree/vendor/data/values.txt'") is not None
    assert submodule_shown(clone, sha, "ModuleNotFoundError: No module named 'vendor.data.x'") is not None
    assert submodule_shown(clone, sha, "ModuleNotFoundError: No module named 'data'") is not None
    assert submodule_shown(clone, sha, "E   assert 1 == 2\nsrc/myvendor/data/x.py:3") is None
    assert submodule_shown(clone, sha, "No module named 'database'") is None


# -- in Docker: one backend for the module ---------------------------------------------------
COVERAGE_POLICY = """\
[tool.pytest.ini_options]
addopts = "--cov=calc --cov-report=term-missing --cov-fail-under=99 -n 2 --dist loadfile"

[tool.coverage.report]
fail_under = 99
"""
UNCOVERED = CALC + "\n\ndef mul(a, b):\n    if a == 0:\n        return 0\n    return a * b\n"
CALC_TESTS = (
    "from calc import add, sub\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_sub():\n    assert sub(5, 3) == 2\n"
)


@pytest.fixture(scope="module")
def docker(tmp_path_factory):
    require_docker()
    backend = make_sandbox(
        "docker", limits=Limits(timeout_s=120, memory_mb=1024), cache_dir=tmp_path_factory.mktemp("cache"), log=print
    )
    yield backend
    backend.close()


@pytest.mark.docker
def test_in_docker_a_commit_that_needs_no_missing_submodule_is_tried_and_one_that_does_says_so(docker, tmp_path):
    check_submodule_try_first(docker, tmp_path)


@pytest.mark.docker
def test_in_docker_an_image_build_that_reads_the_missing_submodule_names_it(docker, tmp_path):
    check_install_reads_missing_submodule(docker, tmp_path)


@pytest.mark.docker
def test_a_coverage_threshold_in_addopts_is_no_verdict_on_the_tests_sebgen_runs(docker, tmp_path):
    # a run of two passing tests covers calc.py far below 99%: the suite's own run would exit 1
    repo, sha, bug, gold = bug_task(
        tmp_path / "cov",
        {"pyproject.toml": COVERAGE_POLICY, "calc.py": UNCOVERED, "tests/test_calc.py": CALC_TESTS},
        {"calc.py": UNCOVERED.replace("return a + b", "return a - b")},
    )
    assert {"pytest-cov", "pytest-xdist"} <= set(docker.recipe(repo, sha).plugins)
    run = docker.run_tests(repo, sha, [], ["tests/test_calc.py"])
    assert not run.broken and "tamper" not in run.note, run.note
    assert run.exit_code == 0, run.log_tail
    assert "Required test coverage" not in run.log_tail and "gw0" not in run.log_tail  # no coverage, no workers
    assert run.outcomes == {"tests/test_calc.py::test_add": "passed", "tests/test_calc.py::test_sub": "passed"}
    result = check_functional(docker, repo, sha, bug, gold, ["tests/test_calc.py"], reruns=1)
    assert result.passed, result.reason
    assert (result.fail_to_pass, result.pass_to_pass) == (
        ["tests/test_calc.py::test_add"],
        ["tests/test_calc.py::test_sub"],
    )


PLUGINS_AS_NATIVELY_TEST = """\
import os

from _pytest.assertion.rewrite import AssertionRewritingHook


def test_the_environments_plugins_are_loaded_as_natively(pytestconfig):
    assert pytestconfig.pluginmanager.has_plugin("pytest_cov")
    # loaded by entry point, with its distribution: the ini's required_plugins finds it
    assert "pytest-cov" in {dist.project_name for _, dist in pytestconfig.pluginmanager.list_plugin_distinfo()}
    import pytest_cov

    assert not isinstance(pytest_cov.__loader__, AssertionRewritingHook)
    assert "PYTEST_DISABLE_PLUGIN_AUTOLOAD" not in os.environ
    assert "SEBGEN_LOAD_ENTRY_POINTS" not in os.environ
"""


@pytest.mark.docker
def test_in_docker_plugins_load_by_entry_point_without_rewriting_their_whole_distribution(docker, tmp_path):
    # autoloading marks every module of each plugin's distribution for assertion rewriting (all of
    # hypothesis, compiled again on every run); the native run names its plugins and does not
    repo, sha = make_repo(
        tmp_path / "plugins",
        {"pyproject.toml": COVERAGE_POLICY, "calc.py": CALC, "tests/test_plugins.py": PLUGINS_AS_NATIVELY_TEST},
    )
    run = docker.run_tests(repo, sha, [], ["tests/test_plugins.py"])
    assert run.outcomes == {"tests/test_plugins.py::test_the_environments_plugins_are_loaded_as_natively": "passed"}, (
        run.log_tail
    )


CALL_SITE_TEST = """\
import inspect
import os
import sys

import pytest

from calc import add

HERE = os.path.abspath(__file__)


def caller():
    frame = inspect.stack()[1]
    return os.path.abspath(frame.filename), frame.function, frame.lineno


@pytest.mark.parametrize("module, name", [(__name__, os.path.basename(__file__))])
def test_call_site(module, name):
    filename, function, line = caller()
    assert (filename, function, line) == (HERE, "test_call_site", inspect.currentframe().f_lineno - 1)
    assert sys.modules[module].__file__ == __file__
    assert os.path.relpath(HERE, os.getcwd()) == os.path.join("tests", name)
    assert sys.path.index(os.getcwd()) >= 0
    assert add(2, 3) == 5
"""


def call_site_task(root):
    """A commit that fixes add() and adds a test whose expected values come from its own call site."""
    from records import Task

    root.mkdir(parents=True)
    git(root, "init", "-q")
    write(root, {"calc.py": CALC_BUG, "tests/__init__.py": ""})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "add subtracts")
    parent = git(root, "rev-parse", "HEAD")
    write(root, {"calc.py": CALC, "tests/test_site.py": CALL_SITE_TEST})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "fix add, test it from its call site")
    sha = git(root, "rev-parse", "HEAD")

    def diff(a, b, *paths):
        return git(root, "diff", a, b, "--", *paths) + "\n"

    return Task(
        instance_id="local__calc-1",
        repo="local/calc",
        base_commit=sha,
        patch=diff(parent, sha, "calc.py"),
        test_patch=diff(parent, sha, "tests"),
        bug_patch=diff(sha, parent, "calc.py"),
        problem_statement="add() subtracts its arguments.",
        strategy_type="BUG_FIX",
        strategy_id="s",
        repo_path=str(root),
    )


@pytest.mark.docker
def test_a_test_that_reads_its_own_call_site_resolves_through_validation_and_evaluate(docker, tmp_path):
    from harness import evaluate_predictions
    from tasks.validate import Validator, check_functional_layer

    task = call_site_task(tmp_path / "site")
    layer = check_functional_layer(task, Validator(backend=docker, reruns=1), Path(task.repo_path))
    assert layer.passed, layer.reason  # the functional layer: both states, then nop and oracle through evaluate's path
    assert task.FAIL_TO_PASS == ["tests/test_site.py::test_call_site[tests.test_site-test_site.py]"]
    [result] = evaluate_predictions([task], {task.instance_id: [task.patch]}, docker, untrusted=False)
    assert result.attempts[0]["resolved"], result.attempts[0]
