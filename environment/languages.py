"""Which of SEBGen's languages a snapshot holds, read from its git tree (no checkout).

A snapshot holds Python when it has a Python packaging file at its root (pyproject.toml,
setup.py, setup.cfg, Pipfile, requirement files), Python tests anywhere (`test_*.py`, `tests.py`,
`*_test.py`, `conftest.py`), or, with no package.json, more `.py` files than of any other
extension; it holds JavaScript/TypeScript when it has a package.json at its root, the file
every JS/TS install starts from. A repository may hold both.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from records import file_of_test

PYTHON = "python"
JAVASCRIPT = "javascript"
LANGUAGES = (PYTHON, JAVASCRIPT)
LANGUAGE_NAMES = {PYTHON: "Python", JAVASCRIPT: "JavaScript/TypeScript"}

PYTHON_PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg", "Pipfile")
_REQUIREMENTS = re.compile(r"^requirements[^/]*\.(txt|in)$|^requirements/")
_PYTHON_TEST = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|tests|conftest)\.py$")
JS_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock")


def snapshot_files(repo: Path, commit: str) -> list[str]:
    """Every file path of `commit`'s tree."""
    proc = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "-z", commit], capture_output=True, check=True
    )
    return [p for p in proc.stdout.decode(errors="replace").split("\0") if p]


def language_markers(files: list[str]) -> dict[str, tuple[str, ...]]:
    """language -> the files that show it (at most a few, for a sentence), for each language found."""
    found: dict[str, tuple[str, ...]] = {}
    python = [f for f in files if f in PYTHON_PACKAGING or _REQUIREMENTS.match(f)]
    python_tests = [f for f in files if _PYTHON_TEST.search(f)]
    # plain .py sources make a Python project too when they are its main language (more .py files
    # than of any other extension) and no package.json says they are a JS project's scripts
    python_sources = [f for f in files if f.endswith(".py")]
    others = Counter(ext for f in files if (ext := posixpath.splitext(f)[1]) and ext != ".py")
    if "package.json" in files or len(python_sources) <= max(others.values(), default=0):
        python_sources = []
    if python or python_tests or python_sources:
        found[PYTHON] = tuple(
            python or [f"{len(python_tests)} Python test files" if python_tests else f"{len(python_sources)} .py files"]
        )
    if "package.json" in files:
        found[JAVASCRIPT] = ("package.json", *(f for f in JS_LOCKFILES if f in files))
    return found


def languages_of(repo: Path, commit: str) -> tuple[str, ...]:
    """The SEBGen languages `commit` holds, in `LANGUAGES` order: ("python",), ("javascript",),
    both, or () for a snapshot in none of them."""
    return tuple(language_markers(snapshot_files(repo, commit)))


def common_extensions(files: list[str], n: int = 3) -> list[str]:
    """The `n` most frequent file extensions, to say what a repository in no known language holds."""
    counts = Counter(ext for f in files if (ext := posixpath.splitext(f)[1]))
    return [ext for ext, _ in counts.most_common(n)]


# ---------------------------------------------------------------- the language seam
#
# What mining, the functional layer and the evidence engine ask of a language. A test id is
# `FILE::rest` in every language (pytest's node id; `FILE::describe > title` for JS/TS runners);
# records.test_ids reads it.

JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts")
_PYTHON_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)(test_[^/]*|tests|conftest)\.py$|_test\.py$")
_PYTHON_NOT_SOURCE = re.compile(r"^docs?/")
_JS_TEST_PATH = re.compile(r"(^|/)(tests?|__tests__|__mocks__|spec)/|\.(test|spec)(-d)?\.[cm]?[jt]sx?$")  # -d: tsd
# what a JS/TS change never holds as source: dependencies, build output, coverage, docs,
# examples and benchmarks, dot folders (.github, .husky), tool configs (vitest.config.ts,
# eslint.config.js, .eslintrc.js) and type-only declarations' twins in build output
_JS_NOT_SOURCE = re.compile(
    r"(^|/)(node_modules|dist|build|out|coverage|vendor|scripts?|fixtures?|docs?|examples?|benchmarks?|bench|\.[^/]+)/"
    r"|(^|/)[^/]*\.config\.[cm]?[jt]s$|(^|/)\.[^/]*rc\.[cm]?js$|(^|/)(gulpfile|Gruntfile)\.[cm]?js$"
    r"|\.bench\.[cm]?[jt]sx?$|\.d\.[cm]?ts$|\.min\.[cm]?js$|(^|/)\.[^/]*$"
)
# generated files a JS/TS fix never needs in its gold patch: the install's own lockfiles and
# build output (the install and the build steps make them)
_JS_GENERATED = re.compile(
    r"(^|/)(package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock)$"
    r"|(^|/)(node_modules|dist|build|coverage)/"
)
# a JS/TS file that declares tests (runners load every file they are given as a test file; a
# helper or a fixture under test/ would only add a load error)
_JS_DECLARES_TESTS = re.compile(r"(^|[^\w$.])(describe|it|test|suite)(\.(only|skip|each|concurrent))?\s*[(`]")


