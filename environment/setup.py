"""Setting a snapshot's environment up, repairing it from its logs, and remembering what worked.

`SetupBackend` wraps a backend (anything with the `sandbox.Backend` protocol) and shares a
`RecipeBook` with it: the backend builds from `book.recipe_for`. Before a snapshot's first run
the wrapper builds the environment (`backend.prepare`); when the build fails, or a run cannot
collect the suite for a reason of the environment (a missing third-party module, an unknown
pytest option, ...), it reads the log, changes the repo's override in the book by rule (or by
asking a model, when one is given), and tries again, at most `attempts` times; tests skipped
because a module is missing that an extra of the project provides get that extra, and tests
failing on the API of a package newer than the commit (or a test module that no longer imports
for a name a package lacks) get the package's release of the commit's day that installs on the
interpreter; both run again. A repair that would leave what gets installed as it is is not retried. What worked is
kept by the book for later runs; each snapshot's attempts are reported by
`environment_setup(repo, commit)`. `make_sandbox` wires the three together.
"""

from __future__ import annotations

import functools
import re
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from records import file_of_test
from sandbox import (
    Backend,
    BuildError,
    InstallRecipe,
    Limits,
    TestRun,
    install_commands,
    make_backend,
    read_file_at,
    repo_name,
    resolve_commit,
)

from .attempts import Attempt, SetupError, SetupRecord, log_path_of
from .detect import extras_at, suite_requirements
from .js_setup import JsRecipeBook, ensure_js, js_setup, run_js_tests
from .languages import JAVASCRIPT, PYTHON, languages_of
from .recipes import RecipeBook
from .repair import (
    Fix,
    advice_prompt,
    api_modules,
    diagnose,
    install_failure,
    lacking_modules,
    missing_extra,
    nose_setup_fix,
    nose_setups,
    outdated_dependency,
    parse_advice,
    unmet_dependency,
)
from .versions import Index, Snapshot, commit_date, installed_versions, suite_pins

# a model call: prompt in, parsed JSON object out (wired by the caller, who owns the client)
Advisor = Callable[[str], dict]


@functools.lru_cache(maxsize=64)
def tree_module_names(repo: str, commit: str) -> frozenset[str]:
    """Names the snapshot provides as top-level modules: every Python file's stem and the folders
    above it (its packages), but a name inside a package (`apispec/ext/marshmallow/`, whose
    parent has an `__init__.py`), which no `import marshmallow` reaches. Other files are no
    modules: a notebook `numpy.ipynb` or a `six.txt` leaves numpy and six third-party."""
    proc = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", commit], capture_output=True, text=True, check=False
    )
    paths = [Path(p) for p in proc.stdout.splitlines()]
    packages = {p.parent for p in paths if p.name == "__init__.py"}
    names = set()
    for path in paths:
        parts = path.parts
        if not parts or not _PYTHON_FILE.search(parts[-1]):
            continue
        for depth, part in enumerate(parts):
            if Path(*parts[:depth]) not in packages or not depth:  # a root of an import path holds it
                names.add(_PYTHON_FILE.sub("", part) if depth == len(parts) - 1 else part)
    return frozenset(names)


# a file Python imports as a module: source, stubs, Cython, compiled extensions
_PYTHON_FILE = re.compile(r"(?:\.(?:cpython|abi3|cp\d+)[\w-]*)?\.(?:py|pyi|pyx|pxd|so|pyd)$")


def python_fits(requires_python: str, version: str) -> bool:
    if not requires_python or not version:
        return True
    try:
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        return SpecifierSet(requires_python).contains(f"{version}.0", prereleases=True)
    except (ImportError, InvalidSpecifier):
        return True


