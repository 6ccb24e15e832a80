"""One test per environment-synthesis rule, each on a small repository that needs the rule.

Detection tests read the recipe of a repo built here; the two Docker tests (marked `docker`)
build the environment for real and run the repo's tests, which fail without the rule: a
hatch-vcs version with no git tags, and a pytest config option defined by a plugin.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from packaging.version import Version

from environment import Fix, RecipeBook, SetupBackend, SetupError, detect_recipe, diagnose, make_sandbox
from environment.detect import extras_at
from environment.repair import PRETEND_VARS, missing_extra
from environment.versions import Snapshot, installed_versions
from sandbox import PRETEND_VERSION, Limits, install_commands, sandbox_pytest_version
from sandbox.repo_id import repo_name
from tests.sandbox_fixtures import make_repo, require_docker, run_with_repairs

VCS_PYPROJECT = """\
[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "vcs-demo"
dynamic = ["version"]

[tool.hatch.version]
source = "vcs"

[tool.hatch.build.targets.wheel]
packages = ["vcs_demo"]
"""
VCS_TEST = (
    """\
import importlib.metadata


def test_version_is_stamped():
    assert importlib.metadata.version("vcs-demo") == "%s"
"""
    % PRETEND_VERSION
)
VERSION_FILE_HOOK = """
[tool.hatch.build.hooks.vcs]
version-file = "vcs_demo/_version.py"
"""
VERSION_FILE_TEST = (
    """\
import vcs_demo


def test_package_version_comes_from_the_version_file():
    assert vcs_demo.__version__ == "%s"
"""
    % PRETEND_VERSION
)
PLUGIN_PYPROJECT = """\
[tool.pytest.ini_options]
addopts = "--timeout=60"
"""


def test_vcs_derived_version_gets_pretend_version_variables(tmp_path):
    repo, sha = make_repo(tmp_path / "vcs", {"pyproject.toml": VCS_PYPROJECT, "vcs_demo/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    env = dict(recipe.build_env)
    assert env["SETUPTOOLS_SCM_PRETEND_VERSION"] == PRETEND_VERSION
    assert env["SETUPTOOLS_SCM_PRETEND_VERSION_FOR_VCS_DEMO"] == PRETEND_VERSION
    assert recipe.install_project
    assert any(f"SETUPTOOLS_SCM_PRETEND_VERSION={PRETEND_VERSION}" in c for c in install_commands(recipe, "pip"))


def test_a_version_file_a_setup_py_names_is_written_into_each_runs_tree(tmp_path):
    """petl: `setup(use_scm_version={"write_to": "petl/version.py"})`; its conftest imports
    `petl.version`, and every run of the tree without it failed to load."""
    setup_py = (
        "from setuptools import setup\n\nsetup(\n    name='petl',\n"
        "    use_scm_version={'version_scheme': 'guess-next-dev', 'write_to': 'petl/version.py'},\n)\n"
    )
    repo, sha = make_repo(tmp_path / "petl", {"setup.py": setup_py, "petl/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    assert recipe.version_files == ("petl/version.py",)
    assert "SETUPTOOLS_SCM_PRETEND_VERSION" in dict(recipe.build_env)


@pytest.mark.slow  # builds an environment and runs the tests twice
def test_a_version_file_written_at_build_is_written_into_each_runs_tree(tmp_path):
    files = {
        "pyproject.toml": VCS_PYPROJECT + VERSION_FILE_HOOK + '\n[tool.setuptools_scm]\nwrite_to = "x/_v.py"\n',
        "vcs_demo/__init__.py": "from ._version import __version__\n",
        "tests/test_v.py": VERSION_FILE_TEST,
    }
    repo, sha = make_repo(tmp_path / "vf", files)
    recipe = detect_recipe(repo, sha)
    assert recipe.version_files == ("x/_v.py", "vcs_demo/_version.py")
    plain, plain_sha = make_repo(tmp_path / "plain", {"pyproject.toml": VCS_PYPROJECT, "vcs_demo/__init__.py": ""})
    assert detect_recipe(plain, plain_sha).version_files == ()
    backend = make_sandbox("local", limits=Limits(timeout_s=120), cache_dir=tmp_path / "cache", log=lambda m: None)
    run = backend.run_tests(repo, sha, (), ["tests/test_v.py"])
    assert run.outcomes == {"tests/test_v.py::test_package_version_comes_from_the_version_file": "passed"}, run.log_tail


def test_setup_py_with_setuptools_scm_and_pbr_are_vcs_versions(tmp_path):
    scm, sha = make_repo(
        tmp_path / "scm", {"setup.py": "from setuptools import setup\nsetup(name='x', use_scm_version=True)\n"}
    )
    assert "SETUPTOOLS_SCM_PRETEND_VERSION" in dict(detect_recipe(scm, sha).build_env)
    pbr, sha = make_repo(
        tmp_path / "pbr",
        {"setup.py": "from setuptools import setup\nsetup(pbr=True)\n", "setup.cfg": "[metadata]\nname = y\n"},
    )
    assert dict(detect_recipe(pbr, sha).build_env)["PBR_VERSION"] == PRETEND_VERSION


def test_plugins_required_by_pytest_config_are_installed(tmp_path):
    repo, sha = make_repo(
        tmp_path / "plug",
        {
            "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "--cov=pkg -n auto"\nasyncio_mode = "auto"\n',
            "tox.ini": "[pytest]\ntimeout = 30\n",
        },
    )
    plugins = detect_recipe(repo, sha).plugins
    assert set(plugins) == {"pytest-cov", "pytest-xdist", "pytest-asyncio", "pytest-timeout"}
    assert any("pytest-xdist" in c for c in install_commands(detect_recipe(repo, sha), "pip"))


def test_dependency_groups_expand_includes_and_prefer_test_groups(tmp_path):
    repo, sha = make_repo(
        tmp_path / "groups",
        {
            "pyproject.toml": """\
[project]
name = "g"
version = "1"

[dependency-groups]
test = ["iniconfig>=1", {include-group = "fixtures"}]
fixtures = ["six"]
dev = ["black", "tox", {include-group = "test"}]
docs = ["sphinx"]
"""
        },
    )
    recipe = detect_recipe(repo, sha)
    assert recipe.dev_packages == ("iniconfig>=1", "six")


def test_tox_deps_are_installed_without_factor_lines_or_lint_tools(tmp_path):
    repo, sha = make_repo(
        tmp_path / "tox",
        {
            "setup.py": "from setuptools import setup\nsetup(name='t')\n",
            "tox.ini": "[testenv]\ndeps =\n    iniconfig\n    py27: mock\n    flake8\n"
            "    -rrequirements/extra.txt\ncommands = pytest\n",
            "requirements/extra.txt": "six\n",
        },
    )
    recipe = detect_recipe(repo, sha)
    assert recipe.dev_packages == ("iniconfig",)
    assert recipe.requirements == ("requirements/extra.txt",)


def test_requirements_folder_installs_test_files_only(tmp_path):
    repo, sha = make_repo(
        tmp_path / "reqs",
        {
            "requirements/tests.txt": "pytest\n",
            "requirements/docs.txt": "sphinx\n",
            "requirements/typing.txt": "mypy\n",
            "requirements/tests.in": "pytest\n",
            "requirements-mypy.txt": "mypy\n",
            "requirements.txt": "six\n",
        },
    )
    assert detect_recipe(repo, sha).requirements == ("requirements.txt", "requirements/tests.txt")


def test_extras_tests_require_and_requires_python_from_setup_files(tmp_path):
    repo, sha = make_repo(
        tmp_path / "cfg",
        {
            "setup.py": "from setuptools import setup\nEXTRAS = {'testing': ['iniconfig'], 'docs': ['sphinx']}\n"
            "setup(name='c', extras_require=EXTRAS, tests_require=['six'], python_requires='>=3.8')\n"
        },
    )
    recipe = detect_recipe(repo, sha)
    assert recipe.extras == ("testing",) and recipe.dev_packages == ("six",)
    assert recipe.requires_python == ">=3.8"


# -- repair rules -------------------------------------------------------------------------
def test_repair_rules_read_logs(tmp_path):
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": "", "tests/helpers.py": ""})
    recipe = detect_recipe(repo, sha)
    names = {"pkg", "helpers", "tests"}
    assert diagnose("E   ModuleNotFoundError: No module named 'yaml'", recipe, names, "collection").packages == [
        "PyYAML"
    ]
    assert diagnose("ModuleNotFoundError: No module named 'helpers'", recipe, names, "collection") is None
    assert diagnose(
        "ERROR: usage: pytest\npytest: error: unrecognized arguments: --cov=pkg", recipe, names, "collection"
    ).packages == ["pytest-cov"]
    assert diagnose(
        "platform linux -- Python 3.11.9, pytest-9.0.1, pluggy-1.6.0\n"
        "E   pytest.PytestRemovedIn9Warning: the (path) argument is deprecated",
        recipe,
        names,
        "collection",
    ).packages == ["pytest<9"]
    vcs = diagnose("LookupError: setuptools-scm was unable to detect version for /src", recipe, names, "build")
    assert vcs.rule == "vcs-version" and "SETUPTOOLS_SCM_PRETEND_VERSION" in vcs.env
    dropped = diagnose(
        "sebgen-step: requirements:requirements/dev.txt\nERROR: ResolutionImpossible", recipe, names, "build"
    )
    assert dropped.drop == ["requirements:requirements/dev.txt"]
    assert diagnose("some unrelated failure", recipe, names, "build") is None
    old_pin = (
        "sebgen-step: project\nSuccessfully installed x-1\nsebgen-step: requirements:requirements-test.txt\n"
        "Successfully installed coverage-4.5.1 pytest-3.0.7\nsebgen-step: check\n"
        "ModuleNotFoundError: No module named 'UserDict'\n"
    )
    assert diagnose(old_pin, recipe, names, "build").drop == ["requirements:requirements-test.txt"]


def test_an_import_error_that_says_what_to_install_is_followed(tmp_path):
    """htmldate: lxml 5.2 moved `lxml.html.clean` out and says so; the tests of 3 commits never
    loaded, and the repair, which read only "No module named", learned nothing."""
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    log = (
        "_____ ERROR collecting tests/realworld_tests.py _____\n"
        "E   ImportError: lxml.html.clean module is now a separate project lxml_html_clean.\n"
        "E   Install lxml[html_clean] or lxml_html_clean directly.\n"
    )
    fix = diagnose(log, recipe, {"pkg"}, "collection")
    assert (fix.rule, fix.packages) == ("install-advice", ["lxml[html_clean]"])
    learned = dataclasses.replace(recipe, packages=(*recipe.packages, "lxml[html_clean]"))
    assert diagnose(log, learned, {"pkg"}, "collection") is None  # once installed, not again
    own = "E   ImportError: cannot import name 'x'\nE   Install pkg[extra] to use it."
    assert diagnose(own, recipe, {"pkg"}, "collection") is None  # the project's own package is no fix


CLICK_COLLECTION = (  # click 762c97ee's first collection: a deprecation under pytest 9, no pytest 10 exists
    "ERROR tests/test_basic.py - pytest.PytestRemovedIn10Warning: The (fspath: py.path.local) argument "
    "to Package is deprecated.\n!!! Interrupted: 1 error during collection !!!\n"
)


BOLTONS_COLLECTION = (  # boltons 395f690f: its conftest's `path` hook argument is gone in pytest 9
    '  File "/opt/venv/lib/python3.11/site-packages/pluggy/_manager.py", line 44, in _warn_for_function\n'
    "    warnings.warn_explicit(\n"
    "pytest.PytestRemovedIn9Warning: The (path: py.path.local) argument is deprecated, please use "
    "(collection_path: pathlib.Path)\n"
)


def test_pytest_too_new_blames_the_sandbox_pytest_when_no_source_installed_one(tmp_path):
    """No install step installed pytest (the requirement file that pinned one was dropped): the
    runner is the sandbox's own, and a hook removed in that major release pins below it."""
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    fix = diagnose(BOLTONS_COLLECTION, recipe, {"pkg"}, "collection", Snapshot(date=None, installed={"pkg": "1.0"}))
    major = Version(sandbox_pytest_version()).major
    if major >= 9:
        assert fix.rule == "pytest-too-new" and fix.packages == ["pytest<9"]
    else:
        assert fix is None


DATA = Path(__file__).resolve().parent.parent / "data"
# pytest 9.0.3 on pydash 6ff0831a: setup.cfg filters "ignore::pytest.PytestRemovedIn8Warning:..." (exit 4)
GONE_WARNING_CLASS = (DATA / "pytest9_gone_warning_class.log").read_text()
# a build log whose base-image step came from the build cache: pip never says which pytest it installed
CACHED_BUILD_LOG = (DATA / "build_log_cached_pytest.log").read_text()


def test_a_warning_class_pytest_no_longer_has_pins_the_pytest_that_has_it(tmp_path):
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    installed = Snapshot(date=None, installed=installed_versions(CACHED_BUILD_LOG))
    fix = diagnose(GONE_WARNING_CLASS, recipe, {"pkg"}, "collection", installed)
    assert fix.rule == "pytest-too-new" and fix.packages == ["pytest<8"]
    assert "PytestRemovedIn8Warning" in fix.reason and "pytest 9.0.3" in fix.reason
    # pytest's own error is the diagnosis: it holds without a version to read
    assert diagnose(GONE_WARNING_CLASS, recipe, {"pkg"}, "collection").packages == ["pytest<8"]
    # a pytest older than the release that removed the class: pinning below 8 changes nothing
    assert (
        diagnose(GONE_WARNING_CLASS, recipe, {"pkg"}, "collection", Snapshot(None, installed={"pytest": "6.2.5"}))
        is None
    )
    # already pinned: no loop
    pinned = dataclasses.replace(recipe, packages=(*recipe.packages, "pytest<8"))
    assert diagnose(GONE_WARNING_CLASS, pinned, {"pkg"}, "collection", installed) is None


def test_installed_versions_read_an_exact_pin_of_a_cached_build_step():
    assert installed_versions(CACHED_BUILD_LOG)["pytest"] == "9.0.3"
    assert "pip" not in installed_versions(CACHED_BUILD_LOG)  # 'pip>=24' names no version
    # what pip later says it installed wins over the earlier command's pin
    later = CACHED_BUILD_LOG + "Successfully installed pytest-7.4.4 pluggy-1.6.0\n"
    assert installed_versions(later)["pytest"] == "7.4.4"


def test_pytest_too_new_fires_only_when_the_environment_has_the_pytest_it_blames(tmp_path):
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    names = {"pkg"}

    def snapshot(installed: dict) -> Snapshot:
        return Snapshot(date=None, installed=installed)

    assert diagnose(CLICK_COLLECTION, recipe, names, "collection", snapshot({"pytest": "9.2.0"})) is None
    # nothing in the log or the recipe tells the version: the sandbox's own pytest (the host's) runs
    assert sandbox_pytest_version() and Version(sandbox_pytest_version()).major < 10
    assert diagnose(CLICK_COLLECTION, recipe, names, "collection") is None
    blamed = diagnose(CLICK_COLLECTION, recipe, names, "collection", snapshot({"pytest": "10.0.1"}))
    assert blamed.rule == "pytest-too-new" and blamed.packages == ["pytest<10"] and "pytest 10.0.1" in blamed.reason
    # pip's own word in the log wins over an older build log
    assert (
        diagnose(
            "Successfully installed pytest-9.2.0\n" + CLICK_COLLECTION,
            recipe,
            names,
            "collection",
            snapshot({"pytest": "10.0.1"}),
        )
        is None
    )


def test_installed_versions_read_pip_and_the_pytest_header():
    log = (
        "Successfully installed click-8.1.7 pytest-9.2.0 pytest-asyncio-0.23.4\n"
        "platform linux -- Python 3.11.9, pytest-8.0.0, pluggy-1.4.0\n"
    )
    assert installed_versions(log) == {
        "click": "8.1.7",
        "pytest": "8.0.0",
        "pytest-asyncio": "0.23.4",
        "pluggy": "1.4.0",
    }


PIN_CONFLICT_LOG = """\
sebgen-step: project
Successfully installed asyncdemo-0.1
sebgen-step: packages
Collecting pytest-asyncio==0.23.4
  Downloading pytest_asyncio-0.23.4-py3-none-any.whl.metadata (3.9 kB)
Collecting pytest==8.0.0
  Downloading pytest-8.0.0-py3-none-any.whl.metadata (7.8 kB)
INFO: pip is looking at multiple versions of pytest-asyncio to determine \
which version is compatible with other requirements.
ERROR: Cannot install pytest-asyncio==0.23.4 and pytest==8.0.0 because these \
package versions have conflicting dependencies.

The conflict is caused by:
    The user requested pytest==8.0.0
    pytest-asyncio 0.23.4 depends on pytest<8 and >=7.0.0

To fix this you could try to:
1. loosen the range of package versions you've specified
2. remove package versions to allow pip to attempt to solve the dependency conflict

ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts
"""
OLD_TOX_LOG = """\
sebgen-step: requirements:tests/requirements.txt
Collecting tox==3.5.3 (from -r tests/requirements.txt (line 2))
Collecting pluggy<1,>=0.3.0 (from tox==3.5.3->-r tests/requirements.txt (line 2))
  Attempting uninstall: pluggy
    Found existing installation: pluggy 1.6.0
    Uninstalling pluggy-1.6.0:
      Successfully uninstalled pluggy-1.6.0
Successfully installed filelock-3.16.1 pluggy-0.13.1 py-1.11.0 six-1.16.0 toml-0.10.2 tox-3.5.3 virtualenv-20.26.6
ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. \
This behaviour is the source of the following dependency conflicts.
pytest 9.2.0 requires pluggy<2,>=1.5, but you have pluggy 0.13.1 which is incompatible.
sebgen-step: check
Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/usr/local/lib/python3.11/site-packages/pytest/__init__.py", line 8, in <module>
    from _pytest._code import ExceptionInfo
  File "/usr/local/lib/python3.11/site-packages/_pytest/_code/code.py", line 41, in <module>
    from _pytest._io import TerminalWriter
  File "/usr/local/lib/python3.11/site-packages/_pytest/config/__init__.py", line 44, in <module>
    from pluggy import HookimplOpts
ImportError: cannot import name 'HookimplOpts' from 'pluggy' \
(/usr/local/lib/python3.11/site-packages/pluggy/__init__.py)
"""


def test_conflicting_pins_are_relaxed_to_what_the_resolver_can_satisfy(tmp_path):
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha, {"packages": ["pytest-asyncio==0.23.4", "pytest==8.0.0"]})
    fix = diagnose(PIN_CONFLICT_LOG, recipe, {"pkg"}, "build")
    assert fix.rule == "pin-conflict" and fix.packages == ["pytest<8,>=7.0.0"] and fix.unpin == ["pytest==8.0.0"]
    assert fix.apply({"packages": ["pytest-asyncio==0.23.4", "pytest==8.0.0"]})["packages"] == [
        "pytest-asyncio==0.23.4",
        "pytest<8,>=7.0.0",
    ]
    # a conflict inside a requirement file is that source's: the source is dropped, as before
    in_file = PIN_CONFLICT_LOG.replace("sebgen-step: packages", "sebgen-step: requirements:requirements-dev.txt")
    assert diagnose(in_file, recipe, {"pkg"}, "build").drop == ["requirements:requirements-dev.txt"]


