"""What an agent patch may not touch, and the tree it is verified in (docs/contracts.md, integrity rules).

One home for "which files are put back to the fixed state or removed before verification",
shared by `evaluate`, the functional layer's nop/oracle checks and the exports (Harbor's
test.sh uses `PROTECTED_DIRS`, `PROTECTED_NAMES`, `CONFIG_NAMES` and `AUTOLOAD_*`).

The attempt tree: base_commit (fixed) + bug_patch with test_patch reverted (exactly what an
exported task gives the agent, no .git), then the agent patch, then:

- every test path (a file of test_patch, a file named test_*.py / *_test.py / tests.py / conftest.py, or
  any file under a directory named tests/test/testing) and every test-config source
  (pytest.ini, .pytest.ini, tox.ini, setup.cfg, pyproject.toml, at any depth) is put back to
  the fixed state (removed when the fixed state has no such file);
- files Python loads by itself (sitecustomize.py, usercustomize.py, *.pth) that the patch
  added or changed are removed;
- a patch that adds a top-level module shadowing the test runner or the standard library
  (pytest.py, _pytest/, json.py, ...) voids the attempt.

JavaScript/TypeScript the same way: JS/TS test files (`*.test.*`, `*.spec.*`, any JS/TS file
under `__tests__/` or `spec/`, besides the directories above) and what decides how tests are
collected, loaded or run (`package.json` with its `scripts` and runner keys, `.npmrc` and the
other package-manager configs, the runners' config files `jest.config.*`, `vitest.config.*`,
`vite.config.*`, `.mocharc.*`, `ava.config.*` and the setup files they conventionally name, the
Babel and TypeScript configs) are put back to the fixed state. Node's version files (`.nvmrc`,
`.node-version`) and anything under `node_modules/` are protected too (a run uses the image's
`node_modules` anyway).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .errors import PatchError

MAX_PATCH_BYTES = 2 * 2**20  # an agent patch larger than this is rejected before git apply
MAX_BINARY_BYTES = 2**20  # summed inflated size of the patch's GIT binary literals/deltas

PROTECTED_DIRS = ("tests", "test", "testing")
PROTECTED_NAMES = ("conftest.py",)
CONFIG_NAMES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")
AUTOLOAD_NAMES = ("sitecustomize.py", "usercustomize.py")
AUTOLOAD_SUFFIXES = (".pth",)
# a test module by its name: pytest's `test_*.py` / `*_test.py`, and `tests.py` (a flat suite, vobject's)
TEST_MODULE_NAME = re.compile(r"^(test_.*|.*_test|tests)\.py$")
JS_EXTENSIONS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
JS_PROTECTED_DIRS = ("__tests__", "spec")  # with PROTECTED_DIRS: where JS/TS tests live
_JS_TEST_FILE = re.compile(r"\.(test|spec)(-d)?\.[cm]?[jt]sx?$")  # -d: tsd type tests
JS_CONFIG_NAMES = (
    "package.json",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pnpmfile.cjs",
    ".nvmrc",
    ".node-version",
    "pnpm-workspace.yaml",
    ".babelrc",
    ".swcrc",
)
# runner, bundler, transpiler and TypeScript configs, in any of their extensions
_JS_CONFIG = re.compile(
    r"^((jest|vitest|vite|ava|babel|playwright|cypress)\.config|vitest\.workspace|\.mocharc|\.babelrc|tsconfig[^/]*)"
    r"(\.[cm]?[jt]s|\.json5?|\.jsonc|\.ya?ml|\.json)?$"
)
# the setup files those configs conventionally name (jest.setup.js, setupTests.ts, test-setup.mjs)
_JS_SETUP = re.compile(r"^((jest|vitest|mocha|ava)[.-]setup|setup[-_.]?tests?|tests?[-_.]?setup)\b", re.I)
# modules the verifier itself imports: a tree module of that name would replace it
RUNNER_MODULES = frozenset(
    {"pytest", "_pytest", "pluggy", "py", "iniconfig", "packaging", "site", "sebgen_report_plugin"}
)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "json",
    "os",
    "sys",
    "io",
    "re",
    "signal",
    "subprocess",
    "tarfile",
    "atexit",
    "builtins",
}


@dataclass
class Restoration:
    """What the verifier changed in the agent's tree, and why (the per-attempt report)."""

    reverted: list[str] = field(default_factory=list)  # put back to the fixed state
    removed: list[str] = field(default_factory=list)  # auto-loaded or protected files the fixed state lacks
    void: str = ""  # non-empty: the attempt cannot be verified (one sentence)

    def to_dict(self) -> dict:
        return {"reverted": list(self.reverted), "removed": list(self.removed), "void": self.void}

    def summary(self) -> str:
        parts = []
        if self.reverted:
            parts.append(f"reverted {len(self.reverted)} protected file(s) ({', '.join(self.reverted[:3])})")
        if self.removed:
            parts.append(f"removed {len(self.removed)} file(s) ({', '.join(self.removed[:3])})")
        return "; ".join(parts)


