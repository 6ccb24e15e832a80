"""Setting a snapshot's environment up, repairing it from its logs, and remembering what worked.

`SetupBackend` wraps a backend. Before a snapshot's first run it builds the environment; when
the build fails, or a run cannot collect the suite for a reason of the environment (a missing
third-party module, an unknown pytest option, ...), it reads the log, changes the repo's install
override by rule (or by asking a model, when one is given), and tries again, at most `attempts`
times. What worked is cached per repo (and each snapshot's attempts per environment) in
`<cache>/recipes/`, reused by later runs, and reported by `environment_setup(repo, commit)`.
"""
from __future__ import annotations

import functools
import json
import re
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from .errors import BuildError, SandboxError
from .recipe import InstallRecipe, detect_recipe, repo_name
from .repair import Fix, advice_prompt, diagnose, parse_advice
from .tree import resolve_commit
from .types import TestRun

# a model call: prompt in, parsed JSON object out (wired by the caller, who owns the client)
Advisor = Callable[[str], dict]
_INTERPRETER = {"sebgen-base:bookworm": "3.11"}  # Debian bookworm's python3


class SetupError(SandboxError):
    """The environment could not be set up after every attempt (one sentence naming the log)."""


@dataclass
class Attempt:
    stage: str  # "build" or "collection"
    ok: bool
    fix: str = ""  # the change made after this attempt
    rule: str = ""
    log: str = ""
    seconds: float = 0.0


@dataclass
class SetupRecord:
    repo: str
    commit: str
    environment: str = ""
    attempts: list[Attempt] = field(default_factory=list)

    def to_dict(self, recipe: InstallRecipe) -> dict:
        return {"environment": self.environment, "recipe": recipe.to_dict(),
                "attempts": [asdict(a) for a in self.attempts],
                "fixes": [a.fix for a in self.attempts if a.fix]}


def log_path_of(message: str) -> str:
    """The build-log path a BuildError message names ('' when none)."""
    m = re.search(r"\blog (/\S+?\.log)\b", message)
    return m.group(1) if m else ""


@functools.lru_cache(maxsize=64)
def tree_module_names(repo: str, commit: str) -> frozenset[str]:
    """Names the snapshot provides as modules: top-level entries and every file's stem."""
    proc = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", commit],
                          capture_output=True, text=True, check=False)
    names = set()
    for path in proc.stdout.splitlines():
        parts = Path(path).parts
        names.add(Path(parts[0]).stem)
        names.update(Path(p).stem for p in parts)
    return frozenset(names)