def test_a_source_that_breaks_the_runner_gets_the_runners_own_requirement_installed_after_it(tmp_path):
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    fix = diagnose(OLD_TOX_LOG, recipe, {"pkg"}, "build")
    assert fix.rule == "runner-dependency" and fix.packages == ["pluggy<2,>=1.5"]
    # without pip's word on what pytest requires, the source that replaced pluggy is dropped
    silent = OLD_TOX_LOG.replace(
        "pytest 9.2.0 requires pluggy<2,>=1.5, but you have pluggy 0.13.1 which is incompatible.\n", ""
    )
    assert diagnose(silent, recipe, {"pkg"}, "build").drop == ["requirements:tests/requirements.txt"]


class _FlakyInstall:
    """A stand-in backend whose build fails until the override carries the fix the log asks for."""

    name = "fake"

    def __init__(self, cache_dir: Path, log_path: Path, needs: str | None):
        self.book = RecipeBook({}, cache_dir, log=lambda m: None)
        self.recipe_for, self.log_path, self.needs, self.builds = self.book.recipe_for, log_path, needs, 0

    def environment_id(self, repo, commit):
        return "env-" + self.recipe_for(repo, commit).key()

    def python_version(self):
        return ""

    def prepare(self, repo, commit):
        from sandbox import BuildError

        self.builds += 1
        if self.needs is None or self.needs not in self.recipe_for(repo, commit).packages:
            self.log_path.write_text("ModuleNotFoundError: No module named 'yaml'\n")
            raise BuildError(f"building environment image x failed: boom (log {self.log_path}); log tail:\n...")
        return self.environment_id(repo, commit)

    def close(self):
        pass


