"""The install recipe as the backends execute it: the record, its key, the shell steps that
install it, and the version files each run's tree gets.

What goes into a recipe (detection from a snapshot's dependency files, overrides, repairs) is
the `environment` package's job; a backend only receives recipes (`recipe_for(repo, commit)`).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import re
import shlex
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .js_recipe import JsRecipe

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
    # pytest plugins the sources install that cannot load in the tree (a repair): removed last
    uninstall: tuple[str, ...] = ()
    # files the build writes from VCS (setuptools-scm `version_file`, hatch-vcs `version-file`):
    # the tree is imported first, so each run writes them into the tree, not into the image
    version_files: tuple[str, ...] = ()
    # (python "3.12" or "default", oldest pytest that runs there): the install's last step checks
    # that the pytest the sources left behind is not older (an import alone passes on pytest 4)
    pytest_floors: tuple[tuple[str, str], ...] = ()

    @property
    def needs_install(self) -> bool:
        return bool(
            self.install
            or self.install_project
            or self.requirements
            or self.packages
            or self.dev_packages
            or self.plugins
        )

    def key(self, *salt: str) -> str:
        data = asdict(self)
        data.pop("version_files")  # written into each run's tree: not part of the environment
        if not data["uninstall"]:
            data.pop("uninstall")  # the keys of the recipes made before it stay as they were
        blob = json.dumps({"recipe": data, "salt": salt}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self) -> dict:
        """The recipe as plain data, without empty fields (recorded in tasks, printed by `setup`)."""
        data = asdict(self)
        data["build_env"] = dict(self.build_env)
        data = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
        return {k: v for k, v in data.items() if v not in ("", [], {}, False, None) and k != "dep_files"}


# (repo, commit) -> the snapshot's recipe: an InstallRecipe (Python) or a JsRecipe (JavaScript/TypeScript,
# which the Docker backend runs: sandbox/js_run.py)
def sandbox_pytest_version() -> str | None:
    """The pytest every backend runs tests with unless a recipe installs another: the host's
    (the Docker images pin it, so both backends run the same test runner); None without one."""
    try:
        return importlib.metadata.version("pytest")
    except importlib.metadata.PackageNotFoundError:
        return None


RecipeFor = Callable[[Path, str], "InstallRecipe | JsRecipe"]


def no_recipe(repo: Path, commit: str) -> InstallRecipe:
    """The recipe of a backend nobody told what to install: nothing (the tree runs on pytest alone)."""
    return InstallRecipe()


def add_version_files(tree: Path, recipe: InstallRecipe) -> None:
    """Write the VCS version files the build would have written, where the tree lacks them."""
    major = PRETEND_VERSION.split(".")
    text = (
        f'__version__ = version = "{PRETEND_VERSION}"\n'
        f"__version_tuple__ = version_tuple = ({', '.join(major)})\n"
        "__commit_id__ = commit_id = None\n"
    )
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
    if recipe.uninstall:
        steps.append(("uninstall", f"{pip} uninstall -y " + " ".join(q(p) for p in recipe.uninstall)))
    if steps:  # a source may pin a pytest too old for this interpreter: the runner must still import
        python = pip[: -len(" -m pip")] if pip.endswith(" -m pip") else re.sub(r"pip3?$", "python", pip)
        steps.append(("check", f"{python} -c {q(pytest_check(recipe.pytest_floors))}"))
    return [(source, exports + cmd) for source, cmd in steps]


def pytest_check(floors: tuple[tuple[str, str], ...]) -> str:
    """One line of Python (it goes into a Dockerfile RUN) that imports pytest and, given floors,
    exits with a sentence when its version is older than the running interpreter's floor."""
    if not floors:
        return "import pytest"
    return (
        f"import sys, pytest; floors = {json.dumps(dict(floors))}; "
        'v = lambda s: tuple(int(p) for p in s.split(".")[:2] if p.isdigit()); '
        'need = floors.get("%d.%d" % sys.version_info[:2], floors.get("default", "0")); '
        'sys.exit("pytest %s is older than %s, the oldest that runs on this Python" % (pytest.__version__, need) '
        "if v(pytest.__version__) < v(need) else 0)"
    )


STEP_MARK = "sebgen-step:"  # echoed before each install step, so a log names the step that failed
BUILD_SOURCE = "/sebgen/src"  # where an image build installs the project from (pip names it in its errors)


def install_commands(recipe: InstallRecipe, pip: str) -> list[str]:
    """Shell commands (run in the tree root) that install the recipe with the given pip."""
    # a group, so a redirection of the whole command also catches the marker
    return [
        f"{{ echo {shlex.quote(f'{STEP_MARK} {source}')} && {cmd}; }}" for source, cmd in install_steps(recipe, pip)
    ]
