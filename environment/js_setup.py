"""`sebgen setup` on a JavaScript/TypeScript snapshot: its recipe, its image, its suite's counts.

    report = js_setup(backend, repo, sha)  # backend: a Docker backend given recipe_for=detect_js_recipe

The report has the keys of `SetupBackend.setup`'s (counts, recipe, attempts, ...), plus `runner`.
A failed install, or a run the environment broke, is repaired from its log (`js_repair`: a gone or
never-published version, a peer conflict, a Node too old or too new, lockfile drift, a missing
build) by `JsRecipeBook`, which keeps what it learned per repository in
`<cache>/recipes/<repo>.js.json` for later processes and later snapshots.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from sandbox import (
    Backend,
    BuildError,
    JsRecipe,
    SandboxError,
    TestRun,
    default_cache_dir,
    read_file_at,
    repo_name,
)

from .attempts import Attempt, SetupError, log_path_of
from .js_detect import build_script_steps, detect_js_recipe
from .js_repair import DEV_DEPENDENCY, diagnose_js, published_versions, with_override
from .languages import snapshot_files
from .recipes import save_learned_fix
from .repair import Fix

OUTCOME_COUNTS = {"passed": "passed", "failed": "failed", "error": "errored", "skipped": "skipped"}


class JsRecipeBook:
    """Detected JS recipes with the repairs learned for each repository (every later snapshot of
    the repository gets them too): `recipe_for` is what the backend builds from. A repair is a
    `Fix` (`js_repair.diagnose_js`), merged into the repository's learned override as Python's
    `RecipeBook` merges its own, and kept in `<cache>/recipes/<repo>.js.json`."""

    def __init__(self, cache_dir: Path | None = None, versions_of=published_versions) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.versions_of = versions_of  # a package's published versions (the registry's list)
        self._learned: dict[str, tuple[dict, tuple[str, ...]]] = {}  # repo -> (override, reasons)
        self._lock = threading.Lock()

    def _cache_file(self, repo: Path) -> Path:
        return self.cache_dir / "recipes" / f"{repo_name(repo)}.js.json"

    def _known(self, repo: Path) -> tuple[dict, tuple[str, ...]]:
        """The override learned for `repo` and its reasons, read from the cache the first time (lock held)."""
        key = str(Path(repo).resolve())
        if key not in self._learned:
            try:
                data = json.loads(self._cache_file(repo).read_text())
                learned = dict(data.get("learned") or {})
                # the first format kept only the dropped dev dependencies
                old = [f"{DEV_DEPENDENCY}{n}" for n in data.get("dropped_dev_dependencies", [])]
                if old:
                    learned["drop"] = list(dict.fromkeys([*(learned.get("drop") or []), *old]))
                reasons = tuple(str(f.get("fix", "")) for f in data.get("fixes", []) if isinstance(f, dict))
                self._learned[key] = (learned, reasons)
            except (OSError, ValueError, AttributeError, TypeError):
                self._learned[key] = ({}, ())
        return self._learned[key]

    def recipe_for(self, repo: Path, commit: str) -> JsRecipe:
        recipe = detect_js_recipe(repo, commit)
        with self._lock:
            override, reasons = self._known(repo)
        return with_override(recipe, override, _package(repo, commit), reasons) if override else recipe

    def diagnose(self, repo: Path, commit: str, log: str, stage: str = "build") -> Fix | None:
        """The fix a failed `stage`'s log calls for, when it changes `commit`'s recipe; else None."""
        repo = Path(repo)
        recipe = self.recipe_for(repo, commit)
        package = _package(repo, commit)
        fix = diagnose_js(
            log,
            recipe,
            package,
            stage,
            tree_files=set(snapshot_files(repo, commit)),
            build_steps=lambda: build_script_steps(repo, commit),
            versions_of=self.versions_of,
        )
        if fix is None:
            return None
        with self._lock:
            override, _ = self._known(repo)
        detected = detect_js_recipe(repo, commit)
        # a repair that changes nothing is not a repair
        changes = with_override(detected, fix.apply(override), package) != with_override(detected, override, package)
        return fix if changes else None

    def learn(self, repo: Path, commit: str, fix: Fix) -> None:
        """Merge `fix` into the repository's override and keep it for later processes."""
        with self._lock:
            override, reasons = self._known(repo)
            self._learned[str(Path(repo).resolve())] = (fix.apply(override), (*reasons, fix.reason))
            save_learned_fix(self._cache_file(repo), fix, commit, learned=override)

    def repair(self, repo: Path, commit: str, log: str, stage: str = "build") -> Fix | None:
        """Learn the repair a failed `stage`'s log calls for; the fix, or None when none fits."""
        fix = self.diagnose(repo, commit, log, stage)
        if fix is not None:
            self.learn(repo, commit, fix)
        return fix