class _NeverInstalls(_FlakyInstall):
    """A build that asks for PyYAML, then, with it, fails in a way no rule repairs."""

    def prepare(self, repo, commit):
        from sandbox import BuildError

        self.builds += 1
        said = "No module named 'yaml'" if "PyYAML" not in self.recipe_for(repo, commit).packages else "disk is on fire"
        self.log_path.write_text(said + "\n")
        raise BuildError(f"building environment image x failed: boom (log {self.log_path}); log tail:\n...")


def test_the_repairs_of_a_commit_that_never_installs_are_taken_back(tmp_path):
    """wcmatch: a 2020 commit learned `backrefs==4.4`, its install still failed, and the pin stayed
    in the repository's recipe: every later commit then failed to install."""
    repo, sha = make_repo(tmp_path / "loop", {"pkg/__init__.py": ""})
    inner = _NeverInstalls(tmp_path / "cache", tmp_path / "build.log", needs=None)
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    with pytest.raises(SetupError, match="failed after 2 attempts"):
        backend.ensure(repo, sha)
    assert inner.builds == 2 and "PyYAML" not in inner.book.recipe_for(repo, sha).packages
    cached = json.loads((tmp_path / "cache" / "recipes" / f"{repo_name(repo)}.json").read_text())
    assert cached["learned"] == {} and [f["rule"] for f in cached["fixes"]] == ["missing-module", "taken-back"]
    # a later run over the same cache does not reuse it either
    again = _NeverInstalls(tmp_path / "cache", tmp_path / "build.log", needs=None)
    assert "PyYAML" not in again.book.recipe_for(repo, sha).packages


