"""Suites whose environment must fit their age: pytest's internal and usage errors go to the
repair loop, which reads the traceback; a plugin that does not fit the suite gets the releases
contemporary with the commit (the suite's own pins first); old unittest/nose-era suites get
the test dependencies their requirement files and tox name.

The rule tests read logs captured from real runs (pytest 9 with plugins of 2020-2023); the two
Docker tests (marked) build the environments for real, with the package index.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pytest

from environment import detect_recipe, diagnose, make_sandbox
from environment.repair import api_modules, nose_setup_fix, outdated_dependency
from environment.versions import Release, Snapshot, contemporary, parse_releases, suite_pins
from sandbox import InstallRecipe, Limits
from sandbox.recipe import install_steps
from tests.sandbox_fixtures import require_docker, run_with_repairs, write

# pytest 9.0 with pytest-benchmark 3.2.3 (2020): pytest stops before any test (exit 3)
BENCHMARK_INTERNALERROR = """\
INTERNALERROR>   File "/opt/venv/lib/python3.11/site-packages/pluggy/_callers.py", line 121, in _multicall
INTERNALERROR>     res = hook_impl.function(*args)
INTERNALERROR>   File "/opt/venv/lib/python3.11/site-packages/pytest_benchmark/plugin.py", line 442, in pytest_configure
INTERNALERROR>     bs = config._benchmarksession = BenchmarkSession(config)
INTERNALERROR>   File "/opt/venv/lib/python3.11/site-packages/pytest_benchmark/logger.py", line 18, in __init__
INTERNALERROR>     self.term = py.io.TerminalWriter(file=sys.stderr)
INTERNALERROR> AttributeError: module 'py' has no attribute 'io'
"""
# pytest 9.0 with pytest-asyncio 0.21.1 (2023): every async test errors at setup
ASYNCIO_SETUP_ERROR = """\
    def _preprocess_async_fixtures(
>       if fixturedef.unittest:
E       AttributeError: 'FixtureDef' object has no attribute 'unittest'

/opt/venv/lib/python3.11/site-packages/pytest_asyncio/plugin.py:319: AttributeError
=========================== short test summary info ============================
ERROR tests/test_io.py::test_read - AttributeError: 'FixtureDef' object has no a...
"""
# pytest 9.0 with pytest-rerunfailures 9.1 (2020): the plugin does not import
RERUN_IMPORT_ERROR = """\
  File "/opt/venv/lib/python3.11/site-packages/_pytest/assertion/rewrite.py", line 197, in exec_module
    exec(co, module.__dict__)
  File "/opt/venv/lib/python3.11/site-packages/pytest_rerunfailures.py", line 7, in <module>
    from _pytest.resultlog import ResultLog
ModuleNotFoundError: No module named '_pytest.resultlog'
"""
# the code under test raising from a fixture: the code's own error, not the environment's
CODE_ERROR = """\
/opt/venv/lib/python3.11/site-packages/pytest_mock/plugin.py:120: in patch
    return self._start_patch(...)
tests/conftest.py:8: in settings
    return load_settings()
mylib/settings.py:14: KeyError
"""
JUNE_2021 = datetime(2021, 6, 1, tzinfo=timezone.utc)


def release(version: str, day: str, python: str = "") -> Release:
    return Release(version, datetime.fromisoformat(day + "T00:00:00+00:00"), python)


def test_the_contemporary_release_is_the_last_one_before_the_commit_within_the_suites_pins():
    releases = [
        release("6.2.4", "2021-05-04"),
        release("6.2.5", "2021-08-29"),
        release("7.0.0", "2022-02-03", ">=3.6"),
        release("7.0.0rc1", "2021-12-01"),
        release("8.0.0", "2024-01-27", ">=3.8"),
        release("9.0.0", "2026-01-01", ">=3.10"),
    ]
    assert contemporary(releases, JUNE_2021) == "6.2.4"
    assert contemporary(releases, JUNE_2021, floor="7.0.0") == "7.0.0"  # never below what the reporter needs
    assert contemporary(releases, datetime(2025, 1, 1, tzinfo=timezone.utc), spec="<8") == "7.0.0"
    assert contemporary(releases, datetime(2026, 6, 1, tzinfo=timezone.utc), python="3.9") == "8.0.0"
    assert contemporary(releases, JUNE_2021, spec=">=9") == "9.0.0"  # the suite's pin wins over the date
    # the index's JSON: dated by first upload, yanked files left out
    data = {
        "releases": {
            "1.0": [{"upload_time_iso_8601": "2020-01-10T10:25:12Z", "requires_python": ">=3.5", "yanked": False}],
            "1.1": [{"upload_time_iso_8601": "2020-02-01T00:00:00Z", "yanked": True}],
        }
    }
    assert [(r.version, r.uploaded.year, r.requires_python) for r in parse_releases(data)] == [("1.0", 2020, ">=3.5")]
    assert suite_pins(["pytest-asyncio==0.21.1", "pytest>=6,<8", "mock", "-r other.txt"]) == {
        "pytest-asyncio": "==0.21.1",
        "pytest": "<8,>=6",
    }


@pytest.mark.parametrize(
    "log, plugin",
    [
        (BENCHMARK_INTERNALERROR, "pytest-benchmark"),
        (ASYNCIO_SETUP_ERROR, "pytest-asyncio"),
        (RERUN_IMPORT_ERROR, "pytest-rerunfailures"),
    ],
)
def test_a_plugin_that_does_not_fit_the_suite_gets_the_suites_pins_and_a_pytest_of_its_day(log, plugin):
    # the suite pins both (its own pins need no index): exactly those are installed
    snapshot = Snapshot(JUNE_2021, "3.11", {plugin: "==1.2.3", "pytest": "==7.1.3"})
    fix = diagnose(log, InstallRecipe(), set(), "collection", snapshot)
    assert fix is not None and fix.rule == "contemporary-versions"
    assert fix.packages == [f"{plugin}==1.2.3", "pytest==7.1.3"]
    assert plugin in fix.reason and "2021-06-01" in fix.reason
    # once installed, the rule has nothing more to say (the loop stops instead of repeating)
    assert diagnose(log, InstallRecipe(packages=tuple(fix.packages)), set(), "collection", snapshot) is None


def test_the_code_under_tests_own_errors_are_not_a_version_problem():
    snapshot = Snapshot(JUNE_2021, "3.11", {"pytest-mock": "==3.6.1", "pytest": "==7.1.3"})
    assert diagnose(CODE_ERROR, InstallRecipe(), {"mylib", "settings"}, "collection", snapshot) is None
    # a missing part of pytest is not a package to install (no `pip install _pytest`)
    assert diagnose(RERUN_IMPORT_ERROR, InstallRecipe(), set(), "collection") is None


# DataProperty 76457cf6 (2021): its test extra installs pytest-md-report 0.8, whose pytablewriter
# imports `dataproperty`; the tree's own (0.54) comes first and lacks what it needs, so pytest
# stops while loading the plugins, before any test (exit 1, no report)
MD_REPORT_LOAD_ERROR = """\
  File "/work/sebgen/sebgen_report_plugin.py", line 72, in pytest_addhooks
    pluginmanager.load_setuptools_entrypoints("pytest11")
  File "/opt/venv/lib/python3.11/site-packages/pluggy/_manager.py", line 521, in load_setuptools_entrypoints
    plugin = ep.load()
  File "/usr/lib/python3.11/importlib/metadata/__init__.py", line 202, in load
    module = import_module(match.group('module'))
  File "<frozen importlib._bootstrap>", line 1206, in _gcd_import
  File "/opt/venv/lib/python3.11/site-packages/pytest_md_report/__init__.py", line 2, in <module>
    from ._const import ColorPolicy, ZerosRender
  File "/opt/venv/lib/python3.11/site-packages/pytest_md_report/_const.py", line 5, in <module>
    from pytablewriter.writer.text import MarkdownFlavor
  File "/opt/venv/lib/python3.11/site-packages/pytablewriter/__init__.py", line 8, in <module>
    from ._factory import TableWriterFactory
  File "/opt/venv/lib/python3.11/site-packages/tabledata/_core.py", line 13, in <module>
    from dataproperty import DataPropertyMatrix
ImportError: cannot import name 'DataPropertyMatrix' from 'dataproperty' (/work/tree/dataproperty/__init__.py)
"""


def test_a_plugin_that_cannot_load_beside_the_tree_is_uninstalled():
    snapshot = Snapshot(JUNE_2021, "3.11", {})
    fix = diagnose(MD_REPORT_LOAD_ERROR, InstallRecipe(), {"dataproperty", "setup"}, "collection", snapshot)
    assert fix is not None and fix.rule == "shadowed-plugin" and fix.uninstall == ["pytest-md-report"]
    assert fix.packages == [] and "`dataproperty`" in fix.reason
    assert fix.apply({}) == {"uninstall": ["pytest-md-report"]}
    removed = InstallRecipe(install_project=True, uninstall=("pytest-md-report",))
    steps = dict(install_steps(removed, "pip"))
    assert steps["uninstall"] == "pip uninstall -y pytest-md-report" and list(steps)[-2:] == ["uninstall", "check"]
    # once removed, the rule has nothing more to say
    assert diagnose(MD_REPORT_LOAD_ERROR, removed, {"dataproperty"}, "collection", snapshot) is None
    # a library the tree does not provide is no shadowing: the plugin's own problem
    assert diagnose(MD_REPORT_LOAD_ERROR, InstallRecipe(), {"other"}, "collection") is None


def test_a_recipe_without_uninstalls_keeps_the_key_it_had():
    # the environments built before the field existed are found again under the same key
    assert InstallRecipe().key() == "067cded526b57f80"
    assert InstallRecipe(packages=("a",), extras=("t",)).key("x") == "c012d793ab2fd07b"
    assert InstallRecipe(uninstall=("pytest-md-report",)).key() != InstallRecipe().key()


# -- old unittest / nose-era suites ---------------------------------------------------------
def commit_files(root: Path, files: dict[str, str], when: str = "2019-03-01T12:00:00+00:00") -> tuple[Path, str]:
    """A one-commit repo dated `when` (the commit's age is what the version rule reads)."""
    root.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
    }
    for args in (["init", "-q"], None, ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        if args is None:
            write(root, files)
            continue
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return root, sha.stdout.strip()


TOX_ONLY_ENVS = """\
[tox]
envlist = py27, py36

[testenv:py27]
deps =
    mock
    nose
commands = nosetests

[testenv:py36]
deps =
    nose
    -rtest/requirements.txt
commands = nosetests
"""


def test_a_nose_era_suite_gets_the_test_dependencies_its_tox_envs_and_test_folder_name(tmp_path):
    repo, sha = commit_files(
        tmp_path / "old",
        {
            "tox.ini": TOX_ONLY_ENVS,
            "test/requirements.txt": "mock\nsix\n",
            "tests/requirements.txt": "freezegun\n",
            "lib.py": "def f():\n    return 1\n",
            "test/test_lib.py": "import unittest\n\nimport mock\n\n\nclass LibTest(unittest.TestCase):\n    pass\n",
        },
    )
    recipe = detect_recipe(repo, sha)
    assert {"mock", "nose"} <= set(recipe.dev_packages)
    assert set(recipe.requirements) == {"test/requirements.txt", "tests/requirements.txt"}
    assert any("tox.ini" in s for s in recipe.sources)


def test_nose_that_does_not_import_on_this_python_is_replaced_by_its_maintained_fork():
    log = (
        '  File "/opt/venv/lib/python3.11/site-packages/nose/suite.py", line 106, in _set_tests\n'
        "    if isinstance(tests, collections.Callable) and not is_suite:\n"
        "AttributeError: module 'collections' has no attribute 'Callable'\n"
    )
    fix = diagnose(log, InstallRecipe(dev_packages=("nose",)), set(), "collection")
    assert fix is not None and fix.packages == ["pynose"] and fix.rule == "nose-on-new-python"


# pytest 9.0.3 on a nose-era file (module setup(), a yield test, a class with setup()): the yield
# test is a collection error that takes the whole file with it, so "no test ran"
NOSE_YIELD_LOG = (Path(__file__).resolve().parent.parent / "data" / "pytest9_nose_yield_tests.log").read_text()
NOSE_ERA_TESTS = """\
from calc import add

STATE = {}


def setup():
    STATE["base"] = 1


def test_add():
    assert add(STATE["base"], 1) == 2


def test_gen():
    for a in (1, 2):
        yield check, a


def check(a):
    assert add(a, 0) == a


class TestOld:
    def setup(self):
        self.x = 1

    def test_x(self):
        assert self.x == 1
"""


def test_a_nose_era_suite_that_collects_nothing_under_pytest_9_pins_pytest_below_8():
    fix = diagnose(NOSE_YIELD_LOG, InstallRecipe(), set(), "collection", Snapshot(None, installed={"pytest": "9.0.3"}))
    assert fix is not None and fix.rule == "nose-era-suite" and fix.packages == ["pytest<8"]
    assert "pytest 9.0.3" in fix.reason
    # the diagnosis is checked against the environment: under pytest 8.3 yield tests are only skipped
    assert (
        diagnose(NOSE_YIELD_LOG, InstallRecipe(), set(), "collection", Snapshot(None, installed={"pytest": "8.3.5"}))
        is None
    )
    # already pinned: no loop
    assert diagnose(NOSE_YIELD_LOG, InstallRecipe(packages=("pytest<8",)), set(), "collection") is None


def test_a_nose_era_suite_runs_once_repaired_its_setup_functions_called(tmp_path):
    repo, sha = commit_files(
        tmp_path / "nose",
        {"calc.py": "def add(a, b):\n    return a + b\n"}
        | {"tests/__init__.py": "", "tests/test_calc.py": NOSE_ERA_TESTS},
    )
    run, setup = run_with_repairs(repo, sha, "tests/test_calc.py", tmp_path / "cache")
    assert run.outcomes == {
        "tests/test_calc.py::test_add": "passed",  # nose's module setup() ran
        "tests/test_calc.py::test_gen": "skipped",
        "tests/test_calc.py::TestOld::test_x": "passed",
    }, run.log_tail
    assert [f["rule"] for f in setup["attempts"] if f["rule"]] == ["nose-era-suite"]


# pytest 9.0.3 on a nose-era file without yield tests (module setup()/teardown(), a class with
# setup()): everything collects, and the tests fail because nothing called their setup
NOSE_SETUP_LOG = (Path(__file__).resolve().parent.parent / "data" / "pytest9_nose_setup_functions.log").read_text()
NOSE_SETUP_TESTS = """\
from calc import add

STATE = {}


def setup():
    STATE["base"] = 1


def teardown():
    STATE.clear()


def test_add():
    assert add(STATE["base"], 1) == 2


class TestOld:
    def setup(self):
        self.x = 1

    def test_x(self):
        assert self.x == 1
"""
NOSE_FAILING = ["tests/test_calc.py::test_add", "tests/test_calc.py::TestOld::test_x"]


def test_failing_tests_whose_nose_setup_pytest_8_skips_pin_pytest_below_8():
    sources = {"tests/test_calc.py": NOSE_SETUP_TESTS}
    pytest9 = Snapshot(None, installed={"pytest": "9.0.3"})
    fix = nose_setup_fix(NOSE_SETUP_LOG, NOSE_FAILING, sources, InstallRecipe(), pytest9)
    assert fix is not None and fix.rule == "nose-setup" and fix.packages == ["pytest<8"]
    assert "2 failing test(s)" in fix.reason and "pytest 9.0.3" in fix.reason
    # checked against the environment: pytest 7 calls nose's setup, so it is not why they fail
    pytest7 = Snapshot(None, installed={"pytest": "7.4.4"})
    assert nose_setup_fix(NOSE_SETUP_LOG, NOSE_FAILING, sources, InstallRecipe(), pytest7) is None
    # and against the source: pytest's own setup_module/setup_method run under pytest 8
    modern = NOSE_SETUP_TESTS.replace("def setup():", "def setup_module():").replace(
        "def setup(self):", "def setup_method(self):"
    )
    assert (
        nose_setup_fix(NOSE_SETUP_LOG, NOSE_FAILING, {"tests/test_calc.py": modern}, InstallRecipe(), pytest9) is None
    )
    # already pinned: no loop
    pinned = InstallRecipe(packages=("pytest<8",))
    assert nose_setup_fix(NOSE_SETUP_LOG, NOSE_FAILING, sources, pinned, pytest9) is None


def test_a_nose_era_suite_without_yield_tests_passes_once_repaired(tmp_path):
    repo, sha = commit_files(
        tmp_path / "nose",
        {"calc.py": "def add(a, b):\n    return a + b\n"}
        | {"tests/__init__.py": "", "tests/test_calc.py": NOSE_SETUP_TESTS},
    )
    run, setup = run_with_repairs(repo, sha, "tests/test_calc.py", tmp_path / "cache")
    assert run.outcomes == dict.fromkeys(NOSE_FAILING, "passed"), run.log_tail  # setup() and setup(self) ran
    assert [f["rule"] for f in setup["attempts"] if f["rule"]] == ["nose-setup"]
    assert "KeyError: 'base'" in setup["first_failure"]  # the first failure's log stays in the record


# tenacity 2214708c (2021-01-29) under typeguard 4.6.1: its test calls check_type(name, value, type)
TYPEGUARD_FAILURE = "E   TypeError: check_type() takes 2 positional arguments but 3 were given"
TENACITY_TEST = "    def test_retry_type_annotations(self):\n        from typeguard import check_type\n"


def test_a_test_failing_on_the_api_of_a_newer_package_gets_the_release_of_the_commit():
    then = Snapshot(None, pins={"typeguard": "==2.10.0"}, installed={"typeguard": "4.6.1"})
    fix = outdated_dependency(TYPEGUARD_FAILURE, TENACITY_TEST, InstallRecipe(), {"tenacity"}, then)
    assert fix is not None and fix.rule == "contemporary-dependency" and fix.packages == ["typeguard==2.10.0"]
    assert "typeguard 4.6.1" in fix.reason
    # checked against the environment: the release of the commit already there, or no word on it
    same = Snapshot(None, pins={"typeguard": "==2.10.0"}, installed={"typeguard": "2.10.0"})
    assert outdated_dependency(TYPEGUARD_FAILURE, TENACITY_TEST, InstallRecipe(), set(), same) is None
    unknown = Snapshot(None, pins={"typeguard": "==2.10.0"})
    assert outdated_dependency(TYPEGUARD_FAILURE, TENACITY_TEST, InstallRecipe(), set(), unknown) is None
    # the project's own function, or a failure that names no import of the tests: the code's own problem
    assert outdated_dependency(TYPEGUARD_FAILURE, TENACITY_TEST, InstallRecipe(), {"typeguard"}, then) is None
    assert outdated_dependency(TYPEGUARD_FAILURE, "import typeguard\n", InstallRecipe(), set(), then) is None
    # already pinned: no loop
    pinned = InstallRecipe(packages=("typeguard==2.10.0",))
    assert outdated_dependency(TYPEGUARD_FAILURE, TENACITY_TEST, pinned, set(), then) is None
    gone = "E   AttributeError: module 'attr.validators' has no attribute 'old_name'"
    assert api_modules(gone, "") == ["attr.validators"]


TYPED_TEST = """\
import unittest


class TestTyping(unittest.TestCase):
    def test_check_type(self):
        from typeguard import check_type

        check_type("value", 1, int)  # typeguard 2's signature; 3 and later take (value, type)
"""


@pytest.mark.slow
def test_the_repair_loop_pins_a_test_dependency_to_the_release_of_the_commit(tmp_path):
    """For real, with the package index: the newest typeguard fails the 2021 suite, typeguard
    of January 2021 passes it."""
    repo, sha = commit_files(
        tmp_path / "typed",
        {"lib.py": "X = 1\n", "tests/requirements.txt": "typeguard\n", "tests/test_typed.py": TYPED_TEST},
        when="2021-01-29T12:00:00+00:00",
    )
    run, setup = run_with_repairs(repo, sha, "tests/test_typed.py", tmp_path / "cache")
    assert run.outcomes == {"tests/test_typed.py::TestTyping::test_check_type": "passed"}, run.log_tail
    assert [a["rule"] for a in setup["attempts"] if a["rule"]] == ["contemporary-dependency"]
    assert any(p.startswith("typeguard==2.") for p in setup["recipe"]["packages"]), setup["recipe"]


# -- for real, in Docker --------------------------------------------------------------------
BENCH_TEST = "from calc import add\n\n\ndef test_add_is_fast(benchmark):\n    assert benchmark(add, 2, 3) == 5\n"


@pytest.mark.docker
def test_a_usage_error_then_an_internal_error_go_to_the_repair_loop_which_reads_their_tracebacks(tmp_path):
    require_docker()
    repo, sha = commit_files(
        tmp_path / "bench",
        {
            "requirements-test.txt": "pytest-benchmark==3.2.3\n",  # the suite's own pin, from 2020
            "calc.py": "def add(a, b):\n    return a + b\n",
            # a conftest that imports what nothing declares: pytest exits 4 (usage error) first
            "tests/conftest.py": "import six  # noqa: F401\n",
            "tests/test_calc.py": BENCH_TEST,
        },
        when="2021-06-01T12:00:00+00:00",
    )
    logs: list[str] = []
    backend = make_sandbox(
        "docker",
        limits=Limits(timeout_s=120, memory_mb=1024),
        cache_dir=tmp_path / "cache",
        setup_attempts=3,
        log=logs.append,
    )
    try:
        run = backend.run_tests(repo, sha, (), ["tests/test_calc.py"])
        setup = backend.environment_setup(repo, sha)
    finally:
        backend.close()
    assert run.outcomes == {"tests/test_calc.py::test_add_is_fast": "passed"}, (run.note, run.log_tail)
    collection = [a for a in setup["attempts"] if a["stage"] == "collection"]
    # exit 4 (the conftest's import), then exit 3 (pytest 9 and the 2020 plugin): each read and repaired
    assert [a["rule"] for a in collection] == ["missing-module", "contemporary-versions"], setup["attempts"]
    # pytest of June 2021 is 6.2.4; the reporter's floor on Python 3.11 lifts it to 7.0.0
    assert setup["recipe"]["packages"] == ["six", "pytest-benchmark==3.2.3", "pytest==7.0.0"]
    assert sum("could not run; repair" in m for m in logs) == 2
