"""Which files a patch changes, and which of them a run of the task's tests is given.

Apart from the validation layers so that exports and agents read them without loading the LLM
client, which `tasks.validate` imports."""

from __future__ import annotations

from pathlib import Path

from unidiff import PatchSet

from environment import JS_LANGUAGE, PYTHON_LANGUAGE
from tasks.evidence import file_at


def changed_files(patch: str, extensions: tuple[str, ...]) -> list[str]:
    try:
        return sorted({f.path for f in PatchSet(patch) if f.path.endswith(extensions) and not f.is_removed_file})
    except Exception:
        return []


def changed_python_files(patch: str) -> list[str]:
    return changed_files(patch, PYTHON_LANGUAGE.extensions)


def changed_js_files(patch: str) -> list[str]:
    return changed_files(patch, JS_LANGUAGE.extensions)


def test_files_of(test_patch: str, repo_path: str | Path | None = None, commit: str = "") -> list[str]:
    """The test files a run of the task's tests is given: the Python test modules the patch
    changes, and the JS/TS files it changes that declare tests (read at `commit` when a
    repository is given, else from the file's name: `*.test.*`, `*.spec.*`, or a test folder's
    file outside fixtures and helpers)."""
    python = PYTHON_LANGUAGE.runnable_tests(dict.fromkeys(changed_python_files(test_patch), ""))
    js = [f for f in changed_js_files(test_patch) if JS_LANGUAGE.is_test_path(f)]
    if js and repo_path is not None and commit:
        js = JS_LANGUAGE.runnable_tests({f: file_at(str(repo_path), commit, f) for f in js})
    elif js:
        js = [f for f in js if JS_LANGUAGE.looks_runnable(f)]
    return python + js