def test_repair_loop_fixes_a_build_and_records_the_attempts(tmp_path):
    repo, sha = make_repo(tmp_path / "loop", {"pkg/__init__.py": ""})
    inner = _FlakyInstall(tmp_path / "cache", tmp_path / "build.log", needs="PyYAML")
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    backend.ensure(repo, sha)
    setup = backend.environment_setup(repo, sha)
    assert [a["ok"] for a in setup["attempts"]] == [False, True]
    assert setup["recipe"]["packages"] == ["PyYAML"] and setup["fixes"] == ["module yaml is missing: install PyYAML"]
    # a new run over the same cache reuses the learned fix: one build, no repair
    again = _FlakyInstall(tmp_path / "cache", tmp_path / "build.log", needs="PyYAML")
    SetupBackend(again, again.book, attempts=3, log=lambda m: None).ensure(repo, sha)
    assert again.builds == 1


def test_repair_loop_gives_up_with_one_sentence_naming_the_log(tmp_path):
    repo, sha = make_repo(tmp_path / "never", {"pkg/__init__.py": ""})
    inner = _FlakyInstall(tmp_path / "cache", tmp_path / "build.log", needs="never-installed")
    with pytest.raises(SetupError) as err:
        SetupBackend(inner, inner.book, attempts=3, log=lambda m: None).ensure(repo, sha)
    message = str(err.value)
    assert "\n" not in message and str(tmp_path / "build.log") in message and "after 2 attempts" in message