class SetupBackend:
    """A backend that sets environments up with repair; everything else is the wrapped backend's."""

    def __init__(
        self,
        inner: Backend,
        book: RecipeBook,
        attempts: int = 3,
        advisor: Advisor | None = None,
        log: Callable[[str], None] = print,
    ):
        self.inner = inner
        self.book = book
        self.attempts = max(1, attempts)
        self.advisor = advisor
        self.log = log
        self._lock = threading.RLock()
        self._ready: set[str] = set()  # environment ids known to build
        self._records: dict[tuple[str, str], SetupRecord] = {}
        self._probed: set[tuple] = set()  # (environment, files) whose collection errors were read alone
        self.index: Index | None = None  # release dates for the version rule, made when first needed
        self._js: Backend | None = None  # runs JavaScript/TypeScript snapshots (made when first needed)
        self._js_book = None  # its recipes and their repairs

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def runs_untrusted(self) -> bool:
        return self.inner.runs_untrusted

    @property
    def limits(self) -> Limits:
        return self.inner.limits

    @property
    def builds(self) -> list:
        return self.inner.builds

    def python_version(self) -> str:
        return self.inner.python_version()

    def recipe(self, repo: Path, commit: str) -> InstallRecipe:
        return self.book.recipe_for(repo, commit)

    def _learn(self, repo: Path, fix: Fix, record: SetupRecord) -> None:
        self.book.learn(repo, fix, record.commit)

    def _snapshot(self, repo: Path, commit: str, recipe: InstallRecipe) -> Snapshot:
        """The commit's date, the suite's pins and the index: what the version rule reads."""
        if self.index is None:
            self.index = Index(self.book.cache_dir, log=self.log)
        return Snapshot(
            date=commit_date(repo, commit),
            python=recipe.python or self.inner.python_version(),
            pins=suite_pins(suite_requirements(repo, commit, recipe)),
            index=self.index,
            installed=installed_versions(_read(str(self._build_log(repo, commit)))),
        )

    def _build_log(self, repo: Path, commit: str) -> Path:
        """Where the backends keep the build log of the snapshot's environment (named by its id)."""
        env_id = self.inner.environment_id(repo, commit)
        return self.book.cache_dir / "build-logs" / f"{env_id.replace(':', '-')}.log"

    def _fix_for(self, log: str, repo: Path, commit: str, stage: str, attempt: Attempt) -> Fix | None:
        """The repair for a failed attempt; None when no rule (nor model) has one, or when the
        one proposed would leave the recipe as it is (the attempt's note says so)."""
        recipe = self.recipe(repo, commit)
        snapshot = self._snapshot(repo, commit, recipe)
        fix = diagnose(log, recipe, set(tree_module_names(str(Path(repo).resolve()), commit)), stage, snapshot)
        if fix is None and self.advisor is not None:
            try:
                fix = parse_advice(self.advisor(advice_prompt(log, recipe, stage)))
            except Exception as exc:  # the model is a last resort: its failure is not the repo's
                self.log(f"sandbox: asking the model for a recipe failed ({type(exc).__name__}: {exc})")
                fix = None
        return self._changing(fix, repo, commit, attempt)

    def _changing(self, fix: Fix | None, repo: Path, commit: str, attempt: Attempt) -> Fix | None:
        """`fix`, unless it would leave what gets installed as it is (the attempt's note says so)."""
        if fix is None:
            return None
        if _installs(self.book.recipe_with(repo, commit, fix)) == _installs(self.recipe(repo, commit)):
            attempt.note = f"the repair '{fix.reason}' ({fix.rule}) leaves the recipe as it is: not retried"
            self.log(f"sandbox: {repo_name(repo)}@{commit[:10]}: {attempt.note}")
            return None
        return fix

    # -- setting up -----------------------------------------------------------------------
    def _record(self, repo: Path, commit: str) -> SetupRecord:
        key = (str(Path(repo).resolve()), commit)
        if key not in self._records:
            self._records[key] = SetupRecord(repo_name(repo), commit)
        return self._records[key]

    def ensure(self, repo: Path, commit: str) -> str:
        """Build the snapshot's environment, repairing the recipe on failure; returns its id."""
        repo = Path(repo)
        with self._lock:
            record = self._record(repo, commit)
            recipe = self.recipe(repo, commit)
            version = recipe.python or self.inner.python_version()
            if not recipe.install and not python_fits(recipe.requires_python, version):
                raise SetupError(
                    f"{repo_name(repo)}@{commit[:10]} requires Python {recipe.requires_python} and "
                    f"the sandbox runs Python {version}; set sandbox.base_image to a fitting "
                    f"python image or sandbox.install.{repo_name(repo)}.python"
                )
            before = self.book.learned_state(repo)
            for number in range(1, self.attempts + 1):
                env_id = self.inner.environment_id(repo, commit)
                if env_id in self._ready:
                    record.environment = env_id
                    return env_id
                start = time.monotonic()
                try:
                    self.inner.prepare(repo, commit)
                except BuildError as exc:
                    path = log_path_of(str(exc))
                    text = _read(path) or str(exc)
                    attempt = record.failed(
                        Attempt("build", False, log=path, seconds=round(time.monotonic() - start, 1)), text
                    )
                    fix = self._fix_for(text, repo, commit, "build", attempt) if number < self.attempts else None
                    if fix is None:
                        self.book.take_back(repo, before, commit)  # its repairs failed: no other commit gets them
                        tried = f"after {number} attempt{'s' if number > 1 else ''}"
                        cause = install_failure(text)
                        raise SetupError(
                            f"installing {repo_name(repo)}@{commit[:10]} failed {tried}"
                            + (f" ({cause})" if cause else "")
                            + (f"; see the log {path}" if path else f": {str(exc).splitlines()[0]}")
                            + (f" ({attempt.note})" if attempt.note else "")
                        ) from None
                    attempt.fix, attempt.rule = fix.reason, fix.rule
                    self.log(
                        f"sandbox: environment of {repo_name(repo)}@{commit[:10]} failed to build; repair: {fix.reason}"
                    )
                    self._learn(repo, fix, record)
                    continue
                record.attempts.append(Attempt("build", True, seconds=round(time.monotonic() - start, 1)))
                self._ready.add(env_id)
                record.environment = env_id
                return env_id
            self.book.take_back(repo, before, commit)
            raise SetupError(f"installing {repo_name(repo)}@{commit[:10]} failed after {self.attempts} attempts")

    def _collection_fix(
        self, repo: Path, commit: str, run: TestRun, attempt: Attempt, patches: Sequence[str] = ()
    ) -> Fix | None:
        """A fix when the run could not collect tests for a reason of the environment."""
        if run.timed_out or not (
            run.exit_code not in (0, 1, 5)
            or run.collect_errors
            or any(v == "error" for v in run.outcomes.values())
            or (run.exit_code == 1 and not run.outcomes)  # pytest stopped before any test (a plugin failed to load)
        ):
            return None
        fix = self._fix_for(run.log_tail, repo, commit, "collection", attempt)
        if fix is None and run.collect_errors:
            # a long run's log tail may have lost the collection error: rerun just those files once
            key = (self.inner.environment_id(repo, commit), tuple(sorted(run.collect_errors)))
            if key not in self._probed:
                self._probed.add(key)
                focused = self.inner.run_tests(repo, commit, patches, sorted(run.collect_errors))
                fix = self._fix_for(focused.log_tail, repo, commit, "collection", attempt)
        return fix

    def _extra_fix(self, repo: Path, commit: str, run: TestRun, attempt: Attempt) -> Fix | None:
        """The project's extra that tests skipped for, when their skip reason names its module."""
        fix = missing_extra(run.log_tail, self.recipe(repo, commit), extras_at(repo, commit))
        if fix is not None:
            attempt.stage = "skip"
        return self._changing(fix, repo, commit, attempt)

    def _dependency_fix(self, repo: Path, commit: str, run: TestRun, attempt: Attempt) -> Fix | None:
        """A package at the commit's release when failing tests blame an API it no longer has;
        pytest<8 when they rely on a nose-style setup pytest 8 no longer calls."""
        failing = sorted(t for t, outcome in run.outcomes.items() if outcome == "failed")
        files = sorted({file_of_test(t) for t in failing})
        texts = {f: (read_file_at(repo, commit, f) or b"").decode(errors="replace") for f in files}
        if nose_setups(failing, texts):  # the source says so; the environment's pytest must agree
            recipe = self.recipe(repo, commit)
            fix = nose_setup_fix(run.log_tail, failing, texts, recipe, self._snapshot(repo, commit, recipe))
            if fix is not None:
                attempt.stage = "tests"
                return self._changing(fix, repo, commit, attempt)
        sources = "\n".join(texts.values())
        # the report's evidence of each failure, in pytest's words: a long log's tail may have lost them
        errors = [f"E   {f.get('type')}: {f.get('message')}" for f in run.failures.values() if f.get("type")]
        log = "\n".join([run.log_tail, *errors])
        if not api_modules(log, sources):  # the common case (a bug's failures): no index lookup
            return None
        recipe = self.recipe(repo, commit)
        names = set(tree_module_names(str(Path(repo).resolve()), commit))
        fix = outdated_dependency(log, sources, recipe, names, self._snapshot(repo, commit, recipe))
        if fix is not None:
            attempt.stage = "tests"
        return self._changing(fix, repo, commit, attempt)

    def _unmet_note(self, repo: Path, commit: str, run: TestRun) -> str:
        """Why no test could load when a package's name is missing even from the release the
        repair pinned (`unmet_dependency`); '' otherwise (the common case: no index lookup)."""
        if not lacking_modules(run.log_tail):
            return ""
        recipe = self.recipe(repo, commit)
        names = set(tree_module_names(str(Path(repo).resolve()), commit))
        return unmet_dependency(run.log_tail, recipe, names, self._snapshot(repo, commit, recipe))

    # -- the backend protocol ---------------------------------------------------------------
    def environment_id(self, repo: Path, commit: str) -> str:
        if self.is_javascript(repo, commit):
            return self.js_backend().environment_id(repo, commit)
        return self.inner.environment_id(repo, commit)

    def prepare(self, repo: Path, commit: str) -> str:
        if self.is_javascript(repo, commit):
            return self._ensure_js(repo, commit)
        self.ensure(repo, commit)
        return self.inner.prepare(repo, commit)

    def run_tree(
        self,
        repo: Path,
        commit: str,
        tree: Path,
        test_files: Sequence[str] | None = None,
        untrusted: bool = False,
        runner: str = "",
    ) -> TestRun:
        if self.is_javascript(repo, commit):
            self._ensure_js(repo, commit)
            return self.js_backend().run_tree(repo, commit, tree, test_files, untrusted, runner=runner)
        self.ensure(Path(repo), commit)
        return self.inner.run_tree(repo, commit, tree, test_files, untrusted)

    def run_tests(
        self, repo: Path, commit: str, patches: Sequence[str] = (), test_files: Sequence[str] | None = None
    ) -> TestRun:
        repo = Path(repo)
        if self.is_javascript(repo, commit):
            self._ensure_js(repo, commit)
            if patches:  # a task's state: its failures are the code's, never read as the environment's
                return self.js_backend().run_tests(repo, commit, patches, test_files)

            run, _ = run_js_tests(self.js_backend(), repo, commit, (), test_files, self._js_book, self.attempts)
            return run
        before = self.book.learned_state(repo)
        for number in range(1, self.attempts + 1):
            try:
                self.ensure(repo, commit)
            except SetupError:
                self.book.take_back(repo, before, commit)  # a repair of its tests led to an install that failed
                raise
            run = self.inner.run_tests(repo, commit, patches, test_files)
            with self._lock:
                attempt = Attempt("collection", False, seconds=round(run.duration_s, 1))
                fix = self._collection_fix(repo, commit, run, attempt, patches) if number < self.attempts else None
                if fix is None and number < self.attempts and "skipped" in run.outcomes.values():
                    fix = self._extra_fix(repo, commit, run, attempt)
                if fix is None and number < self.attempts and "failed" in run.outcomes.values():
                    fix = self._dependency_fix(repo, commit, run, attempt)
                record = self._record(repo, commit)
                if fix is None:
                    if attempt.note:  # a repair was proposed and refused: the record says why
                        record.failed(attempt, run.log_tail)
                    if not run.note and run.collect_errors and not any("::" in t for t in run.outcomes):
                        run.note = self._unmet_note(repo, commit, run)
                    return run
                attempt.fix, attempt.rule = fix.reason, fix.rule
                record.failed(attempt, run.log_tail)
                self.log(f"sandbox: tests of {repo_name(repo)}@{commit[:10]} could not run; repair: {fix.reason}")
                self._learn(repo, fix, record)
        return run

    def environment_setup(self, repo: Path, commit: str) -> dict:
        """What set this snapshot's environment up: the recipe, its environment id and the attempts."""
        repo = Path(repo)
        if self.is_javascript(repo, commit):
            backend = self.js_backend()
            return {
                "environment": backend.environment_id(repo, commit),
                "recipe": self._js_book.recipe_for(repo, commit).to_dict(),
                "attempts": [],
                "fixes": [],
                "first_failure": "",
            }
        with self._lock:
            record = self._record(repo, commit)
            if not record.environment:
                record.environment = self.inner.environment_id(repo, commit)
            return record.to_dict(self.recipe(repo, commit))

    def setup(self, repo: Path, commit: str = "HEAD", test_files: Sequence[str] | None = None) -> dict:
        """Build the environment of `commit` and run its suite there (`sebgen setup`). A snapshot
        in JavaScript/TypeScript only is set up by `js_setup` (a snapshot with both: Python)."""
        repo = Path(repo)
        sha = resolve_commit(repo, commit)
        if self.is_javascript(repo, sha):
            backend = self.js_backend()
            return js_setup(backend, repo, sha, test_files, self._js_book, self.attempts)
        start = time.monotonic()
        run = self.run_tests(repo, sha, (), test_files)
        counts = {"passed": 0, "failed": 0, "errored": 0, "skipped": 0}
        for outcome in run.outcomes.values():
            counts[{"error": "errored"}.get(outcome, outcome)] = (
                counts.get({"error": "errored"}.get(outcome, outcome), 0) + 1
            )
        return {
            "repo": repo_name(repo),
            "commit": sha,
            "counts": counts,
            "exit_code": run.exit_code,
            "timed_out": run.timed_out,
            "note": run.note,
            "seconds": round(time.monotonic() - start, 1),
            "log_tail": run.log_tail,
            **self.environment_setup(repo, sha),
        }

    def is_javascript(self, repo: Path, commit: str) -> bool:
        """The snapshot is JavaScript/TypeScript only: its environment and runs are the Docker
        backend's JS ones (a snapshot with Python too is set up as Python)."""
        full_sha = re.fullmatch(r"[0-9a-f]{40}", commit) is not None  # a ref may move: read it each time
        try:
            languages = _languages(str(Path(repo).resolve()), commit) if full_sha else languages_of(Path(repo), commit)
        except subprocess.CalledProcessError:  # no such commit: the Python path says so in its words
            return False
        return JAVASCRIPT in languages and PYTHON not in languages

    def _ensure_js(self, repo: Path, commit: str) -> str:

        backend = self.js_backend()
        environment = backend.environment_id(repo, commit)
        with self._lock:
            if environment in self._ready:
                return environment
        environment, _ = ensure_js(backend, Path(repo), commit, self._js_book, self.attempts)
        with self._lock:
            self._ready.add(environment)
        return environment

    def js_backend(self) -> Backend:
        """The Docker backend for JavaScript/TypeScript recipes, with the wrapped backend's settings."""
        if self._js is None:
            self._js_book = JsRecipeBook(self.book.cache_dir)
            inner = self.inner
            if inner.name != "docker":
                raise SetupError(
                    "JavaScript/TypeScript tests run only in the Docker backend; start Docker "
                    "(sandbox.backend: docker or auto)"
                )
            self._js = make_backend(
                "docker",
                limits=inner.limits,
                cache_dir=getattr(inner, "cache_dir", None),
                base_image=getattr(inner, "base_image", "python:3.11-slim"),
                offline_base_image=getattr(inner, "offline_base_image", "sebgen-base:bookworm"),
                recipe_for=self._js_book.recipe_for,
                log=self.log,
            )
        return self._js

    def close(self) -> None:
        if self._js is not None:
            self._js.close()
        self.inner.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def make_sandbox(
    kind: str = "auto",
    *,
    limits: Limits = Limits(),
    cache_dir: Path | None = None,
    base_image: str = "python:3.11-slim",
    offline_base_image: str = "sebgen-base:bookworm",
    install: dict | None = None,
    log: Callable[[str], None] = print,
    setup_attempts: int = 1,
    advisor: Advisor | None = None,
    warm_spares_total: int = 4,
    warm_spares: int = 2,
) -> SetupBackend:
    """A backend that sets environments up: detection, the config's overrides, repairs."""
    book = RecipeBook(install, cache_dir, log)
    backend = make_backend(
        kind,
        limits=limits,
        cache_dir=cache_dir,
        base_image=base_image,
        offline_base_image=offline_base_image,
        recipe_for=book.recipe_for,
        log=log,
        warm_spares_total=warm_spares_total,
        warm_spares=warm_spares,
    )
    return SetupBackend(backend, book, attempts=setup_attempts, advisor=advisor, log=log)


@functools.lru_cache(maxsize=1024)
def _languages(repo: str, commit: str) -> tuple[str, ...]:
    return languages_of(Path(repo), commit)


def _installs(recipe: InstallRecipe) -> tuple:
    """What building from `recipe` does: its interpreter and its install commands."""
    return recipe.python, install_commands(recipe, "pip")


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace") if path else ""
    except OSError:
        return ""
