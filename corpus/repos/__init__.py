"""The demo corpus as data: each module describes one repository and its history.

A repository is an initial set of files plus a list of `Step`s; each step is one commit made
of small file edits. Keeping the history as data (not as patches) means every fix is written
once, next to the test that proves it, and the builder in `corpus/builder.py` stays generic.
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

KINDS = ("initial", "bug_fix", "feature_add", "refactor", "source_only", "tests_only",
         "docs", "short_message", "large")


def code(text: str) -> str:
    """A file body written indented inside a data module, returned flush-left."""
    return textwrap.dedent(text).lstrip("\n")


@dataclass(frozen=True)
class Write:
    """Create or overwrite a whole file."""

    path: str
    content: str


@dataclass(frozen=True)
class Replace:
    """Replace one exact, unique snippet of an existing file."""

    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Append:
    """Add text at the end of an existing file, after `gap` blank lines (new tests, mostly)."""

    path: str
    text: str
    gap: int = 2


Edit = Write | Replace | Append


@dataclass(frozen=True)
class Step:
    """One commit: what kind it is, what it says and which edits it makes."""

    kind: str
    message: str
    edits: tuple[Edit, ...]
    domain: str | None = None
    fail_to_pass: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()


@dataclass(frozen=True)
class RepoSpec:
    """A repository: its name, initial files and the commits that follow."""

    name: str
    description: str
    initial_message: str
    files: dict[str, str]
    steps: tuple[Step, ...] = field(default_factory=tuple)
    language: str = "python"  # python | javascript: which corpus it belongs to


LANGUAGES = ("python", "javascript")


def all_repos(language: str = "python") -> list[RepoSpec]:
    """Every repository of one language's corpus, sorted by name. The Python corpus is the
    default one (the quickstart's); the JavaScript corpus is built on its own, when asked for."""
    from corpus.repos import algos, jskit, pyledger, safetext, taskq

    if language not in LANGUAGES:
        raise ValueError(f"no bundled corpus for language {language!r}; known: {', '.join(LANGUAGES)}")
    modules = (algos, pyledger, safetext, taskq, jskit)
    return sorted((m.REPO for m in modules if m.REPO.language == language), key=lambda r: r.name)


def project_files(name: str, description: str, readme: str) -> dict[str, str]:
    """pyproject.toml, README.md and an empty root conftest.py (puts the root on sys.path)."""
    pyproject = code(f'''
        [build-system]
        requires = ["setuptools>=61"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "{name}"
        version = "0.1.0"
        description = "{description}"
        readme = "README.md"
        requires-python = ">=3.9"
        license = {{ text = "MIT" }}
        dependencies = []

        [project.optional-dependencies]
        test = ["pytest"]

        [tool.setuptools.packages.find]
        include = ["{name}*"]

        [tool.pytest.ini_options]
        testpaths = ["tests"]
        ''')
    return {"pyproject.toml": pyproject, "README.md": readme, "conftest.py": ""}
