"""The recipe of each snapshot: detected from its packaging files, overridden by the config
(`sandbox.install.<repo>`), amended by what the repair loop learned.

Learned fixes are kept per repository in `<cache>/recipes/<repo>.json` and reused by later
runs; the config's entries always win. `<repo>` is the repository's identity
(`sandbox.repo_name`: `owner/name` from the remote, else the folder name with the root commit),
so two clones of different repositories whose folders share a name never share learned fixes.
A config entry may name the repository by that identity or by its folder name. A backend
receives `book.recipe_for` and never detects anything itself, so a repair is seen by every
backend at its next build.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from sandbox import InstallRecipe, default_cache_dir, repo_name

from .detect import detect_recipe, suite_requirements
from .repair import Fix
from .versions import normalize, suite_pins


def save_learned_fix(path: Path, fix: Fix, commit: str, learned: dict | None = None) -> None:
    """Merge `fix` into the override a recipe cache file keeps (`learned` when the file holds
    none yet) and list it, with its commit, among the file's fixes; the file is replaced whole."""

    def merge(data: dict) -> None:
        data["learned"] = fix.apply(data.get("learned") or learned or {})
        data.pop("dropped_dev_dependencies", None)  # older JS files kept these apart; now in learned["drop"]
        data.setdefault("fixes", []).append({"commit": commit, "rule": fix.rule, "fix": fix.reason})

    _rewrite_recipe_file(path, merge)