def interpreter_version(backend) -> str:
    """The Python version (major.minor) the backend's environments run, when it can be known."""
    if getattr(backend, "name", "") == "local":
        import sys
        return f"{sys.version_info[0]}.{sys.version_info[1]}"
    base = str(getattr(backend, "base_image", ""))
    m = re.match(r"python:(\d+\.\d+)", base)
    if m:
        return m.group(1)
    return _INTERPRETER.get(str(getattr(backend, "offline_base_image", "")), "")


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

    def __init__(self, inner, attempts: int = 3, advisor: Advisor | None = None,
                 log: Callable[[str], None] = print):
        self.inner = inner
        self.attempts = max(1, attempts)
        self.advisor = advisor
        self.log = log
        self._lock = threading.RLock()
        self._ready: set[str] = set()  # environment ids known to build
        self._records: dict[tuple[str, str], SetupRecord] = {}
        self._loaded: set[str] = set()
        self._probed: set[tuple] = set()  # (environment, files) whose collection errors were read alone

    def __getattr__(self, name):
        return getattr(self.inner, name)

    # -- the repo's override --------------------------------------------------------------
    def _cache_file(self, repo: Path) -> Path:
        return Path(self.inner.cache_dir) / "recipes" / f"{repo_name(repo)}.json"

    def _override(self, repo: Path) -> dict:
        return dict(self.inner.install.get(repo_name(repo)) or {})

    def _load(self, repo: Path) -> None:
        """Reuse what earlier runs learned for this repo (config entries still win)."""
        name = repo_name(repo)
        if name in self._loaded:
            return
        self._loaded.add(name)
        path = self._cache_file(repo)
        try:
            learned = json.loads(path.read_text()).get("learned", {})
        except (OSError, ValueError):
            return
        fix = Fix("reused", packages=list(learned.get("packages", [])), env=dict(learned.get("env", {})),
                  drop=list(learned.get("drop", [])), build_packages=list(learned.get("build_packages", [])))
        if fix.changes(self._override(repo)):
            self.inner.install[name] = fix.apply(self._override(repo))
            self.log(f"sandbox: reusing the environment fixes learned for {name} ({path})")

    def _learn(self, repo: Path, fix: Fix, record: SetupRecord) -> None:
        name = repo_name(repo)
        self.inner.install[name] = fix.apply(self._override(repo))
        path = self._cache_file(repo)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            data = {}
        data["learned"] = fix.apply(data.get("learned", {}))
        data.setdefault("fixes", []).append({"commit": record.commit, "rule": fix.rule, "fix": fix.reason})
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        tmp.replace(path)

    def recipe(self, repo: Path, commit: str) -> InstallRecipe:
        self._load(repo)
        return detect_recipe(repo, commit, self._override(repo))

    def _fix_for(self, log: str, repo: Path, commit: str, stage: str) -> Fix | None:
        recipe = self.recipe(repo, commit)
        fix = diagnose(log, recipe, set(tree_module_names(str(Path(repo).resolve()), commit)), stage)
        if fix is None and self.advisor is not None:
            try:
                fix = parse_advice(self.advisor(advice_prompt(log, recipe, stage)))
            except Exception as exc:  # the model is a last resort: its failure is not the repo's
                self.log(f"sandbox: asking the model for a recipe failed ({type(exc).__name__}: {exc})")
                fix = None
        return fix if fix is not None and fix.changes(self._override(repo)) else None

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
            self._load(repo)
            record = self._record(repo, commit)
            recipe = self.recipe(repo, commit)
            version = recipe.python or interpreter_version(self.inner)
            if not recipe.install and not python_fits(recipe.requires_python, version):
                raise SetupError(f"{repo_name(repo)}@{commit[:10]} requires Python {recipe.requires_python} and "
                                 f"the sandbox runs Python {version}; set sandbox.base_image to a fitting "
                                 f"python image or sandbox.install.{repo_name(repo)}.python")
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
                    attempt = Attempt("build", False, log=path, seconds=round(time.monotonic() - start, 1))
                    record.attempts.append(attempt)
                    fix = self._fix_for(text, repo, commit, "build") if number < self.attempts else None
                    if fix is None:
                        tried = f"after {number} attempt{'s' if number > 1 else ''}"
                        raise SetupError(f"installing {repo_name(repo)}@{commit[:10]} failed {tried}"
                                         + (f"; see the log {path}" if path else f": {str(exc).splitlines()[0]}")) from None
                    attempt.fix, attempt.rule = fix.reason, fix.rule
                    self.log(f"sandbox: environment of {repo_name(repo)}@{commit[:10]} failed to build; "
                             f"repair: {fix.reason}")
                    self._learn(repo, fix, record)
                    continue
                record.attempts.append(Attempt("build", True, seconds=round(time.monotonic() - start, 1)))
                self._ready.add(env_id)
                record.environment = env_id
                return env_id
            raise SetupError(f"installing {repo_name(repo)}@{commit[:10]} failed after {self.attempts} attempts")

    def _collection_fix(self, repo: Path, commit: str, run: TestRun, patches: Sequence[str] = ()) -> Fix | None:
        """A fix when the run could not collect tests for a reason of the environment."""
        if run.timed_out or not (run.exit_code not in (0, 1, 5) or run.collect_errors
                                 or any(v == "error" for v in run.outcomes.values())):
            return None
        fix = self._fix_for(run.log_tail, repo, commit, "collection")
        if fix is None and run.collect_errors:
            # a long run's log tail may have lost the collection error: rerun just those files once
            key = (self.inner.environment_id(repo, commit), tuple(sorted(run.collect_errors)))
            if key not in self._probed:
                self._probed.add(key)
                focused = self.inner.run_tests(repo, commit, patches, sorted(run.collect_errors))
                fix = self._fix_for(focused.log_tail, repo, commit, "collection")
        return fix

    # -- the backend protocol ---------------------------------------------------------------
    def environment_id(self, repo: Path, commit: str) -> str:
        self._load(Path(repo))
        return self.inner.environment_id(repo, commit)

    def prepare(self, repo: Path, commit: str) -> str:
        self.ensure(repo, commit)
        return self.inner.prepare(repo, commit)

    def run_tests(self, repo: Path, commit: str, patches: Sequence[str] = (),
                  test_files: Sequence[str] | None = None) -> TestRun:
        repo = Path(repo)
        for number in range(1, self.attempts + 1):
            self.ensure(repo, commit)
            run = self.inner.run_tests(repo, commit, patches, test_files)
            with self._lock:
                fix = self._collection_fix(repo, commit, run, patches) if number < self.attempts else None
                if fix is None:
                    return run
                record = self._record(repo, commit)
                record.attempts.append(Attempt("collection", False, fix.reason, fix.rule,
                                               seconds=round(run.duration_s, 1)))
                self.log(f"sandbox: tests of {repo_name(repo)}@{commit[:10]} could not run; repair: {fix.reason}")
                self._learn(repo, fix, record)
        return run

    def environment_setup(self, repo: Path, commit: str) -> dict:
        """What set this snapshot's environment up: the recipe, its environment id and the attempts."""
        repo = Path(repo)
        with self._lock:
            record = self._record(repo, commit)
            if not record.environment:
                record.environment = self.inner.environment_id(repo, commit)
            return record.to_dict(self.recipe(repo, commit))

    def setup(self, repo: Path, commit: str = "HEAD", test_files: Sequence[str] | None = None) -> dict:
        """Build the environment of `commit` and run its suite there (`sebgen setup`)."""
        repo = Path(repo)
        sha = resolve_commit(repo, commit)
        start = time.monotonic()
        run = self.run_tests(repo, sha, (), test_files)
        counts = {"passed": 0, "failed": 0, "errored": 0, "skipped": 0}
        for outcome in run.outcomes.values():
            counts[{"error": "errored"}.get(outcome, outcome)] = counts.get({"error": "errored"}.get(outcome, outcome), 0) + 1
        return {"repo": repo_name(repo), "commit": sha, "counts": counts, "exit_code": run.exit_code,
                "timed_out": run.timed_out, "note": run.note, "seconds": round(time.monotonic() - start, 1),
                "log_tail": run.log_tail, **self.environment_setup(repo, sha)}

    def close(self) -> None:
        self.inner.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _read(path: str) -> str:
    try:
        return Path(path).read_text(errors="replace") if path else ""
    except OSError:
        return ""