def _package(repo: Path, commit: str) -> dict:
    """`commit`'s package.json ({} when it does not parse)."""
    text = (read_file_at(Path(repo), commit, "package.json") or b"{}").decode(errors="replace")
    try:
        package = json.loads(text)
    except ValueError:
        return {}
    return package if isinstance(package, dict) else {}


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
        start, built = time.monotonic(), len(backend.builds)
        try:
            environment = backend.prepare(repo, sha)
        except BuildError as exc:
            path = log_path_of(str(exc))
            attempt = Attempt("build", False, log=path, seconds=round(time.monotonic() - start, 1))
            tried.append(attempt)
            fix = book.repair(repo, sha, _read(path) or str(exc)) if book is not None and number < attempts else None
            if fix is None:
                raise SetupError(
                    f"installing {repo_name(repo)}@{sha[:10]} failed"
                    + (f"; see the log {path}" if path else f": {str(exc).splitlines()[0]}")
                ) from None
            attempt.fix, attempt.rule = fix.reason, fix.rule
            continue
        except SandboxError as exc:
            raise SetupError(f"{repo_name(repo)}@{sha[:10]}: {exc}") from None
        if environment in backend.builds[built:]:  # built by this call, not an earlier one
            tried.append(Attempt("build", True, seconds=round(time.monotonic() - start, 1)))
        return environment, tried
    raise SetupError(f"installing {repo_name(repo)}@{sha[:10]} failed after {attempts} attempts")


def run_js_tests(
    backend: Backend,
    repo: Path,
    sha: str,
    patches: Sequence[str] = (),
    test_files: Sequence[str] | None = None,
    book: JsRecipeBook | None = None,
    attempts: int = 3,
) -> tuple[TestRun, list[Attempt]]:
    """`ensure_js`, then the tests; a run the environment broke (a test imports a build the recipe
    does not make, Node too old for the code) is repaired from its log through `book` and run
    again, at most `attempts` times: (the last run, the attempts made)."""
    repo = Path(repo)
    tried: list[Attempt] = []
    for number in range(1, attempts + 1):
        _, built = ensure_js(backend, repo, sha, book, attempts)
        tried += built
        run = backend.run_tests(repo, sha, patches, test_files)
        broken = run.collect_errors or run.note or any(v == "error" for v in run.outcomes.values())
        if book is None or number == attempts or run.timed_out or not broken:
            return run, tried
        fix = book.repair(repo, sha, run_text(run), "collection")
        if fix is None:
            return run, tried
        tried.append(Attempt("collection", False, fix=fix.reason, rule=fix.rule, seconds=round(run.duration_s, 1)))
    return run, tried


def run_text(run: TestRun) -> str:
    """What a run says about why tests did not run: its note, the failures' messages and its log."""
    messages = [str(f.get(k) or "") for f in (run.failures or {}).values() for k in ("error", "message")]
    return "\n".join([run.note, *messages, run.log_tail])


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
    run, tried = run_js_tests(backend, repo, sha, (), test_files, book, attempts)
    environment = backend.environment_id(repo, sha)
    recipe = (book.recipe_for if book is not None else detect_js_recipe)(repo, sha)
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
        "seconds": round(run.duration_s, 1),
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