def _rewrite_recipe_file(path: Path, change: Callable[[dict], None]) -> None:
    """Read a recipe cache file (empty when missing or unreadable), let `change` edit it, and
    replace the file whole, so that a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        data = {}
    change(data)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    tmp.replace(path)


class RecipeBook:
    def __init__(self, install: dict | None = None, cache_dir: Path | None = None, log: Callable[[str], None] = print):
        self.install = {name: dict(entry or {}) for name, entry in (install or {}).items()}  # the config's
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.log = log
        self._lock = threading.RLock()
        self._overrides: dict[str, dict] = {}  # repository identity -> config entry + learned fixes
        self._learned_packages: dict[str, list[str]] = {}  # repository identity -> packages its learned fixes add
        self._declared: dict[tuple[str, str, str], dict[str, str]] = {}  # (repo, sha, recipe key) -> its specifiers

    def recipe_for(self, repo: Path, commit: str) -> InstallRecipe:
        """The recipe a backend builds `commit`'s environment from. A version pinned by a fix
        learned on another commit (`tokenize-rt==4.1.0`, the release of a 2021 commit's day)
        stays out of a commit whose own requirements exclude it (`tokenize-rt>=6.1.0` in 2025)."""
        override = self.override(repo)
        recipe = detect_recipe(Path(repo), commit, override)
        excluded = self._pins_excluded_by(repo, commit, recipe)
        if not excluded:
            return recipe
        packages = [p for p in override.get("packages", []) if p not in excluded]
        return detect_recipe(Path(repo), commit, {**override, "packages": packages})

    def _pins_excluded_by(self, repo: Path, commit: str, recipe: InstallRecipe) -> set[str]:
        """The learned exact pins (`name==version`) that `commit`'s declared requirements exclude."""
        with self._lock:
            learned = set(self._learned_packages.get(repo_name(repo), ())) - set(
                self._config_entry(repo).get("packages", [])
            )
        pins = [p for p in learned if "==" in p]
        if not pins:
            return set()
        declared = self._declared_pins(repo, commit, recipe)
        excluded = set()
        for pin in pins:
            name, _, version = pin.partition("==")
            spec = declared.get(normalize(name.split("[")[0]), "")
            try:
                if spec and not SpecifierSet(spec).contains(version.strip(), prereleases=True):
                    excluded.add(pin)
            except InvalidSpecifier:
                continue
        return excluded

    def recipe_with(self, repo: Path, commit: str, fix: Fix) -> InstallRecipe:
        """The recipe `commit` would get with `fix` learned (nothing is learned)."""
        return detect_recipe(Path(repo), commit, fix.apply(self.override(repo)))

    def override(self, repo: Path) -> dict:
        """The repo's override as it stands: config entries plus learned fixes."""
        with self._lock:
            return dict(self._load(Path(repo)))

    def _declared_pins(self, repo: Path, commit: str, recipe: InstallRecipe) -> dict[str, str]:
        """The specifiers `commit` declares, read once per full sha (a backend asks for the
        recipe on every run; a branch name is read again, like `detect_recipe`)."""
        key = (str(Path(repo).resolve()), commit, recipe.key())
        if key not in self._declared or not re.fullmatch(r"[0-9a-f]{40}", commit):
            self._declared[key] = suite_pins(suite_requirements(Path(repo), commit, recipe))
        return self._declared[key]

    def _config_entry(self, repo: Path) -> dict:
        """The config's entry for the repository: by its identity, else by its folder name."""
        for key in (repo_name(repo), Path(repo).resolve().name):
            if key in self.install:
                return dict(self.install[key])
        return {}

    def _cache_file(self, repo: Path) -> Path:
        return self.cache_dir / "recipes" / f"{repo_name(repo)}.json"

    def _load(self, repo: Path) -> dict:
        """Reuse what earlier runs learned for this repository (config entries still win)."""
        name = repo_name(repo)
        if name in self._overrides:
            return self._overrides[name]
        current = self._config_entry(repo)
        self._overrides[name] = current
        path = self._cache_file(repo)
        try:
            learned = json.loads(path.read_text()).get("learned", {})
        except (OSError, ValueError):
            return current
        fix = Fix(
            "reused",
            packages=list(learned.get("packages", [])),
            env=dict(learned.get("env", {})),
            drop=list(learned.get("drop", [])),
            build_packages=list(learned.get("build_packages", [])),
            extras=list(learned.get("extras", [])),
        )
        self._learned_packages[name] = list(fix.packages)
        if fix.changes(current):
            self._overrides[name] = fix.apply(current)
            self.log(f"sandbox: reusing the environment fixes learned for {name} ({path})")
        return self._overrides[name]

    def learned_state(self, repo: Path) -> tuple[dict, list[str], dict]:
        """The repo's override, learned packages and the cache file's learned override now, for `take_back`."""
        with self._lock:
            try:
                saved = json.loads(self._cache_file(repo).read_text()).get("learned") or {}
            except (OSError, ValueError):
                saved = {}
            return dict(self._load(Path(repo))), list(self._learned_packages.get(repo_name(repo), [])), saved

    def take_back(self, repo: Path, state: tuple[dict, list[str], dict], commit: str) -> None:
        """Put the repo's learned override back to `state`: the repairs since did not make
        `commit` install, and kept they would reach every other commit of the repository (a
        2020 commit's `backrefs==4.4`, which does not build, broke every later one). The
        cache file keeps them in its history, marked as taken back."""
        name = repo_name(repo)
        override, packages, saved = state
        with self._lock:
            if self._overrides.get(name) == override:
                return
            self._overrides[name], self._learned_packages[name] = dict(override), list(packages)

            def restore(data: dict) -> None:
                data["learned"] = saved
                reason = "the repairs since did not make this commit install"
                data.setdefault("fixes", []).append({"commit": commit, "rule": "taken-back", "fix": reason})

            _rewrite_recipe_file(self._cache_file(repo), restore)

    def learn(self, repo: Path, fix: Fix, commit: str) -> None:
        """Apply a repair to the repo's override and remember it for later runs."""
        name = repo_name(repo)
        with self._lock:
            self._overrides[name] = fix.apply(self._load(Path(repo)))
            self._learned_packages[name] = [*self._learned_packages.get(name, []), *fix.packages]
            save_learned_fix(self._cache_file(repo), fix, commit)
