"""Detecting how a repo snapshot is installed, and the key of its environment."""
from __future__ import annotations

import configparser
import functools
import hashlib
import json
import re
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .repo_id import repo_name  # noqa: F401  (the backends import it from here)
from .tree import list_files_at, read_file_at

DEP_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
_REQ_RE = re.compile(r"^requirements.*\.txt$|^(test|dev)-requirements.*\.txt$")
_TEST_EXTRAS = ("test", "tests", "testing", "dev")


@dataclass(frozen=True)
class InstallRecipe:
    """How to install a snapshot's dependencies; `install` (a shell command) overrides all else."""

    install: str = ""  # shell command run in the tree root; empty means detected steps
    test_cmd: str = ""  # replaces `python -m pytest`; the sandbox's pytest arguments are appended
    packages: tuple[str, ...] = ()  # extra pip packages
    python: str = ""  # wanted Python version ("3.11"); empty means the base image's
    install_project: bool = False  # `pip install .[extras]` (declares dependencies)
    extras: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()  # requirement files, installed with -r
    dep_files: dict[str, str] = field(default_factory=dict)  # name -> sha256, part of the key

    @property
    def needs_install(self) -> bool:
        return bool(self.install or self.install_project or self.requirements or self.packages)

    def key(self, *salt: str) -> str:
        blob = json.dumps({"recipe": asdict(self), "salt": salt}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


def _pyproject_declares(text: str) -> tuple[bool, tuple[str, ...]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return True, ()  # unreadable: let pip decide
    project = data.get("project", {})
    optional = project.get("optional-dependencies", {}) or {}
    extras = tuple(e for e in _TEST_EXTRAS if optional.get(e))
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    declares = bool(project.get("dependencies")) or bool(extras) or len(poetry) > 1
    return declares, extras


def _setup_cfg_declares(text: str) -> tuple[bool, tuple[str, ...]]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return True, ()
    requires = parser.get("options", "install_requires", fallback="").strip()
    extras = tuple(
        e for e in _TEST_EXTRAS
        if parser.has_section("options.extras_require") and parser.get("options.extras_require", e, fallback="").strip()
    )
    return bool(requires) or bool(extras), extras


_SHA_RE = re.compile(r"^[0-9a-f]{40}$")


def detect_recipe(repo: Path, commit: str, override: dict | None = None) -> InstallRecipe:
    """The install recipe of `commit`: detected from its dependency files unless overridden.

    Cached when `commit` is a full sha (its files cannot change); a branch name is re-read.
    """
    if _SHA_RE.match(commit):
        return _detect_cached(str(Path(repo).resolve()), commit, json.dumps(override or {}, sort_keys=True))
    return _detect(repo, commit, override)


@functools.lru_cache(maxsize=256)
def _detect_cached(repo: str, commit: str, override_json: str) -> InstallRecipe:
    return _detect(Path(repo), commit, json.loads(override_json))


def _detect(repo: Path, commit: str, override: dict | None) -> InstallRecipe:
    override = dict(override or {})
    top = list_files_at(repo, commit)
    names = [n for n in top if n in DEP_FILES or _REQ_RE.match(n)]
    contents = {n: read_file_at(repo, commit, n) or b"" for n in sorted(names)}
    digests = {n: hashlib.sha256(b).hexdigest() for n, b in contents.items()}
    declares, extras = False, ()
    if "pyproject.toml" in contents:
        d, e = _pyproject_declares(contents["pyproject.toml"].decode(errors="replace"))
        declares, extras = declares or d, extras or e
    if "setup.cfg" in contents:
        d, e = _setup_cfg_declares(contents["setup.cfg"].decode(errors="replace"))
        declares, extras = declares or d, extras or e
    if "setup.py" in contents and b"install_requires" in contents["setup.py"]:
        declares = True
    requirements = tuple(n for n in contents if _REQ_RE.match(n) and contents[n].strip())
    return InstallRecipe(
        install=str(override.get("install", "")),
        test_cmd=str(override.get("test_cmd", "")),
        packages=tuple(override.get("packages", ()) or ()),
        python=str(override.get("python", "")),
        install_project=declares,
        extras=extras,
        requirements=requirements,
        dep_files=digests,
    )


def install_commands(recipe: InstallRecipe, pip: str) -> list[str]:
    """Shell commands (run in the tree root) that install the recipe with the given pip."""
    if recipe.install:
        steps = [recipe.install]
    else:
        steps = []
        if recipe.install_project:
            target = "." + (f"[{','.join(recipe.extras)}]" if recipe.extras else "")
            steps.append(f"{pip} install '{target}'")
        steps += [f"{pip} install -r '{r}'" for r in recipe.requirements]
    if recipe.packages:
        steps.append(f"{pip} install " + " ".join(f"'{p}'" for p in recipe.packages))
    return steps
