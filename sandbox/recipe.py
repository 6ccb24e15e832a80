"""Detecting how a repo snapshot is installed, the shell steps that install it, and its key.

Detection (the readers are in `sandbox.recipe_sources`) reads, at the snapshot: PEP 621
extras and setup.cfg / setup.py extras whose names suggest tests (dev otherwise),
`tests_require`, PEP 735 `[dependency-groups]`, hatch / pdm / poetry dev dependencies, tox
`[testenv] deps`, requirement files (`*requirements*.txt` and `requirements*/` folders,
test-like names only), pytest plugins implied by the pytest config, VCS-derived versions
(pretend-version variables) and `requires-python`. An override (config
`sandbox.install.<repo>` or what the repair loop learned) adds packages, environment
variables and sources to drop, or replaces everything with one `install` command.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import shlex
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .recipe_sources import (Found, candidate_requirement_files, ini, read_pyproject, read_pytest_options,
                             read_setup_cfg, read_setup_py, read_tox, requirement_files)
from .repo_id import repo_name  # noqa: F401  (the backends import it from here)
from .tree import list_files_at, read_file_at

DEP_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini")
# Version stamped on a tree built without its git history (bundles and exports carry no tags):
# high, so `>=` checks between a project's own parts hold.
PRETEND_VERSION = "9999.0.0"


@dataclass(frozen=True)
class InstallRecipe:
    """How to install a snapshot's dependencies; `install` (a shell command) overrides all else."""

    install: str = ""  # shell command run in the tree root; empty means detected steps
    test_cmd: str = ""  # replaces `python -m pytest`; the sandbox's pytest arguments are appended
    packages: tuple[str, ...] = ()  # extra pip packages (config or repair), installed last so pins win
    python: str = ""  # wanted Python version ("3.11"); empty means the base image's
    install_project: bool = False  # `pip install .[extras]` (declares dependencies)
    extras: tuple[str, ...] = ()
    requirements: tuple[str, ...] = ()  # requirement files, installed with -r
    dep_files: dict[str, str] = field(default_factory=dict)  # name -> sha256, part of the key
    dev_packages: tuple[str, ...] = ()  # dependency groups, hatch/pdm/poetry dev, tests_require, tox deps
    plugins: tuple[str, ...] = ()  # pytest plugins the repo's pytest config needs
    build_env: tuple[tuple[str, str], ...] = ()  # variables set while installing (pretend versions)
    requires_python: str = ""  # the project's requires-python specifier
    sources: tuple[str, ...] = ()  # where each detected part came from, for people reading the recipe
    build_packages: tuple[str, ...] = ()  # installed before the project, which then builds without isolation
    dropped: tuple[str, ...] = ()  # detected sources left out (config `drop` or a repair)
    # files the build writes from VCS (setuptools-scm `version_file`, hatch-vcs `version-file`):
    # the tree is imported first, so each run writes them into the tree, not into the image
    version_files: tuple[str, ...] = ()

    @property
    def needs_install(self) -> bool:
        return bool(self.install or self.install_project or self.requirements or self.packages
                    or self.dev_packages or self.plugins)

    def key(self, *salt: str) -> str:
        data = asdict(self)
        data.pop("version_files")  # written into each run's tree: not part of the environment
        blob = json.dumps({"recipe": data, "salt": salt}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        """The recipe as plain data, without empty fields (recorded in tasks, printed by `setup`)."""
        data = asdict(self)
        data["build_env"] = dict(self.build_env)
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
        return {k: v for k, v in data.items() if v not in ("", [], {}, False, None) and k != "dep_files"}


# -- the recipe --------------------------------------------------------------------------
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


def pretend_version_env(variables, dist_name: str = "") -> tuple[tuple[str, str], ...]:
    """Pretend-version variables (and setuptools-scm's per-distribution one) for a tree without tags."""
    env = {}
    for var in variables:
        env[var] = "1" if var.endswith("_BYPASS") else PRETEND_VERSION
        if var == "SETUPTOOLS_SCM_PRETEND_VERSION" and dist_name:
            env[f"{var}_FOR_{re.sub(r'[-_.]+', '_', dist_name).upper()}"] = PRETEND_VERSION
    if "POETRY_DYNAMIC_VERSIONING_BYPASS" in env:
        env["POETRY_DYNAMIC_VERSIONING_BYPASS"] = PRETEND_VERSION
    if "UV_DYNAMIC_VERSIONING_BYPASS" in env:
        env["UV_DYNAMIC_VERSIONING_BYPASS"] = PRETEND_VERSION
    return tuple(sorted(env.items()))


def _detect(repo: Path, commit: str, override: dict | None) -> InstallRecipe:
    override = dict(override or {})
    top = list_files_at(repo, commit)
    req_candidates = candidate_requirement_files(repo, commit, top)
    names = sorted({n for n in top if n in DEP_FILES} | set(req_candidates))
    contents = {n: read_file_at(repo, commit, n) or b"" for n in names}
    digests = {n: hashlib.sha256(b).hexdigest() for n, b in contents.items()}
    text = {n: b.decode(errors="replace") for n, b in contents.items()}
    found = Found()
    tox_files: list[str] = []
    if "pyproject.toml" in text:
        read_pyproject(text["pyproject.toml"], found)
    if "setup.cfg" in text:
        read_setup_cfg(text["setup.cfg"], found)
    if "setup.py" in text:
        found.declares = True
        read_setup_py(text["setup.py"], found)
    if "tox.ini" in text:
        read_tox(text["tox.ini"], found, "tox.ini", tox_files)
    if "pytest.ini" in text:
        parser = ini(text["pytest.ini"])
        if parser.has_section("pytest"):
            read_pytest_options(dict(parser.items("pytest")), found, "pytest.ini")
    drop = set(override.get("drop", ()) or ())
    requirements = [r for r in requirement_files(req_candidates) + [f for f in tox_files if f in contents]
                    if text.get(r, "").strip()]
    requirements = [r for r in dict.fromkeys(requirements) if f"requirements:{r}" not in drop]
    if requirements:
        found.sources.append(f"requirement files: {', '.join(requirements)}")
    env = dict(pretend_version_env(found.vcs_vars, found.dist_name))
    env.update({str(k): str(v) for k, v in (override.get("env", {}) or {}).items()})
    return InstallRecipe(
        install=str(override.get("install", "") or ""),
        test_cmd=str(override.get("test_cmd", "") or ""),
        packages=tuple(override.get("packages", ()) or ()),
        python=str(override.get("python", "") or ""),
        install_project=found.declares and "project" not in drop,
        extras=tuple(found.extras) if "extras" not in drop else (),
        requirements=tuple(requirements),
        dep_files=digests,
        dev_packages=tuple(found.test_requirements()) if "dev_packages" not in drop else (),
        plugins=tuple(found.plugins),
        build_env=tuple(sorted(env.items())),
        requires_python=found.requires_python,
        sources=tuple(found.sources),
        build_packages=tuple(override.get("build_packages", ()) or ()),
        dropped=tuple(sorted(drop)),
        version_files=tuple(found.version_files),
    )


def add_version_files(tree: Path, recipe: InstallRecipe) -> None:
    """Write the VCS version files the build would have written, where the tree lacks them."""
    major = PRETEND_VERSION.split(".")
    text = (f'__version__ = version = "{PRETEND_VERSION}"\n'
            f"__version_tuple__ = version_tuple = ({', '.join(major)})\n"
            "__commit_id__ = commit_id = None\n")
    for rel in recipe.version_files:
        target = (Path(tree) / rel).resolve()
        if Path(tree).resolve() not in target.parents or target.exists() or not target.parent.is_dir():
            continue  # outside the tree, already there, or its package is not in this snapshot
        target.write_text(text)


def install_steps(recipe: InstallRecipe, pip: str) -> list[tuple[str, str]]:
    """(source, shell command) pairs, run in the tree root in order; later steps win pins."""
    exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in recipe.build_env)
    q = shlex.quote
    if recipe.install:
        steps = [("install", recipe.install)]
    else:
        steps = []
        if recipe.build_packages:
            steps.append(("build_packages", f"{pip} install " + " ".join(q(p) for p in recipe.build_packages)))
        if recipe.install_project:
            target = "." + (f"[{','.join(recipe.extras)}]" if recipe.extras else "")
            isolation = " --no-build-isolation" if recipe.build_packages else ""
            steps.append(("project", f"{pip} install{isolation} {q(target)}"))
        if recipe.dev_packages:
            steps.append(("dev_packages", f"{pip} install " + " ".join(q(p) for p in recipe.dev_packages)))
        steps += [(f"requirements:{r}", f"{pip} install -r {q(r)}") for r in recipe.requirements]
    extra = list(dict.fromkeys(recipe.plugins + recipe.packages))
    if extra:
        steps.append(("packages", f"{pip} install " + " ".join(q(p) for p in extra)))
    if steps:  # a source may pin a pytest too old for this interpreter: the runner must still import
        python = pip[: -len(" -m pip")] if pip.endswith(" -m pip") else re.sub(r"pip3?$", "python", pip)
        steps.append(("check", f"{python} -c 'import pytest'"))
    return [(source, exports + cmd) for source, cmd in steps]


STEP_MARK = "sebgen-step:"  # echoed before each install step, so a log names the step that failed


def install_commands(recipe: InstallRecipe, pip: str) -> list[str]:
    """Shell commands (run in the tree root) that install the recipe with the given pip."""
    # a group, so a redirection of the whole command also catches the marker
    return [f"{{ echo {shlex.quote(f'{STEP_MARK} {source}')} && {cmd}; }}" for source, cmd in install_steps(recipe, pip)]