def test_a_model_is_asked_only_when_no_rule_explains_the_log(tmp_path):
    repo, sha = make_repo(tmp_path / "ask", {"pkg/__init__.py": ""})
    inner = _FlakyInstall(tmp_path / "cache", tmp_path / "build.log", needs="six")
    inner.log_path.write_text("")
    asked = []

    def advisor(prompt: str) -> dict:
        asked.append(prompt)
        return {"packages": ["six"], "reason": "the log shows six is needed"}

    backend = SetupBackend(inner, inner.book, attempts=3, advisor=advisor, log=lambda m: None)
    backend.ensure(repo, sha)  # the log says 'yaml' (a rule: PyYAML), then still fails: the model is asked
    setup = backend.environment_setup(repo, sha)
    assert [a["rule"] for a in setup["attempts"]] == ["missing-module", "llm", ""]
    assert len(asked) == 1 and "<context>" in asked[0]
    assert setup["recipe"]["packages"] == ["PyYAML", "six"]


def test_a_repair_that_leaves_the_recipe_as_it_is_is_not_retried_and_the_first_failure_is_kept(tmp_path):
    repo, sha = make_repo(tmp_path / "noop", {"pkg/__init__.py": ""})
    inner = _FlakyInstall(tmp_path / "cache", tmp_path / "build.log", needs="never-installed")
    # the model's answer drops a source this recipe does not have: the recipe would stay the same
    backend = SetupBackend(
        inner, inner.book, attempts=3, advisor=lambda prompt: {"drop": ["dev_packages"]}, log=lambda m: None
    )
    with pytest.raises(SetupError, match="after 2 attempts.*leaves the recipe as it is"):
        backend.ensure(repo, sha)
    assert inner.builds == 2  # PyYAML by rule, then no third build for a change that changes nothing
    setup = backend.environment_setup(repo, sha)
    assert [a["rule"] for a in setup["attempts"]] == ["missing-module", ""]
    assert "not retried" in setup["attempts"][1]["note"] and setup["fixes"] == [
        "module yaml is missing: install PyYAML"
    ]
    assert setup["first_failure"] == "ModuleNotFoundError: No module named 'yaml'\n"


