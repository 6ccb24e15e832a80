"""Which of SEBGen's languages a snapshot holds, read from its git tree (no checkout).

A snapshot holds Python when it has a Python packaging file at its root (pyproject.toml,
setup.py, setup.cfg, Pipfile, requirement files), Python tests anywhere (`test_*.py`,
`*_test.py`, `conftest.py`), or, with no package.json, more `.py` files than of any other
extension; it holds JavaScript/TypeScript when it has a package.json at its root, the file
every JS/TS install starts from. A repository may hold both.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from collections import Counter
from pathlib import Path

PYTHON = "python"
JAVASCRIPT = "javascript"
LANGUAGES = (PYTHON, JAVASCRIPT)
LANGUAGE_NAMES = {PYTHON: "Python", JAVASCRIPT: "JavaScript/TypeScript"}

PYTHON_PACKAGING = ("pyproject.toml", "setup.py", "setup.cfg", "Pipfile")
_REQUIREMENTS = re.compile(r"^requirements[^/]*\.(txt|in)$|^requirements/")
_PYTHON_TEST = re.compile(r"(^|/)(test_[^/]*|[^/]*_test|conftest)\.py$")
JS_LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock")
JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
JS_TEST = re.compile(r"(^|/)(tests?|__tests__|spec)/|\.(test|spec)(-d)?\.[cm]?[jt]sx?$")
# JS/TS files that are not the project's code: installed or built output, declarations, bundles,
# tool configs (jest.config.js, .eslintrc.cjs), scripts, benchmarks, docs and examples
_JS_NOT_SOURCE = re.compile(
    r"(^|/)(node_modules|dist|build|coverage|vendor|scripts?|docs?|examples?|bench(marks?)?|fixtures?)/"
    r"|\.bench\.[cm]?[jt]sx?$|\.d\.[cm]?ts$|\.min\.[cm]?js$|(^|/)\.[^/]*$|(^|/)[^/]*\.config\.[cm]?[jt]s$"
)


def is_js_test_path(path: str) -> bool:
    """A JS/TS test file: under tests/, test/, __tests__/ or spec/, or named *.test.* / *.spec.*."""
    return path.endswith(JS_EXTENSIONS) and bool(JS_TEST.search(path))


def is_js_source_path(path: str) -> bool:
    """A JS/TS file of the project's own code (not a test, a build output, a declaration or a config)."""
    return path.endswith(JS_EXTENSIONS) and not JS_TEST.search(path) and not _JS_NOT_SOURCE.search(path)


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