def is_protected(rel: str, test_patch_files: frozenset[str] | set[str] = frozenset()) -> bool:
    """A path the agent may not change: tests, conftest files and test configuration (Python's
    and JavaScript/TypeScript's)."""
    path = PurePosixPath(rel)
    return (
        rel in test_patch_files
        or path.name in PROTECTED_NAMES
        or path.name in CONFIG_NAMES
        or bool(TEST_MODULE_NAME.match(path.name))
        or any(part in PROTECTED_DIRS for part in path.parts[:-1])
        or is_js_protected(path)
    )


def is_js_protected(path: PurePosixPath) -> bool:
    """A JS/TS test file, or a file that decides how JS/TS tests are installed, collected or run."""
    if path.name in JS_CONFIG_NAMES or _JS_CONFIG.match(path.name) or "node_modules" in path.parts:
        return True
    if path.name.endswith(JS_EXTENSIONS) and _JS_SETUP.match(path.name):
        return True
    return path.name.endswith(JS_EXTENSIONS) and (
        bool(_JS_TEST_FILE.search(path.name)) or any(part in JS_PROTECTED_DIRS for part in path.parts[:-1])
    )


def is_autoload(rel: str) -> bool:
    """A file the interpreter may execute without being asked (site customisation, .pth)."""
    name = PurePosixPath(rel).name
    return name in AUTOLOAD_NAMES or name.endswith(AUTOLOAD_SUFFIXES)


def shadowed_module(rel: str) -> str:
    """The runner or standard-library module that a new top-level file would shadow, else ''."""
    parts = PurePosixPath(rel).parts
    if parts and parts[0] == "src":
        parts = parts[1:]
    if not parts:
        return ""
    top = parts[0][:-3] if len(parts) == 1 and parts[0].endswith(".py") else (parts[0] if len(parts) > 1 else "")
    return top if top and (top in RUNNER_MODULES or top in _STDLIB) else ""


def check_patch_limits(diff: str | None) -> None:
    """PatchError before any git apply when a patch is too large or inflates too much."""
    if not diff:
        return
    size = len(diff.encode("utf-8", errors="replace"))
    if size > MAX_PATCH_BYTES:
        raise PatchError(f"patch is {size / 2**20:.1f} MiB, over the {MAX_PATCH_BYTES / 2**20:g} MiB limit")
    inflated = sum(int(n) for n in re.findall(r"^(?:literal|delta) (\d+)$", diff, re.M))
    if inflated > MAX_BINARY_BYTES:
        raise PatchError(
            f"patch's binary parts inflate to {inflated / 2**20:.1f} MiB, "
            f"over the {MAX_BINARY_BYTES / 2**20:g} MiB limit"
        )


def _files(root: Path) -> dict[str, Path]:
    """Every file and symlink under root (symlinks not followed), by relative posix path."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        base = Path(dirpath)
        for name in filenames + [d for d in dirnames if (base / d).is_symlink()]:
            out[(base / name).relative_to(root).as_posix()] = base / name
    return out


def _same(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and a.readlink() == b.readlink()
    return a.stat().st_size == b.stat().st_size and a.read_bytes() == b.read_bytes()


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def guarded_digests(tree: Path, test_patch_files: set[str] | frozenset[str] = frozenset()) -> dict[str, str]:
    """Digests of the protected and auto-loaded files of a tree (the agent state before its patch)."""
    return {
        rel: _digest(path)
        for rel, path in _files(Path(tree)).items()
        if is_protected(rel, test_patch_files) or is_autoload(rel)
    }


def _digest(path: Path) -> str:
    if path.is_symlink():
        return "link:" + os.readlink(path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def restore_for_verification(
    tree: Path, fixed: Path, test_patch_files: set[str] | frozenset[str], agent_state: dict[str, str] | None = None
) -> Restoration:
    """Put protected files back to `fixed`, drop auto-loaded additions, void shadowing modules.

    With `agent_state` (guarded_digests before the agent's patch) only the files the patch
    touched are reported; the withheld tests coming back are not the agent's doing.
    """
    tree, fixed = Path(tree), Path(fixed)
    result = Restoration()
    now, before = _files(tree), _files(fixed)

    def touched(rel: str) -> bool:
        if agent_state is None:
            return True
        mine = now.get(rel)
        return (_digest(mine) if mine is not None else None) != agent_state.get(rel)

    for rel in sorted(set(now) - set(before)):
        module = shadowed_module(rel)
        if module and not is_protected(rel, test_patch_files) and not is_autoload(rel):
            result.void = f"the patch adds {rel}, which would shadow the module {module!r} the verifier relies on"
            return result
    for rel in sorted(set(now) | set(before)):
        protected = is_protected(rel, test_patch_files)
        if not protected and not is_autoload(rel):
            continue
        mine, theirs = now.get(rel), before.get(rel)
        if mine is not None and theirs is not None and _same(mine, theirs):
            continue
        target = tree / rel
        report = touched(rel)
        if theirs is None:
            _remove(target)
            if report:
                result.removed.append(rel)
            continue
        for ancestor in reversed(list(PurePosixPath(rel).parents)[:-1]):
            if (tree / ancestor).is_symlink() or (tree / ancestor).is_file():
                _remove(tree / ancestor)  # a file or link the patch put where a directory was
        if target.is_symlink() or target.exists():
            _remove(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(theirs, target, follow_symlinks=False)
        if report:
            result.reverted.append(rel)
    return result
