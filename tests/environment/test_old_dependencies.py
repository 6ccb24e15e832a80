"""Suites of a library written against an older major release of a compiled dependency (a
2019 suite under numpy 2): a test module or conftest that no longer imports gets the
dependency's release of the commit's day, but only a release that installs on the interpreter
in use (a wheel for it, read from the index's file list); the project's own modules are its
Python files only; a skip "requires X not to be installed" asks for nothing.

The index is a `file://` JSON per package (the production `Index`, through `SEBGEN_PYPI_JSON`'s
`{name}` template); the logs are pytest 9's, captured from real runs of such a suite.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from environment import Fix, RecipeBook, SetupBackend, diagnose
from environment.detect import extras_at
from environment.repair import missing_extra, outdated_dependency, unmet_dependency
from environment.setup import tree_module_names
from environment.versions import Index, Release, Snapshot, contemporary, installs_on, parse_releases
from sandbox import InstallRecipe, TestRun
from tests.environment.test_suites import commit_files

# a conftest that imports the project, whose module calls a function numpy 2 removed: pytest exits 4
CONFTEST_ERROR = """\
ImportError while loading conftest '/work/tree/lib/testsuite/conftest.py'.
lib/__init__.py:27: in <module>
    from .funcs import table
lib/funcs.py:840: in <module>
    func = getattr(np, func_str)
           ^^^^^^^^^^^^^^^^^^^^^
/opt/venv/lib/python3.11/site-packages/numpy/__init__.py:792: in __getattr__
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")
E   AttributeError: module 'numpy' has no attribute 'cumproduct'
"""
# a test module that no longer imports: numpy 2's own word on a name it removed
MODULE_ERROR = """\
_____________________ ERROR collecting lib/testsuite/test_numpy.py _____________________
lib/funcs.py:578: in implement
    func = getattr(np, func_str)