UNBUILDABLE_LOG = """\
sebgen-step: packages
Collecting backrefs==4.4
  Downloading backrefs-4.4.tar.gz (4.3 MB)
  Getting requirements to build wheel: finished with status 'error'
      FileNotFoundError: [Errno 2] No such file or directory: 'tools/unicodedata/14.0.0/UnicodeData.txt'
ERROR: Failed to build 'backrefs' when getting requirements to build wheel
"""


def test_a_pinned_release_that_does_not_build_is_replaced_by_a_later_one(tmp_path):
    """wcmatch: the recipe pinned backrefs==4.4, an sdist whose build script fails on this
    Python; the install ended after one attempt and the commits were lost."""
    repo, sha = make_repo(tmp_path / "r", {"pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha, {"packages": ["backrefs==4.4", "pytest==8.0.0"]})
    fix = diagnose(UNBUILDABLE_LOG, recipe, {"pkg"}, "build")
    assert fix.rule == "unbuildable-pin" and fix.packages == ["backrefs>4.4"] and fix.unpin == ["backrefs==4.4"]
    assert fix.apply({"packages": ["backrefs==4.4", "pytest==8.0.0"]})["packages"] == ["pytest==8.0.0", "backrefs>4.4"]
    # the same failure of a package the recipe does not pin exactly is not this rule's to repair
    loose = detect_recipe(repo, sha, {"packages": ["backrefs>=4", "pytest==8.0.0"]})
    assert diagnose(UNBUILDABLE_LOG, loose, {"pkg"}, "build") is None
    old_pip = UNBUILDABLE_LOG.replace(
        "ERROR: Failed to build 'backrefs' when getting requirements to build wheel",
        "  Failed building wheel for backrefs\nERROR: Could not build wheels for backrefs",
    )
    assert diagnose(old_pip, recipe, {"pkg"}, "build").packages == ["backrefs>4.4"]


class _ConflictingPins(_FlakyInstall):
    """A build that fails with pip's conflict while the recipe pins pytest==8.0.0 beside pytest-asyncio."""

    def prepare(self, repo, commit):
        from sandbox import BuildError

        self.builds += 1
        if "pytest==8.0.0" in self.recipe_for(repo, commit).packages:
            self.log_path.write_text(PIN_CONFLICT_LOG)
            raise BuildError(f"building environment image x failed: boom (log {self.log_path}); log tail:\n...")
        return self.environment_id(repo, commit)


def test_the_repair_loop_relaxes_a_pin_conflict_and_the_install_succeeds(tmp_path):
    repo, sha = make_repo(tmp_path / "pins", {"pkg/__init__.py": ""})
    inner = _ConflictingPins(tmp_path / "cache", tmp_path / "build.log", needs=None)
    inner.book.install[repo.name] = {"packages": ["pytest-asyncio==0.23.4", "pytest==8.0.0"]}
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    backend.ensure(repo, sha)
    setup = backend.environment_setup(repo, sha)
    assert [(a["ok"], a["rule"]) for a in setup["attempts"]] == [(False, "pin-conflict"), (True, "")]
    assert setup["recipe"]["packages"] == ["pytest-asyncio==0.23.4", "pytest<8,>=7.0.0"]
    assert "ResolutionImpossible" in setup["first_failure"]


def test_an_install_that_ends_on_a_pin_conflict_says_so_in_its_one_sentence(tmp_path):
    repo, sha = make_repo(tmp_path / "pins", {"pkg/__init__.py": ""})
    inner = _ConflictingPins(tmp_path / "cache", tmp_path / "build.log", needs=None)
    inner.book.install[repo.name] = {"packages": ["pytest-asyncio==0.23.4", "pytest==8.0.0"]}
    with pytest.raises(SetupError) as err:
        SetupBackend(inner, inner.book, attempts=1, log=lambda m: None).ensure(repo, sha)
    assert "failed after 1 attempt (pin conflict); see the log " in str(err.value)


EXTRAS_PYPROJECT = """\
[project]
name = "extrademo"
version = "1.0"

[project.optional-dependencies]
test = ["pytest"]
speed = ["ujson>=5"]
"""
SKIPPED_FOR_UJSON = (
    "s.                                                                       [100%]\n"
    "=========================== short test summary info ============================\n"
    "SKIPPED [1] tests/test_fast.py:3: could not import 'ujson': No module named 'ujson'\n"
    "1 passed, 1 skipped in 0.02s\n"
)


class _SkipsWithoutExtra(_FlakyInstall):
    """Builds always; its tests skip until the recipe installs the project's `speed` extra."""

    def __init__(self, cache_dir: Path, log_path: Path):
        super().__init__(cache_dir, log_path, needs=None)
        self.runs = 0

    def prepare(self, repo, commit):
        self.builds += 1
        return self.environment_id(repo, commit)

    def run_tests(self, repo, commit, patches=(), test_files=None):
        from sandbox import TestRun

        self.runs += 1
        fast = "tests/test_fast.py::test_fast"
        if "speed" in self.recipe_for(repo, commit).extras:
            return TestRun({fast: "passed"}, 0, False, 0.1, "1 passed\n", "img")
        return TestRun({fast: "skipped"}, 0, False, 0.1, SKIPPED_FOR_UJSON, "img")


def test_tests_skipped_for_a_module_an_extra_provides_get_that_extra_and_run_again(tmp_path):
    repo, sha = make_repo(tmp_path / "extras", {"pyproject.toml": EXTRAS_PYPROJECT, "extrademo/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    assert recipe.extras == ("test",)
    assert missing_extra(SKIPPED_FOR_UJSON, recipe, extras_at(repo, sha)).extras == ["speed"]
    assert missing_extra(SKIPPED_FOR_UJSON.replace("ujson", "orjson"), recipe, extras_at(repo, sha)) is None

    inner = _SkipsWithoutExtra(tmp_path / "cache", tmp_path / "build.log")
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    run = backend.run_tests(repo, sha)
    assert run.outcomes == {"tests/test_fast.py::test_fast": "passed"} and inner.runs == 2
    setup = backend.environment_setup(repo, sha)
    assert setup["recipe"]["extras"] == ["test", "speed"]
    assert [(a["stage"], a["rule"]) for a in setup["attempts"]] == [
        ("build", ""),
        ("skip", "missing-extra"),
        ("build", ""),
    ]


def test_the_offline_model_is_never_asked_for_recipes():
    from evo.config import Config
    from evo.runtime import recipe_advisor

    assert recipe_advisor(Config()) is None
    assert recipe_advisor(Config.model_validate({"llm": {"model": "openai/gpt-4o-mini"}})) is not None


def test_requires_python_that_no_interpreter_fits_is_refused(tmp_path):
    repo, sha = make_repo(
        tmp_path / "old", {"setup.py": "from setuptools import setup\nsetup(name='o', python_requires='<3.0')\n"}
    )
    backend = make_sandbox(
        "local", limits=Limits(timeout_s=60), cache_dir=tmp_path / "cache", setup_attempts=2, log=lambda m: None
    )
    with pytest.raises(SetupError, match="requires Python <3.0"):
        backend.ensure(repo, sha)


def test_fix_merges_into_an_existing_override():
    fix = Fix("x", packages=["b"], env={"K": "1"}, drop=["extras"])
    assert fix.apply({"packages": ["a"], "install": ""}) == {
        "packages": ["a", "b"],
        "install": "",
        "env": {"K": "1"},
        "drop": ["extras"],
    }
    assert not fix.changes(fix.apply({}))


# -- for real, in Docker ----------------------------------------------------------------
@pytest.mark.docker
def test_docker_builds_a_vcs_versioned_project_and_loads_a_config_plugin(tmp_path):
    require_docker()
    repo, sha = make_repo(
        tmp_path / "real",
        {
            "pyproject.toml": VCS_PYPROJECT + PLUGIN_PYPROJECT,
            "vcs_demo/__init__.py": "",
            "tests/test_version.py": VCS_TEST,
        },
    )
    run, setup = run_with_repairs(
        repo, sha, "tests/test_version.py", tmp_path / "cache", kind="docker", timeout_s=120, attempts=2
    )
    assert run.outcomes == {"tests/test_version.py::test_version_is_stamped": "passed"}, run.log_tail
    assert setup["recipe"]["plugins"] == ["pytest-timeout"]
    assert [a["ok"] for a in setup["attempts"]] == [True]  # detection alone was enough


@pytest.mark.docker
def test_docker_repairs_a_warning_filter_naming_a_class_pytest_removed(tmp_path):
    """pytest 9 exits 4 on the config's filter (pydash in 2023); the repair pins pytest<8 and the tests run."""
    require_docker()
    repo, sha = make_repo(
        tmp_path / "real",
        {
            "setup.cfg": "[tool:pytest]\nfilterwarnings =\n    ignore::pytest.PytestRemovedIn8Warning:somewhere.*\n",
            "pkg/__init__.py": "",
            "tests/test_pkg.py": "import pytest\n\n\ndef test_runs():\n    assert pytest.version_tuple[0] == 7\n",
        },
    )
    run, setup = run_with_repairs(
        repo, sha, "tests/test_pkg.py", tmp_path / "cache", kind="docker", timeout_s=120, attempts=2
    )
    assert run.outcomes == {"tests/test_pkg.py::test_runs": "passed"}, run.log_tail
    assert [a["rule"] for a in setup["attempts"] if a["rule"]] == ["pytest-too-new"]
    assert setup["recipe"]["packages"] == ["pytest<8"]


def test_a_pytest_too_old_for_the_interpreter_fails_the_install_check_and_its_source_is_dropped(tmp_path):
    """pytest 4.6 imports on Python 3.11 but cannot rewrite asserts there: the install's last
    step compares the version with the interpreter's floor, and the repair drops the source
    (a tox deps list, say) that installed it."""
    import shlex
    import subprocess
    import sys

    import pytest as host_pytest

    from sandbox.recipe import install_steps, pytest_check

    files = {"pyproject.toml": '[project]\nname = "pkg"\nversion = "0"\n', "pkg/__init__.py": ""}
    repo, sha = make_repo(tmp_path / "r", files)
    recipe = detect_recipe(repo, sha)
    assert dict(recipe.pytest_floors)["default"]  # the environment hands the floors to the check
    check = dict(install_steps(recipe, "/venv/bin/python -m pip"))["check"]
    assert check.startswith("/venv/bin/python -c ") and "oldest that runs on this Python" in check
    here = "%d.%d" % sys.version_info[:2]
    above = str(int(host_pytest.__version__.split(".")[0]) + 1) + ".0"
    for floor, code in (("1.0", 0), (above, 1)):
        line = f"{sys.executable} -c {shlex.quote(pytest_check(((here, floor),)))}"
        proc = subprocess.run(["bash", "-c", line], capture_output=True, text=True)
        assert proc.returncode == code, proc.stderr
    assert f"older than {above}, the oldest that runs on this Python" in proc.stderr
    log = (
        "sebgen-step: project\nSuccessfully installed pkg-0\n"
        "sebgen-step: dev_packages\nSuccessfully installed coverage-5.5 pytest-4.6.11 pytest-cov-2.12\n"
        "sebgen-step: check\npytest 4.6.11 is older than 7.0.0, the oldest that runs on this Python\n"
    )
    fix = diagnose(log, recipe, {"pkg"}, "build")
    assert fix.rule == "drop-source" and fix.drop == ["dev_packages"]


def test_a_project_whose_own_build_backend_fails_runs_from_the_tree(tmp_path):
    """recurring-ical-events: its build hook runs `git rev-parse HEAD`, which fails without
    `.git`. The repairs set pretend versions, then dropped the test extras, and the third attempt
    failed the same way; its own metadata failing is fixed only by not installing it."""
    files = {
        "pyproject.toml": '[project]\nname = "pkg"\ndynamic = ["version"]\n'
        '[project.optional-dependencies]\ntest = ["pytest"]\n',
        "pkg/__init__.py": "",
    }
    repo, sha = make_repo(tmp_path / "r", files)
    recipe = dataclasses.replace(detect_recipe(repo, sha), extras=("test",))
    log = (
        "sebgen-step: project\nProcessing ./.\n  Preparing metadata (pyproject.toml): finished with status 'error'\n"
        "      fatal: not a git repository (or any of the parent directories): .git\n"
        "error: metadata-generation-failed\n\n× Encountered error while generating package metadata.\n"
        "╰─> from file:///sebgen/src\n"
    )
    recipe = dataclasses.replace(recipe, build_env=(*recipe.build_env, *((k, "9999.0.0") for k in PRETEND_VARS)))
    fix = diagnose(log, recipe, {"pkg"}, "build")
    assert (fix.rule, fix.drop) == ("drop-source", ["project"]), fix
    dependency = log.replace("from file:///sebgen/src", "See above for output.")  # a dependency's sdist
    assert diagnose(dependency, recipe, {"pkg"}, "build").drop == ["extras"]
    # parsita 2dd49f6d: an old poetry-core wrote `>=0.20,<0.21 || >=0.21,<0.22`, which pip rejects
    invalid = (
        "sebgen-step: project\nProcessing ./.\n  Preparing metadata (pyproject.toml): finished with status 'done'\n"
        "ERROR: Requested parsita==2.2.1 from file:///sebgen/src has invalid metadata: Expected matching "
        "RIGHT_PARENTHESIS for LEFT_PARENTHESIS, after version specifier\n"
    )
    fix = diagnose(invalid, recipe, {"pkg"}, "build")
    assert (fix.rule, fix.drop) == ("drop-source", ["project"]), fix