_NOT_RUNNABLE = r"(^|/)(fixtures?|__fixtures__|__mocks__|mocks?|helpers?|support|utils?|__snapshots__)/"


@dataclass(frozen=True)
class Language:
    """One of SEBGen's languages, as mining, validation and the evidence engine use it.

    `recipe` names the install detector the sandbox gets (`detect_recipe` for "python",
    `detect_js_recipe` for "javascript"); `evidence` the producer in `tasks.evidence`."""

    name: str
    extensions: tuple[str, ...]
    test_path: re.Pattern
    not_source: re.Pattern
    generated: re.Pattern | None = None
    recipe: str = ""
    evidence: str = ""

    @property
    def display(self) -> str:
        return LANGUAGE_NAMES[self.name]

    def owns(self, path: str) -> bool:
        """A file written in this language (by its extension)."""
        return path.endswith(self.extensions)

    def is_test_path(self, path: str) -> bool:
        """A test file of this language (its tests, or their helpers beside them)."""
        return self.owns(path) and bool(self.test_path.search(path))

    def in_test_tree(self, path: str) -> bool:
        """Any file where this language keeps its tests, of any type (fixtures, snapshots)."""
        return bool(self.test_path.search(path))

    def is_source_path(self, path: str) -> bool:
        return self.owns(path) and not self.test_path.search(path) and not self.not_source.search(path)

    def is_generated(self, path: str) -> bool:
        """A file the install or the build makes: never part of a gold patch."""
        return bool(self.generated and self.generated.search(path))

    def looks_runnable(self, path: str) -> bool:
        """A test file by its name alone: `*.test.*` / `*.spec.*` / `test_*.py`, or a file of a
        test folder that is not a fixture, mock or helper."""
        if not self.is_test_path(path):
            return False
        name = posixpath.basename(path)
        if re.search(r"\.(test|spec)\.|^test_|_test\.py$", name):
            return True
        return not re.search(_NOT_RUNNABLE, path) and not name.startswith(("_", "helper", "setup", "util"))

    def runnable_tests(self, files: dict[str, str]) -> list[str]:
        """Of test files (path -> text), those the runner should be given: every Python test
        module pytest collects; the JS/TS files that declare tests (not helpers or fixtures)."""
        if self.name == PYTHON:
            return [f for f in files if posixpath.basename(f).startswith("test") or f.endswith("_test.py")]
        return [f for f, text in files.items() if self.is_test_path(f) and _JS_DECLARES_TESTS.search(text)]


PYTHON_LANGUAGE = Language(
    PYTHON, (".py",), _PYTHON_TEST_PATH, _PYTHON_NOT_SOURCE, recipe="detect_recipe", evidence="python"
)
JS_LANGUAGE = Language(
    JAVASCRIPT, JS_EXTENSIONS, _JS_TEST_PATH, _JS_NOT_SOURCE, _JS_GENERATED, recipe="detect_js_recipe", evidence="js"
)
LANGUAGE_OF = {PYTHON: PYTHON_LANGUAGE, JAVASCRIPT: JS_LANGUAGE}


def language_named(name: str) -> Language:
    try:
        return LANGUAGE_OF[name]
    except KeyError:
        raise ValueError(f"unknown language {name!r} (known: {', '.join(LANGUAGES)})") from None


def language_of_test(test_id: str) -> Language | None:
    """The language a test id's file is written in, or None."""
    file = file_of_test(test_id)
    return next((lang for lang in LANGUAGE_OF.values() if lang.owns(file)), None)


def is_js_test_path(path: str) -> bool:
    """A JS/TS test file (the seam's rule)."""
    return JS_LANGUAGE.is_test_path(path)


def is_js_source_path(path: str) -> bool:
    """A JS/TS file of the project's own code: not a test, build output, declaration or config."""
    return JS_LANGUAGE.is_source_path(path)