/opt/venv/lib/python3.11/site-packages/numpy/__init__.py:778: in __getattr__
    raise AttributeError(
E   AttributeError: `np.round_` was removed in the NumPy 2.0 release. Use `np.round` instead.
=========================== short test summary info ============================
ERROR lib/testsuite/test_numpy.py - AttributeError: `np.round_` was removed ...
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""
IMPORT_ERROR = "E   ImportError: cannot import name 'cfloat' from 'numpy' (/opt/venv/lib/numpy/__init__.py)\n"
WHEN = datetime(2019, 12, 18, tzinfo=timezone.utc)


def _file(name: str, version: str, tag: str) -> dict:
    kind = "sdist" if tag == "sdist" else "bdist_wheel"
    filename = f"{name}-{version}.tar.gz" if tag == "sdist" else f"{name}-{version}-{tag}.whl"
    return {"filename": filename, "packagetype": kind, "upload_time_iso_8601": "", "yanked": False}


# numpy's releases as the index lists them: 1.17.4 (the release of December 2019) has compiled
# wheels up to cp38 only, the first with cp311 wheels is 1.23.2 (August 2022)
RELEASES = {
    "1.15.1": ("2018-08-21", ["cp36-cp36m-manylinux1_x86_64", "cp37-cp37m-manylinux1_x86_64", "sdist"]),
    "1.17.4": ("2019-11-11", ["cp38-cp38-manylinux1_x86_64", "cp38-cp38-win_amd64", "sdist"]),
    "1.23.1": ("2022-07-08", ["cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64", "sdist"]),
    "1.23.2": ("2022-08-14", ["cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64", "sdist"]),
    "1.24.0": ("2022-12-18", ["cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64", "sdist"]),
    "2.4.6": ("2026-06-01", ["cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64", "sdist"]),
}


def index_json(name: str = "numpy") -> dict:
    releases = {}
    for version, (day, tags) in RELEASES.items():
        files = [_file(name, version, tag) for tag in tags]
        for f in files:
            f["upload_time_iso_8601"] = f"{day}T10:00:00Z"
        releases[version] = files
    return {"info": {"name": name}, "releases": releases}


def fake_index(tmp_path: Path, packages: dict[str, dict]) -> str:
    """A directory of index answers, one JSON file per package; returns the URL template."""
    root = tmp_path / "pypi"
    root.mkdir(parents=True, exist_ok=True)
    for name, data in packages.items():
        (root / f"{name}.json").write_text(json.dumps(data))
    return f"file://{root}/{{name}}.json"


def test_a_release_installs_only_with_a_wheel_for_the_interpreter_or_as_pure_python(tmp_path):
    releases = {r.version: r for r in parse_releases(index_json())}
    assert releases["1.17.4"].sdist and len(releases["1.17.4"].wheels) == 2
    assert not installs_on(releases["1.17.4"], "3.11", "x86_64")  # compiled wheels, none for 3.11
    assert installs_on(releases["1.17.4"], "3.8", "x86_64")
    assert not installs_on(releases["1.17.4"], "3.8", "aarch64")
    assert installs_on(releases["1.23.2"], "3.11", "x86_64")
    assert not installs_on(releases["1.23.1"], "3.11", "x86_64")
    day = datetime(2020, 1, 1, tzinfo=timezone.utc)
    pure = Release("2.0", day, wheels=("six-2.0-py2.py3-none-any.whl",), sdist=True)
    assert installs_on(pure, "3.11", "x86_64")
    assert installs_on(Release("1.0", day, wheels=(), sdist=True), "3.11")  # only an sdist: pure Python
    assert installs_on(Release("1.0", day, wheels=("x-1.0-cp37-abi3-manylinux2014_x86_64.whl",)), "3.11", "x86_64")
    assert installs_on(Release("1.0", day), "3.11")  # the index listed no files: nothing to say against it
    # compiled wheels for other systems only: the sdist is taken to build (an optional speed-up)
    windows = Release("1.0", day, wheels=("x-1.0-cp37-cp37m-win_amd64.whl",), sdist=True)
    assert installs_on(windows, "3.11", "x86_64")


def test_the_contemporary_release_is_the_closest_one_that_installs_on_this_python():
    releases = parse_releases(index_json())
    # 1.17.4 is the release of the day; on 3.11 the oldest release after it with a cp311 wheel
    assert contemporary(releases, WHEN, "3.8", machine="x86_64") == "1.17.4"
    assert contemporary(releases, WHEN, "3.11", machine="x86_64") == "1.23.2"
    assert contemporary(releases, WHEN, "3.11", machine="x86_64", wheels=False) == "1.17.4"
    # none after the day installs: the newest before it that does
    older = [r for r in releases if r.version in ("1.15.1", "1.17.4")]
    assert contemporary(older, WHEN, "3.7", machine="x86_64") == "1.15.1"
    assert contemporary(older, WHEN, "3.11", machine="x86_64") == ""  # nothing installs: no pin


def test_a_conftest_that_no_longer_imports_gets_the_dependency_of_its_day_that_installs(tmp_path):
    index = Index(tmp_path / "cache", url=fake_index(tmp_path, {"numpy": index_json()}), log=lambda m: None)
    known = Snapshot(WHEN, "3.11", index=index, installed={"numpy": "2.4.6"}, machine="x86_64")
    fix = diagnose(CONFTEST_ERROR, InstallRecipe(), {"lib", "funcs"}, "collection", known)
    assert fix is not None and fix.rule == "contemporary-dependency" and fix.packages == ["numpy==1.23.2"]
    assert "numpy 2.4.6" in fix.reason and "installs on Python 3.11" in fix.reason
    # the package's own word on the removal names it; an unknown installed version is enough
    unknown = Snapshot(WHEN, "3.11", index=index, machine="x86_64")
    for log in (MODULE_ERROR, IMPORT_ERROR):
        fix = diagnose(log, InstallRecipe(), {"lib"}, "collection", unknown)
        assert fix is not None and fix.packages == ["numpy==1.23.2"], log
    # installed: no loop; the project's own module or the standard library: not a dependency
    assert diagnose(MODULE_ERROR, InstallRecipe(packages=("numpy==1.23.2",)), {"lib"}, "collection", unknown) is None
    assert diagnose(CONFTEST_ERROR, InstallRecipe(), {"lib", "numpy"}, "collection", known) is None
    stdlib = "E   ImportError: cannot import name 'MutableMapping' from 'collections' (/usr/lib/python3.11/x.py)\n"
    assert diagnose(stdlib, InstallRecipe(), {"lib"}, "collection", unknown) is None
    # a signature alone, with no word on the installed version, still changes nothing
    call = "E   TypeError: check_type() takes 2 positional arguments but 3 were given"
    source = "from numpy import check_type\n"
    assert outdated_dependency(call, source, InstallRecipe(), set(), unknown) is None


class _OldSuite:
    """A stand-in backend: the suite's conftest does not import until numpy of its day is pinned."""

    name = "fake"

    def __init__(self, cache_dir: Path):
        self.book = RecipeBook({}, cache_dir, log=lambda m: None)
        self.recipe_for, self.builds, self.runs = self.book.recipe_for, [], 0

    def environment_id(self, repo, commit):
        return "env-" + self.recipe_for(repo, commit).key()

    def python_version(self):
        return "3.11"

    def prepare(self, repo, commit):
        return self.environment_id(repo, commit)

    def run_tests(self, repo, commit, patches=(), test_files=None):
        self.runs += 1
        if "numpy==1.23.2" in self.recipe_for(repo, commit).packages:
            return TestRun({"lib/testsuite/test_numpy.py::test_round": "passed"}, 0, False, 0.1, "1 passed\n", "img")
        return TestRun({"<session>": "error"}, 4, False, 0.1, CONFTEST_ERROR, "img")

    def close(self):
        pass


def test_the_repair_loop_pins_the_dependency_a_conftest_needs_at_collection(tmp_path, monkeypatch):
    monkeypatch.setenv("SEBGEN_PYPI_JSON", fake_index(tmp_path, {"numpy": index_json()}))
    repo, sha = commit_files(
        tmp_path / "old",
        {
            "lib/__init__.py": "import numpy as np\n",
            "lib/testsuite/conftest.py": "import lib  # noqa: F401\n",
            "lib/testsuite/test_numpy.py": "def test_round():\n    pass\n",
            "docs/numpy.ipynb": "{}\n",  # a notebook named like the dependency is not a module of the project
        },
        when="2019-12-18T12:00:00+00:00",
    )
    inner = _OldSuite(tmp_path / "cache")
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    run = backend.run_tests(repo, sha)
    assert run.outcomes == {"lib/testsuite/test_numpy.py::test_round": "passed"} and inner.runs == 2
    setup = backend.environment_setup(repo, sha)
    assert [a["rule"] for a in setup["attempts"] if a["rule"]] == ["contemporary-dependency"]
    assert "numpy==1.23.2" in setup["recipe"]["packages"]


# the same suite once numpy 1.23.2 is pinned: that release already dropped a name the 2019 code uses
STILL_MISSING = """\
_____________________ ERROR collecting lib/testsuite/test_numpy.py _____________________
E   AttributeError: module 'numpy' has no attribute 'alen'
"""


class _TooOldForThisPython(_OldSuite):
    """The pinned release installs, and the suite still does not load: it needs an older numpy
    than any that installs on this Python."""

    def run_tests(self, repo, commit, patches=(), test_files=None):
        self.runs += 1
        if "numpy==1.23.2" in self.recipe_for(repo, commit).packages:
            run = TestRun({"lib/testsuite/test_numpy.py": "error"}, 2, False, 0.1, STILL_MISSING, "img")
            run.collect_errors = ["lib/testsuite/test_numpy.py"]
            return run
        return TestRun({"<session>": "error"}, 4, False, 0.1, CONFTEST_ERROR, "img")


def test_a_name_the_closest_installable_release_lacks_too_says_the_code_needs_an_older_python(tmp_path, monkeypatch):
    monkeypatch.setenv("SEBGEN_PYPI_JSON", fake_index(tmp_path, {"numpy": index_json()}))
    repo, sha = commit_files(
        tmp_path / "old",
        {"lib/__init__.py": "import numpy as np\n", "lib/testsuite/test_numpy.py": "def test_len():\n    pass\n"},
        when="2019-12-18T12:00:00+00:00",
    )
    inner = _TooOldForThisPython(tmp_path / "cache")
    backend = SetupBackend(inner, inner.book, attempts=3, log=lambda m: None)
    run = backend.run_tests(repo, sha)
    assert inner.runs == 3 and run.collect_errors == ["lib/testsuite/test_numpy.py"]
    assert run.note.startswith("numpy 1.23.2, the release closest to 2019-12-18 that installs on Python 3.11, lacks")
    assert run.note.endswith("(numpy 1.17.4 of that day does not install on it): the code needs an older Python")
    # the release of the day installs (Python 3.8): no such word, that pin is the repair's to try
    index = Index(tmp_path / "cache2", url=fake_index(tmp_path, {"numpy": index_json()}), log=lambda m: None)
    py38 = Snapshot(WHEN, "3.8", index=index, machine="x86_64")
    assert unmet_dependency(STILL_MISSING, InstallRecipe(packages=("numpy==1.17.4",)), set(), py38) == ""


def test_the_projects_own_modules_are_its_python_files(tmp_path):
    repo, sha = commit_files(
        tmp_path / "tree",
        {
            "lib/__init__.py": "",
            "lib/sub/helpers.py": "",
            "lib/_speedups.cpython-311-x86_64-linux-gnu.so": "",
            "lib/stubs.pyi": "",
            "setup.py": "",
            "docs/numpy.ipynb": "{}\n",
            "docs/six.rst": "",
            "bench/yaml.yaml": "",
            "README.md": "",
        },
    )
    names = tree_module_names(str(repo), sha)
    assert {"lib", "helpers", "setup"} <= names
    # inside the package `lib`: `lib.sub`, `lib._speedups`, never a top-level `sub` (apispec's
    # `ext/marshmallow/` hid that marshmallow itself was missing)
    assert not names & {"sub", "_speedups", "stubs"}
    assert not names & {"numpy", "six", "yaml", "README", "docs", "bench"}
    fix = diagnose("E   ModuleNotFoundError: No module named 'numpy'\n", InstallRecipe(), set(names), "collection")
    assert fix is not None and fix.packages == ["numpy"]


EXTRAS_PYPROJECT = """\
[project]
name = "old-lib"
version = "0.1"

[project.optional-dependencies]
numpy = ["numpy>=1.14"]
"""


def _skipped(reason: str) -> str:
    return f"=========== short test summary info ===========\nSKIPPED [2] lib/testsuite/test_x.py:12: {reason}\n"


def test_a_skip_that_requires_a_package_not_to_be_installed_asks_for_nothing(tmp_path):
    repo, sha = commit_files(tmp_path / "extras", {"pyproject.toml": EXTRAS_PYPROJECT, "lib/__init__.py": ""})
    recipe = InstallRecipe(install_project=True)
    extras = extras_at(repo, sha)
    assert missing_extra(_skipped("Requires NumPy"), recipe, extras).extras == ["numpy"]
    assert missing_extra(_skipped("numpy is not installed"), recipe, extras).extras == ["numpy"]
    for reason in (
        "Requires NumPy not to be installed.",
        "requires numpy to not be installed",
        "requires numpy not installed",
        "requires numpy to be absent",
    ):
        assert missing_extra(_skipped(reason), recipe, extras) is None, reason


def test_a_pin_learned_on_an_old_commit_stays_out_of_a_commit_whose_requirements_exclude_it(tmp_path):
    """A 2021 commit's suite needed `tokenize-rt==4.1.0` (its day's release); the fix was learned
    for the whole repository, and a 2025 commit that declares `tokenize-rt>=6.1.0` then ran on
    4.1.0 (`cannot import name 'curly_escape'`). A pin the commit itself allows still applies."""
    from tests.sandbox_fixtures import git, make_repo, write

    setup = "[metadata]\nname = lib\n\n[options]\ninstall_requires =\n    tokenize-rt>={floor}\n"
    repo, old = make_repo(tmp_path / "repo", {"setup.cfg": setup.format(floor="3.2"), "lib.py": "x = 1\n"})
    write(repo, {"setup.cfg": setup.format(floor="6.1.0")})
    git(repo, "commit", "-qam", "require tokenize-rt 6.1")
    new = git(repo, "rev-parse", "HEAD")
    book = RecipeBook({}, tmp_path / "cache", log=lambda m: None)
    fix = "install tokenize-rt==4.1.0, the release of 2021-09-10"
    book.learn(repo, Fix(fix, packages=["tokenize-rt==4.1.0"], rule="contemporary-dependency"), old)
    assert "tokenize-rt==4.1.0" in book.recipe_for(repo, old).packages
    assert "tokenize-rt==4.1.0" not in book.recipe_for(repo, new).packages
    later = RecipeBook({}, tmp_path / "cache", log=lambda m: None)  # the same, read back from the cache
    assert "tokenize-rt==4.1.0" not in later.recipe_for(repo, new).packages
    assert "tokenize-rt==4.1.0" in later.recipe_for(repo, old).packages
    # a pin the user's config gives is never second-guessed
    configured = RecipeBook({"repo": {"packages": ["tokenize-rt==4.1.0"]}}, tmp_path / "cache", log=lambda m: None)
    assert "tokenize-rt==4.1.0" in configured.recipe_for(repo, new).packages


def _backrefs_index() -> dict:
    """backrefs as the index lists it: 4.4 (2020) is an sdist only, 5.0 is the first with a wheel."""
    days = {"4.4": ("2020-06-01", ["sdist"]), "4.5": ("2020-09-01", ["sdist"])}
    days |= {"5.0": ("2020-11-01", ["py3-none-any", "sdist"]), "8.3.1": ("2026-01-01", ["py3-none-any", "sdist"])}
    releases = {}
    for version, (day, tags) in days.items():
        stamp = f"{day}T10:00:00Z"
        releases[version] = [{**_file("backrefs", version, t), "upload_time_iso_8601": stamp} for t in tags]
    return {"info": {"name": "backrefs"}, "releases": releases}


UNBUILT = "sebgen-step: packages\nCollecting backrefs==4.4\nERROR: Failed to build 'backrefs' when getting it\n"
API_ERROR = "E   ImportError: cannot import name 'bre' from 'backrefs' (/opt/venv/lib/backrefs/__init__.py)\n"


def test_an_unbuildable_pin_moves_to_the_first_wheel_after_it_and_the_api_rule_does_not_move_back(tmp_path):
    """wcmatch 2020: the tests need backrefs of the commit's day (4.4), whose sdist does not build
    on 3.11. The pin goes to the earliest later release with a wheel (5.0), not the newest, and
    the contemporary-dependency rule does not pin 4.4 again (the two rules had alternated)."""
    index = Index(tmp_path / "cache", url=fake_index(tmp_path, {"backrefs": _backrefs_index()}), log=lambda m: None)
    day = datetime(2020, 6, 23, tzinfo=timezone.utc)
    snapshot = Snapshot(day, "3.11", index=index, installed={"backrefs": "8.3.1"}, machine="x86_64")
    fix = diagnose(UNBUILT, InstallRecipe(packages=("backrefs==4.4",)), {"wcmatch"}, "build", snapshot)
    assert fix.rule == "unbuildable-pin" and fix.packages == ["backrefs==5.0"] and fix.unpin == ["backrefs==4.4"]
    assert "earliest later release with a wheel" in fix.reason
    # the collection rule would pin the release of the commit's day; the recipe's own pin excludes it
    assert diagnose(API_ERROR, InstallRecipe(), {"wcmatch"}, "collection", snapshot).packages == ["backrefs==4.4"]
    assert diagnose(API_ERROR, InstallRecipe(packages=("backrefs==5.0",)), {"wcmatch"}, "collection", snapshot) is None
