"""`sebgen setup` on a JavaScript/TypeScript snapshot: its recipe, its image, its suite's counts.

    report = js_setup(backend, repo, sha)  # backend: a Docker backend given recipe_for=detect_js_recipe

The report has the keys of `SetupBackend.setup`'s (counts, recipe, attempts, ...), plus `runner`.
One repair so far (`JsRecipeBook`): a dev dependency whose pinned tarball the registry no longer
has (404) is dropped from package.json and the install follows the lockfile for the rest. What
was learned is kept per repository in `<cache>/recipes/<repo>.js.json` for later processes.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path

from sandbox import Backend, BuildError, JsRecipe, SandboxError, default_cache_dir, read_file_at, repo_name

from .js_detect import detect_js_recipe
from .setup import Attempt, SetupError, log_path_of

OUTCOME_COUNTS = {"passed": "passed", "failed": "failed", "error": "errored", "skipped": "skipped"}


# npm, pnpm and yarn name a tarball the registry no longer serves: `404 Not Found - GET
# https://registry.npmjs.org/top-sites/-/top-sites-1.1.225.tgz`
_GONE_TARBALL = re.compile(r"404[^\n]*?/((?:@[^/\s]+/)?[^/\s]+)/-/[^/\s]+\.tgz")
# the frozen-lockfile switches that refuse a package.json the lockfile no longer matches
_FROZEN = (" --frozen-lockfile", " --immutable")


class JsRecipeBook:
    """Detected JS recipes with the repairs learned for each repository (every later snapshot of
    the repository gets them too): `recipe_for` is what the backend builds from."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self._dropped: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def _cache_file(self, repo: Path) -> Path:
        return self.cache_dir / "recipes" / f"{repo_name(repo)}.js.json"

    def _known(self, repo: Path) -> tuple[str, ...]:
        """The dependencies dropped for `repo`, read from the cache the first time (lock held)."""
        key = str(Path(repo).resolve())
        if key not in self._dropped:
            try:
                data = json.loads(self._cache_file(repo).read_text())
                self._dropped[key] = tuple(str(n) for n in data.get("dropped_dev_dependencies", []))
            except (OSError, ValueError, AttributeError):
                self._dropped[key] = ()
        return self._dropped[key]

    def recipe_for(self, repo: Path, commit: str) -> JsRecipe:
        recipe = detect_js_recipe(repo, commit)
        with self._lock:
            dropped = self._known(repo)
        return without_dev_dependencies(recipe, dropped) if dropped else recipe

    def repair(self, repo: Path, commit: str, log: str) -> str:
        """Learn a repair from a failed install's log; its one-line reason, or "" when none fits."""
        text = (read_file_at(Path(repo), commit, "package.json") or b"{}").decode(errors="replace")
        try:
            dev = set(json.loads(text).get("devDependencies") or {})
        except (ValueError, AttributeError):
            return ""
        gone = sorted({m for m in _GONE_TARBALL.findall(log) if m in dev})
        with self._lock:
            known = self._known(repo)
            new = [name for name in gone if name not in known]
            if not new:
                return ""
            reason = f"dropped the dev dependency {', '.join(new)}: the registry no longer has its pinned tarball (404)"
            self._dropped[str(Path(repo).resolve())] = (*known, *new)
            path = self._cache_file(repo)
            path.parent.mkdir(parents=True, exist_ok=True)
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                data = {}
            data["dropped_dev_dependencies"] = [*known, *new]
            data.setdefault("fixes", []).append({"commit": commit, "rule": "registry-gone", "fix": reason})
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
            tmp.replace(path)
        return reason


def without_dev_dependencies(recipe: JsRecipe, names: Sequence[str]) -> JsRecipe:
    """`recipe` with `names` removed from package.json's devDependencies before the install,
    which then may update the lockfile (`npm ci` becomes `npm install`, frozen switches go)."""
    install = recipe.install
    for switch in _FROZEN:
        install = install.replace(switch, "")
    install = re.sub(r"\bnpm(@\S+)? ci\b", r"npm\1 install", install)
    delete = " ".join(f"devDependencies.{name}" for name in names)
    return replace(
        recipe,
        install=f"npm pkg delete {delete} && {install}",
        sources=(*recipe.sources, f"devDependencies dropped: {', '.join(names)} (their pinned tarballs are gone)"),
    )


def ensure_js(
    backend: Backend, repo: Path, sha: str, book: JsRecipeBook | None = None, attempts: int = 3
) -> tuple[str, list[Attempt]]:
    """Build `sha`'s JS image when missing, repaired from its log through `book` (which must be
    the backend's `recipe_for`): (the image, the attempts made). SetupError when it cannot."""
    repo = Path(repo)
    recipe_for = book.recipe_for if book is not None else detect_js_recipe
    try:
        recipe = recipe_for(repo, sha)
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    if not recipe.runner:
        raise SetupError(
            f"{repo_name(repo)}@{sha[:10]}: no test runner found (jest, vitest, mocha or node:test); "
            + "; ".join(recipe.sources)
        )
    tried: list[Attempt] = []
    for number in range(1, attempts + 1):
        start = time.monotonic()
        try:
            environment = backend.prepare(repo, sha)
        except BuildError as exc:
            path = log_path_of(str(exc))
            attempt = Attempt("build", False, log=path, seconds=round(time.monotonic() - start, 1))
            tried.append(attempt)
            fix = book.repair(repo, sha, _read(path) or str(exc)) if book is not None and number < attempts else ""
            if not fix:
                raise SetupError(
                    f"installing {repo_name(repo)}@{sha[:10]} failed"
                    + (f"; see the log {path}" if path else f": {str(exc).splitlines()[0]}")
                ) from None
            attempt.fix, attempt.rule = fix, "registry-gone"
            continue
        except SandboxError as exc:
            raise SetupError(f"{repo_name(repo)}@{sha[:10]}: {exc}") from None
        if environment in backend.builds:
            tried.append(Attempt("build", True, seconds=round(time.monotonic() - start, 1)))
        return environment, tried
    raise SetupError(f"installing {repo_name(repo)}@{sha[:10]} failed after {attempts} attempts")


def js_setup(
    backend: Backend,
    repo: Path,
    sha: str,
    test_files: Sequence[str] | None = None,
    book: JsRecipeBook | None = None,
    attempts: int = 3,
) -> dict:
    """`ensure_js`, then the whole suite (or `test_files`) run there: `sebgen setup`'s report."""
    repo = Path(repo)
    environment, tried = ensure_js(backend, repo, sha, book, attempts)
    recipe = (book.recipe_for if book is not None else detect_js_recipe)(repo, sha)
    run_start = time.monotonic()
    run = backend.run_tests(repo, sha, (), test_files)
    counts = dict.fromkeys(OUTCOME_COUNTS.values(), 0)
    for outcome in run.outcomes.values():
        counts[OUTCOME_COUNTS[outcome]] += 1
    return {
        "repo": repo_name(repo),
        "commit": sha,
        "language": "javascript",
        "runner": recipe.runner,
        "counts": counts,
        "exit_code": run.exit_code,
        "timed_out": run.timed_out,
        "note": run.note,
        "seconds": round(time.monotonic() - run_start, 1),
        "log_tail": run.log_tail,
        "environment": environment,
        "recipe": recipe.to_dict(),
        "attempts": [asdict(a) for a in tried],
        "fixes": [a.fix for a in tried if a.fix],
        "first_failure": "",
    }


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace") if path else ""
    except OSError:
        return ""
